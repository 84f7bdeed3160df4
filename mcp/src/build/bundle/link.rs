//! One module turned into a function of the bundle (see `emit.rs` for the runtime): its
//! `import`s become requires of module ids hoisted to the top, references to imported
//! bindings read the exporter's namespace (`$wx_m0.name`: live, like ES modules), its
//! `export`s become getters on its exports object, `import()` of a bundled module becomes a
//! promise of it, and CommonJS `require("x")` becomes `require(id)`.
//!
//! Edits are spliced by span into the JavaScript text, so everything else stays as written.
//! `if ("production" !== "production") …` (what env replacement leaves of the `NODE_ENV`
//! checks in libraries) drops the dead branch, and its requires are never bundled.

use std::collections::HashMap;
use std::path::Path;

use oxc_allocator::Allocator;
use oxc_ast::ast::{
    BinaryExpression, CallExpression, ComputedMemberExpression, ConditionalExpression,
    ExportDefaultDeclarationKind, Expression, IdentifierReference, IfStatement, ImportDeclarationSpecifier,
    ImportExpression, ImportMeta, ModuleDeclaration, ModuleExportName, NewExpression, ObjectProperty,
    Statement, StaticMemberExpression, TaggedTemplateExpression,
};
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::{Scoping, SemanticBuilder};
use oxc_span::{GetSpan, Span};
use oxc_syntax::operator::BinaryOperator;
use oxc_syntax::scope::ScopeFlags;
use oxc_syntax::symbol::SymbolId;

use super::resolve::Unresolved;
use crate::build::env::PublicEnv;
use crate::build::inject::{self, Leftover};
use crate::build::js::{self, Goal, SyntaxError};
use crate::build::splice::{self, Segment};
use syntax::{binds_require, declared_names, literal_specifier, member, quote, url_of_module};

/// What a module asks for: `Ok(id)` of the bundled module, or why it cannot be had.
pub type Resolve<'r> = dyn FnMut(&str) -> Result<usize, Unresolved> + Send + 'r;

/// A problem in one module, at a byte offset of the text given to [`link`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    pub offset: u32,
    pub specifier: Option<String>,
    pub kind: IssueKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IssueKind {
    Unresolved(Unresolved),
    /// `await` at the top level: a bundle runs each module as a function.
    TopLevelAwait,
    /// `import(x)` with a computed specifier: left to the browser, which resolves it
    /// against the page, not the source tree.
    DynamicImport,
    /// A content script's call of its own default export (`mount()`), removed so the mount
    /// contract mounts it once (4.1.26 removes it too); the specifier is the name.
    SelfCallRemoved,
}

/// A linked module: the function expression for the bundle.
#[derive(Debug, Clone)]
pub struct Linked {
    pub function: String,
    /// ES module (strict, exports as getters) rather than CommonJS/script.
    pub esm: bool,
    pub issues: Vec<Issue>,
    /// Where the module's own text starts in `function` (after the generated head), and where
    /// each piece of it came from in the text given to [`link`] (for source maps).
    pub body_start: u32,
    pub segments: Vec<Segment>,
    /// With an env: the `process.env` uses that stay (positions in the text given), and
    /// every env name the module looked up (what its linked text depends on).
    pub leftovers: Vec<Leftover>,
    pub env_names: Vec<String>,
    /// A CommonJS module whose only edits were its `require("…")` arguments, with no issue:
    /// each argument's span in the text given and the module id it became (what a renamed
    /// copy of the same text needs to be linked without a parse of its own).
    pub require_ids: Option<Vec<(Span, usize)>>,
    /// Specifiers `new URL("…", import.meta.url)` named, and those of them never imported:
    /// the latter's modules are not the importer's dependencies (their CSS is not the
    /// bundle's).
    pub urls: Vec<String>,
    pub url_only: Vec<String>,
}

/// Links `text` (JavaScript, the module at `path`). `url` is what `import.meta.url` becomes
/// (an expression). With `env`, `process.env.X`/`import.meta.env.X` are replaced on the same
/// parse (instead of a parse of its own before linking).
pub fn link(
    text: &str,
    path: &Path,
    url: &str,
    env: Option<&PublicEnv>,
    resolve: &mut Resolve<'_>,
) -> Result<Linked, SyntaxError> {
    // `path` names the module for the caller; the text is JavaScript by now (TypeScript and
    // JSX were compiled), so it is parsed as such whatever its name.
    let _ = path;
    js::guarded(text, || js::with_arena(|alloc| link_unguarded(alloc, text, url, env, resolve)))
}

