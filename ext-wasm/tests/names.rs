//! Accessible names: precedence, labels, content, truncation and quoting.
mod common;
use common::{lines, snap};

#[test]
fn precedence_labelledby_then_aria_label_then_label_then_content_then_title() {
    let got = lines(
        r#"
button p.label="From labelledby" aria-label=Aria title=T
  "content"
button aria-label=Aria title=T
  "content"
button title=T
  "content"
button title=T
a href=/x title="Link title"
input id=f placeholder=Hint title=Tip
input placeholder=Hint
"#,
    );
    assert_eq!(
        got,
        [
            r#"[e1] button "From labelledby""#,
            r#"[e2] button "Aria""#,
            r#"[e3] button "content""#,
            r#"[e4] button "T""#,
            r#"[e5] link "Link title" -> /x"#,
            r#"[e6] textbox "Tip""#,
            r#"[e7] textbox "Hint""#,
        ]
    );
}

#[test]
fn label_for_and_wrapping_labels() {
    let got = lines(
        r#"
label for=email
  "Email address"
div
  input id=email type=email p.value=a@b.c
label
  "Remember "
  input type=checkbox p.checked
  " me"
label for=nobody
  "Orphan label"
label for=pw
  "Password"
input type=password id=pw aria-label="Aria wins"
"#,
    );
    assert_eq!(
        got,
        [
            r#"[e3] textbox "Email address" value="a@b.c""#,
            r#"[e5] checkbox "Remember me" checked"#,
            r#"text "Orphan label""#,
            r#"text "Password""#,
            r#"[e8] textbox "Aria wins""#,
        ]
    );
}

#[test]
fn labels_match_only_within_their_frame() {
    use common::{frame, run};
    use webext_mcp_engine::table::Options;
    let top = frame(0, &[], "https://top.test/", "label for=x\n  \"Top label\"\niframe !f=0\n");
    let inner = frame(1, &[0], "https://in.test/", "input id=x\n");
    let text = run(vec![top, inner], Options::default()).text;
    assert!(text.contains("[f1e1] textbox\n"), "{text}");
}

#[test]
fn name_from_content_includes_alt_and_aria_label_and_hides_text() {
    let got = lines(
        r#"
a href=/p
  img alt=Profile
  span
    " of "
  span aria-label=Ada
    "ignored"
ul
  li
    a href=/a
      "Alpha"
      b
        "bet"
h2
  "Read "
  a href=#more
    "more"
  " here"
"#,
    );
    assert_eq!(
        got,
        [
            r#"[e1] link "Profile of Ada" -> /p"#,
            r#"  [e2] img "Profile""#,
            r#"[e5] list"#,
            r#"  [e6] listitem"#,
            r#"    [e7] link "Alphabet" -> /a"#,
            r#"[e9] heading "Read more here" level=2"#,
            r#"  [e10] link "more" -> #more"#,
        ]
    );
}

#[test]
fn listitem_does_not_take_name_from_content() {
    assert_eq!(lines("li\n  \"item text\"\n"), ["[e1] listitem", "  text \"item text\""]);
}

#[test]
fn long_names_are_truncated_and_quotes_escaped() {
    let long = "word ".repeat(40);
    let text = snap(&format!("button\n  \"{long}\"\nbutton\n  \"say \\\"hi\\\"\"\n"));
    let first = text.lines().next().unwrap();
    let name = first.strip_prefix("[e1] button \"").unwrap().strip_suffix('"').unwrap();
    assert!(name.ends_with('…'));
    assert_eq!(name.chars().count(), 100, "{name}");
    assert_eq!(text.lines().nth(1).unwrap(), r#"[e2] button "say \"hi\"""#);
}

#[test]
fn whitespace_is_collapsed_and_never_yields_newlines() {
    let json = webext_mcp_engine::snapshot(
        r##"{"frames":[{"nodes":[{"i":1,"d":0,"t":"button","a":{"aria-label":"  Save \n\t now "}},
            {"d":0,"t":"#text","x":"a\nb"}]}]}"##,
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["text"], "[e1] button \"Save now\"\ntext \"a b\"\n");
}

#[test]
fn fieldset_named_by_legend_and_disabled_for_its_controls() {
    let got = lines(
        r#"
fieldset disabled
  legend
    "Shipping"
  input aria-label=Street
  button
    "Go"
"#,
    );
    assert_eq!(
        got,
        [
            r#"[e1] group "Shipping" disabled"#,
            r#"  [e3] textbox "Street" disabled"#,
            r#"  [e4] button "Go" disabled"#
        ]
    );
}
