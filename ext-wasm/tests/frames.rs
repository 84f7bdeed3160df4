//! Frame tables stitched under their iframe elements by path; refs f<K>e<N>.
mod common;
use common::{frame, run};
use webext_mcp_engine::table::Options;

#[test]
fn frames_stitch_by_path_and_refs_carry_the_ordinal() {
    let top =
        frame(0, &[], "https://top.test/", "h1\n  \"Top\"\niframe title=Ads !f=0\niframe title=Docs !f=1\n");
    let docs = frame(
        2,
        &[1],
        "https://docs.test/",
        "html\n  body\n    a href=/x\n      \"In docs\"\n    iframe !f=0\n",
    );
    let nested = frame(3, &[1, 0], "https://deep.test/", "button\n  \"Deep\"\n");
    let ads = frame(1, &[0], "https://ads.test/", "p\n  \"Ad\"\n");
    let stray = frame(4, &[7], "https://stray.test/", "a href=https://s.test/\n  \"Stray\"\n");
    let out = run(vec![top, docs, nested, ads, stray], Options::default());
    let want = r#"[e1] heading "Top" level=1
[e2] iframe "Ads" [f1]
  text "Ad"
[e3] iframe "Docs" [f2]
  [f2e3] link "In docs" -> /x
  [f2e4] iframe [f3]
    [f3e1] button "Deep"
frame [f4] -> https://stray.test/
  [f4e1] link "Stray" -> https://s.test/
"#;
    assert_eq!(out.text, want);
    assert_eq!(out.title, "frame 0");
    assert_eq!(out.url, "https://top.test/");
}

#[test]
fn iframe_without_a_table_has_no_marker_and_root_reaches_into_frames() {
    let top = frame(0, &[], "https://top.test/", "iframe title=Gone !f=5\niframe !f=0\n");
    let inner = frame(1, &[0], "https://in.test/", "main\n  button\n    \"Inner\"\n");
    let out = run(vec![top, inner], Options::default());
    assert_eq!(
        out.text,
        "[e1] iframe \"Gone\"\n[e2] iframe [f1]\n  [f1e1] main\n    [f1e2] button \"Inner\"\n"
    );
    let top = frame(0, &[], "https://top.test/", "iframe !f=0\n");
    let inner = frame(1, &[0], "https://in.test/", "main\n  button\n    \"Inner\"\n");
    let out = run(vec![top, inner], Options { root: Some("f1e1".into()), ..Options::default() });
    assert_eq!(out.text, "[f1e1] main\n  [f1e2] button \"Inner\"\n");
}
