//! Driving one browser through a check: baseline, load, each surface, background, console.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::diff::host_changes;
use super::report::{self, Background, MAX_MESSAGES, MAX_TEXT, Message, Probed, Report, Surface};
use super::serve::{self, HOST_PROPERTIES, HOST_SELECTORS, TestPage};
use super::{BehaviourError, Options};
use crate::browsers::Engine;
use crate::config::Config;
use crate::paths::Env;
use crate::runner::{ConsoleEvent, EventKind, ExtensionHandle, Level, Runner, RunnerOptions};
use crate::session::inspect::{Context, page_path};

/// The page-side probe, a function expression `(opts, ...closedShadowRoots) => result`.
const PROBE: &str = include_str!("probe.js");

/// How long a page may take to load.
const LOAD_TIMEOUT: Duration =
    Duration::from_millis(webext_mcp_host::protocol::timeouts::SESSION_PAGE_LOAD_MS);
/// How long a background may take to start.
const BACKGROUND_TIMEOUT: Duration =
    Duration::from_millis(webext_mcp_host::protocol::timeouts::ADDON_BACKGROUND_START_MS);

/// Computed style properties read on the first element inside a root.
pub const ROOT_PROPERTIES: &[&str] = &[
    "display",
    "position",
    "color",
    "background-color",
    "font-family",
    "font-size",
    "font-weight",
    "padding-top",
    "margin-top",
    "border-top-width",
    "border-top-left-radius",
    "z-index",
];

/// Where an extension page mounts: the first of these that exists.
const MOUNT: &[&str] = &["#root", "#app", "body"];

/// The options a browser for checks is launched with: headless, no extension yet, and in
/// Firefox the debugger on a private unix socket (tabs, evaluation and consoles need it).
pub fn runner_options() -> RunnerOptions {
    RunnerOptions { headless: true, devtools: true, ..RunnerOptions::default() }
}

/// Checks `dist` in a browser of `engine` launched for it (and shut down after).
pub async fn check(
    dist: &Path,
    engine: Engine,
    opts: &Options,
    env: &Env,
    config: Option<&Config>,
) -> Result<Report, BehaviourError> {
    let manifest = read_manifest(dist)?;
    let page = serve::serve(opts.page.as_deref())
        .await
        .map_err(|source| BehaviourError::Page { page: opts.page.clone().unwrap_or_default(), source })?;
    let runner = crate::runner::launch(engine, runner_options(), env, config).await?;
    let report = run(runner.as_ref(), &page, dist, &manifest, opts).await;
    runner.shutdown().await;
    report
}

/// Checks `dist` in a running browser launched with [`runner_options`] that has no
/// extension loaded yet (the baseline needs the page without any), on `page`.
pub async fn check_in(
    runner: &dyn Runner,
    page: &TestPage,
    dist: &Path,
    opts: &Options,
) -> Result<Report, BehaviourError> {
    let manifest = read_manifest(dist)?;
    run(runner, page, dist, &manifest, opts).await
}

fn read_manifest(dist: &Path) -> Result<Value, BehaviourError> {
    let bytes = std::fs::read(dist.join("manifest.json")).map_err(|e| BehaviourError::Dist {
        dir: dist.to_owned(),
        reason: format!("no manifest.json ({e})"),
    })?;
    serde_json::from_slice(&bytes).map_err(|e| BehaviourError::Dist {
        dir: dist.to_owned(),
        reason: format!("manifest.json is not valid JSON ({e})"),
    })
}

