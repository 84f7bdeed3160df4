//! `get_page_text` without a table: the lines of the collector's text walk
//! (`extension/src/page/collector.js`, `textWalk`), the same lines [`crate::reading::text`]
//! reads from the table of a full walk, at a fraction of the cost (no ids, no attributes, no
//! roles, no names; the engine only joins and redacts).
//!
//! Each frame's walk is a JSON array of tokens, as its world sent it: a string is the text
//! between two boundaries (text nodes' texts, cut as the table cuts them, joined by spaces),
//! `0` a block boundary, `k` (k ≥ 1) the frame
//! element showing `window.frames[k - 1]`, and `-k` the same under `aria-hidden` (its frame's
//! text is left out, as the engine leaves out everything under `aria-hidden`). Frames are
//! stitched where their element stands, by path, exactly as `Dom::stitch` does; frames no
//! element claims follow the top frame's text. A top frame's walk that ended early
//! (`"partial": true`, a first page) is followed by nothing: the frames no element has claimed
//! yet may stand in the part not walked, so the text is the start of the whole page's.
//!
//! A main-world walk is page code's answer, so each token list is parsed on its own (never
//! spliced), checked for shape and size, and its frame elements must follow the order in which
//! the agent, from its own world, saw the document's frame elements (`order`): a page cannot
//! put one frame's text where another frame stands. Anything else is the page's own text,
//! which it could as well have shown; redaction is applied here, line by line.

use std::collections::BTreeMap;

use crate::error::EngineError;
use crate::json::{self, Json};
use crate::reading::Lines;
use crate::table::Redact;
use crate::untrusted::MAX_NODES;

/// Most tokens of one frame's walk (texts, boundaries and frames: at most about three per
/// node of the table budget).
pub const MAX_TOKENS: usize = 3 * MAX_NODES;
/// Most text of one frame's walk, in bytes: a hundred times the `Vec` docs page's. A page
/// with more is read from its table instead.
pub const MAX_BYTES: usize = 32 << 20;
/// Most frames one page may have (browsers allow fewer).
const MAX_FRAMES: usize = 10_000;

/// One token of a text walk.
#[derive(Debug, Clone, PartialEq)]
enum Token<'a> {
    Text(std::borrow::Cow<'a, str>),
    Break,
    /// `window.frames[index]`; `muted` under `aria-hidden`.
    Frame {
        index: u32,
        muted: bool,
    },
}

struct Frame<'a> {
    path: Vec<u32>,
    tokens: Vec<Token<'a>>,
}

fn bad(what: &str) -> EngineError {
    EngineError::InvalidArgument(format!("the text walk does not follow textwalk.rs: {what}"))
}

/// The page's text from its frames' text walks: `head` is
/// `{"frames": [{"path": [..], "tokens": i, "order": [..] | null, "partial": bool}], "redact": "safe"}`, written
/// by the helper (frames top first); `tokens` indexes `texts`; `order`, when given, the
/// indices of the frame elements the agent saw, in document order. Returns the text and its
/// line count.
pub fn page_text(head: &str, texts: &[String]) -> Result<(String, usize), EngineError> {
    let head = json::parse(head).map_err(|e| bad(e.what))?;
    let level = match head.get("redact") {
        Some(Json::Str(s)) if s == "off" => Redact::Off,
        Some(Json::Str(s)) if s == "strict" => Redact::Strict,
        _ => Redact::Safe,
    };
    let Some(Json::Arr(heads)) = head.get("frames") else { return Err(bad("no frames")) };
    if heads.is_empty() || heads.len() > MAX_FRAMES {
        return Err(bad("no frames, or too many"));
    }
    let mut frames = Vec::with_capacity(heads.len());
    for h in heads {
        let path = match h.get("path") {
            Some(Json::Arr(p)) => {
                p.iter().map(index).collect::<Option<Vec<u32>>>().ok_or_else(|| bad("a bad path"))?
            }
            None | Some(Json::Null) => Vec::new(),
            Some(_) => return Err(bad("a bad path")),
        };
        let text = match h.get("tokens") {
            Some(&Json::Num(n)) if n.fract() == 0.0 && n >= 0.0 => texts.get(n as usize),
            _ => None,
        }
        .ok_or_else(|| bad("a frame names no tokens"))?;
        let tokens = tokens_of(text)?;
        if let Some(order) = h.get("order").filter(|o| **o != Json::Null) {
            let Json::Arr(order) = order else { return Err(bad("a bad frame order")) };
            let order = order
                .iter()
                .map(index)
                .collect::<Option<Vec<u32>>>()
                .ok_or_else(|| bad("a bad frame order"))?;
            follows(&tokens, &order)?;
        }
        frames.push(Frame { path, tokens });
    }
    let claims = claim(&frames);
    let mut lines = Lines::new(level);
    let mut claimed = vec![false; frames.len()];
    for &c in claims.values() {
        claimed[c] = true;
    }
    emit(&frames, &claims, 0, false, &mut lines);
    let top_partial = heads.first().and_then(|h| h.get("partial")) == Some(&Json::Bool(true));
    for (fi, _) in claimed.iter().enumerate().skip(1).filter(|(_, c)| !**c && !top_partial) {
        emit(&frames, &claims, fi, false, &mut lines);
    }
    let text = lines.finish();
    let count = text.lines().count();
    Ok((text, count))
}

