//! Build-time replacement of `process.env.X` and `import.meta.env.X` in scripts, the way
//! Extension.js does it, without a bundler: the script is parsed (so words in strings and
//! comments are never touched), each access is replaced by a string literal, and everything
//! else stays byte-identical. A `process.env` reference that cannot be replaced (an unknown
//! or non-public name, a dynamic key, destructuring) is reported: browsers have no `process`,
//! so leaving it would be a `ReferenceError` at run time — unless the code checks first
//! (`typeof process !== "undefined" && process.env.X`, minified `typeof process < "u" && …`,
//! the same test in `?:` or `if`): a guarded use runs only where `process` exists, never in a
//! browser, so it is left alone.

use std::path::Path;

use oxc_allocator::Allocator;
use oxc_ast::ast::{
    BinaryExpression, ComputedMemberExpression, ConditionalExpression, Expression, IfStatement,
    LogicalExpression, LogicalOperator, Program, StaticMemberExpression, UnaryOperator,
};
use oxc_ast_visit::{Visit, walk};
use oxc_span::Span;
use oxc_syntax::operator::BinaryOperator;

use super::env::{PUBLIC_PREFIX, PublicEnv};
use super::js::{self, Goal, SyntaxError};

/// A `process.env` use left in the output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leftover {
    /// What the script wrote, e.g. `process.env.SECRET`.
    pub what: String,
    /// Why it cannot be replaced.
    pub why: String,
    pub line: usize,
    pub column: usize,
}

/// The result of injecting into one script.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Injected {
    /// The new text; `None` when nothing was replaced (the file is copied as is).
    pub text: Option<String>,
    pub replaced: usize,
    pub leftovers: Vec<Leftover>,
    /// Where the new text's pieces come from in the old one (for source maps).
    pub edits: Vec<crate::build::splice::Segment>,
    /// Every env name looked up (what the result depends on).
    pub names: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Base {
    Process,
    ImportMeta,
}

/// Replaces env accesses in `text` (a script at `path`, loaded as `goal`).
pub fn inject(text: &str, path: &Path, goal: Goal, env: &PublicEnv) -> Result<Injected, SyntaxError> {
    if !text.contains("process") && !text.contains("import.meta") {
        return Ok(Injected::default());
    }
    js::guarded(text, || js::with_arena(|alloc| inject_parsed(alloc, text, path, goal, env)))
}

fn inject_parsed(
    alloc: &Allocator,
    text: &str,
    path: &Path,
    goal: Goal,
    env: &PublicEnv,
) -> Result<Injected, SyntaxError> {
    // A classic script may still say `import.meta.env.X` (replaced away here), which only
    // parses as a module; a sloppy-mode script only parses as a script. Try both.
    let program = match js::parse(alloc, text, path, goal) {
        Ok(p) => p,
        Err(first) if goal == Goal::Script => match js::parse(alloc, text, path, Goal::Module) {
            Ok(p) => p,
            Err(_) => return Err(first),
        },
        Err(e) => return Err(e),
    };
    let found = find(&program, text, env);
    let replaced = found.edits.len();
    if replaced == 0 {
        return Ok(Injected { leftovers: found.leftovers, names: found.names, ..Injected::default() });
    }
    let mut edits = found.edits;
    let spliced = crate::build::splice::splice(text, &mut edits);
    Ok(Injected {
        text: Some(spliced.text),
        replaced,
        leftovers: found.leftovers,
        edits: spliced.segments,
        names: found.names,
    })
}

/// The env accesses of an already parsed `program` (of `text`): what replaces each, what
/// cannot be replaced, and every name looked up — the env values the result depends on (the
/// bundler links `.js` modules with this on its own parse, and caches by those values).
#[derive(Debug, Clone, Default)]
pub struct Found {
    pub edits: Vec<(Span, String)>,
    pub leftovers: Vec<Leftover>,
    pub names: Vec<String>,
}

