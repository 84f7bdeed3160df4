//! The tool registry: every tool, its group, its input schema and the one function that runs
//! it. The MCP server (`server.rs`) and the CLI twin (`webext-mcp call`) both dispatch here.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};
use webext_mcp_host::protocol::ErrorBody;

use crate::config::Config;
use crate::paths::{Env, Paths};

pub mod actions;
pub mod browser;
pub mod browsers;
pub mod capture;
pub mod capture_save;
pub mod catalog;
pub mod console;
pub mod containers;
pub mod cookies;
mod debug;
pub mod dev;
pub mod dialogs;
pub mod extension;
pub mod feature;
pub mod inspect;
pub mod install;
mod jobs;
pub mod live;
mod meta;
pub mod network;
pub mod pages;
pub mod reading;
pub mod schema;
pub mod snapshot;
pub mod storage;
pub mod upload;
pub mod validate;
pub mod viewport;

pub use schema::{decode, schema_of};

/// A group of tools, by topic. `tools/list` shows the default tools (a curated few from
/// several groups, [`DEFAULT_TOOLS`]) plus every group the user turned on with `--toolsets`,
/// the config file or the `enable_toolsets` tool. Hidden tools stay callable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Toolset {
    /// The server itself and its installation: versions, configuration, doctor, install.
    Core,
    /// Template catalogs and creating projects.
    Templates,
    /// Building, validating and packaging the extension under development.
    Build,
    /// Dev sessions: run the extension in a browser, wait, stop, look inside.
    Dev,
    /// Installed and managed browsers: detect, list, install, remove.
    Browsers,
    /// Connected browsers and their tabs.
    Pages,
    /// Snapshots with refs.
    Snapshot,
    /// Acting on pages: clicks, fills, keys, waits, scripts.
    Input,
    /// Screenshots of pages and elements.
    Capture,
    /// Cookies and web storage.
    Storage,
    /// What pages logged and fetched: console messages and network requests.
    Observe,
    /// Diagnostics for developing webext-mcp.
    Debug,
}

/// Earlier names of groups, still accepted by `--toolsets`, config files and
/// `enable_toolsets`.
const ALIASES: [(&str, &[Toolset]); 2] = [
    ("extension", &[Toolset::Templates, Toolset::Build, Toolset::Dev]),
    (
        "browser",
        &[
            Toolset::Pages,
            Toolset::Snapshot,
            Toolset::Input,
            Toolset::Capture,
            Toolset::Storage,
            Toolset::Observe,
        ],
    ),
];

/// The tools `tools/list` shows when no group is turned on: what a first session needs for
/// both powers, within the 16 KB budget of a default `tools/list` (a test keeps it there).
pub const DEFAULT_TOOLS: &[&str] = &[
    "server_info",
    "get_config",
    "doctor",
    "enable_toolsets",
    "extension_list_templates",
    "extension_get_template_source",
    "extension_create",
    "extension_build",
    "extension_dev",
    "extension_wait",
    "extension_stop",
    "list_connected_browsers",
    "list_pages",
    "new_page",
    "navigate_page",
    "select_page",
    "take_snapshot",
    "click_by_uid",
    "fill_by_uid",
    "fill_form_by_uid",
    "press_key",
    "wait_for",
    "evaluate_script",
];

