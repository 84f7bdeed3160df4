//! The engine's input is the collector's table JSON, written by script running in a page the
//! page can tamper with: arbitrary, truncated, mutated or absurdly shaped input must give an
//! error or a rendering, never a panic (a panic in wasm kills the snapshot for the tab).

#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use webext_mcp_engine::snapshot_json;
use webext_mcp_engine::table::Input;

/// Valid inputs in both node forms, with every node key and option: the seeds of mutation.
const SEEDS: &[&str] = &[
    r#"{"frames":[]}"#,
    r#"{"frames":[{"nodes":[[0,1,"DIV"],[1,"hi"],[1,2,"input",{"a":{"type":"checkbox"},"p":{"checked":true},"h":1}],[2,"cut",{"c":1}],[1,3,"iframe",null]]}]}"#,
    r##"{"frames":[{"ordinal":2,"path":[1,0],"url":"u","title":"t","viewport":[0,10.5,800,600],"extra":1,"nodes":[{"i":3,"d":1,"t":"INPUT","a":{"type":"checkbox","disabled":true,"tabindex":0,"Hidden":false},"p":{"checked":1,"value":5,"opts":["a","b"],"label":"L"},"h":1,"c":true,"r":[1,2,3.5,4],"s":"closed","f":2},{"d":2,"t":"#text","x":"hi"}]}]}"##,
    r#"{"frames":[{"nodes":[[0,0,"div"],[1,"hi"],[1,1,"x-a"],[1,2,"x-b",{"s":"open"}]],"ids":[40,7,41],"closed":[1]}],"options":{"interactiveOnly":true,"viewportOnly":1,"root":"f1e2","maxDepth":3,"redact":"off","collapse":false}}"#,
    r#"{"frames":[{"nodes":[[0,1,"nav",{"a":{"aria-label":"Main"}}],[1,2,"a",{"a":{"href":"/x"}}],[2,"Home"],[1,3,"button"],[2,"Go"],[1,4,"select",{"p":{"opts":["one"]}}]]},{"ordinal":1,"path":[0],"nodes":[[0,1,"h1"],[1,"Title"]]}],"options":{"root":"f0e1","redact":"strict"}}"#,
];

/// Tokens that keep a mutated input close to valid JSON, so mutations reach past the parser.
const TOKENS: &[&str] = &[
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "\"",
    "0",
    "-1",
    "1e308",
    "4294967296",
    "null",
    "true",
    "\"d\"",
    "\"t\"",
    "\"i\"",
    "\"nodes\"",
    "\"frames\"",
    "\"ids\"",
    "\"closed\"",
    "\"#text\"",
    "\"\\u0000\"",
    "\"\\ud800\"",
    "[0,1,\"div\"]",
    "[99,\"x\"]",
    "{\"s\":\"open\"}",
    "\"é😀\"",
    "\"root\"",
    "\"f9e9\"",
];

