//! upload_file_by_uid / upload_file (issue 31), both browsers, background tabs: the page's
//! own `change` and `drop` handlers see the right names, sizes, types and bytes (SHA-256
//! computed by the page) for one file, several files, a 5 MiB file (staged in pieces well
//! over the 1 MiB native-messaging cap), a hidden input and a drop zone; the upload rule
//! refuses secrets, dotfiles, paths outside the roots and oversized files, and nothing
//! reaches the page then.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::common::http::TestServer;
use crate::common::mcp_client::{Server, command};
use crate::{Agent, BOTH};

const PAGE: &str = r#"<!doctype html><title>Upload</title>
<label for=one>Photo</label><input type=file id=one accept="image/*">
<label>Docs <input type=file id=many multiple></label>
<label for=hidden>Choose</label><input type=file id=hidden style="display:none">
<input id=name placeholder="Your name">
<div id=zone style="width:200px;height:80px;border:1px solid">Drop here</div>
<pre id=out></pre>
<script>
const out = document.getElementById('out');
async function show(tag, files) {
  const lines = [];
  for (const f of files) {
    const digest = await crypto.subtle.digest('SHA-256', await f.arrayBuffer());
    const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
    lines.push(`${tag} ${f.name} ${f.size} ${f.type} ${hex}`);
  }
  out.textContent += lines.join('\n') + '\n';
  out.dataset.done = String(Number(out.dataset.done ?? 0) + 1);
}
for (const id of ['one', 'many', 'hidden']) document.getElementById(id).addEventListener('change', (e) => show(id, e.target.files));
const zone = document.getElementById('zone');
zone.addEventListener('dragover', (e) => e.preventDefault());
zone.addEventListener('drop', (e) => { e.preventDefault(); show('zone', e.dataTransfer.files); });
</script>"#;

fn sha(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// An agent whose server lives in `home`, with upload roots `roots` (comma-separated) and an
/// upload cap of `megabytes`.
pub(crate) fn agent_with_roots(
    family: webext_mcp::browsers::Engine,
    home: tempfile::TempDir,
    roots: &str,
    megabytes: u32,
) -> Agent {
    agent_with_roots_on(crate::common::helper::shared(family), home, roots, megabytes)
}

/// [`agent_with_roots`] against `browser`.
fn agent_with_roots_on(
    browser: &'static crate::common::helper::HelperBrowser,
    home: tempfile::TempDir,
    roots: &str,
    megabytes: u32,
) -> Agent {
    let mut cmd = command(home.path());
    cmd.env("WEBEXT_MCP_RUNTIME_DIR", browser.runtime_dir.path())
        .env("WEBEXT_MCP_UPLOAD_ROOTS", roots)
        .env("WEBEXT_MCP_UPLOAD_MAX_MEGABYTES", megabytes.to_string())
        .args(["serve", "--browser", &browser.session]);
    let mut server = Server::spawn(cmd);
    server.initialize();
    Agent { server, browser, _home: home }
}

pub(crate) fn fresh_home() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("wxm-agent-").tempdir().unwrap()
}

/// What the page's handlers printed once `n` of them finished.
fn page_lines(agent: &mut Agent, tab: i64, n: u32) -> Vec<String> {
    agent.ok("wait_for", json!({ "tabId": tab, "selector": format!("pre[data-done='{n}']") }));
    let out = agent.ok(
        "evaluate_script",
        json!({ "tabId": tab, "function": "() => document.getElementById('out').textContent" }),
    );
    let text: Value = serde_json::from_str(out["json"].as_str().unwrap()).unwrap();
    text.as_str().unwrap().lines().map(str::to_owned).collect()
}

/// The ref of the first snapshot line containing `needle`.
fn ref_of(snapshot: &str, needle: &str) -> String {
    let line = snapshot
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no `{needle}` in:\n{snapshot}"));
    let at = line.find("[e").unwrap_or_else(|| panic!("no ref on {line}"));
    line[at + 1..].split(']').next().unwrap().to_owned()
}

