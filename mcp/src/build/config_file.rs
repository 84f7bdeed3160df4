//! `extension.config.{js,mjs,cjs,ts}` read without running it.
//!
//! Most Extension.js projects ship a config that only sets how `extension dev` opens the
//! browser (profiles, binaries, flags, preferences, starting URLs). Those keys do not change
//! what is built, so they must not force a bundler. The file is parsed (never evaluated) and
//! the exported object folded with a tiny evaluator: literals, templates, top-level `const`s
//! and calls of top-level arrow functions whose body is one expression (the common
//! `profile('chrome')` helper). Keys that customize the bundler (`config`, `plugins`, …), or a
//! config whose shape cannot be read, decide delegation, and the decision names the key.

use std::collections::HashMap;
use std::path::Path;

use oxc_allocator::Allocator;
use oxc_ast::ast::{
    Argument, ArrayExpressionElement, BindingPattern, Declaration, ExportDefaultDeclarationKind, Expression,
    ObjectPropertyKind, Program, Statement,
};
use oxc_span::GetSpan;

use super::js::{self, Goal};

/// The config file names Extension.js reads, in its order.
pub const CONFIG_FILES: [&str; 4] =
    ["extension.config.js", "extension.config.mjs", "extension.config.cjs", "extension.config.ts"];

/// A statically read value. `Unknown` keeps the source text for messages.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
    Function,
    Unknown(String),
}

impl Value {
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// What the build does because of the config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Only run-time keys: the native build may proceed.
    Native,
    /// The project's toolchain must build: `key` decided it (`config`, `plugins`, `(export)`
    /// when the export itself cannot be read), `why` says how, `line` where.
    Delegate { key: String, why: String, line: usize },
}

/// A run-time value that cannot be read without running the config; a default is used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unresolved {
    /// Dotted key, e.g. `browser.chrome.profile`.
    pub key: String,
    pub source: String,
    pub line: usize,
}

/// The config as read.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtensionConfig {
    /// File name, e.g. `extension.config.js`.
    pub file: String,
    pub decision: Decision,
    /// The exported object (`Value::Null` when it could not be read).
    pub value: Value,
    pub unresolved: Vec<Unresolved>,
}

impl ExtensionConfig {
    /// Run options for one browser (`browser.<name>`), the values a dev session needs.
    pub fn browser(&self, name: &str) -> Option<&Value> {
        self.value.get("browser")?.get(name)
    }
}

/// Keys under `commands.build` that do not change what is bundled.
const PACKAGING_KEYS: [&str; 3] = ["zip", "zipSource", "zipFilename"];

/// Reads the first config file in `project`, if there is one.
pub fn read(project: &Path) -> Option<ExtensionConfig> {
    let name = CONFIG_FILES.into_iter().find(|n| project.join(n).is_file())?;
    let path = project.join(name);
    let text = match std::fs::metadata(&path) {
        Ok(m) if m.len() as usize > js::MAX_PARSE_BYTES => Err("it is larger than 2 MiB".to_owned()),
        _ => std::fs::read_to_string(&path).map_err(|e| format!("it cannot be read as UTF-8 text ({e})")),
    };
    Some(match text {
        Ok(text) => read_text(name, &text),
        Err(why) => delegate_all(name, "(file)", why, 1),
    })
}

fn delegate_all(name: &str, key: &str, why: String, line: usize) -> ExtensionConfig {
    ExtensionConfig {
        file: name.to_owned(),
        decision: Decision::Delegate { key: key.to_owned(), why, line },
        value: Value::Null,
        unresolved: Vec::new(),
    }
}

/// Reads a config from its text (`name` picks TypeScript or not).
pub fn read_text(name: &str, text: &str) -> ExtensionConfig {
    match js::guarded(text, || Ok(read_text_unguarded(name, text))) {
        Ok(cfg) => cfg,
        Err(e) => delegate_all(name, "(file)", format!("it cannot be parsed: {}", e.message), e.line),
    }
}

