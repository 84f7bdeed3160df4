//! Screenshots (issue 29): screenshot_page and screenshot_by_uid on background tabs in both
//! browsers — the user's active tab unchanged and the captured tab still hidden — decoded and
//! checked for the test pages' colours; the viewport, a 5-screen full page, a clip, an
//! element; the byte and size budget; password fields masked; two servers at once; savePath.

use base64::Engine as _;
use serde_json::{Value, json};
use webext_mcp::browsers::Engine;

use crate::common::http::TestServer;
use crate::png::{Image, decode, near};
use crate::{Agent, BOTH};

const RED: [u8; 3] = [255, 0, 0];
const GREEN: [u8; 3] = [0, 255, 0];
const BLUE: [u8; 3] = [0, 0, 255];
const YELLOW: [u8; 3] = [255, 255, 0];
const MAGENTA: [u8; 3] = [255, 0, 255];
const WHITE: [u8; 3] = [255, 255, 255];

const QUADRANTS: &str = r#"<!doctype html><title>Quadrants</title><style>
html, body { margin: 0; height: 100%; overflow: hidden; background: #fff }
div { position: fixed; width: 50vw; height: 50vh }
#a { left: 0; top: 0; background: #f00 } #b { left: 50vw; top: 0; background: #0f0 }
#c { left: 0; top: 50vh; background: #00f } #d { left: 50vw; top: 50vh; background: #ff0 }
</style><div id="a"></div><div id="b"></div><div id="c"></div><div id="d"></div>"#;

const SCREENS: &str = r#"<!doctype html><title>Five screens</title><style>
body { margin: 0 } section { height: 100vh }
</style><section style="background:#f00"></section><section style="background:#0f0"></section>
<section style="background:#00f"></section><section style="background:#ff0"></section>
<section style="background:#f0f"></section>"#;

const ELEMENT: &str = r#"<!doctype html><title>Element</title><style>
body { margin: 0; height: 3000px; background: #fff }
#box { position: absolute; left: 120px; top: 1500px; width: 200px; height: 100px; background: #00f; border: 0; color: #00f }
</style><button id="box">Box</button>"#;

/// A viewport of random pixels: far over any byte budget as PNG.
const NOISE: &str = r#"<!doctype html><title>Noise</title><style>body { margin: 0; overflow: hidden }</style>
<canvas id="c"></canvas><script>
const c = document.getElementById('c'); c.width = innerWidth; c.height = innerHeight;
const g = c.getContext('2d'); const img = g.createImageData(c.width, c.height);
for (let i = 0; i < img.data.length; i++) img.data[i] = i % 4 === 3 ? 255 : Math.random() * 256;
g.putImageData(img, 0, 0);
</script>"#;

const PASSWORD: &str = r#"<!doctype html><title>Login</title><style>
html, body { margin: 0; height: 100%; background: #fff }
input { position: fixed; left: 0; top: 0; width: 60vw; height: 40vh; font-size: 90px; border: 0; outline: 0; background: #fff; color: #000; padding: 0 }
#host { position: fixed; left: 0; top: 50vh; width: 60vw; height: 40vh }
</style><input id="pw" type="password" value="correct horse battery"><div id="host"></div>
<script>
// A password inside a shadow root is masked too.
const root = document.getElementById('host').attachShadow({ mode: 'open' });
root.innerHTML = '<input type="password" value="hidden in a shadow root" style="width:100%;height:100%;font-size:90px;border:0;outline:0;background:#fff;color:#000;padding:0">';
</script>"#;

fn server() -> TestServer {
    let s = TestServer::start();
    for (path, html) in [
        ("/quadrants.html", QUADRANTS),
        ("/screens.html", SCREENS),
        ("/element.html", ELEMENT),
        ("/noise.html", NOISE),
        ("/password.html", PASSWORD),
    ] {
        s.page(path, html);
    }
    s
}

/// The image block of a result, decoded from base64.
fn image_bytes(result: &Value) -> Vec<u8> {
    let block = &result["content"][1];
    assert_eq!(block["type"], "image", "no image block: {result}");
    base64::engine::general_purpose::STANDARD.decode(block["data"].as_str().unwrap()).unwrap()
}

/// A screenshot that must succeed: its structured content and the decoded PNG.
pub(crate) fn shot(agent: &mut Agent, tool: &str, args: Value) -> (Value, Image) {
    let r = agent.call(tool, args.clone());
    assert!(r["isError"] != json!(true), "{}: {tool} {args}: {}", agent.family(), r["content"][0]["text"]);
    let bytes = image_bytes(&r);
    let s = r["structuredContent"].clone();
    assert_eq!(s["bytes"], json!(bytes.len()), "{s}");
    assert!(
        s.get("imageContent").is_none() && s.get("data").is_none(),
        "the data sits in the image block only: {s}"
    );
    (s, decode(&bytes))
}

fn visibility(agent: &mut Agent, tab: i64) -> String {
    let out =
        agent.ok("evaluate_script", json!({ "tabId": tab, "function": "() => document.visibilityState" }));
    serde_json::from_str(out["json"].as_str().unwrap()).unwrap()
}

/// What focus looks like from the tab list: the active tab of every window.
fn actives(agent: &mut Agent) -> Vec<(i64, i64)> {
    let list = agent.ok("list_pages", json!({}));
    let mut out: Vec<(i64, i64)> = list["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["active"] == json!(true))
        .map(|t| (t["windowId"].as_i64().unwrap(), t["tabId"].as_i64().unwrap()))
        .collect();
    out.sort();
    out
}

/// Every window's active tab in `before` is still active, but the agent window's (whose active
/// tab changes on purpose).
fn user_focus_kept(agent: &mut Agent, before: &[(i64, i64)], agent_window: &Value) {
    let after = actives(agent);
    for (w, t) in before.iter().filter(|(w, _)| json!(w) != *agent_window) {
        assert!(
            after.contains(&(*w, *t)),
            "{}: window {w} lost its active tab {t}: {after:?}",
            agent.family()
        );
    }
}

#[test]
fn a_background_tab_is_captured_without_focus_and_shows_its_colours() {
    let server = server();
    for family in BOTH {
        let mut agent = Agent::new(family);
        let tab = agent.open(&server.url("/quadrants.html"));
        let before = actives(&mut agent);
        assert!(!before.iter().any(|(_, t)| *t == tab), "new_page opened a background tab");
        let (s, img) = shot(&mut agent, "screenshot_page", json!({ "tabId": tab, "format": "png" }));
        assert_eq!(s["format"], "png", "{s}");
        for (fx, fy, colour) in
            [(0.25, 0.25, RED), (0.75, 0.25, GREEN), (0.25, 0.75, BLUE), (0.75, 0.75, YELLOW)]
        {
            assert!(
                near(img.at(fx, fy), colour, 8),
                "{}: at ({fx},{fy}) {:?}, want {colour:?} ({s})",
                family.name(),
                img.at(fx, fy)
            );
        }
        // Focus: the user's windows keep their active tabs. Firefox draws the hidden tab as
        // it is; Chromium draws no hidden tab, so the agent's tab moved to the agent window.
        let agent_window = if family == Engine::Chromium {
            assert_eq!(
                (s["mechanism"].clone(), s["moved"].clone()),
                (json!("agentWindow"), json!(true)),
                "{s}"
            );
            s["tab"]["windowId"].clone()
        } else {
            assert_eq!(
                (s["mechanism"].clone(), s["tab"]["active"].clone()),
                (json!("captureTab"), json!(false)),
                "{s}"
            );
            assert_eq!(visibility(&mut agent, tab), "hidden");
            Value::Null
        };
        user_focus_kept(&mut agent, &before, &agent_window);
        println!(
            "{}: background viewport via {} in {} ms",
            family.name(),
            s["mechanism"],
            s["timings"]["helperMs"]
        );

        // A clip: the top left 100×100 px is red all over.
        let (s, img) = shot(
            &mut agent,
            "screenshot_page",
            json!({ "tabId": tab, "format": "png", "clip": {"x": 0, "y": 0, "width": 100, "height": 100} }),
        );
        assert_eq!((img.width, img.height), (100, 100), "{}: {s}", family.name());
        assert!(near(img.at(0.5, 0.5), RED, 8) && near(img.at(0.95, 0.95), RED, 8), "{}", family.name());

        // The size budget: the long side fits maxWidth, the colours survive scaling.
        let (s, img) =
            shot(&mut agent, "screenshot_page", json!({ "tabId": tab, "format": "png", "maxWidth": 200 }));
        assert!(img.width.max(img.height) <= 200 && s["scaled"] == json!(true), "{}: {s}", family.name());
        assert!(
            near(img.at(0.25, 0.25), RED, 12) && near(img.at(0.75, 0.75), YELLOW, 12),
            "{}",
            family.name()
        );
        user_focus_kept(&mut agent, &before, &agent_window);
        agent.close(tab);
    }
}

#[test]
fn the_byte_budget_is_honoured_and_defaults_pick_the_smaller_format() {
    let server = server();
    for family in BOTH {
        let mut agent = Agent::new(family);
        let tab = agent.open(&server.url("/noise.html"));
        // Random pixels: far over 200 KB as PNG, so the default answer is a JPEG within it.
        let r = agent.call("screenshot_page", json!({ "tabId": tab }));
        let s = &r["structuredContent"];
        assert_eq!(s["format"], "jpeg", "{}: {s}", family.name());
        assert!(image_bytes(&r).len() <= 204_800, "{}: {s}", family.name());
        assert_eq!(r["content"][1]["mimeType"], "image/jpeg");
        for budget in [30_000, 8_000] {
            let r = agent.call("screenshot_page", json!({ "tabId": tab, "maxBytes": budget }));
            assert!(
                image_bytes(&r).len() <= budget,
                "{}: {budget}: {}",
                family.name(),
                r["structuredContent"]
            );
        }
        // PNG asked: scaled down until it fits.
        let (s, _) = shot(
            &mut agent,
            "screenshot_page",
            json!({ "tabId": tab, "format": "png", "maxBytes": 100_000 }),
        );
        assert!(
            s["bytes"].as_u64().unwrap() <= 100_000 && s["scaled"] == json!(true),
            "{}: {s}",
            family.name()
        );
        // Out of range: a clear error, not a huge image.
        let err = agent.err("screenshot_page", json!({ "tabId": tab, "maxBytes": 5_000_000 }));
        assert_eq!(err["code"], "INVALID_ARGUMENT", "{err}");
        agent.close(tab);
    }
}

#[test]
fn a_full_page_of_five_screens_and_an_element_by_ref() {
    let server = server();
    for family in BOTH {
        let mut agent = Agent::new(family);
        let tab = agent.open(&server.url("/screens.html"));
        let (s, img) =
            shot(&mut agent, "screenshot_page", json!({ "tabId": tab, "format": "png", "fullPage": true }));
        assert!(img.height > img.width * 2, "{}: not the whole page: {s}", family.name());
        for (k, colour) in [RED, GREEN, BLUE, YELLOW, MAGENTA].into_iter().enumerate() {
            let fy = (k as f64 + 0.5) / 5.0;
            assert!(
                near(img.at(0.5, fy), colour, 12),
                "{}: screen {k}: {:?} ({s})",
                family.name(),
                img.at(0.5, fy)
            );
        }
        if family == Engine::Gecko {
            assert_eq!(visibility(&mut agent, tab), "hidden", "Firefox draws the hidden tab as it is");
        }

        agent.ok("navigate_page", json!({ "tabId": tab, "url": server.url("/element.html") }));
        let snap = agent.snapshot(tab, json!({}));
        let uid = snap
            .lines()
            .find(|l| l.contains("button \"Box\""))
            .and_then(|l| l.split(['[', ']']).nth(1))
            .unwrap_or_else(|| panic!("no Box ref in {snap}"))
            .to_owned();
        let (s, img) = shot(
            &mut agent,
            "screenshot_by_uid",
            json!({ "tabId": tab, "uid": uid, "padding": 10, "format": "png" }),
        );
        assert!(
            (215..=225).contains(&img.width) && (115..=125).contains(&img.height),
            "{}: {}×{} ({s})",
            family.name(),
            img.width,
            img.height
        );
        assert!(near(img.at(0.5, 0.5), BLUE, 8), "{}: {:?}", family.name(), img.at(0.5, 0.5));
        assert!(near(img.rgb(2, 2), WHITE, 8), "{}: the padding: {:?}", family.name(), img.rgb(2, 2));
        let err = agent.err("screenshot_by_uid", json!({ "tabId": tab, "uid": "e99999" }));
        assert_eq!(err["code"], "STALE", "{err}");
        agent.close(tab);
    }
}

/// Dark pixels in the fields' area (the passwords' bullets): the left 60 % of the page.
fn dark_pixels(img: &Image) -> usize {
    let mut n = 0;
    for y in 0..img.height {
        for x in 0..img.width * 3 / 5 {
            if img.rgb(x, y).iter().all(|c| *c < 128) {
                n += 1;
            }
        }
    }
    n
}

#[test]
fn password_fields_are_masked_unless_redact_is_off() {
    let server = server();
    for family in BOTH {
        let mut agent = Agent::new(family);
        let tab = agent.open(&server.url("/password.html"));
        let (s, img) = shot(&mut agent, "screenshot_page", json!({ "tabId": tab, "format": "png" }));
        assert_eq!(s["masked"], json!(2), "{}: {s}", family.name());
        assert_eq!(dark_pixels(&img), 0, "{}: a password field showed", family.name());
        let (s, img) =
            shot(&mut agent, "screenshot_page", json!({ "tabId": tab, "format": "png", "redact": "off" }));
        assert_eq!(s["masked"], json!(0), "{s}");
        assert!(dark_pixels(&img) > 100, "{}: redact off shows the field as it is", family.name());
        // The page's own styles are back after the capture.
        let out = agent.ok("evaluate_script", json!({ "tabId": tab, "function": "() => [getComputedStyle(pw).color, pw.getAttribute('style')]" }));
        assert_eq!(out["json"], json!("[\"rgb(0, 0, 0)\",null]"), "{}", family.name());
        agent.close(tab);
    }
}

#[test]
fn two_servers_screenshotting_at_once_both_succeed() {
    let server = server();
    let url = server.url("/quadrants.html");
    for family in BOTH {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                let url = url.clone();
                std::thread::spawn(move || {
                    let mut agent = Agent::new(family);
                    let tab = agent.open(&url);
                    for _ in 0..3 {
                        let (_, img) =
                            shot(&mut agent, "screenshot_page", json!({ "tabId": tab, "format": "png" }));
                        assert!(near(img.at(0.25, 0.25), RED, 8));
                    }
                    agent.close(tab);
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
    }
}

/// savePath follows the upload rule (issue 31): under `upload.roots` (or the uploads folder),
/// never in the temp dir or the working directory as such, never through a symlink out of a
/// root, never into `~/.ssh` or a dot-directory, no `..`; never over a file unless
/// `overwrite: true`, and then replaced whole.
#[test]
fn save_path_writes_the_file_only_where_allowed() {
    let server = server();
    for family in BOTH {
        let home = crate::upload::fresh_home();
        let root = home.path().join("shots");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(home.path().join(".ssh")).unwrap();
        let outside = tempfile::Builder::new().prefix("wxm-outside-").tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("escape")).unwrap();
        let ssh = home.path().join(".ssh");
        let mut agent = crate::upload::agent_with_roots(family, home, root.to_str().unwrap(), 50);
        let tab = agent.open(&server.url("/quadrants.html"));
        let path = root.join(format!("{}.png", family.name()));
        let r = agent.call("screenshot_page", json!({ "tabId": tab, "savePath": path }));
        assert!(r["isError"] != json!(true), "{r}");
        assert_eq!(r["content"].as_array().unwrap().len(), 1, "no inline image when saved: {r}");
        let img = decode(&std::fs::read(&path).unwrap());
        assert!(near(img.at(0.25, 0.25), RED, 8));
        let err = agent.err("screenshot_page", json!({ "tabId": tab, "savePath": path }));
        assert_eq!(err["code"], "ALREADY_EXISTS", "never over an existing file: {err}");
        std::fs::write(&path, b"not an image").unwrap();
        let r = agent.call("screenshot_page", json!({ "tabId": tab, "savePath": path, "overwrite": true }));
        assert!(r["isError"] != json!(true), "{r}");
        assert!(near(decode(&std::fs::read(&path).unwrap()).at(0.75, 0.25), GREEN, 8), "replaced whole");
        let leftovers: Vec<_> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".part"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        for bad in [
            root.join(".hidden/x.png"),
            root.join("x.txt"),
            "relative.png".into(),
            root.join("escape/x.png"),
            root.join("../x.png"),
            ssh.join("authorized_keys.png"),
            std::env::temp_dir().join(format!("wxm-{}.png", family.name())),
            outside.path().join("x.png"),
        ] {
            let err =
                agent.err("screenshot_page", json!({ "tabId": tab, "savePath": bad, "overwrite": true }));
            assert_eq!(err["code"], "PERMISSION_DENIED", "{}: {err}", bad.display());
        }
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0, "nothing written outside");
        assert_eq!(std::fs::read_dir(&ssh).unwrap().count(), 0, "nothing written in ~/.ssh");
        agent.close(tab);
    }
}

/// The agent window (new_page `window: "agent"`): its tabs open in a window of their own that
/// never takes focus; a hidden one of them is captured there (Chromium: made active in that
/// window and captured without the debugger), and the user's window keeps its active tab.
/// A browser of its own: the agent window's active tab changes on purpose.
#[test]
fn agent_window_tabs_are_captured_without_touching_the_users_window() {
    let server = server();
    for family in BOTH {
        let mut agent = Agent::on(crate::dialogs::own_browser(family));
        let user = actives(&mut agent);
        let first = agent.ok("new_page", json!({ "url": server.url("/quadrants.html"), "window": "agent" }))
            ["tab"]
            .clone();
        let second =
            agent.ok("new_page", json!({ "url": server.url("/screens.html"), "window": "agent" }))["tab"]
                .clone();
        assert_eq!(first["windowId"], second["windowId"], "{}: one agent window", family.name());
        assert!(
            !user.iter().any(|(w, _)| json!(w) == first["windowId"]),
            "{}: not the user's window",
            family.name()
        );
        let (s, img) =
            shot(&mut agent, "screenshot_page", json!({ "tabId": first["tabId"], "format": "png" }));
        assert!(
            near(img.at(0.25, 0.25), RED, 8) && near(img.at(0.75, 0.75), YELLOW, 8),
            "{}: {s}",
            family.name()
        );
        if family == Engine::Chromium {
            assert_eq!(s["mechanism"], "agentWindow", "{s}");
        }
        let now: Vec<(i64, i64)> =
            actives(&mut agent).into_iter().filter(|(w, _)| json!(w) != first["windowId"]).collect();
        assert_eq!(now, user, "{}: the user's window changed", family.name());
        let err = agent.err(
            "new_page",
            json!({ "url": server.url("/quadrants.html"), "window": "agent", "active": true }),
        );
        assert_eq!(err["code"], "INVALID_ARGUMENT", "{err}");
    }
}
