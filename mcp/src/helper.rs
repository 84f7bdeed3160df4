//! The helper extension, embedded in this binary at build time.
//!
//! ```text
//! extension/src + manifest.<browser>.json ──scripts/build-extension──▶ extension/dist/<browser>/
//!     ──build.rs (include_bytes!)──▶ this module ──unpack()──▶ the installed helper directory
//! ```
//!
//! One binary carries everything `install` needs (DESIGN "One installed binary"). A test
//! checks that the embedded copy is byte for byte the current `extension/dist/`.

use std::path::{Path, PathBuf};

use crate::browsers::Engine;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/helper_files.rs"));
}

/// Where a family's build lives under `extension/dist/` (and in an unpacked copy).
pub const fn dist_name(family: Engine) -> &'static str {
    match family {
        Engine::Chromium => "chrome",
        Engine::Gecko => "firefox",
    }
}

fn table(family: Engine) -> &'static [(&'static str, &'static [u8])] {
    match family {
        Engine::Chromium => embedded::CHROME,
        Engine::Gecko => embedded::FIREFOX,
    }
}

/// The embedded helper for `family`: paths relative to its root (`/`-separated, sorted) and
/// contents. Empty when the binary was built without `extension/dist/`.
pub fn files(family: Engine) -> impl Iterator<Item = (&'static str, &'static [u8])> {
    table(family).iter().copied()
}

/// Whether this binary carries the helper for `family`.
pub fn is_embedded(family: Engine) -> bool {
    table(family).iter().any(|(path, _)| *path == "manifest.json")
}

/// The families whose helper this binary lacks (a `helperless` build): it can install
/// nothing, and `doctor` and `server_info` say so.
pub fn missing() -> Vec<Engine> {
    [Engine::Chromium, Engine::Gecko].into_iter().filter(|f| !is_embedded(*f)).collect()
}

/// What makes a binary with the helper.
pub const REBUILD: &str = "reinstall from the source checkout with scripts/install (it builds the helper, then runs `cargo install --path mcp --locked`)";

/// Why the helper could not be unpacked.
#[derive(Debug, thiserror::Error)]
pub enum HelperError {
    /// The binary was built without the helper (the `helperless` feature).
    #[error("this webext-mcp binary was built without the {} helper extension, so it cannot install it", family.name())]
    NotEmbedded { family: Engine },
    /// A file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
}