/// [`Found`] in `program`, the parse of `text`.
pub fn find(program: &Program<'_>, text: &str, env: &PublicEnv) -> Found {
    let mut finder = Finder { env, edits: Vec::new(), left: Vec::new(), names: Vec::new(), guarded: 0 };
    finder.visit_program(program);
    let leftovers = finder
        .left
        .iter()
        .map(|(span, why)| {
            let (line, column) = js::line_column(text, span.start as usize);
            Leftover { what: slice(text, *span).to_owned(), why: why.clone(), line, column }
        })
        .collect();
    Found { edits: finder.edits, leftovers, names: finder.names }
}

/// The value `e` reads when it is an env access that is replaced (`process.env.NODE_ENV`,
/// `import.meta.env["X"]`): what lets the bundler drop `NODE_ENV` branches on a text it has
/// not spliced yet.
pub fn env_value<'e>(e: &Expression<'_>, env: &'e PublicEnv) -> Option<&'e str> {
    match e.get_inner_expression() {
        Expression::StaticMemberExpression(m) if env_base(&m.object).is_some() => {
            env.get(m.property.name.as_str())
        }
        Expression::ComputedMemberExpression(m) if env_base(&m.object).is_some() => {
            match m.expression.get_inner_expression() {
                Expression::StringLiteral(s) => env.get(s.value.as_str()),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether `it` is an access into `process.env` or `import.meta.env` (`X.env.NAME`), which
/// [`find`] handles as a whole.
pub fn is_env_access_static(it: &StaticMemberExpression<'_>) -> bool {
    env_base(&it.object).is_some()
}

/// [`is_env_access_static`] for `X.env[key]`.
pub fn is_env_access_computed(it: &ComputedMemberExpression<'_>) -> bool {
    env_base(&it.object).is_some()
}

fn slice(text: &str, span: Span) -> &str {
    text.get(span.start as usize..span.end as usize).unwrap_or("")
}

struct Finder<'e> {
    env: &'e PublicEnv,
    edits: Vec<(Span, String)>,
    left: Vec<(Span, String)>,
    names: Vec<String>,
    /// Inside this many `typeof process` checks that only pass where `process` exists.
    guarded: u32,
}

/// Whether `e` is true only where `process` exists: `typeof process !== "undefined"`
/// (`!=`), `typeof process < "u"` (minifiers' form: every other `typeof` answer sorts
/// before "u"), `typeof process === "object"`, or several joined by `&&`.
fn process_exists(e: &Expression<'_>) -> bool {
    match e.get_inner_expression() {
        Expression::LogicalExpression(l) if l.operator == LogicalOperator::And => {
            process_exists(&l.left) || process_exists(&l.right)
        }
        Expression::BinaryExpression(b) => typeof_process_defined(b),
        _ => false,
    }
}

fn typeof_process_defined(b: &BinaryExpression<'_>) -> bool {
    let is_typeof_process = |e: &Expression<'_>| match e.get_inner_expression() {
        Expression::UnaryExpression(u) if u.operator == UnaryOperator::Typeof => {
            matches!(u.argument.get_inner_expression(), Expression::Identifier(id) if id.name.as_str() == "process")
        }
        _ => false,
    };
    fn literal<'e>(e: &'e Expression<'_>) -> Option<&'e str> {
        match e.get_inner_expression() {
            Expression::StringLiteral(s) => Some(s.value.as_str()),
            _ => None,
        }
    }
    let (word, flipped) = if is_typeof_process(&b.left) {
        (literal(&b.right), false)
    } else if is_typeof_process(&b.right) {
        (literal(&b.left), true)
    } else {
        return false;
    };
    match (b.operator, word) {
        (BinaryOperator::StrictInequality | BinaryOperator::Inequality, Some("undefined")) => true,
        (BinaryOperator::StrictEquality | BinaryOperator::Equality, Some("object")) => true,
        (BinaryOperator::LessThan, Some("u")) => !flipped,
        (BinaryOperator::GreaterThan, Some("u")) => flipped,
        _ => false,
    }
}

/// `process.env` or `import.meta.env`.
fn env_base(e: &Expression<'_>) -> Option<Base> {
    match e.get_inner_expression() {
        Expression::StaticMemberExpression(m) => env_base_of(m),
        _ => None,
    }
}

impl Finder<'_> {
    /// Records a `process.env` use that would remain, unless a check guards it.
    fn leave(&mut self, span: Span, why: String) {
        if self.guarded == 0 {
            self.left.push((span, why));
        }
    }

    /// Visits `guarded` with the guard counted.
    fn visit_guarded(&mut self, f: impl FnOnce(&mut Self)) {
        self.guarded += 1;
        f(self);
        self.guarded -= 1;
    }

    fn access(&mut self, base: Base, name: Option<&str>, span: Span) {
        let Some(name) = name else {
            if base == Base::Process {
                self.leave(span, "its key is computed at run time, so it cannot be replaced".into());
            }
            return;
        };
        if !self.names.iter().any(|n| n == name) {
            self.names.push(name.to_owned());
        }
        match self.env.get(name) {
            Some(v) => self.edits.push((span, json_string(v))),
            None if base == Base::ImportMeta => self.edits.push((span, "undefined".into())),
            None if !name.starts_with(PUBLIC_PREFIX) => self.leave(
                span,
                format!(
                    "only {PUBLIC_PREFIX}* variables reach extension code, so `{name}` is never injected"
                ),
            ),
            None => self.leave(span, format!("`{name}` is set in no env file and not in the environment")),
        }
    }
}

impl<'a> Visit<'a> for Finder<'_> {
    fn visit_logical_expression(&mut self, it: &LogicalExpression<'a>) {
        if it.operator == LogicalOperator::And && process_exists(&it.left) {
            self.visit_expression(&it.left);
            self.visit_guarded(|f| f.visit_expression(&it.right));
            return;
        }
        walk::walk_logical_expression(self, it);
    }

    fn visit_conditional_expression(&mut self, it: &ConditionalExpression<'a>) {
        if process_exists(&it.test) {
            self.visit_expression(&it.test);
            self.visit_guarded(|f| f.visit_expression(&it.consequent));
            self.visit_expression(&it.alternate);
            return;
        }
        walk::walk_conditional_expression(self, it);
    }

    fn visit_if_statement(&mut self, it: &IfStatement<'a>) {
        if process_exists(&it.test) {
            self.visit_expression(&it.test);
            self.visit_guarded(|f| f.visit_statement(&it.consequent));
            if let Some(alt) = &it.alternate {
                self.visit_statement(alt);
            }
            return;
        }
        walk::walk_if_statement(self, it);
    }

    fn visit_static_member_expression(&mut self, it: &StaticMemberExpression<'a>) {
        if let Some(base) = env_base(&it.object) {
            self.access(base, Some(it.property.name.as_str()), it.span);
            return;
        }
        if env_base_of(it) == Some(Base::Process) {
            // Bare `process.env` (passed around, destructured, spread).
            self.leave(it.span, "the whole `process.env` object does not exist in browsers".into());
            return;
        }
        walk::walk_static_member_expression(self, it);
    }

    fn visit_computed_member_expression(&mut self, it: &ComputedMemberExpression<'a>) {
        if let Some(base) = env_base(&it.object) {
            let key = match it.expression.get_inner_expression() {
                Expression::StringLiteral(s) => Some(s.value.as_str()),
                _ => None,
            };
            self.access(base, key, it.span);
            self.visit_expression(&it.expression);
            return;
        }
        walk::walk_computed_member_expression(self, it);
    }
}