async fn run(
    runner: &dyn Runner,
    page: &TestPage,
    dist: &Path,
    manifest: &Value,
    opts: &Options,
) -> Result<Report, BehaviourError> {
    let browser = match runner.family() {
        Engine::Chromium => "chromium",
        Engine::Gecko => "firefox",
    };
    let mut report = Report {
        browser: browser.to_owned(),
        dist: dist.display().to_string(),
        loaded: false,
        load_error: None,
        surfaces: Vec::new(),
        background: Background { declared: declared_background(manifest, runner.family()), alive: false },
        errors: Vec::new(),
        errors_dropped: 0,
    };
    // The page without the extension.
    let tab = runner.open_page(&page.url).await?;
    tracing::debug!("behaviour: test page opened");
    let baseline = read_page(runner, &tab.target_id, &page.url, &[], &[], opts).await;
    let baseline_console = runner.page_console(&tab.target_id).await;
    tracing::debug!(read = baseline.is_ok(), "behaviour: baseline read");
    runner.navigate_page(&tab.target_id, "about:blank").await?;
    tracing::debug!("behaviour: test page left");

    let ext = match runner.load_extension(dist).await {
        Ok(ext) => ext,
        Err(e) => {
            report.load_error = Some(e.to_string());
            return Ok(report);
        }
    };
    report.loaded = true;
    let started = ext.has_background && ext.wait_background(BACKGROUND_TIMEOUT).await.is_ok();

    runner.navigate_page(&tab.target_id, &page.url).await?;
    let skip = baseline.as_ref().map(|b| b.signatures.clone()).unwrap_or_default();
    let after = read_page(runner, &tab.target_id, &page.url, &[], &skip, opts).await;
    report.surfaces.push(content_surface(baseline, after, &ext.base_url));
    let page_console = runner.page_console(&tab.target_id).await;

    for context in Context::PAGES {
        let Some(rel) = page_path(manifest, context) else { continue };
        let url = format!("{}{rel}", ext.base_url);
        let read = match runner.open_page(&url).await {
            Ok(tab) => read_page(runner, &tab.target_id, &ext.base_url, MOUNT, &[], opts).await,
            Err(e) => Err(e.to_string()),
        };
        report.surfaces.push(extension_surface(context.as_str(), rel, read));
    }

    report.background.alive =
        started && worker_running(runner, &ext, report.background.declared.as_deref()).await;
    let (errors, dropped) = errors(&baseline_console, &page_console, &ext, manifest);
    report.errors = errors;
    report.errors_dropped = dropped;
    Ok(report)
}