#[derive(Debug, Clone)]
enum Mutation {
    Delete(usize, usize),
    Insert(usize, usize),
    Duplicate(usize, usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 0usize..12).prop_map(|(a, n)| Mutation::Delete(a, n)),
        (any::<usize>(), 0..TOKENS.len()).prop_map(|(a, t)| Mutation::Insert(a, t)),
        (any::<usize>(), 1usize..40).prop_map(|(a, n)| Mutation::Duplicate(a, n)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

/// Applies a mutation on char boundaries (seeds are ASCII, tokens may not be).
fn apply(text: &mut String, m: &Mutation) {
    let at = |text: &str, a: usize| {
        let mut i = a % (text.len() + 1);
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    match *m {
        Mutation::Delete(a, n) => {
            let i = at(text, a);
            let j = at(text, i + n);
            text.replace_range(i..j.max(i), "");
        }
        Mutation::Insert(a, t) => {
            let i = at(text, a);
            text.insert_str(i, TOKENS[t]);
        }
        Mutation::Duplicate(a, n) => {
            let i = at(text, a);
            let j = at(text, i + n).max(i);
            let piece = text[i..j].to_owned();
            text.insert_str(j, &piece);
        }
        Mutation::Truncate(a) => {
            let i = at(text, a);
            text.truncate(i);
        }
    }
}

/// A node in compact form with an arbitrary depth jump, id and tag.
fn node() -> impl Strategy<Value = String> {
    let tag = prop::sample::select(vec![
        "div", "a", "input", "button", "select", "option", "iframe", "label", "table", "tr", "td", "ul",
        "li", "h1", "img", "textarea", "details", "summary", "dialog", "x-y", "", "#text",
    ]);
    prop_oneof![
        (0u32..12, 0u64..40, tag.clone()).prop_map(|(d, i, t)| format!("[{d},{i},\"{t}\"]")),
        (0u32..12, "[a-z😀 \\\\\"]{0,12}")
            .prop_map(|(d, x)| format!("[{d},{}]", serde_json::to_string(&x).unwrap())),
        (
            0u32..12,
            0u64..40,
            tag,
            prop::sample::select(vec![
                r#"{"a":{"role":"button","aria-labelledby":"3 4"}}"#,
                r#"{"a":{"id":"3","for":"2","aria-hidden":"true"}}"#,
                r#"{"p":{"checked":true,"value":"v","opts":[],"label":"l"},"h":1}"#,
                r#"{"s":"open","f":1,"r":[0,0,1e308,-1]}"#,
                r#"{"a":{"tabindex":"-1","type":"password"},"p":{"value":"4111111111111111"}}"#,
                "null",
            ])
        )
            .prop_map(|(d, i, t, extra)| format!("[{d},{i},\"{t}\",{extra}]")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in "(?s).{0,400}") {
        let _ = Input::parse(&text);
        let _ = snapshot_json(&text);
    }

    #[test]
    fn mutated_tables_never_panic(seed in 0..SEEDS.len(), mutations in prop::collection::vec(mutation(), 1..8)) {
        let mut text = SEEDS[seed].to_owned();
        for m in &mutations {
            apply(&mut text, m);
        }
        let _ = snapshot_json(&text);
    }

    #[test]
    fn absurdly_shaped_trees_render_or_fail_cleanly(
        frames in prop::collection::vec(prop::collection::vec(node(), 0..40), 1..3),
        root in prop::option::of("f[0-3]e[0-9]{1,2}"),
        max_depth in prop::option::of(0u32..6),
        interactive in any::<bool>(),
    ) {
        let frames: Vec<String> = frames
            .iter()
            .enumerate()
            .map(|(ord, nodes)| format!(r#"{{"ordinal":{ord},"path":[{ord}],"nodes":[{}]}}"#, nodes.join(",")))
            .collect();
        let mut options = serde_json::json!({ "interactiveOnly": interactive });
        let root_given = root.is_some();
        if let Some(r) = root {
            options["root"] = serde_json::json!(r);
        }
        if let Some(d) = max_depth {
            options["maxDepth"] = serde_json::json!(d);
        }
        let text = format!(r#"{{"frames":[{}],"options":{options}}}"#, frames.join(","));
        let r = snapshot_json(&text);
        prop_assert!(r.is_ok() || root_given, "{r:?} {text}");
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    for open in ["[", "{\"a\":"] {
        let text = open.repeat(200_000);
        assert!(Input::parse(&text).is_err());
        assert!(snapshot_json(&text).is_err());
    }
}

#[test]
fn the_shapes_above_reach_the_renderer() {
    // The generated trees must mostly parse, or the property above only tests the parser.
    let text = r#"{"frames":[{"ordinal":0,"path":[0],"nodes":[[3,1,"div"],[0,"x"],[7,2,"input",{"s":"open","f":1,"r":[0,0,1e308,-1]}],[1,2,"label",{"a":{"id":"3","for":"2","aria-hidden":"true"}}]]}],"options":{"interactiveOnly":false,"root":"f0e2","maxDepth":1}}"#;
    let out = snapshot_json(text);
    assert!(out.is_ok() || format!("{out:?}").contains("root"), "{out:?}");
    let text = r##"{"frames":[{"ordinal":0,"path":[0],"nodes":[[3,1,"div"],[0,"x"],[7,2,"input",null],[1,4,"#text"]]}],"options":{"interactiveOnly":true}}"##;
    assert!(snapshot_json(text).is_ok(), "{:?}", snapshot_json(text));
}
