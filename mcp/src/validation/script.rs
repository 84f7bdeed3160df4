//! What one script does, read with the one JS parser and its scopes (never run): the
//! extension APIs it uses (only through the real `chrome`/`browser` globals or a variable
//! initialized from them), which of those it feature-tests first or calls only in a branch
//! of the build-time browser (`process.env.EXTENSION_PUBLIC_BROWSER`), `eval`, code from the
//! network, HTML built from values, and the scripts it loads (imports, `importScripts`,
//! `scripting.executeScript`).

use std::path::Path;

use oxc_allocator::Allocator;
use oxc_ast::AstKind;
use oxc_ast::ast::{
    ArrayExpressionElement, AssignmentExpression, AssignmentTarget, BinaryExpression, CallExpression,
    ConditionalExpression, Expression, IdentifierReference, IfStatement, ImportDeclaration, ImportExpression,
    LogicalExpression, NewExpression, ObjectPropertyKind, StaticMemberExpression, UnaryExpression,
};
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::{Semantic, SemanticBuilder};
use oxc_span::Span;
use oxc_syntax::operator::{BinaryOperator, UnaryOperator};
use oxc_syntax::symbol::SymbolId;

use super::files::Script;
use crate::build::js::{self, Goal};

/// How a script names another one to load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// `import … from "./x.js"`, `import("./x.js")`: relative to the importer, `./` required.
    Import,
    /// `importScripts("x.js")`: relative to the worker script.
    ImportScripts,
    /// `chrome.scripting.executeScript({files})`, `tabs.executeScript({file})`,
    /// `scripting.registerContentScripts([{js}])`: relative to the extension root.
    ExecuteScript,
}

impl Reach {
    pub fn label(self) -> &'static str {
        match self {
            Reach::Import => "import",
            Reach::ImportScripts => "importScripts",
            Reach::ExecuteScript => "scripting.executeScript",
        }
    }
}

/// Parses one script (as it is loaded; a classic script that only parses as a module is
/// read as one: bundlers take such files) and visits it.
pub fn parse_one(text: &str, s: &Script, found: &mut Found) -> Result<(), js::SyntaxError> {
    let alloc = Allocator::default();
    let path = Path::new(&s.rel);
    let goal = if s.module { Goal::Module } else { Goal::Script };
    let program = match js::parse(&alloc, text, path, goal) {
        Ok(p) => p,
        Err(first) if goal == Goal::Script => {
            js::parse(&alloc, text, path, Goal::Module).map_err(|_| first)?
        }
        Err(e) => return Err(e),
    };
    let semantic = SemanticBuilder::new().with_build_nodes(true).build(&program).semantic;
    let mut visitor = Visitor { sem: &semantic, found, browser_branch: 0 };
    visitor.visit_program(&program);
    Ok(())
}

#[derive(Default)]
pub struct Found {
    /// API path, where, whether the use itself is optional (`chrome.x?.y()`).
    pub apis: Vec<(String, Span, bool)>,
    /// API paths the code tests for (`if (chrome.x.y)`, `typeof chrome.x.y === "function"`).
    pub detected: Vec<String>,
    pub evals: Vec<(String, Span)>,
    pub remote: Vec<(String, Span)>,
    pub unsafe_html: Vec<(String, Span)>,
    pub imports: Vec<(String, Reach)>,
    pub network: bool,
}

/// Walks one parsed script with its scopes: a name counts as the extension API only when it
/// is the global `chrome`/`browser` or a variable initialized from one, never a local that
/// happens to carry the name (minified code reuses every short name).
struct Visitor<'s, 'a> {
    sem: &'s Semantic<'a>,
    found: &'s mut Found,
    /// How many branches on the build-time browser enclose the node visited: the build
    /// replaces the constant and drops the other browsers' branches, so an API called
    /// there is guarded as a feature test is.
    browser_branch: u32,
}

fn is_url(s: &str) -> bool {
    let l = s.trim().to_ascii_lowercase();
    l.starts_with("http://") || l.starts_with("https://") || l.starts_with("//")
}

/// A string literal, or a template literal without substitutions: HTML the author wrote.
fn is_literal(e: &Expression<'_>) -> bool {
    match e.get_inner_expression() {
        Expression::StringLiteral(_) => true,
        Expression::TemplateLiteral(t) => t.expressions.is_empty(),
        _ => false,
    }
}