#[test]
fn files_reach_the_pages_own_handlers_in_both_browsers() {
    let root = tempfile::tempdir().unwrap();
    let photo = b"\x89PNG\r\n\x1a\nnot really a png".to_vec();
    let notes = b"plain notes\n".to_vec();
    // 5 MiB of non-repeating bytes: five staged pieces' worth of frames, checked by hash.
    let big: Vec<u8> = (0..5u32 << 20).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    std::fs::write(root.path().join("photo.png"), &photo).unwrap();
    std::fs::write(root.path().join("notes.txt"), &notes).unwrap();
    std::fs::write(root.path().join("big.bin"), &big).unwrap();
    std::fs::write(root.path().join("empty.txt"), b"").unwrap();
    let path = |n: &str| root.path().join(n).display().to_string();
    let server = TestServer::start();
    server.page("/upload.html", PAGE);
    for family in BOTH {
        let mut agent = agent_with_roots(family, fresh_home(), &root.path().display().to_string(), 50);
        let f = agent.family();
        let tab = agent.open(&server.url("/upload.html"));
        // One file by locator; the result says what the page's input holds.
        let one =
            agent.ok("upload_file", json!({ "tabId": tab, "locator": "#one", "paths": [path("photo.png")] }));
        assert_eq!(
            one["files"],
            json!([{ "name": "photo.png", "size": photo.len(), "type": "image/png" }]),
            "{f}: {one}"
        );
        assert_eq!(one["warnings"], json!([]), "{f}: {one}");
        assert_eq!(
            page_lines(&mut agent, tab, 1),
            [format!("one photo.png {} image/png {}", photo.len(), sha(&photo))],
            "{f}"
        );
        // Several files by ref, the 5 MiB one among them, and an empty one.
        let snap = agent.snapshot(tab, json!({}));
        let docs = ref_of(&snap, "Docs");
        let many = agent.call(
            "upload_file_by_uid",
            json!({ "tabId": tab, "uid": docs, "paths": [path("notes.txt"), path("big.bin"), path("empty.txt")] }),
        );
        assert_ne!(many["isError"], json!(true), "{f}: {many}");
        let text = many["content"][0]["text"].as_str().unwrap();
        assert!(
            text.starts_with("uploaded notes.txt (12 B), big.bin (5242880 B), empty.txt (0 B)"),
            "{f}: {text}"
        );
        let lines = page_lines(&mut agent, tab, 2);
        assert_eq!(
            lines[1..],
            [
                format!("many notes.txt 12 text/plain {}", sha(&notes)),
                format!("many big.bin {} application/octet-stream {}", big.len(), sha(&big)),
                format!("many empty.txt 0 text/plain {}", sha(b"")),
            ],
            "{f}"
        );
        // A hidden input (behind its label) takes files too; a drop zone takes a drop.
        agent.ok("upload_file", json!({ "tabId": tab, "locator": "#hidden", "paths": [path("notes.txt")] }));
        assert_eq!(
            page_lines(&mut agent, tab, 3)[4],
            format!("hidden notes.txt 12 text/plain {}", sha(&notes)),
            "{f}"
        );
        let dropped = agent.ok(
            "upload_file",
            json!({ "tabId": tab, "locator": "#zone", "paths": [path("photo.png")], "drop": true }),
        );
        assert_eq!(dropped["action"], "upload", "{f}: {dropped}");
        assert_eq!(
            page_lines(&mut agent, tab, 4)[5],
            format!("zone photo.png {} image/png {}", photo.len(), sha(&photo)),
            "{f}"
        );
        // The accept list is a warning, not a refusal (the page decides).
        let warned =
            agent.ok("upload_file", json!({ "tabId": tab, "locator": "#one", "paths": [path("notes.txt")] }));
        assert!(warned["warnings"][0].as_str().unwrap().contains("accept list"), "{f}: {warned}");
        // Wrong targets and counts are the agent's errors, with nothing uploaded.
        let not_file = agent
            .err("upload_file", json!({ "tabId": tab, "locator": "#name", "paths": [path("notes.txt")] }));
        assert_eq!(not_file["code"], "INVALID_ARGUMENT", "{f}: {not_file}");
        assert!(not_file["message"].as_str().unwrap().contains("drop: true"), "{f}: {not_file}");
        let two = agent.err(
            "upload_file",
            json!({ "tabId": tab, "locator": "#one", "paths": [path("notes.txt"), path("photo.png")] }),
        );
        assert_eq!(two["code"], "INVALID_ARGUMENT", "{f}: {two}");
        assert_eq!(page_lines(&mut agent, tab, 5).len(), 7, "{f}: only the warned upload arrived since");
        agent.close(tab);
    }
}

