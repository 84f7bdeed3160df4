//! Configuration: one file (`config.toml`), `WEBEXT_MCP_*` variables and command-line flags.
//!
//! Precedence, highest first: flag > environment > file > default. Every effective value
//! remembers where it came from, so `webext-mcp config` can say why a setting is what it is.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::paths::Env;

/// Where an effective value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Default,
    File,
    Env,
    Flag,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Bool,
    /// Comma-separated in the environment and on the command line; an array in the file.
    List,
}

struct KeySpec {
    key: &'static str,
    env: &'static str,
    kind: Kind,
    default: &'static str,
    help: &'static str,
}

/// Every configuration key. Unknown keys in the file are an error, not silently ignored.
const KEYS: &[KeySpec] = &[
    KeySpec {
        key: "log",
        env: "WEBEXT_MCP_LOG",
        kind: Kind::Text,
        default: "info,rmcp=warn",
        help: "log filter (tracing syntax, e.g. `debug` or `webext_mcp=trace`); logs go to stderr",
    },
    KeySpec {
        key: "toolsets",
        env: "WEBEXT_MCP_TOOLSETS",
        kind: Kind::List,
        default: "default",
        help: "tool groups that tools/list shows; `default` = every group but `debug`, `all` = every group",
    },
    KeySpec {
        key: "browser",
        env: "WEBEXT_MCP_BROWSER",
        kind: Kind::Text,
        default: "",
        help: "browser the browser tools use by default (name, profile label or session id)",
    },
    KeySpec {
        key: "container",
        env: "WEBEXT_MCP_CONTAINER",
        kind: Kind::Text,
        default: "",
        help: "Firefox container (name or cookieStoreId) this server's new tabs open in",
    },
    KeySpec {
        key: "scope",
        env: "WEBEXT_MCP_SCOPE",
        kind: Kind::Text,
        default: "all",
        help: "`container`: this server lists and acts only on tabs of its `container` (others are NOT_FOUND); `all`: every tab",
    },
    KeySpec {
        key: "headless",
        env: "WEBEXT_MCP_HEADLESS",
        kind: Kind::Bool,
        default: "false",
        help: "launch browsers that webext-mcp starts without a window",
    },
    KeySpec {
        key: "tools.evaluate_script",
        env: "WEBEXT_MCP_EVALUATE_SCRIPT",
        kind: Kind::Bool,
        default: "true",
        help: "whether evaluate_script may run code in pages (false: it answers PERMISSION_DENIED)",
    },
    KeySpec {
        key: "upload.roots",
        env: "WEBEXT_MCP_UPLOAD_ROOTS",
        kind: Kind::List,
        default: "",
        help: "folders upload_file_by_uid may send files from, besides running dev sessions' projects and the uploads folder (dotfiles and secret locations are refused anyway)",
    },
    KeySpec {
        key: "upload.maxMegabytes",
        env: "WEBEXT_MCP_UPLOAD_MAX_MEGABYTES",
        kind: Kind::Text,
        default: "50",
        help: "largest upload (all files of one call together), in MiB",
    },
    KeySpec {
        key: "tools.extension_eval",
        env: "WEBEXT_MCP_EXTENSION_EVAL",
        kind: Kind::Bool,
        default: "false",
        help: "whether extension_eval may run code in the background of a dev session's extension (off: only sessions started with allowEval allow it)",
    },
    KeySpec {
        key: "pages.window",
        env: "WEBEXT_MCP_PAGES_WINDOW",
        kind: Kind::Text,
        default: "current",
        help: "where new_page opens tabs by default: current (the user's window, in the background) or agent (the agent's own unfocused window, where Chromium screenshots need no debugger)",
    },
    KeySpec {
        key: "tools.cookie_values",
        env: "WEBEXT_MCP_COOKIE_VALUES",
        kind: Kind::Bool,
        default: "false",
        help: "whether get_cookies and get_storage may show cookie values and secret-looking storage values when asked (includeValues); left unset, only dev-session browsers show them, never the daily browser",
    },
    KeySpec {
        key: "build.allowNpx",
        env: "WEBEXT_MCP_BUILD_ALLOW_NPX",
        kind: Kind::Bool,
        default: "true",
        help: "whether a build may run Extension.js through `npx --yes extension@4.1.x` for an Extension.js project that has no local copy (needs Node.js 22.12+)",
    },
    KeySpec {
        key: "build.allowProjectScripts",
        env: "WEBEXT_MCP_ALLOW_PROJECT_SCRIPTS",
        kind: Kind::List,
        default: "",
        help: "projects (absolute paths) whose own code a build may run: package manager, build script, bundler configs, Extension.js; each grant is remembered with the hashes of those files and asked again when one changes. `1` in the environment: every project (CI); `--allow-project-scripts`: every project of this command",
    },
    KeySpec {
        key: "browsers.chromium.binary",
        env: "WEBEXT_MCP_CHROMIUM_BINARY",
        kind: Kind::Text,
        default: "",
        help: "Chromium-family browser binary to launch instead of the detected one",
    },
    KeySpec {
        key: "browsers.firefox.binary",
        env: "WEBEXT_MCP_FIREFOX_BINARY",
        kind: Kind::Text,
        default: "",
        help: "Gecko-family browser binary to launch instead of the detected one",
    },
    KeySpec {
        key: "browsers.mirror",
        env: "WEBEXT_MCP_BROWSERS_MIRROR",
        kind: Kind::Text,
        default: "",
        help: "base URL that extension_install_browser downloads from instead of the vendors: `<mirror>/<vendor host>/<path>` (the layout `wget --mirror` writes); https, or http for 127.0.0.1/localhost",
    },
    KeySpec {
        key: "catalog.sources",
        env: "WEBEXT_MCP_CATALOG_SOURCES",
        kind: Kind::List,
        default: "https://github.com/extension-js/examples/releases/download/nightly/templates-meta.json",
        help: "template catalogs (templates-meta.json v2) beside the embedded one: each `[name=]<https URL or local path>[#<commit>]`; empty = embedded only",
    },
    KeySpec {
        key: "catalog.preferRemote",
        env: "WEBEXT_MCP_CATALOG_PREFER_REMOTE",
        kind: Kind::Bool,
        default: "false",
        help: "whether a template name without `source:` means the remote template rather than the embedded one of that name",
    },
    KeySpec {
        key: "catalog.mirror",
        env: "WEBEXT_MCP_CATALOG_MIRROR",
        kind: Kind::Text,
        default: "",
        help: "base URL that template catalogs and archives are fetched from instead of their https hosts: `<mirror>/<host>/<path>`; https, or http for 127.0.0.1/localhost",
    },
];

