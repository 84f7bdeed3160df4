//! The environment a build injects into scripts, as Extension.js documents it: `.env.defaults`
//! merged first, then the first existing of `.env.<browser>.<mode>`, `.env.<browser>`,
//! `.env.<mode>`, `.env.local`, `.env`, `.env.example` (one file, not a cascade); beside the
//! project, else at the nearest ancestor with `pnpm-workspace.yaml`. The system environment
//! wins for a key it sets. Only `EXTENSION_PUBLIC_*` reach code, plus the built-ins
//! `EXTENSION_PUBLIC_BROWSER`, `EXTENSION_PUBLIC_MODE` (and `NODE_ENV`, which libraries read).
//! Everything else, secrets included, is never handed to the injector.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The prefix that makes a variable visible to extension code.
pub const PUBLIC_PREFIX: &str = "EXTENSION_PUBLIC_";

/// Env files larger than this are ignored (they are key=value lists, not data).
const MAX_ENV_BYTES: u64 = 1024 * 1024;

/// Variables that may be injected into one target's scripts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PublicEnv {
    pub vars: BTreeMap<String, String>,
    /// The env files read, relative to the project when inside it (for messages).
    pub files: Vec<String>,
}

impl PublicEnv {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }
}

/// `development` for dev builds, `production` otherwise (Extension.js's two modes).
pub fn mode(dev: bool) -> &'static str {
    if dev { "development" } else { "production" }
}

/// Loads the public environment for `browser` in `mode`. `system` is the process environment
/// (passed in so tests do not depend on the caller's).
pub fn load(project: &Path, browser: &str, mode: &str, system: &BTreeMap<String, String>) -> PublicEnv {
    let mut merged = BTreeMap::new();
    let mut files = Vec::new();
    let dirs = std::iter::once(project.to_path_buf()).chain(workspace_root(project));
    for dir in dirs {
        let defaults = dir.join(".env.defaults");
        let selected = candidates(browser, mode).into_iter().map(|n| dir.join(n)).find(|p| p.is_file());
        if !defaults.is_file() && selected.is_none() {
            continue;
        }
        for path in std::iter::once(defaults).chain(selected).filter(|p| p.is_file()) {
            if let Some(text) = read_small(&path) {
                merged.extend(parse(&text));
                files.push(display(project, &path));
            }
        }
        break;
    }
    for (k, v) in system {
        if merged.contains_key(k) || k.starts_with(PUBLIC_PREFIX) {
            merged.insert(k.clone(), v.clone());
        }
    }
    let mut vars: BTreeMap<String, String> =
        merged.into_iter().filter(|(k, _)| k.starts_with(PUBLIC_PREFIX)).collect();
    vars.insert(format!("{PUBLIC_PREFIX}BROWSER"), browser.to_owned());
    vars.insert(format!("{PUBLIC_PREFIX}MODE"), mode.to_owned());
    vars.insert("NODE_ENV".to_owned(), mode.to_owned());
    PublicEnv { vars, files }
}

/// The process environment, for [`load`].
pub fn system() -> BTreeMap<String, String> {
    std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))).collect()
}

fn candidates(browser: &str, mode: &str) -> [String; 6] {
    [
        format!(".env.{browser}.{mode}"),
        format!(".env.{browser}"),
        format!(".env.{mode}"),
        ".env.local".into(),
        ".env".into(),
        ".env.example".into(),
    ]
}

/// The nearest ancestor (not the project itself) holding `pnpm-workspace.yaml`.
fn workspace_root(project: &Path) -> Option<PathBuf> {
    project.ancestors().skip(1).find(|d| d.join("pnpm-workspace.yaml").is_file()).map(Path::to_path_buf)
}