/// Chromium debugger mode: an input's files are set by path through `DOM.setFileInputFiles`
/// (the browser reads them; trusted `change`), only for paths the upload rule admits; a drop
/// zone is still staged. A browser of its own: debugger mode changes every action's input.
#[tokio::test]
async fn chromium_debugger_mode_sets_files_by_path_within_the_roots() {
    use crate::observe_bench::{remote_browser, set_setting, status_page};
    let root = tempfile::tempdir().unwrap();
    let photo = b"\x89PNG\r\n\x1a\nby path".to_vec();
    let big: Vec<u8> = (0..5u32 << 20).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8).collect();
    std::fs::write(root.path().join("photo.png"), &photo).unwrap();
    std::fs::write(root.path().join("big.bin"), &big).unwrap();
    std::fs::write(root.path().join(".env"), b"TOKEN=planted").unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("other.txt"), b"not in the roots").unwrap();
    let server = TestServer::start();
    server.page("/upload.html", PAGE);
    let b = remote_browser(webext_mcp::browsers::Engine::Chromium).await;
    let status = status_page(b).await;
    set_setting(b, &status, "debuggerMode", true).await;
    let url = server.url("/upload.html");
    let roots = root.path().display().to_string();
    let path = move |dir: &std::path::Path, n: &str| dir.join(n).display().to_string();
    let (root_dir, outside_dir) = (root.path().to_owned(), outside.path().to_owned());
    tokio::task::spawn_blocking(move || {
        let mut agent = agent_with_roots_on(b, fresh_home(), &roots, 50);
        let tab = agent.open(&url);
        let one = agent.ok("upload_file", json!({ "tabId": tab, "locator": "#one", "paths": [path(&root_dir, "photo.png")] }));
        assert_eq!(one["via"], "debugger", "{one}");
        assert_eq!(one["input"], "trusted", "{one}");
        assert_eq!(one["files"], json!([{ "name": "photo.png", "size": photo.len(), "type": "image/png" }]), "{one}");
        assert_eq!(page_lines(&mut agent, tab, 1), [format!("one photo.png {} image/png {}", photo.len(), sha(&photo))]);
        let snap = agent.snapshot(tab, json!({}));
        let many = agent.ok(
            "upload_file_by_uid",
            json!({ "tabId": tab, "uid": ref_of(&snap, "Docs"), "paths": [path(&root_dir, "big.bin"), path(&root_dir, "photo.png")] }),
        );
        assert_eq!(many["via"], "debugger", "{many}");
        let lines = page_lines(&mut agent, tab, 2);
        assert!(lines.contains(&format!("many big.bin {} application/octet-stream {}", big.len(), sha(&big))), "{lines:?}");
        // The same rule: nothing outside the roots, no dotfiles, and nothing reaches the page.
        for p in [path(&outside_dir, "other.txt"), path(&root_dir, ".env")] {
            let err = agent.err("upload_file", json!({ "tabId": tab, "locator": "#one", "paths": [p] }));
            assert_eq!(err["code"], "PERMISSION_DENIED", "{err}");
        }
        // A drop zone has no input: staged as before.
        let dropped = agent.ok("upload_file", json!({ "tabId": tab, "locator": "#zone", "drop": true, "paths": [path(&root_dir, "photo.png")] }));
        assert_ne!(dropped["via"], "debugger", "{dropped}");
        let lines = page_lines(&mut agent, tab, 3);
        assert_eq!(lines.len(), 4, "the refused paths reached the page: {lines:?}");
        assert!(lines[3].starts_with("zone photo.png"), "{lines:?}");
        assert_eq!(agent.ok("get_browser_info", json!({}))["debuggerSessions"], 0, "detached after");
    })
    .await
    .unwrap();
    set_setting(b, &status, "debuggerMode", false).await;
    b.runner.shutdown().await;
}

