//! What `extension.config.*` sets for running a browser — Extension.js's run keys under
//! `browser.<target>` and `commands.<dev|start|preview>` (`profile`, `startingUrl`,
//! `browserFlags`, `excludeBrowserFlags`, `chromiumBinary`, `geckoBinary`/`firefoxBinary`,
//! `preferences`) — read statically (issue 21), never by running the config.
//!
//! Layers, later ones winning for single values and adding to lists, as Extension.js merges
//! them: the engine's family key (`chromium-based`, `gecko-based`/`firefox-based`), the browser's
//! own key, then the command's. A project on disk is hostile input and its config is its
//! word, so each value is vetted: flags and preferences against the allowlists of
//! [`crate::runner::flags`], the profile against [`crate::runner::profile::ProfileRule`] (a
//! folder inside the project, never a browser's own profile). A refused value is dropped —
//! an earlier layer's value, or the default, applies — and the session says which and why.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use crate::browsers::Engine;
use crate::build::config_file::{self, Value};
use crate::runner::flags;
use crate::runner::profile::ProfileRule;

use super::Command;

/// A config value the session did not use, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refused {
    /// Dotted key, e.g. `browser.chrome.browserFlags`.
    pub key: String,
    /// The value as written (a flag, a preference name, a path).
    pub value: String,
    pub why: String,
}

/// The run values of one browser and command, vetted.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunConfig {
    /// The config file they came from (`extension.config.mjs`); `None` when there is none.
    pub file: Option<String>,
    /// The profile folder the config names, resolved (symlinks followed) and vetted.
    pub profile: Option<PathBuf>,
    pub starting_url: Option<String>,
    pub binary: Option<PathBuf>,
    pub browser_flags: Vec<String>,
    /// Default flags of ours to leave out (only those [`flags::removable`] allows).
    pub exclude_browser_flags: Vec<String>,
    /// Gecko preferences (`about:config` names), scalar values only.
    pub preferences: serde_json::Map<String, Json>,
    pub refused: Vec<Refused>,
}

impl RunConfig {
    /// The run values `project`'s config sets for `browser` (one of our names) under
    /// `command`, its profile held to `profiles`; the default when there is no config.
    pub fn read(
        project: &Path,
        browser: &str,
        engine: Engine,
        command: Command,
        profiles: &ProfileRule,
    ) -> RunConfig {
        let Some(cfg) = config_file::read(project) else { return RunConfig::default() };
        let mut out = RunConfig { file: Some(cfg.file.clone()), ..RunConfig::default() };
        let family: &[&str] = match engine {
            Engine::Chromium => &["chromium-based"],
            Engine::Gecko => &["gecko-based", "firefox-based"],
        };
        let mut layers: Vec<(String, &Value)> = Vec::new();
        for key in family.iter().copied().chain([browser]) {
            if let Some(v) = cfg.browser(key) {
                layers.push((format!("browser.{key}"), v));
            }
        }
        if let Some(v) = cfg.value.get("commands").and_then(|c| c.get(command.as_str())) {
            layers.push((format!("commands.{}", command.as_str()), v));
        }
        for (at, layer) in layers {
            out.take_layer(&at, layer, engine, project, profiles);
        }
        out
    }