fn link_unguarded(
    alloc: &Allocator,
    text: &str,
    url: &str,
    env: Option<&PublicEnv>,
    resolve: &mut Resolve<'_>,
) -> Result<Linked, SyntaxError> {
    let program = js::parse(alloc, text, Path::new("module.js"), Goal::Module)?;
    let esm = program
        .body
        .iter()
        .any(|s| matches!(s, Statement::ImportDeclaration(_)) || s.as_module_declaration().is_some());
    // Scopes say which identifiers are imported bindings and whether `require` is the free
    // one; a module with no imports that binds no `require` needs neither (most of
    // node_modules: CommonJS), and semantic analysis costs as much as the parse.
    let imports = program.body.iter().any(|s| matches!(s, Statement::ImportDeclaration(_)));
    let sem = (imports || binds_require(&program, text)).then(|| SemanticBuilder::new().build(&program));
    let scoping = sem.as_ref().map(|s| s.semantic.scoping());
    let found = env
        .filter(|_| text.contains("process") || text.contains("import.meta"))
        .map(|e| inject::find(&program, text, e))
        .unwrap_or_default();
    let mut l = Linker {
        scoping,
        env,
        resolve,
        url,
        edits: found.edits,
        issues: Vec::new(),
        imports: HashMap::new(),
        requires: Vec::new(),
        require_ids: Vec::new(),
        getters: Vec::new(),
        stars: Vec::new(),
        depth: 0,
        esm,
        urls: Vec::new(),
        imported: Vec::new(),
    };
    for stmt in &program.body {
        l.top_level(stmt);
    }
    let require_ids = (!esm && l.issues.is_empty() && l.edits.len() == l.require_ids.len())
        .then(|| std::mem::take(&mut l.require_ids));
    let mut url_only: Vec<String> = l.urls.iter().filter(|u| !l.imported.contains(u)).cloned().collect();
    url_only.dedup();
    let body = splice::splice(text, &mut l.edits);
    let mut function = String::with_capacity(body.text.len() + 256);
    if esm {
        function.push_str("function ($wx_e, $wx_r) {\n\"use strict\";\n");
        if !l.getters.is_empty() {
            function.push_str("$wx_r.d($wx_e, {");
            for (i, (name, value)) in l.getters.iter().enumerate() {
                if i > 0 {
                    function.push_str(", ");
                }
                function.push_str(&format!("{}: () => {value}", quote(name)));
            }
            function.push_str("});\n");
        }
        for (var, id) in &l.requires {
            function.push_str(&format!("var {var} = $wx_r.i({id});\n"));
        }
        for var in &l.stars {
            function.push_str(&format!("$wx_r.s($wx_e, {var});\n"));
        }
    } else {
        function.push_str("function (module, exports, require) {\n");
    }
    let body_start = function.len() as u32;
    function.push_str(&body.text);
    function.push_str("\n}");
    Ok(Linked {
        function,
        esm,
        issues: l.issues,
        body_start,
        segments: body.segments,
        leftovers: found.leftovers,
        env_names: found.names,
        require_ids,
        url_only,
        urls: l.urls,
    })
}

struct Linker<'s, 'r, 'x> {
    /// `None` when the module has no imports and binds no `require` (see [`binds_require`]).
    scoping: Option<&'s Scoping>,
    /// Env values the `NODE_ENV` checks compare (replaced on this parse), when given.
    env: Option<&'s PublicEnv>,
    resolve: &'x mut Resolve<'r>,
    url: &'s str,
    edits: Vec<(Span, String)>,
    issues: Vec<Issue>,
    /// Imported binding → what reads it (`$wx_m0.name`, `$wx_m0` for a namespace).
    imports: HashMap<SymbolId, String>,
    /// Namespace variable → module id, in import order.
    requires: Vec<(String, usize)>,
    /// A CommonJS `require("…")`'s argument → the module id it became.
    require_ids: Vec<(Span, usize)>,
    /// Exported name → expression giving its current value.
    getters: Vec<(String, String)>,
    /// Namespaces re-exported with `export * from`.
    stars: Vec<String>,
    /// Function nesting (0 = module top level), for top-level `await`.
    depth: usize,
    /// An ES module's function has no `require` parameter: its requires call `$wx_r`.
    esm: bool,
    /// Specifiers named by `new URL("…", import.meta.url)`, and those imported or required.
    urls: Vec<String>,
    imported: Vec<String>,
}