#[test]
fn the_upload_rule_refuses_secrets_dotfiles_outsiders_and_oversized_files() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    std::fs::create_dir_all(h.join("proj")).unwrap();
    std::fs::write(h.join("proj/.env"), b"API_KEY=1").unwrap();
    std::fs::write(h.join("proj/ok.txt"), b"fine").unwrap();
    std::fs::write(h.join("proj/huge.bin"), vec![7u8; 2 << 20]).unwrap();
    std::fs::write(h.join("outside.txt"), b"not under the root").unwrap();
    std::os::unix::fs::symlink(h.join("outside.txt"), h.join("proj/link.txt")).unwrap();
    let server = TestServer::start();
    server.page("/upload.html", PAGE);
    for family in BOTH {
        // The server's home is an upload root too: its secrets and dotfiles stay refused.
        let server_home = fresh_home();
        let sh = server_home.path().to_owned();
        std::fs::create_dir_all(sh.join(".ssh")).unwrap();
        std::fs::write(sh.join(".ssh/id_ed25519"), b"-----BEGIN OPENSSH PRIVATE KEY-----").unwrap();
        std::fs::write(sh.join(".netrc"), b"machine x password y").unwrap();
        let roots = format!("{},{}", h.join("proj").display(), sh.display());
        let mut agent = agent_with_roots(family, server_home, &roots, 1);
        let f = agent.family();
        let tab = agent.open(&server.url("/upload.html"));
        let cases = [
            (sh.join(".ssh/id_ed25519").display().to_string(), "PERMISSION_DENIED"),
            (sh.join(".netrc").display().to_string(), "PERMISSION_DENIED"),
            ("/etc/passwd".to_owned(), "PERMISSION_DENIED"),
            (h.join("nowhere/secret.txt").display().to_string(), "PERMISSION_DENIED"),
            (h.join("proj/.env").display().to_string(), "PERMISSION_DENIED"),
            (h.join("outside.txt").display().to_string(), "PERMISSION_DENIED"),
            (h.join("proj/link.txt").display().to_string(), "PERMISSION_DENIED"),
            ("proj/ok.txt".to_owned(), "INVALID_ARGUMENT"),
            (h.join("proj/missing.txt").display().to_string(), "NOT_FOUND"),
            (h.join("proj/huge.bin").display().to_string(), "PAYLOAD_TOO_LARGE"),
        ];
        for (path, code) in &cases {
            let e = agent.err(
                "upload_file",
                json!({ "tabId": tab, "locator": "#many", "paths": [h.join("proj/ok.txt"), path] }),
            );
            assert_eq!(e["code"], *code, "{f}: {path}: {e}");
            assert!(e["hint"].as_str().is_some_and(|s| !s.is_empty()), "{f}: {path}: {e}");
        }
        let ok = agent
            .ok("upload_file", json!({ "tabId": tab, "locator": "#many", "paths": [h.join("proj/ok.txt")] }));
        assert_eq!(ok["files"][0]["name"], "ok.txt", "{f}: {ok}");
        // Only the admitted upload reached the page.
        assert_eq!(page_lines(&mut agent, tab, 1).len(), 1, "{f}");
        agent.close(tab);
    }
}

