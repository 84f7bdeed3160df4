//! The profile's `user.js`: the prefs every Firefox we start gets.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use crate::runner::{RunnerError, RunnerOptions};

/// Prefs: unsigned extensions, console on stdout, fixed uuids, and a quiet browser (no
/// first-run pages, telemetry, updates or background network traffic); with
/// `remote_control`, Marionette on a port of Firefox's choosing; with `devtools`, the
/// debugger server without its connection prompt, and backgrounds never suspended when idle
/// (a session evaluates in them at any time); then `extra` (a project's `preferences`,
/// vetted), which come last and so win.
pub(super) fn user_js(
    uuids: &BTreeMap<String, String>,
    remote_control: bool,
    devtools: bool,
    extra: &serde_json::Map<String, Value>,
) -> String {
    let uuids = serde_json::to_string(uuids).unwrap_or_else(|_| "{}".to_owned());
    let prefs: Vec<(&str, Value)> = vec![
        ("xpinstall.signatures.required", json!(false)),
        ("extensions.autoDisableScopes", json!(0)),
        ("extensions.enabledScopes", json!(15)),
        ("devtools.console.stdout.content", json!(true)),
        ("browser.dom.window.dump.enabled", json!(true)),
        ("extensions.webextensions.uuids", json!(uuids)),
        ("extensions.update.enabled", json!(false)),
        ("extensions.getAddons.cache.enabled", json!(false)),
        ("browser.shell.checkDefaultBrowser", json!(false)),
        ("browser.startup.homepage_override.mstone", json!("ignore")),
        ("browser.startup.page", json!(0)),
        ("browser.aboutwelcome.enabled", json!(false)),
        ("browser.newtabpage.enabled", json!(false)),
        ("browser.newtabpage.activity-stream.feeds.topsites", json!(false)),
        ("browser.newtabpage.activity-stream.feeds.system.topsites", json!(false)),
        ("browser.sessionstore.resume_from_crash", json!(false)),
        ("browser.tabs.warnOnClose", json!(false)),
        ("datareporting.policy.dataSubmissionEnabled", json!(false)),
        ("datareporting.healthreport.uploadEnabled", json!(false)),
        ("toolkit.telemetry.enabled", json!(false)),
        ("toolkit.telemetry.server", json!("")),
        ("app.update.disabledForTesting", json!(true)),
        ("app.update.auto", json!(false)),
        ("app.normandy.enabled", json!(false)),
        ("messaging-system.rsexperimentloader.enabled", json!(false)),
        ("browser.safebrowsing.malware.enabled", json!(false)),
        ("browser.safebrowsing.phishing.enabled", json!(false)),
        ("browser.safebrowsing.downloads.enabled", json!(false)),
        ("network.captive-portal-service.enabled", json!(false)),
        ("network.connectivity-service.enabled", json!(false)),
        ("network.dns.disablePrefetch", json!(true)),
        ("network.prefetch-next", json!(false)),
        ("browser.search.update", json!(false)),
        ("toolkit.startup.max_resumed_crashes", json!(-1)),
        // Startup work a dev browser never needs (issue 25: measured on ESR 153 under load,
        // the first temporary install answered about 1 s sooner with these): Remote
        // Settings and region lookups, the spare content process, first-run bookmarks,
        // thumbnails, distribution add-ons, the add-on blocklist, translations, accounts,
        // suggestions and local ML models.
        ("services.settings.server", json!("data:,#remote-settings-dummy/v1")),
        ("browser.region.update.enabled", json!(false)),
        ("browser.region.network.url", json!("")),
        ("dom.ipc.processPrelaunch.enabled", json!(false)),
        ("browser.pagethumbnails.capturing_disabled", json!(true)),
        ("browser.discovery.enabled", json!(false)),
        ("browser.uitour.enabled", json!(false)),
        ("media.gmp-manager.updateEnabled", json!(false)),
        ("extensions.installDistroAddons", json!(false)),
        ("browser.bookmarks.restore_default_bookmarks", json!(false)),
        ("browser.places.importBookmarksHTML", json!(false)),
        ("browser.newtabpage.activity-stream.feeds.section.topstories", json!(false)),
        ("browser.topsites.contile.enabled", json!(false)),
        ("extensions.blocklist.enabled", json!(false)),
        ("browser.translations.enable", json!(false)),
        ("identity.fxaccounts.enabled", json!(false)),
        ("browser.urlbar.quicksuggest.enabled", json!(false)),
        ("browser.ml.enable", json!(false)),
    ];
    let remote: &[(&str, Value)] = if remote_control { &[("marionette.port", json!(0))] } else { &[] };
    let debugger: Vec<(&str, Value)> = if devtools {
        vec![
            ("devtools.debugger.remote-enabled", json!(true)),
            ("devtools.chrome.enabled", json!(true)),
            ("devtools.debugger.prompt-connection", json!(false)),
            ("extensions.background.idle.enabled", json!(false)),
        ]
    } else {
        Vec::new()
    };
    let extra: Vec<(&str, Value)> = extra.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    prefs
        .iter()
        .chain(remote)
        .chain(&debugger)
        .chain(&extra)
        .map(|(k, v)| format!("user_pref({}, {v});\n", json!(k)))
        .collect()
}

pub(super) fn write_user_js(
    profile: &Path,
    uuids: &BTreeMap<String, String>,
    opts: &RunnerOptions,
) -> Result<(), RunnerError> {
    let path = profile.join("user.js");
    std::fs::write(&path, user_js(uuids, opts.remote_control, opts.devtools, &opts.preferences))
        .map_err(RunnerError::io(format!("cannot write {}", path.display())))
}