impl Toolset {
    pub const ALL: [Toolset; 12] = [
        Toolset::Core,
        Toolset::Templates,
        Toolset::Build,
        Toolset::Dev,
        Toolset::Browsers,
        Toolset::Pages,
        Toolset::Snapshot,
        Toolset::Input,
        Toolset::Capture,
        Toolset::Storage,
        Toolset::Observe,
        Toolset::Debug,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Toolset::Core => "core",
            Toolset::Templates => "templates",
            Toolset::Build => "build",
            Toolset::Dev => "dev",
            Toolset::Browsers => "browsers",
            Toolset::Pages => "pages",
            Toolset::Snapshot => "snapshot",
            Toolset::Input => "input",
            Toolset::Capture => "capture",
            Toolset::Storage => "storage",
            Toolset::Observe => "observe",
            Toolset::Debug => "debug",
        }
    }

    /// One line for `enable_toolsets` and `server_info`.
    pub const fn about(self) -> &'static str {
        match self {
            Toolset::Core => "server info, config, doctor, install/uninstall",
            Toolset::Templates => {
                "template catalogs, template sources, create a project, add a feature surface"
            }
            Toolset::Build => "build per browser, validate the manifest, inspect a build",
            Toolset::Dev => {
                "dev/start/preview sessions, wait, stop, source inspection; the session extension's logs, reload, eval, storage, pages"
            }
            Toolset::Browsers => "detect installed browsers, install and list managed ones",
            Toolset::Pages => {
                "connected browsers, tabs, navigation, Firefox containers, viewport size and emulation"
            }
            Toolset::Snapshot => "snapshots with refs, page text, find by text, ref to selector",
            Toolset::Input => "click, hover, fill, type, drag, keys, scroll, uploads, wait, scripts",
            Toolset::Capture => {
                "screenshots of a tab or an element, background tabs included, within a size budget"
            }
            Toolset::Storage => {
                "cookies (values hidden by default) and a tab's localStorage, sessionStorage, IndexedDB"
            }
            Toolset::Observe => {
                "console messages and network requests of a tab (both browsers, no debug port)"
            }
            Toolset::Debug => "echo and ping, for checking a client's wiring",
        }
    }

    /// The groups a name means: a group, an alias, or `all`.
    fn named(name: &str) -> Option<Vec<Toolset>> {
        if name == "all" {
            return Some(Toolset::ALL.to_vec());
        }
        if let Some(t) = Toolset::ALL.into_iter().find(|t| t.name() == name) {
            return Some(vec![t]);
        }
        ALIASES.iter().find(|(alias, _)| *alias == name).map(|(_, groups)| groups.to_vec())
    }

    fn unknown(name: &str) -> ErrorBody {
        let known: Vec<&str> = Toolset::ALL.iter().map(|t| t.name()).collect();
        ErrorBody::invalid_argument(format!("unknown toolset `{name}`"))
            .with_hint(format!("use `default`, `all` or any of: {}", known.join(", ")))
    }
}

/// Which tools `tools/list` shows: the default tools (unless `--toolsets` leaves out
/// `default`) and every tool of the groups turned on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    pub defaults: bool,
    pub groups: Vec<Toolset>,
}

impl Selection {
    /// Resolves names from `--toolsets` / config: `default`, `all`, group names and aliases.
    pub fn parse(names: &[String]) -> Result<Selection, ErrorBody> {
        let mut sel = Selection { defaults: names.is_empty(), groups: Vec::new() };
        for name in names {
            if name == "default" {
                sel.defaults = true;
            } else {
                sel.groups.extend(Toolset::named(name).ok_or_else(|| Toolset::unknown(name))?);
            }
        }
        sel.groups.sort();
        sel.groups.dedup();
        Ok(sel)
    }

    /// Turns on the groups `names` name. Returns the groups that were off.
    pub fn enable(&mut self, names: &[String]) -> Result<Vec<Toolset>, ErrorBody> {
        let mut wanted = Vec::new();
        for name in names {
            wanted.extend(Toolset::named(name).ok_or_else(|| Toolset::unknown(name))?);
        }
        let added: Vec<Toolset> = wanted.into_iter().filter(|t| !self.groups.contains(t)).collect();
        self.groups.extend(added.iter().copied());
        self.groups.sort();
        self.groups.dedup();
        let mut added = added;
        added.sort();
        added.dedup();
        Ok(added)
    }

    pub fn shows(&self, t: &ToolDef) -> bool {
        self.groups.contains(&t.toolset) || (self.defaults && DEFAULT_TOOLS.contains(&t.name))
    }
}

/// What a successful tool returns: the structured value and, when the tool has a better
/// human form than JSON, its text.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub structured: Value,
    pub text: Option<String>,
}

impl ToolOutput {
    pub fn json(structured: Value) -> Self {
        ToolOutput { structured, text: None }
    }

    /// Whether the output is a report that found problems (`"ok": false` at its top:
    /// `doctor`, `server_info`; `"valid": false`: `extension_manifest_validate`); the CLI
    /// twin then exits non-zero.
    pub fn reports_problems(&self) -> bool {
        self.structured.get("ok") == Some(&Value::Bool(false))
            || self.structured.get("valid") == Some(&Value::Bool(false))
    }

