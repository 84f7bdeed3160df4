//! Errors in bundled dev output named by the module the author wrote: the native bundler
//! writes `<bundle>.map` beside each bundle of a dev build (`build/bundle/map.rs`), and an
//! exception at `content.js:212:9` becomes `src/lib/deep.ts:3:9` — in the session's error
//! entries and in the stack frames of their messages. Outputs without a map (copied files,
//! delegated builds) keep the position the browser gave.

use std::collections::HashMap;
use std::path::PathBuf;

use oxc_sourcemap::SourceMap;

/// Largest map read (a dev map of a React popup is a few MB).
const MAX_MAP_BYTES: u64 = 64 * 1024 * 1024;

/// The maps of one build's output folder, read when first needed.
#[derive(Default)]
pub struct Maps {
    dist: PathBuf,
    loaded: HashMap<String, Option<SourceMap<'static>>>,
}

impl Maps {
    pub fn new(dist: PathBuf) -> Maps {
        Maps { dist, loaded: HashMap::new() }
    }

    /// Where 1-based `line`:`column` of the output file `rel` came from: the project-relative
    /// file (absolute when outside the project) and its 1-based line and column.
    pub fn locate(&mut self, rel: &str, line: u32, column: u32) -> Option<(String, u32, u32)> {
        let dist = &self.dist;
        let map = self.loaded.entry(rel.to_owned()).or_insert_with(|| read(dist, rel)).as_ref()?;
        let table = map.generate_lookup_table();
        // Before the line's first token (an indented line's column 1): that token.
        let token = map.lookup_token_approx(&table, line.checked_sub(1)?, column.saturating_sub(1))?;
        let source = map.get_source(token.get_source_id()?)?;
        Some((resolve(rel, source), token.get_src_line() + 1, token.get_src_col() + 1))
    }

    /// `text` (an error message with its stack) with every `<base><rel>:<line>:<column>` of
    /// a mapped output replaced by the module's `file:line:column`.
    pub fn rewrite_stack(&mut self, text: &str, base: &str) -> String {
        if base.is_empty() || !text.contains(base) {
            return text.to_owned();
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(i) = rest.find(base) {
            out.push_str(&rest[..i]);
            let after = &rest[i + base.len()..];
            let end = after.find(|c: char| c.is_whitespace() || c == ')').unwrap_or(after.len());
            let frame = &after[..end];
            match parse_frame(frame).and_then(|(rel, l, c)| self.locate(rel, l, c)) {
                Some((file, l, c)) => out.push_str(&format!("{file}:{l}:{c}")),
                None => out.push_str(&rest[i..i + base.len() + end]),
            }
            rest = &after[end..];
        }
        out.push_str(rest);
        out
    }
}

fn read(dist: &std::path::Path, rel: &str) -> Option<SourceMap<'static>> {
    // Only our own output's maps, never a path out of it.
    if rel.split('/').any(|c| c == ".." || c.is_empty()) {
        return None;
    }
    let path = dist.join(format!("{rel}.map"));
    if std::fs::metadata(&path).ok()?.len() > MAX_MAP_BYTES {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    SourceMap::from_json_string(&text).ok().map(SourceMap::into_owned)
}

/// `rel:line:column` (the path may hold `:` only before the last two).
fn parse_frame(frame: &str) -> Option<(&str, u32, u32)> {
    let (rest, column) = frame.rsplit_once(':')?;
    let (rel, line) = rest.rsplit_once(':')?;
    let rel = rel.split(['?', '#']).next().unwrap_or(rel);
    Some((rel, line.parse().ok()?, column.parse().ok()?))
}

/// A map's `sources` entry, relative to the map at `rel`, as a project-relative path.
fn resolve(rel: &str, source: &str) -> String {
    if let Some(abs) = source.strip_prefix("file://") {
        return abs.to_owned();
    }
    let mut parts: Vec<&str> = rel.split('/').collect();
    parts.pop();
    for c in source.split('/') {
        match c {
            ".." => {
                parts.pop();
            }
            "." | "" => {}
            c => parts.push(c),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_and_sources() {
        assert_eq!(parse_frame("content.js:12:5"), Some(("content.js", 12, 5)));
        assert_eq!(parse_frame("popup/index.js?x=1:3:1"), Some(("popup/index.js", 3, 1)));
        assert_eq!(parse_frame("content.js"), None);
        assert_eq!(resolve("popup/index.js", "../src/a.ts"), "src/a.ts");
        assert_eq!(resolve("content.js", "lib/deep/x.js"), "lib/deep/x.js");
        assert_eq!(resolve("a.js", "file:///abs/x.js"), "/abs/x.js");
    }

    /// A map written by the bundler's map module, read back: the bundle's position leads to
    /// the module's, in the location and in the stack text; unmapped outputs keep theirs.
    #[test]
    fn bundle_positions_lead_to_the_module() {
        let dir = tempfile::tempdir().unwrap();
        let tokens = [[0, 0, 0, 0], [1, 2, 2, 4]];
        let part = crate::build::bundle::map::Part {
            start_line: 10,
            source: "lib/deep.js",
            content: "a\nb\n    throw e;\n",
            tokens: &tokens,
        };
        let json = crate::build::bundle::map::bundle_map("content.js", &[part]);
        std::fs::write(dir.path().join("content.js.map"), json).unwrap();
        let mut maps = Maps::new(dir.path().to_path_buf());
        // Bundle line 12 (1-based), column 3 → the module's line 3, column 5.
        assert_eq!(maps.locate("content.js", 12, 3), Some(("lib/deep.js".into(), 3, 5)));
        assert_eq!(maps.locate("plain.js", 1, 1), None);
        assert_eq!(maps.locate("../etc/passwd", 1, 1), None);
        let base = "chrome-extension://abc/";
        let text = "Error: boom\n    at f (chrome-extension://abc/content.js:12:3)\n    at chrome-extension://abc/plain.js:4:1";
        assert_eq!(
            maps.rewrite_stack(text, base),
            "Error: boom\n    at f (lib/deep.js:3:5)\n    at chrome-extension://abc/plain.js:4:1"
        );
    }
}
