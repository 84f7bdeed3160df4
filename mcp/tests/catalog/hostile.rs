//! Issue 44 items 2 and 6: a hostile catalog template. Creating from it never runs its
//! install scripts (nor its dependencies'), and its catalog cannot send the fetcher where a
//! source may not go: a redirect to plain http, an archive on a loopback service that is not
//! the configured mirror.

use std::path::Path;

use serde_json::{Value, json};

use super::remote::{cli, hits, tiny_manifest, zip_of};
use crate::common::http::TestServer;

/// A local catalog whose `scripted` template (and its `file:` dependency) leave markers in
/// `markers` when their install scripts run.
fn scripted_catalog(dir: &Path, markers: &Path) -> String {
    let t = dir.join("public/scripted");
    std::fs::create_dir_all(t.join("src")).unwrap();
    std::fs::create_dir_all(t.join("vendor/dep")).unwrap();
    std::fs::write(t.join("src/manifest.json"), tiny_manifest()).unwrap();
    std::fs::write(t.join("src/bg.js"), "1").unwrap();
    let m = markers.display();
    let pkg = json!({
        "name": "scripted", "version": "1.0.0", "private": true,
        "scripts": {"preinstall": format!("touch {m}/pre.marker"), "postinstall": format!("touch {m}/post.marker")},
        "dependencies": {"dep": "file:./vendor/dep"}
    });
    std::fs::write(t.join("package.json"), pkg.to_string()).unwrap();
    let dep =
        json!({"name": "dep", "version": "1.0.0", "scripts": {"install": format!("touch {m}/dep.marker")}});
    std::fs::write(t.join("vendor/dep/package.json"), dep.to_string()).unwrap();
    let doc = json!({"version": "2", "templates": [{
        "slug": "scripted", "title": "Scripted", "description": "runs things", "surfaces": ["background"],
        "files": ["public/scripted/src/manifest.json"]
    }]});
    std::fs::write(dir.join("templates-meta.json"), doc.to_string()).unwrap();
    format!("disk={}", dir.join("templates-meta.json").display())
}

