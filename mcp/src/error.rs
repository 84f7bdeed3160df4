//! The one place where domain errors become the stable codes of DESIGN.md "Errors" (the MCP
//! form of a tool's result is the server's: `server::to_call_result`).

use serde_json::json;

use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use crate::browsers::managed::ManagedError;
use crate::build::{self, BuildError};
use crate::catalog::CatalogError;
use crate::config::ConfigError;
use crate::feature::{Feature, FeatureError};
use crate::helper::HelperError;
use crate::install::InstallError;
use crate::runner::RunnerError;
use crate::runner::cdp::CdpError;
use crate::runner::rdp::RdpError;

impl From<ConfigError> for ErrorBody {
    fn from(e: ConfigError) -> Self {
        let hint = match &e {
            ConfigError::Read { .. } => "check the file's permissions, or point WEBEXT_MCP_CONFIG elsewhere",
            _ => "fix the value, or run `webext-mcp config` to see every key and its source",
        };
        ErrorBody::new(ErrorCode::InvalidArgument, e.to_string()).with_hint(hint)
    }
}

impl From<RunnerError> for ErrorBody {
    fn from(e: RunnerError) -> Self {
        let (code, hint) = match &e {
            RunnerError::NotInstalled { .. } | RunnerError::BinaryMissing { .. } => (
                ErrorCode::NotInstalled,
                "install the browser (e.g. `apt-get install chromium` or `apt-get install firefox-esr`), or set its binary with the `binary` argument, WEBEXT_MCP_<FAMILY>_BINARY or browsers.<family>.binary",
            ),
            RunnerError::Spawn { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                (ErrorCode::NotInstalled, "check the browser binary path")
            }
            RunnerError::Spawn { source, .. } if source.kind() == std::io::ErrorKind::PermissionDenied => {
                (ErrorCode::PermissionDenied, "make the browser binary executable for this user")
            }
            RunnerError::Spawn { .. } | RunnerError::Io { .. } => {
                (ErrorCode::Internal, "check free disk space and permissions of the temporary directory")
            }
            RunnerError::BadExtension { .. } => {
                (ErrorCode::InvalidArgument, "build the extension first and pass its output directory")
            }
            RunnerError::LoadRefused { .. } => (
                ErrorCode::LoadRefused,
                "the message says which manifest key or file the browser refused; fix it, then build again with `extension_build` (its findings list what it checked)",
            ),
            RunnerError::StartTimeout { .. } => (
                ErrorCode::Timeout,
                "the browser may be overloaded or stuck on a dialog; retry, or run it headless",
            ),
            RunnerError::Exited { .. } => (
                ErrorCode::NotConnected,
                "the last output lines above usually say why; check the binary runs at all",
            ),
            RunnerError::BackgroundTimeout { .. } => (
                ErrorCode::Timeout,
                "look at the extension's errors: a throw or a top-level `await` in a module service worker stops it from starting",
            ),
            RunnerError::NoBackground { .. } => (
                ErrorCode::NotFound,
                "declare `background.service_worker` (Chromium) or `background.scripts` (Firefox)",
            ),
            RunnerError::Script { .. } => {
                (ErrorCode::ScriptError, "fix the expression; the message is the exception it threw")
            }
            RunnerError::Unsupported { .. } => (
                ErrorCode::Unsupported,
                "this browser family cannot do that here; use a Chromium-family browser (browser: \"chromium\") for it",
            ),
            RunnerError::Cdp(CdpError::Closed) => {
                (ErrorCode::NotConnected, "the browser has exited; start it again")
            }
            RunnerError::Cdp(CdpError::Timeout { .. }) => {
                (ErrorCode::Timeout, "the target may have gone away; look it up again and retry")
            }
            RunnerError::Cdp(CdpError::Protocol { .. }) => {
                (ErrorCode::Internal, "a DevTools command failed unexpectedly; report it with the message")
            }
            RunnerError::Remote { .. } => {
                (ErrorCode::Internal, "a Marionette command failed unexpectedly; report it with the message")
            }
            RunnerError::Rdp(RdpError::Closed) => {
                (ErrorCode::NotConnected, "the browser has exited; start it again")
            }
            RunnerError::Rdp(RdpError::Timeout { .. }) => {
                (ErrorCode::Timeout, "the tab or add-on may be busy or gone; retry")
            }
            RunnerError::Rdp(RdpError::Connect { .. }) => (
                ErrorCode::NotConnected,
                "Firefox did not open its debugger socket; check that the binary is Firefox 128 or newer",
            ),
            RunnerError::Rdp(RdpError::Actor { .. } | RdpError::Frame(_)) => (
                ErrorCode::Internal,
                "a Firefox debugger request failed unexpectedly; report it with the message",
            ),
            RunnerError::Answer { .. } => (
                ErrorCode::Unsupported,
                "use a supported browser version (webext-mcp browsers install chromium | firefox), or report the browser version with the message",
            ),
        };
        ErrorBody::new(code, e.to_string()).with_hint(hint)
    }
}

