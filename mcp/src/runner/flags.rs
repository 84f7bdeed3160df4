//! Which launch flags and preferences a project may add to a browser we start.
//!
//! A project's `extension.config.*` may ask for extra flags (Extension.js's `browserFlags`)
//! and Gecko preferences. The project is hostile input (DESIGN "Trust model"): one flag can
//! open a debugger on a 127.0.0.1 port that every local user can reach and that runs code as
//! you (`-jsdebugger`, `--remote-debugging-port`), write any file (`--log-file`), point the
//! dev browser at your daily profile, or make it run another program. So flags and
//! preferences are **allowlisted**: the tables below were seeded from every flag and
//! preference that Extension.js's public examples and documentation use, each entry with why
//! it is harmless; anything else is refused with the reason (a specific one where the flag is
//! known to be dangerous) and the session starts without it. Our own default flags may be
//! left out only where they are cosmetic (`excludeBrowserFlags`).
//!
//! ```text
//! "--lang=de-DE" ──name_of──▶ "--lang" ──ALLOWED?──▶ value fits `Takes::Word`? ──▶ Ok
//!                                      └─ no ──▶ Err(danger(name) or NOT_LISTED)
//! ```

use serde_json::Value as Json;

use crate::browsers::Engine;

/// What a flag may carry after `=`.
#[derive(Debug, Clone, Copy)]
enum Takes {
    /// Nothing: a switch.
    Nothing,
    /// A short word of letters, digits and `-_.,` (`de-DE`).
    Word,
    /// Two whole numbers, `W,H`.
    Size,
    /// A comma list of these feature names.
    Features(&'static [&'static str]),
}

/// A flag a project may pass, and why it may.
struct Allowed {
    name: &'static str,
    takes: Takes,
    why: &'static str,
}

const fn allow(name: &'static str, takes: Takes, why: &'static str) -> Allowed {
    Allowed { name, takes, why }
}

use Takes::{Features, Nothing, Size, Word};

/// Chromium flags a project may pass. Seeded from Extension.js: its examples
/// (`new-browser-flags`: `--kiosk`; the CI flags of the templates: `--disable-gpu`), its
/// documentation (`--disable-web-security`, `--auto-open-devtools-for-tabs`), its dark-mode
/// defaults (`--force-dark-mode`, `--enable-features=WebUIDarkMode`) and its own quiet
/// defaults, which projects copy; plus the window and language switches its tests use.
const CHROMIUM_ALLOWED: &[Allowed] = &[
    allow(
        "--kiosk",
        Nothing,
        "a full-screen window with no browser frame (Extension.js's new-browser-flags example)",
    ),
    allow("--disable-gpu", Nothing, "software rendering (the CI flags of Extension.js's templates)"),
    allow(
        "--disable-web-security",
        Nothing,
        "pages of the dev browser skip CORS checks, to try an extension against a local API (Extension.js docs)",
    ),
    allow(
        "--auto-open-devtools-for-tabs",
        Nothing,
        "DevTools opens in each tab, inside the browser: no port (Extension.js docs)",
    ),
    allow("--force-dark-mode", Nothing, "dark browser UI and pages (Extension.js's dark-mode default)"),
    allow(
        "--enable-features",
        Features(&["WebUIDarkMode", "SidePanelUpdates"]),
        "dark WebUI pages and the side panel (Extension.js's defaults); other features are not listed",
    ),
    allow(
        "--disable-features",
        Features(&["WebUIDarkMode", "Translate", "MediaRoute", "InterestFeedContentSuggestions"]),
        "turns off translation prompts, cast discovery, the feed and dark WebUI (Extension.js's defaults)",
    ),
    allow("--lang", Word, "the UI language, to see an extension's _locales"),
    allow("--start-maximized", Nothing, "the window size"),
    allow("--window-size", Size, "the window size"),
    allow("--mute-audio", Nothing, "no sound (an Extension.js default)"),
    allow("--hide-scrollbars", Nothing, "no scrollbars in screenshots (an Extension.js default)"),
    allow("--no-first-run", Nothing, "no first-run page (an Extension.js default, and ours)"),
    allow(
        "--no-default-browser-check",
        Nothing,
        "no default-browser prompt (an Extension.js default, and ours)",
    ),
    allow("--disable-default-apps", Nothing, "no default apps installed (an Extension.js default)"),
    allow(
        "--disable-search-engine-choice-screen",
        Nothing,
        "no search-engine prompt (an Extension.js default)",
    ),
    allow(
        "--disable-client-side-phishing-detection",
        Nothing,
        "no phishing model downloads (an Extension.js default)",
    ),
    allow(
        "--disable-component-extensions-with-background-pages",
        Nothing,
        "fewer built-in extensions running (an Extension.js default)",
    ),
    allow("--ash-no-nudges", Nothing, "no onboarding bubbles (an Extension.js default)"),
    allow("--use-mock-keychain", Nothing, "no macOS keychain prompt (an Extension.js default)"),
    allow(
        "--disable-background-networking",
        Nothing,
        "fewer background requests (an Extension.js default, and ours)",
    ),
    allow("--disable-breakpad", Nothing, "no crash dumps written (an Extension.js default)"),
    allow(
        "--disable-component-update",
        Nothing,
        "no component downloads (an Extension.js default, and ours)",
    ),
    allow(
        "--disable-domain-reliability",
        Nothing,
        "no reliability reports to Google (an Extension.js default)",
    ),
    allow("--disable-sync", Nothing, "no sync (an Extension.js default, and ours)"),
    allow("--no-pings", Nothing, "no hyperlink-auditing pings (an Extension.js default)"),
];

