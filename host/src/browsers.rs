//! Browser engines and how each browser names itself in the helper's `hello`: the part of
//! the browser catalog the host needs (to match a `browser` choice such as `gecko-based`
//! against a descriptor). The rest of the catalog (build targets, binaries, native-messaging
//! locations) is `webext_mcp::browsers`, which reads this list and extends it.
//!
//! The names come from the helper (`extension/src/identity.js`): a Chromium brand it knows,
//! else `chromium`; in Gecko browsers `runtime.getBrowserInfo().name`, lowercased with
//! spaces as `-`.

use serde::Serialize;

/// A browser engine: decides the helper build, the family-prefixed manifest keys, the
/// background rules, the runner and the native-messaging manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// Chrome, Chromium, Edge, Brave, …: `extension/manifest.chrome.json`, the CDP runner.
    Chromium,
    /// Firefox, Zen, LibreWolf, …: `extension/manifest.firefox.json`, the Firefox runner.
    Gecko,
}

impl Engine {
    pub const ALL: [Engine; 2] = [Engine::Chromium, Engine::Gecko];

    /// The family word of messages, reports and on-disk names (`helper/firefox/`, doctor's
    /// `family`, `no firefox browser found`): `chromium` or `firefox`.
    pub const fn name(self) -> &'static str {
        match self {
            Engine::Chromium => "chromium",
            Engine::Gecko => "firefox",
        }
    }

    /// The `browser` value that means "the first browser of this engine".
    pub const fn any_name(self) -> &'static str {
        match self {
            Engine::Chromium => "chromium-based",
            Engine::Gecko => "gecko-based",
        }
    }
}

/// Every browser the helper can report, with its engine: the `browser` of a `hello` (and of
/// a host descriptor) is one of these, possibly with a channel suffix
/// (`firefox-developer-edition`). Display order; each is also a `browser` argument value.
pub const REPORTED: [(&str, Engine); 11] = [
    ("chrome", Engine::Chromium),
    ("chromium", Engine::Chromium),
    ("edge", Engine::Chromium),
    ("brave", Engine::Chromium),
    ("opera", Engine::Chromium),
    ("vivaldi", Engine::Chromium),
    ("firefox", Engine::Gecko),
    ("librewolf", Engine::Gecko),
    ("zen", Engine::Gecko),
    ("floorp", Engine::Gecko),
    ("waterfox", Engine::Gecko),
];

/// The engine of a browser by the name it reported (case-insensitive; a name that starts
/// with a known one, such as `firefox-nightly`, counts as that browser).
pub fn engine_of_reported(reported: &str) -> Option<Engine> {
    let reported = reported.to_ascii_lowercase();
    REPORTED.iter().find(|(name, _)| reported.starts_with(name)).map(|(_, engine)| *engine)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reported_names_are_unique_and_classified() {
        let mut names: Vec<&str> = REPORTED.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), REPORTED.len());
        assert_eq!(engine_of_reported("Firefox"), Some(Engine::Gecko));
        assert_eq!(engine_of_reported("firefox-developer-edition"), Some(Engine::Gecko));
        assert_eq!(engine_of_reported("chrome"), Some(Engine::Chromium));
        assert_eq!(engine_of_reported("safari"), None);
        for engine in Engine::ALL {
            assert!(REPORTED.iter().any(|(_, e)| *e == engine), "{engine:?}");
        }
    }
}