impl From<HelperError> for ErrorBody {
    fn from(e: HelperError) -> Self {
        let (code, hint) = match &e {
            HelperError::NotEmbedded { .. } => (ErrorCode::NotInstalled, crate::helper::REBUILD),
            HelperError::Io { .. } => {
                (ErrorCode::Internal, "check free disk space and the permissions of the target directory")
            }
        };
        ErrorBody::new(code, e.to_string()).with_hint(hint)
    }
}

impl From<InstallError> for ErrorBody {
    fn from(e: InstallError) -> Self {
        let e = match e {
            InstallError::NotEmbedded(inner) => return inner.into(),
            InstallError::UnsafeBinary(u) => {
                return ErrorBody::new(
                    ErrorCode::PermissionDenied,
                    format!("refusing to register the host: {}", u.message()),
                )
                .with_hint(format!("{}; nothing was installed", u.fix()))
                .with_data(json!({
                    "path": u.path,
                    "mode": format!("{:04o}", u.mode & 0o7777),
                    "owner": u.owner,
                    "binary": u.binary,
                    "realPath": u.real,
                }));
            }
            other => other,
        };
        let (code, hint) = match &e {
            InstallError::UnknownBrowser(_) => (
                ErrorCode::InvalidArgument,
                "name a browser such as chromium, chrome, edge, brave or firefox",
            ),
            InstallError::NotEmbedded(_) => (ErrorCode::NotInstalled, crate::helper::REBUILD),
            InstallError::BadBinary { .. } => (
                ErrorCode::InvalidArgument,
                "run install from the webext-mcp binary at its final, absolute path",
            ),
            InstallError::Io { source, .. } if source.kind() == std::io::ErrorKind::PermissionDenied => (
                ErrorCode::PermissionDenied,
                "check the permissions of that directory; nothing was installed",
            ),
            InstallError::Io { .. } => {
                (ErrorCode::Internal, "check free disk space and permissions; nothing was left half-written")
            }
            InstallError::ForeignFile { .. } => (
                ErrorCode::AlreadyExists,
                "move that file away (it is not a host manifest webext-mcp can keep), then install again",
            ),
            InstallError::BadRecord { .. } => (
                ErrorCode::Integrity,
                "the record lists what install wrote; restore it, or delete it and remove the files by hand",
            ),
            InstallError::Registry { .. } => {
                (ErrorCode::PermissionDenied, "check that reg.exe runs for this user")
            }
            InstallError::UnsafeBinary(_) => (ErrorCode::PermissionDenied, "make the binary private"),
        };
        ErrorBody::new(code, e.to_string()).with_hint(hint)
    }
}

impl From<ManagedError> for ErrorBody {
    fn from(e: ManagedError) -> Self {
        let retry = "extension_install_browser with the same arguments";
        let (code, hint) = match &e {
            ManagedError::BadUrl { .. } => (
                ErrorCode::InvalidArgument,
                "set browsers.mirror (WEBEXT_MCP_BROWSERS_MIRROR) to an https:// base, or unset it".to_owned(),
            ),
            ManagedError::BadVersion { .. } => {
                (ErrorCode::InvalidArgument, "pass version: \"stable\" or an exact version".to_owned())
            }
            ManagedError::NotFound { .. } => (
                ErrorCode::NotFound,
                "check the version (extension_install_browser with version: \"stable\" takes the newest); a mirror must hold the vendor's files".to_owned(),
            ),
            ManagedError::Network { .. } | ManagedError::Truncated { .. } => (
                ErrorCode::Network,
                format!("nothing was installed; check the connection (or browsers.mirror) and call {retry}"),
            ),
            ManagedError::Integrity { .. } | ManagedError::UnsafeArchive { .. } => (
                ErrorCode::Integrity,
                "nothing was installed or left behind; if a mirror serves it, check its copy".to_owned(),
            ),
            ManagedError::Busy { .. } => {
                (ErrorCode::Busy, format!("another install of this browser is running; call {retry} when it ends"))
            }
            ManagedError::Unsupported { hint, .. } => (ErrorCode::Unsupported, hint.clone()),
            ManagedError::NotInstalled { .. } => {
                (ErrorCode::NotFound, "extension_list_browsers lists the managed browsers".to_owned())
            }
            ManagedError::Cancelled => (ErrorCode::Timeout, format!("call {retry} to start again")),
            ManagedError::Io { .. } => (
                ErrorCode::Internal,
                "check free disk space and the permissions of the managed cache (extension_list_browsers names it)".to_owned(),
            ),
        };
        ErrorBody::new(code, e.to_string()).with_hint(hint)
    }
}

