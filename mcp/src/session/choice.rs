//! Which browser a session runs in: a name (or none: config, then what is installed) to a
//! build target, an engine and a binary, through the one browser catalog.

use crate::browsers::Engine;
use std::path::{Path, PathBuf};

use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use crate::browsers;
use crate::browsers::Os;
use crate::config::Config;
use crate::manifest::Target;
use crate::paths::Env;
use crate::runner;

/// A browser name resolved to a build target, an engine and a binary.
#[derive(Debug, Clone)]
pub struct BrowserChoice {
    pub target: Target,
    pub family: Engine,
    pub binary: PathBuf,
}

/// Programs tried for a build target when no binary is configured (`chrome` means Google
/// Chrome, never Chromium; `chromium-based` / `gecko-based` any browser of that engine).
fn candidates(target: Target) -> Vec<&'static str> {
    match browsers::browser(target.name) {
        Some(b) => b.binaries(Os::current()).collect(),
        None => browsers::engine_binaries(target.engine, Os::current()),
    }
}

/// The browsers dev sessions run in: every browser of the catalog, Chromium family first
/// (the default when nothing is configured).
fn session_targets() -> Vec<Target> {
    let of = |engine: Engine| browsers::BROWSERS.iter().filter(move |b| b.engine == engine).map(Target::of);
    of(Engine::Chromium).chain(of(Engine::Gecko)).collect()
}

/// The names of [`session_targets`].
fn session_names() -> Vec<&'static str> {
    session_targets().into_iter().map(|t| t.name).collect()
}

/// Whether a binary for `family` is configured (environment or config file).
fn binary_configured(family: Engine, env: &Env, config: &Config) -> bool {
    env.get(browsers::binary_env(family)).is_some()
        || config.text(browsers::binary_key(family)).is_some_and(|v| !v.is_empty())
}

/// The browser a session runs in when the call names none: config `browser` (also
/// `WEBEXT_MCP_BROWSER`) when it names a browser of the catalog, else `chromium` when a
/// Chromium binary is configured (`firefox` when only a Firefox binary is), else the first
/// browser of the catalog that is installed here, Chromium family first. `None` when none is.
pub fn default_browser(env: &Env, config: &Config) -> Option<&'static str> {
    if let Some(t) = configured_browser(config) {
        return Some(t.name);
    }
    if binary_configured(Engine::Chromium, env, config) {
        return Some("chromium");
    }
    if binary_configured(Engine::Gecko, env, config) {
        return Some("firefox");
    }
    first_installed()
}

/// The first browser of the catalog with a program installed here (Chromium family first).
fn first_installed() -> Option<&'static str> {
    session_targets()
        .into_iter()
        .find(|t| candidates(*t).into_iter().any(|c| runner::find_program(c).is_some()))
        .map(|t| t.name)
}

/// Config `browser` as a session browser: a browser or engine name (the key also picks
/// daily browsers by profile label, which is no session browser).
fn configured_browser(config: &Config) -> Option<Target> {
    let name = config.text("browser")?.trim();
    Target::named(name)
}

/// The session browser name a project tool (`extension_wait`, `extension_stop`) falls back
/// to when no session runs: what [`resolve_browser`] would start.
pub fn default_browser_name(env: &Env, config: &Config) -> &'static str {
    default_browser(env, config).unwrap_or("chromium")
}

/// Resolves `browser` (default: [`default_browser`]) and its binary: `binary` argument >
/// `WEBEXT_MCP_<ENGINE>_BINARY` > config `browsers.<engine>.binary` > the browser's usual
/// programs (the catalog's).
pub fn resolve_browser(
    name: Option<&str>,
    binary: Option<&Path>,
    env: &Env,
    config: &Config,
) -> Result<BrowserChoice, ErrorBody> {
    let given = name.map(str::trim).filter(|n| !n.is_empty()).map(str::to_ascii_lowercase);
    let name = match given {
        Some(n) => n,
        None if binary.is_some() => "chromium".to_owned(),
        None => default_browser(env, config).map(str::to_owned).ok_or_else(|| {
            let tried: Vec<&str> = session_targets().into_iter().flat_map(candidates).collect();
            ErrorBody::new(
                ErrorCode::NotInstalled,
                format!("no browser for dev sessions is installed here (tried {})", tried.join(", ")),
            )
            .with_hint("install Chromium or Firefox (or extension_install_browser with {\"browser\":\"chrome-for-testing\"}, then browser: \"chrome-for-testing\"), or name its program with `binary` (CLI: --binary), WEBEXT_MCP_CHROMIUM_BINARY or WEBEXT_MCP_FIREFOX_BINARY")
        })?,
    };
    let target = Target::named(&name).ok_or_else(|| {
        ErrorBody::invalid_argument(format!("unknown browser `{name}`"))
            .with_hint(format!("use {}, chromium-based or gecko-based", session_names().join(", ")))
    })?;
    let family = target.engine;
    let env_key = browsers::binary_env(family);
    let binary = if binary.is_some() || binary_configured(family, env, config) {
        runner::resolve_binary(family, binary, env, Some(config)).map_err(ErrorBody::from)?
    } else {
        candidates(target).into_iter().find_map(runner::find_program).ok_or_else(|| {
            let other = installed_or_chromium();
            let hint = if target.name == "chrome" && other != "chrome" {
                format!("Google Chrome is not installed here; {} to use {other}, or extension_install_browser with {{\"browser\":\"chrome-for-testing\"}} and then {}, or set the binary (`binary`, CLI --binary, or {env_key})", pass_browser(&other), pass_browser("chrome-for-testing"))
            } else {
                format!(
                    "install {} or {}; a binary elsewhere can be set with `binary` (CLI: --binary) or {env_key}",
                    target.name,
                    pass_browser(&other)
                )
            };
            ErrorBody::new(
                ErrorCode::NotInstalled,
                format!("{} is not installed (tried {})", target.name, candidates(target).join(", ")),
            )
            .with_hint(hint)
        })?
    };
    Ok(BrowserChoice { target, family, binary })
}