/// Firefox flags a project may pass: Extension.js's new-browser-flags example (`--kiosk`) and
/// its documentation (`--devtools`, `--new-instance`).
const GECKO_ALLOWED: &[Allowed] = &[
    allow(
        "--kiosk",
        Nothing,
        "a full-screen window with no browser frame (Extension.js's new-browser-flags example)",
    ),
    allow(
        "--devtools",
        Nothing,
        "DevTools opens with the window, inside the browser: no port (Extension.js docs)",
    ),
    allow(
        "--new-instance",
        Nothing,
        "a new process rather than a running one (Extension.js docs; the session passes --no-remote too)",
    ),
];

/// What a preference's value must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bool,
    Int,
    Text,
}

/// Gecko preferences a project may set: Extension.js's documentation
/// (`browser.startup.homepage`, `devtools.theme`, `dom.webnotifications.enabled`) and its
/// dark-mode defaults, plus containers and the UI language.
const PREFERENCES_ALLOWED: &[(&str, Kind, &str)] = &[
    ("browser.startup.homepage", Kind::Text, "the page a new window opens (Extension.js docs)"),
    ("devtools.theme", Kind::Text, "DevTools colours (Extension.js docs and dark-mode default)"),
    ("dom.webnotifications.enabled", Kind::Bool, "web notifications on or off (Extension.js docs)"),
    ("ui.systemUsesDarkTheme", Kind::Int, "dark browser UI (Extension.js's dark-mode default)"),
    (
        "layout.css.prefers-color-scheme.content-override",
        Kind::Int,
        "the colour scheme pages see (Extension.js's dark-mode default)",
    ),
    (
        "privacy.userContext.enabled",
        Kind::Bool,
        "container tabs, which extensions using contextualIdentities need",
    ),
    ("intl.locale.requested", Kind::Text, "the UI language, to see an extension's _locales"),
];

const PORT: &str = "it opens a debugging port on 127.0.0.1 (a debugger or remote control) that every local user can reach and that runs code as you (webext-mcp talks to its browsers over a pipe or a private socket)";
const LOG_FILE: &str =
    "it makes the browser write a log or trace file at a path the project chooses, over any file of yours";
