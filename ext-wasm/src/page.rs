//! Paging over a rendering: a cursor is a UTF-8 byte offset into the snapshot text.
//!
//! A page ends right after the last `\n` that fits in `max_bytes`; when not even one line
//! fits, the line is cut at the last char boundary that fits (at least one char, so every
//! call makes progress). Concatenating the pages gives the text back exactly.

use crate::error::EngineError;

/// One page of `text` from `offset`: the chunk and the offset of the next page (`None` at
/// the end).
pub fn page(text: &str, offset: usize, max_bytes: usize) -> Result<(&str, Option<usize>), EngineError> {
    if offset > text.len() || !text.is_char_boundary(offset) {
        return Err(EngineError::InvalidArgument(format!(
            "offset {offset} is not a position in this snapshot's text ({} bytes); use the nextOffset of the previous page",
            text.len()
        )));
    }
    if max_bytes == 0 {
        return Err(EngineError::InvalidArgument("maxBytes must be at least 1".into()));
    }
    let rest = &text[offset..];
    if rest.len() <= max_bytes {
        return Ok((rest, None));
    }
    let window = &rest.as_bytes()[..max_bytes];
    let len = match window.iter().rposition(|&b| b == b'\n') {
        Some(nl) => nl + 1,
        None => {
            let cut = crate::text::truncate_bytes(rest, max_bytes).0.len();
            if cut == 0 { rest.chars().next().map_or(rest.len(), char::len_utf8) } else { cut }
        }
    };
    let end = offset + len;
    Ok((&text[offset..end], (end < text.len()).then_some(end)))
}

/// read_page's pages: like [`page`], but a page that would stop inside a chapter ends just
/// before the last chapter heading (`# `, an `h1`) that starts in its second half, so the next
/// page opens with it (a book on one page reads chapter by chapter). Deeper headings do not
/// cut: the first page of a long document keeps as much as it can (a docs page's first
/// methods). Concatenating the pages still gives the text back exactly.
pub fn page_by_sections(
    text: &str,
    offset: usize,
    max_bytes: usize,
) -> Result<(&str, Option<usize>), EngineError> {
    let (chunk, next) = page(text, offset, max_bytes)?;
    if next.is_none() {
        return Ok((chunk, next));
    }
    let bytes = chunk.as_bytes();
    let chapter = |at: usize| bytes[at - 1] == b'\n' && bytes[at..].starts_with(b"# ");
    match (chunk.len() / 2 + 1..chunk.len()).rev().find(|&at| chapter(at)) {
        Some(cut) => Ok((&chunk[..cut], Some(offset + cut))),
        None => Ok((chunk, next)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_pages(text: &str, max: usize) -> Vec<&str> {
        let mut out = Vec::new();
        let mut off = Some(0);
        while let Some(o) = off {
            let (chunk, next) = page(text, o, max).unwrap();
            assert!(!chunk.is_empty() || text.is_empty());
            out.push(chunk);
            off = next;
        }
        out
    }

    #[test]
    fn pages_end_at_line_boundaries() {
        let text = "aaa\nbbb\nccc\n";
        assert_eq!(all_pages(text, 9), vec!["aaa\nbbb\n", "ccc\n"]);
        assert_eq!(all_pages(text, 4), vec!["aaa\n", "bbb\n", "ccc\n"]);
        assert_eq!(all_pages(text, 100), vec![text]);
    }

    #[test]
    fn long_line_is_cut_at_a_char_boundary() {
        let text = "ééééé\nx\n";
        let pages = all_pages(text, 3);
        assert_eq!(pages[0], "é");
        assert_eq!(pages.concat(), text);
        // maxBytes smaller than one char still makes progress
        assert_eq!(all_pages("日本", 1), vec!["日", "本"]);
    }

    #[test]
    fn bad_offsets() {
        assert_eq!(page("abc", 3, 10).unwrap(), ("", None));
        assert!(matches!(page("abc", 4, 10), Err(EngineError::InvalidArgument(_))));
        assert!(matches!(page("é", 1, 10), Err(EngineError::InvalidArgument(_))));
        assert!(matches!(page("abc", 0, 0), Err(EngineError::InvalidArgument(_))));
    }

    /// A tiny deterministic generator (xorshift) so the property test needs no dependency.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> usize {
            (self.next() % n) as usize
        }
    }

    #[test]
    fn concatenation_gives_the_text_back() {
        let alphabet = ['a', 'b', ' ', '\n', 'é', '日', '😀', '"'];
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for _ in 0..500 {
            let len = rng.below(300);
            let text: String = (0..len).map(|_| alphabet[rng.below(alphabet.len() as u64)]).collect();
            let max = 1 + rng.below(40);
            let pages = all_pages(&text, max);
            assert_eq!(pages.concat(), text, "max {max}");
            for (k, p) in pages.iter().enumerate() {
                assert!(p.len() <= max.max(4), "page over budget");
                if k + 1 < pages.len() && p.len() < max && p.contains('\n') {
                    assert!(p.ends_with('\n'), "a page with a newline ends after one");
                }
            }
        }
    }

    #[test]
    fn read_pages_open_with_their_chapter_heading() {
        let text = "# Book\nintro\n# One\naaaa\n## deep\nbbbb\n# Two\ncccc dddd\n";
        let mut pages = Vec::new();
        let mut off = Some(0);
        while let Some(o) = off {
            let (chunk, next) = page_by_sections(text, o, 26).unwrap();
            pages.push(chunk);
            off = next;
        }
        assert_eq!(pages, ["# Book\nintro\n", "# One\naaaa\n## deep\nbbbb\n", "# Two\ncccc dddd\n"]);
        assert_eq!(pages.concat(), text);
        // Only chapters cut: a section heading in the second half does not.
        let text = format!("{}\n## A\nbb\n{}\n", "a".repeat(20), "e".repeat(30));
        assert_eq!(page_by_sections(&text, 0, 40).unwrap().0, format!("{}\n## A\nbb\n", "a".repeat(20)));
        // No chapter in the second half: the plain line cut.
        assert_eq!(page_by_sections("# A\nxxxxxxxxxx\nyyyyyyyyyy\n", 0, 20).unwrap().0, "# A\nxxxxxxxxxx\n");
        // A `#` line that is no heading (`#[derive]`) does not count.
        assert_eq!(
            page_by_sections("aaaaaaaaaa\n#[x]\nbbbbbbbbbb\n", 0, 22).unwrap().0,
            "aaaaaaaaaa\n#[x]\n"
        );
    }
}
