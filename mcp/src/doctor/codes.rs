//! The stable codes of `doctor`'s problems, listed once. Each serializes as its
//! `SCREAMING_SNAKE_CASE` name (the JSON `code` of a problem), which clients match on.
//!
//! | Code | Meaning |
//! |---|---|
//! | `HOST_MANIFEST_MISSING` | no host manifest where the browser looks (or the browser said so) |
//! | `HOST_MANIFEST_WRONG_PLACE` | the manifest sits where Firefox does not look (XDG `~/.config/mozilla`) |
//! | `HOST_MANIFEST_INVALID_JSON` | the manifest is not a JSON object |
//! | `HOST_MANIFEST_WRONG_NAME` | its `name` is not the helper's host name |
//! | `HOST_MANIFEST_WRONG_TYPE` | its `type` is not `stdio` |
//! | `HOST_PATH_NOT_ABSOLUTE` | its `path` is missing or relative |
//! | `HOST_BINARY_MISSING` | its `path` does not exist (or does not start a program) |
//! | `HOST_BINARY_NOT_EXECUTABLE` | its `path` is not executable |
//! | `HOST_VERSION_SKEW` | its `path` is another webext-mcp version |
//! | `HOST_BINARY_NOT_WEBEXT_MCP` | its `path` does not answer `--version` like webext-mcp |
//! | `HOST_ID_NOT_ALLOWED` | it does not allow the helper's extension id |
//! | `HOST_EXITED` | the host started, then stopped or broke the framing |
//! | `HOST_UNREACHABLE` | a running host's socket does not answer |
//! | `PERMISSION_DENIED` | a binary, runtime dir or host another user could control |
//! | `PROTOCOL_SKEW` | a host speaks another protocol version |
//! | `EXTENSION_VERSION_SKEW` | a connected helper is another version |
//! | `HELPER_NOT_UNPACKED` | no unpacked helper in the data dir |
//! | `HELPER_OUTDATED` | the unpacked helper is another version |
//! | `HELPER_PERMISSIONS_CHANGED` | the helper lacks a permission the table requires |
//! | `HELPER_SITE_ACCESS_WITHHELD` | the user withheld the helper's site access |
//! | `HELPER_NOT_EMBEDDED` | this binary carries no helper (a `helperless` build) |
//! | `NO_BROWSER_DETECTED` | no supported browser's profile folder and no host manifest found |
//! | `DOCTOR_FAILED` | a check itself failed |

use serde::Serialize;

/// One stable doctor code; see the module table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DoctorCode {
    HostManifestMissing,
    HostManifestWrongPlace,
    HostManifestInvalidJson,
    HostManifestWrongName,
    HostManifestWrongType,
    HostPathNotAbsolute,
    HostBinaryMissing,
    HostBinaryNotExecutable,
    HostVersionSkew,
    HostBinaryNotWebextMcp,
    HostIdNotAllowed,
    HostExited,
    HostUnreachable,
    PermissionDenied,
    ProtocolSkew,
    ExtensionVersionSkew,
    HelperNotUnpacked,
    HelperOutdated,
    HelperPermissionsChanged,
    HelperSiteAccessWithheld,
    HelperNotEmbedded,
    NoBrowserDetected,
    DoctorFailed,
}

impl DoctorCode {
    pub const ALL: [DoctorCode; 23] = [
        DoctorCode::HostManifestMissing,
        DoctorCode::HostManifestWrongPlace,
        DoctorCode::HostManifestInvalidJson,
        DoctorCode::HostManifestWrongName,
        DoctorCode::HostManifestWrongType,
        DoctorCode::HostPathNotAbsolute,
        DoctorCode::HostBinaryMissing,
        DoctorCode::HostBinaryNotExecutable,
        DoctorCode::HostVersionSkew,
        DoctorCode::HostBinaryNotWebextMcp,
        DoctorCode::HostIdNotAllowed,
        DoctorCode::HostExited,
        DoctorCode::HostUnreachable,
        DoctorCode::PermissionDenied,
        DoctorCode::ProtocolSkew,
        DoctorCode::ExtensionVersionSkew,
        DoctorCode::HelperNotUnpacked,
        DoctorCode::HelperOutdated,
        DoctorCode::HelperPermissionsChanged,
        DoctorCode::HelperSiteAccessWithheld,
        DoctorCode::HelperNotEmbedded,
        DoctorCode::NoBrowserDetected,
        DoctorCode::DoctorFailed,
    ];

