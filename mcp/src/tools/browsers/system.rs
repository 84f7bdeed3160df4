//! `extension_install_browser` with `via: "system"`: the distribution's package instead of
//! a managed download. Without consent the command is only printed; with `consent: true` it
//! runs (as root, or through `sudo -n`, which never asks for a password), with a deadline.

use std::time::Duration;

use serde_json::json;
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use super::managed::Installable;
use crate::paths::find_executable;
use crate::tools::{ToolOutput, ToolResult};

/// Package managers, in the order they are looked for, with their install words.
const MANAGERS: [(&str, &str); 4] = [
    ("apt-get", "apt-get install -y"),
    ("dnf", "dnf install -y"),
    ("zypper", "zypper --non-interactive install"),
    ("pacman", "pacman -S --noconfirm"),
];

/// The package of `browser` for a package manager; `None` where it packages none.
pub fn package(manager: &str, browser: Installable) -> Option<&'static str> {
    match (manager, browser) {
        (_, Installable::ChromeForTesting | Installable::FirefoxDeveloper) => None,
        (_, Installable::Chromium) => Some("chromium"),
        ("apt-get", Installable::Firefox) => Some("firefox"),
        ("apt-get", Installable::FirefoxEsr) => Some("firefox-esr"),
        (_, Installable::FirefoxEsr) => None,
        (_, Installable::Firefox) => Some("firefox"),
    }
}

/// How long a package install may run.
const DEADLINE: Duration = Duration::from_secs(600);

pub async fn install(browser: Installable, consent: bool) -> ToolResult {
    let name = crate::tools::registry::schema::word_of(&browser);
    if !cfg!(target_os = "linux") {
        return Err(ErrorBody::new(
            ErrorCode::Unsupported,
            "via: \"system\" knows Linux package managers only",
        )
        .with_hint(
            "install the browser from its vendor, or use extension_install_browser with via: \"managed\"",
        ));
    }
    let path = std::env::var_os("PATH");
    let Some((manager, words)) = MANAGERS.iter().find(|(m, _)| find_executable(m, path.as_deref()).is_some())
    else {
        return Err(ErrorBody::new(
            ErrorCode::NotInstalled,
            "no known package manager (apt-get, dnf, zypper, pacman) is here",
        )
        .with_hint("use extension_install_browser with via: \"managed\""));
    };
    let Some(pkg) = package(manager, browser) else {
        return Err(ErrorBody::new(ErrorCode::Unsupported, format!("{manager} has no package for {name}"))
            .with_hint(format!(
                "use extension_install_browser with browser: \"{name}\" and via: \"managed\""
            )));
    };
    let root = crate::paths::Env::capture().uid == 0;
    let command = format!("{}{words} {pkg}", if root { "" } else { "sudo -n " });
    if !consent {
        return Ok(ToolOutput {
            text: Some(format!("run: {command}\n(or call again with consent: true to run it)")),
            structured: json!({ "status": "command", "command": command, "ran": false }),
        });
    }
    let mut argv = command.split_whitespace();
    let program = argv.next().unwrap_or_default().to_owned();
    let mut cmd = tokio::process::Command::new(&program);
    cmd.args(argv)
        .env("DEBIAN_FRONTEND", "noninteractive")
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let output = tokio::time::timeout(DEADLINE, cmd.output())
        .await
        .map_err(|_| {
            ErrorBody::new(ErrorCode::Timeout, format!("`{command}` did not finish within 10 minutes"))
        })?
        .map_err(|e| ErrorBody::new(ErrorCode::NotInstalled, format!("cannot run {program}: {e}")))?;
    let tail = |b: &[u8]| {
        let text = String::from_utf8_lossy(b);
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(5)..].join("\n")
    };
    if !output.status.success() {
        return Err(ErrorBody::new(
            ErrorCode::PermissionDenied,
            format!("`{command}` failed ({})", output.status),
        )
        .with_hint(format!("run it yourself; its last output: {}", tail(&output.stderr))));
    }
    Ok(ToolOutput {
        text: Some(format!("ran: {command}\nthen: extension_detect_browsers finds it")),
        structured: json!({ "status": "installed", "command": command, "ran": true, "output": tail(&output.stdout) }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages_per_manager() {
        assert_eq!(package("apt-get", Installable::FirefoxEsr), Some("firefox-esr"));
        assert_eq!(package("apt-get", Installable::Chromium), Some("chromium"));
        assert_eq!(package("dnf", Installable::Firefox), Some("firefox"));
        assert_eq!(package("pacman", Installable::FirefoxEsr), None);
        assert_eq!(package("apt-get", Installable::ChromeForTesting), None);
    }
}
