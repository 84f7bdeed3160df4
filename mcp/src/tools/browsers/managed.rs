//! The `browsers` group: what browsers this machine has (`extension_detect_browsers`), what
//! webext-mcp installed itself (`extension_list_browsers`), and getting or removing one
//! (`extension_install_browser`, `extension_uninstall_browser`). The CLI verbs
//! `webext-mcp browsers detect|list|install|uninstall` call these through the registry.

use std::path::PathBuf;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use crate::browsers::detect::Probe;
use crate::browsers::managed::install::{self, Outcome, Status};
use crate::browsers::managed::vendors::Wanted;
use crate::browsers::managed::{self, Managed, Platform, fetch::Http};
use crate::browsers::survey::{self, Inputs};
use crate::browsers::{self, Engine};
use crate::install::Setup;
use crate::tools::registry::schema::{display_as_word, word};
use crate::tools::{Call, Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset, decode, schema_of};

pub fn tools() -> Vec<ToolDef> {
    vec![
        EXTENSION_DETECT_BROWSERS,
        EXTENSION_LIST_BROWSERS,
        EXTENSION_INSTALL_BROWSER,
        EXTENSION_UNINSTALL_BROWSER,
    ]
}

/// Arguments of `extension_detect_browsers`.
#[derive(Debug, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DetectArgs {
    /// Browsers to check (chrome, chromium, firefox, …, chrome-for-testing); all when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub browsers: Option<Vec<String>>,
}

/// Arguments of `extension_list_browsers` (none).
#[derive(Debug, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields)]
pub struct ListBrowsersArgs {}

/// What `extension_install_browser` installs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Installable {
    ChromeForTesting,
    /// Managed: a Chromium snapshot build (by revision); `via: system`: the distribution's.
    Chromium,
    Firefox,
    FirefoxEsr,
    FirefoxDeveloper,
}

impl Installable {
    fn managed(self) -> Managed {
        match self {
            Installable::ChromeForTesting => Managed::ChromeForTesting,
            Installable::Chromium => Managed::Chromium,
            Installable::Firefox => Managed::Firefox,
            Installable::FirefoxEsr => Managed::FirefoxEsr,
            Installable::FirefoxDeveloper => Managed::FirefoxDeveloper,
        }
    }
}

/// Where a browser comes from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Via {
    /// webext-mcp's own cache, from the vendor's distribution.
    #[default]
    Managed,
    /// The system's package manager (Linux).
    System,
}

display_as_word!(Installable, Via);

/// Arguments of `extension_install_browser`.
#[derive(Debug, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct InstallBrowserArgs {
    /// chrome-for-testing, chromium (snapshot build), firefox, firefox-esr or firefox-developer.
    #[arg(value_parser = word::<Installable>)]
    pub browser: Installable,
    /// `stable` (default) or `latest`; for Chrome for Testing also beta, dev, canary or a
    /// milestone (`131`); or an exact version (`133.0`, `140.5.0esr`, a Chromium revision).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long, value_name = "VERSION")]
    pub version: Option<String>,
    /// `managed` (default) or `system` (print the package-manager command).
    #[serde(default)]
    #[arg(long, default_value_t, value_parser = word::<Via>)]
    pub via: Via,
    /// With `via: system`: run the command (as root, or through `sudo -n`).
    #[serde(default)]
    #[arg(long)]
    pub consent: bool,
    /// How long to wait for another install of the same browser, in ms (default 600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long = "timeout", value_name = "MS")]
    pub timeout_ms: Option<u64>,
}

/// Arguments of `extension_uninstall_browser`.
#[derive(Debug, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct UninstallBrowserArgs {
    /// chrome-for-testing, chromium, firefox, firefox-esr or firefox-developer.
    #[arg(value_parser = word::<Managed>)]
    pub browser: Managed,
    /// One version to remove; all when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long, value_name = "VERSION")]
    pub version: Option<String>,
}

display_as_word!(Managed);

/// The names `browsers` accepts: the catalog's and the managed ones.
fn check_names(names: &[String]) -> Result<(), ErrorBody> {
    for n in names {
        if browsers::browser(n).is_none() && Managed::named(n).is_none() {
            let mut known: Vec<&str> = browsers::BROWSERS.iter().map(|b| b.name).collect();
            for m in Managed::ALL.map(Managed::name) {
                if !known.contains(&m) {
                    known.push(m);
                }
            }
            return Err(ErrorBody::invalid_argument(format!("unknown browser `{n}`"))
                .with_hint(format!("use any of: {}", known.join(", "))));
        }
    }
    Ok(())
}