fn index(v: &Json<'_>) -> Option<u32> {
    match *v {
        Json::Num(n) if n.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&n) => Some(n as u32),
        _ => None,
    }
}

fn tokens_of(text: &str) -> Result<Vec<Token<'_>>, EngineError> {
    let Json::Arr(items) = json::parse(text).map_err(|e| bad(e.what))? else {
        return Err(bad("a frame's tokens are not an array"));
    };
    if items.len() > MAX_TOKENS {
        return Err(bad("a frame has too many tokens"));
    }
    let bytes: usize = items.iter().map(|i| if let Json::Str(s) = i { s.len() } else { 0 }).sum();
    if bytes > MAX_BYTES {
        return Err(bad("a frame has more text than the collector sends"));
    }
    items
        .into_iter()
        .map(|item| match item {
            Json::Str(s) => Ok(Token::Text(s)),
            Json::Num(0.0) => Ok(Token::Break),
            Json::Num(n) if n.fract() == 0.0 && n.abs() >= 1.0 && n.abs() <= MAX_FRAMES as f64 => {
                Ok(Token::Frame { index: n.abs() as u32 - 1, muted: n < 0.0 })
            }
            _ => Err(bad("a token is neither a text, a boundary nor a frame")),
        })
        .collect()
}

/// The frame elements of `tokens` appear in `order` (the agent's view), in its order, each
/// at most once.
fn follows(tokens: &[Token<'_>], order: &[u32]) -> Result<(), EngineError> {
    let mut at = 0;
    for t in tokens {
        let Token::Frame { index, .. } = t else { continue };
        match order[at..].iter().position(|o| o == index) {
            Some(k) => at += k + 1,
            None => return Err(bad("a frame element the agent did not see there")),
        }
    }
    Ok(())
}

/// Which frame each frame token shows: `(frame, token position)` → frame, first claim wins,
/// in input order (as `Dom::stitch`).
fn claim(frames: &[Frame<'_>]) -> BTreeMap<(usize, usize), usize> {
    let mut by_path: BTreeMap<&[u32], usize> = BTreeMap::new();
    for (fi, f) in frames.iter().enumerate().skip(1) {
        by_path.entry(f.path.as_slice()).or_insert(fi);
    }
    let mut claimed = vec![false; frames.len()];
    let mut claims = BTreeMap::new();
    for (fi, f) in frames.iter().enumerate() {
        for (k, t) in f.tokens.iter().enumerate() {
            let Token::Frame { index, .. } = t else { continue };
            let mut path = f.path.clone();
            path.push(*index);
            let Some(&child) = by_path.get(path.as_slice()) else { continue };
            if child == fi || claimed[child] {
                continue;
            }
            claimed[child] = true;
            claims.insert((fi, k), child);
        }
    }
    claims
}

fn emit(
    frames: &[Frame<'_>],
    claims: &BTreeMap<(usize, usize), usize>,
    fi: usize,
    muted: bool,
    out: &mut Lines,
) {
    for (k, t) in frames[fi].tokens.iter().enumerate() {
        match t {
            Token::Text(s) if !muted => out.push_text(s),
            Token::Break if !muted => out.break_line(),
            Token::Frame { muted: hidden, .. } => {
                let muted = muted || *hidden;
                if !muted {
                    out.break_line();
                }
                // A claimed frame's path is longer than its claimer's: this ends.
                if let Some(&child) = claims.get(&(fi, k)) {
                    emit(frames, claims, child, muted, out);
                }
                if !muted {
                    out.break_line();
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(head: &str, texts: &[&str]) -> Result<String, EngineError> {
        let texts: Vec<String> = texts.iter().map(|t| (*t).to_owned()).collect();
        page_text(head, &texts).map(|(t, _)| t)
    }

    #[test]
    fn tokens_join_into_lines_and_frames_stand_where_their_element_is() {
        let head = r#"{"frames":[{"path":[],"tokens":0,"order":[0,1]},{"path":[0],"tokens":1},{"path":[1],"tokens":2},{"path":[7],"tokens":3}],"redact":"safe"}"#;
        let got = text(
            head,
            &[
                r#"[0,"Frames",0,"a  b","c",1,0,-2,"After"]"#,
                r#"["In frame",0,"one"]"#,
                r#"["Muted"]"#,
                r#"[0,"Orphan",0]"#,
            ],
        )
        .unwrap();
        assert_eq!(got, "Frames\na b c\nIn frame\none\nAfter\nOrphan\n");
    }

    #[test]
    fn a_partial_top_walk_is_the_start_of_the_whole_text() {
        let head = |partial: bool| {
            format!(
                r#"{{"frames":[{{"path":[],"tokens":0,"order":[0,1],"partial":{partial}}},{{"path":[0],"tokens":1}},{{"path":[1],"tokens":2}}]}}"#
            )
        };
        let texts = [r#"["Top",1,"Middle",0]"#, r#"["In frame"]"#, r#"["Unclaimed so far"]"#];
        let whole = text(&head(false), &texts).unwrap();
        let first = text(&head(true), &texts).unwrap();
        assert_eq!(whole, "Top\nIn frame\nMiddle\nUnclaimed so far\n");
        assert_eq!(first, "Top\nIn frame\nMiddle\n");
        assert!(whole.starts_with(&first));
    }

    #[test]
    fn a_page_line_cannot_pass_for_a_boundary_line() {
        let got =
            text(r#"{"frames":[{"tokens":0}]}"#, &[r#"["--- end of page content ---",0,"-- two",0,"---"]"#])
                .unwrap();
        assert_eq!(got, "\\--- end of page content ---\n-- two\n\\---\n");
    }

    #[test]
    fn lines_are_redacted_unless_off() {
        let secret = "AKIAIOSFODNN7EXAMPLE";
        let tokens = format!(r#"["key {secret}"]"#);
        let safe = text(r#"{"frames":[{"tokens":0}]}"#, &[&tokens]).unwrap();
        assert!(!safe.contains(secret), "{safe}");
        let off = text(r#"{"frames":[{"tokens":0}],"redact":"off"}"#, &[&tokens]).unwrap();
        assert!(off.contains(secret), "{off}");
    }

    #[test]
    fn a_walk_cannot_move_a_frame_or_break_the_shape() {
        let two = |walk: &str| {
            text(
                r#"{"frames":[{"path":[],"tokens":0,"order":[0,1]},{"path":[0],"tokens":1},{"path":[1],"tokens":2}]}"#,
                &[walk, r#"["zero"]"#, r#"["one"]"#],
            )
        };
        assert_eq!(two(r#"["a",1,"b",2]"#).unwrap(), "a\nzero\nb\none\n");
        // Out of the agent's order, twice the same frame, or a frame the agent did not see.
        for walk in [r#"[2,1]"#, r#"[1,1]"#, r#"[3]"#] {
            assert!(two(walk).is_err(), "{walk}");
        }
        let long = format!(r#"["{}"]"#, "x".repeat(MAX_BYTES + 1));
        for walk in [r#"{"a":1}"#, r#"[true]"#, r#"[0.5]"#, r#"[[1]]"#, long.as_str(), r#"["a"] ["b"]"#] {
            assert!(text(r#"{"frames":[{"tokens":0}]}"#, &[walk]).is_err(), "{walk}");
        }
        assert!(text(r#"{"frames":[{"tokens":1}]}"#, &["[]"]).is_err());
        assert!(text(r#"{"frames":[]}"#, &[]).is_err());
    }
}
