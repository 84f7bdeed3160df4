//! `doctor`: why a browser's helper does (not) connect, one stable code and one fix per
//! problem.
//!
//! ```text
//! per browser:  manifest at the right place ─▶ JSON ─▶ name ─▶ type ─▶ path (absolute,
//!               exists, executable, this version) ─▶ allowed origin / extension
//! per family:   helper unpacked, same version as this binary, its manifest has every
//!               required permission of the permission table
//! runtime dirs: every candidate searched ─▶ ours, 0700, not a symlink (else nothing in it is used)
//! per host:     descriptors in the runtime dir ─▶ reachable ─▶ protocol and extension version
//!               ─▶ the helper holds every required permission (hello.permissions)
//! a message:    the browser's own error text (what the helper's status page shows) ─▶ cause
//! ```
//!
//! Not being connected is not a problem by itself (the browser may simply be closed); it is
//! reported per browser as `connected`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use webext_mcp_host::descriptor::{self, Descriptor};
use webext_mcp_host::private_dir::DirProblem;
use webext_mcp_host::protocol::permissions::PermissionSet;
use webext_mcp_host::protocol::{
    ErrorBody, ErrorCode, HELPER_CHROMIUM_ID, HELPER_GECKO_ID, Hello, NATIVE_HOST_NAME, PROTOCOL_VERSION,
    methods,
};

mod binary_checks;
mod codes;
mod explain;
mod permissions;
mod text;

use crate::bridge::{BrowserState, Timeout};
use crate::install::Setup;
use binary_checks::check_host_binary;
pub use binary_checks::{binary_problems, binary_version, parse_version_line};
pub(crate) use codes::problem;
pub use codes::{DoctorCode, Problem};
pub use explain::explain_browser_error;
pub use text::text;

use crate::browsers::locations::{self, Location};
use crate::browsers::{ChannelId, Engine};
use crate::paths::is_executable;

const VERSION: &str = env!("CARGO_PKG_VERSION");
/// How long `<path> --version` and a host connection may take.
const PROBE_TIMEOUT: Duration = Duration::from_millis(webext_mcp_host::protocol::timeouts::DOCTOR_PROBE_MS);

fn reinstall(target: ChannelId) -> String {
    format!("run `webext-mcp install --browser {}` to rewrite it", target.id())
}