/// The first installed session browser's name, else `chromium`.
fn installed_or_chromium() -> String {
    first_installed().unwrap_or("chromium").to_owned()
}

/// How to name a browser, in both syntaxes: the tools' argument and the CLI's flag.
fn pass_browser(name: &str) -> String {
    format!("pass browser: \"{name}\" (CLI: --browser {name})")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(env: &Env, file_text: &str) -> Config {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(&file, file_text).unwrap();
        Config::load(&file, env, &Default::default()).unwrap()
    }

    /// Issue 19: without a `browser` argument a session runs in config `browser` (file or
    /// `WEBEXT_MCP_BROWSER`) when it names a browser, else in the first browser installed
    /// (Chromium family first), never Google Chrome by fiat; a label value (which picks
    /// daily browsers) does not make sessions fail. Issue 25: Firefox counts.
    #[test]
    fn the_default_session_browser_is_configured_or_installed() {
        let none = Env::from_pairs(Vec::<(&str, &str)>::new(), 1);
        let edge = config(&none, "browser = \"edge\"\n");
        assert_eq!(default_browser(&none, &edge), Some("edge"));
        let e = resolve_browser(None, None, &none, &edge).err();
        if let Some(e) = e {
            // Not installed here: the error is about Edge, the configured browser.
            assert!(e.message.starts_with("edge"), "{}", e.message);
        }
        let env = Env::from_pairs([("WEBEXT_MCP_BROWSER", "brave")], 1);
        assert_eq!(default_browser(&env, &config(&env, "")), Some("brave"));
        let firefox = config(&none, "browser = \"firefox\"\n");
        assert_eq!(default_browser(&none, &firefox), Some("firefox"));
        let label = config(&none, "browser = \"chromium-1a2b3c\"\n");
        assert_eq!(default_browser(&none, &label), first_installed());
        let gecko_binary = Env::from_pairs([("WEBEXT_MCP_FIREFOX_BINARY", "/opt/x/firefox")], 1);
        assert_eq!(default_browser(&gecko_binary, &config(&gecko_binary, "")), Some("firefox"));
        let binary = Env::from_pairs([("WEBEXT_MCP_CHROMIUM_BINARY", "/opt/x/chrome")], 1);
        assert_eq!(default_browser(&binary, &config(&binary, "")), Some("chromium"));
        let plain = config(&none, "");
        assert_eq!(default_browser(&none, &plain), first_installed());
        if runner::find_program("/usr/lib/chromium/chromium").is_some() && first_installed() != Some("chrome")
        {
            assert_eq!(resolve_browser(None, None, &none, &plain).unwrap().target.name, "chromium");
        }
    }

    /// The hints name the browser in both syntaxes, the tools' and the CLI's; a browser of
    /// the Gecko family that is not installed says so (it is no longer UNSUPPORTED).
    #[test]
    fn hints_name_the_browser_for_tools_and_the_cli() {
        let none = Env::from_pairs(Vec::<(&str, &str)>::new(), 1);
        let cfg = config(&none, "");
        if runner::find_program("librewolf").is_none() {
            let e = resolve_browser(Some("librewolf"), None, &none, &cfg).unwrap_err();
            assert_eq!(e.code, ErrorCode::NotInstalled);
            let hint = e.hint.unwrap_or_default();
            assert!(hint.contains("browser: \"") && hint.contains("(CLI: --browser "), "{hint}");
            assert!(hint.contains("WEBEXT_MCP_FIREFOX_BINARY"), "{hint}");
        }
        if runner::find_program("firefox-esr").is_some() {
            let c = resolve_browser(Some("firefox"), None, &none, &cfg).unwrap();
            assert_eq!((c.family, c.target.name), (Engine::Gecko, "firefox"));
            assert!(c.binary.ends_with("firefox-esr"), "{:?}", c.binary);
            let any = resolve_browser(Some("gecko-based"), None, &none, &cfg).unwrap();
            assert_eq!(any.family, Engine::Gecko);
        }
        let e = resolve_browser(Some("netscape"), None, &none, &cfg).unwrap_err();
        assert!(e.hint.unwrap_or_default().contains("firefox"), "unknown names list Gecko browsers too");
    }

    /// `chrome` means Google Chrome: its programs never include Chromium's, while an engine
    /// name tries every Chromium-engine browser of the catalog.
    #[test]
    fn chrome_is_never_chromium_and_the_engine_name_tries_all() {
        let candidates = |name: &str| super::candidates(Target::named(name).unwrap());
        let chrome = candidates("chrome");
        assert!(
            chrome.contains(&"google-chrome") && !chrome.iter().any(|c| c.contains("chromium")),
            "{chrome:?}"
        );
        assert_eq!(candidates("chromium")[0], "/usr/lib/chromium/chromium");
        let any = candidates("chromium-based");
        for b in browsers::BROWSERS.iter().filter(|b| b.engine == Engine::Chromium) {
            assert!(b.binaries(Os::current()).all(|c| any.contains(&c)), "{}", b.name);
        }
        let names = session_names();
        assert!(names.contains(&"opera") && names.contains(&"firefox") && names.contains(&"librewolf"));
        let first_gecko = names.iter().position(|n| *n == "firefox").unwrap();
        assert!(
            names[..first_gecko].iter().all(|n| browsers::browser(n).unwrap().engine == Engine::Chromium)
        );
        assert!(candidates("gecko-based").contains(&"firefox-esr"));
    }
}