/// The helper's side of staging, called raw: an upload is bound at `page.uploadOpen` to its
/// tab and element; pieces for another tab, a bad piece, or pieces after a cancel are
/// refused and drop the upload; finishing on another element — named by another locator,
/// or by the same selector after the page moved it to another element — is refused; nothing
/// reaches the page's handlers in any of these.
#[test]
fn an_upload_goes_only_to_the_tab_and_element_it_was_opened_for() {
    use base64::Engine as _;
    use webext_mcp_host::client::Client;
    use webext_mcp_host::protocol::ErrorCode;
    use webext_mcp_host::protocol::methods::{
        PAGE_UPLOAD, PAGE_UPLOAD_CANCEL, PAGE_UPLOAD_CHUNK, PAGE_UPLOAD_OPEN,
    };
    let root = tempfile::tempdir().unwrap();
    let server = TestServer::start();
    server.page("/upload.html", PAGE);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let body = b"hello\n";
    let b64 = base64::engine::general_purpose::STANDARD.encode(body);
    let meta = json!([{ "name": "a.txt", "type": "text/plain", "size": body.len(), "lastModified": 0 }]);
    for family in BOTH {
        let mut agent = agent_with_roots(family, fresh_home(), &root.path().display().to_string(), 50);
        let f = agent.family();
        let tab = agent.open(&server.url("/upload.html"));
        let other = agent.open(&server.url("/upload.html"));
        let d = agent.browser.hosts().into_iter().next().expect("a live host");
        let client = rt.block_on(Client::connect(&d)).unwrap();
        let call =
            |method: &str, params: Value| rt.block_on(client.call(method, params, crate::common::DEADLINE));
        let open = |id: &str, locator: &str| {
            let r = call(
                PAGE_UPLOAD_OPEN,
                json!({ "tabId": tab, "upload": id, "locator": locator, "files": meta }),
            );
            assert_eq!(r.as_ref().map(|v| v["upload"].clone()).ok(), Some(json!(id)), "{f}: {r:?}");
        };
        let piece = |id: &str, t: i64, data: &str| {
            call(PAGE_UPLOAD_CHUNK, json!({ "tabId": t, "upload": id, "file": 0, "index": 0, "data": data }))
        };
        let finish = |id: &str, locator: &str| {
            call(PAGE_UPLOAD, json!({ "tabId": tab, "upload": id, "locator": locator, "files": meta }))
        };
        let code = |r: Result<Value, webext_mcp_host::protocol::ErrorBody>| r.map_err(|e| e.code).err();

        // A piece never opened, and a piece for another tab than the upload's.
        assert_eq!(code(piece("uNeverOpened", tab, &b64)), Some(ErrorCode::NotFound), "{f}");
        open("uOtherTab01", "#one");
        assert_eq!(code(piece("uOtherTab01", other, &b64)), Some(ErrorCode::InvalidArgument), "{f}");
        // Opened for #one: finishing on #many is refused, and the upload is gone after.
        open("uElement001", "#one");
        piece("uElement001", tab, &b64).unwrap();
        assert_eq!(code(finish("uElement001", "#many")), Some(ErrorCode::Stale), "{f}");
        assert_eq!(code(finish("uElement001", "#one")), Some(ErrorCode::InvalidArgument), "{f}");
        // The page moves the selector to another input meanwhile: still the opened element only.
        open("uMovedSel01", "#one");
        piece("uMovedSel01", tab, &b64).unwrap();
        agent.ok(
            "evaluate_script",
            json!({ "tabId": tab, "function": "() => { document.getElementById('one').id = 'was-one'; document.getElementById('many').id = 'one'; return true; }" }),
        );
        assert_eq!(code(finish("uMovedSel01", "#one")), Some(ErrorCode::Stale), "{f}");
        agent.ok(
            "evaluate_script",
            json!({ "tabId": tab, "function": "() => { document.getElementById('one').id = 'many'; document.getElementById('was-one').id = 'one'; return true; }" }),
        );
        // Cancelled: the pieces that still arrive are dropped, and there is nothing to set.
        open("uCancelled1", "#hidden");
        let c = call(PAGE_UPLOAD_CANCEL, json!({ "tabId": tab, "upload": "uCancelled1" })).unwrap();
        assert_eq!(c["cancelled"], true, "{f}: {c}");
        assert_eq!(code(piece("uCancelled1", tab, &b64)), Some(ErrorCode::NotFound), "{f}");
        assert_eq!(code(finish("uCancelled1", "#hidden")), Some(ErrorCode::InvalidArgument), "{f}");
        // A piece that is not base64 drops the whole upload: the next good piece is refused.
        open("uBadPiece01", "#hidden");
        assert_eq!(code(piece("uBadPiece01", tab, "not base64!")), Some(ErrorCode::InvalidArgument), "{f}");
        assert_eq!(code(piece("uBadPiece01", tab, &b64)), Some(ErrorCode::NotFound), "{f}");
        // A short upload (pieces missing) is refused too.
        let two =
            json!([{ "name": "b.txt", "type": "text/plain", "size": 2 * body.len(), "lastModified": 0 }]);
        call(
            PAGE_UPLOAD_OPEN,
            json!({ "tabId": tab, "upload": "uShortOne01", "locator": "#hidden", "files": two }),
        )
        .unwrap();
        piece("uShortOne01", tab, &b64).unwrap();
        let short = call(
            PAGE_UPLOAD,
            json!({ "tabId": tab, "upload": "uShortOne01", "locator": "#hidden", "files": two }),
        );
        assert_eq!(code(short), Some(ErrorCode::InvalidArgument), "{f}");
        // None of it reached the page's handlers; a whole upload does, on the element named.
        let out = agent.ok(
            "evaluate_script",
            json!({ "tabId": tab, "function": "() => document.getElementById('out').textContent" }),
        );
        assert_eq!(out["json"], json!("\"\""), "{f}: {out}");
        open("uWhole00001", "#one");
        piece("uWhole00001", tab, &b64).unwrap();
        let done = finish("uWhole00001", "#one").unwrap();
        assert_eq!(
            done["files"],
            json!([{ "name": "a.txt", "size": body.len(), "type": "text/plain" }]),
            "{f}: {done}"
        );
        assert_eq!(page_lines(&mut agent, tab, 1), [format!("one a.txt 6 text/plain {}", sha(body))], "{f}");
        drop(client);
        agent.close(other);
        agent.close(tab);
    }
}