    /// A result that carries an image: MCP shows it as an image content block after the text
    /// (the structured value keeps everything but the data); the CLI twin's `--json` keeps it
    /// under [`IMAGE_FIELD`] as `{mimeType, data}`.
    pub fn with_image(mut structured: Value, text: String, mime_type: &str, data: String) -> Self {
        if let Value::Object(map) = &mut structured {
            map.insert(IMAGE_FIELD.to_owned(), serde_json::json!({ "mimeType": mime_type, "data": data }));
        }
        ToolOutput { structured, text: Some(text) }
    }

    /// Takes the image [`with_image`](Self::with_image) put in: `(mimeType, base64 data)`.
    pub fn take_image(&mut self) -> Option<(String, String)> {
        let Value::Object(map) = &mut self.structured else { return None };
        let image = map.get(IMAGE_FIELD)?;
        let mime = image.get("mimeType")?.as_str()?.to_owned();
        let data = image.get("data")?.as_str()?.to_owned();
        map.remove(IMAGE_FIELD);
        Some((mime, data))
    }

    /// The text content block: the tool's own text, or compact JSON.
    pub fn text(&self) -> String {
        match &self.text {
            Some(t) => t.clone(),
            None => self.structured.to_string(),
        }
    }
}

/// Where [`ToolOutput::with_image`] keeps an image in the structured value.
pub const IMAGE_FIELD: &str = "imageContent";

pub type ToolResult = Result<ToolOutput, ErrorBody>;
pub type ToolFuture = Pin<Box<dyn Future<Output = ToolResult> + Send>>;

/// Everything a tool may use. Shared by every call of one server (or one CLI run).
pub struct Context {
    pub paths: Paths,
    pub config: Config,
    pub env: Env,
    /// What `tools/list` shows; `enable_toolsets` widens it during the session.
    pub toolsets: std::sync::RwLock<Selection>,
    /// Connections to browser hosts and the browser chosen by `select_browser`.
    pub browser: browser::BrowserState,
}

pub type Ctx = Arc<Context>;

/// What a tool does to the world, for the MCP annotations clients use to decide what needs
/// the user's approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Changes nothing outside webext-mcp (`readOnlyHint`).
    Read,
    /// Adds or acts (opens a tab, clicks, creates a project); never deletes or overwrites
    /// what it did not make.
    Additive,
    /// Acts, and calling it again with the same arguments changes nothing more
    /// (`idempotentHint`): selecting, filling, installing.
    Idempotent,
    /// May overwrite or remove what exists (`destructiveHint`): replacing `dist/`, closing a
    /// tab, running arbitrary page script, uninstalling.
    Destructive,
}

/// One tool.
pub struct ToolDef {
    pub name: &'static str,
    pub title: &'static str,
    pub toolset: Toolset,
    pub description: &'static str,
    pub effect: Effect,
    pub input_schema: fn() -> Map<String, Value>,
    pub run: fn(Ctx, Call, Value) -> ToolFuture,
}

impl ToolDef {
    /// Whether the tool deals with the open world (web pages in a real browser) rather than
    /// only local files and processes (`openWorldHint`).
    pub fn open_world(&self) -> bool {
        // Installing a browser downloads from the vendor: the one open-world tool outside
        // the page groups.
        matches!(
            self.toolset,
            Toolset::Pages
                | Toolset::Snapshot
                | Toolset::Input
                | Toolset::Capture
                | Toolset::Storage
                | Toolset::Observe
        ) || self.name == "extension_install_browser"
    }
}

/// One progress report of a running call.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Work done so far (seconds elapsed when nothing better is known); increases.
    pub done: f64,
    pub total: Option<f64>,
    pub message: String,
}

/// Where a call's progress reports go: MCP `notifications/progress` when the client sent a
/// `progressToken`, stderr for the CLI on a terminal.
pub type ProgressSink = Arc<dyn Fn(Progress) + Send + Sync>;