/// Values given on the command line, keyed like the file (`toolsets`, `browser`, …).
pub type Flags = BTreeMap<&'static str, String>;

/// One effective setting.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Setting {
    pub key: &'static str,
    pub value: serde_json::Value,
    pub source: Source,
    pub env: &'static str,
    pub help: &'static str,
}

/// The effective configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Config {
    pub file: PathBuf,
    pub file_exists: bool,
    pub settings: Vec<Setting>,
}

/// A configuration problem, with what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path} is not valid TOML: {message}")]
    Syntax { path: PathBuf, message: String },
    #[error("{path}: unknown key `{key}`; known keys: {known}")]
    UnknownKey { path: PathBuf, key: String, known: String },
    #[error("{origin}: `{key}` must be {expected}, got {got}")]
    BadValue { origin: String, key: &'static str, expected: &'static str, got: String },
}

impl Config {
    /// Loads the file (a missing file is fine) and applies env and flags over it.
    pub fn load(config_file: &Path, env: &Env, flags: &Flags) -> Result<Config, ConfigError> {
        let (file_exists, file_values) = match std::fs::read_to_string(config_file) {
            Ok(text) => (true, parse_file(config_file, &text)?),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (false, BTreeMap::new()),
            Err(source) => return Err(ConfigError::Read { path: config_file.to_path_buf(), source }),
        };
        let mut settings = Vec::with_capacity(KEYS.len());
        for spec in KEYS {
            let (value, source) = if let Some(flag) = flags.get(spec.key) {
                (parse_text(spec, flag, "command line")?, Source::Flag)
            } else if let Some(text) = env.get(spec.env) {
                (parse_text(spec, text, spec.env)?, Source::Env)
            } else if let Some(v) = file_values.get(spec.key) {
                (v.clone(), Source::File)
            } else {
                (parse_text(spec, spec.default, "default")?, Source::Default)
            };
            settings.push(Setting { key: spec.key, value, source, env: spec.env, help: spec.help });
        }
        Ok(Config { file: config_file.to_path_buf(), file_exists, settings })
    }

