//! Text edits by span, and where each piece of the result came from. Env injection and the
//! bundler's linker both rewrite scripts this way (everything not edited stays byte for
//! byte), and dev source maps follow a position back through every such step.
//!
//! ```text
//! old:  const a = process.env.X;      edits: [10..23 → "\"v\""]
//! new:  const a = "v";                segments: (0 ← 0, copied) (10 ← 10, inserted) (13 ← 23, copied)
//! ```

use oxc_span::Span;

/// One piece of a spliced text: from byte `out` of the new text on, either copied from byte
/// `src` of the old one (`copied`), or inserted in place of the old text at `src`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub out: u32,
    pub src: u32,
    pub copied: bool,
}

/// A spliced text and its segments (in `out` order).
#[derive(Debug, Clone, Default)]
pub struct Spliced {
    pub text: String,
    pub segments: Vec<Segment>,
}

/// Applies `edits` (sorted here by start) to `text`. An edit that starts inside one already
/// made is dropped: a removed branch takes its nested edits with it.
pub fn splice(text: &str, edits: &mut [(Span, String)]) -> Spliced {
    edits.sort_by_key(|(s, _)| (s.start, s.end));
    let extra: usize = edits.iter().map(|(_, w)| w.len()).sum();
    let mut out = String::with_capacity(text.len() + extra);
    let mut segments = Vec::with_capacity(edits.len() * 2 + 1);
    let mut at = 0usize;
    for (span, with) in edits.iter() {
        let (start, end) = (span.start as usize, span.end as usize);
        if start < at || end > text.len() || start > end {
            continue;
        }
        if start > at {
            segments.push(Segment { out: out.len() as u32, src: at as u32, copied: true });
            out.push_str(&text[at..start]);
        }
        if !with.is_empty() {
            segments.push(Segment { out: out.len() as u32, src: start as u32, copied: false });
            out.push_str(with);
        }
        at = end;
    }
    if at < text.len() || segments.is_empty() {
        segments.push(Segment { out: out.len() as u32, src: at as u32, copied: true });
        out.push_str(&text[at..]);
    }
    Spliced { text: out, segments }
}

/// Where byte `out` of a spliced text came from in the old text: the same character for
/// copied text, the start of what an insertion replaced.
pub fn back(segments: &[Segment], out: u32) -> u32 {
    if segments.is_empty() {
        return out;
    }
    let i = segments.partition_point(|s| s.out <= out).saturating_sub(1);
    let s = segments[i];
    if s.copied { s.src + out.saturating_sub(s.out) } else { s.src }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_follow_the_edits_back() {
        let text = "const a = process.env.X; f(a);";
        let mut edits = vec![(Span::new(10, 23), "\"v\"".to_owned()), (Span::new(25, 26), "(0, m.f)".into())];
        let s = splice(text, &mut edits);
        assert_eq!(s.text, "const a = \"v\"; (0, m.f)(a);");
        // `const` and `a`, the insertion, `;` after it, and `(a)` after the second insertion.
        assert_eq!(back(&s.segments, 6), 6);
        assert_eq!(back(&s.segments, 11), 10);
        assert_eq!(back(&s.segments, 13), 23);
        assert_eq!(back(&s.segments, 15), 25);
        assert_eq!(back(&s.segments, 24), 27);
        // Nested edits inside a removed span go with it; no edits: one copied segment.
        let mut nested = vec![(Span::new(0, 10), String::new()), (Span::new(2, 3), "x".into())];
        assert_eq!(splice("0123456789ab", &mut nested).text, "ab");
        let plain = splice("abc", &mut []);
        assert_eq!((plain.text.as_str(), back(&plain.segments, 2)), ("abc", 2));
    }
}