/// The detection of this machine for `names`.
pub fn detection(ctx: &Ctx, names: Option<&[String]>) -> survey::Detection {
    let probe = Probe::real(&ctx.env, &ctx.paths.home);
    let setup = Setup::new(&ctx.paths, &ctx.env, probe.os, PathBuf::new());
    let (hosts, _) = webext_mcp_host::descriptor::search(&ctx.paths.runtime_search);
    let inputs = Inputs {
        probe: &probe,
        env: &ctx.env,
        config: &ctx.config,
        roots: &setup.roots,
        cache_root: &ctx.paths.browsers_dir,
        hosts: &hosts,
    };
    survey::detect(&inputs, names)
}

const EXTENSION_DETECT_BROWSERS: ToolDef = ToolDef {
    name: "extension_detect_browsers",
    title: "Detect installed browsers",
    toolset: Toolset::Browsers,
    description: "Every browser installed here (Chrome, Chromium, Edge, Brave, Opera, Vivaldi, Firefox, LibreWolf, Zen, Floorp, Waterfox; system, snap, flatpak, configured and managed): path, version (read from its files, no launch), channel, whether it loads unpacked extensions, runs dev sessions, and has the helper; what is missing and how to install it.",
    effect: Effect::Read,
    input_schema: schema_of::<DetectArgs>,
    run: |ctx, _call, args| Box::pin(detect(ctx, args)),
};

async fn detect(ctx: Ctx, args: Value) -> ToolResult {
    let DetectArgs { browsers } = decode(args)?;
    if let Some(names) = &browsers {
        check_names(names)?;
    }
    let d = tokio::task::spawn_blocking(move || detection(&ctx, browsers.as_deref()))
        .await
        .map_err(|e| ErrorBody::internal(format!("detection stopped: {e}")))?;
    Ok(ToolOutput {
        text: Some(survey::detection_text(&d).trim_end().to_owned()),
        structured: serde_json::to_value(&d).unwrap_or_default(),
    })
}

/// What each engine launches when no browser is named: the runner's own resolution.
fn engine_defaults(ctx: &Ctx) -> Value {
    let mut out = serde_json::Map::new();
    for engine in Engine::ALL {
        let from = if ctx.env.get(browsers::binary_env(engine)).is_some() {
            browsers::binary_env(engine).to_owned()
        } else if ctx.config.text(browsers::binary_key(engine)).is_some() {
            format!("config {}", browsers::binary_key(engine))
        } else {
            "system".to_owned()
        };
        let value = match crate::runner::resolve_binary(engine, None, &ctx.env, Some(&ctx.config)) {
            Ok(path) => json!({ "binaryPath": path, "from": from }),
            Err(e) => json!({ "binaryPath": null, "problem": e.to_string() }),
        };
        out.insert(engine.name().to_owned(), value);
    }
    Value::Object(out)
}

const EXTENSION_LIST_BROWSERS: ToolDef = ToolDef {
    name: "extension_list_browsers",
    title: "List managed browsers",
    toolset: Toolset::Browsers,
    description: "The browsers extension_install_browser installed (name, version, path, size, when), the cache they live in, and which browser each engine uses by default.",
    effect: Effect::Read,
    input_schema: schema_of::<ListBrowsersArgs>,
    run: |ctx, _call, args| Box::pin(list(ctx, args)),
};

async fn list(ctx: Ctx, args: Value) -> ToolResult {
    let ListBrowsersArgs {} = decode(args)?;
    let root = ctx.paths.browsers_dir.clone();
    let installed = managed::list(&root);
    let mut text = String::new();
    for i in &installed {
        text.push_str(&format!(
            "{} {} ({}, {:.0} MB, installed {}) {}\n",
            i.record.browser.name(),
            i.record.version,
            i.record.channel,
            i.record.size_bytes as f64 / 1e6,
            i.record.installed_at,
            i.binary_path.display()
        ));
    }
    if installed.is_empty() {
        text.push_str("no managed browser; extension_install_browser installs one\n");
    }
    text.push_str(&format!("cache: {}", root.display()));
    // The newest version of each is what `browser: "<name>"` runs.
    let managed_defaults: serde_json::Map<String, Value> = Managed::ALL
        .iter()
        .filter_map(|m| {
            installed
                .iter()
                .find(|i| i.record.browser == *m)
                .map(|i| (m.name().to_owned(), json!(i.record.version)))
        })
        .collect();
    Ok(ToolOutput {
        structured: json!({
            "cacheRoot": root,
            "installed": installed,
            "defaults": { "engines": engine_defaults(&ctx), "managed": managed_defaults },
        }),
        text: Some(text),
    })
}