    fn value(&self, key: &str) -> Option<&serde_json::Value> {
        self.settings.iter().find(|s| s.key == key).map(|s| &s.value)
    }

    /// A text setting; `None` when empty.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.value(key).and_then(|v| v.as_str()).filter(|s| !s.is_empty())
    }

    /// Whether `key` has its default value because nothing set it.
    pub fn is_unset(&self, key: &str) -> bool {
        self.settings.iter().any(|s| s.key == key && s.source == Source::Default)
    }

    pub fn flag(&self, key: &str) -> bool {
        self.value(key).and_then(|v| v.as_bool()).unwrap_or(false)
    }

    pub fn list(&self, key: &str) -> Vec<String> {
        self.value(key)
            .and_then(|v| v.as_array())
            .map(|items| items.iter().filter_map(|i| i.as_str().map(str::to_owned)).collect())
            .unwrap_or_default()
    }

    /// The log filter.
    pub fn log_filter(&self) -> &str {
        self.text("log").unwrap_or("info,rmcp=warn")
    }
}

fn parse_text(spec: &KeySpec, text: &str, origin: &str) -> Result<serde_json::Value, ConfigError> {
    Ok(match spec.kind {
        Kind::Text => serde_json::Value::String(text.trim().to_owned()),
        Kind::Bool => match text.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => serde_json::Value::Bool(true),
            "0" | "false" | "no" | "off" | "" => serde_json::Value::Bool(false),
            _ => {
                return Err(ConfigError::BadValue {
                    origin: origin.to_owned(),
                    key: spec.key,
                    expected: "true or false",
                    got: text.to_owned(),
                });
            }
        },
        Kind::List => serde_json::Value::Array(
            text.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| serde_json::Value::String(s.to_owned()))
                .collect(),
        ),
    })
}

fn parse_file(path: &Path, text: &str) -> Result<BTreeMap<&'static str, serde_json::Value>, ConfigError> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| ConfigError::Syntax {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let mut flat = Vec::new();
    flatten("", &table, &mut flat);
    let mut out = BTreeMap::new();
    let origin = path.display().to_string();
    for (key, value) in flat {
        let Some(spec) = KEYS.iter().find(|s| s.key == key) else {
            let known = KEYS.iter().map(|s| s.key).collect::<Vec<_>>().join(", ");
            return Err(ConfigError::UnknownKey { path: path.to_path_buf(), key, known });
        };
        let bad = |expected| ConfigError::BadValue {
            origin: origin.clone(),
            key: spec.key,
            expected,
            got: value.to_string(),
        };
        let json = match (spec.kind, &value) {
            (Kind::Text, toml::Value::String(s)) => serde_json::Value::String(s.clone()),
            (Kind::Bool, toml::Value::Boolean(b)) => serde_json::Value::Bool(*b),
            (Kind::List, toml::Value::String(s)) => parse_text(spec, s, &origin)?,
            (Kind::List, toml::Value::Array(items)) => {
                let mut strings = Vec::with_capacity(items.len());
                for item in items {
                    match item {
                        toml::Value::String(s) => strings.push(serde_json::Value::String(s.clone())),
                        _ => return Err(bad("an array of strings")),
                    }
                }
                serde_json::Value::Array(strings)
            }
            (Kind::Text, _) => return Err(bad("a string")),
            (Kind::Bool, _) => return Err(bad("true or false")),
            (Kind::List, _) => return Err(bad("an array of strings")),
        };
        out.insert(spec.key, json);
    }
    Ok(out)
}