/// Waits until the tab shows a document under `prefix` that finished loading, then runs the
/// probe. An error is the reason the page could not be read.
async fn read_page(
    runner: &dyn Runner,
    target: &str,
    prefix: &str,
    mount: &[&str],
    skip: &[String],
    opts: &Options,
) -> Result<Probed, String> {
    let condition = format!(
        "location.href.startsWith({}) && document.readyState === 'complete'",
        Value::String(prefix.to_owned())
    );
    let deadline = Instant::now() + LOAD_TIMEOUT;
    loop {
        if let Ok(Value::Bool(true)) =
            runner.evaluate_in_page(target, &condition, Duration::from_secs(2)).await
        {
            break;
        }
        if Instant::now() >= deadline {
            return Err(format!("the page did not load within {} s", LOAD_TIMEOUT.as_secs()));
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let arg = json!({
        "quietMs": opts.quiet.as_millis() as u64,
        "maxMs": opts.settle_max.as_millis() as u64,
        "mount": mount,
        "hostSelectors": if mount.is_empty() { HOST_SELECTORS } else { &[] },
        "hostProperties": HOST_PROPERTIES,
        "rootProperties": ROOT_PROPERTIES,
        "maxRoots": report::MAX_ROOTS,
        "maxText": MAX_TEXT,
        "maxSignatures": report::MAX_SIGNATURES,
        "skip": skip,
    });
    let timeout = opts.settle_max + Duration::from_secs(10);
    let answer =
        runner.call_isolated(target, PROBE.trim_end(), &arg, timeout).await.map_err(|e| e.to_string())?;
    let mut probed = report::read_probe(&answer);
    for root in probed.roots.iter_mut().chain(probed.mount.as_mut()) {
        root.text = relative(&root.text, prefix);
    }
    Ok(probed)
}

/// The test page with the extension, against the page without it.
fn content_surface(before: Result<Probed, String>, after: Result<Probed, String>, base_url: &str) -> Surface {
    let mut surface = Surface {
        name: "content".to_owned(),
        path: "/".to_owned(),
        read: false,
        error: None,
        root_count: 0,
        roots: Vec::new(),
        mount: None,
        host_changes: Vec::new(),
        page_roots: 0,
    };
    let (before, after) = match (before, after) {
        (Ok(b), Ok(a)) => (b, a),
        (Err(e), _) => {
            surface.error = Some(format!("the page without the extension could not be read: {e}"));
            return surface;
        }
        (_, Err(e)) => {
            surface.error = Some(e);
            return surface;
        }
    };
    surface.read = true;
    // The page's own roots (present without the extension) were skipped by the probe.
    surface.page_roots = after.skipped;
    surface.root_count = after.root_count;
    surface.roots = after.roots;
    for root in &mut surface.roots {
        root.text = relative(&root.text, base_url);
    }
    surface.host_changes = host_changes(&before.host, &after.host);
    surface
}

fn extension_surface(name: &str, rel: String, read: Result<Probed, String>) -> Surface {
    let (read, error, probed) = match read {
        Ok(p) => (true, None, p),
        Err(e) => (false, Some(e), Probed::default()),
    };
    Surface {
        name: name.to_owned(),
        path: rel,
        read,
        error,
        root_count: probed.root_count,
        roots: probed.roots,
        mount: probed.mount,
        host_changes: Vec::new(),
        page_roots: 0,
    }
}

/// What the manifest declares as background, as the browser reads it (Firefox runs
/// `scripts` when both are there; Chromium the `service_worker`).
fn declared_background(manifest: &Value, family: Engine) -> Option<String> {
    let bg = &manifest["background"];
    let scripts = bg["scripts"].as_array().is_some_and(|s| !s.is_empty());
    if bg["service_worker"].is_string() && !(scripts && family == Engine::Gecko) {
        Some("service_worker".to_owned())
    } else if scripts {
        Some("scripts".to_owned())
    } else if bg["page"].is_string() {
        Some("page".to_owned())
    } else {
        None
    }
}

/// A service worker is running now (a family that lists none — Firefox runs backgrounds as
/// pages — counts the start).
async fn worker_running(runner: &dyn Runner, ext: &ExtensionHandle, declared: Option<&str>) -> bool {
    if declared != Some("service_worker") {
        return true;
    }
    match runner.service_workers(&ext.base_url).await {
        Ok(workers) => !workers.is_empty(),
        Err(_) => true,
    }
}

/// Console errors and uncaught exceptions by world, sorted and capped; the page's own lines
/// that it printed without the extension too are left out.
fn errors(
    baseline: &[ConsoleEvent],
    page: &[ConsoleEvent],
    ext: &ExtensionHandle,
    manifest: &Value,
) -> (Vec<Message>, usize) {
    let is_error = |e: &&ConsoleEvent| e.level == Level::Error || e.kind == EventKind::Exception;
    let mut seen: BTreeMap<(bool, String), usize> = BTreeMap::new();
    for e in baseline.iter().filter(is_error) {
        *seen.entry((e.kind == EventKind::Exception, e.text.clone())).or_default() += 1;
    }
    let mut out = Vec::new();
    for e in page.iter().filter(is_error) {
        let key = (e.kind == EventKind::Exception, e.text.clone());
        match seen.get_mut(&key) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(message(e, world_of_page_event(e, &ext.base_url), &ext.base_url)),
        }
    }
    let files = Files::of(manifest);
    // A main-world line is in the page's console (`page`) already, where the baseline could
    // tell whether the page prints it by itself.
    for e in ext.history().iter().filter(is_error).filter(|e| !e.page_world) {
        out.push(message(e, world_of(e, &ext.base_url, &files), &ext.base_url));
    }
    out.sort();
    let dropped = out.len().saturating_sub(MAX_MESSAGES);
    out.truncate(MAX_MESSAGES);
    (out, dropped)
}

fn message(e: &ConsoleEvent, world: &str, base_url: &str) -> Message {
    let source = e.url.as_deref().and_then(|u| u.strip_prefix(base_url)).map(|file| match e.line {
        Some(line) => format!("{file}:{line}"),
        None => file.to_owned(),
    });
    Message {
        world: world.to_owned(),
        kind: if e.kind == EventKind::Exception { "exception" } else { "console" }.to_owned(),
        text: report::clip(&relative(&e.text, base_url), MAX_TEXT),
        source,
    }
}

/// A line the tab's console gave: the page's, unless the browser says an extension file
/// made it (Firefox files content scripts' lines under the page).
fn world_of_page_event(e: &ConsoleEvent, base_url: &str) -> &'static str {
    match &e.url {
        Some(u) if u.starts_with(base_url) => "content",
        _ => "page",
    }
}

/// The world of an extension's own event: by the document or worker it ran in when the
/// browser says, else by the file it came from.
fn world_of(e: &ConsoleEvent, base_url: &str, files: &Files) -> &'static str {
    let context = e.context.as_deref().unwrap_or("");
    if context == "service worker registration" {
        return "background";
    }
    if e.tab_id.is_some() || context.starts_with("http:") || context.starts_with("https:") {
        return "content";
    }
    let at = |s: &str| s.strip_prefix(base_url).map(|p| p.split(['?', '#']).next().unwrap_or(p).to_owned());
    if let Some(path) = at(context) {
        let background =
            path.ends_with(".js") || path.ends_with(".mjs") || path == "_generated_background_page.html";
        return if background { "background" } else { "extension_page" };
    }
    match e.url.as_deref().and_then(at) {
        Some(file) if files.content.contains(&file) => "content",
        Some(file) if files.background.contains(&file) || !files.has_pages => "background",
        _ => "extension_page",
    }
}

