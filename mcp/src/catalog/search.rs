//! Filtering and ranking templates. Pure functions over [`Template`]s.
//!
//! Ranking answers "which starting point fits this request": every query token scores the
//! best field it appears in (slug and title and the AI intent fields weigh most, descriptions
//! least), a run of two or more query tokens found together in a strong field adds a phrase
//! bonus, and a slug the query covers completely gets a bonus (so "toolbar popup" prefers
//! `action` over `action-locales`). Ties go to featured templates, then shorter slugs.

use super::Template;
use crate::text::edit_distance;

/// What `extension_list_templates` filters on. Empty fields do not filter.
#[derive(Debug, Clone, Default)]
pub struct Filters {
    pub surface: Option<String>,
    /// `Some("")` means plain JavaScript (no framework).
    pub framework: Option<String>,
    pub tags: Vec<String>,
    pub featured: Option<bool>,
    pub query: Option<String>,
}

/// The surfaces a filter may name (with `popup`, `sidepanel`, `new-tab` and `content-script`
/// accepted as spellings of them).
pub const SURFACES: [&str; 7] =
    ["action", "background", "content", "devtools", "newtab", "options", "sidebar"];

/// The canonical surface for a user's spelling, or `None` when unknown.
pub fn canonical_surface(name: &str) -> Option<&'static str> {
    let n = name.trim().to_ascii_lowercase().replace(['_', ' '], "-");
    let canonical = match n.as_str() {
        "popup" | "toolbar" | "browser-action" => "action",
        "content-script" | "content-scripts" => "content",
        "side-panel" | "sidepanel" | "sidebar-action" => "sidebar",
        "new-tab" => "newtab",
        "options-page" | "settings" => "options",
        "service-worker" => "background",
        other => return SURFACES.iter().copied().find(|s| *s == other),
    };
    Some(canonical)
}

/// The framework filter's value: `vanilla`, `none`, `javascript` and `""` all mean none.
pub fn canonical_framework(name: &str) -> String {
    let n = name.trim().to_ascii_lowercase();
    match n.as_str() {
        "vanilla" | "none" | "javascript" | "js" | "plain" => String::new(),
        _ => n,
    }
}

/// Templates passing the filters, best first (by query score when there is a query, else in
/// catalog order). With a query, templates that match nothing are left out.
pub fn search<'a>(templates: impl Iterator<Item = &'a Template>, filters: &Filters) -> Vec<&'a Template> {
    let surface = filters.surface.as_deref().and_then(canonical_surface);
    let framework = filters.framework.as_deref().map(canonical_framework);
    let tags: Vec<String> = filters.tags.iter().map(|t| t.trim().to_ascii_lowercase()).collect();
    let query = filters.query.as_deref().map(Query::new).filter(|q| !q.tokens.is_empty());
    let templates: Vec<&Template> = templates.collect();
    let indexed: Vec<Vec<Field>> =
        if query.is_some() { templates.iter().map(|t| fields(t)).collect() } else { Vec::new() };
    let idf = query.as_ref().map(|q| Idf::new(q, &indexed)).unwrap_or_default();
    let mut scored: Vec<(f64, usize, &Template)> = templates
        .into_iter()
        .enumerate()
        .filter(|(_, t)| surface.is_none_or(|s| t.surfaces.iter().any(|x| x == s)))
        .filter(|(_, t)| framework.as_deref().is_none_or(|f| t.ui_framework.eq_ignore_ascii_case(f)))
        .filter(|(_, t)| filters.featured.is_none_or(|f| t.featured == f))
        .filter(|(_, t)| tags.iter().all(|tag| t.tags.iter().any(|x| x.eq_ignore_ascii_case(tag))))
        .filter_map(|(i, t)| match &query {
            None => Some((0.0, i, t)),
            Some(q) => {
                let s = score_fields(&indexed[i], &t.slug, q, &idf);
                (s > 0.0).then_some((s, i, t))
            }
        })
        .collect();
    if query.is_some() {
        scored.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then(b.2.featured.cmp(&a.2.featured))
                .then(a.2.slug.len().cmp(&b.2.slug.len()))
                .then(a.1.cmp(&b.1))
        });
    }
    scored.into_iter().map(|(_, _, t)| t).collect()
}