impl Linker<'_, '_, '_> {
    fn remove(&mut self, span: Span) {
        self.edits.push((span, String::new()));
    }

    /// The namespace variable for `specifier` (resolved once per module), or `None` with an
    /// issue recorded.
    fn namespace(&mut self, specifier: &str, at: u32) -> Option<String> {
        self.imported.push(specifier.to_owned());
        match (self.resolve)(specifier) {
            Ok(id) => {
                if let Some((var, _)) = self.requires.iter().find(|(_, i)| *i == id) {
                    return Some(var.clone());
                }
                let var = format!("$wx_m{}", self.requires.len());
                self.requires.push((var.clone(), id));
                Some(var)
            }
            Err(why) => {
                self.issues.push(Issue {
                    offset: at,
                    specifier: Some(specifier.to_owned()),
                    kind: IssueKind::Unresolved(why),
                });
                None
            }
        }
    }

    fn top_level(&mut self, stmt: &Statement<'_>) {
        let Some(decl) = stmt.as_module_declaration() else {
            self.visit_statement(stmt);
            return;
        };
        match decl {
            ModuleDeclaration::ImportDeclaration(imp) => {
                self.remove(imp.span);
                let Some(ns) = self.namespace(imp.source.value.as_str(), imp.source.span.start) else {
                    return;
                };
                for spec in imp.specifiers.iter().flatten() {
                    let (symbol, read) = match spec {
                        ImportDeclarationSpecifier::ImportSpecifier(s) => {
                            (s.local.symbol_id(), member(&ns, &s.imported.name()))
                        }
                        ImportDeclarationSpecifier::ImportDefaultSpecifier(s) => {
                            (s.local.symbol_id(), format!("{ns}.default"))
                        }
                        ImportDeclarationSpecifier::ImportNamespaceSpecifier(s) => {
                            (s.local.symbol_id(), ns.clone())
                        }
                    };
                    self.imports.insert(symbol, read);
                }
            }
            ModuleDeclaration::ExportDeclaration(exp) => {
                self.remove(Span::new(exp.span.start, exp.declaration.span().start));
                let mut names = Vec::new();
                declared_names(&exp.declaration, &mut names);
                for n in names {
                    self.getters.push((n.clone(), n));
                }
                self.visit_declaration(&exp.declaration);
            }
            ModuleDeclaration::ExportDefaultDeclaration(exp) => {
                let start = exp.declaration.span().start;
                let named = match &exp.declaration {
                    ExportDefaultDeclarationKind::FunctionDeclaration(f) => {
                        f.id.as_ref().map(|i| i.name.to_string())
                    }
                    ExportDefaultDeclarationKind::ClassDeclaration(c) => {
                        c.id.as_ref().map(|i| i.name.to_string())
                    }
                    _ => None,
                };
                match named {
                    Some(name) => {
                        self.remove(Span::new(exp.span.start, start));
                        self.getters.push(("default".into(), name));
                    }
                    None => {
                        self.edits.push((Span::new(exp.span.start, start), "var $wx_default = ".into()));
                        let end = exp.declaration.span().end;
                        self.edits.push((Span::new(end, end), ";".into()));
                        self.getters.push(("default".into(), "$wx_default".into()));
                    }
                }
                match &exp.declaration {
                    ExportDefaultDeclarationKind::FunctionDeclaration(f) => {
                        self.visit_function(f, ScopeFlags::Function)
                    }
                    ExportDefaultDeclarationKind::ClassDeclaration(c) => self.visit_class(c),
                    ExportDefaultDeclarationKind::TSInterfaceDeclaration(_) => {}
                    other => {
                        if let Some(e) = other.as_expression() {
                            self.visit_expression(e);
                        }
                    }
                }
            }
            ModuleDeclaration::ExportNamedDeclaration(exp) => {
                self.remove(exp.span);
                for s in &exp.specifiers {
                    let exported = s.exported.name().to_string();
                    let value = match &s.local {
                        ModuleExportName::IdentifierReference(r) => {
                            self.imported(r).unwrap_or_else(|| r.name.to_string())
                        }
                        other => other.name().to_string(),
                    };
                    self.getters.push((exported, value));
                }
            }
            ModuleDeclaration::ExportFromDeclaration(exp) => {
                self.remove(exp.span);
                let Some(ns) = self.namespace(exp.source.value.as_str(), exp.source.span.start) else {
                    return;
                };
                for s in &exp.specifiers {
                    self.getters.push((s.exported.name().to_string(), member(&ns, &s.local.name())));
                }
            }
            ModuleDeclaration::ExportAllDeclaration(exp) => {
                self.remove(exp.span);
                let Some(ns) = self.namespace(exp.source.value.as_str(), exp.source.span.start) else {
                    return;
                };
                match &exp.exported {
                    Some(name) => self.getters.push((name.name().to_string(), ns)),
                    None => self.stars.push(ns),
                }
            }
            ModuleDeclaration::TSExportAssignment(_) | ModuleDeclaration::TSNamespaceExportDeclaration(_) => {
                self.remove(decl.span())
            }
        }
    }

    /// What reads the imported binding `r` refers to, if it is one.
    fn imported(&self, r: &IdentifierReference<'_>) -> Option<String> {
        if self.imports.is_empty() {
            return None;
        }
        let symbol = self.scoping?.get_reference(r.reference_id.get()?).symbol_id()?;
        self.imports.get(&symbol).cloned()
    }

    /// A `require` that refers to no binding of the module (CommonJS's).
    fn is_free_require(&self, callee: &Expression<'_>) -> bool {
        let Expression::Identifier(r) = callee else { return false };
        if r.name != "require" {
            return false;
        }
        match self.scoping {
            Some(s) => r.reference_id.get().is_some_and(|id| s.get_reference(id).symbol_id().is_none()),
            // Nothing in the module binds `require`.
            None => true,
        }
    }

    /// `"a" === "b"` and friends, with env accesses read as the values they are replaced
    /// by: what `process.env.NODE_ENV` checks become.
    fn constant(&self, e: &Expression<'_>) -> Option<bool> {
        let Expression::BinaryExpression(b) = e.without_parentheses() else { return None };
        let BinaryExpression { left, right, operator, .. } = &**b;
        let same = self.string(left.without_parentheses())? == self.string(right.without_parentheses())?;
        match operator {
            BinaryOperator::StrictEquality | BinaryOperator::Equality => Some(same),
            BinaryOperator::StrictInequality | BinaryOperator::Inequality => Some(!same),
            _ => None,
        }
    }

    fn string<'b>(&'b self, e: &'b Expression<'_>) -> Option<&'b str> {
        match e {
            Expression::StringLiteral(s) => Some(s.value.as_str()),
            other => self.env.and_then(|env| inject::env_value(other, env)),
        }
    }
}

