//! Every icon a template's manifest declares is a PNG of exactly the declared size.

use webext_mcp::catalog::Catalog;
use webext_mcp::manifest::{Json, parse_jsonc};

/// Width and height from a PNG's IHDR chunk.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.len() < 24 || &bytes[..8] != b"\x89PNG\r\n\x1a\n" || &bytes[12..16] != b"IHDR" {
        return None;
    }
    let be = |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    Some((be(16), be(20)))
}

/// (size, path) pairs of an icon dictionary.
fn sized(dict: Option<&Json>) -> Vec<(u32, String)> {
    dict.and_then(Json::as_object)
        .map(|o| o.iter().filter_map(|(k, v)| Some((k.parse().ok()?, v.as_str()?.to_owned()))).collect())
        .unwrap_or_default()
}

#[test]
fn declared_icon_sizes_match_the_pixels() {
    let catalog = Catalog::embedded();
    let source = catalog.sources().next().unwrap();
    let mut checked = 0;
    for t in source.templates() {
        let text = source.read(&t.slug, "src/manifest.json").unwrap().unwrap();
        let manifest = parse_jsonc(std::str::from_utf8(&text).unwrap()).unwrap();
        let mut icons = sized(manifest.get("icons"));
        assert!(icons.iter().any(|(s, _)| *s == 128), "{}: no 128px icon", t.slug);
        icons.extend(sized(manifest.get("action").and_then(|a| a.get("default_icon"))));
        for (size, path) in icons {
            let bytes = source
                .read(&t.slug, &format!("src/{path}"))
                .unwrap()
                .unwrap_or_else(|| panic!("{}: {path} missing", t.slug));
            assert_eq!(png_size(&bytes), Some((size, size)), "{}: {path}", t.slug);
            checked += 1;
        }
    }
    assert!(checked >= 40, "{checked}");
}