/// Issue 31's figure: a 5 MiB file into an input, tools/call → settled result, median of 7
/// per browser, with where the time goes (the server's `timings`): `open` = page.uploadOpen
/// (locate, bind), `staging` = the pieces through the host into the page (decoded there as
/// they arrive), `page.upload` = building the File and setting it (`helper`, the helper's
/// `waitedMs`) plus the settle; the rest = the upload rule, reading and the MCP round trip.
/// Then Chromium with debugger mode (DOM.setFileInputFiles: nothing staged), in a browser of
/// its own. `cargo test --release -p webext-mcp --test pages upload_bench -- --ignored --nocapture`
#[test]
#[ignore = "benchmark: run with --ignored --nocapture"]
fn upload_bench() {
    let root = tempfile::tempdir().unwrap();
    let big: Vec<u8> = (0..5u32 << 20).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    std::fs::write(root.path().join("big.bin"), &big).unwrap();
    let path = root.path().join("big.bin").display().to_string();
    let roots = root.path().display().to_string();
    let server = TestServer::start();
    server.page("/upload.html", PAGE);
    for family in BOTH {
        let agent = agent_with_roots(family, fresh_home(), &roots, 50);
        bench_uploads(agent, &server.url("/upload.html"), &path, family.name());
    }
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let b = rt.block_on(async {
        use crate::observe_bench::{remote_browser, set_setting, status_page};
        let b = remote_browser(webext_mcp::browsers::Engine::Chromium).await;
        let status = status_page(b).await;
        set_setting(b, &status, "debuggerMode", true).await;
        b
    });
    bench_uploads(
        agent_with_roots_on(b, fresh_home(), &roots, 50),
        &server.url("/upload.html"),
        &path,
        "chromium (debugger mode)",
    );
    rt.block_on(b.runner.shutdown());
}