/// What the manifest runs where, for events that name only their file (Firefox's uncaught
/// errors).
struct Files {
    content: Vec<String>,
    background: Vec<String>,
    has_pages: bool,
}

impl Files {
    fn of(manifest: &Value) -> Files {
        let clean = |s: &str| s.trim_start_matches("./").trim_start_matches('/').to_owned();
        let strings = |v: &Value| {
            v.as_array().into_iter().flatten().filter_map(Value::as_str).map(clean).collect::<Vec<_>>()
        };
        let content = manifest["content_scripts"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|cs| strings(&cs["js"]))
            .collect();
        let bg = &manifest["background"];
        let mut background = strings(&bg["scripts"]);
        background.extend(bg["service_worker"].as_str().map(clean));
        let has_pages = Context::PAGES.iter().any(|c| page_path(manifest, *c).is_some());
        Files { content, background, has_pages }
    }
}

/// `text` with the extension's own origin (which differs per build folder in Chromium and
/// per run in Firefox) written as `extension:/`.
fn relative(text: &str, base_url: &str) -> String {
    if base_url.starts_with("http") {
        return text.to_owned();
    }
    text.replace(base_url, "extension:/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(url: Option<&str>, context: Option<&str>) -> ConsoleEvent {
        ConsoleEvent {
            kind: EventKind::Exception,
            level: Level::Error,
            text: "Error: boom".into(),
            url: url.map(str::to_owned),
            line: Some(3),
            column: None,
            context: context.map(str::to_owned),
            tab_id: None,
            frame_id: None,
            page_world: false,
        }
    }

    #[test]
    fn worlds_by_document_then_by_file() {
        let base = "chrome-extension://abc/";
        let manifest = json!({"content_scripts": [{"js": ["content.js"]}], "background": {"scripts": ["./bg.js"]},
                              "action": {"default_popup": "popup.html"}});
        let files = Files::of(&manifest);
        let w = |u, c| world_of(&event(u, c), base, &files);
        assert_eq!(w(Some("chrome-extension://abc/content.js"), Some("http://127.0.0.1:1/")), "content");
        assert_eq!(
            w(Some("chrome-extension://abc/sw.js"), Some("chrome-extension://abc/sw.js")),
            "background"
        );
        assert_eq!(
            w(Some("chrome-extension://abc/p.js"), Some("chrome-extension://abc/popup.html")),
            "extension_page"
        );
        assert_eq!(w(Some("moz-extension://u/x"), Some("service worker registration")), "background");
        let ff = |u: &str| world_of(&event(Some(u), None), "moz-extension://u/", &files);
        assert_eq!(ff("moz-extension://u/content.js"), "content");
        assert_eq!(ff("moz-extension://u/bg.js"), "background");
        assert_eq!(ff("moz-extension://u/sidebar/scripts.js"), "extension_page");
        let no_pages = Files::of(&json!({}));
        assert_eq!(
            world_of(&event(Some("moz-extension://u/chunk.js"), None), "moz-extension://u/", &no_pages),
            "background"
        );
    }

    #[test]
    fn page_lines_seen_without_the_extension_are_not_credited() {
        let e = |text: &str, url: &str| ConsoleEvent {
            text: text.into(),
            url: Some(url.into()),
            ..event(None, None)
        };
        let ext = ExtensionHandle::detached("/d".into(), "abc", false);
        let baseline = vec![e("forged", "http://127.0.0.1/")];
        let page = vec![e("forged", "http://127.0.0.1/"), e("new", "http://127.0.0.1/")];
        let (errors, dropped) = errors(&baseline, &page, &ext, &json!({}));
        assert_eq!(dropped, 0);
        assert_eq!(errors.len(), 1);
        assert_eq!((errors[0].world.as_str(), errors[0].text.as_str()), ("page", "new"));
    }

    #[test]
    fn extension_urls_are_written_relative() {
        assert_eq!(
            relative("at chrome-extension://abc/x.js:1", "chrome-extension://abc/"),
            "at extension:/x.js:1"
        );
    }
}