/// Words that say nothing about which template fits.
const STOPWORDS: [&str; 32] = [
    "a",
    "an",
    "the",
    "to",
    "with",
    "in",
    "on",
    "of",
    "for",
    "and",
    "or",
    "about",
    "that",
    "my",
    "me",
    "i",
    "it",
    "is",
    "build",
    "make",
    "create",
    "extension",
    "extensions",
    "browser",
    "chrome",
    "want",
    "need",
    "using",
    "use",
    "which",
    "from",
    "some",
];

/// A query, tokenized once.
#[derive(Debug, Clone)]
pub struct Query {
    pub tokens: Vec<String>,
}

impl Query {
    pub fn new(text: &str) -> Query {
        let tokens = tokens(text).into_iter().filter(|t| !STOPWORDS.contains(&t.as_str())).collect();
        Query { tokens }
    }
}

/// Lowercase alphanumeric words, lightly stemmed (`scripts` → `script`, `entries` → `entry`).
/// One-letter words are dropped (`page's` → `page`).
pub fn tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() > 1)
        .map(|w| stem(&w.to_lowercase()))
        .collect()
}

fn stem(word: &str) -> String {
    if word.len() > 4
        && let Some(base) = word.strip_suffix("ies")
    {
        return format!("{base}y");
    }
    if word.len() > 3 && word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("us") {
        return word[..word.len() - 1].to_owned();
    }
    word.to_owned()
}

/// A field's tokens and weight; `strong` fields count phrases.
struct Field {
    tokens: Vec<String>,
    weight: f64,
    strong: bool,
}

fn fields(t: &Template) -> Vec<Field> {
    let join = |items: &[String]| tokens(&items.join(" | "));
    let field = |tokens, weight, strong| Field { tokens, weight, strong };
    vec![
        field(tokens(&t.slug), 6.0, true),
        field(tokens(&t.title), 5.0, true),
        field(join(&t.ai_recommend_for), 5.0, true),
        field(join(&t.tags), 4.0, true),
        field(join(&t.ai_prompt_examples), 3.0, true),
        field(tokens(&t.pattern_explanation), 2.0, true),
        field(join(&t.use_cases), 2.0, false),
        field(tokens(&t.description), 1.0, false),
    ]
}

/// How much each query token (and joined pair) tells templates apart in the searched set:
/// `1 + ln(n / df)`, so "typescript" outweighs "content" in a catalog full of content
/// scripts.
#[derive(Debug, Default)]
struct Idf {
    weights: std::collections::HashMap<String, f64>,
}

impl Idf {
    fn new(q: &Query, indexed: &[Vec<Field>]) -> Idf {
        let n = indexed.len().max(1) as f64;
        let mut weights = std::collections::HashMap::new();
        let joined = q.tokens.windows(2).map(|w| format!("{}{}", w[0], w[1]));
        for token in q.tokens.iter().cloned().chain(joined) {
            let df = indexed.iter().filter(|fs| fs.iter().any(|f| f.tokens.contains(&token))).count();
            weights.insert(token, 1.0 + (n / df.max(1) as f64).ln());
        }
        Idf { weights }
    }

    fn of(&self, token: &str) -> f64 {
        self.weights.get(token).copied().unwrap_or(1.0)
    }
}

/// How well a template answers the query on its own (every token weighs the same); 0 when
/// no token matches.
pub fn score(t: &Template, q: &Query) -> f64 {
    score_fields(&fields(t), &t.slug, q, &Idf::default())
}