fn markers_in(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

#[test]
fn a_template_whose_install_scripts_write_markers_runs_none_of_them() {
    let catalog = tempfile::tempdir().unwrap();
    let markers = tempfile::tempdir().unwrap();
    let source = scripted_catalog(catalog.path(), markers.path());
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let quiet = [
        ("npm_config_audit", "false"),
        ("npm_config_fund", "false"),
        ("npm_config_update_notifier", "false"),
    ];
    let mut env: Vec<(&str, &str)> = vec![("WEBEXT_MCP_CATALOG_SOURCES", source.as_str())];
    env.extend(quiet);
    let args = |name: &str, extra: Value| {
        let mut a = json!({"projectName": name, "template": "disk:scripted", "git": false});
        a.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        a
    };

    // Default: no install, and the next step is the command that installs without scripts.
    let (code, out) = cli(home.path(), work.path(), &env, "extension_create", args("a", json!({})));
    assert_eq!(code, 0, "{out}");
    assert_eq!(out["depsInstalled"], false);
    assert!(out["nextSteps"].to_string().contains("npm install --ignore-scripts"), "{out}");
    assert!(!work.path().join("a/node_modules").exists());
    assert_eq!(markers_in(markers.path()), Vec::<String>::new());

    // Asked to install by an agent, without the user's say: not installed, and it says why.
    let (code, out) =
        cli(home.path(), work.path(), &env, "extension_create", args("b", json!({"install": true})));
    assert_eq!(code, 0, "{out}");
    assert_eq!(out["depsInstalled"], false, "{out}");
    assert!(out["warnings"].to_string().contains("PROJECT_SCRIPTS_NOT_ALLOWED"), "{out}");
    assert!(!work.path().join("b/node_modules").exists());
    assert_eq!(markers_in(markers.path()), Vec::<String>::new());

    // Allowed (as CI does): installed with --ignore-scripts, the skipped scripts named.
    env.push(("WEBEXT_MCP_ALLOW_PROJECT_SCRIPTS", "1"));
    let (code, out) =
        cli(home.path(), work.path(), &env, "extension_create", args("c", json!({"install": true})));
    assert_eq!(code, 0, "{out}");
    assert_eq!(out["depsInstalled"], true, "{out}");
    assert!(work.path().join("c/node_modules/dep/package.json").is_file(), "{out}");
    let skipped: Vec<&str> =
        out["skippedScripts"].as_array().unwrap().iter().map(|s| s["package"].as_str().unwrap()).collect();
    assert_eq!(skipped, ["c (this project)", "dep@1.0.0"], "{out}");
    assert_eq!(
        out["skippedScripts"][0]["scripts"]["postinstall"],
        format!("touch {}/post.marker", markers.path().display())
    );
    assert_eq!(markers_in(markers.path()), Vec::<String>::new(), "no install script ran");
}

/// A catalog behind the mirror (the https host it names is served by `mirror`).
fn mirrored_env(mirror: &TestServer, source: &str) -> Vec<(String, String)> {
    vec![
        ("WEBEXT_MCP_CATALOG_MIRROR".into(), mirror.url("")),
        ("WEBEXT_MCP_CATALOG_SOURCES".into(), format!("hostile={source}")),
    ]
}

fn pairs(env: &[(String, String)]) -> Vec<(&str, &str)> {
    env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

fn tiny_catalog(archive_url: &str) -> String {
    json!({"version": "2", "templates": [{
        "slug": "tiny", "title": "Tiny", "description": "d", "surfaces": ["background"],
        "files": ["public/tiny/src/manifest.json"],
        "archive": {"url": archive_url}
    }]})
    .to_string()
}

#[test]
fn a_catalog_redirect_to_plain_http_is_refused_and_never_followed() {
    let mirror = TestServer::start();
    let elsewhere = TestServer::start();
    elsewhere.route("/templates-meta.json", "application/json", tiny_catalog("https://cat.example/a.zip"));
    mirror.redirect("/cat.example/templates-meta.json", &elsewhere.url("/templates-meta.json"));
    // A redirect that stays at the mirror is followed (relative Location).
    mirror.redirect("/cat.example/moved.json", "/cat.example/real.json");
    mirror.route("/cat.example/real.json", "application/json", tiny_catalog("https://cat.example/a.zip"));
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();

    let env = mirrored_env(&mirror, "https://cat.example/templates-meta.json");
    let (code, out) = cli(home.path(), work.path(), &pairs(&env), "extension_list_templates", json!({}));
    assert_eq!(code, 0, "{out}");
    assert_eq!(out["sources"][0]["state"], "failed", "{out}");
    assert!(out["warnings"].to_string().contains("refused"), "{out}");
    assert_eq!(hits(&elsewhere, "/templates-meta.json"), 0, "the redirect reached a plain-http host");

    let home = tempfile::tempdir().unwrap();
    let env = mirrored_env(&mirror, "https://cat.example/moved.json");
    let (code, out) = cli(home.path(), work.path(), &pairs(&env), "extension_list_templates", json!({}));
    assert_eq!(code, 0, "{out}");
    assert_eq!(out["sources"][0]["templates"], 1, "{out}");
}

#[test]
fn an_archive_on_a_loopback_url_that_is_not_the_mirror_is_refused_before_any_request() {
    let mirror = TestServer::start();
    let local_service = TestServer::start();
    let archive = zip_of(&[("tiny/src/manifest.json", 0o644, tiny_manifest())]);
    local_service.route("/a.zip", "application/zip", archive);
    mirror.route(
        "/cat.example/templates-meta.json",
        "application/json",
        tiny_catalog(&local_service.url("/a.zip")),
    );
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let env = mirrored_env(&mirror, "https://cat.example/templates-meta.json");
    let args = json!({"projectName": "x", "template": "hostile:tiny", "git": false});
    let (code, out) = cli(home.path(), work.path(), &pairs(&env), "extension_create", args);
    assert_eq!((code, out["error"]["code"].as_str()), (1, Some("PERMISSION_DENIED")), "{out}");
    assert!(out["error"]["message"].as_str().unwrap().contains(&local_service.url("/a.zip")), "{out}");
    assert!(
        local_service.requests().is_empty(),
        "a request reached the local service: {:?}",
        local_service.requests()
    );
    assert!(!work.path().join("x").exists());
}

#[test]
fn an_archive_announced_larger_than_the_limit_is_refused_before_it_is_read() {
    let server = TestServer::start();
    let archive = zip_of(&[("tiny/src/manifest.json", 0o644, tiny_manifest())]);
    server.route("/big.zip", "application/zip", archive);
    let announced = 65 * 1024 * 1024;
    server.quirk(
        "/big.zip",
        crate::common::http::Quirk { declared_len: Some(announced), ..Default::default() },
    );
    server.route("/cat/templates-meta.json", "application/json", tiny_catalog(&server.url("/big.zip")));
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let source = format!("mine={}", server.url("/cat/templates-meta.json"));
    let env = [("WEBEXT_MCP_CATALOG_SOURCES", source.as_str())];
    let args = json!({"projectName": "x", "template": "mine:tiny", "git": false});
    let (code, out) = cli(home.path(), work.path(), &env, "extension_create", args);
    assert_eq!((code, out["error"]["code"].as_str()), (1, Some("NETWORK")), "{out}");
    assert!(out["error"]["message"].as_str().unwrap().contains("limit of 64 MiB"), "{out}");
    assert!(!work.path().join("x").exists());
}

/// Regression (issue 46): a template archive of 100,000 entries became a project of the first
/// 4,999 files, silently. An archive over the file cap now fails the create, naming the cap.
#[test]
fn an_archive_with_more_files_than_the_cap_fails_the_create_clearly() {
    let server = TestServer::start();
    let names: Vec<String> = (0..5001).map(|i| format!("tiny/src/f{i}.txt")).collect();
    let mut entries: Vec<(&str, u32, &[u8])> = vec![("tiny/src/manifest.json", 0o644, tiny_manifest())];
    entries.extend(names.iter().map(|n| (n.as_str(), 0o644, b"x".as_slice())));
    server.route("/many.zip", "application/zip", zip_of(&entries));
    server.route("/cat/templates-meta.json", "application/json", tiny_catalog(&server.url("/many.zip")));
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let source = format!("mine={}", server.url("/cat/templates-meta.json"));
    let env = [("WEBEXT_MCP_CATALOG_SOURCES", source.as_str())];
    let args = json!({"projectName": "x", "template": "mine:tiny", "git": false});
    let (code, out) = cli(home.path(), work.path(), &env, "extension_create", args);
    assert_eq!((code, out["error"]["code"].as_str()), (1, Some("INTEGRITY")), "{out}");
    assert!(out["error"]["message"].as_str().unwrap().contains("more than 5000 files"), "{out}");
    assert!(!work.path().join("x").exists());
}
