//! Checks of webext-mcp binaries: whether another user could replace the one a browser
//! runs, which version a registered one is, and whether this one carries the helper.

use std::path::Path;
use std::time::Duration;

use super::codes::{DoctorCode, Problem, problem};

const VERSION: &str = env!("CARGO_PKG_VERSION");
/// How long a registered binary may take to print its version.
const PROBE_TIMEOUT: Duration = Duration::from_millis(webext_mcp_host::protocol::timeouts::DOCTOR_PROBE_MS);

/// `PERMISSION_DENIED` when another user could replace the registered binary (the rule of
/// [`super::safety`], which `install` enforces).
pub(super) fn check_host_binary(path: &Path) -> Option<Problem> {
    match crate::install::safety::check_binary(path) {
        Ok(()) => None,
        Err(crate::install::safety::CheckError::Unsafe(u)) => {
            Some(problem(DoctorCode::PermissionDenied, u.message(), u.fix()))
        }
        Err(crate::install::safety::CheckError::Unreadable { path, source }) => Some(problem(
            DoctorCode::PermissionDenied,
            format!("cannot check who may replace {}: {source}", path.display()),
            "check the permissions of that path, then run `webext-mcp doctor` again",
        )),
    }
}

/// The version of the webext-mcp at `path`: this binary's when it is this binary, else what
/// `path --version` prints.
pub fn binary_version(current: &Path, path: &Path) -> Result<String, String> {
    let same = |a: &Path, b: &Path| match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same(current, path) {
        return Ok(VERSION.to_owned());
    }
    let out = crate::browsers::version::version_output(path, PROBE_TIMEOUT)?;
    parse_version_line(&out).ok_or_else(|| format!("`--version` printed {:?}", out.trim()))
}

/// `webext-mcp 1.2.3` → `1.2.3`.
pub fn parse_version_line(text: &str) -> Option<String> {
    let line = text.lines().next()?.trim();
    let v = line.strip_prefix("webext-mcp ")?.trim();
    (!v.is_empty()).then(|| v.to_owned())
}

/// A `HELPER_NOT_EMBEDDED` problem per family this binary has no helper for.
pub fn binary_problems() -> Vec<Problem> {
    crate::helper::missing()
        .into_iter()
        .map(|family| {
            problem(
                DoctorCode::HelperNotEmbedded,
                format!(
                    "this webext-mcp binary carries no {} helper extension, so `install` cannot set up any {} browser",
                    family.name(),
                    family.name()
                ),
                crate::helper::REBUILD,
            )
        })
        .collect()
}