fn string_arg(e: &Expression<'_>) -> Option<String> {
    match e.get_inner_expression() {
        Expression::StringLiteral(s) => Some(s.value.to_string()),
        Expression::TemplateLiteral(t) => t.quasis.first().map(|q| q.value.raw.to_string()),
        _ => None,
    }
}

impl Visitor<'_, '_> {
    /// Whether `e` is the extension API object: `chrome`, `browser`, `globalThis.chrome`,
    /// a variable initialized from one, or `a ?? b`, `a || b`, `c ? a : b` of those.
    fn is_api(&self, e: &Expression<'_>) -> bool {
        self.api_expr(e, None, 0)
    }

    fn api_expr(&self, e: &Expression<'_>, declaring: Option<SymbolId>, depth: u8) -> bool {
        if depth > 8 {
            return false;
        }
        match e.get_inner_expression() {
            Expression::Identifier(id) => self.api_ident(id, declaring, depth),
            Expression::StaticMemberExpression(m) => {
                matches!(m.property.name.as_str(), "chrome" | "browser")
                    && matches!(m.object.get_inner_expression(), Expression::Identifier(id)
                        if matches!(id.name.as_str(), "globalThis" | "window" | "self") && self.symbol(id).is_none())
            }
            Expression::LogicalExpression(l) => {
                self.api_expr(&l.left, declaring, depth) && self.api_expr(&l.right, declaring, depth)
            }
            Expression::ConditionalExpression(c) => {
                self.api_expr(&c.consequent, declaring, depth)
                    && self.api_expr(&c.alternate, declaring, depth)
            }
            _ => false,
        }
    }

    fn symbol(&self, id: &IdentifierReference<'_>) -> Option<SymbolId> {
        id.reference_id.get().and_then(|r| self.sem.scoping().get_reference(r).symbol_id())
    }

    /// The global `chrome`/`browser` (unbound, or `var browser = browser || chrome` naming
    /// itself), or a variable whose initializer is the API.
    fn api_ident(&self, id: &IdentifierReference<'_>, declaring: Option<SymbolId>, depth: u8) -> bool {
        let global = matches!(id.name.as_str(), "chrome" | "browser");
        match self.symbol(id) {
            None => global,
            Some(s) if Some(s) == declaring => global,
            Some(s) => match self.sem.nodes().kind(self.sem.scoping().symbol_declaration(s)) {
                AstKind::VariableDeclarator(d) => {
                    d.init.as_ref().is_some_and(|init| self.api_expr(init, Some(s), depth + 1))
                }
                _ => false,
            },
        }
    }

    /// `chrome.a.b.c` (or `browser.…`, `globalThis.chrome.…`, `api.…`) as `["a", "b", "c"]`,
    /// and whether a link of it is optional (`chrome.a?.b`).
    fn api_chain(&self, it: &StaticMemberExpression<'_>) -> Option<(Vec<String>, bool)> {
        let mut names = vec![it.property.name.to_string()];
        let mut optional = it.optional;
        let mut cur = it.object.get_inner_expression();
        while !self.is_api(cur) {
            match cur {
                Expression::StaticMemberExpression(m) => {
                    names.push(m.property.name.to_string());
                    optional |= m.optional;
                    cur = m.object.get_inner_expression();
                }
                _ => return None,
            }
        }
        names.reverse();
        names.truncate(3);
        Some((names, optional))
    }

    /// Whether condition `e` tests the browser the build is for: Extension.js's
    /// `process.env.EXTENSION_PUBLIC_BROWSER` (or `import.meta.env.…`), compared, negated,
    /// combined, passed to a call (`["firefox", "gecko-based"].includes(…)`), or a variable
    /// initialized from such a test (`const isFirefox = … === "firefox"`).
    fn browser_test(&self, e: &Expression<'_>, depth: u8) -> bool {
        if depth > 4 {
            return false;
        }
        match e.get_inner_expression() {
            Expression::StaticMemberExpression(m) => {
                m.property.name == "EXTENSION_PUBLIC_BROWSER"
                    && matches!(m.object.get_inner_expression(), Expression::StaticMemberExpression(env)
                        if env.property.name == "env")
            }
            Expression::BinaryExpression(b) => {
                b.operator.is_equality()
                    && (self.browser_test(&b.left, depth) || self.browser_test(&b.right, depth))
            }
            Expression::LogicalExpression(l) => {
                self.browser_test(&l.left, depth) || self.browser_test(&l.right, depth)
            }
            Expression::UnaryExpression(u) => {
                u.operator == UnaryOperator::LogicalNot && self.browser_test(&u.argument, depth)
            }
            Expression::CallExpression(c) => {
                c.arguments.iter().any(|a| a.as_expression().is_some_and(|a| self.browser_test(a, depth)))
            }
            Expression::Identifier(id) => self.symbol(id).is_some_and(|s| {
                match self.sem.nodes().kind(self.sem.scoping().symbol_declaration(s)) {
                    AstKind::VariableDeclarator(d) => {
                        d.init.as_ref().is_some_and(|init| self.browser_test(init, depth + 1))
                    }
                    _ => false,
                }
            }),
            _ => false,
        }
    }