fn read_small(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.len() > MAX_ENV_BYTES {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

fn display(project: &Path, path: &Path) -> String {
    match path.strip_prefix(project) {
        Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
        Err(_) => path.to_string_lossy().into_owned(),
    }
}

/// `KEY=value` lines: `#` comments, optional `export `, single quotes literal, double quotes
/// with `\n` escapes, unquoted values trimmed and cut at ` #`. No `${}` expansion.
pub fn parse(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        let Some((key, raw)) = line.split_once('=') else { continue };
        let key = key.trim();
        if key.is_empty()
            || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-')
        {
            continue;
        }
        let raw = raw.trim();
        let value = if let Some(rest) = raw.strip_prefix('"') {
            let body = rest.rfind('"').map_or(rest, |e| &rest[..e]);
            body.replace("\\n", "\n").replace("\\\"", "\"")
        } else if let Some(rest) = raw.strip_prefix('\'') {
            rest.rfind('\'').map_or(rest, |e| &rest[..e]).to_owned()
        } else {
            raw.split(" #").next().unwrap_or(raw).trim().to_owned()
        };
        out.insert(key.to_owned(), value);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotenv_lines() {
        let vars =
            parse("# c\nA=1\nexport B = two words # note\nC=\"x\\ny\"\nD='$E #k'\nnot a line\n=v\nE=a=b\n");
        assert_eq!(vars["A"], "1");
        assert_eq!(vars["B"], "two words");
        assert_eq!(vars["C"], "x\ny");
        assert_eq!(vars["D"], "$E #k");
        assert_eq!(vars["E"], "a=b");
        assert_eq!(vars.len(), 5);
    }

    #[test]
    fn precedence_one_file_after_defaults_system_wins_only_public_kept() {
        let dir = tempfile::tempdir().unwrap();
        let w = |n: &str, t: &str| std::fs::write(dir.path().join(n), t).unwrap();
        w(".env.defaults", "EXTENSION_PUBLIC_A=defaults\nEXTENSION_PUBLIC_D=defaults\n");
        w(".env", "EXTENSION_PUBLIC_A=dotenv\nEXTENSION_PUBLIC_B=dotenv\nSECRET=s\n");
        w(".env.chrome", "EXTENSION_PUBLIC_A=chrome\n");
        w(".env.production", "EXTENSION_PUBLIC_A=production\n");
        let none = BTreeMap::new();
        let chrome = load(dir.path(), "chrome", "production", &none);
        assert_eq!(chrome.get("EXTENSION_PUBLIC_A"), Some("chrome"));
        // One file is selected, not a cascade: .env's B is not merged under .env.chrome.
        assert_eq!(chrome.get("EXTENSION_PUBLIC_B"), None);
        assert_eq!(chrome.get("EXTENSION_PUBLIC_D"), Some("defaults"));
        assert_eq!(chrome.files, [".env.defaults", ".env.chrome"]);
        let firefox = load(dir.path(), "firefox", "production", &none);
        assert_eq!(firefox.get("EXTENSION_PUBLIC_A"), Some("production"));
        assert_eq!(firefox.get("EXTENSION_PUBLIC_BROWSER"), Some("firefox"));
        assert_eq!(firefox.get("EXTENSION_PUBLIC_MODE"), Some("production"));
        let dev = load(dir.path(), "edge", "development", &none);
        assert_eq!(dev.get("EXTENSION_PUBLIC_A"), Some("dotenv"));
        assert_eq!(dev.get("SECRET"), None);
        let system: BTreeMap<String, String> = [
            ("EXTENSION_PUBLIC_A".to_owned(), "system".to_owned()),
            ("SECRET".to_owned(), "sys".to_owned()),
            ("HOME".to_owned(), "/root".to_owned()),
        ]
        .into();
        let sys = load(dir.path(), "chrome", "production", &system);
        assert_eq!(sys.get("EXTENSION_PUBLIC_A"), Some("system"));
        assert!(sys.vars.keys().all(|k| k.starts_with(PUBLIC_PREFIX) || k == "NODE_ENV"), "{sys:?}");
    }

    #[test]
    fn pnpm_workspace_root_is_the_fallback() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("pnpm-workspace.yaml"), "packages: ['packages/*']\n").unwrap();
        std::fs::write(root.path().join(".env"), "EXTENSION_PUBLIC_ROOT=yes\n").unwrap();
        let pkg = root.path().join("packages/ext");
        std::fs::create_dir_all(&pkg).unwrap();
        let env = load(&pkg, "chrome", "production", &BTreeMap::new());
        assert_eq!(env.get("EXTENSION_PUBLIC_ROOT"), Some("yes"));
        std::fs::write(pkg.join(".env.local"), "EXTENSION_PUBLIC_OWN=1\n").unwrap();
        let own = load(&pkg, "chrome", "production", &BTreeMap::new());
        assert_eq!((own.get("EXTENSION_PUBLIC_ROOT"), own.get("EXTENSION_PUBLIC_OWN")), (None, Some("1")));
    }
}
