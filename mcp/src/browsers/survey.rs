//! `extension_detect_browsers` and `extension_list_browsers` as values: the system scan
//! ([`super::detect`]), the managed cache ([`super::managed`]), the configured binaries,
//! and per browser whether webext-mcp's helper can reach it (host manifest written, host
//! connected).

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Value, json};
use webext_mcp_host::descriptor::Descriptor;

use super::detect::{self, Found, Probe};
use super::installs::Source;
use super::locations::{self, Roots};
use super::managed::{self, Managed};
use super::{BROWSERS, ChannelId, Engine, Os, binary_env, binary_key, channels};
use crate::config::Config;
use crate::paths::{Env, is_executable};

/// Whether the helper can reach an installed browser.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Helper {
    /// `install` wrote the host manifest where this browser reads it.
    pub manifest: bool,
    /// A helper in this browser is connected now.
    pub connected: bool,
}

/// One detected browser.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    #[serde(flatten)]
    pub found: Found,
    /// Whether `extension_dev` / `start` / `preview` run in it.
    pub dev_sessions: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub helper: Option<Helper>,
}

/// A catalog browser that is not installed, and how to get one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Missing {
    pub browser: &'static str,
    /// The `extension_install_browser` arguments that install a stand-in, where one exists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub install: Option<Value>,
}

/// Everything detection found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Detection {
    pub os: Os,
    pub detected: Vec<Entry>,
    pub not_found: Vec<Missing>,
    pub managed: Value,
    /// Configured binaries that are not there.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

/// What detection reads besides the file system.
pub struct Inputs<'a> {
    pub probe: &'a Probe,
    pub env: &'a Env,
    pub config: &'a Config,
    pub roots: &'a Roots,
    pub cache_root: &'a Path,
    /// Running hosts (from the runtime dirs).
    pub hosts: &'a [Descriptor],
}

/// Whether dev sessions (`extension_dev`, `start`, `preview`) run in browsers of `engine`:
/// both engines since issue 25 (Firefox sessions); a test ties this to what
/// `session::resolve_browser` accepts, so a runner dropped or added shows up here.
pub const fn runs_sessions(engine: Engine) -> bool {
    matches!(engine, Engine::Chromium | Engine::Gecko)
}

/// The managed browser that stands in for a missing catalog browser: the first build of
/// it the catalog lists.
pub fn stand_in(browser: &str) -> Option<Managed> {
    super::browser(browser)?.managed.first().map(|m| m.id)
}

/// The `extension_install_browser` arguments for `browser`.
pub fn install_arguments(browser: Managed) -> Value {
    json!({ "browser": browser.name() })
}

/// The install channel whose host-manifest location an installation reads.
fn channel_of(found: &Found) -> Option<ChannelId> {
    let suffix = match (found.source, found.channel.as_str()) {
        (Source::Snap, _) => "-snap",
        (_, "stable") => "",
        (_, "beta") => "-beta",
        (_, "dev") if found.browser == "chrome" => "-unstable",
        (_, "dev") => "-dev",
        // Every Firefox channel reads `~/.mozilla`.
        _ if found.engine == Engine::Gecko => "",
        _ => return None,
    };
    let name = format!("{}{suffix}", found.browser);
    channels().find(|(_, c)| c.name == name).map(|(_, c)| c.id)
}

fn helper_of(found: &Found, os: Os, roots: &Roots, hosts: &[Descriptor]) -> Option<Helper> {
    let channel = channel_of(found)?;
    let manifest = locations::location(channel, os, roots).is_some_and(|l| l.manifest.is_file());
    let prefix = format!("{}-", found.browser);
    let connected = hosts
        .iter()
        .any(|d| d.session.is_none() && (d.browser == found.browser || d.browser.starts_with(&prefix)));
    Some(Helper { manifest, connected })
}

/// A configured binary (`browsers.<engine>.binary`, `WEBEXT_MCP_<ENGINE>_BINARY`).
fn configured(inputs: &Inputs<'_>, problems: &mut Vec<String>) -> Vec<Found> {
    let mut out = Vec::new();
    for engine in Engine::ALL {
        let given = [
            (inputs.env.get(binary_env(engine)), Source::Env, binary_env(engine)),
            (inputs.config.text(binary_key(engine)), Source::Config, binary_key(engine)),
        ];
        for (value, source, origin) in given {
            let Some(value) = value else { continue };
            let path = PathBuf::from(value);
            let path = if value.contains(std::path::MAIN_SEPARATOR) {
                path
            } else {
                match inputs.probe.path.iter().map(|d| d.join(value)).find(|p| is_executable(p)) {
                    Some(p) => p,
                    None => path,
                }
            };
            if !is_executable(&path) {
                problems.push(format!("{origin} names {value}, which is not an executable file"));
                continue;
            }
            let deb = detect::deb_of(inputs.probe, &path);
            let (version, _) = detect::read_version(engine, inputs.probe, &path, deb);
            out.push(Found {
                browser: engine.any_name().to_owned(),
                channel: "configured".to_owned(),
                engine,
                source,
                binary_path: path,
                can_load_unpacked: true,
                version: version.as_ref().map(|v| v.version.clone()),
                version_from: version.map(|v| v.from),
            });
        }
    }
    out
}

fn from_managed(i: &managed::Installed) -> Found {
    Found {
        browser: i.record.browser.name().to_owned(),
        channel: i.record.channel.clone(),
        engine: i.record.browser.engine(),
        source: Source::Managed,
        binary_path: i.binary_path.clone(),
        version: Some(i.record.version.clone()),
        version_from: Some("managed record"),
        can_load_unpacked: true,
    }
}

