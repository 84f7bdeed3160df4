//! Who started the host: the argv a browser passes to its native host, and the check that
//! only the helper extension may start it.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::protocol::{HELPER_CHROMIUM_ID, HELPER_GECKO_ID};

/// How the browser started us.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// Chromium family: argv[1] is the calling extension's origin.
    Chromium { origin: String },
    /// Gecko family: argv is `<host manifest path> <add-on id>`.
    Gecko { manifest: PathBuf, id: String },
}

/// Pure: is this argv a browser starting a native host? `None` means "run the normal CLI".
/// Chromium passes `chrome-extension://<id>/` (Windows adds `--parent-window=<hwnd>`);
/// Firefox passes the absolute path of the host manifest and the add-on id.
pub fn invocation(argv: &[OsString]) -> Option<Caller> {
    let args: Vec<String> = argv.iter().skip(1).map(|a| a.to_string_lossy().into_owned()).collect();
    let first = args.first()?;
    if first.starts_with("chrome-extension://") {
        if args[1..].iter().all(|a| a.starts_with("--parent-window=")) {
            return Some(Caller::Chromium { origin: first.clone() });
        }
        return None;
    }
    if args.len() == 2 {
        let manifest = PathBuf::from(first);
        let looks_like_manifest = manifest.is_absolute()
            && manifest.extension().is_some_and(|e| e.eq_ignore_ascii_case("json"))
            || first.starts_with('/') && first.ends_with(".json");
        let id = &args[1];
        if looks_like_manifest && !id.starts_with('-') && (id.contains('@') || id.starts_with('{')) {
            return Some(Caller::Gecko { manifest, id: id.clone() });
        }
    }
    None
}

/// Pure: only the helper extension may start the host. Browsers enforce this through the
/// host manifest already; this catches a manifest edited to admit another extension.
pub fn check_caller(caller: &Caller) -> Result<(), String> {
    match caller {
        Caller::Chromium { origin } => {
            let want = format!("chrome-extension://{HELPER_CHROMIUM_ID}/");
            if origin == &want || origin.trim_end_matches('/') == want.trim_end_matches('/') {
                Ok(())
            } else {
                Err(format!("caller {origin} is not the webext-mcp helper ({want})"))
            }
        }
        Caller::Gecko { id, .. } => {
            if id == HELPER_GECKO_ID {
                Ok(())
            } else {
                Err(format!("caller {id} is not the webext-mcp helper ({HELPER_GECKO_ID})"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(args: &[&str]) -> Vec<OsString> {
        std::iter::once("webext-mcp").chain(args.iter().copied()).map(OsString::from).collect()
    }

    #[test]
    fn recognises_browser_invocations_only() {
        let origin = format!("chrome-extension://{HELPER_CHROMIUM_ID}/");
        assert_eq!(invocation(&argv(&[&origin])), Some(Caller::Chromium { origin: origin.clone() }));
        assert!(matches!(invocation(&argv(&[&origin, "--parent-window=0"])), Some(Caller::Chromium { .. })));
        assert!(invocation(&argv(&[&origin, "serve"])).is_none());
        let gecko = invocation(&argv(&[
            "/home/u/.mozilla/native-messaging-hosts/dev.webext_mcp.bridge.json",
            HELPER_GECKO_ID,
        ]));
        assert!(matches!(gecko, Some(Caller::Gecko { ref id, .. }) if id == HELPER_GECKO_ID));
        assert!(invocation(&argv(&["call", "server_info"])).is_none());
        assert!(invocation(&argv(&["serve"])).is_none());
        assert!(invocation(&argv(&[])).is_none());
        assert!(invocation(&argv(&["call", "ping", "--json"])).is_none());
        assert!(invocation(&argv(&["rel/manifest.json", "x@y"])).is_none());
    }

    #[test]
    fn only_the_helper_may_start_the_host() {
        let ok = Caller::Chromium { origin: format!("chrome-extension://{HELPER_CHROMIUM_ID}/") };
        assert!(check_caller(&ok).is_ok());
        let other =
            Caller::Chromium { origin: "chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/".into() };
        assert!(check_caller(&other).unwrap_err().contains("not the webext-mcp helper"));
        let gecko = Caller::Gecko { manifest: "/m.json".into(), id: HELPER_GECKO_ID.into() };
        assert!(check_caller(&gecko).is_ok());
        let evil = Caller::Gecko { manifest: "/m.json".into(), id: "evil@example.com".into() };
        assert!(check_caller(&evil).is_err());
    }
}