    fn take_layer(
        &mut self,
        at: &str,
        layer: &Value,
        engine: Engine,
        project: &Path,
        profiles: &ProfileRule,
    ) {
        let text = |key: &str| layer.get(key).and_then(first_text);
        if let Some(p) = text("profile") {
            match profiles.from_project(&crate::paths::resolve_lexically(project, Path::new(&p))) {
                Ok(real) => self.profile = Some(real),
                Err(why) => self.refuse(format!("{at}.profile"), p, why),
            }
        }
        if let Some(u) = text("startingUrl") {
            self.starting_url = Some(u);
        }
        let binary_keys: &[&str] = match engine {
            Engine::Chromium => &["chromiumBinary"],
            Engine::Gecko => &["geckoBinary", "firefoxBinary"],
        };
        for key in binary_keys {
            if let Some(path) = text(key) {
                match crate::runner::binary::vet_binary(Path::new(&path), project) {
                    Ok(p) => self.binary = Some(p),
                    Err(why) => self.refuse(format!("{at}.{key}"), path, why),
                }
            }
        }
        for flag in strings(layer.get("browserFlags")) {
            match flags::vet_flag(engine, &flag) {
                Ok(()) if !self.browser_flags.contains(&flag) => self.browser_flags.push(flag),
                Ok(()) => {}
                Err(why) => self.refuse(format!("{at}.browserFlags"), flag, why),
            }
        }
        for flag in strings(layer.get("excludeBrowserFlags")) {
            match flags::removable(engine, &flag) {
                Ok(()) if !self.exclude_browser_flags.contains(&flag) => {
                    self.exclude_browser_flags.push(flag)
                }
                Ok(()) => {}
                Err(why) => self.refuse(format!("{at}.excludeBrowserFlags"), flag, why),
            }
        }
        if let Some(Value::Object(prefs)) = layer.get("preferences") {
            for (name, value) in prefs {
                let key = format!("{at}.preferences");
                if engine != Engine::Gecko {
                    let why =
                        "preferences are Firefox's about:config values; Chromium sessions take browserFlags"
                            .to_owned();
                    self.refuse(key, name.clone(), why);
                    continue;
                }
                let Some(v) = scalar(value) else {
                    let why = "its value is not a literal boolean, number or string (the config is read, never run)";
                    self.refuse(key, name.clone(), why.to_owned());
                    continue;
                };
                match flags::vet_preference(name, &v) {
                    Ok(()) => {
                        self.preferences.insert(name.clone(), v);
                    }
                    Err(why) => self.refuse(key, name.clone(), why),
                }
            }
        }
    }

    fn refuse(&mut self, key: String, value: String, why: String) {
        // The project's text goes into tool results: bounded.
        let value = if value.chars().count() > 200 {
            format!("{}…", value.chars().take(200).collect::<String>())
        } else {
            value
        };
        self.refused.push(Refused { key, value, why });
    }
}

/// A string, or the first string of an array (Extension.js accepts both for a profile).
fn first_text(v: &Value) -> Option<String> {
    match v {
        Value::Array(items) => items.first().and_then(first_text),
        Value::Str(s) if !s.trim().is_empty() => Some(s.clone()),
        _ => None,
    }
}

/// The literal strings of an array (values only running the config could tell are skipped;
/// the build reports them as unresolved).
fn strings(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        Some(Value::Str(s)) => vec![s.clone()],
        _ => Vec::new(),
    }
}

