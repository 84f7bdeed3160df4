//! Checks of the whole tool surface that no one layer can make alone: every tool listed
//! with a proper schema, every helper answer typed (the answer types live in the bridge and
//! beside their tools), every tool a hint names real.

use serde_json::{Value, json};
use webext_mcp_host::protocol::ErrorBody;

use super::*;
use crate::bridge::containers::ContainerList;
use crate::bridge::results::*;

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

/// Decodes `value` as `method`'s result type; `None` for a method with no type here.
fn decode_for(method: &str, value: Value) -> Option<Result<(), ErrorBody>> {
    use webext_mcp_host::protocol::methods::*;

    use crate::bridge::results::decode;
    Some(match method {
        TABS_LIST => decode::<TabList>(method, value).map(drop),
        TABS_NEW | TABS_NAVIGATE | TABS_SELECT => decode::<TabReply>(method, value).map(drop),
        TABS_CLOSE => decode::<Closed>(method, value).map(drop),
        BROWSER_INFO => decode::<BrowserInfo>(method, value).map(drop),
        PING => decode::<Pong>(method, value).map(drop),
        PAGE_SNAPSHOT | PAGE_TEXT | PAGE_FIND => decode::<Snapshot>(method, value).map(drop),
        PAGE_CLEAR_SNAPSHOT => decode::<Cleared>(method, value).map(drop),
        PAGE_RESOLVE_REF => decode::<Resolved>(method, value).map(drop),
        PAGE_ACT | PAGE_UPLOAD => decode::<Acted>(method, value).map(drop),
        PAGE_UPLOAD_CHUNK => decode::<Staged>(method, value).map(drop),
        PAGE_UPLOAD_OPEN => decode::<UploadOpened>(method, value).map(drop),
        PAGE_UPLOAD_CANCEL => decode::<UploadCancelled>(method, value).map(drop),
        PAGE_FILL_FORM => decode::<FormFilled>(method, value).map(drop),
        PAGE_WAIT_FOR => decode::<Waited>(method, value).map(drop),
        PAGE_EVALUATE => decode::<Evaluated>(method, value).map(drop),
        PAGE_DIALOG => decode::<DialogReply>(method, value).map(drop),
        CONTAINERS_LIST => decode::<ContainerList>(method, value).map(drop),
        // These answers are declared beside the tools that read them.
        PAGE_SCREENSHOT => decode::<crate::tools::capture::screenshot::Screenshot>(method, value).map(drop),
        PAGE_RESIZE => decode::<crate::tools::pages::viewport::Resized>(method, value).map(drop),
        PAGE_EMULATE => decode::<crate::tools::pages::viewport::Emulated>(method, value).map(drop),
        COOKIES_GET => decode::<crate::tools::storage::cookies::CookieList>(method, value).map(drop),
        COOKIES_SET => decode::<crate::tools::storage::cookies::SetReply>(method, value).map(drop),
        COOKIES_CLEAR => decode::<crate::tools::storage::cookies::ClearReply>(method, value).map(drop),
        STORAGE_GET => decode::<crate::tools::storage::web_storage::Listing>(method, value).map(drop),
        STORAGE_SET => decode::<crate::tools::storage::web_storage::SetReply>(method, value).map(drop),
        STORAGE_CLEAR => decode::<crate::tools::storage::web_storage::ClearReply>(method, value).map(drop),
        CONSOLE_LIST => decode::<crate::tools::observe::console::ConsoleList>(method, value).map(drop),
        CONSOLE_CLEAR => decode::<crate::tools::observe::console::ConsoleCleared>(method, value).map(drop),
        NETWORK_LIST => decode::<crate::tools::observe::network::NetworkList>(method, value).map(drop),
        NETWORK_GET => decode::<crate::tools::observe::network::Got>(method, value).map(drop),
        _ => return None,
    })
}

/// Every method the helper answers has a result type: a method added to the protocol
/// table without one fails here. (`debug.digest` is answered raw to the e2e tests that
/// check framing; no tool reads it.)
#[test]
fn every_extension_method_has_a_typed_result() {
    use webext_mcp_host::protocol::methods::{DEBUG_DIGEST, METHODS, Target};
    for m in METHODS.iter().filter(|m| m.target == Target::Extension && m.name != DEBUG_DIGEST) {
        let empty = decode_for(m.name, json!({}))
            .unwrap_or_else(|| panic!("`{}` has no result type in bridge/results.rs", m.name));
        let e = empty.expect_err("an empty object lacks the result's fields");
        assert!(e.message.contains(&format!("`{}` result", m.name)), "{}", e.message);
    }
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