/// What the manifest at `location` says, and what is wrong with it. `binary_version` tells
/// the version of the webext-mcp at a path (injected: it runs a process).
pub fn check_manifest(
    target: ChannelId,
    location: &Location,
    misplaced: Option<&Path>,
    binary_version: &dyn Fn(&Path) -> Result<String, String>,
) -> (Value, Vec<Problem>) {
    let path = &location.manifest;
    let mut problems = Vec::new();
    let text = match std::fs::read(path) {
        Ok(t) => t,
        Err(e) => {
            let msg = if e.kind() == std::io::ErrorKind::NotFound {
                format!("no host manifest at {}", path.display())
            } else {
                format!("cannot read {}: {e}", path.display())
            };
            problems.push(problem(
                DoctorCode::HostManifestMissing,
                msg,
                format!("run `webext-mcp install --browser {}`", target.id()),
            ));
            if let Some(wrong) = misplaced.filter(|p| p.is_file()) {
                problems.push(problem(
                    DoctorCode::HostManifestWrongPlace,
                    format!(
                        "a manifest is at {}, which {} does not read (it reads only {})",
                        wrong.display(),
                        target.display_name(),
                        path.display()
                    ),
                    format!(
                        "delete {} and run `webext-mcp install --browser {}`",
                        wrong.display(),
                        target.id()
                    ),
                ));
            }
            return (json!({ "present": false }), problems);
        }
    };
    let manifest: Value = match serde_json::from_slice(&text) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => {
            problems.push(problem(
                DoctorCode::HostManifestInvalidJson,
                format!("{} is not a JSON object", path.display()),
                reinstall(target),
            ));
            return (json!({ "present": true, "validJson": false }), problems);
        }
        Err(e) => {
            problems.push(problem(
                DoctorCode::HostManifestInvalidJson,
                format!("{} is not valid JSON: {e}", path.display()),
                reinstall(target),
            ));
            return (json!({ "present": true, "validJson": false }), problems);
        }
    };
    let name = manifest.get("name").and_then(Value::as_str);
    if name != Some(NATIVE_HOST_NAME) {
        problems.push(problem(
            DoctorCode::HostManifestWrongName,
            format!("the manifest's name is {name:?}, the helper connects to \"{NATIVE_HOST_NAME}\""),
            reinstall(target),
        ));
    }
    if manifest.get("type").and_then(Value::as_str) != Some("stdio") {
        problems.push(problem(
            DoctorCode::HostManifestWrongType,
            "the manifest's type is not \"stdio\"",
            reinstall(target),
        ));
    }
    let host_path = manifest.get("path").and_then(Value::as_str).map(PathBuf::from);
    let mut binary = json!(null);
    // Never run (`--version`) a binary another user could have replaced.
    let mut unsafe_binary =
        host_path.as_deref().filter(|p| p.is_absolute() && is_executable(p)).and_then(check_host_binary);
    match &host_path {
        None => problems.push(problem(DoctorCode::HostPathNotAbsolute, "the manifest has no path", reinstall(target))),
        Some(p) if !p.is_absolute() => problems.push(problem(
            DoctorCode::HostPathNotAbsolute,
            format!("the manifest's path {} is not absolute", p.display()),
            reinstall(target),
        )),
        Some(p) if !p.is_file() => problems.push(problem(
            DoctorCode::HostBinaryMissing,
            format!("the manifest's path {} does not exist", p.display()),
            format!(
                "the binary moved or was removed: run `webext-mcp install --browser {}` with the webext-mcp you use now",
                target.id()
            ),
        )),
        Some(p) if !is_executable(p) => problems.push(problem(
            DoctorCode::HostBinaryNotExecutable,
            format!("{} is not executable", p.display()),
            format!("run `chmod +x {}`, or `webext-mcp install --browser {}`", p.display(), target.id()),
        )),
        Some(_) if unsafe_binary.is_some() => problems.extend(unsafe_binary.take()),
        Some(p) => match binary_version(p) {
            Ok(v) if v == VERSION => binary = json!({ "path": p, "version": v }),
            Ok(v) => {
                binary = json!({ "path": p, "version": v });
                problems.push(problem(
                    DoctorCode::HostVersionSkew,
                    format!("the manifest starts webext-mcp {v}, this is webext-mcp {VERSION}"),
                    format!(
                        "run `webext-mcp install --browser {}` with the webext-mcp your MCP client runs, so both are one version",
                        target.id()
                    ),
                ));
            }
            Err(why) => problems.push(problem(
                DoctorCode::HostBinaryNotWebextMcp,
                format!("{} does not answer like webext-mcp: {why}", p.display()),
                reinstall(target),
            )),
        },
    }
    let (key, wanted) = match target.engine() {
        Engine::Chromium => ("allowed_origins", format!("chrome-extension://{HELPER_CHROMIUM_ID}/")),
        Engine::Gecko => ("allowed_extensions", HELPER_GECKO_ID.to_owned()),
    };
    let allowed: Vec<&str> = manifest
        .get(key)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if !allowed.contains(&wanted.as_str()) {
        problems.push(problem(
            DoctorCode::HostIdNotAllowed,
            format!("`{key}` is {allowed:?}; it must contain \"{wanted}\" (the helper's id)"),
            reinstall(target),
        ));
    }
    let summary = json!({
        "present": true,
        "validJson": true,
        "name": name,
        "path": host_path,
        "binary": binary,
        key: allowed,
    });
    (summary, problems)
}

/// The unpacked helper of one family.
fn check_helper(setup: &Setup, family: Engine) -> (Value, Vec<Problem>) {
    let dir = setup.helper_dir(family);
    let manifest = dir.join("manifest.json");
    let manifest = std::fs::read(&manifest).ok().and_then(|b| serde_json::from_slice::<Value>(&b).ok());
    let version = manifest.as_ref().and_then(|m| m.get("version").and_then(Value::as_str).map(str::to_owned));
    let mut problems = Vec::new();
    match &version {
        None => problems.push(problem(
            DoctorCode::HelperNotUnpacked,
            format!("no {} helper at {}", family.name(), dir.display()),
            "run `webext-mcp install`",
        )),
        Some(v) if v != VERSION => problems.push(problem(
            DoctorCode::HelperOutdated,
            format!("the unpacked {} helper is {v}, this webext-mcp is {VERSION}", family.name()),
            "run `webext-mcp install`, then reload the helper in the browser's extensions page",
        )),
        Some(_) => {}
    }
    if let Some(m) = manifest.as_ref().filter(|_| version.is_some()) {
        problems.extend(permissions::check_manifest(family, m));
    }
    (json!({ "dir": dir, "version": version }), problems)
}

