//! get_page_text and find_by_text modes (`reading.rs`): the page's visible text per block,
//! and the elements whose text matches, with the refs a snapshot shows.
mod common;
use common::{frame, run};
use webext_mcp_engine::table::{Find, Mode, Options};

const PAGE: &str = r#"
nav aria-label=Top
  a href=/home !r=0,0,50,10
    "Home"
main
  h1 !r=0,20,100,20
    "Release   notes"
  p !r=0,50,100,20
    "Version 2 adds "
    b
      "dark mode"
    " and more."
  div aria-hidden=true
    "Not read aloud"
  ul
    li
      "First"
    li
      "Second"
  input placeholder="Search the docs" !r=0,80,100,20
  img alt="A cat asleep" !r=0,90,10,10
  button !r=0,2000,50,20
    "Save changes"
  p
    "card 4111 1111 1111 1111 on file"
"#;

fn opts(mode: Mode, query: &str) -> Options {
    Options { mode, find: Find { query: query.into(), ..Find::default() }, ..Options::default() }
}

fn text_of(desc: &str) -> String {
    run(vec![frame(0, &[], "https://top.test/", desc)], opts(Mode::Text, "")).text
}

#[test]
fn text_is_one_line_per_block_with_hidden_text_and_secrets_left_out() {
    assert_eq!(
        text_of(PAGE),
        "Home\nRelease notes\nVersion 2 adds dark mode and more.\nFirst\nSecond\nSave changes\ncard <redacted> on file\n"
    );
}

#[test]
fn text_reads_frames_where_their_iframe_stands() {
    let top = frame(0, &[], "https://top.test/", "p\n  \"Before\"\niframe !f=0\np\n  \"After\"\n");
    let inner = frame(1, &[0], "https://inner.test/", "p\n  \"Inside\"\n");
    let out = run(vec![top, inner], opts(Mode::Text, ""));
    assert_eq!(out.text, "Before\nInside\nAfter\n");
}

