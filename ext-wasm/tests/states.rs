//! States after the name.
mod common;
use common::lines;

#[test]
fn form_states() {
    let got = lines(
        r#"
input type=checkbox aria-label=A p.checked
input type=checkbox aria-label=B p.checked=false
input type=checkbox aria-label=C p.indeterminate
div role=checkbox aria-checked=mixed aria-label=D
input type=radio aria-label=E p.checked disabled
input aria-label=F required readonly p.value="v"
button aria-disabled=true aria-expanded=true
  "G"
select aria-label=H p.opts=Blue p.value=b
  option p.selected
    "Blue"
  option
    "Red"
div role=tab aria-selected=true aria-label=I
a href=/ aria-current=page
  "Home"
details
  summary
    "Closed"
"#,
    );
    assert_eq!(
        got,
        [
            r#"[e1] checkbox "A" checked"#,
            r#"[e2] checkbox "B""#,
            r#"[e3] checkbox "C" checked=mixed"#,
            r#"[e4] checkbox "D" checked=mixed"#,
            r#"[e5] radio "E" checked disabled"#,
            r#"[e6] textbox "F" value="v" required readonly"#,
            r#"[e7] button "G" expanded disabled"#,
            r#"[e8] combobox "H" value="Blue""#,
            r#"  [e9] option "Blue" selected"#,
            r#"  [e10] option "Red""#,
            r#"[e11] tab "I" selected"#,
            r#"[e12] link "Home" current -> /"#,
            r#"[e13] group"#,
            r#"  [e14] button "Closed" collapsed"#,
        ]
    );
}

#[test]
fn heading_levels() {
    let got = lines("h4\n  \"A\"\nh2 aria-level=7\n  \"B\"\ndiv role=heading\n  \"C\"\n");
    assert_eq!(
        got,
        [r#"[e1] heading "A" level=4"#, r#"[e2] heading "B" level=7"#, r#"[e3] heading "C" level=2"#]
    );
}

#[test]
fn links_show_href_as_written_truncated() {
    let long = format!("https://example.test/{}", "a".repeat(200));
    let got = lines(&format!("a href=../rel/page.html#frag\n  \"Rel\"\na href={long}\n  \"Long\"\n"));
    assert_eq!(got[0], r#"[e1] link "Rel" -> ../rel/page.html#frag"#);
    let url = got[1].split(" -> ").nth(1).unwrap();
    assert_eq!(url.chars().count(), 121);
    assert!(url.ends_with('…'));
}

#[test]
fn draggable_elements_get_a_line_and_say_so() {
    let got = lines(
        r#"
div draggable=true
  "Card"
div draggable=false
  "Plain"
"#,
    );
    assert_eq!(got[0], "[e1] generic draggable");
    assert!(got.iter().all(|l| !l.contains("[e3]")), "{got:?}");
}