/// One running host and what talking to it showed.
async fn check_host(browser: &BrowserState, d: &Descriptor) -> (Value, Vec<Problem>) {
    let mut problems = Vec::new();
    let who = format!("{} (label {}, host pid {})", d.browser, d.label, d.pid);
    let reach = tokio::time::timeout(PROBE_TIMEOUT, browser.hello_of(d)).await;
    let (error, last_error, granted) = match reach {
        Ok(Ok(hello)) => (None, helper_last_error(browser, d).await, granted_permissions(&hello)),
        Ok(Err(e)) => (Some(e), Value::Null, None),
        Err(_) => (Some(ErrorBody::new(ErrorCode::Timeout, "connecting timed out")), Value::Null, None),
    };
    if let Some(e) = &error {
        let (code, fix) = match e.code {
            ErrorCode::VersionSkew => (
                DoctorCode::ProtocolSkew,
                "install one webext-mcp for both the MCP client and the browsers (`webext-mcp install`)",
            ),
            ErrorCode::PermissionDenied => (
                DoctorCode::PermissionDenied,
                "this is not your host (another user's process or a forged socket); nothing was sent to it. \
                 Remove the runtime dir it came from as its owner, or set XDG_RUNTIME_DIR to a private directory",
            ),
            _ => (
                DoctorCode::HostUnreachable,
                "restart the browser; if it persists read the host log h-<pid>.log in the runtime dir",
            ),
        };
        problems.push(problem(code, format!("{who}: {}", e.line()), fix));
    }
    let error = error.map(|e| e.line());
    if d.protocol != PROTOCOL_VERSION && error.is_none() {
        problems.push(problem(
            DoctorCode::ProtocolSkew,
            format!("{who} speaks protocol {}, this server {PROTOCOL_VERSION}", d.protocol),
            "install one webext-mcp for both the MCP client and the browsers (`webext-mcp install`)",
        ));
    }
    if d.ext_version != VERSION {
        problems.push(problem(
            DoctorCode::ExtensionVersionSkew,
            format!("{who} runs helper {}, this server is {VERSION}", d.ext_version),
            "run `webext-mcp install`, then reload the helper in the browser's extensions page",
        ));
    }
    // Only a helper of this version is held to this version's table (an older one is
    // EXTENSION_VERSION_SKEW already); a browser name doctor does not know is skipped.
    let family = crate::browsers::engine_of_reported(&d.browser);
    if let (Some(family), Some(granted), true) = (family, &granted, d.ext_version == VERSION) {
        problems.extend(permissions::check_granted(family, &who, granted));
    }
    let compatible = problems.is_empty();
    let row = json!({
        "browser": d.browser,
        "browserVersion": d.browser_version,
        "label": d.label,
        "pid": d.pid,
        "session": d.session,
        "extVersion": d.ext_version,
        "protocol": d.protocol,
        "reachable": error.is_none(),
        "compatible": compatible,
        "error": error,
        "helperLastError": last_error,
        "permissions": granted,
    });
    (row, problems)
}

/// What the connected helper's `hello` says it holds (`permissions.getAll()`); `None` from a
/// helper that does not say.
fn granted_permissions(hello: &Value) -> Option<PermissionSet> {
    let hello = hello.get("hello").cloned()?;
    serde_json::from_value::<Hello>(hello).ok()?.permissions
}

/// The last native-messaging failure the connected helper saw (in the browser's words) with
/// what it means; `null` when it has none or does not say. History, not a current problem:
/// the helper is connected again.
async fn helper_last_error(browser: &BrowserState, d: &Descriptor) -> Value {
    let timeout = Timeout::fixed(webext_mcp_host::protocol::timeouts::DOCTOR_PROBE_MS);
    let info = browser.call_in(d, methods::BrowserInfo {}, timeout).await;
    let Some(last) = info.ok().and_then(|i| i.extra.get("lastError").cloned()).filter(Value::is_object)
    else {
        return Value::Null;
    };
    let meaning = last.get("message").and_then(Value::as_str).and_then(explain_browser_error);
    json!({ "message": last.get("message"), "at": last.get("at"), "meaning": meaning })
}

