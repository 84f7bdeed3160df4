//! Glob matching for `web_accessible_resources` patterns and `.gitignore` rules, and the
//! `.gitignore` rule set used by the source zip. Paths are `/`-separated and relative.

/// Whether `pattern` matches the whole of `path`. `*` and `?` stay within one path segment,
/// `**` crosses segments, `[abc]`/`[a-z]`/`[!x]` are classes, `\` escapes.
pub fn glob_match(pattern: &str, path: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let s: Vec<char> = path.chars().collect();
    match_from(&p, &s)
}

fn match_from(p: &[char], s: &[char]) -> bool {
    let (mut pi, mut si) = (0, 0);
    // Backtracking points for the last `*` (single segment) seen.
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if pi < p.len() {
            match p[pi] {
                '*' if p.get(pi + 1) == Some(&'*') => {
                    // `**`: try every suffix, including across `/`.
                    let mut rest = pi + 2;
                    if p.get(rest) == Some(&'/') {
                        rest += 1;
                        // `**/x` also matches `x` at this level.
                        if match_from(&p[rest..], &s[si..]) {
                            return true;
                        }
                    }
                    return (si..=s.len()).any(|k| match_from(&p[rest..], &s[k..]));
                }
                '*' => {
                    star = Some((pi, si));
                    pi += 1;
                    continue;
                }
                '?' if s[si] != '/' => {
                    pi += 1;
                    si += 1;
                    continue;
                }
                '[' => {
                    if let Some((matched, next)) = class(p, pi, s[si])
                        && matched
                        && s[si] != '/'
                    {
                        pi = next;
                        si += 1;
                        continue;
                    }
                }
                '\\' if pi + 1 < p.len() && p[pi + 1] == s[si] => {
                    pi += 2;
                    si += 1;
                    continue;
                }
                c if c == s[si] && c != '\\' => {
                    pi += 1;
                    si += 1;
                    continue;
                }
                _ => {}
            }
        }
        // Mismatch: let the last `*` swallow one more character (never a `/`).
        match star {
            Some((sp, ss)) if s[ss] != '/' => {
                star = Some((sp, ss + 1));
                pi = sp + 1;
                si = ss + 1;
            }
            _ => return false,
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

/// Matches `c` against the class starting at `p[start] == '['`. Returns (matched, index after `]`).
fn class(p: &[char], start: usize, c: char) -> Option<(bool, usize)> {
    let mut i = start + 1;
    let negate = matches!(p.get(i), Some('!' | '^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    while i < p.len() {
        if p[i] == ']' && !first {
            return Some((matched != negate, i + 1));
        }
        first = false;
        let lo = p[i];
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|&h| h != ']') {
            let hi = p[i + 2];
            if lo <= c && c <= hi {
                matched = true;
            }
            i += 3;
        } else {
            if lo == c {
                matched = true;
            }
            i += 1;
        }
    }
    None
}

pub fn has_glob_chars(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// One `.gitignore` file's rules, for paths relative to the folder holding it.
#[derive(Debug, Clone, Default)]
pub struct Gitignore {
    rules: Vec<Rule>,
}

#[derive(Debug, Clone)]
struct Rule {
    pattern: String,
    negate: bool,
    dir_only: bool,
    /// Contains a `/` before its end: matched against the whole relative path.
    anchored: bool,
}

impl Gitignore {
    pub fn parse(text: &str) -> Gitignore {
        let mut rules = Vec::new();
        for line in text.lines() {
            let mut line = line.trim_end_matches('\r');
            // Trailing spaces are ignored unless escaped.
            while line.ends_with(' ') && !line.ends_with("\\ ") {
                line = &line[..line.len() - 1];
            }
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (negate, rest) = match line.strip_prefix('!') {
                Some(r) => (true, r),
                None => {
                    (false, line.strip_prefix("\\").filter(|r| r.starts_with(['#', '!'])).unwrap_or(line))
                }
            };
            let dir_only = rest.ends_with('/');
            let rest = rest.trim_end_matches('/');
            if rest.is_empty() {
                continue;
            }
            let anchored = rest.contains('/');
            let pattern = rest.trim_start_matches('/').to_owned();
            rules.push(Rule { pattern, negate, dir_only, anchored });
        }
        Gitignore { rules }
    }

    /// `Some(true)` ignored, `Some(false)` explicitly re-included, `None` no rule matched.
    pub fn matched(&self, rel: &str, is_dir: bool) -> Option<bool> {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        let mut verdict = None;
        for r in &self.rules {
            if r.dir_only && !is_dir {
                continue;
            }
            let hit = if r.anchored { glob_match(&r.pattern, rel) } else { glob_match(&r.pattern, name) };
            if hit {
                verdict = Some(!r.negate);
            }
        }
        verdict
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_table() {
        let cases: &[(&str, &str, bool)] = &[
            ("*.png", "a.png", true),
            ("*.png", "img/a.png", false),
            ("img/*.png", "img/a.png", true),
            ("img/*", "img/sub/a.png", false),
            ("img/**", "img/sub/a.png", true),
            ("**/*.png", "a.png", true),
            ("**/*.png", "x/y/a.png", true),
            ("a/**/b", "a/b", true),
            ("a/**/b", "a/x/y/b", true),
            ("?.js", "a.js", true),
            ("?.js", "ab.js", false),
            ("[ab].js", "b.js", true),
            ("[!ab].js", "c.js", true),
            ("[a-c]x", "bx", true),
            ("[a-c]x", "dx", false),
            ("*", "anything", true),
            ("*", "dir/file", false),
            ("a*b*c", "aXbYc", true),
            ("a*b*c", "aXbY", false),
            ("\\*.js", "*.js", true),
            ("\\*.js", "a.js", false),
        ];
        for (p, s, want) in cases {
            assert_eq!(glob_match(p, s), *want, "{p} vs {s}");
        }
    }

    #[test]
    fn gitignore_table() {
        let g = Gitignore::parse("# c\n*.log\n/build\nsecret/\n!keep.log\ndocs/*.md\n\\#hash\n");
        let cases: &[(&str, bool, Option<bool>)] = &[
            ("a.log", false, Some(true)),
            ("deep/a.log", false, Some(true)),
            ("keep.log", false, Some(false)),
            ("build", true, Some(true)),
            ("src/build", true, None),
            ("secret", true, Some(true)),
            ("secret", false, None),
            ("x/secret", true, Some(true)),
            ("docs/a.md", false, Some(true)),
            ("docs/sub/a.md", false, None),
            ("#hash", false, Some(true)),
            ("main.js", false, None),
        ];
        for (path, dir, want) in cases {
            assert_eq!(g.matched(path, *dir), *want, "{path}");
        }
    }
}
