//! Finding a session and proving it: the ticket a session publishes beside its control
//! socket (`d-<tag>.json`: socket, token, pid, session id, project), read only from runtime
//! dirs that pass the checks, and the endpoint a caller connects to.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use webext_mcp_host::descriptor::Token;
use webext_mcp_host::private_dir::PrivateDir;
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

/// Largest `d-<tag>.json` read.
const MAX_TICKET: u64 = 64 * 1024;

/// What a session publishes next to its socket: `d-<tag>.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Ticket {
    pub socket: PathBuf,
    pub token: Token,
    pub pid: u32,
    /// The session's id (what page tools take as `browser`), so that a tool addressed to a
    /// session still starting can tell it exists and wait for its browser.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The project the session runs (its folder may be an upload root while it runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<PathBuf>,
    /// The browser profile it runs in (never uploaded from).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<PathBuf>,
}

/// The name of the ticket of the session tagged `tag`.
pub fn ticket_name(tag: &str) -> String {
    format!("d-{tag}.json")
}

/// Writes the ticket of a session into its (checked) runtime dir.
pub fn publish(dir: &PrivateDir, tag: &str, ticket: &Ticket) -> std::io::Result<()> {
    let bytes = serde_json::to_vec(ticket).map_err(std::io::Error::other)?;
    dir.write_private(&ticket_name(tag), &bytes)
}

/// Whether a live session process with id `session_id` has a ticket in one of `dirs` (that
/// pass the checks): it exists, even if its browser is not connected yet.
pub fn session_alive(dirs: &[PathBuf], session_id: &str) -> bool {
    dirs.iter().filter_map(|dir| PrivateDir::open(dir).ok()).any(|checked| {
        checked.names().iter().filter(|n| n.starts_with("d-") && n.ends_with(".json")).any(|name| {
            checked
                .read_private(name, MAX_TICKET)
                .ok()
                .and_then(|bytes| serde_json::from_slice::<Ticket>(&bytes).ok())
                .is_some_and(|t| t.session.as_deref() == Some(session_id) && super::super::pid_alive(t.pid))
        })
    })
}

/// The projects and profiles of the live sessions with a ticket in one of `dirs` (that pass
/// the checks).
pub fn running_sessions(dirs: &[PathBuf]) -> Vec<crate::upload::Session> {
    let mut out = Vec::new();
    for checked in dirs.iter().filter_map(|dir| PrivateDir::open(dir).ok()) {
        for name in checked.names().iter().filter(|n| n.starts_with("d-") && n.ends_with(".json")) {
            let ticket = checked
                .read_private(name, MAX_TICKET)
                .ok()
                .and_then(|bytes| serde_json::from_slice::<Ticket>(&bytes).ok());
            if let Some(Ticket { project: Some(project), profile, pid, .. }) = ticket
                && super::super::pid_alive(pid)
            {
                out.push(crate::upload::Session { project, profile });
            }
        }
    }
    out
}

/// A session found and proven: where to connect and what to present.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub socket: PathBuf,
    pub(super) token: Token,
}

/// Finds the session of `project` and `browser` in the first of `dirs` that passes the
/// checks and holds its ticket. `NOT_CONNECTED` when none does; dirs refused on the way are
/// named in the error's data.
pub fn locate(dirs: &[PathBuf], project: &Path, browser: &str) -> Result<Endpoint, ErrorBody> {
    let tag = super::super::tag(project, browser);
    let mut refused = Vec::new();
    for dir in dirs {
        // Only the ticket is read here; the socket is proven by `request` when connecting.
        let checked = match PrivateDir::open(dir) {
            Ok(d) => d,
            Err(p) => {
                if p.is_unsafe() {
                    refused.push(p.describe(dir));
                }
                continue;
            }
        };
        let Ok(bytes) = checked.read_private(&ticket_name(&tag), MAX_TICKET) else { continue };
        let Ok(ticket) = serde_json::from_slice::<Ticket>(&bytes) else { continue };
        // The ticket must name exactly the socket this dir gives this session.
        if ticket.socket != super::super::socket_path(dir, project, browser) {
            tracing::warn!(dir = %dir.display(), "ignoring a session ticket naming another socket");
            continue;
        }
        return Ok(Endpoint { socket: ticket.socket, token: ticket.token });
    }
    let mut e = ErrorBody::new(
        ErrorCode::NotConnected,
        format!("no {browser} session is running for {}", project.display()),
    )
    .with_hint("start one with extension_dev, extension_start or extension_preview");
    if !refused.is_empty() {
        e = e.with_data(serde_json::json!({ "refusedRuntimeDirs": refused }));
    }
    Err(e)
}
