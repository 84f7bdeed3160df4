//! The build side of Extension.js's content-script contract (the run-time side is
//! `mount.js`, appended by `emit.rs`): a content script that calls its own default export
//! (`export default function mount() {…}` then `mount()`) would mount twice once the contract
//! calls it, so such calls are removed, as 4.1.26's wrapper does ("Removed direct call to
//! mount() to prevent double mount"). Its wrapper matches `name()` alone on a line anywhere
//! in the file, for a default export that is a named function or an identifier; here the
//! same calls are found as statements in the parsed tree.

use std::path::Path;

use oxc_ast::ast::{ExportDefaultDeclarationKind, Expression, ExpressionStatement, Statement};
use oxc_ast_visit::{Visit, walk};

use crate::build::js::{self, Goal};

/// `text` (JavaScript) with every statement `name();` calling the default export `name`
/// blanked (spaces, so every other offset, line and column stays), and each call's offset
/// with the name; `None` when there is none (or the text does not parse: the link reports
/// that).
pub fn self_calls(text: &str) -> Option<(String, Vec<(u32, String)>)> {
    // Cheap test first: most entries export no named default, or never call it.
    let name = default_name_guess(text)?;
    if text.matches(&format!("{name}(")).count() + text.matches(&format!("{name} (")).count() < 2 {
        return None;
    }
    let spans = js::guarded(text, || {
        js::with_arena(|alloc| {
            let program = js::parse(alloc, text, Path::new("entry.js"), Goal::Module)?;
            let Some(name) = default_name(&program.body) else { return Ok(Vec::new()) };
            let mut finder = Calls { name: &name, found: Vec::new() };
            finder.visit_program(&program);
            Ok(finder.found.into_iter().map(|(s, e)| (s, e, name.clone())).collect::<Vec<_>>())
        })
    })
    .ok()?;
    if spans.is_empty() {
        return None;
    }
    let mut out = text.as_bytes().to_vec();
    let mut calls = Vec::new();
    for (start, end, name) in spans {
        for b in &mut out[start as usize..end as usize] {
            if *b != b'\n' && *b != b'\r' {
                *b = b' ';
            }
        }
        calls.push((start, name));
    }
    // Only ASCII statement text was replaced by spaces, so the bytes stay UTF-8.
    Some((String::from_utf8(out).ok()?, calls))
}

/// The name after `export default` (`function name(` or `name`), read without a parse.
fn default_name_guess(text: &str) -> Option<String> {
    let at = text.find("export default")?;
    let rest = text[at + "export default".len()..].trim_start();
    let rest = rest.strip_prefix("async").map_or(rest, str::trim_start);
    let rest = rest.strip_prefix("function").map_or(rest, |r| r.trim_start_matches('*').trim_start());
    let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$').collect();
    (!name.is_empty()).then_some(name)
}

fn default_name(body: &[Statement<'_>]) -> Option<String> {
    body.iter().find_map(|s| match s {
        Statement::ExportDefaultDeclaration(d) => match &d.declaration {
            ExportDefaultDeclarationKind::FunctionDeclaration(f) => f.id.as_ref().map(|i| i.name.to_string()),
            ExportDefaultDeclarationKind::Identifier(i) => Some(i.name.to_string()),
            _ => None,
        },
        _ => None,
    })
}

struct Calls<'n> {
    name: &'n str,
    found: Vec<(u32, u32)>,
}

impl<'a> Visit<'a> for Calls<'_> {
    fn visit_expression_statement(&mut self, it: &ExpressionStatement<'a>) {
        if let Expression::CallExpression(call) = it.expression.without_parentheses()
            && let Expression::Identifier(callee) = &call.callee
            && callee.name == self.name
            && call.arguments.is_empty()
        {
            self.found.push((it.span.start, it.span.end));
            return;
        }
        walk::walk_expression_statement(self, it);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_self_call_is_blanked_in_place() {
        let text = "export default function mount() {\n  return 1\n}\nmount();\nif (x) {\n  mount()\n}\nother(mount);\nmount(1);\n";
        let (out, calls) = self_calls(text).unwrap();
        assert_eq!(out.len(), text.len());
        assert_eq!(calls.iter().map(|(_, n)| n.as_str()).collect::<Vec<_>>(), ["mount", "mount"]);
        assert!(out.contains("}\n        \nif (x) {\n         \n}\nother(mount);\nmount(1);"), "{out}");
    }

    #[test]
    fn identifiers_and_unnamed_defaults() {
        let (out, _) = self_calls("function go() {}\ngo()\nexport default go\n").unwrap();
        assert_eq!(out, "function go() {}\n    \nexport default go\n");
        assert!(self_calls("export default () => 1;\n(() => 1)();\n").is_none());
        assert!(self_calls("export default function mount() {}\n").is_none());
    }
}