fn flatten(prefix: &str, table: &toml::Table, out: &mut Vec<(String, toml::Value)>) {
    for (k, v) in table {
        let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
        match v {
            toml::Value::Table(inner) => flatten(&key, inner, out),
            other => out.push((key, other.clone())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, text: &str) -> PathBuf {
        let file = dir.join("config.toml");
        std::fs::write(&file, text).unwrap();
        file
    }

    fn source_of(c: &Config, key: &str) -> Source {
        c.settings.iter().find(|s| s.key == key).unwrap().source
    }

    #[test]
    fn precedence_flag_over_env_over_file_over_default() {
        let dir = tempfile::tempdir().unwrap();
        let file = write(dir.path(), "browser = \"file-b\"\nlog = \"warn\"\nheadless = true\n");
        let env = Env::from_pairs([("WEBEXT_MCP_BROWSER", "env-b"), ("WEBEXT_MCP_LOG", "debug")], 1);
        let flags: Flags = [("browser", "flag-b".to_owned())].into_iter().collect();
        let c = Config::load(&file, &env, &flags).unwrap();
        assert_eq!(c.text("browser"), Some("flag-b"));
        assert_eq!(source_of(&c, "browser"), Source::Flag);
        assert_eq!(c.log_filter(), "debug");
        assert_eq!(source_of(&c, "log"), Source::Env);
        assert!(c.flag("headless"));
        assert_eq!(source_of(&c, "headless"), Source::File);
        assert_eq!(c.list("toolsets"), vec!["default"]);
        assert_eq!(source_of(&c, "toolsets"), Source::Default);
    }

    #[test]
    fn nested_keys_and_lists_from_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = write(
            dir.path(),
            "toolsets = [\"core\", \"debug\"]\n[browsers.chromium]\nbinary = \"/opt/c/chrome\"\n",
        );
        let c = Config::load(&file, &Env::default(), &Flags::new()).unwrap();
        assert_eq!(c.list("toolsets"), vec!["core", "debug"]);
        assert_eq!(c.text("browsers.chromium.binary"), Some("/opt/c/chrome"));
        assert!(c.file_exists);
    }

    #[test]
    fn missing_file_is_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let c = Config::load(&dir.path().join("none.toml"), &Env::default(), &Flags::new()).unwrap();
        assert!(!c.file_exists);
        assert!(c.settings.iter().all(|s| s.source == Source::Default));
    }

    #[test]
    fn bad_inputs_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            ("browser = ", "not valid TOML"),
            ("colour = \"red\"", "unknown key `colour`"),
            ("headless = \"maybe\"", "`headless` must be true or false"),
            ("toolsets = [1]", "`toolsets` must be an array of strings"),
            ("[browsers.chromium]\nbinary = 3", "`browsers.chromium.binary` must be a string"),
        ];
        for (text, expected) in cases {
            let file = write(dir.path(), text);
            let err = Config::load(&file, &Env::default(), &Flags::new()).unwrap_err().to_string();
            assert!(err.contains(expected), "{text:?} gave {err}");
        }
        let env = Env::from_pairs([("WEBEXT_MCP_HEADLESS", "sometimes")], 1);
        let err = Config::load(&dir.path().join("x"), &env, &Flags::new()).unwrap_err().to_string();
        assert!(err.contains("WEBEXT_MCP_HEADLESS"), "{err}");
    }
}