const REMOTE: &str = "it sends the dev browser's traffic or name lookups where the project chooses";
const OURS: &str = "the session sets it itself: it is how webext-mcp drives the browser";
const PROFILE: &str = "the session's profile is set with `profile` (browser.<name>.profile, a folder inside the project), never by a flag, so a project cannot point the dev browser at your daily profile";
const EXTENSIONS: &str = "the session loads the extension under development (and the helper) itself";
const HEADLESS: &str = "use the session's `headless` argument (config `headless`)";
const SANDBOX: &str = "it turns the browser's sandbox off for the pages the dev browser opens (webext-mcp does that only where the sandbox cannot run: as root)";
const LAUNCHER: &str = "it makes the browser run another program for its child processes";
const HIDDEN: &str = "it hides the bar that says an extension is debugging the browser";
const NOT_LISTED: &str = "it is not on webext-mcp's allowlist of launch flags (docs/trust.md lists them, each with why); ask for it in an issue if a project needs it";

/// Why a flag not on the allowlist is refused, where it is known to be dangerous: by name
/// (`-jsdebugger` → `--jsdebugger`), exact or as a prefix ending in `-` or `*`.
const DANGERS: &[(&str, &str)] = &[
    ("--remote-debugging-pipe", OURS),
    ("--remote-debugging-io-pipes", OURS),
    ("--remote-allow-system-access", OURS),
    ("--remote-*", PORT),
    ("--start-debugger-server", PORT),
    ("--jsdebugger", PORT),
    ("--wait-for-jsdebugger", PORT),
    ("--marionette", PORT),
    ("--devtools-server*", PORT),
    ("--enable-unsafe-extension-debugging", OURS),
    ("--silent-debugger-extension-api", HIDDEN),
    ("--log-file", LOG_FILE),
    ("--enable-logging", LOG_FILE),
    ("--log-net-log", LOG_FILE),
    ("--trace-startup-file", LOG_FILE),
    ("--trace-to-file*", LOG_FILE),
    ("--crash-dumps-dir", LOG_FILE),
    ("--user-data-dir", PROFILE),
    ("--profile-directory", PROFILE),
    ("--disk-cache-dir", PROFILE),
    ("--profile", PROFILE),
    ("--p", PROFILE),
    ("--profilemanager", PROFILE),
    ("--createprofile", PROFILE),
    ("--proxy-*", REMOTE),
    ("--host-resolver-rules", REMOTE),
    ("--host-rules", REMOTE),
    ("--load-extension", EXTENSIONS),
    ("--disable-extensions*", EXTENSIONS),
    ("--headless", HEADLESS),
    ("--no-sandbox", SANDBOX),
    ("--disable-setuid-sandbox", SANDBOX),
    ("--disable-gpu-sandbox", SANDBOX),
    ("--no-zygote", SANDBOX),
    ("--single-process", SANDBOX),
    ("--browser-subprocess-path", LAUNCHER),
    ("--*-cmd-prefix", LAUNCHER),
    ("--*-launcher", LAUNCHER),
];

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

/// The specific reason `name` is dangerous, if it is one the table knows.
fn danger(name: &str) -> Option<&'static str> {
    DANGERS.iter().find_map(|(pattern, why)| {
        let hit = match (pattern.strip_prefix("--*"), pattern.strip_suffix('*')) {
            (Some(tail), _) => name.ends_with(tail),
            (None, Some(head)) => name.starts_with(head),
            (None, None) => name == *pattern,
        };
        hit.then_some(*why)
    })
}