impl From<BuildError> for ErrorBody {
    fn from(e: BuildError) -> Self {
        match e {
            BuildError::NotFound { message, hint } => {
                ErrorBody::new(ErrorCode::NotFound, message).with_hint(hint)
            }
            BuildError::InvalidArgument { message, hint } => {
                ErrorBody::new(ErrorCode::InvalidArgument, message).with_hint(hint)
            }
            BuildError::Busy { browser, lock, holder } => {
                let who = holder.as_ref().map_or_else(|| "another process".to_owned(), |h| h.to_string());
                ErrorBody::new(ErrorCode::Busy, format!("the {browser} build is locked by {who}"))
                    .with_hint("wait for that build or dev session to finish (or stop the session), then build again")
                    .with_data(json!({ "browser": browser, "lock": lock, "holder": holder }))
            }
            BuildError::Failed { message, hint, findings, output_tail } => {
                let mut data = json!({ "findings": findings });
                if !output_tail.is_empty() {
                    data["outputTail"] = json!(output_tail);
                }
                ErrorBody::new(ErrorCode::BuildFailed, message).with_hint(hint).with_data(data)
            }
            BuildError::NotInstalled { message, hint, findings } => {
                ErrorBody::new(ErrorCode::NotInstalled, message)
                    .with_hint(hint)
                    .with_data(json!({ "findings": findings }))
            }
            BuildError::Timeout { message, output_tail } => ErrorBody::new(ErrorCode::Timeout, message)
                .with_hint("the toolchain may be waiting for input or stuck; run it by hand to see")
                .with_data(json!({ "outputTail": output_tail })),
            BuildError::AlreadyExists { path, what } => ErrorBody::new(
                ErrorCode::AlreadyExists,
                format!(
                    "the output folder {} exists and is {what} (it has no {} marker), so the build will not write into or replace it; nothing was touched",
                    path.display(),
                    build::output::MARKER
                ),
            )
            .with_hint(format!(
                "choose another outDir (a new or empty folder), or delete {} yourself if nothing in it is needed, then build again",
                path.display()
            ))
            .with_data(json!({ "path": path })),
            BuildError::NotAllowed(refusal) => not_allowed(&refusal),
            BuildError::Io { context, source } => {
                ErrorBody::new(ErrorCode::BuildFailed, format!("{context}: {source}"))
                    .with_hint("check free disk space and permissions of the project and its output folder")
            }
        }
    }
}

/// `PROJECT_SCRIPTS_NOT_ALLOWED`: what would run, from which files, and how the user allows it.
pub fn not_allowed(r: &build::consent::Refusal) -> ErrorBody {
    use build::consent::{ALLOW_ENV, CONFIG_KEY, FLAG};
    let e = &r.exposure;
    ErrorBody::new(ErrorCode::ProjectScriptsNotAllowed, r.message()).with_hint(r.hint()).with_data(json!({
        "project": e.project,
        "workspaceRoot": e.workspace_root,
        "runs": e.runs,
        "toolchain": e.toolchain,
        "files": e.files.keys().collect::<Vec<_>>(),
        "changed": r.changed,
        "allow": { "flag": FLAG, "config": CONFIG_KEY, "env": format!("{ALLOW_ENV}=1") },
    }))
}