/// The managed cache: its root and what it holds.
pub fn managed_summary(cache_root: &Path, installed: &[managed::Installed]) -> Value {
    json!({
        "cacheRoot": cache_root,
        "installed": installed.iter().map(|i| json!({
            "browser": i.record.browser.name(),
            "version": i.record.version,
            "binaryPath": i.binary_path,
        })).collect::<Vec<_>>(),
    })
}

/// Detects the browsers `names` names (catalog or managed names; all when `None`).
pub fn detect(inputs: &Inputs<'_>, names: Option<&[String]>) -> Detection {
    let wanted = |name: &str| names.is_none_or(|n| n.iter().any(|w| w.eq_ignore_ascii_case(name)));
    let mut problems = Vec::new();
    let installed = managed::list(inputs.cache_root);
    let mut found: Vec<Found> =
        installed.iter().filter(|i| wanted(i.record.browser.name())).map(from_managed).collect();
    if names.is_none() {
        found.extend(configured(inputs, &mut problems));
    }
    found.extend(detect::scan(inputs.probe, &wanted));
    let detected: Vec<Entry> = found
        .into_iter()
        .map(|f| Entry {
            dev_sessions: runs_sessions(f.engine),
            helper: if f.source == Source::Managed {
                None
            } else {
                helper_of(&f, inputs.probe.os, inputs.roots, inputs.hosts)
            },
            found: f,
        })
        .collect();
    let not_found = BROWSERS
        .iter()
        .filter(|b| wanted(b.name) && !detected.iter().any(|e| e.found.browser == b.name))
        .map(|b| Missing { browser: b.name, install: stand_in(b.name).map(install_arguments) })
        .collect();
    Detection {
        os: inputs.probe.os,
        detected,
        not_found,
        managed: managed_summary(inputs.cache_root, &installed),
        problems,
    }
}

/// The text form of a detection.
pub fn detection_text(d: &Detection) -> String {
    let mut out = String::new();
    for e in &d.detected {
        let f = &e.found;
        let version = f.version.as_deref().unwrap_or("version unknown");
        let mut notes = Vec::new();
        if e.dev_sessions {
            notes.push("dev sessions");
        }
        if !f.can_load_unpacked {
            notes.push("ignores --load-extension");
        }
        if let Some(h) = e.helper {
            notes.push(if h.connected {
                "helper connected"
            } else if h.manifest {
                "host manifest installed"
            } else {
                "helper not installed"
            });
        }
        out.push_str(&format!(
            "{} {version} ({}, {}) {}{}\n",
            f.browser,
            f.channel,
            serde_json::to_value(f.source)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            f.binary_path.display(),
            if notes.is_empty() { String::new() } else { format!(" — {}", notes.join(", ")) }
        ));
    }
    if d.detected.is_empty() {
        out.push_str("no browser found\n");
    }
    let missing: Vec<&str> = d.not_found.iter().map(|m| m.browser).collect();
    if !missing.is_empty() {
        out.push_str(&format!("not found: {}\n", missing.join(", ")));
    }
    for m in d.not_found.iter().filter(|m| m.install.is_some()) {
        if let Some(args) = &m.install {
            out.push_str(&format!("  {}: extension_install_browser {args}\n", m.browser));
        }
    }
    for p in &d.problems {
        out.push_str(&format!("problem: {p}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Flags;

    /// `devSessions` says what `session::resolve_browser` accepts.
    #[test]
    fn dev_sessions_are_what_sessions_accept() {
        let env = Env::default();
        let config = Config::load(Path::new("/nonexistent/webext-mcp.toml"), &env, &Flags::new()).unwrap();
        for (name, engine) in [("chromium", Engine::Chromium), ("firefox", Engine::Gecko)] {
            let r = crate::session::resolve_browser(Some(name), Some(Path::new("/bin/sh")), &env, &config);
            let refused = r.is_err_and(|e| e.code == webext_mcp_host::protocol::ErrorCode::Unsupported);
            assert_eq!(refused, !runs_sessions(engine), "{name}");
        }
    }

    #[test]
    fn installations_map_to_the_channels_whose_manifest_they_read() {
        let found = |browser: &str, channel: &str, source: Source, engine: Engine| Found {
            browser: browser.into(),
            channel: channel.into(),
            engine,
            source,
            binary_path: PathBuf::new(),
            version: None,
            version_from: None,
            can_load_unpacked: true,
        };
        let c = Engine::Chromium;
        assert_eq!(channel_of(&found("chrome", "dev", Source::System, c)), Some(ChannelId::ChromeUnstable));
        assert_eq!(channel_of(&found("edge", "dev", Source::System, c)), Some(ChannelId::EdgeDev));
        assert_eq!(channel_of(&found("chromium", "stable", Source::Snap, c)), Some(ChannelId::ChromiumSnap));
        assert_eq!(
            channel_of(&found("firefox", "esr", Source::System, Engine::Gecko)),
            Some(ChannelId::Firefox)
        );
        assert_eq!(channel_of(&found("brave", "nightly", Source::System, c)), None);
        assert_eq!(channel_of(&found("opera", "stable", Source::System, c)), None, "no known location");
        assert_eq!(stand_in("chromium"), Some(Managed::Chromium));
        assert_eq!(stand_in("zen"), None);
    }
}