/// Whether `value` (after `=`) fits what an allowed flag takes.
fn value_fits(takes: Takes, value: Option<&str>) -> Result<(), String> {
    let word = |v: &str| {
        !v.is_empty() && v.len() <= 64 && v.chars().all(|c| c.is_ascii_alphanumeric() || "-_.,".contains(c))
    };
    match (takes, value) {
        (Nothing, None) => Ok(()),
        (Nothing, Some(_)) => Err("it takes no value".to_owned()),
        (Word, Some(v)) if word(v) => Ok(()),
        (Word, _) => Err("its value must be a short word (letters, digits, `-_.,`)".to_owned()),
        (Size, Some(v))
            if v.split(',').count() == 2 && v.split(',').all(|n| n.parse::<u16>().is_ok_and(|n| n > 0)) =>
        {
            Ok(())
        }
        (Size, _) => Err("its value must be a width and a height: `1280,800`".to_owned()),
        (Features(_), None | Some("")) => Err("it names no feature".to_owned()),
        (Features(known), Some(v)) => match v.split(',').find(|f| !known.contains(f)) {
            None => Ok(()),
            Some(f) => {
                Err(format!("the feature `{f}` is not on the allowlist (allowed: {})", known.join(", ")))
            }
        },
    }
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
    let allowed = match engine {
        Engine::Chromium => CHROMIUM_ALLOWED,
        Engine::Gecko => GECKO_ALLOWED,
    };
    match allowed.iter().find(|a| a.name == name) {
        Some(a) => value_fits(a.takes, flag.split_once('=').map(|(_, v)| v)),
        None => Err(danger(&name).unwrap_or(NOT_LISTED).to_owned()),
    }
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

/// Whether the Gecko preference `name` may be set to `value`; `Err(why)` when not.
pub fn vet_preference(name: &str, value: &Json) -> Result<(), String> {
    let Some((_, kind, _)) = PREFERENCES_ALLOWED.iter().find(|(n, _, _)| *n == name) else {
        return Err(preference_danger(name).to_owned());
    };
    let fits = match (kind, value) {
        (Kind::Bool, Json::Bool(_)) => true,
        (Kind::Int, Json::Number(n)) => n.is_i64(),
        (Kind::Text, Json::String(s)) => s.len() <= 2048 && !s.chars().any(char::is_control),
        _ => false,
    };
    if fits {
        Ok(())
    } else {
        let kind = match kind {
            Kind::Bool => "true or false",
            Kind::Int => "a whole number",
            Kind::Text => "a string of at most 2048 characters, no control characters",
        };
        Err(format!("its value must be {kind}"))
    }
}

/// Why a preference not on the allowlist is refused.
fn preference_danger(name: &str) -> &'static str {
    let lower = name.to_ascii_lowercase();
    let starts = |prefixes: &[&str]| prefixes.iter().any(|p| lower.starts_with(p));
    if starts(&["devtools.debugger.", "devtools.chrome.enabled", "marionette.", "remote.", "devtools.remote"])
    {
        PORT
    } else if starts(&["logging.", "browser.dom.window.dump."]) {
        LOG_FILE
    } else if starts(&["network.proxy.", "network.trr.", "network.dns."]) {
        REMOTE
    } else if starts(&["extensions.webextensions.uuids", "xpinstall.", "extensions.autodisablescopes"]) {
        OURS
    } else if starts(&["security.sandbox."]) {
        SANDBOX
    } else {
        "it is not on webext-mcp's allowlist of preferences (docs/trust.md lists them, each with why); ask for it in an issue if a project needs it"
    }
}

