//! The browser's own error text for a native host that fails (what the helper's status page
//! shows) ─▶ the `doctor` problem it means.

use super::codes::DoctorCode;
use super::codes::{Problem, problem};

/// Messages the browsers give a helper whose native host fails (Chromium's, then Firefox's
/// wording), with the problem each one means.
const BROWSER_ERRORS: &[(&[&str], DoctorCode, &str, &str)] = &[
    (
        &["specified native messaging host not found", "no such native application"],
        DoctorCode::HostManifestMissing,
        "the browser found no host manifest under the name the helper asks for",
        "run `webext-mcp install` (or `--browser <name>`), then restart the browser",
    ),
    (
        &["access to the specified native messaging host is forbidden", "does not have permission"],
        DoctorCode::HostIdNotAllowed,
        "the manifest does not allow the helper's extension id",
        "run `webext-mcp install`; load the helper from the directory it names so its id is the fixed one",
    ),
    (
        &["does not exist, or is not executable", "failed to start native messaging host"],
        DoctorCode::HostBinaryMissing,
        "the manifest's path does not start a program",
        "run `webext-mcp install` with the webext-mcp you use now",
    ),
    (
        &["native host has exited", "error when communicating with the native messaging host"],
        DoctorCode::HostExited,
        "the host started and then stopped or broke the framing",
        "read the host log (h-<pid>.log in the runtime dir) and check the versions with `webext-mcp doctor`",
    ),
];

/// The cause of an error message the browser gave the helper (as its status page shows it).
pub fn explain_browser_error(text: &str) -> Option<Problem> {
    let t = text.to_ascii_lowercase();
    let (_, code, cause, fix) =
        BROWSER_ERRORS.iter().find(|(needles, ..)| needles.iter().any(|n| t.contains(n)))?;
    Some(problem(*code, format!("the browser said \"{}\": {cause}", text.trim()), *fix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_browsers_own_messages_are_recognised() {
        let cases = [
            ("Specified native messaging host not found.", "HOST_MANIFEST_MISSING"),
            ("Access to the specified native messaging host is forbidden.", "HOST_ID_NOT_ALLOWED"),
            ("No such native application dev.webext_mcp.bridge", "HOST_MANIFEST_MISSING"),
            (
                "This extension does not have permission to use native application dev.webext_mcp.bridge",
                "HOST_ID_NOT_ALLOWED",
            ),
            ("File at path /x/webext-mcp does not exist, or is not executable", "HOST_BINARY_MISSING"),
            ("Native host has exited.", "HOST_EXITED"),
            ("Error when communicating with the native messaging host.", "HOST_EXITED"),
        ];
        for (text, code) in cases {
            let p = explain_browser_error(text).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(p.code.as_str(), code, "{text}");
            assert!(p.message.contains(text.trim()) && !p.fix.is_empty());
        }
        assert!(explain_browser_error("something else").is_none());
    }
}