/// The text of an install.
fn outcome_text(o: &Outcome) -> String {
    let name = o.browser.name();
    match o.status {
        Status::Manual => {
            let mut t = format!(
                "{name} {}: this platform's build is an installer, not unpacked here.\ndownload {}\n",
                o.version, o.url
            );
            if let Some(h) = &o.sha512 {
                t.push_str(&format!("sha512 {h}\n"));
            }
            for s in &o.steps {
                t.push_str(&format!("- {s}\n"));
            }
            t
        }
        status => {
            let what = if status == Status::Installed { "installed" } else { "already installed" };
            let path = o.binary_path.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
            let mut t =
                format!("{what} {name} {} ({}) at {path}\nverified: {}\n", o.version, o.channel, o.verified);
            // Chrome for Testing has a session name of its own; a managed Chromium stands in
            // for the system's only when that is missing, so it is named by path.
            match o.browser {
                Managed::ChromeForTesting => t.push_str(&format!(
                    "use it: extension_dev with browser: \"{name}\" (CLI: --browser {name})\n"
                )),
                Managed::Chromium => t.push_str(&format!(
                    "use it: extension_dev with binary: \"{path}\" (CLI: --binary {path})\n"
                )),
                _ => t.push_str(&format!("use it: set WEBEXT_MCP_FIREFOX_BINARY={path}\n")),
            }
            t
        }
    }
}

const EXTENSION_INSTALL_BROWSER: ToolDef = ToolDef {
    name: "extension_install_browser",
    title: "Install a browser",
    toolset: Toolset::Browsers,
    description: "Download a browser from its vendor's official distribution (Chrome for Testing, Chromium snapshots, Mozilla's archive; base URL configurable as browsers.mirror) into webext-mcp's cache, verified (Mozilla's SHA-512; Chrome for Testing publishes none) and unpacked safely; idempotent. `via: system` gives the package-manager command instead (and runs it with `consent: true`).",
    effect: Effect::Idempotent,
    input_schema: schema_of::<InstallBrowserArgs>,
    run: |ctx, call, args| Box::pin(install_browser(ctx, call, args)),
};

async fn install_browser(ctx: Ctx, call: Call, args: Value) -> ToolResult {
    let key = crate::tools::registry::jobs::key("extension_install_browser", &args);
    let a: InstallBrowserArgs = decode(args)?;
    if a.via == Via::System {
        return super::system::install(a.browser, a.consent).await;
    }
    let browser = a.browser.managed();
    let platform = Platform::current().ok_or_else(|| {
        ErrorBody::new(ErrorCode::Unsupported, format!("no vendor build exists for {}/{}", std::env::consts::OS, std::env::consts::ARCH))
            .with_hint("install a browser with the system's package manager (extension_install_browser with via: \"system\")")
    })?;
    let version =
        Wanted::parse(browser, a.version.as_deref().unwrap_or("stable")).map_err(ErrorBody::from)?;
    let request = install::Request {
        browser,
        version,
        platform,
        mirror: ctx.config.text("browsers.mirror").map(str::to_owned),
        wait: Duration::from_millis(a.timeout_ms.unwrap_or(600_000)),
    };
    let root = ctx.paths.browsers_dir.clone();
    let work: crate::tools::registry::jobs::Work = Box::new(move |cancel, out| {
        let outcome =
            install::install(&root, &request, &Http::new(), &mut |line| out(line), &|| cancel.is_cancelled())
                .map_err(ErrorBody::from)?;
        Ok(ToolOutput {
            text: Some(outcome_text(&outcome).trim_end().to_owned()),
            structured: serde_json::to_value(&outcome).unwrap_or_default(),
        })
    });
    crate::tools::registry::jobs::run_or_join(&call, "extension_install_browser", key, work).await
}

const EXTENSION_UNINSTALL_BROWSER: ToolDef = ToolDef {
    name: "extension_uninstall_browser",
    title: "Remove a managed browser",
    toolset: Toolset::Browsers,
    description: "Remove a browser extension_install_browser installed (one version, or all of them).",
    effect: Effect::Destructive,
    input_schema: schema_of::<UninstallBrowserArgs>,
    run: |ctx, _call, args| Box::pin(uninstall_browser(ctx, args)),
};

async fn uninstall_browser(ctx: Ctx, args: Value) -> ToolResult {
    let UninstallBrowserArgs { browser, version } = decode(args)?;
    let root = ctx.paths.browsers_dir.clone();
    let removed = tokio::task::spawn_blocking(move || {
        managed::uninstall(&root, browser, version.as_deref(), Duration::from_secs(30))
    })
    .await
    .map_err(|e| ErrorBody::internal(format!("uninstall stopped: {e}")))?
    .map_err(ErrorBody::from)?;
    Ok(ToolOutput {
        text: Some(format!(
            "removed {} {} ({:.0} MB)",
            browser.name(),
            removed.versions.join(", "),
            removed.freed_bytes as f64 / 1e6
        )),
        structured: serde_json::to_value(&removed).unwrap_or_default(),
    })
}