/// The base when `it` itself is `process.env` / `import.meta.env`.
fn env_base_of(it: &StaticMemberExpression<'_>) -> Option<Base> {
    if it.property.name.as_str() != "env" {
        return None;
    }
    match it.object.get_inner_expression() {
        Expression::Identifier(id) if id.name.as_str() == "process" => Some(Base::Process),
        Expression::ImportMeta(_) => Some(Base::ImportMeta),
        _ => None,
    }
}

/// A JavaScript string literal for `v` (JSON strings are valid JavaScript; U+2028/2029 are
/// escaped so the literal stays on one line in every engine).
fn json_string(v: &str) -> String {
    serde_json::to_string(v)
        .unwrap_or_else(|_| "\"\"".into())
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> PublicEnv {
        let mut e = PublicEnv::default();
        e.vars.insert("EXTENSION_PUBLIC_BROWSER".into(), "chrome".into());
        e.vars.insert("EXTENSION_PUBLIC_Q".into(), "say \"hi\"".into());
        e
    }

    fn run(text: &str, goal: Goal) -> Injected {
        inject(text, Path::new("bg.js"), goal, &env()).unwrap()
    }

    #[test]
    fn replaces_accesses_and_leaves_the_rest_byte_identical() {
        let src = "// process.env.EXTENSION_PUBLIC_BROWSER in a comment\nconst s = 'process.env.EXTENSION_PUBLIC_BROWSER';\nconst b = process.env.EXTENSION_PUBLIC_BROWSER;   \nconst q = process.env['EXTENSION_PUBLIC_Q'];\n";
        let out = run(src, Goal::Script);
        assert_eq!(out.replaced, 2);
        assert!(out.leftovers.is_empty());
        let want = "// process.env.EXTENSION_PUBLIC_BROWSER in a comment\nconst s = 'process.env.EXTENSION_PUBLIC_BROWSER';\nconst b = \"chrome\";   \nconst q = \"say \\\"hi\\\"\";\n";
        assert_eq!(out.text.as_deref(), Some(want));
    }

    #[test]
    fn import_meta_env_in_a_classic_script_is_replaced_too() {
        let out =
            run("console.log(import.meta.env.EXTENSION_PUBLIC_BROWSER, import.meta.env.NOPE)", Goal::Script);
        assert_eq!(out.text.as_deref(), Some("console.log(\"chrome\", undefined)"));
    }

    #[test]
    fn secrets_unknown_and_dynamic_uses_are_leftovers_with_positions() {
        let out = run(
            "const a = process.env.SECRET_TOKEN;\nconst b = process.env.EXTENSION_PUBLIC_MISSING;\nconst c = process.env[k];\nconst { d } = process.env;",
            Goal::Script,
        );
        let got: Vec<(&str, usize, usize)> =
            out.leftovers.iter().map(|l| (l.what.as_str(), l.line, l.column)).collect();
        assert_eq!(
            got,
            [
                ("process.env.SECRET_TOKEN", 1, 11),
                ("process.env.EXTENSION_PUBLIC_MISSING", 2, 11),
                ("process.env[k]", 3, 11),
                ("process.env", 4, 15),
            ]
        );
        assert!(out.leftovers[0].why.contains("only EXTENSION_PUBLIC_*"));
        assert!(out.text.is_none());
    }

    #[test]
    fn guarded_uses_are_left_alone_and_public_ones_still_replaced() {
        let out = run(
            "const a = typeof process < \"u\" && process.env.SECRET;\nconst b = typeof process !== 'undefined' ? process.env.X : 1;\nif ('undefined' != typeof process && process.env) { go(process.env.Y); }\nconst c = typeof process !== 'undefined' && process.env.EXTENSION_PUBLIC_BROWSER;\n",
            Goal::Script,
        );
        assert!(out.leftovers.is_empty(), "{:?}", out.leftovers);
        assert!(out.text.as_deref().unwrap().contains("&& \"chrome\""), "{:?}", out.text);
        // Not a guard: the other branch, or a check that passes where process is missing.
        let out = run(
            "const a = typeof process !== 'undefined' ? 1 : process.env.X;\nconst b = typeof process === 'undefined' && process.env.Y;\n",
            Goal::Script,
        );
        assert_eq!(out.leftovers.len(), 2, "{:?}", out.leftovers);
    }

    #[test]
    fn files_without_env_are_not_parsed() {
        let out = run("this is not ( javascript", Goal::Script);
        assert_eq!(out, Injected::default());
        assert!(inject("process.env.X(", Path::new("a.js"), Goal::Script, &env()).is_err());
    }
}