/// The server's pieces in flight at once (mcp/src/tools/input/upload.rs).
const WINDOW: u32 = 3;

fn bench_uploads(mut agent: Agent, url: &str, path: &str, what: &str) {
    let tab = agent.open(url);
    // total, open, staging, page.upload, helper (waitedMs), settle; then the pieces' sums:
    // round trips, the helper's share, the hand-over to the frame, the agent's decode
    let mut runs: Vec<[f64; 10]> = Vec::new();
    // per piece: server → helper, in the helper, hand-over → agent, decode, agent → helper,
    // helper → server (the pieces' summed hops over their count)
    let mut hops: Vec<[f64; 6]> = Vec::new();
    for _ in 0..7 {
        let t = std::time::Instant::now();
        let out = agent.ok("upload_file", json!({ "tabId": tab, "locator": "#many", "paths": [path] }));
        let total = t.elapsed().as_secs_f64() * 1000.0;
        let ms = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
        let tm = &out["timings"];
        if let Some(h) = tm["piecesHopsMs"].as_array().filter(|h| h.len() == 6) {
            let n = ms(&tm["pieces"]);
            hops.push(std::array::from_fn(|k| ms(&h[k]) / n));
        }
        runs.push([
            total,
            ms(&tm["openMs"]),
            ms(&tm["stagingMs"]),
            ms(&tm["uploadMs"]),
            ms(&out["waitedMs"]),
            ms(&out["settledMs"]),
            ms(&tm["piecesRttMs"]),
            ms(&tm["piecesHelperMs"]),
            ms(&tm["piecesPageMs"]),
            ms(&tm["piecesDecodeMs"]),
        ]);
    }
    let median = |k: usize| {
        let mut v: Vec<f64> = runs.iter().map(|r| r[k]).collect();
        v.sort_by(f64::total_cmp);
        (v[3], v[0], v[6])
    };
    let (total, min, max) = median(0);
    let [open, staging, upload, helper, settle, rtt, in_helper, page, decode] =
        [1, 2, 3, 4, 5, 6, 7, 8, 9].map(|k| median(k).0);
    println!(
        "{what} upload_file of a 5 MiB file: median {total:.1} ms (n=7, min {min:.1}, max {max:.1}); \
         open {open:.0} ms, staging {staging:.0} ms, page.upload {upload:.0} ms (helper {helper:.0} ms, settle {settle:.0} ms), \
         the rest (rule, read, MCP) {:.0} ms; pieces (sums, {WINDOW} in flight): round trips {rtt:.0} ms, \
         in the helper {in_helper:.0} ms, hand-over to the frame {page:.0} ms, decode {decode:.0} ms",
        total - [open, staging, upload].iter().filter(|v| v.is_finite()).sum::<f64>()
    );
    if !hops.is_empty() {
        let m: [f64; 6] = std::array::from_fn(|k| {
            let mut x: Vec<f64> = hops.iter().map(|h| h[k]).collect();
            x.sort_by(f64::total_cmp);
            x[x.len() / 2]
        });
        println!(
            "{what} per piece (median of the runs' means, queueing included): server → helper {:.1} ms, \
             in the helper {:.1}, hand-over → agent {:.1}, decode {:.1}, agent → helper {:.1}, helper → server {:.1}",
            m[0], m[1], m[2], m[3], m[4], m[5]
        );
    }
    agent.close(tab);
}
