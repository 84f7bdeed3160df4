//! Implicit and explicit roles as they appear in the rendering.
mod common;
use common::{lines, snap};

#[test]
fn links_buttons_and_inputs() {
    let text = snap(
        r#"
form aria-label=Signup
  a href=/home
    "Home"
  a
    "not a link"
  button
    "Save"
  input type=text aria-label=Name
  input aria-label=Plain
  input type=search aria-label=Find
  input type=email list=dl aria-label=Mail
  input type=checkbox aria-label=Agree
  input type=radio aria-label=One
  input type=range aria-label=Vol p.value=5
  input type=number aria-label=Qty
  input type=submit
  input type=reset
  input type=button value=Go
  input type=image alt=Send
  input type=file
  input type=date aria-label=When p.value=2024-01-02
  input type=hidden value=secret
  textarea aria-label=Bio
  select aria-label=Country
    option
      "France"
  select multiple aria-label=Tags
  select size=3 aria-label=Sized
"#,
    );
    let want = r#"[e1] form "Signup"
  [e2] link "Home" -> /home
  text "not a link"
  [e4] button "Save"
  [e5] textbox "Name"
  [e6] textbox "Plain"
  [e7] searchbox "Find"
  [e8] combobox "Mail"
  [e9] checkbox "Agree"
  [e10] radio "One"
  [e11] slider "Vol" value="5"
  [e12] spinbutton "Qty"
  [e13] button "Submit"
  [e14] button "Reset"
  [e15] button "Go"
  [e16] button "Send"
  [e17] button "Choose file"
  [e18] textbox "When" type=date value="2024-01-02"
  [e20] textbox "Bio"
  [e21] combobox "Country"
    [e22] option "France"
  [e23] listbox "Tags"
  [e24] listbox "Sized"
"#;
    assert_eq!(text, want);
}

#[test]
fn landmarks_and_sectioning() {
    let text = snap(
        r#"
header
  "Top"
nav
  "N"
main
  header
    "inner header is not a banner"
  footer
    "inner footer"
  section
    "unnamed section is a wrapper"
  section aria-label=Named
    "x"
  form
    "unnamed form is a wrapper"
aside
  "A"
article
  "B"
footer
  "Bottom"
search
  "S"
"#,
    );
    let want = r#"[e1] banner
  text "Top"
[e2] navigation
  text "N"
[e3] main
  text "inner header is not a banner"
  text "inner footer"
  text "unnamed section is a wrapper"
  [e7] region "Named"
    text "x"
  text "unnamed form is a wrapper"
[e9] complementary
  text "A"
[e10] article
  text "B"
[e11] contentinfo
  text "Bottom"
[e12] search
  text "S"
"#;
    assert_eq!(text, want);
}

#[test]
fn headings_lists_tables_and_misc() {
    let got = lines(
        r#"
h1
  "Title"
h3
  "Sub"
div role=heading aria-level=5
  "Deep"
ul
  li
    "one"
ol
  li
    "two"
table
  caption
    "Prices"
  thead
    tr
      th
        "Item"
      th scope=row
        "Row"
  tbody
    tr
      td
        "Apple"
dialog
  "D"
details open
  summary
    "More"
  "hidden content"
fieldset
  legend
    "Choose"
  input type=radio aria-label=A
progress value=3 aria-label=Load
meter value=0.5 aria-label=Level
output
  "42"
hr
p
  "para"
blockquote
  "quote"
pre
  "let x = 1;"
dl
  dt
    "Term"
  dd
    "Def"
figure
  img alt=Cat
  figcaption
    "A cat"
img alt=""
img alt=Logo
label
  "loose label"
my-widget
  "custom"
"#,
    );
    let want = [
        r#"[e1] heading "Title" level=1"#,
        r#"[e2] heading "Sub" level=3"#,
        r#"[e3] heading "Deep" level=5"#,
        r#"[e4] list"#,
        r#"  [e5] listitem"#,
        r#"    text "one""#,
        r#"[e6] list"#,
        r#"  [e7] listitem"#,
        r#"    text "two""#,
        r#"[e8] table "Prices""#,
        r#"  [e11] row"#,
        r#"    [e12] columnheader "Item""#,
        r#"    [e13] rowheader "Row""#,
        r#"  [e15] row"#,
        r#"    [e16] cell "Apple""#,
        r#"[e17] dialog"#,
        r#"  text "D""#,
        r#"[e18] group"#,
        r#"  [e19] button "More" expanded"#,
        r#"  text "hidden content""#,
        r#"[e20] group "Choose""#,
        r#"  [e22] radio "A""#,
        r#"[e23] progressbar "Load" value="3""#,
        r#"[e24] meter "Level" value="0.5""#,
        r#"[e25] status"#,
        r#"  text "42""#,
        r#"[e26] separator"#,
        r#"text "para""#,
        r#"[e28] blockquote"#,
        r#"  text "quote""#,
        r#"[e29] code "let x = 1;""#,
        r#"[e31] term "Term""#,
        r#"[e32] definition"#,
        r#"  text "Def""#,
        r#"[e33] figure "A cat""#,
        r#"  [e34] img "Cat""#,
        r#"[e37] img "Logo""#,
        r#"text "loose label""#,
        r#"text "custom""#,
    ];
    assert_eq!(got, want);
}

#[test]
fn explicit_roles_override_and_presentation() {
    let got = lines(
        r#"
div role="bogus tab"
  "Tab 1"
ul role=none
  li role=presentation
    "flat"
span role=switch aria-checked=true
  "Wifi"
div role=button tabindex=0 aria-pressed=true
  "Bold"
button role=none
  "still a button (focusable)"
"#,
    );
    let want = [
        r#"[e1] tab "Tab 1""#,
        r#"text "flat""#,
        r#"[e4] switch "Wifi" checked"#,
        r#"[e5] button "Bold" pressed"#,
        r#"[e6] button "still a button (focusable)""#,
    ];
    assert_eq!(got, want);
}
