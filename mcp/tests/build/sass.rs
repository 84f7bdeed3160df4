//! Sass builds natively (grass, no Node.js): imported by scripts — plain, as CSS modules,
//! `@use` of a package in `node_modules` — and named by the manifest or a page. A file grass
//! rejects goes to the project's toolchain, with grass's error as the reason.

use serde_json::Value;

use super::Project;
use super::delegation::executable;

fn manifest(p: &Project) -> Value {
    serde_json::from_str(&p.read("dist/chrome/manifest.json")).unwrap()
}

/// A content script importing a plain stylesheet and a Sass module, both using a package's
/// tokens through `@use`; `package.json` declares `sass` as Extension.js projects do.
fn sass_project() -> Project {
    let p = Project::empty();
    p.write(
        "manifest.json",
        r#"{"manifest_version":3,"name":"Sassy","version":"1.0.0","content_scripts":[{"matches":["<all_urls>"],"js":["content.js"]}]}"#,
    )
    .write("package.json", r#"{"name":"sassy","private":true,"devDependencies":{"sass":"^1.77.8"}}"#)
    .write(
        "content.js",
        "import './base.scss';\nimport styles from './badge.module.scss';\nconst el = document.createElement('div');\nel.className = styles.badge;\ndocument.body.append(el);\n",
    )
    .write("base.scss", "@use 'tokens-kit/colors' as c;\nbody { .wx-frame { outline: 1px solid c.$edge; } }\n")
    .write(
        "badge.module.scss",
        "@use 'sass:math';\n@use 'partials/sizes';\n.badge { padding: math.div(sizes.$gap, 2); &:hover { color: red; } }\n",
    )
    .write("partials/_sizes.scss", "$gap: 12px;\n")
    .write("node_modules/tokens-kit/package.json", r#"{"name":"tokens-kit","version":"1.0.0"}"#)
    .write("node_modules/tokens-kit/_colors.scss", "$edge: rgb(10, 20, 30);\n");
    p
}

#[test]
fn sass_imported_by_a_content_script_compiles_natively() {
    let p = sass_project();
    let run = p.build(&["--browser", "chrome"]);
    assert_eq!(run.build_for("chrome")["pipeline"], "native", "{:#}", run.json);
    let m = manifest(&p);
    let css_file = m["content_scripts"][0]["css"][0].as_str().unwrap().to_owned();
    let css = p.read(&format!("dist/chrome/{css_file}"));
    // The module's class is scoped, and the script gets the scoped name; the module's file is
    // listed in the manifest, as Extension.js lists it.
    assert!(css.contains("padding: 6px") && !css.contains(".badge {"), "{css}");
    assert!(css.contains(".badge_") && css.contains(":hover"), "{css}");
    let js = p.read("dist/chrome/content.js");
    assert!(js.contains("badge_"), "{js}");
    assert!(!css.contains("@use") && !css.contains('$'), "{css}");
    // The plain stylesheet is compiled too, and goes with the script to the extension's root
    // (the content-script contract), never to the host page through the manifest.
    assert!(!css.contains("wx-frame"), "{css}");
    assert!(js.contains("wx-frame") && js.contains("rgb(10, 20, 30)") && !js.contains("@use"), "{js}");
}

#[test]
fn sass_named_by_the_manifest_or_a_page_becomes_css() {
    let p = Project::empty();
    p.write(
        "manifest.json",
        r#"{"manifest_version":3,"name":"Sassy","version":"1.0.0","action":{"default_popup":"popup.html"},"content_scripts":[{"matches":["<all_urls>"],"js":["content.js"],"css":["styles/look.scss"]}]}"#,
    )
    .write("content.js", "console.log('hi');\n")
    .write("styles/look.scss", "$c: #102030;\nbody { color: $c; }\n")
    .write("popup.html", "<!doctype html><link rel=\"stylesheet\" href=\"popup.sass\"><p>hi</p>\n")
    .write("popup.sass", "$w: 300px\nbody\n  width: $w\n");
    let run = p.build(&["--browser", "chrome"]);
    assert_eq!(run.build_for("chrome")["pipeline"], "native", "{:#}", run.json);
    assert_eq!(manifest(&p)["content_scripts"][0]["css"][0], "styles/look.css");
    assert!(p.read("dist/chrome/styles/look.css").contains("color: #102030"));
    assert!(
        p.read("dist/chrome/popup.html").contains("href=\"/popup.css\""),
        "{}",
        p.read("dist/chrome/popup.html")
    );
    assert!(p.read("dist/chrome/popup.css").contains("width: 300px"));
    assert!(!p.path().join("dist/chrome/styles/look.scss").exists());
}

#[test]
fn sass_grass_rejects_goes_to_the_toolchain_with_grass_error_as_the_reason() {
    let p = sass_project();
    p.write("base.scss", "body { color: $undefined-colour; }\n");
    // No toolchain: the build fails saying what grass said.
    let run = p.build(&["--browser", "chrome"]);
    let (code, err) = run.error();
    assert_eq!(code, "BUILD_FAILED", "{err:#}");
    let f = &err["data"]["findings"][0];
    assert_eq!(f["code"], "MANIFEST_NEEDS_COMPILE", "{err:#}");
    assert!(f["message"].as_str().unwrap().contains("Undefined variable"), "{f:#}");

    // With a build script (allowed), it is delegated, the reason naming grass's error.
    p.write("package.json", r#"{"name":"sassy","private":true,"scripts":{"build":"sh ./build.sh"}}"#);
    executable(
        &p,
        "build.sh",
        "#!/bin/sh\nset -e\nout=dist/$WEBEXT_MCP_BROWSER\nmkdir -p $out\nprintf '{\"manifest_version\":3,\"name\":\"Sassy\",\"version\":\"1.0.0\"}' > $out/manifest.json\n",
    );
    let run = p.build(&["--browser", "chrome"]);
    let b = run.build_for("chrome");
    assert_eq!(b["pipeline"], "delegated", "{b:#}");
    assert!(b["delegation"]["reason"].as_str().unwrap().contains("Undefined variable"), "{b:#}");
}

#[cfg(unix)]
#[test]
fn sass_reading_outside_the_project_is_refused() {
    let p = sass_project();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("_secret.scss"), "$key: 'sk-live-never-ship';\n").unwrap();
    std::os::unix::fs::symlink(outside.path().join("_secret.scss"), p.path().join("partials/_secret.scss"))
        .unwrap();
    p.write("base.scss", "@use 'partials/secret';\nbody::after { content: secret.$key; }\n");
    let run = p.build(&["--browser", "chrome"]);
    let (_, err) = run.error();
    assert!(!err.to_string().contains("sk-live-never-ship"), "{err:#}");
    assert!(err.to_string().contains("outside the project"), "{err:#}");
    assert!(!p.path().join("dist/chrome").exists());
}