/// Writes the embedded helper for `family` into `dir` (created if needed; files overwritten)
/// and returns `dir`, ready for "Load unpacked" or an xpi.
pub fn unpack(family: Engine, dir: &Path) -> Result<PathBuf, HelperError> {
    if !is_embedded(family) {
        return Err(HelperError::NotEmbedded { family });
    }
    for (rel, bytes) in files(family) {
        let path = rel.split('/').fold(dir.to_path_buf(), |p, part| p.join(part));
        let io = |source| HelperError::Io { path: path.clone(), source };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        std::fs::write(&path, bytes).map_err(io)?;
    }
    Ok(dir.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use sha2::Digest;
    use std::collections::BTreeMap;
    use webext_mcp_host::protocol::permissions::{MANIFEST_KEYS, NeededBy, PERMISSIONS};
    use webext_mcp_host::protocol::{HELPER_CHROMIUM_ID, HELPER_CHROMIUM_KEY, HELPER_GECKO_ID};

    const FAMILIES: [Engine; 2] = [Engine::Chromium, Engine::Gecko];

    fn extension_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("extension")
    }

    fn source_manifest(family: Engine) -> Value {
        let path = extension_dir().join(format!("manifest.{}.json", dist_name(family)));
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
    }

    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let rel = path.strip_prefix(root).unwrap();
                let rel: Vec<&str> = rel.components().map(|c| c.as_os_str().to_str().unwrap()).collect();
                out.insert(rel.join("/"), std::fs::read(&path).unwrap());
            }
        }
    }

    /// Standard base64 (with padding), enough for a public key.
    fn base64_decode(text: &str) -> Vec<u8> {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = Vec::new();
        let (mut acc, mut bits) = (0u32, 0);
        for c in text.trim().bytes().take_while(|c| *c != b'=') {
            let v = ALPHABET.iter().position(|a| *a == c).unwrap() as u32;
            acc = (acc << 6) | v;
            bits += 6;
            if bits >= 8 {
                bits -= 8;
                out.push((acc >> bits) as u8);
                acc &= (1 << bits) - 1;
            }
        }
        out
    }

    #[test]
    fn base64_decoder_known_answers() {
        assert_eq!(base64_decode("TWFu"), b"Man");
        assert_eq!(base64_decode("TWE="), b"Ma");
        assert_eq!(base64_decode("TQ=="), b"M");
    }

    /// Chromium's rule: sha256 of the DER public key, first 32 hex digits, 0-9a-f → a-p.
    fn chromium_id(key_b64: &str) -> String {
        let der = base64_decode(key_b64);
        let digest = sha2::Sha256::digest(&der);
        digest
            .iter()
            .take(16)
            .flat_map(|b| [b >> 4, b & 0xf])
            .map(|nibble| char::from(b'a' + nibble))
            .collect()
    }

    #[test]
    fn chromium_id_derives_from_the_committed_public_key() {
        let key = std::fs::read_to_string(extension_dir().join("key.pub.b64")).unwrap();
        assert_eq!(chromium_id(&key), HELPER_CHROMIUM_ID);
        assert_eq!(key.trim(), HELPER_CHROMIUM_KEY.trim());
        assert_eq!(source_manifest(Engine::Chromium)["key"], key.trim());
    }

    #[test]
    fn manifests_keep_the_helper_safe_and_loadable() {
        for family in FAMILIES {
            let m = source_manifest(family);
            let name = dist_name(family);
            assert_eq!(m["manifest_version"], 3, "{name}");
            assert_eq!(m["version"], env!("CARGO_PKG_VERSION"), "{name}: helper and binary versions differ");
            assert!(m.get("externally_connectable").is_none(), "{name}: no web page may message the helper");
            let csp = m["content_security_policy"]["extension_pages"].as_str().unwrap_or_default();
            assert!(csp.contains("'wasm-unsafe-eval'"), "{name}: the engine needs 'wasm-unsafe-eval': {csp}");
            // A fixed id plus a resource on every site lets any page detect the helper.
            for war in m["web_accessible_resources"].as_array().into_iter().flatten() {
                let matches = war["matches"].as_array().cloned().unwrap_or_default();
                assert!(
                    !matches.iter().any(|p| p == "<all_urls>" || p == "*://*/*"),
                    "{name}: web_accessible_resources on every site"
                );
            }
            // The permission keys follow the table (checked in webext-mcp-host's permissions
            // tests); here: the manifest this family reads is that engine's.
            assert_eq!(
                Path::new(family.manifest_path()).file_name().and_then(|n| n.to_str()),
                Some(format!("manifest.{name}.json").as_str())
            );
            assert_eq!(m["background"]["type"], "module", "{name}");
            assert_eq!(m["action"]["default_popup"], "status.html", "{name}");
            assert_eq!(m["options_ui"]["page"], "status.html", "{name}");
        }
        let chrome = source_manifest(Engine::Chromium);
        assert_eq!(chrome["background"]["service_worker"], "background.js");
        assert!(chrome.get("browser_specific_settings").is_none());
        let firefox = source_manifest(Engine::Gecko);
        assert_eq!(firefox["background"]["scripts"], serde_json::json!(["background.js"]));
        assert_eq!(firefox["browser_specific_settings"]["gecko"]["id"], HELPER_GECKO_ID);
        assert!(firefox.get("key").is_none());
        // Everything but the browser-specific keys is shared.
        let shared = |mut m: Value| {
            for k in ["key", "minimum_chrome_version", "browser_specific_settings", "background"]
                .into_iter()
                .chain(MANIFEST_KEYS)
            {
                m.as_object_mut().unwrap().remove(k);
            }
            m
        };
        assert_eq!(shared(chrome), shared(firefox));
    }

    /// The permission table names tools by their names: a renamed tool fails here.
    #[test]
    fn the_permission_table_names_real_tools() {
        for p in PERMISSIONS {
            if let NeededBy::Only { tools, .. } = p.needed_by {
                for tool in tools {
                    assert!(crate::tools::find(tool).is_some(), "permission {}: no tool `{tool}`", p.name);
                }
            }
        }
    }

    #[test]
    fn embedded_helper_matches_extension_dist_byte_for_byte() {
        for family in FAMILIES {
            let root = extension_dir().join("dist").join(dist_name(family));
            let mut on_disk = BTreeMap::new();
            if root.is_dir() {
                walk(&root, &root, &mut on_disk);
            }
            let embedded: BTreeMap<String, Vec<u8>> =
                files(family).map(|(p, b)| (p.to_owned(), b.to_vec())).collect();
            let names = |m: &BTreeMap<String, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
            assert_eq!(
                names(&embedded),
                names(&on_disk),
                "{}: rebuild webext-mcp after scripts/build-extension",
                root.display()
            );
            for (path, bytes) in &on_disk {
                assert!(embedded[path] == *bytes, "{}/{path} differs from the embedded copy", root.display());
            }
            if root.is_dir() {
                let manifest: Value = serde_json::from_slice(&on_disk["manifest.json"]).unwrap();
                assert_eq!(manifest, source_manifest(family));
                assert!(on_disk.contains_key("engine/webext_mcp_engine_bg.wasm"));
                assert!(on_disk.contains_key("protocol.js"));
            }
        }
    }

    #[test]
    fn unpack_writes_every_file_or_says_it_has_none() {
        for family in FAMILIES {
            let dir = tempfile::tempdir().unwrap();
            match unpack(family, dir.path()) {
                Ok(root) => {
                    for (rel, bytes) in files(family) {
                        assert_eq!(std::fs::read(root.join(rel)).unwrap(), bytes);
                    }
                }
                Err(e) => {
                    assert!(!is_embedded(family));
                    assert!(e.to_string().contains("scripts/build-extension"), "{e}");
                }
            }
        }
    }
}
