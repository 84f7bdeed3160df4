//! Which launch flags, binaries and preferences a project may add to a browser we start.
//!
//! A project's `extension.config.*` may ask for extra flags (Extension.js's `browserFlags`).
//! The project is hostile input (DESIGN "Trust model"), and a handful of switches turn a
//! dev browser into something else: a command run for every child process
//! (`--renderer-cmd-prefix`, `--gpu-launcher`, `--browser-subprocess-path`), a debugging
//! port on 127.0.0.1 that every local user can reach and that executes code as this user
//! (`--remote-debugging-port`, Firefox `--start-debugger-server`, Marionette), another
//! profile (the user's daily one), another extension, or the sandbox off. Those are refused
//! with the reason; everything else is passed as given. The same goes for Gecko preferences
//! that open the same ports, and for our own default flags, of which only the cosmetic ones
//! may be left out (`excludeBrowserFlags`).

use std::path::{Path, PathBuf};

use crate::browsers::Engine;

/// Flag names (before any `=`) a project may not pass, per engine, and why.
const CHROMIUM_REFUSED: &[(&str, &str)] = &[
    ("--remote-debugging-port", PORT),
    ("--remote-debugging-address", PORT),
    ("--remote-allow-origins", PORT),
    ("--remote-debugging-pipe", OURS),
    ("--remote-debugging-io-pipes", OURS),
    ("--enable-unsafe-extension-debugging", OURS),
    ("--user-data-dir", PROFILE),
    ("--load-extension", EXTENSIONS),
    ("--disable-extensions-except", EXTENSIONS),
    ("--disable-extensions", EXTENSIONS),
    ("--headless", HEADLESS),
    ("--no-sandbox", SANDBOX),
    ("--disable-setuid-sandbox", SANDBOX),
    ("--disable-gpu-sandbox", SANDBOX),
    ("--no-zygote", SANDBOX),
    ("--single-process", SANDBOX),
    ("--browser-subprocess-path", LAUNCHER),
    ("--gpu-launcher", LAUNCHER),
    ("--plugin-launcher", LAUNCHER),
    ("--ppapi-plugin-launcher", LAUNCHER),
];

const GECKO_REFUSED: &[(&str, &str)] = &[
    ("--start-debugger-server", PORT),
    ("--remote-debugging-port", PORT),
    ("--remote-allow-hosts", PORT),
    ("--remote-allow-origins", PORT),
    ("--remote-allow-system-access", OURS),
    ("--marionette", PORT),
    ("--profile", PROFILE),
    ("--p", PROFILE),
    ("--profilemanager", PROFILE),
    ("--headless", HEADLESS),
];

const PORT: &str = "it opens a debugging port on 127.0.0.1 that every local user can reach and that runs code as you (webext-mcp talks to its browsers over a pipe or a private socket)";
const OURS: &str = "the session sets it itself: it is how webext-mcp drives the browser";
const PROFILE: &str = "the session's profile is set with `profile` (browser.<name>.profile), never by a flag, so a project cannot point the dev browser at your daily profile";
const EXTENSIONS: &str = "the session loads the extension under development (and the helper) itself";
const HEADLESS: &str = "use the session's `headless` argument (config `headless`)";
const SANDBOX: &str = "it turns the browser's sandbox off for the pages the dev browser opens (webext-mcp does that only where the sandbox cannot run: as root)";
const LAUNCHER: &str = "it makes the browser run another program for its child processes";

/// Our default flags a project may leave out: they only keep the dev browser quiet.
const CHROMIUM_REMOVABLE: &[&str] = &[
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--password-store",
    "--window-size",
    "--disable-gpu",
];

/// The name of a flag: `--lang=de` → `--lang`; Gecko's single-dash form is normalized
/// (`-profile` → `--profile`), names compared in lower case.
fn name_of(flag: &str) -> String {
    let name = flag.split('=').next().unwrap_or(flag).to_ascii_lowercase();
    if name.starts_with("--") { name } else { format!("-{name}") }
}

/// Whether `flag` may be passed to an `engine` browser; `Err(why)` when it may not.
pub fn vet_flag(engine: Engine, flag: &str) -> Result<(), String> {
    let flag = flag.trim();
    if !flag.starts_with('-') || flag.len() < 2 {
        return Err("not a flag (flags start with `-`); a page to open is `startingUrl`".to_owned());
    }
    if flag.chars().any(char::is_control) {
        return Err("it holds control characters".to_owned());
    }
    let name = name_of(flag);
    let refused = match engine {
        Engine::Chromium => CHROMIUM_REFUSED,
        Engine::Gecko => GECKO_REFUSED,
    };
    if let Some((_, why)) = refused.iter().find(|(n, _)| *n == name) {
        return Err((*why).to_owned());
    }
    if engine == Engine::Chromium && (name.ends_with("-cmd-prefix") || name.ends_with("-launcher")) {
        return Err(LAUNCHER.to_owned());
    }
    if engine == Engine::Gecko && name.starts_with("--remote-") {
        return Err(PORT.to_owned());
    }
    Ok(())
}