/// The allowlists as (engine or `preferences`, name, why), for docs and reports.
pub fn allowlist() -> Vec<(&'static str, &'static str, &'static str)> {
    let flags = |label, list: &'static [Allowed]| list.iter().map(move |a| (label, a.name, a.why));
    flags("chromium", CHROMIUM_ALLOWED)
        .chain(flags("firefox", GECKO_ALLOWED))
        .chain(PREFERENCES_ALLOWED.iter().map(|(n, _, why)| ("preferences", *n, *why)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (engine, flag, allowed?, a word of the reason when refused).
    const FLAGS: &[(Engine, &str, bool, &str)] = &[
        // Seeds from Extension.js's examples and docs.
        (Engine::Chromium, "--kiosk", true, ""),
        (Engine::Chromium, "--disable-web-security", true, ""),
        (Engine::Chromium, "--auto-open-devtools-for-tabs", true, ""),
        (Engine::Chromium, "--force-dark-mode", true, ""),
        (Engine::Chromium, "--enable-features=WebUIDarkMode", true, ""),
        (Engine::Chromium, "--disable-gpu", true, ""),
        (Engine::Chromium, "--lang=de-DE", true, ""),
        (Engine::Chromium, "--window-size=1280,800", true, ""),
        (Engine::Gecko, "--kiosk", true, ""),
        (Engine::Gecko, "-devtools", true, ""),
        (Engine::Gecko, "--new-instance", true, ""),
        // Values must fit.
        (Engine::Chromium, "--kiosk=1", false, "no value"),
        (Engine::Chromium, "--lang=de DE", false, "short word"),
        (Engine::Chromium, "--lang=", false, "short word"),
        (Engine::Chromium, "--window-size=big", false, "width"),
        (Engine::Chromium, "--enable-features=WebUIDarkMode,RemoteDebugging", false, "RemoteDebugging"),
        // Ports and debuggers.
        (Engine::Gecko, "-jsdebugger", false, "port"),
        (Engine::Gecko, "-wait-for-jsdebugger", false, "port"),
        (Engine::Gecko, "-start-debugger-server", false, "port"),
        (Engine::Gecko, "--start-debugger-server=6000", false, "port"),
        (Engine::Gecko, "-marionette", false, "port"),
        (Engine::Gecko, "--remote-debugging-port=9222", false, "port"),
        (Engine::Gecko, "--remote-allow-system-access", false, "drives the browser"),
        (Engine::Chromium, "--remote-debugging-port=9222", false, "port"),
        (Engine::Chromium, "--Remote-Debugging-Address=0.0.0.0", false, "port"),
        (Engine::Chromium, "--remote-allow-origins=*", false, "port"),
        (Engine::Chromium, "--remote-debugging-pipe", false, "drives the browser"),
        // Log files.
        (Engine::Chromium, "--log-file=/home/me/.bashrc", false, "log"),
        (Engine::Chromium, "--enable-logging=stderr", false, "log"),
        (Engine::Chromium, "--log-net-log=/tmp/x", false, "log"),
        (Engine::Chromium, "--trace-startup-file=/tmp/x", false, "log"),
        // Profiles.
        (Engine::Chromium, "--user-data-dir=/home/me/.config/chromium", false, "daily profile"),
        (Engine::Chromium, "--profile-directory=Default", false, "daily profile"),
        (Engine::Gecko, "-profile", false, "daily profile"),
        (Engine::Gecko, "-P", false, "daily profile"),
        (Engine::Gecko, "-ProfileManager", false, "daily profile"),
        // Remote connections.
        (Engine::Chromium, "--proxy-server=http://evil.test:8080", false, "traffic"),
        (Engine::Chromium, "--host-resolver-rules=MAP * evil.test", false, "traffic"),
        // Other programs, the sandbox, our machinery.
        (Engine::Chromium, "--renderer-cmd-prefix=/bin/sh -c evil", false, "another program"),
        (Engine::Chromium, "--utility-cmd-prefix=x", false, "another program"),
        (Engine::Chromium, "--gpu-launcher=x", false, "another program"),
        (Engine::Chromium, "--no-sandbox", false, "sandbox"),
        (Engine::Chromium, "--load-extension=/tmp/x", false, "loads the extension"),
        (Engine::Chromium, "--headless=new", false, "headless"),
        (Engine::Chromium, "--silent-debugger-extension-api", false, "hides"),
        // Not a flag, or not listed.
        (Engine::Chromium, "--lang=de\n--no-sandbox", false, "control"),
        (Engine::Gecko, "about:blank", false, "not a flag"),
        (Engine::Chromium, "--some-new-switch", false, "allowlist"),
        (Engine::Gecko, "--kiosk-monitor=1", false, "allowlist"),
        (Engine::Gecko, "--lang=de", false, "allowlist"),
    ];

    #[test]
    fn flags_pass_only_from_the_allowlist_and_refusals_say_why() {
        for (engine, flag, allowed, word) in FLAGS {
            let got = vet_flag(*engine, flag);
            assert_eq!(got.is_ok(), *allowed, "{engine:?} {flag}: {got:?}");
            if let Err(why) = got {
                assert!(why.contains(word), "{engine:?} {flag}: {why} (expected {word:?})");
            }
        }
    }

    #[test]
    fn preferences_pass_only_from_the_allowlist_with_the_right_kind() {
        let cases: &[(&str, Json, bool, &str)] = &[
            ("browser.startup.homepage", Json::from("https://developer.mozilla.org"), true, ""),
            ("devtools.theme", Json::from("dark"), true, ""),
            ("dom.webnotifications.enabled", Json::from(false), true, ""),
            ("ui.systemUsesDarkTheme", Json::from(1), true, ""),
            ("layout.css.prefers-color-scheme.content-override", Json::from(2), true, ""),
            ("dom.webnotifications.enabled", Json::from("no"), false, "true or false"),
            ("ui.systemUsesDarkTheme", Json::from(1.5), false, "whole number"),
            ("devtools.theme", Json::from("dark\nuser_pref(1)"), false, "control"),
            ("devtools.debugger.remote-enabled", Json::from(true), false, "port"),
            ("devtools.chrome.enabled", Json::from(true), false, "port"),
            ("marionette.port", Json::from(2828), false, "port"),
            ("remote.active-protocols", Json::from(1), false, "port"),
            ("logging.config.LOG_FILE", Json::from("/home/me/.bashrc"), false, "log"),
            ("browser.dom.window.dump.file", Json::from("/tmp/x"), false, "log"),
            ("network.proxy.http", Json::from("evil.test"), false, "traffic"),
            ("extensions.webextensions.uuids", Json::from("{}"), false, "drives the browser"),
            ("security.sandbox.content.level", Json::from(0), false, "sandbox"),
            ("browser.some.pref", Json::from(true), false, "allowlist"),
        ];
        for (name, value, allowed, word) in cases {
            let got = vet_preference(name, value);
            assert_eq!(got.is_ok(), *allowed, "{name} = {value}: {got:?}");
            if let Err(why) = got {
                assert!(why.contains(word), "{name}: {why} (expected {word:?})");
            }
        }
    }

    #[test]
    fn every_allowed_entry_says_why_and_passes_itself() {
        for (family, name, why) in allowlist() {
            assert!(why.len() > 10, "{family} {name}");
            assert!(danger(name).is_none(), "{name} is both allowed and dangerous");
        }
        for a in CHROMIUM_ALLOWED.iter().filter(|a| matches!(a.takes, Takes::Nothing)) {
            assert!(vet_flag(Engine::Chromium, a.name).is_ok(), "{}", a.name);
        }
    }

    /// The trust doc lists the allowlists: a flag added here and not there fails.
    #[test]
    fn the_trust_doc_lists_every_allowed_flag_and_preference() {
        let doc = include_str!("../../../docs/trust.md");
        for (family, name, _) in allowlist() {
            assert!(doc.contains(&format!("`{name}`")), "docs/trust.md does not list {family} `{name}`");
        }
    }

    #[test]
    fn only_cosmetic_defaults_can_be_left_out() {
        assert!(removable(Engine::Chromium, "--window-size").is_ok());
        assert!(removable(Engine::Chromium, "--remote-debugging-pipe").is_err());
        assert!(removable(Engine::Gecko, "--no-remote").is_err());
    }
}
