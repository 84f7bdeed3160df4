//! Element screenshots of refs inside frames (issue 29): a same-origin iframe, a cross-origin
//! iframe scrolled out of view, and a cross-origin frame nested in the same-origin one — the
//! element's box offset by its frame chain (borders included), in both browsers, checked by
//! the pixel colours of the element and of the padding around it.

use serde_json::json;

use crate::capture::shot;
use crate::common::http::TestServer;
use crate::png::near;
use crate::{Agent, BOTH};

const BLUE: [u8; 3] = [0, 0, 255];
const GREEN: [u8; 3] = [0, 255, 0];
const MAGENTA: [u8; 3] = [255, 0, 255];
const WHITE: [u8; 3] = [255, 255, 255];

/// A frame document: one coloured button at (left, top), `w`×`h`, on white; `extra` below.
fn frame_doc(label: &str, colour: &str, (left, top, w, h): (u32, u32, u32, u32), extra: &str) -> String {
    format!(
        r#"<!doctype html><title>{label}</title><style>
body {{ margin: 0; background: #fff }}
button {{ position: absolute; left: {left}px; top: {top}px; width: {w}px; height: {h}px; border: 0; padding: 0; background: {colour}; color: {colour} }}
iframe {{ position: absolute; left: 200px; top: 120px; width: 260px; height: 160px; border: 4px solid #000; background: #fff }}
</style><button>{label}</button>{extra}"#
    )
}

#[test]
fn elements_inside_same_and_cross_origin_frames_are_captured_where_they_are() {
    let top = TestServer::start();
    let other = TestServer::start();
    // Different ports: a different origin.
    other.page("/far.html", &frame_doc("Far", "#0f0", (20, 30, 120, 60), ""));
    other.page("/nested.html", &frame_doc("Nested", "#f0f", (50, 40, 90, 70), ""));
    let nested = format!(r#"<iframe src="{}"></iframe>"#, other.url("/nested.html"));
    top.page("/inner.html", &frame_doc("Inner", "#00f", (40, 60, 100, 50), &nested));
    top.page(
        "/frames.html",
        &format!(
            r#"<!doctype html><title>Frames</title><style>
body {{ margin: 0; height: 3000px; background: #fff }}
iframe {{ position: absolute; background: #fff }}
#same {{ left: 300px; top: 100px; width: 520px; height: 330px; border: 5px solid #000 }}
#cross {{ left: 150px; top: 1800px; width: 300px; height: 200px; border: 3px solid #000; padding: 7px }}
</style><iframe id="same" src="/inner.html"></iframe><iframe id="cross" src="{}"></iframe>"#,
            other.url("/far.html")
        ),
    );
    for family in BOTH {
        let mut agent = Agent::new(family);
        let f = family.name();
        let tab = agent.open(&top.url("/frames.html"));
        let snap = agent.snapshot(tab, json!({}));
        let uid = |label: &str| {
            snap.lines()
                .find(|l| l.contains(&format!("button \"{label}\"")))
                .and_then(|l| l.split(['[', ']']).nth(1))
                .unwrap_or_else(|| panic!("{f}: no {label} ref in {snap}"))
                .to_owned()
        };
        for (label, colour, (w, h)) in
            [("Inner", BLUE, (100, 50)), ("Far", GREEN, (120, 60)), ("Nested", MAGENTA, (90, 70))]
        {
            let ref_ = uid(label);
            assert!(ref_.starts_with('f'), "{f}: {label} is in a frame: {ref_}");
            let (s, img) = shot(
                &mut agent,
                "screenshot_by_uid",
                json!({ "tabId": tab, "uid": ref_, "padding": 10, "format": "png" }),
            );
            let ctx = format!("{f} {label}: {}×{} {s}", img.width, img.height);
            assert!(
                (w + 15..=w + 25).contains(&img.width) && (h + 15..=h + 25).contains(&img.height),
                "{ctx}"
            );
            // The element fills the middle; the padding is the frame's white (not the
            // frame border, not the top page somewhere else).
            assert!(near(img.at(0.5, 0.5), colour, 8), "{ctx}: centre {:?}", img.at(0.5, 0.5));
            for (x, y) in [(2, 2), (img.width - 3, img.height - 3)] {
                assert!(near(img.rgb(x, y), WHITE, 8), "{ctx}: padding at {x},{y}: {:?}", img.rgb(x, y));
            }
            assert!(s["element"]["frames"].as_u64().is_some_and(|n| n >= 1), "{ctx}");
        }
        agent.close(tab);
    }
}