impl From<CatalogError> for ErrorBody {
    fn from(e: CatalogError) -> Self {
        let message = e.to_string();
        match e {
            CatalogError::UnknownTemplate { closest, .. } => ErrorBody::new(ErrorCode::NotFound, message)
                .with_hint(
                    "call extension_list_templates to see the templates (a `query` finds the right one)",
                )
                .with_data(json!({ "closest": closest })),
            CatalogError::UnknownSource { known, .. } => ErrorBody::new(ErrorCode::NotFound, message)
                .with_hint("write the slug alone, or prefix it with one of the known catalogs")
                .with_data(json!({ "sources": known })),
            CatalogError::FilesUnavailable { .. } => ErrorBody::new(ErrorCode::Unsupported, message)
                .with_hint("pick a template from the embedded catalog (source `embedded`)"),
            CatalogError::BadCatalog { .. } => ErrorBody::new(ErrorCode::Integrity, message)
                .with_hint("point the catalog at a templates-meta.json v2 document"),
            CatalogError::InvalidArgument { hint, .. } => {
                ErrorBody::new(ErrorCode::InvalidArgument, message).with_hint(hint)
            }
            CatalogError::AlreadyExists { path } => ErrorBody::new(ErrorCode::AlreadyExists, message)
                .with_hint("nothing was written; choose another projectName or path, or empty that folder")
                .with_data(json!({ "path": path })),
            CatalogError::ParentMissing { .. } => ErrorBody::new(ErrorCode::NotFound, message)
                .with_hint("create the parent folder first, or pass a `path` inside an existing folder"),
            CatalogError::Network { .. } => ErrorBody::new(ErrorCode::Network, message).with_hint(
                "nothing was written; check the connection (or catalog.mirror / catalog.sources in `webext-mcp config`), or pick a template of the embedded catalog (`embedded:<slug>`)",
            ),
            CatalogError::Integrity { .. } => ErrorBody::new(ErrorCode::Integrity, message).with_hint(
                "nothing was written; the archive differs from what the catalog (or the first download) promised: check the source, or pick `embedded:<slug>`",
            ),
            CatalogError::Refused { .. } => ErrorBody::new(ErrorCode::PermissionDenied, message).with_hint(
                "nothing was fetched from it and nothing was written; a catalog's documents, archives and redirects must be https:// (or the configured catalog.mirror, or the loopback catalog source itself): fix the source, or pick `embedded:<slug>`",
            ),
            CatalogError::Io { source, .. } if source.kind() == std::io::ErrorKind::PermissionDenied => {
                ErrorBody::new(ErrorCode::PermissionDenied, message)
                    .with_hint("nothing was written; choose a folder you can write to")
            }
            CatalogError::Io { .. } => ErrorBody::new(ErrorCode::Internal, message)
                .with_hint("nothing was left behind; check free disk space and retry"),
        }
    }
}

impl From<FeatureError> for ErrorBody {
    fn from(e: FeatureError) -> Self {
        let message = e.to_string();
        match e {
            FeatureError::UnknownFeature(_) => {
                let known: Vec<&str> = Feature::ALL.iter().map(|f| f.name()).collect();
                ErrorBody::new(ErrorCode::InvalidArgument, message)
                    .with_hint(format!("use one of: {}", known.join(", ")))
            }
            FeatureError::Framework { .. } => ErrorBody::new(ErrorCode::InvalidArgument, message)
                .with_hint("pass framework: vanilla, react, preact, vue or svelte (or leave it out: the project's own)"),
            FeatureError::Manifest(f) => {
                let code = if f.code == crate::manifest::FindingCode::ManifestNotFound {
                    ErrorCode::NotFound
                } else {
                    ErrorCode::InvalidArgument
                };
                ErrorBody::new(code, message).with_hint(f.fix.clone())
            }
            FeatureError::Unsupported(_) => ErrorBody::new(ErrorCode::Unsupported, message)
                .with_hint("extension_manifest_validate shows what the manifest needs"),
            FeatureError::Exists { declared, file, .. } => ErrorBody::new(ErrorCode::AlreadyExists, message)
                .with_hint("the project already has it: edit those files, or call extension_add_feature with another feature")
                .with_data(json!({
                    "declared": declared.iter().map(|(k, f)| json!({ "key": k, "file": f })).collect::<Vec<_>>(),
                    "file": file,
                })),
            FeatureError::Changed => ErrorBody::new(ErrorCode::Busy, message)
                .with_hint("call extension_add_feature again once the other edit is saved"),
            FeatureError::OutsideProject(_) => ErrorBody::new(ErrorCode::PermissionDenied, message)
                .with_hint("replace the symlink with a real folder inside the project"),
            FeatureError::Io { source, .. } if source.kind() == std::io::ErrorKind::PermissionDenied => {
                ErrorBody::new(ErrorCode::PermissionDenied, message)
                    .with_hint("nothing was left behind; make the project writable")
            }
            FeatureError::Io { .. } => ErrorBody::new(ErrorCode::Internal, message)
                .with_hint("nothing was left behind; check free disk space and retry"),
            FeatureError::Internal(_) => ErrorBody::new(ErrorCode::Internal, message)
                .with_hint("nothing was written; report this with the manifest"),
        }
    }
}
