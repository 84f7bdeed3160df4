//! Build targets: the browser names a build accepts and the engine each belongs to, read
//! from the browser catalog ([`crate::browsers`]) plus `chromium-based` / `gecko-based`.
//!
//! The names follow Extension.js 4.1 (`extension build --browser`): one name, a comma list,
//! or `all` (= chrome, edge, firefox). `zen` is not an Extension.js target; here it is a
//! Gecko browser, like the Firefox fork it is.

use crate::browsers::{BROWSERS, Browser, Engine};

/// A build target: the name as the user gave it (it names `dist/<name>/`) and its engine.
/// Once parsed, a target travels with the build and the session; nothing looks its name up
/// again to learn the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Target {
    pub name: &'static str,
    pub engine: Engine,
}

/// Every accepted target name, in display order: the catalog's browsers, then the engines.
pub fn targets() -> impl Iterator<Item = Target> {
    BROWSERS
        .iter()
        .map(Target::of)
        .chain(Engine::ALL.into_iter().map(|e| Target { name: e.any_name(), engine: e }))
}

/// What `all` means (Extension.js `vendors('all')`).
pub const ALL_TARGETS: [&str; 3] = ["chrome", "edge", "firefox"];

/// Key prefixes that apply to every browser of a family (Extension.js `filterKeysForThisBrowser`).
pub const CHROMIUM_FAMILY_PREFIXES: [&str; 3] = ["chromium", "chrome", "edge"];
pub const GECKO_FAMILY_PREFIXES: [&str; 2] = ["gecko", "firefox"];

/// Browser names that are valid key prefixes elsewhere (other tools, other Extension.js
/// targets) and are dropped silently rather than reported as unknown.
const OTHER_KNOWN_PREFIXES: [&str; 5] = ["safari", "webkit", "webkit-based", "yandex", "firefox-based"];

impl Target {
    /// The target of a catalog browser.
    pub const fn of(b: &Browser) -> Target {
        Target { name: b.name, engine: b.engine }
    }

    /// Looks a single name up (case-insensitive, trimmed).
    pub fn named(name: &str) -> Option<Target> {
        let name = name.trim();
        targets().find(|t| t.name.eq_ignore_ascii_case(name))
    }

    /// The family prefixes that apply to this target.
    pub fn family_prefixes(self) -> &'static [&'static str] {
        match self.engine {
            Engine::Chromium => &CHROMIUM_FAMILY_PREFIXES,
            Engine::Gecko => &GECKO_FAMILY_PREFIXES,
        }
    }
}

/// Whether a key prefix names some browser or family (this target's or another's).
pub fn is_known_prefix(prefix: &str) -> bool {
    targets().any(|t| t.name == prefix)
        || CHROMIUM_FAMILY_PREFIXES.contains(&prefix)
        || GECKO_FAMILY_PREFIXES.contains(&prefix)
        || OTHER_KNOWN_PREFIXES.contains(&prefix)
}

/// A browser list that named something unknown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownTarget(pub String);

impl std::fmt::Display for UnknownTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let known: Vec<&str> = targets().map(|t| t.name).collect();
        write!(f, "unknown browser `{}`; use `all` or any of: {}", self.0, known.join(", "))
    }
}

/// Parses `chrome`, `chrome,firefox` or `all` into targets, in order, without duplicates.
/// An empty list means `chrome`.
pub fn parse_targets(spec: &[String]) -> Result<Vec<Target>, UnknownTarget> {
    let mut out: Vec<Target> = Vec::new();
    let push = |t: Target, out: &mut Vec<Target>| {
        if !out.contains(&t) {
            out.push(t);
        }
    };
    for item in spec {
        for part in item.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if part.eq_ignore_ascii_case("all") {
                for name in ALL_TARGETS {
                    if let Some(t) = Target::named(name) {
                        push(t, &mut out);
                    }
                }
                continue;
            }
            push(Target::named(part).ok_or_else(|| UnknownTarget(part.to_owned()))?, &mut out);
        }
    }
    if out.is_empty() {
        out.extend(targets().take(1));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(spec: &[&str]) -> Vec<&'static str> {
        let spec: Vec<String> = spec.iter().map(|s| (*s).to_owned()).collect();
        parse_targets(&spec).unwrap().into_iter().map(|t| t.name).collect()
    }

    #[test]
    fn lists_all_and_defaults() {
        assert_eq!(names(&[]), ["chrome"]);
        assert_eq!(names(&["all"]), ["chrome", "edge", "firefox"]);
        assert_eq!(names(&["chrome, firefox", "chrome"]), ["chrome", "firefox"]);
        assert_eq!(names(&["Gecko-Based", "zen"]), ["gecko-based", "zen"]);
        assert_eq!(names(&["firefox,all"]), ["firefox", "chrome", "edge"]);
        let e = parse_targets(&["chrome,safari".into()]).unwrap_err();
        assert_eq!(e.0, "safari");
        assert!(e.to_string().contains("chromium-based"));
    }

    #[test]
    fn families() {
        for (name, family) in [
            ("chrome", Engine::Chromium),
            ("chromium", Engine::Chromium),
            ("edge", Engine::Chromium),
            ("brave", Engine::Chromium),
            ("opera", Engine::Chromium),
            ("vivaldi", Engine::Chromium),
            ("chromium-based", Engine::Chromium),
            ("firefox", Engine::Gecko),
            ("librewolf", Engine::Gecko),
            ("zen", Engine::Gecko),
            ("gecko-based", Engine::Gecko),
            ("floorp", Engine::Gecko),
            ("waterfox", Engine::Gecko),
        ] {
            assert_eq!(Target::named(name).unwrap().engine, family, "{name}");
        }
    }

    /// Every catalog browser can be built for, under its own name.
    #[test]
    fn every_catalog_browser_is_a_build_target() {
        for b in &BROWSERS {
            assert_eq!(Target::named(b.name), Some(Target { name: b.name, engine: b.engine }));
            assert!(is_known_prefix(b.name));
        }
        assert_eq!(targets().count(), BROWSERS.len() + 2);
        assert_eq!(targets().next().map(|t| t.name), Some("chrome"));
    }
}