fn score_fields(fields: &[Field], slug: &str, q: &Query, idf: &Idf) -> f64 {
    let contains = |f: &Field, token: &str| f.tokens.iter().any(|x| x == token);
    let mut total = 0.0;
    // The share of the query's weight this template matches (Lucene's "coord"): a template
    // matching the rare words of the query beats one matching only its common words.
    let mut matched = 0.0;
    let all: f64 = q.tokens.iter().map(|t| idf.of(t)).sum();
    let mut i = 0;
    while i < q.tokens.len() {
        let token = &q.tokens[i];
        // Adjacent query words may be written as one in the catalog (`new tab` / `newtab`).
        if let Some(next) = q.tokens.get(i + 1) {
            let joined = format!("{token}{next}");
            let best = fields.iter().filter(|f| contains(f, &joined)).map(|f| f.weight).fold(0.0, f64::max);
            if best > 0.0 {
                total += best * 1.5 * idf.of(&joined);
                matched += idf.of(token) + idf.of(next);
                i += 2;
                continue;
            }
        }
        let best = fields.iter().filter(|f| contains(f, token)).map(|f| f.weight).fold(0.0, f64::max);
        if best > 0.0 {
            total += best * idf.of(token);
            matched += idf.of(token);
        }
        i += 1;
    }
    if total == 0.0 {
        return 0.0;
    }
    // Phrases: the longest run of query tokens found contiguously in a strong field; the best
    // field counts once.
    let mut phrase: f64 = 0.0;
    for f in fields.iter().filter(|f| f.strong) {
        let mut best: Option<&[String]> = None;
        for start in 0..q.tokens.len() {
            for end in (start + 2..=q.tokens.len()).rev() {
                if end - start <= best.map_or(0, <[String]>::len) {
                    break;
                }
                if f.tokens.windows(end - start).any(|w| w == &q.tokens[start..end]) {
                    best = Some(&q.tokens[start..end]);
                }
            }
        }
        if let Some(run) = best {
            let mean_idf = run.iter().map(|t| idf.of(t)).sum::<f64>() / run.len() as f64;
            phrase = phrase.max(f.weight * (run.len() - 1) as f64 * mean_idf);
        }
    }
    total += phrase;
    let slug = tokens(slug);
    if !slug.is_empty() {
        let covered = slug.iter().filter(|s| q.tokens.contains(s)).count();
        total += 4.0 * covered as f64 / slug.len() as f64;
    }
    if all > 0.0 { total * matched / all } else { total }
}

/// The `n` names nearest to `wanted` by edit distance (for "did you mean").
pub fn closest<'a>(names: impl Iterator<Item = &'a str>, wanted: &str, n: usize) -> Vec<String> {
    let wanted = wanted.to_ascii_lowercase();
    let mut by_distance: Vec<(usize, &str)> = names
        .map(|name| {
            let d = edit_distance(&wanted, &name.to_ascii_lowercase());
            // A name containing the input (or the reverse) is close whatever its length.
            let d = if name.contains(wanted.as_str()) || wanted.contains(name) { d.min(2) } else { d };
            (d, name)
        })
        .collect();
    by_distance.sort();
    by_distance.dedup_by(|a, b| a.1 == b.1);
    by_distance.into_iter().take(n).map(|(_, name)| name.to_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(slug: &str, title: &str, description: &str) -> Template {
        Template {
            slug: slug.into(),
            title: title.into(),
            description: description.into(),
            ..Template::default()
        }
    }

    #[test]
    fn tokens_are_stemmed_and_short_words_dropped() {
        assert_eq!(
            tokens("Three content-scripts in the page's entries"),
            ["three", "content", "script", "in", "the", "page", "entry"]
        );
        assert_eq!(Query::new("Build a Chrome extension with a popup").tokens, ["popup"]);
    }

    #[test]
    fn a_phrase_in_the_title_beats_token_hits_in_descriptions() {
        let a = template("alpha", "Reading list", "Saves links.");
        let b = template("beta", "Links", "A reading tool for any list you keep.");
        let q = Query::new("reading list");
        assert!(score(&a, &q) > score(&b, &q));
        let found = search(
            [&b, &a].into_iter(),
            &Filters { query: Some("reading list".into()), ..Filters::default() },
        );
        assert_eq!(found[0].slug, "alpha");
    }

    #[test]
    fn joined_words_match_compounds() {
        let t = template("newtab-x", "Newtab clock", "");
        assert!(score(&t, &Query::new("new tab")) > score(&t, &Query::new("new")));
    }

    #[test]
    fn surfaces_and_frameworks_have_spellings() {
        assert_eq!(canonical_surface("popup"), Some("action"));
        assert_eq!(canonical_surface("side_panel"), Some("sidebar"));
        assert_eq!(canonical_surface("devtools"), Some("devtools"));
        assert_eq!(canonical_surface("toolbox"), None);
        assert_eq!(canonical_framework("Vanilla"), "");
        assert_eq!(canonical_framework("React"), "react");
    }

    #[test]
    fn closest_names_by_edit_distance() {
        let names = ["popup", "sidebar", "starter", "content"];
        assert_eq!(closest(names.into_iter(), "sidbar", 2)[0], "sidebar");
        assert_eq!(closest(names.into_iter(), "popop", 1), ["popup"]);
    }
}
