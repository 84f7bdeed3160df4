//! Test extensions written into temp dirs.

use serde_json::json;
use tempfile::TempDir;

/// Writes `files` (relative path, content) into a fresh temp dir.
pub fn write_extension(files: &[(&str, &str)]) -> TempDir {
    let dir = tempfile::Builder::new().prefix("webext-mcp-test-ext-").tempdir().unwrap();
    for (rel, content) in files {
        let path = dir.path().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, content).unwrap();
    }
    dir
}

/// An MV3 manifest that both browsers load: `background.service_worker` for Chromium,
/// `background.scripts` for Firefox, a gecko id, and host access to the local test server.
pub fn manifest(name: &str) -> serde_json::Value {
    json!({
        "manifest_version": 3,
        "name": name,
        "version": "1.0",
        "background": {"service_worker": "bg.js", "scripts": ["bg.js"]},
        "host_permissions": ["http://127.0.0.1/*"],
        "browser_specific_settings": {"gecko": {"id": format!("{name}@tests.webext-mcp")}}
    })
}

/// An extension whose background script is `bg_js` (file `bg.js`).
pub fn background_extension(name: &str, bg_js: &str) -> TempDir {
    let manifest = manifest(name).to_string();
    write_extension(&[("manifest.json", &manifest), ("bg.js", bg_js)])
}
