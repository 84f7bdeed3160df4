//! interactiveOnly, viewportOnly, root and maxDepth.
mod common;
use common::{frame, run, snap_with};
use webext_mcp_engine::table::{Input, Options};
use webext_mcp_engine::{EngineError, render};

const PAGE: &str = r#"
nav aria-label=Top
  ul
    li
      a href=/a !r=0,0,50,10
        "A"
main
  h1 !r=0,20,100,20
    "Title"
  div tabindex=0 !r=0,50,10,10
    "custom"
  p !r=0,100,100,20
    "Visible text"
  p !r=0,2000,100,20
    "Far below"
  button !r=0,2100,50,20
    "Below"
  div contenteditable !r=0,60,10,10
  input aria-label=Q !r=0,70,100,20
"#;

#[test]
fn interactive_only_is_a_flat_list() {
    let text = snap_with(PAGE, Options { interactive_only: true, ..Options::default() });
    assert_eq!(
        text,
        "[e4] link \"A\" -> /a\n[e7] generic\n[e10] button \"Below\"\n[e11] generic editable\n[e12] textbox \"Q\"\n"
    );
}

#[test]
fn viewport_only_keeps_what_meets_the_viewport() {
    let text = snap_with(PAGE, Options { viewport_only: true, ..Options::default() });
    assert!(text.contains("link \"A\""));
    assert!(text.contains("heading \"Title\""));
    assert!(text.contains("text \"Visible text\""));
    assert!(!text.contains("Far below"), "{text}");
    assert!(!text.contains("Below"), "{text}");
    // ancestors without a rect stay when a descendant is kept
    assert!(text.starts_with("[e1] navigation \"Top\"\n"));
    let both = snap_with(PAGE, Options { viewport_only: true, interactive_only: true, ..Options::default() });
    assert_eq!(both, "[e4] link \"A\" -> /a\n[e7] generic\n[e11] generic editable\n[e12] textbox \"Q\"\n");
}

#[test]
fn viewport_only_inside_frames_uses_the_frame_viewport() {
    let top =
        frame(0, &[], "https://top.test/", "iframe !f=0 !r=0,0,300,300\nbutton !r=0,900,10,10\n  \"Off\"\n");
    let mut inner = frame(
        1,
        &[0],
        "https://in.test/",
        "button !r=0,250,10,10\n  \"In\"\nbutton !r=0,150,10,10\n  \"Out\"\n",
    );
    inner.viewport = Some(vec![0.0, 0.0, 300.0, 200.0]);
    let text = run(vec![top, inner], Options { viewport_only: true, ..Options::default() }).text;
    assert_eq!(text, "[e1] iframe [f1]\n  [f1e2] button \"Out\"\n");
}

#[test]
fn root_renders_one_subtree_at_indent_zero() {
    let text = snap_with(PAGE, Options { root: Some("e5".into()), ..Options::default() });
    assert!(text.starts_with("[e5] main\n  [e6] heading \"Title\" level=1\n"), "{text}");
    assert!(!text.contains("link"));
    // a wrapper that would be hoisted is shown when it is the root
    let text = snap_with(PAGE, Options { root: Some("e8".into()), ..Options::default() });
    assert_eq!(text, "[e8] paragraph\n  text \"Visible text\"\n");
}

#[test]
fn unknown_and_malformed_roots() {
    let input = |root: &str| Input {
        frames: vec![frame(0, &[], "u", PAGE)],
        options: Options { root: Some(root.into()), ..Options::default() },
    };
    assert_eq!(render(&input("e999")), Err(EngineError::Stale));
    assert_eq!(render(&input("f1e4")), Err(EngineError::Stale));
    assert!(matches!(render(&input("#main")), Err(EngineError::InvalidArgument(_))));
}

#[test]
fn max_depth_cuts_children_and_marks_the_line() {
    let text = snap_with(PAGE, Options { max_depth: Some(1), ..Options::default() });
    assert!(text.starts_with("[e1] navigation \"Top\"\n  [e2] list …\n[e5] main\n"), "{text}");
    assert!(!text.contains("link"));
    let text = snap_with(PAGE, Options { max_depth: Some(0), ..Options::default() });
    assert_eq!(text, "[e1] navigation \"Top\" …\n[e5] main …\n");
    let text = snap_with(PAGE, Options { max_depth: Some(0), root: Some("e6".into()), ..Options::default() });
    assert_eq!(text, "[e6] heading \"Title\" level=1\n");
}
