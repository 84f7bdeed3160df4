//! Syntax questions the linker asks of a module: the names a declaration binds, whether
//! anything binds `require`, a specifier's literal text, how a namespace member is written,
//! and which `new URL(…, import.meta.url)` names a file of the bundle.

use oxc_ast::ast::{BindingIdentifier, BindingPattern, Declaration, Expression, NewExpression, Program};
use oxc_ast_visit::Visit;
use oxc_span::{GetSpan, Span};

pub(super) fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Whether `program` binds the name `require` anywhere (a parameter, a function, a
/// variable): only then does telling CommonJS's free `require` apart need scopes.
pub(super) fn binds_require(program: &Program<'_>, text: &str) -> bool {
    struct Finder(bool);
    impl<'a> Visit<'a> for Finder {
        fn visit_binding_identifier(&mut self, it: &BindingIdentifier<'a>) {
            self.0 |= it.name == "require";
        }
    }
    if !text.contains("require") {
        return false;
    }
    let mut f = Finder(false);
    f.visit_program(program);
    f.0
}

/// `ns.name`, or `ns["name"]` when the name is not an identifier.
pub(super) fn member(ns: &str, name: &str) -> String {
    if !name.is_empty()
        && name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        && !name.starts_with(|c: char| c.is_ascii_digit())
    {
        format!("{ns}.{name}")
    } else {
        format!("{ns}[{}]", quote(name))
    }
}

pub(super) fn declared_names(decl: &Declaration<'_>, out: &mut Vec<String>) {
    match decl {
        Declaration::VariableDeclaration(v) => {
            for d in &v.declarations {
                pattern_names(&d.id, out);
            }
        }
        Declaration::FunctionDeclaration(f) => out.extend(f.id.as_ref().map(|i| i.name.to_string())),
        Declaration::ClassDeclaration(c) => out.extend(c.id.as_ref().map(|i| i.name.to_string())),
        _ => {}
    }
}

pub(super) fn pattern_names(p: &BindingPattern<'_>, out: &mut Vec<String>) {
    match p {
        BindingPattern::BindingIdentifier(i) => out.push(i.name.to_string()),
        BindingPattern::ObjectPattern(o) => {
            for prop in &o.properties {
                pattern_names(&prop.value, out);
            }
            if let Some(r) = &o.rest {
                pattern_names(&r.argument, out);
            }
        }
        BindingPattern::ArrayPattern(a) => {
            for e in a.elements.iter().flatten() {
                pattern_names(e, out);
            }
            if let Some(r) = &a.rest {
                pattern_names(&r.argument, out);
            }
        }
        BindingPattern::AssignmentPattern(a) => pattern_names(&a.left, out),
    }
}

/// The literal text of a specifier argument (`"x"` or a template without substitutions).
pub(super) fn literal_specifier(e: &Expression<'_>) -> Option<String> {
    match e {
        Expression::StringLiteral(s) => Some(s.value.to_string()),
        Expression::TemplateLiteral(t) if t.expressions.is_empty() => {
            t.quasis.first().map(|q| q.value.cooked.unwrap_or(q.value.raw).to_string())
        }
        _ => None,
    }
}

/// `new URL("<file>", import.meta.url)` whose file is a stylesheet or an asset (by its
/// extension): the first argument's span and the file as a relative specifier.
pub(super) fn url_of_module(it: &NewExpression<'_>) -> Option<(Span, String)> {
    let Expression::Identifier(callee) = &it.callee else { return None };
    if callee.name != "URL" || it.arguments.len() != 2 {
        return None;
    }
    let Some(Expression::StaticMemberExpression(base)) = it.arguments[1].as_expression() else {
        return None;
    };
    if base.property.name != "url" || !matches!(base.object, Expression::ImportMeta(_)) {
        return None;
    }
    let first = it.arguments[0].as_expression()?;
    let raw = literal_specifier(first)?;
    if raw.is_empty() || raw.contains(':') || raw.starts_with('/') || raw.contains(['?', '#']) {
        return None;
    }
    let lower = raw.to_ascii_lowercase();
    let ext = lower.rsplit_once('.').map_or("", |(_, e)| e);
    let script = matches!(ext, "" | "js" | "mjs" | "cjs" | "ts" | "mts" | "cts" | "tsx" | "jsx" | "json");
    if script || lower.ends_with(".module.css") || crate::build::needs::needs_compile(&lower).is_some() {
        return None;
    }
    let spec = if raw.starts_with("./") || raw.starts_with("../") { raw } else { format!("./{raw}") };
    Some((first.span(), spec))
}