#[test]
fn find_matches_text_names_and_attributes_deepest_first() {
    let out = run(vec![frame(0, &[], "https://top.test/", PAGE)], opts(Mode::Find, "dark MODE"));
    let hits = out.hits.unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0].field, "text");
    assert_eq!(hits[0].context, "dark mode");
    let find = |q: &str| run(vec![frame(0, &[], "https://top.test/", PAGE)], opts(Mode::Find, q));
    let search = find("search the").hits.unwrap();
    assert_eq!((search[0].role, search[0].field), ("textbox", "placeholder"), "{search:?}");
    assert_eq!(find("cat").hits.unwrap()[0].field, "alt");
    let save = find("Save changes");
    let hit = &save.hits.as_ref().unwrap()[0];
    assert_eq!(hit.role, "button");
    assert!(!hit.in_viewport);
    assert!(save.text.starts_with(&format!("[{}] button \"Save changes\"", hit.r#ref)), "{}", save.text);
    assert!(save.text.contains("[offscreen]"), "{}", save.text);
    // Nothing hidden, no secret: the redacted card number is not findable by its digits.
    assert!(find("Not read aloud").hits.unwrap().is_empty());
    // Issue 46: the query runs on the redacted text, so a query cannot confirm the secret
    // hit by hit (a literal here; `/regex/` queries are JavaScript's, tested in the browsers).
    assert!(find("4111 1111").hits.unwrap().is_empty());
    assert_eq!(find("card <redacted>").hits.unwrap().len(), 1);
    // exact and case-sensitive.
    let exact = |q: &str, case_sensitive: bool| {
        let o = Options {
            mode: Mode::Find,
            find: Find { query: q.into(), exact: true, case_sensitive, ..Find::default() },
            ..Options::default()
        };
        run(vec![frame(0, &[], "https://top.test/", PAGE)], o).hits.unwrap().len()
    };
    assert_eq!(exact("First", true), 1);
    assert_eq!(exact("first", true), 0);
    assert_eq!(exact("first", false), 1);
    assert_eq!(exact("Firs", false), 0);
}

/// A scoped walk's context rows (`k`: an ancestor of what was walked, without its text) are
/// never hits, even when their partial name would match: the page said more than was sent.
#[test]
fn find_never_names_a_context_row() {
    let page = r#"
main
  a href=/x title=push !k
    img alt=pop
  a href=/z
    "push"
"#;
    let out = run(vec![frame(0, &[], "https://top.test/", page)], opts(Mode::Find, "push"));
    let hits = out.hits.unwrap();
    assert_eq!(
        hits.iter().map(|h| (h.r#ref.as_str(), h.field)).collect::<Vec<_>>(),
        [("e4", "text")],
        "{hits:?}"
    );
    let whole = page.replace(" !k", "");
    let out = run(vec![frame(0, &[], "https://top.test/", &whole)], opts(Mode::Find, "push"));
    assert_eq!(out.hits.unwrap().len(), 2, "without `k` the first link is a hit by its title");
}

/// Which rule chose read_page's root: the background reads the whole page again when a
/// scoped walk's element turned out not to be `main`.
#[test]
fn read_says_which_rule_chose_the_main_content() {
    let read = |desc: &str| {
        run(
            vec![frame(0, &[], "https://top.test/", desc)],
            Options { mode: Mode::Read, ..Options::default() },
        )
    };
    assert_eq!(read("main\n  p\n    \"x\"\n").root_from, Some("main"));
    assert_eq!(read("main role=navigation\n  p\n    \"x\"\n").root_from, Some("page"));
    assert_eq!(read("article\n  p\n    \"x\"\n").root_from, Some("article"));
    let rooted = Options { mode: Mode::Read, root: Some("e1".into()), ..Options::default() };
    assert_eq!(
        run(vec![frame(0, &[], "https://top.test/", "main\n  p\n    \"x\"\n")], rooted).root_from,
        None
    );
}

const ARTICLE: &str = r#"
header
  a href=/ !r=0,0,10,10
    "Site"
nav
  a href=/docs !r=0,0,10,10
    "Docs"
main
  h1
    "Vec"
  p
    "A contiguous "
    a href=/growable !r=0,0,10,10
      "growable"
    " array type."
  h2
    "Methods"
  ol
    li
      "new"
    li
      "push"
      ul
        li
          "amortized"
  table
    tr
      th
        "Name"
      th
        "Since"
    tr
      td
        "len"
      td
        "1.0"
  pre
    "let v = vec![1, 2];"
  button !r=0,0,10,10
    "Copy"
  p
    "token sk_live_4eC39HqLyjWDarjtT1zdp7dc"
footer
  "Copyright"
"#;

#[test]
fn read_page_is_the_main_content_as_structured_text() {
    let o = Options { mode: Mode::Read, ..Options::default() };
    let out = run(vec![frame(0, &[], "https://top.test/", ARTICLE)], o);
    assert_eq!(
        out.text,
        "# Vec\nA contiguous [growable](/growable)[e8] array type.\n## Methods\n1. new\n2. push\n  - amortized\n| Name | Since |\n| len | 1.0 |\n```\nlet v = vec![1, 2];\n```\n[e23] button \"Copy\"\ntoken <redacted>\n"
    );
    // Without a main element or a single article: the page minus its landmarks' chrome.
    let no_main = ARTICLE.replace("\nmain\n", "\ndiv\n");
    let out = run(
        vec![frame(0, &[], "https://top.test/", &no_main)],
        Options { mode: Mode::Read, ..Options::default() },
    );
    assert!(
        out.text.starts_with("# Vec\n") && !out.text.contains("Docs") && !out.text.contains("Copyright"),
        "{}",
        out.text
    );
}

#[test]
fn a_headings_own_anchor_reads_as_the_heading() {
    let page = r#"
main
  h1
    a href=#book !r=0,0,10,10
      "The Book"
  h2
    a href=#part !r=0,0,10,10
      "§"
    "Part one"
  p
    "See "
    a href=#part !r=0,0,10,10
      "part one"
"#;
    let o = Options { mode: Mode::Read, ..Options::default() };
    let out = run(vec![frame(0, &[], "https://top.test/", page)], o);
    // Outside a heading a fragment link is still a link with its ref.
    assert!(out.text.starts_with("# The Book\n## Part one\nSee [part one](#part)[e"), "{}", out.text);
}