/// A call's link back to its caller: a progress sink and a cancellation token (MCP
/// `notifications/cancelled`, Ctrl-C). [`call`] stops a cancelled tool by dropping it, which
/// ends every wait; long work that runs outside the future (a build thread) checks
/// [`Call::is_cancelled`].
#[derive(Clone)]
pub struct Call {
    progress: Option<ProgressSink>,
    cancel: tokio_util::sync::CancellationToken,
    started: std::time::Instant,
    /// How long the caller waits for one answer, when it gives up by itself (an MCP client);
    /// `None` for the CLI, which waits to the end. Long work answers within it ([`jobs`]).
    budget: Option<std::time::Duration>,
    /// The last report sent (its `done` and when): MCP wants `progress` to increase with
    /// every notification, and the heartbeat stays quiet while the tool reports by itself.
    last: Arc<std::sync::Mutex<Option<(f64, std::time::Instant)>>>,
}

impl Default for Call {
    fn default() -> Call {
        Call::new(None, Default::default())
    }
}

impl Call {
    pub fn new(progress: Option<ProgressSink>, cancel: tokio_util::sync::CancellationToken) -> Call {
        Call { progress, cancel, started: std::time::Instant::now(), budget: None, last: Default::default() }
    }

    /// The same call with a budget: the caller waits at most that long for an answer.
    pub fn with_budget(mut self, budget: std::time::Duration) -> Call {
        self.budget = Some(budget);
        self
    }

    pub fn budget(&self) -> Option<std::time::Duration> {
        self.budget
    }

    /// Reports progress, when anyone listens. `done` is raised above the last report's when
    /// it would not increase.
    pub fn report(&self, done: f64, total: Option<f64>, message: impl Into<String>) {
        let Some(sink) = &self.progress else { return };
        let done = {
            let mut last = self.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let done = match *last {
                Some((prev, _)) if done <= prev => prev + 0.001,
                _ => done,
            };
            *last = Some((done, std::time::Instant::now()));
            done
        };
        sink(Progress { done, total, message: message.into() });
    }

    /// Reports what the call is doing now, with the seconds since it began as `done`.
    pub fn status(&self, message: impl Into<String>) {
        self.report(self.elapsed_secs(), None, message);
    }

    /// Seconds since the call began.
    pub fn elapsed_secs(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// Whether the tool reported by itself within `window` (the heartbeat then says nothing).
    fn reported_within(&self, window: std::time::Duration) -> bool {
        let last = self.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        last.is_some_and(|(_, at)| at.elapsed() < window)
    }

    pub fn wants_progress(&self) -> bool {
        self.progress.is_some()
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// The token itself, for work that runs outside the call's future (a build thread).
    pub fn cancel_token(&self) -> tokio_util::sync::CancellationToken {
        self.cancel.clone()
    }

    /// Resolves when the caller cancels.
    pub async fn cancelled(&self) {
        self.cancel.cancelled().await
    }
}

/// `1 tab`, `3 tabs`: a count with its noun, for the text forms.
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// How often a call that is still running says so.
pub const HEARTBEAT: std::time::Duration = std::time::Duration::from_secs(1);

/// Every tool, in a stable order.
pub fn registry() -> &'static [ToolDef] {
    static TOOLS: OnceLock<Vec<ToolDef>> = OnceLock::new();
    TOOLS.get_or_init(|| {
        meta::tools()
            .into_iter()
            .chain(install::tools())
            .chain(extension::tools())
            .chain(validate::tools())
            .chain(dev::tools())
            .chain(inspect::tools())
            .chain(live::tools())
            .chain(browsers::tools())
            .chain(catalog::tools())
            .chain(feature::tools())
            .chain(browser::tools())
            .chain(pages::tools())
            .chain(containers::tools())
            .chain(snapshot::tools())
            .chain(reading::tools())
            .chain(actions::tools())
            .chain(upload::tools())
            .chain(dialogs::tools())
            .chain(capture::tools())
            .chain(viewport::tools())
            .chain(cookies::tools())
            .chain(storage::tools())
            .chain(console::tools())
            .chain(network::tools())
            .chain(debug::tools())
            .collect()
    })
}

pub fn find(name: &str) -> Option<&'static ToolDef> {
    registry().iter().find(|t| t.name == name)
}