fn scalar(v: &Value) -> Option<Json> {
    match v {
        Value::Bool(b) => Some(Json::Bool(*b)),
        Value::Num(n) if n.fract() == 0.0 && n.abs() < 2f64.powi(31) => Some(Json::from(*n as i64)),
        Value::Num(n) => serde_json::Number::from_f64(*n).map(Json::Number),
        Value::Str(s) => Some(Json::String(s.clone())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(config: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("extension.config.mjs"), config).unwrap();
        dir
    }

    /// `dir`'s run values for `browser` under `command`, its profiles held to `dir`.
    fn read(dir: &Path, browser: &str, engine: Engine, command: Command) -> RunConfig {
        let rule = ProfileRule::new(dir, &dir.join("managed"), &[dir.join("daily")]);
        RunConfig::read(dir, browser, engine, command, &rule)
    }

    #[test]
    fn layers_merge_family_then_browser_then_command() {
        let dir = project(
            "export default {\n  browser: {\n    'chromium-based': { browserFlags: ['--mute-audio'] },\n    chrome: { profile: './p', startingUrl: 'http://127.0.0.1:1/a', browserFlags: ['--lang=de'], excludeBrowserFlags: ['--disable-sync'] }\n  },\n  commands: { dev: { startingUrl: 'http://127.0.0.1:1/dev', browserFlags: ['--mute-audio', '--force-dark-mode'] } }\n}\n",
        );
        let dev = read(dir.path(), "chrome", Engine::Chromium, Command::Dev);
        assert_eq!(dev.file.as_deref(), Some("extension.config.mjs"));
        let real = crate::runner::profile::resolve(dir.path()).unwrap();
        assert_eq!(dev.profile, Some(real.join("p")));
        assert_eq!(dev.starting_url.as_deref(), Some("http://127.0.0.1:1/dev"));
        assert_eq!(dev.browser_flags, ["--mute-audio", "--lang=de", "--force-dark-mode"]);
        assert_eq!(dev.exclude_browser_flags, ["--disable-sync"]);
        assert!(dev.refused.is_empty(), "{:?}", dev.refused);
        let start = read(dir.path(), "chrome", Engine::Chromium, Command::Start);
        assert_eq!(start.starting_url.as_deref(), Some("http://127.0.0.1:1/a"));
        // Brave has no key of its own in Extension.js: the family's applies.
        let brave = read(dir.path(), "brave", Engine::Chromium, Command::Start);
        assert_eq!(brave.browser_flags, ["--mute-audio"]);
        assert_eq!(brave.profile, None);
    }

    #[test]
    fn hostile_flags_binaries_and_preferences_are_refused_with_the_reason() {
        let dir = project(
            "module.exports = { browser: {\n  chrome: { browserFlags: ['--renderer-cmd-prefix=/bin/sh -c evil', '--remote-debugging-port=9222', '--user-data-dir=/home/me/.config/chromium', '--load-extension=/tmp/x', '--no-sandbox', 'http://evil.test/', '--lang=fr'], excludeBrowserFlags: ['--remote-debugging-pipe'], chromiumBinary: './evil-browser', preferences: { 'a.b': 1 } },\n  firefox: { browserFlags: ['-profile', '--start-debugger-server=6000', '--devtools'], preferences: { 'devtools.debugger.remote-enabled': true, 'marionette.port': 2828, 'browser.startup.homepage': 'about:blank', 'x.y': someVar } }\n} }\n",
        );
        std::fs::write(dir.path().join("evil-browser"), "#!/bin/sh\n").unwrap();
        let chrome = read(dir.path(), "chrome", Engine::Chromium, Command::Dev);
        assert_eq!(chrome.browser_flags, ["--lang=fr"]);
        assert!(chrome.exclude_browser_flags.is_empty());
        assert_eq!(chrome.binary, None);
        let refused: Vec<&str> = chrome.refused.iter().map(|r| r.value.as_str()).collect();
        assert_eq!(
            refused,
            [
                "./evil-browser",
                "--renderer-cmd-prefix=/bin/sh -c evil",
                "--remote-debugging-port=9222",
                "--user-data-dir=/home/me/.config/chromium",
                "--load-extension=/tmp/x",
                "--no-sandbox",
                "http://evil.test/",
                "--remote-debugging-pipe",
                "a.b",
            ]
        );
        assert!(chrome.refused.iter().all(|r| !r.why.is_empty()));
        let firefox = read(dir.path(), "firefox", Engine::Gecko, Command::Dev);
        assert_eq!(firefox.browser_flags, ["--devtools"]);
        assert_eq!(firefox.preferences.get("browser.startup.homepage"), Some(&Json::from("about:blank")));
        assert_eq!(firefox.preferences.len(), 1, "{:?}", firefox.preferences);
        let refused: Vec<&str> = firefox.refused.iter().map(|r| r.value.as_str()).collect();
        assert_eq!(
            refused,
            [
                "-profile",
                "--start-debugger-server=6000",
                "devtools.debugger.remote-enabled",
                "marionette.port",
                "x.y"
            ]
        );
    }

    /// Issue 44: a profile that leads to a browser's own folder (here through a symlink in the
    /// project) or out of the project is dropped, with why; an earlier layer's stays.
    #[cfg(unix)]
    #[test]
    fn a_profile_out_of_the_project_or_in_a_daily_profile_is_refused() {
        let dir = project(
            "export default { browser: {\n  'chromium-based': { profile: './dist/mine' },\n  chromium: { profile: './link' },\n  chrome: { profile: '../elsewhere' },\n  firefox: { profile: './dist/ff' }\n} }\n",
        );
        std::fs::create_dir(dir.path().join("daily")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("daily"), dir.path().join("link")).unwrap();
        let real = crate::runner::profile::resolve(dir.path()).unwrap();
        let chromium = read(dir.path(), "chromium", Engine::Chromium, Command::Dev);
        assert_eq!(chromium.profile, Some(real.join("dist/mine")));
        assert_eq!(chromium.refused.len(), 1, "{:?}", chromium.refused);
        assert_eq!(chromium.refused[0].key, "browser.chromium.profile");
        assert_eq!(chromium.refused[0].value, "./link");
        assert!(chromium.refused[0].why.contains("own profile folder"), "{:?}", chromium.refused);
        let chrome = read(dir.path(), "chrome", Engine::Chromium, Command::Dev);
        assert!(chrome.refused[0].why.contains("inside the project"), "{:?}", chrome.refused);
        let firefox = read(dir.path(), "firefox", Engine::Gecko, Command::Dev);
        assert_eq!(firefox.profile, Some(real.join("dist/ff")));
        assert!(firefox.refused.is_empty());
    }

    #[test]
    fn no_config_is_the_default() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path(), "chrome", Engine::Chromium, Command::Dev), RunConfig::default());
    }
}