/// What doctor is asked.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// Only these browsers (also when not detected).
    pub browsers: Option<Vec<ChannelId>>,
    /// An error message the browser gave the helper, to explain.
    pub browser_error: Option<String>,
}

fn scoped(scope: &str, ps: &[Problem]) -> Vec<Value> {
    ps.iter()
        .map(|p| {
            let mut v = json!(p);
            v["scope"] = json!(scope);
            v
        })
        .collect()
}

/// The checks on files (manifests, the unpacked helper): blocking, they may run
/// `<path> --version`.
fn local_checks(setup: &Setup, request: &Request, hosts: &[Descriptor]) -> (Vec<Value>, Value, Vec<Value>) {
    let mut all = Vec::new();
    let current = setup.binary.clone();
    let version_of = move |p: &Path| binary_version(&current, p);
    let misplaced = locations::misplaced_gecko_manifest(setup.os, &setup.roots.home);
    let mut browsers = Vec::new();
    let mut families = Vec::new();
    let mut seen_manifests: Vec<PathBuf> = Vec::new();
    let located: Vec<(ChannelId, Location)> = ChannelId::ALL
        .into_iter()
        .filter_map(|t| locations::location(t, setup.os, &setup.roots).map(|l| (t, l)))
        .collect();
    for (target, loc) in &located {
        let (target, loc) = (*target, loc);
        let detected = loc.config_dir.is_dir();
        // A browser that is not here is listed for its manifest only when that file is its
        // own: Zen reads Firefox's file, which says nothing about Zen.
        let shared = located.iter().any(|(t, l)| *t != target && l.manifest == loc.manifest);
        let wanted = match &request.browsers {
            Some(named) => named.contains(&target),
            None => detected || (loc.manifest.is_file() && !shared),
        };
        if !wanted {
            continue;
        }
        let wrong = (target.engine() == Engine::Gecko).then_some(misplaced.as_deref()).flatten();
        let (manifest, ps) = check_manifest(target, loc, wrong, &version_of);
        // Firefox and Zen share one file: its problems are reported once.
        if !seen_manifests.contains(&loc.manifest) {
            all.extend(scoped(target.id(), &ps));
            seen_manifests.push(loc.manifest.clone());
        }
        let connected: Vec<&Descriptor> =
            hosts.iter().filter(|d| d.browser == target.reported_name()).collect();
        if !families.contains(&target.engine()) {
            families.push(target.engine());
        }
        browsers.push(json!({
            "id": target.id(),
            "name": target.display_name(),
            "family": target.engine().name(),
            "detected": detected,
            "manifestPath": loc.manifest,
            "registryKeys": loc.registry_keys,
            "manifest": manifest,
            "problems": ps,
            "connected": !connected.is_empty(),
            "hosts": connected
                .iter()
                .map(|d| json!({"label": d.label, "pid": d.pid, "extVersion": d.ext_version}))
                .collect::<Vec<_>>(),
        }));
    }
    if browsers.is_empty() && request.browsers.is_none() {
        let looked: Vec<String> = located.iter().map(|(_, l)| l.config_dir.display().to_string()).collect();
        all.extend(scoped(
            "browsers",
            &[problem(
                DoctorCode::NoBrowserDetected,
                format!(
                    "no browser profile folder and no host manifest found (looked for {})",
                    looked.join(", ")
                ),
                "run the browser once (it makes its profile folder), or run `webext-mcp install --browser chromium` (or firefox, chrome, …) to install for it anyway",
            )],
        ));
    }
    let mut helper = serde_json::Map::new();
    for family in families {
        let (row, ps) = check_helper(setup, family);
        all.extend(scoped(&format!("helper:{}", family.name()), &ps));
        helper.insert(family.name().to_owned(), row);
    }
    (browsers, Value::Object(helper), all)
}

