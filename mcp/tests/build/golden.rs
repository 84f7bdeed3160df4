//! Golden resolved manifests: the committed fixtures, built per browser, must give exactly
//! the committed `expected/<fixture>/<browser>.json` (key order included). Set
//! `WEBEXT_MCP_BLESS=1` to rewrite them after an intended change.

use super::{Project, fixtures};

fn check(fixture: &str, browsers: &[&str]) {
    let p = Project::fixture(fixture);
    p.build(&["--browser", &browsers.join(",")]).builds();
    for browser in browsers {
        let got = p.read(&format!("dist/{browser}/manifest.json"));
        let golden = fixtures().join("expected").join(fixture).join(format!("{browser}.json"));
        if std::env::var_os("WEBEXT_MCP_BLESS").is_some() {
            std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
            std::fs::write(&golden, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&golden).unwrap_or_else(|e| panic!("{}: {e}", golden.display()));
        assert_eq!(got, want, "{fixture} for {browser}");
    }
}

#[test]
fn popup_background_manifests() {
    check("popup-background", &["chrome", "firefox", "edge", "zen"]);
}

#[test]
fn prefixed_manifests() {
    check("prefixed", &["chrome", "chromium", "edge", "brave", "firefox", "chromium-based", "gecko-based"]);
}