fn read_text_unguarded(name: &str, text: &str) -> ExtensionConfig {
    let alloc = Allocator::default();
    let program = match js::parse(&alloc, text, Path::new(name), Goal::Module) {
        Ok(p) => p,
        Err(e) => {
            return delegate_all(name, "(file)", format!("it cannot be parsed: {}", e.message), e.line);
        }
    };
    let ev = Evaluator::new(&program, text);
    let Some(export) = find_export(&program) else {
        return delegate_all(
            name,
            "(export)",
            "it has no `export default` or `module.exports =` that can be read".into(),
            1,
        );
    };
    let line = js::line_column(text, export.span().start as usize).0;
    let value = ev.eval(export, &HashMap::new(), 0);
    let mut cfg =
        ExtensionConfig { file: name.to_owned(), decision: Decision::Native, value, unresolved: Vec::new() };
    cfg.decision = match &cfg.value {
        Value::Object(fields) => decide(fields, ev.line_of_key(text), line),
        Value::Function => Decision::Delegate {
            key: "(export)".into(),
            why: "it exports a function, which only running it can answer".into(),
            line,
        },
        other => Decision::Delegate {
            key: "(export)".into(),
            why: format!("its export `{}` cannot be read without running it", short(&describe(other))),
            line,
        },
    };
    if cfg.decision == Decision::Native {
        let mut out = Vec::new();
        collect_unknown(&cfg.value, "", &mut out);
        cfg.unresolved = out
            .into_iter()
            .map(|(key, source)| {
                let line = ev.line_of_key(text)(key.rsplit('.').next().unwrap_or(&key)).unwrap_or(line);
                Unresolved { key, source, line }
            })
            .collect();
    }
    cfg
}

fn describe(v: &Value) -> String {
    match v {
        Value::Unknown(s) => s.clone(),
        other => format!("{other:?}"),
    }
}

fn short(s: &str) -> String {
    let one_line: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 60 {
        format!("{}…", one_line.chars().take(60).collect::<String>())
    } else {
        one_line
    }
}

/// Which key sends the build to the project's toolchain, if any.
fn decide(
    fields: &[(String, Value)],
    line_of: impl Fn(&str) -> Option<usize>,
    export_line: usize,
) -> Decision {
    let at = |key: &str| line_of(key).unwrap_or(export_line);
    for (key, value) in fields {
        let why = match key.as_str() {
            "browser" | "extensions" => polyfill_in(value).map(|p| (format!("{key}.{p}"), polyfill_why())),
            "commands" => commands_decision(value),
            "config" => Some((key.clone(), "`config` customizes the bundler's configuration".into())),
            "plugins" => Some((key.clone(), "`plugins` adds bundler plugins".into())),
            "..." => Some((key.clone(), "a spread (`...`) hides which keys the config sets".into())),
            "(computed)" => Some((key.clone(), "a computed key hides which key the config sets".into())),
            _ => Some((key.clone(), format!("`{key}` is not a run-time key this build knows"))),
        };
        if let Some((key, why)) = why {
            let line = at(key.rsplit('.').next().unwrap_or(&key));
            return Decision::Delegate { key, why, line };
        }
    }
    Decision::Native
}

fn polyfill_why() -> String {
    "`polyfill` adds the WebExtension polyfill to the bundle".into()
}

/// `a.b.polyfill` when an object below `value` turns the polyfill on.
fn polyfill_in(value: &Value) -> Option<String> {
    let Value::Object(fields) = value else { return None };
    for (k, v) in fields {
        if k == "polyfill" && !matches!(v, Value::Bool(false) | Value::Null) {
            return Some("polyfill".into());
        }
        if let Some(p) = polyfill_in(v) {
            return Some(format!("{k}.{p}"));
        }
    }
    None
}