    /// Records the API paths a condition tests: `chrome.x.y`, `!chrome.x`,
    /// `typeof chrome.x.y === "function"`, `"y" in chrome.x`, and `&&`/`||` of those.
    fn detect(&mut self, e: &Expression<'_>) {
        match e.get_inner_expression() {
            Expression::StaticMemberExpression(m) => {
                if let Some((names, _)) = self.api_chain(m) {
                    self.found.detected.push(names.join("."));
                }
            }
            Expression::UnaryExpression(u)
                if matches!(u.operator, UnaryOperator::LogicalNot | UnaryOperator::Typeof) =>
            {
                self.detect(&u.argument)
            }
            Expression::BinaryExpression(b) if b.operator == BinaryOperator::In => self.detect(&b.right),
            Expression::BinaryExpression(b) if b.operator.is_equality() => {
                self.detect(&b.left);
                self.detect(&b.right);
            }
            Expression::LogicalExpression(l) => {
                self.detect(&l.left);
                self.detect(&l.right);
            }
            _ => {}
        }
    }

    /// Scripts a `scripting.executeScript`-like call loads: `files`, `file`, `js` arrays.
    fn loaded_files(&mut self, e: &Expression<'_>) {
        let mut push = |v: &Expression<'_>| {
            if let Some(spec) = string_arg(v).filter(|s| !is_url(s)) {
                self.found.imports.push((spec, Reach::ExecuteScript));
            }
        };
        match e.get_inner_expression() {
            Expression::ObjectExpression(o) => {
                for p in &o.properties {
                    let ObjectPropertyKind::ObjectProperty(p) = p else { continue };
                    if !p.key.static_name().is_some_and(|k| matches!(k.as_ref(), "files" | "file" | "js")) {
                        continue;
                    }
                    match p.value.get_inner_expression() {
                        Expression::ArrayExpression(a) => {
                            for el in &a.elements {
                                if let Some(v) = el.as_expression() {
                                    push(v);
                                }
                            }
                        }
                        v => push(v),
                    }
                }
            }
            Expression::ArrayExpression(a) => {
                for el in &a.elements {
                    if let ArrayExpressionElement::ObjectExpression(_) = el
                        && let Some(v) = el.as_expression()
                    {
                        self.loaded_files(v);
                    }
                }
            }
            _ => {}
        }
    }
}

impl<'a> Visit<'a> for Visitor<'_, '_> {
    fn visit_static_member_expression(&mut self, it: &StaticMemberExpression<'a>) {
        if let Some((names, optional)) = self.api_chain(it) {
            self.found.apis.push((names.join("."), it.span, optional || self.browser_branch > 0));
            return;
        }
        walk::walk_static_member_expression(self, it);
    }

    fn visit_if_statement(&mut self, it: &IfStatement<'a>) {
        self.detect(&it.test);
        let branch = u32::from(self.browser_test(&it.test, 0));
        self.browser_branch += branch;
        walk::walk_if_statement(self, it);
        self.browser_branch -= branch;
    }

    fn visit_conditional_expression(&mut self, it: &ConditionalExpression<'a>) {
        self.detect(&it.test);
        let branch = u32::from(self.browser_test(&it.test, 0));
        self.browser_branch += branch;
        walk::walk_conditional_expression(self, it);
        self.browser_branch -= branch;
    }

    fn visit_logical_expression(&mut self, it: &LogicalExpression<'a>) {
        self.detect(&it.left);
        let branch = u32::from(self.browser_test(&it.left, 0));
        self.browser_branch += branch;
        walk::walk_logical_expression(self, it);
        self.browser_branch -= branch;
    }

    fn visit_unary_expression(&mut self, it: &UnaryExpression<'a>) {
        if it.operator == UnaryOperator::Typeof {
            self.detect(&it.argument);
        }
        walk::walk_unary_expression(self, it);
    }

