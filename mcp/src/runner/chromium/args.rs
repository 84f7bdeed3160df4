//! How a Chromium browser is started: its flags and the profile preferences set before launch.

use std::path::Path;

use serde_json::{Value, json};

use crate::runner::{RunnerError, RunnerOptions};

/// The flags of a quiet, isolated Chromium (see reference/browsers-here.md).
pub(super) fn chromium_args(opts: &RunnerOptions, profile: &Path, root: bool) -> Vec<String> {
    let mut args = vec![
        "--remote-debugging-pipe".to_owned(),
        "--enable-unsafe-extension-debugging".to_owned(),
        format!("--user-data-dir={}", profile.display()),
        "--no-first-run".to_owned(),
        "--no-default-browser-check".to_owned(),
        "--disable-background-networking".to_owned(),
        "--disable-component-update".to_owned(),
        "--disable-sync".to_owned(),
        "--password-store=basic".to_owned(),
        "--window-size=1280,800".to_owned(),
    ];
    if opts.headless {
        args.push("--headless=new".to_owned());
        args.push("--disable-gpu".to_owned());
    }
    // The sandbox cannot run as root; a normal user keeps it.
    if root {
        args.push("--no-sandbox".to_owned());
    }
    let excluded = |a: &String| {
        opts.exclude_args.iter().any(|x| a.split('=').next() == Some(x.split('=').next().unwrap_or(x)))
    };
    args.retain(|a| !excluded(a));
    args.extend(opts.extra_args.iter().cloned());
    args.push(opts.start_url.clone().unwrap_or_else(|| "about:blank".to_owned()));
    args
}

/// `chrome.runtime.reload()` leaves an unpacked extension disabled unless developer mode is
/// on, and the only switch is the profile's preferences, set before launch.
pub(super) fn enable_developer_mode(profile: &Path) -> Result<(), RunnerError> {
    let dir = profile.join("Default");
    std::fs::create_dir_all(&dir).map_err(RunnerError::io(format!("cannot create {}", dir.display())))?;
    let file = dir.join("Preferences");
    let mut prefs = std::fs::read(&file)
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({}));
    prefs["extensions"] = merge(prefs.get("extensions"), json!({"ui": {"developer_mode": true}}));
    std::fs::write(&file, prefs.to_string())
        .map_err(RunnerError::io(format!("cannot write {}", file.display())))
}

fn merge(old: Option<&Value>, new: Value) -> Value {
    match (old, new) {
        (Some(Value::Object(old)), Value::Object(new)) => {
            let mut out = old.clone();
            for (k, v) in new {
                let merged = merge(out.get(&k), v);
                out.insert(k, merged);
            }
            Value::Object(out)
        }
        (_, new) => new,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn developer_mode_merges_into_existing_preferences() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("Default")).unwrap();
        std::fs::write(dir.path().join("Default/Preferences"), r#"{"extensions":{"x":1},"y":2}"#).unwrap();
        enable_developer_mode(dir.path()).unwrap();
        let v: Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("Default/Preferences")).unwrap()).unwrap();
        assert_eq!(v["extensions"]["ui"]["developer_mode"], true);
        assert_eq!(v["extensions"]["x"], 1);
        assert_eq!(v["y"], 2);
    }

    #[test]
    fn no_sandbox_only_for_root() {
        let opts = RunnerOptions::default();
        assert!(chromium_args(&opts, Path::new("/p"), true).contains(&"--no-sandbox".to_owned()));
        assert!(!chromium_args(&opts, Path::new("/p"), false).contains(&"--no-sandbox".to_owned()));
    }

    #[test]
    fn project_flags_come_after_ours_and_excluded_defaults_go() {
        let opts = RunnerOptions {
            extra_args: vec!["--lang=de".into()],
            exclude_args: vec!["--window-size".into()],
            ..RunnerOptions::default()
        };
        let args = chromium_args(&opts, Path::new("/p"), false);
        assert!(!args.iter().any(|a| a.starts_with("--window-size")), "{args:?}");
        assert_eq!(args[args.len() - 2..], ["--lang=de".to_owned(), "about:blank".to_owned()]);
    }
}
