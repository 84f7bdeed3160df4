//! Where things are in a parsed `manifest.json`: the line and column of every key and array
//! item, the keys given twice, and the comments and trailing commas that only lenient
//! parsers accept. Recorded by [`super::json::parse_jsonc_spanned`] while parsing, so that a
//! finding about `content_scripts[0].matches[1]` can point at its line.
//!
//! Paths use the findings' dotted form (`a.b[2].c`) with the keys as written in the source,
//! browser prefixes included; [`Spans::locate`] maps a path of a *resolved* manifest back to
//! the source key it came from.

use std::collections::HashMap;

use super::target::Target;

/// A 1-based line and column (the column counts characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    pub line: usize,
    pub column: usize,
}

/// Syntax that `JSON.parse` refuses but the manifest parser accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lenient {
    /// `/* … */`.
    BlockComment,
    /// `//` after something else on its line (Firefox strips it too, like a whole-line one).
    InlineComment,
    /// `//` alone on its line: accepted by Chrome and Firefox alike.
    LineComment,
    TrailingComma,
}

/// Positions recorded while parsing one text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Spans {
    entries: Vec<(String, Pos)>,
    /// Path → index into `entries` (a hostile manifest can have a million keys).
    index: HashMap<String, usize>,
    /// Indexes of the entries with a browser prefix somewhere in their path.
    prefixed: Vec<usize>,
    /// Keys given twice in one object (the path of the key, where the repeat is).
    pub duplicates: Vec<(String, Pos)>,
    pub lenient: Vec<(Lenient, Pos)>,
}

impl Spans {
    /// Where the source path `path` is, exactly as written.
    pub fn get(&self, path: &str) -> Option<Pos> {
        self.index.get(path).and_then(|&i| self.entries.get(i)).map(|(_, pos)| *pos)
    }

    /// Where the value at `path` of the manifest resolved for `target` came from: the exact
    /// source path, else the source path whose browser prefixes apply to `target` (the most
    /// prefixed one wins, as in resolution).
    pub fn locate(&self, path: &str, target: Option<Target>) -> Option<Pos> {
        if let Some(p) = self.get(path) {
            return Some(p);
        }
        let target = target?;
        let wanted: Vec<&str> = path.split('.').collect();
        let mut best: Option<(usize, Pos)> = None;
        for (source, pos) in self.prefixed.iter().filter_map(|&i| self.entries.get(i)) {
            let segments: Vec<&str> = source.split('.').collect();
            if segments.len() != wanted.len() {
                continue;
            }
            let mut prefixed = 0;
            let matches = segments.iter().zip(&wanted).all(|(s, w)| match s.split_once(':') {
                Some((prefix, rest)) if !prefix.contains('[') => {
                    let applies = prefix == target.name || target.family_prefixes().contains(&prefix);
                    prefixed += 1;
                    applies && rest == *w
                }
                _ => s == w,
            });
            if matches && best.is_none_or(|(n, _)| prefixed >= n) {
                best = Some((prefixed, *pos));
            }
        }
        best.map(|(_, p)| p)
    }

    /// Where `path` or, failing that, its nearest recorded parent is.
    pub fn locate_near(&self, path: &str, target: Option<Target>) -> Option<Pos> {
        let mut p = path;
        loop {
            if let Some(pos) = self.locate(p, target) {
                return Some(pos);
            }
            let cut = p.rfind(['.', '['])?;
            p = &p[..cut];
        }
    }
}

/// Collects byte offsets during a parse; [`Recorder::finish`] turns them into positions.
#[derive(Debug, Default)]
pub(super) struct Recorder {
    /// The path segments down to the value being parsed (`a`, `.b`, `[2]`).
    stack: Vec<String>,
    entries: Vec<(String, usize)>,
    duplicates: Vec<(String, usize)>,
    lenient: Vec<(Lenient, usize)>,
}

impl Recorder {
    fn child(&self, segment: String) -> String {
        let mut path: String = self.stack.concat();
        path.push_str(&segment);
        path
    }

    /// Entering the value of `key` (whose opening quote is at `offset`).
    pub(super) fn enter_key(&mut self, key: &str, offset: usize, duplicate: bool) {
        let segment = if self.stack.is_empty() { key.to_owned() } else { format!(".{key}") };
        let path = self.child(segment.clone());
        if duplicate {
            self.duplicates.push((path.clone(), offset));
        } else {
            self.entries.push((path, offset));
        }
        self.stack.push(segment);
    }

    /// Entering item `index` of an array (the item starts at `offset`).
    pub(super) fn enter_index(&mut self, index: usize, offset: usize) {
        let segment = format!("[{index}]");
        let path = self.child(segment.clone());
        self.entries.push((path, offset));
        self.stack.push(segment);
    }

    pub(super) fn leave(&mut self) {
        self.stack.pop();
    }

    pub(super) fn lenient(&mut self, kind: Lenient, offset: usize) {
        self.lenient.push((kind, offset));
    }

    pub(super) fn finish(self, text: &str) -> Spans {
        // One sweep over the text in offset order: a hostile one-line manifest with a
        // million keys must not cost a column count from the line start per key.
        let mut offsets: Vec<usize> = self
            .entries
            .iter()
            .map(|(_, o)| *o)
            .chain(self.duplicates.iter().map(|(_, o)| *o))
            .chain(self.lenient.iter().map(|(_, o)| *o))
            .collect();
        offsets.sort_unstable();
        offsets.dedup();
        let mut at: HashMap<usize, Pos> = HashMap::with_capacity(offsets.len());
        let (mut line, mut column, mut done) = (1, 1, 0);
        for offset in offsets {
            for c in text.get(done..offset).unwrap_or("").chars() {
                if c == '\n' {
                    line += 1;
                    column = 1;
                } else {
                    column += 1;
                }
            }
            done = offset.max(done);
            at.insert(offset, Pos { line, column });
        }
        let pos = |o: usize| at.get(&o).copied().unwrap_or(Pos { line: 1, column: 1 });
        let entries: Vec<(String, Pos)> = self.entries.into_iter().map(|(p, o)| (p, pos(o))).collect();
        let mut index = HashMap::with_capacity(entries.len());
        for (i, (p, _)) in entries.iter().enumerate() {
            index.entry(p.clone()).or_insert(i);
        }
        let prefixed =
            entries.iter().enumerate().filter(|(_, (p, _))| p.contains(':')).map(|(i, _)| i).collect();
        Spans {
            entries,
            index,
            prefixed,
            duplicates: self.duplicates.into_iter().map(|(p, o)| (p, pos(o))).collect(),
            lenient: self.lenient.into_iter().map(|(k, o)| (k, pos(o))).collect(),
        }
    }
}