impl<'a> Visit<'a> for Linker<'_, '_, '_> {
    // An env access is replaced as a whole (by `inject::find`), when an env is given.
    fn visit_static_member_expression(&mut self, it: &StaticMemberExpression<'a>) {
        if self.env.is_some() && inject::is_env_access_static(it) {
            return;
        }
        walk::walk_static_member_expression(self, it);
    }

    fn visit_computed_member_expression(&mut self, it: &ComputedMemberExpression<'a>) {
        if self.env.is_some() && inject::is_env_access_computed(it) {
            self.visit_expression(&it.expression);
            return;
        }
        walk::walk_computed_member_expression(self, it);
    }

    fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
        if let Some(read) = self.imported(it) {
            self.edits.push((it.span, read));
        }
    }

    fn visit_object_property(&mut self, it: &ObjectProperty<'a>) {
        if it.shorthand
            && let Expression::Identifier(r) = &it.value
            && let Some(read) = self.imported(r)
        {
            self.edits.push((it.span, format!("{}: {read}", r.name)));
            return;
        }
        walk::walk_object_property(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        if let Expression::Identifier(r) = &it.callee
            && let Some(read) = self.imported(r)
        {
            // `(0, ns.f)()`: called without `ns` as `this`, as the import would be.
            self.edits.push((r.span, format!("(0, {read})")));
            for a in &it.arguments {
                self.visit_argument(a);
            }
            return;
        }
        if self.is_free_require(&it.callee)
            && it.arguments.len() == 1
            && let Some(arg) = it.arguments[0].as_expression()
            && let Some(spec) = literal_specifier(arg)
        {
            self.imported.push(spec.clone());
            match (self.resolve)(&spec) {
                Ok(id) => {
                    if self.esm {
                        self.edits.push((it.callee.span(), "$wx_r".into()));
                    } else {
                        self.require_ids.push((arg.span(), id));
                    }
                    self.edits.push((arg.span(), id.to_string()));
                }
                Err(why) => self.issues.push(Issue {
                    offset: arg.span().start,
                    specifier: Some(spec),
                    kind: IssueKind::Unresolved(why),
                }),
            }
            return;
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_tagged_template_expression(&mut self, it: &TaggedTemplateExpression<'a>) {
        if let Expression::Identifier(r) = &it.tag
            && let Some(read) = self.imported(r)
        {
            self.edits.push((r.span, format!("(0, {read})")));
            self.visit_template_literal(&it.quasi);
            return;
        }
        walk::walk_tagged_template_expression(self, it);
    }

    /// `new URL("./x.css", import.meta.url)` names a file of the source tree, which the
    /// output does not have at that path: a stylesheet becomes its `data:` URL (Extension.js
    /// inlines it so), an image, font or other file the extension URL of its copy under
    /// `assets/`. Scripts, JSON and names that do not resolve are left to the browser.
    fn visit_new_expression(&mut self, it: &NewExpression<'a>) {
        if let Some((arg, spec)) = url_of_module(it)
            && let Ok(id) = (self.resolve)(&spec)
        {
            self.urls.push(spec);
            let call = if self.esm { "$wx_r" } else { "require" };
            self.edits.push((arg, format!("{call}({id})")));
        }
        walk::walk_new_expression(self, it);
    }

    fn visit_import_expression(&mut self, it: &ImportExpression<'a>) {
        if let Some(spec) = literal_specifier(&it.source) {
            self.imported.push(spec);
        }
        match literal_specifier(&it.source) {
            Some(spec) => match (self.resolve)(&spec) {
                Ok(id) => self.edits.push((
                    it.span,
                    format!("Promise.resolve().then(function () {{ return $wx_r.i({id}); }})"),
                )),
                Err(why) => self.issues.push(Issue {
                    offset: it.span.start,
                    specifier: Some(spec),
                    kind: IssueKind::Unresolved(why),
                }),
            },
            None => {
                self.issues.push(Issue {
                    offset: it.span.start,
                    specifier: None,
                    kind: IssueKind::DynamicImport,
                });
                walk::walk_import_expression(self, it);
            }
        }
    }

    fn visit_import_meta(&mut self, it: &ImportMeta) {
        self.edits.push((it.span, format!("({{ url: {} }})", self.url)));
    }

    fn visit_await_expression(&mut self, it: &oxc_ast::ast::AwaitExpression<'a>) {
        if self.depth == 0 {
            self.issues.push(Issue {
                offset: it.span.start,
                specifier: None,
                kind: IssueKind::TopLevelAwait,
            });
        }
        walk::walk_await_expression(self, it);
    }

    fn visit_for_of_statement(&mut self, it: &oxc_ast::ast::ForOfStatement<'a>) {
        if it.r#await && self.depth == 0 {
            self.issues.push(Issue {
                offset: it.span.start,
                specifier: None,
                kind: IssueKind::TopLevelAwait,
            });
        }
        walk::walk_for_of_statement(self, it);
    }

    fn visit_function(&mut self, it: &oxc_ast::ast::Function<'a>, flags: ScopeFlags) {
        self.depth += 1;
        walk::walk_function(self, it, flags);
        self.depth -= 1;
    }

    fn visit_arrow_function_expression(&mut self, it: &oxc_ast::ast::ArrowFunctionExpression<'a>) {
        self.depth += 1;
        walk::walk_arrow_function_expression(self, it);
        self.depth -= 1;
    }

    fn visit_if_statement(&mut self, it: &IfStatement<'a>) {
        match self.constant(&it.test) {
            Some(true) => {
                self.visit_statement(&it.consequent);
                if let Some(alt) = &it.alternate {
                    self.edits.push((Span::new(it.consequent.span().end, alt.span().end), String::new()));
                }
            }
            Some(false) => {
                self.edits.push((it.consequent.span(), "{}".into()));
                if let Some(alt) = &it.alternate {
                    self.visit_statement(alt);
                }
            }
            None => walk::walk_if_statement(self, it),
        }
    }

    fn visit_conditional_expression(&mut self, it: &ConditionalExpression<'a>) {
        match self.constant(&it.test) {
            Some(true) => {
                self.edits.push((it.alternate.span(), "void 0".into()));
                self.visit_expression(&it.consequent);
            }
            Some(false) => {
                self.edits.push((it.consequent.span(), "void 0".into()));
                self.visit_expression(&it.alternate);
            }
            None => walk::walk_conditional_expression(self, it),
        }
    }
}

mod syntax;

#[cfg(test)]
mod tests;