    fn visit_binary_expression(&mut self, it: &BinaryExpression<'a>) {
        if it.operator == BinaryOperator::In {
            self.detect(&it.right);
        }
        walk::walk_binary_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        let first = it.arguments.first().and_then(|a| a.as_expression());
        if let Expression::StaticMemberExpression(m) = it.callee.get_inner_expression() {
            let loads = self.api_chain(m).is_some_and(|(n, _)| {
                matches!(
                    n.join(".").as_str(),
                    "scripting.executeScript" | "tabs.executeScript" | "scripting.registerContentScripts"
                )
            });
            if loads {
                for a in it.arguments.iter().filter_map(|a| a.as_expression()) {
                    self.loaded_files(a);
                }
            }
            let html_arg = match m.property.name.as_str() {
                "insertAdjacentHTML" => it.arguments.get(1).and_then(|a| a.as_expression()),
                "write" | "writeln" if m.object.is_specific_id("document") => first,
                _ => None,
            };
            if html_arg.is_some_and(|e| !is_literal(e)) {
                self.found.unsafe_html.push((format!("{}()", m.property.name), it.span));
            }
        }
        if let Expression::Identifier(id) = it.callee.get_inner_expression() {
            match id.name.as_str() {
                "eval" | "Function" => self.found.evals.push((format!("{}()", id.name), it.span)),
                "setTimeout" | "setInterval" if first.and_then(string_arg).is_some() => {
                    self.found.evals.push((format!("{} with a string", id.name), it.span))
                }
                "importScripts" => {
                    for a in &it.arguments {
                        match a.as_expression().and_then(string_arg) {
                            Some(url) if is_url(&url) => self.found.remote.push((url, it.span)),
                            Some(spec) => self.found.imports.push((spec, Reach::ImportScripts)),
                            None => {}
                        }
                    }
                }
                "fetch" => self.found.network = true,
                _ => {}
            }
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_assignment_expression(&mut self, it: &AssignmentExpression<'a>) {
        if let AssignmentTarget::StaticMemberExpression(m) = &it.left
            && matches!(m.property.name.as_str(), "innerHTML" | "outerHTML")
            && !is_literal(&it.right)
        {
            self.found.unsafe_html.push((format!("{} =", m.property.name), it.span));
        }
        walk::walk_assignment_expression(self, it);
    }

    fn visit_new_expression(&mut self, it: &NewExpression<'a>) {
        match it.callee.get_inner_expression() {
            Expression::Identifier(id) if id.name.as_str() == "Function" => {
                self.found.evals.push(("new Function()".into(), it.span))
            }
            Expression::Identifier(id)
                if matches!(id.name.as_str(), "XMLHttpRequest" | "WebSocket" | "EventSource") =>
            {
                self.found.network = true
            }
            _ => {}
        }
        walk::walk_new_expression(self, it);
    }

    fn visit_import_expression(&mut self, it: &ImportExpression<'a>) {
        if let Some(spec) = string_arg(&it.source) {
            if is_url(&spec) {
                self.found.remote.push((spec, it.span));
            } else {
                self.found.imports.push((spec, Reach::Import));
            }
        }
        walk::walk_import_expression(self, it);
    }

    fn visit_import_declaration(&mut self, it: &ImportDeclaration<'a>) {
        let spec = it.source.value.to_string();
        if is_url(&spec) {
            self.found.remote.push((spec, it.span));
        } else {
            self.found.imports.push((spec, Reach::Import));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Found {
        let mut f = Found::default();
        let s = Script { rel: "a.js".into(), path: "a.js".into(), module: false, via: "test".into() };
        parse_one(text, &s, &mut f).unwrap();
        f
    }

    #[test]
    fn api_uses_evals_and_remote_code_are_found() {
        let f = found(
            "chrome.storage.local.get('k'); browser.tabs.query({}); globalThis.chrome.sidePanel?.open({});\n\
             const api = globalThis.browser ?? globalThis.chrome; api.alarms.create('a');\n\
             const s = 'chrome.cookies.getAll'; // chrome.history.search\n\
             eval('1'); new Function('a', 'return a'); setTimeout('x()', 1); setTimeout(() => 1, 1);\n\
             importScripts('https://cdn.example.com/x.js'); import('https://cdn.example.com/m.js'); fetch('/x');\n\
             el.innerHTML = '<b>ok</b>'; el.innerHTML = data; el.insertAdjacentHTML('beforeend', `<i>${x}</i>`); document.write(s);",
        );
        let apis: Vec<&str> = f.apis.iter().map(|(a, _, _)| a.as_str()).collect();
        assert_eq!(apis, ["storage.local.get", "tabs.query", "sidePanel.open", "alarms.create"]);
        let evals: Vec<&str> = f.evals.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(evals, ["eval()", "new Function()", "setTimeout with a string"]);
        assert_eq!(f.remote.len(), 2);
        let html: Vec<&str> = f.unsafe_html.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(html, ["innerHTML =", "insertAdjacentHTML()", "write()"]);
        assert!(f.network);
    }

    #[test]
    fn only_the_real_globals_and_variables_set_from_them_are_the_api() {
        let f = found(
            "function f(chrome) { chrome.find(x); }\n\
             !function () { var browser = [1]; browser.filter(Boolean); }();\n\
             const api = globalThis.browser ?? chrome; api.alarms.create('a');\n\
             function g(api) { return api.history.search({}); }\n\
             var browser = browser || chrome; browser.cookies.getAll({});",
        );
        let apis: Vec<&str> = f.apis.iter().map(|(a, _, _)| a.as_str()).collect();
        assert_eq!(apis, ["alarms.create", "cookies.getAll"]);
    }

    #[test]
    fn feature_tests_and_optional_calls_are_told_apart_from_plain_calls() {
        let f = found(
            "if (browser.storage.local.getKeys) { browser.storage.local.getKeys(); }\n\
             chrome.sidePanel?.open({});\n\
             if (typeof chrome.action.openPopup === 'function') chrome.action.openPopup();\n\
             const ok = 'query' in chrome.search && chrome.userScripts;\n\
             chrome.storage.sync.get('k');",
        );
        let mut detected = f.detected.clone();
        detected.dedup();
        assert_eq!(detected, ["storage.local.getKeys", "action.openPopup", "search"]);
        let optional: Vec<&str> = f.apis.iter().filter(|(_, _, o)| *o).map(|(a, _, _)| a.as_str()).collect();
        assert_eq!(optional, ["sidePanel.open"]);
    }

    /// Extension.js's examples branch on the build-time browser (the build drops the other
    /// branch): a call there is guarded, not a browser-support warning for the other browser.
    #[test]
    fn calls_in_a_branch_on_the_build_time_browser_are_guarded() {
        let f = found(
            "const isFirefoxLike =\n  process.env.EXTENSION_PUBLIC_BROWSER === 'firefox' ||\n  \
             process.env.EXTENSION_PUBLIC_BROWSER === 'gecko-based';\n\
             if (isFirefoxLike) { browser.sidebarAction.open(); } else { chrome.sidePanel.open({}); }\n\
             import.meta.env.EXTENSION_PUBLIC_BROWSER !== 'chrome' && browser.menus.create({});\n\
             const label = process.env.EXTENSION_PUBLIC_BROWSER ? 'x' : 'y';\n\
             const isTab = location.hash === '#tab';\n\
             if (isTab) chrome.tabs.create({});\n\
             chrome.storage.sync.get('k');",
        );
        let guarded: Vec<&str> = f.apis.iter().filter(|(_, _, g)| *g).map(|(a, _, _)| a.as_str()).collect();
        assert_eq!(guarded, ["sidebarAction.open", "sidePanel.open", "menus.create"]);
        let plain: Vec<&str> = f.apis.iter().filter(|(_, _, g)| !*g).map(|(a, _, _)| a.as_str()).collect();
        assert_eq!(plain, ["tabs.create", "storage.sync.get"]);
    }

    #[test]
    fn scripts_a_script_loads_are_collected_with_how() {
        let f = found(
            "importScripts('lib/a.js', 'https://cdn.example.com/r.js');\n\
             chrome.scripting.executeScript({ target: { tabId: 1 }, files: ['inject/c.js'] });\n\
             chrome.scripting.registerContentScripts([{ id: 'x', js: ['cs/r.js'], matches: ['<all_urls>'] }]);\n\
             import('./m.js');",
        );
        assert_eq!(
            f.imports,
            [
                ("lib/a.js".to_owned(), Reach::ImportScripts),
                ("inject/c.js".to_owned(), Reach::ExecuteScript),
                ("cs/r.js".to_owned(), Reach::ExecuteScript),
                ("./m.js".to_owned(), Reach::Import),
            ]
        );
        assert_eq!(f.remote.len(), 1);
    }
}
