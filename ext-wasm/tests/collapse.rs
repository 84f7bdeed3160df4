//! Long runs of similar siblings collapse; `root=` expands them.
mod common;
use common::{frame, run, snap, snap_with};
use webext_mcp_engine::table::Options;

fn links_list(n: usize) -> String {
    let mut d = String::from("nav#1 aria-label=Side\n  ul#2\n");
    for k in 0..n {
        d.push_str(&format!(
            "    li#{}\n      a#{} href=/p{k}\n        \"Page {k}\"\n",
            100 + 2 * k,
            101 + 2 * k
        ));
    }
    d
}

#[test]
fn long_run_keeps_five_and_points_at_its_parent() {
    let out = run(vec![frame(0, &[], "u", &links_list(40))], Options::default());
    let lines: Vec<&str> = out.text.lines().collect();
    assert_eq!(lines[0], r#"[e1] navigation "Side""#);
    assert_eq!(lines[1], "  [e2] list");
    assert_eq!(lines[2], "    [e100] listitem");
    assert_eq!(lines[3], r#"      [e101] link "Page 0" -> /p0"#);
    assert_eq!(lines[11], r#"      [e109] link "Page 4" -> /p4"#);
    assert_eq!(lines[12], "    … 35 more listitems like these [e2]");
    assert_eq!(lines.len(), 13);
    assert_eq!(out.collapsed, 1);
    assert_eq!(out.nodes, 13);
    assert_eq!(out.refs, 12);
}

#[test]
fn runs_of_twelve_are_left_alone() {
    let text = snap(&links_list(12));
    assert!(!text.contains("more"), "{text}");
    assert_eq!(text.lines().count(), 2 + 24);
}

#[test]
fn root_expands_the_run_but_deeper_runs_stay_collapsed() {
    let mut desc = links_list(30);
    // a nested long list inside the first item
    desc.push_str("    li#900\n      ul#901\n");
    for k in 0..20 {
        desc.push_str(&format!("        li#{}\n          \"n{k}\"\n", 1000 + k));
    }
    let rooted = Options { root: Some("e2".into()), ..Options::default() };
    let text = snap_with(&desc, rooted);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "[e2] list");
    // the 30 link items are all there, directly under the root
    assert_eq!(lines.iter().filter(|l| l.contains("link \"Page")).count(), 30);
    // the nested list is one level deeper and still collapses, pointing at itself
    assert!(lines.contains(&"      … 15 more listitems like these [e901]"), "{text}");
    let default = snap(&desc);
    assert!(default.contains("… 25 more listitems like these [e2]"), "{default}");
}

#[test]
fn different_shapes_break_runs_and_collapse_can_be_off() {
    let mut desc = String::from("ul\n");
    for k in 0..20 {
        if k % 2 == 0 {
            desc.push_str(&format!("  li\n    a href=/{k}\n      \"L{k}\"\n"));
        } else {
            desc.push_str(&format!("  li\n    \"T{k}\"\n"));
        }
    }
    assert!(!snap(&desc).contains("more"));
    let off = Options { collapse: false, ..Options::default() };
    assert!(!snap_with(&links_list(40), off).contains("more"));
}

#[test]
fn top_level_runs_point_at_the_closest_common_ancestor() {
    let mut desc = String::from("body#1\n  div#2\n");
    for k in 0..20 {
        desc.push_str(&format!("    div\n      button#{}\n        \"B{k}\"\n", 10 + k));
    }
    let text = snap(&desc);
    assert!(text.ends_with("… 15 more buttons like these [e2]\n"), "{text}");
    let expanded = snap_with(&desc, Options { root: Some("e2".into()), ..Options::default() });
    assert_eq!(expanded.lines().next(), Some("[e2] generic"));
    assert_eq!(expanded.lines().count(), 21);
}

#[test]
fn long_prose_is_thinned_but_headings_stay() {
    let mut desc = String::from("article#1\n");
    for k in 0..10 {
        desc.push_str(&format!("  h2#{}\n    \"Part {k}\"\n  p\n    \"Paragraph {k}\"\n", 10 + k));
    }
    let lines: Vec<String> = snap(&desc).lines().map(str::to_owned).collect();
    assert_eq!(lines[0], "[e1] article");
    assert_eq!(lines.iter().filter(|l| l.contains("heading")).count(), 10);
    assert_eq!(lines.iter().filter(|l| l.contains("text \"Paragraph")).count(), 2);
    assert_eq!(lines[6], "  … 8 more lines of text [e1]");
    // expanding shows everything
    let full = snap_with(&desc, Options { root: Some("e1".into()), ..Options::default() });
    assert_eq!(full.lines().filter(|l| l.contains("text \"Paragraph")).count(), 10);
    // a handful of paragraphs is left alone
    assert!(!snap("p\n  \"a\"\np\n  \"b\"\np\n  \"c\"\n").contains("more"));
}

#[test]
fn disclosure_around_a_heading_does_not_repeat_it() {
    let text = snap("details open\n  summary\n    h3\n      \"fn new()\"\n  p\n    \"Docs\"\n");
    assert_eq!(
        text,
        "[e1] group\n  [e2] button expanded\n    [e3] heading \"fn new()\" level=3\n  text \"Docs\"\n"
    );
}