/// Runs a tool by name. `None` when no tool has that name. A call that runs longer than
/// [`HEARTBEAT`] reports progress once a second (elapsed seconds and the tool's name) when
/// the caller listens and the tool said nothing itself in that second, so every long call
/// has progress even where the tool reports none of its own. Cancellation is the caller's: the MCP server drops this future when the client
/// cancels (ending every wait inside it), the CLI ends with Ctrl-C.
pub async fn call(ctx: &Ctx, call: Call, name: &str, args: Value) -> Option<ToolResult> {
    let def = find(name)?;
    tracing::debug!(tool = name, "call");
    let started = std::time::Instant::now();
    let run = with_dialogs((def.run)(Arc::clone(ctx), call.clone(), args));
    if !call.wants_progress() {
        return Some(run.await);
    }
    tokio::pin!(run);
    let mut beat = tokio::time::interval_at(tokio::time::Instant::now() + HEARTBEAT, HEARTBEAT);
    loop {
        tokio::select! {
            result = &mut run => return Some(result),
            _ = beat.tick() => {
                if !call.reported_within(HEARTBEAT) {
                    let secs = started.elapsed().as_secs_f64().floor();
                    call.report(secs, None, format!("{name}: still working ({secs:.0} s)"));
                }
            }
        }
    }
}

/// Every result that met a page dialog says so under its text, whatever the tool.
async fn with_dialogs(run: impl std::future::Future<Output = ToolResult>) -> ToolResult {
    let mut out = run.await?;
    if let Some(lines) = dialogs::dialog_lines(&out.structured) {
        let text = out.text.take().unwrap_or_default();
        out.text = Some(if text.is_empty() { lines } else { format!("{text}\n{lines}") });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;

    use super::*;

    #[derive(Debug, serde::Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Probe {
        count: u32,
        name: Option<String>,
    }

    #[test]
    fn decode_names_the_field_with_the_wrong_type() {
        let err = decode::<Probe>(serde_json::json!({"count": "three"})).unwrap_err();
        assert_eq!(err.code.as_str(), "INVALID_ARGUMENT");
        assert!(err.message.starts_with("`count`:"), "{}", err.message);
        let err = decode::<Probe>(serde_json::json!({"count": 1, "nmae": "x"})).unwrap_err();
        assert!(err.message.contains("nmae"), "{}", err.message);
        let err = decode::<Probe>(serde_json::json!([1])).unwrap_err();
        assert!(err.message.contains("JSON object"));
        assert!(decode::<Probe>(serde_json::json!({"count": 2})).is_ok());
    }

    #[test]
    fn toolset_lists_resolve_with_the_old_names_as_aliases() {
        let parse =
            |names: &[&str]| Selection::parse(&names.iter().map(|n| n.to_string()).collect::<Vec<_>>());
        assert_eq!(parse(&[]).unwrap(), Selection { defaults: true, groups: vec![] });
        assert_eq!(parse(&["all"]).unwrap().groups, Toolset::ALL.to_vec());
        assert_eq!(
            parse(&["debug", "core"]).unwrap(),
            Selection { defaults: false, groups: vec![Toolset::Core, Toolset::Debug] }
        );
        assert_eq!(
            parse(&["default", "extension"]).unwrap(),
            Selection { defaults: true, groups: vec![Toolset::Templates, Toolset::Build, Toolset::Dev] }
        );
        assert_eq!(
            parse(&["browser"]).unwrap().groups,
            vec![
                Toolset::Pages,
                Toolset::Snapshot,
                Toolset::Input,
                Toolset::Capture,
                Toolset::Storage,
                Toolset::Observe
            ]
        );
        let err = parse(&["pages2"]).unwrap_err();
        assert!(err.message.contains("pages2") && err.hint.unwrap().contains("core"));
        let mut sel = parse(&[]).unwrap();
        assert_eq!(
            sel.enable(&["dev".into(), "extension".into()]).unwrap(),
            vec![Toolset::Templates, Toolset::Build, Toolset::Dev]
        );
        assert_eq!(sel.enable(&["dev".into()]).unwrap(), vec![]);
        assert!(sel.enable(&["nope".into()]).is_err());
    }

    #[test]
    fn counts_take_the_singular_only_for_one() {
        assert_eq!(counted(1, "tab", "tabs"), "1 tab");
        assert_eq!(counted(0, "tab", "tabs"), "0 tabs");
        assert_eq!(counted(3, "tab", "tabs"), "3 tabs");
    }

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
}
