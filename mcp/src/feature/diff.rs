//! A unified diff of two texts, for showing a manifest change (`manifestDiff`). Lines the
//! two share at the start and end are set aside first; the rest is compared by longest
//! common subsequence, which is cheap for the few lines an edit touches. A middle too large
//! to compare (a hostile manifest) is shown as removed and added whole.

/// Lines of context around each change.
const CONTEXT: usize = 2;
/// Largest middle (old lines × new lines) compared line by line.
const MAX_CELLS: usize = 4_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Same,
    Removed,
    Added,
}

/// The unified diff of `old` → `new` with `name` in its headers; empty when they are equal.
pub fn unified(name: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..].iter().rev().zip(b[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    let (ma, mb) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);

    // (op, old line index, new line index) for every line of both texts.
    let mut ops: Vec<(Op, usize, usize)> = (0..prefix).map(|i| (Op::Same, i, i)).collect();
    for (op, i, j) in middle(ma, mb) {
        ops.push((op, prefix + i, prefix + j));
    }
    ops.extend((0..suffix).map(|k| (Op::Same, a.len() - suffix + k, b.len() - suffix + k)));

    let mut out = format!("--- a/{name}\n+++ b/{name}\n");
    let changed: Vec<usize> =
        ops.iter().enumerate().filter(|(_, o)| o.0 != Op::Same).map(|(i, _)| i).collect();
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(CONTEXT);
        let mut end = changed[k];
        while k < changed.len() && changed[k] <= end + 2 * CONTEXT + 1 {
            end = changed[k];
            k += 1;
        }
        let end = (end + CONTEXT + 1).min(ops.len());
        let hunk = &ops[start..end];
        let a_count = hunk.iter().filter(|o| o.0 != Op::Added).count();
        let b_count = hunk.iter().filter(|o| o.0 != Op::Removed).count();
        let a_start = hunk.iter().find(|o| o.0 != Op::Added).map_or(0, |o| o.1 + 1);
        let b_start = hunk.iter().find(|o| o.0 != Op::Removed).map_or(0, |o| o.2 + 1);
        out.push_str(&format!("@@ -{a_start},{a_count} +{b_start},{b_count} @@\n"));
        for (op, i, j) in hunk {
            let (mark, line) = match op {
                Op::Same => (' ', a[*i]),
                Op::Removed => ('-', a[*i]),
                Op::Added => ('+', b[*j]),
            };
            out.push(mark);
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The edit script of two line lists: (op, index in `a`, index in `b`), where the index
/// that does not apply is the position the line sits at.
fn middle(a: &[&str], b: &[&str]) -> Vec<(Op, usize, usize)> {
    if a.len().saturating_mul(b.len()) > MAX_CELLS {
        let mut out: Vec<_> = (0..a.len()).map(|i| (Op::Removed, i, 0)).collect();
        out.extend((0..b.len()).map(|j| (Op::Added, a.len(), j)));
        return out;
    }
    // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
    let w = b.len() + 1;
    let mut lcs = vec![0u32; (a.len() + 1) * w];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i * w + j] = if a[i] == b[j] {
                lcs[(i + 1) * w + j + 1] + 1
            } else {
                lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push((Op::Same, i, j));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
            out.push((Op::Removed, i, j));
            i += 1;
        } else {
            out.push((Op::Added, i, j));
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_line_and_an_insertion_make_one_hunk_with_context() {
        let old = "{\n  \"a\": 1,\n  \"b\": 2\n}\n";
        let new = "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}\n";
        assert_eq!(
            unified("m.json", old, new),
            "--- a/m.json\n+++ b/m.json\n@@ -1,4 +1,5 @@\n {\n   \"a\": 1,\n-  \"b\": 2\n+  \"b\": 2,\n+  \"c\": 3\n }\n"
        );
        assert_eq!(unified("m.json", old, old), "");
    }

    #[test]
    fn distant_changes_make_separate_hunks() {
        let old: String = (0..20).map(|i| format!("l{i}\n")).collect();
        let new = old.replace("l2\n", "l2x\n").replace("l17\n", "l17x\n");
        let diff = unified("f", &old, &new);
        assert_eq!(diff.matches("@@ -").count(), 2, "{diff}");
        assert!(diff.contains("-l2\n+l2x\n") && diff.contains("-l17\n+l17x\n"), "{diff}");
    }
}