/// One row per runtime dir searched, and a `PERMISSION_DENIED` problem for each dir that was
/// refused (another user's, a symlink, too open): nothing in such a dir is used.
fn runtime_dirs(searched: &[descriptor::DirReport]) -> (Vec<Value>, Vec<Problem>) {
    let mut rows = Vec::new();
    let mut problems = Vec::new();
    for r in searched {
        let verdict = match &r.problem {
            None => "used",
            Some(p) if !p.is_unsafe() => "absent",
            Some(_) => "refused",
        };
        let mut row = json!({ "path": r.path, "verdict": verdict, "hosts": r.hosts });
        if let Some(p) = r.problem.as_ref().filter(|p| p.is_unsafe()) {
            row["problem"] = json!(p.describe(&r.path));
            if let DirProblem::ForeignOwner { owner } = p {
                row["owner"] = json!(owner);
            }
            problems.push(problem(
                DoctorCode::PermissionDenied,
                format!("{}; nothing in it is used", p.describe(&r.path)),
                p.fix(&r.path),
            ));
        }
        rows.push(row);
    }
    (rows, problems)
}

/// Runs every check. `ok` is false when any problem was found.
pub async fn doctor(setup: &Setup, request: &Request, browser: &BrowserState) -> Value {
    let (hosts, searched) = descriptor::search(&setup.paths.runtime_search);
    let (setup2, request2, hosts2) = (setup.clone(), request.clone(), hosts.clone());
    let local = tokio::task::spawn_blocking(move || local_checks(&setup2, &request2, &hosts2)).await;
    let (browsers, helper, mut all) = match local {
        Ok(found) => found,
        Err(e) => {
            let p = problem(
                DoctorCode::DoctorFailed,
                format!("the file checks stopped: {e}"),
                "report this with the message",
            );
            (Vec::new(), json!({}), scoped("doctor", &[p]))
        }
    };
    all.splice(0..0, scoped("server", &binary_problems()));
    let (dir_rows, dir_problems) = runtime_dirs(&searched);
    all.extend(scoped("runtimeDir", &dir_problems));
    let mut host_rows = Vec::new();
    for d in &hosts {
        let (row, ps) = check_host(browser, d).await;
        all.extend(scoped(&format!("host:{}", d.label), &ps));
        host_rows.push(row);
    }
    let explained = request.browser_error.as_deref().map(|text| match explain_browser_error(text) {
        Some(p) => {
            all.extend(scoped("browserError", std::slice::from_ref(&p)));
            json!(p)
        }
        None => json!({ "message": text, "known": false }),
    });
    json!({
        "ok": all.is_empty(),
        "server": {
            "version": VERSION,
            "protocol": PROTOCOL_VERSION,
            "binary": setup.binary,
            "helperEmbedded": crate::helper::missing().is_empty(),
        },
        "nativeHost": NATIVE_HOST_NAME,
        "runtimeDir": setup.paths.runtime_dir,
        "runtimeDirs": dir_rows,
        "browsers": browsers,
        "helper": helper,
        "hosts": host_rows,
        "browserError": explained,
        "problems": all,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn descriptor(ext_version: &str, socket: &Path) -> Descriptor {
        Descriptor {
            browser: "chromium".into(),
            browser_version: "156".into(),
            label: "chromium-abcdef".into(),
            pid: std::process::id(),
            ppid: 1,
            ext_version: ext_version.into(),
            protocol: PROTOCOL_VERSION,
            socket: socket.to_path_buf(),
            started_at: 0,
            session: None,
            capabilities: Vec::new(),
            token: Default::default(),
        }
    }

    #[tokio::test]
    async fn a_host_with_an_old_helper_is_version_skew_and_a_dead_socket_is_unreachable() {
        let dir = tempfile::tempdir().unwrap();
        let browser = BrowserState::new(&[dir.path().to_path_buf()], None);
        let (row, problems) = check_host(&browser, &descriptor("0.0.1", &dir.path().join("gone.sock"))).await;
        let codes: Vec<&str> = problems.iter().map(|p| p.code.as_str()).collect();
        assert_eq!(codes, ["HOST_UNREACHABLE", "EXTENSION_VERSION_SKEW"]);
        assert!(problems[1].message.contains("0.0.1") && problems[1].fix.contains("reload the helper"));
        assert_eq!(row["reachable"], false);
        assert_eq!(row["compatible"], false);
    }

    #[test]
    fn version_lines_parse() {
        assert_eq!(parse_version_line("webext-mcp 0.1.0\n").as_deref(), Some("0.1.0"));
        assert_eq!(parse_version_line("python 3"), None);
        assert_eq!(parse_version_line(""), None);
    }
}
