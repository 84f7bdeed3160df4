//! Wrappers cost nothing: generic elements without a name are hoisted, text merges.
mod common;
use common::{lines, snap};

#[test]
fn generic_wrappers_are_hoisted() {
    let got = lines(
        r#"
div
  div
    div
      nav aria-label=Main
        div
          span
            a href=/one
              "One"
        div
          a href=/two
            "Two"
"#,
    );
    assert_eq!(
        got,
        [r#"[e4] navigation "Main""#, r#"  [e7] link "One" -> /one"#, r#"  [e9] link "Two" -> /two"#]
    );
}

#[test]
fn inline_text_merges_and_blocks_break() {
    let got = lines(
        r#"
p
  "Use "
  code
    "Vec::new"
  " to "
  b
    "create"
  " one."
p
  "Second paragraph"
div
  "See "
  a href=/docs
    "the docs"
  " for more."
"#,
    );
    assert_eq!(
        got,
        [
            r#"text "Use Vec::new to create one.""#,
            r#"text "Second paragraph""#,
            r#"text "See""#,
            r#"[e6] link "the docs" -> /docs"#,
            r#"text "for more.""#,
        ]
    );
}

#[test]
fn generics_with_meaning_keep_their_line() {
    let got = lines(
        r#"
div tabindex=0
  "focusable"
div contenteditable
  "edit me"
div aria-label=Named
  "x"
div aria-expanded=false
  "menu"
div tabindex=-1
  "not in tab order"
"#,
    );
    assert_eq!(
        got,
        [
            r#"[e1] generic"#,
            r#"  text "focusable""#,
            r#"[e2] generic editable"#,
            r#"  text "edit me""#,
            r#"[e3] generic "Named""#,
            r#"  text "x""#,
            r#"[e4] generic collapsed"#,
            r#"  text "menu""#,
            r#"text "not in tab order""#,
        ]
    );
}

#[test]
fn hidden_nodes_are_hoisted_and_their_own_text_dropped() {
    let got = lines(
        r#"
div !h
  "invisible text"
  button
    "Visible"
ul !h
  li
    "shown"
"#,
    );
    assert_eq!(got, [r#"[e2] button "Visible""#, r#"[e4] listitem"#, r#"  text "shown""#]);
}

#[test]
fn aria_hidden_subtrees_are_not_rendered() {
    assert_eq!(snap("div aria-hidden=true\n  button\n    \"X\"\nbutton\n  \"Y\"\n"), "[e3] button \"Y\"\n");
}

#[test]
fn incomplete_and_closed_shadow_markers() {
    let got = lines(
        r#"
div !c
  "partial"
my-el !s=closed
x-open !s=open
  button
    "In open shadow"
button !s=closed
  "Host"
"#,
    );
    assert_eq!(
        got,
        [
            r#"[e1] generic [incomplete]"#,
            r#"  text "partial""#,
            r#"[e2] generic [shadow closed]"#,
            r#"[e4] button "In open shadow""#,
            r#"[e5] button "Host" [shadow closed]"#,
        ]
    );
}

#[test]
fn textarea_text_is_its_value_not_a_text_line() {
    assert_eq!(
        lines("textarea aria-label=Bio\n  \"default text\"\n"),
        [r#"[e1] textbox "Bio" value="default text""#]
    );
    assert_eq!(
        lines("textarea aria-label=Bio p.value=typed\n  \"default text\"\n"),
        [r#"[e1] textbox "Bio" value="typed""#]
    );
}

#[test]
fn long_text_and_code_are_truncated() {
    let long = "x".repeat(300);
    let text = snap(&format!("p\n  \"{long}\"\npre\n  \"{long}\"\n"));
    let mut it = text.lines();
    let t = it.next().unwrap();
    assert_eq!(t.chars().count(), "text \"\"".len() + 121);
    assert!(t.ends_with("…\""));
    let c = it.next().unwrap();
    assert!(c.starts_with("[e2] code \"xxx") && c.ends_with("…\""));
    assert_eq!(c.chars().count(), "[e2] code \"\"".len() + 81);
}