    /// The code as clients see it (`HOST_MANIFEST_MISSING`).
    pub const fn as_str(self) -> &'static str {
        match self {
            DoctorCode::HostManifestMissing => "HOST_MANIFEST_MISSING",
            DoctorCode::HostManifestWrongPlace => "HOST_MANIFEST_WRONG_PLACE",
            DoctorCode::HostManifestInvalidJson => "HOST_MANIFEST_INVALID_JSON",
            DoctorCode::HostManifestWrongName => "HOST_MANIFEST_WRONG_NAME",
            DoctorCode::HostManifestWrongType => "HOST_MANIFEST_WRONG_TYPE",
            DoctorCode::HostPathNotAbsolute => "HOST_PATH_NOT_ABSOLUTE",
            DoctorCode::HostBinaryMissing => "HOST_BINARY_MISSING",
            DoctorCode::HostBinaryNotExecutable => "HOST_BINARY_NOT_EXECUTABLE",
            DoctorCode::HostVersionSkew => "HOST_VERSION_SKEW",
            DoctorCode::HostBinaryNotWebextMcp => "HOST_BINARY_NOT_WEBEXT_MCP",
            DoctorCode::HostIdNotAllowed => "HOST_ID_NOT_ALLOWED",
            DoctorCode::HostExited => "HOST_EXITED",
            DoctorCode::HostUnreachable => "HOST_UNREACHABLE",
            DoctorCode::PermissionDenied => "PERMISSION_DENIED",
            DoctorCode::ProtocolSkew => "PROTOCOL_SKEW",
            DoctorCode::ExtensionVersionSkew => "EXTENSION_VERSION_SKEW",
            DoctorCode::HelperNotUnpacked => "HELPER_NOT_UNPACKED",
            DoctorCode::HelperOutdated => "HELPER_OUTDATED",
            DoctorCode::HelperPermissionsChanged => "HELPER_PERMISSIONS_CHANGED",
            DoctorCode::HelperSiteAccessWithheld => "HELPER_SITE_ACCESS_WITHHELD",
            DoctorCode::HelperNotEmbedded => "HELPER_NOT_EMBEDDED",
            DoctorCode::NoBrowserDetected => "NO_BROWSER_DETECTED",
            DoctorCode::DoctorFailed => "DOCTOR_FAILED",
        }
    }
}

impl std::fmt::Display for DoctorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One thing that is wrong, with what fixes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Stable code, e.g. `HOST_MANIFEST_MISSING`.
    pub code: DoctorCode,
    pub message: String,
    pub fix: String,
}

pub fn problem(code: DoctorCode, message: impl Into<String>, fix: impl Into<String>) -> Problem {
    Problem { code, message: message.into(), fix: fix.into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON output keeps today's strings, and the module table lists every code once.
    #[test]
    fn codes_serialize_as_their_strings_and_are_all_documented() {
        let table = include_str!("codes.rs");
        for code in DoctorCode::ALL {
            assert_eq!(serde_json::to_value(code).unwrap(), code.as_str(), "{code:?}");
            let row = format!("//! | `{code}` |");
            assert_eq!(table.lines().filter(|l| l.starts_with(&row)).count(), 1, "{code}");
        }
        let mut names: Vec<&str> = DoctorCode::ALL.iter().map(|c| c.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), DoctorCode::ALL.len());
        assert_eq!(table.lines().filter(|l| l.starts_with("//! | `")).count(), DoctorCode::ALL.len());
    }
}
