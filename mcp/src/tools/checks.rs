//! Checks of the whole tool surface that no one layer can make alone: every tool listed
//! with a proper schema, every helper answer decoded loudly, every tool a hint names real.

use serde_json::{Value, json};

use super::*;

#[test]
fn default_tools_exist() {
    for name in DEFAULT_TOOLS {
        assert!(find(name).is_some(), "DEFAULT_TOOLS names `{name}`, which is no tool");
    }
}

#[test]
fn every_tool_has_an_object_schema_and_unique_name() {
    let mut names = std::collections::HashSet::new();
    for t in registry() {
        assert!(names.insert(t.name), "duplicate tool {}", t.name);
        let schema = (t.input_schema)();
        assert_eq!(schema.get("type"), Some(&Value::String("object".into())), "{}", t.name);
        assert!(!t.description.is_empty());
    }
}

/// Every typed method's answer decodes through the bridge's one decoder, and an answer that
/// lacks its fields is `INTERNAL` naming the method (the types themselves live beside each
/// method in `webext_mcp_host::protocol::methods`; their fields are held to the protocol
/// table there).
#[test]
fn every_typed_answer_fails_loudly_when_fields_are_missing() {
    use webext_mcp_host::protocol::methods::{Method, Visit, visit_typed};

    struct EmptyAnswers(Vec<&'static str>);
    impl Visit for EmptyAnswers {
        fn visit<M: Method + serde::de::DeserializeOwned>(&mut self) {
            let e = crate::bridge::results::decode::<M::Result>(M::NAME, json!({}))
                .map(drop)
                .expect_err("an empty object lacks the result's fields");
            assert!(e.message.contains(&format!("`{}` result", M::NAME)), "{}", e.message);
            self.0.push(M::NAME);
        }
    }
    let mut seen = EmptyAnswers(Vec::new());
    visit_typed(&mut seen);
    assert!(seen.0.len() >= 35, "only {} typed methods", seen.0.len());
}

/// Words in string literals that name a tool: `run `x``, `call `x``, `tool `x`` and
/// snake_case words that start like a registered tool's name (`extension_…`, `list_…`).
fn tool_mentions(source: &str, prefixes: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for line in source.lines().filter(|l| !l.trim_start().starts_with("//")) {
        for literal in line.split('"').skip(1).step_by(2) {
            for lead in ["run `", "call `", "tool `", "call "] {
                for (at, _) in literal.match_indices(lead) {
                    let rest = &literal[at + lead.len()..];
                    let word: String =
                        rest.chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').collect();
                    let after = rest[word.len()..].chars().next();
                    let whole = if lead.ends_with('`') { after == Some('`') } else { word.contains('_') };
                    if !word.is_empty() && whole && !out.contains(&word) {
                        out.push(word);
                    }
                }
            }
            for word in literal.split(|c: char| !(c.is_ascii_lowercase() || c == '_')) {
                let first = word.split('_').next().unwrap_or("");
                let seen = out.iter().any(|w| w == word);
                if word.contains('_') && !word.ends_with('_') && prefixes.contains(&first) && !seen {
                    out.push(word.to_owned());
                }
            }
        }
    }
    out
}

/// Every tool a hint or message tells the agent to call exists (a hint once sent agents
/// to a `validate` tool there is none of).
#[test]
fn every_tool_a_hint_names_exists() {
    // Words shaped like tool names that name something else: a page action, an MCP
    // notification, an inspect event, a console source.
    // Words that look like tool names: MCP terms, event names and manifest keys.
    const NOT_TOOLS: [&str; 6] = [
        "fill_form",
        "list_changed",
        "extension_root_tree",
        "extension_page",
        "extension_ids",
        "extension_pages",
    ];
    let names: Vec<&str> = crate::tools::registry().iter().map(|t| t.name).collect();
    let prefixes: Vec<&str> = names.iter().filter_map(|n| n.split('_').next()).collect();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    let mut dirs = vec![root.join("mcp/src"), root.join("host/src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    assert!(files.len() > 30);
    let mut unknown = Vec::new();
    for path in files {
        let source = std::fs::read_to_string(&path).unwrap();
        // Tests name tools that must not exist; only the code's own strings count.
        let code = source.split("#[cfg(test)]").next().unwrap_or("");
        for word in tool_mentions(code, &prefixes) {
            if !names.contains(&word.as_str()) && !NOT_TOOLS.contains(&word.as_str()) {
                unknown.push(format!("{}: {word}", path.display()));
            }
        }
    }
    assert!(unknown.is_empty(), "hints name tools that do not exist: {unknown:#?}");
    assert_eq!(tool_mentions(r#"x("run `validate` on it")"#, &prefixes), ["validate"]);
    assert_eq!(
        tool_mentions(r#"x("call list_pages, then `extension_nope`")"#, &prefixes),
        ["list_pages", "extension_nope"]
    );
    assert!(tool_mentions(r#"x("run `webext-mcp install`")"#, &prefixes).is_empty());
}

/// The README's tool table lists every tool under its toolset, and says how many there are.
#[test]
fn the_readme_lists_every_tool_under_its_toolset() {
    let readme = include_str!("../../../README.md");
    let row = |set: &str| {
        readme
            .lines()
            .find(|l| l.starts_with(&format!("| `{set}` |")))
            .unwrap_or_else(|| panic!("README has no row for toolset `{set}`"))
            .to_owned()
    };
    for t in registry() {
        let line = row(t.toolset.name());
        assert!(
            line.contains(&format!("`{}`", t.name)),
            "README's `{}` row lacks `{}`",
            t.toolset.name(),
            t.name
        );
        let bold = line.contains(&format!("**`{}`**", t.name));
        assert_eq!(
            bold,
            DEFAULT_TOOLS.contains(&t.name),
            "README: `{}` is bold only when it is a default tool",
            t.name
        );
    }
    assert!(readme.contains(&format!(
        "{} tools. The {} of the default",
        registry().len(),
        DEFAULT_TOOLS.len()
    )));
}