fn commands_decision(value: &Value) -> Option<(String, String)> {
    let Value::Object(commands) = value else {
        return Some(("commands".into(), "`commands` cannot be read without running the config".into()));
    };
    for (name, opts) in commands {
        if let Some(p) = polyfill_in(opts) {
            return Some((format!("commands.{name}.{p}"), polyfill_why()));
        }
        if name != "build" {
            continue;
        }
        let Value::Object(build) = opts else {
            return Some(("commands.build".into(), "`commands.build` cannot be read statically".into()));
        };
        if let Some((k, _)) = build.iter().find(|(k, _)| !PACKAGING_KEYS.contains(&k.as_str())) {
            return Some((format!("commands.build.{k}"), format!("`commands.build.{k}` changes the build")));
        }
    }
    None
}

/// Every `Unknown` leaf below `v`, with its dotted key.
fn collect_unknown(v: &Value, prefix: &str, out: &mut Vec<(String, String)>) {
    match v {
        Value::Unknown(src) => out.push((prefix.to_owned(), short(src))),
        Value::Object(fields) => {
            for (k, v) in fields {
                let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                collect_unknown(v, &key, out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                collect_unknown(v, &format!("{prefix}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// `export default …`, `export default defineConfig(…)` or `module.exports = …`.
fn find_export<'p, 'a>(program: &'p Program<'a>) -> Option<&'p Expression<'a>> {
    for stmt in &program.body {
        match stmt {
            Statement::ExportDefaultDeclaration(d) => match &d.declaration {
                ExportDefaultDeclarationKind::FunctionDeclaration(_)
                | ExportDefaultDeclarationKind::ClassDeclaration(_)
                | ExportDefaultDeclarationKind::TSInterfaceDeclaration(_) => return None,
                other => return other.as_expression(),
            },
            Statement::ExpressionStatement(e) => {
                if let Expression::AssignmentExpression(a) = e.expression.get_inner_expression()
                    && let Some(m) = a.left.as_member_expression()
                    && m.object().is_specific_id("module")
                    && m.static_property_name() == Some("exports")
                {
                    return Some(&a.right);
                }
            }
            _ => {}
        }
    }
    None
}

/// Folds expressions to values using the file's top-level bindings.
struct Evaluator<'p, 'a> {
    text: &'p str,
    bindings: HashMap<&'a str, &'p Expression<'a>>,
}

/// Deep enough for real configs, shallow enough that `const a = b, b = a` stops at once.
const MAX_DEPTH: usize = 24;

impl<'p, 'a> Evaluator<'p, 'a> {
    fn new(program: &'p Program<'a>, text: &'p str) -> Self {
        let mut bindings = HashMap::new();
        for stmt in &program.body {
            let decl = match stmt {
                Statement::VariableDeclaration(v) => Some(&**v),
                Statement::ExportDeclaration(e) => match &e.declaration {
                    Declaration::VariableDeclaration(v) => Some(&**v),
                    _ => None,
                },
                _ => None,
            };
            for d in decl.into_iter().flat_map(|v| v.declarations.iter()) {
                if let (BindingPattern::BindingIdentifier(id), Some(init)) = (&d.id, &d.init) {
                    bindings.insert(id.name.as_str(), init);
                }
            }
        }
        Evaluator { text, bindings }
    }

    fn source(&self, e: &Expression<'_>) -> String {
        let s = e.span();
        self.text.get(s.start as usize..s.end as usize).unwrap_or("").to_owned()
    }

    /// The line of the first `key:` in the file, for findings (good enough: keys are few).
    fn line_of_key(&self, text: &'p str) -> impl Fn(&str) -> Option<usize> + 'p {
        move |key: &str| {
            if key.is_empty() {
                return None;
            }
            let mut from = 0;
            while let Some(i) = text[from..].find(key) {
                let at = from + i;
                let after = text[at + key.len()..].trim_start();
                let before_ok = at == 0 || !text.as_bytes()[at - 1].is_ascii_alphanumeric();
                if before_ok && (after.starts_with(':') || after.starts_with('(')) {
                    return Some(js::line_column(text, at).0);
                }
                from = at + key.len();
            }
            None
        }
    }

    fn eval(&self, e: &Expression<'a>, scope: &HashMap<&'a str, Value>, depth: usize) -> Value {
        if depth > MAX_DEPTH {
            return Value::Unknown(self.source(e));
        }
        let e = e.get_inner_expression();
        match e {
            Expression::StringLiteral(s) => Value::Str(s.value.as_str().to_owned()),
            Expression::NumericLiteral(n) => Value::Num(n.value),
            Expression::BooleanLiteral(b) => Value::Bool(b.value),
            Expression::NullLiteral(_) => Value::Null,
            Expression::TemplateLiteral(t) => {
                let mut out = String::new();
                for (i, q) in t.quasis.iter().enumerate() {
                    let Some(cooked) = &q.value.cooked else { return Value::Unknown(self.source(e)) };
                    out.push_str(cooked.as_str());
                    if let Some(x) = t.expressions.get(i) {
                        match self.eval(x, scope, depth + 1) {
                            Value::Str(s) => out.push_str(&s),
                            Value::Num(n) => out.push_str(&n.to_string()),
                            Value::Bool(b) => out.push_str(&b.to_string()),
                            _ => return Value::Unknown(self.source(e)),
                        }
                    }
                }
                Value::Str(out)
            }
            Expression::ArrayExpression(a) => Value::Array(
                a.elements
                    .iter()
                    .map(|el| match el {
                        ArrayExpressionElement::SpreadElement(_) => Value::Unknown("...".into()),
                        ArrayExpressionElement::Elision(_) => Value::Null,
                        other => {
                            other.as_expression().map_or(Value::Null, |x| self.eval(x, scope, depth + 1))
                        }
                    })
                    .collect(),
            ),
            Expression::ObjectExpression(o) => {
                let mut fields = Vec::new();
                for p in &o.properties {
                    match p {
                        ObjectPropertyKind::SpreadProperty(s) => {
                            fields.push(("...".to_owned(), Value::Unknown(self.source(&s.argument))));
                        }
                        ObjectPropertyKind::ObjectProperty(p) => {
                            let key = p
                                .key
                                .static_name()
                                .map_or_else(|| "(computed)".to_owned(), |k| k.into_owned());
                            let value = if p.method {
                                Value::Function
                            } else {
                                self.eval(&p.value, scope, depth + 1)
                            };
                            fields.push((key, value));
                        }
                    }
                }
                Value::Object(fields)
            }
            Expression::ArrowFunctionExpression(_) | Expression::FunctionExpression(_) => Value::Function,
            Expression::Identifier(id) => {
                let name = id.name.as_str();
                if let Some(v) = scope.get(name) {
                    return v.clone();
                }
                if name == "undefined" {
                    return Value::Null;
                }
                match self.bindings.get(name) {
                    Some(init) => self.eval(init, &HashMap::new(), depth + 1),
                    None => Value::Unknown(self.source(e)),
                }
            }
            Expression::CallExpression(c) => self.call(e, c, scope, depth),
            _ => Value::Unknown(self.source(e)),
        }
    }

    /// `defineConfig(x)` is `x`; a call of a top-level one-expression arrow function is its
    /// body with the parameters bound to the (static) arguments.
    fn call(
        &self,
        whole: &Expression<'a>,
        c: &oxc_ast::ast::CallExpression<'a>,
        scope: &HashMap<&'a str, Value>,
        depth: usize,
    ) -> Value {
        let unknown = || Value::Unknown(self.source(whole));
        let Expression::Identifier(callee) = c.callee.get_inner_expression() else { return unknown() };
        let args: Vec<Value> = c
            .arguments
            .iter()
            .map(|a| match a {
                Argument::SpreadElement(_) => Value::Unknown("...".into()),
                other => other.as_expression().map_or(Value::Null, |x| self.eval(x, scope, depth + 1)),
            })
            .collect();
        if callee.name.as_str() == "defineConfig" {
            return args.into_iter().next().unwrap_or(Value::Null);
        }
        let Some(Expression::ArrowFunctionExpression(f)) =
            self.bindings.get(callee.name.as_str()).map(|e| e.get_inner_expression())
        else {
            return unknown();
        };
        let Some(body) = f.get_expression() else { return unknown() };
        let mut inner = HashMap::new();
        for (i, p) in f.params.items.iter().enumerate() {
            let BindingPattern::BindingIdentifier(id) = &p.pattern else { return unknown() };
            inner.insert(id.name.as_str(), args.get(i).cloned().unwrap_or(Value::Null));
        }
        match self.eval(body, &inner, depth + 1) {
            Value::Unknown(_) => unknown(),
            v => v,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROFILES: &str = "const profile = (name) => `./dist/extension-profile-${name}`;\n\
        export default {\n  browser: {\n    chrome: { profile: profile('chrome') },\n    firefox: { profile: profile('firefox') }\n  }\n}\n";

    #[test]
    fn the_common_profiles_config_builds_natively() {
        let c = read_text("extension.config.js", PROFILES);
        assert_eq!(c.decision, Decision::Native);
        let chrome = c.browser("chrome").and_then(|b| b.get("profile")).and_then(Value::as_str);
        assert_eq!(chrome, Some("./dist/extension-profile-chrome"));
        assert!(c.unresolved.is_empty());
    }

    #[test]
    fn module_exports_and_define_config_shapes() {
        let cjs = read_text(
            "extension.config.cjs",
            "module.exports = { browser: { chrome: { browserFlags: ['--mute-audio'], startingUrl: 'https://example.com' } } }",
        );
        assert_eq!(cjs.decision, Decision::Native);
        assert_eq!(
            cjs.browser("chrome").and_then(|b| b.get("browserFlags")),
            Some(&Value::Array(vec![Value::Str("--mute-audio".into())]))
        );
        let ts = read_text(
            "extension.config.ts",
            "import { defineConfig } from 'extension'\nexport default defineConfig({ browser: { firefox: { preferences: { 'a.b': true } } } } satisfies object)",
        );
        assert_eq!(ts.decision, Decision::Native);
    }

    #[test]
    fn bundler_keys_and_unreadable_configs_delegate_naming_the_key() {
        let cases = [
            ("export default { config: (c) => c }", "config", 1),
            ("export default {\n  browser: {},\n  plugins: [x()] }", "plugins", 3),
            ("export default { commands: { build: { polyfill: true } } }", "commands.build.polyfill", 1),
            ("export default { browser: { chrome: { polyfill: true } } }", "browser.chrome.polyfill", 1),
            ("export default { ...base }", "...", 1),
            ("export default (env) => ({})", "(export)", 1),
            ("export default makeConfig()", "(export)", 1),
            ("const x = 1;", "(export)", 1),
            ("export default {", "(file)", 1),
            ("export default { somethingNew: 1 }", "somethingNew", 1),
        ];
        for (text, key, line) in cases {
            match read_text("extension.config.js", text).decision {
                Decision::Delegate { key: k, line: l, .. } => {
                    assert_eq!((k.as_str(), l), (key, line), "{text}");
                }
                Decision::Native => panic!("{text} should delegate"),
            }
        }
    }

    #[test]
    fn run_values_that_need_running_are_reported_not_fatal() {
        let c = read_text(
            "extension.config.mjs",
            "import path from 'node:path'\nexport default {\n  browser: {\n    chrome: {\n      profile: path.join(import.meta.dirname, 'p'),\n      commands: undefined\n    }\n  },\n  commands: { dev: { open: process.env.OPEN } }\n}",
        );
        assert_eq!(c.decision, Decision::Native);
        let keys: Vec<&str> = c.unresolved.iter().map(|u| u.key.as_str()).collect();
        assert_eq!(keys, ["browser.chrome.profile", "commands.dev.open"]);
        assert_eq!(c.unresolved[0].line, 5);
        assert!(c.unresolved[0].source.starts_with("path.join("));
    }

    #[test]
    fn self_reference_stops() {
        let c = read_text("extension.config.js", "const a = b; const b = a;\nexport default { browser: a }");
        assert_eq!(c.decision, Decision::Native);
        assert_eq!(c.unresolved.len(), 1);
    }
}