/// Whether our default flag `flag` may be left out of an `engine` browser's command line.
pub fn removable(engine: Engine, flag: &str) -> Result<(), String> {
    let name = name_of(flag.trim());
    match engine {
        Engine::Chromium if CHROMIUM_REMOVABLE.contains(&name.as_str()) => Ok(()),
        Engine::Chromium => Err(format!(
            "only these default flags can be left out: {}; the others are how the session runs",
            CHROMIUM_REMOVABLE.join(", ")
        )),
        Engine::Gecko => Err("a Firefox session passes no default flags that could be left out".to_owned()),
    }
}

/// Whether `name` may be set as a Gecko preference; `Err(why)` when not.
pub fn vet_preference(name: &str) -> Result<(), String> {
    if name.is_empty()
        || name.len() > 200
        || !name.chars().all(|c| c.is_ascii_alphanumeric() || "._-@{}".contains(c))
    {
        return Err("not a preference name (letters, digits and `._-@{}` only)".to_owned());
    }
    let lower = name.to_ascii_lowercase();
    let opens_port = ["devtools.debugger.", "marionette.", "remote.", "devtools.chrome.enabled"];
    if opens_port.iter().any(|p| lower.starts_with(p)) {
        return Err(PORT.to_owned());
    }
    if lower == "extensions.webextensions.uuids"
        || lower.starts_with("xpinstall.")
        || lower.starts_with("extensions.autodisablescopes")
    {
        return Err(OURS.to_owned());
    }
    if lower.starts_with("security.sandbox.") {
        return Err(SANDBOX.to_owned());
    }
    Ok(())
}

/// Whether `path` (from a project's config) may be started as the session's browser: an
/// absolute path to an executable file outside the project — a "browser" the project ships
/// would be the project's own code running as you, with no build step in between — that
/// no other user can write to.
pub fn vet_binary(path: &Path, project: &Path) -> Result<PathBuf, String> {
    if !path.is_absolute() {
        return Err("not an absolute path (a browser binary from the config must be installed on this machine, outside the project)".to_owned());
    }
    let real = path.canonicalize().map_err(|e| format!("it cannot be opened ({e})"))?;
    if let Ok(root) = project.canonicalize()
        && real.starts_with(&root)
    {
        return Err("it is inside the project: a browser the project ships would be the project's own code running as you".to_owned());
    }
    let meta = std::fs::metadata(&real).map_err(|e| format!("it cannot be read ({e})"))?;
    if !meta.is_file() {
        return Err("it is not a file".to_owned());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let mode = meta.permissions().mode();
        if mode & 0o111 == 0 {
            return Err("it is not executable".to_owned());
        }
        if mode & 0o022 != 0 {
            return Err("other users can write to it".to_owned());
        }
        // SAFETY: geteuid has no preconditions and touches no memory.
        let me = unsafe { libc::geteuid() };
        if meta.uid() != 0 && meta.uid() != me {
            return Err("it belongs to another user".to_owned());
        }
    }
    Ok(real)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_vetted_per_engine() {
        assert!(vet_flag(Engine::Chromium, "--lang=de").is_ok());
        assert!(vet_flag(Engine::Chromium, "--disable-web-security").is_ok());
        assert!(vet_flag(Engine::Chromium, "--Remote-Debugging-Port=1").is_err());
        assert!(vet_flag(Engine::Chromium, "--utility-cmd-prefix=x").is_err());
        assert!(vet_flag(Engine::Chromium, "--headless=new").is_err());
        assert!(vet_flag(Engine::Chromium, "--lang=de\n--no-sandbox").is_err());
        assert!(vet_flag(Engine::Gecko, "-devtools").is_ok());
        assert!(vet_flag(Engine::Gecko, "-P").is_err());
        assert!(vet_flag(Engine::Gecko, "-marionette").is_err());
        assert!(vet_flag(Engine::Gecko, "--remote-allow-system-access").is_err());
        assert!(vet_flag(Engine::Gecko, "about:blank").is_err());
    }

    #[test]
    fn only_cosmetic_defaults_can_be_left_out() {
        assert!(removable(Engine::Chromium, "--window-size").is_ok());
        assert!(removable(Engine::Chromium, "--remote-debugging-pipe").is_err());
        assert!(removable(Engine::Gecko, "--no-remote").is_err());
    }

    #[test]
    fn binaries_outside_the_project_only() {
        let project = tempfile::tempdir().unwrap();
        let inside = project.path().join("browser");
        std::fs::write(&inside, "#!/bin/sh\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&inside, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        assert!(vet_binary(&inside, project.path()).unwrap_err().contains("inside the project"));
        assert!(vet_binary(Path::new("rel/chrome"), project.path()).is_err());
        assert!(vet_binary(Path::new("/bin/sh"), project.path()).is_ok());
        assert!(vet_binary(Path::new("/nonexistent/chrome"), project.path()).is_err());
    }
}
