//! `webext-mcp behaviour-check` as a user runs it: exit 0 for a build without problems, 1 and
//! the difference for two builds that differ, 2 and a hint for a folder that is no build.

use std::process::Command;

use crate::fixture;

fn behaviour_check(args: &[&str]) -> (i32, String, String) {
    let out =
        Command::new(env!("CARGO_BIN_EXE_webext-mcp")).arg("behaviour-check").args(args).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

#[test]
fn the_verb_exits_by_what_it_found() {
    let widget = fixture("widget");
    let widget = widget.to_str().unwrap();
    let (code, out, _) = behaviour_check(&[widget, "--browser", "chromium"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("chromium: content 1 root(s), popup 0 root(s), 1 children; background service_worker alive; 0 error(s)"), "{out}");

    let (code, out, _) =
        behaviour_check(&[widget, "--browser", "chromium", "--against", fixture("leak").to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("  content/roots/0/name: widget | leaky\n"), "{out}");
    assert!(out.contains("problem: content: host page style changed: h1 font-family"), "{out}");

    let (code, out, err) = behaviour_check(&["/nonexistent-dist", "--browser", "chromium"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.starts_with("INVALID_ARGUMENT: /nonexistent-dist: no manifest.json"), "{err}");
    assert!(err.contains("run `webext-mcp build PROJECT`"), "{err}");
    let (code, _, err) = behaviour_check(&[widget, "--browser", "safari"]);
    assert_eq!(code, 2);
    assert!(err.contains("use chromium, firefox or chromium,firefox"), "{err}");
}
