//! Facts about permissions that MDN's compat data does not carry: which permissions exist
//! per engine, which API namespace needs which permission, the install warning each one
//! shows in Chrome and Firefox, and what store review asks about.
//!
//! Sources: Chrome's "Permission warnings" and "Declare permissions" pages, Firefox's
//! `permissions` manifest page and the strings of its install dialog.

use crate::browsers::Engine;

/// (permission, engines that know it). `None` = both.
const KNOWN: &[(&str, Option<Engine>)] = &[
    ("activeTab", None),
    ("alarms", None),
    ("background", Some(Engine::Chromium)),
    ("bookmarks", None),
    ("browserSettings", Some(Engine::Gecko)),
    ("browsingData", None),
    ("captivePortal", Some(Engine::Gecko)),
    ("certificateProvider", Some(Engine::Chromium)),
    ("clipboardRead", None),
    ("clipboardWrite", None),
    ("contentSettings", Some(Engine::Chromium)),
    ("contextMenus", None),
    ("contextualIdentities", Some(Engine::Gecko)),
    ("cookies", None),
    ("debugger", Some(Engine::Chromium)),
    ("declarativeContent", Some(Engine::Chromium)),
    ("declarativeNetRequest", None),
    ("declarativeNetRequestFeedback", None),
    ("declarativeNetRequestWithHostAccess", None),
    ("desktopCapture", Some(Engine::Chromium)),
    ("devtools", Some(Engine::Gecko)),
    ("dns", Some(Engine::Gecko)),
    ("documentScan", Some(Engine::Chromium)),
    ("downloads", None),
    ("downloads.open", None),
    ("downloads.ui", Some(Engine::Chromium)),
    ("enterprise.deviceAttributes", Some(Engine::Chromium)),
    ("enterprise.hardwarePlatform", Some(Engine::Chromium)),
    ("enterprise.networkingAttributes", Some(Engine::Chromium)),
    ("enterprise.platformKeys", Some(Engine::Chromium)),
    ("favicon", Some(Engine::Chromium)),
    ("find", Some(Engine::Gecko)),
    ("fontSettings", Some(Engine::Chromium)),
    ("gcm", Some(Engine::Chromium)),
    ("geolocation", None),
    ("history", None),
    ("identity", None),
    ("identity.email", Some(Engine::Chromium)),
    ("idle", None),
    ("loginState", Some(Engine::Chromium)),
    ("management", None),
    ("menus", Some(Engine::Gecko)),
    ("menus.overrideContext", Some(Engine::Gecko)),
    ("nativeMessaging", None),
    ("notifications", None),
    ("offscreen", Some(Engine::Chromium)),
    ("pageCapture", Some(Engine::Chromium)),
    ("pkcs11", Some(Engine::Gecko)),
    ("platformKeys", Some(Engine::Chromium)),
    ("power", Some(Engine::Chromium)),
    ("printerProvider", Some(Engine::Chromium)),
    ("printing", Some(Engine::Chromium)),
    ("printingMetrics", Some(Engine::Chromium)),
    ("privacy", None),
    ("processes", Some(Engine::Chromium)),
    ("proxy", None),
    ("readingList", Some(Engine::Chromium)),
    ("runtime", Some(Engine::Chromium)),
    ("scripting", None),
    ("search", None),
    ("sessions", None),
    ("sidePanel", Some(Engine::Chromium)),
    ("storage", None),
    ("system.cpu", Some(Engine::Chromium)),
    ("system.display", Some(Engine::Chromium)),
    ("system.memory", Some(Engine::Chromium)),
    ("system.storage", Some(Engine::Chromium)),
    ("tabCapture", Some(Engine::Chromium)),
    ("tabGroups", None),
    ("tabHide", Some(Engine::Gecko)),
    ("tabs", None),
    ("theme", Some(Engine::Gecko)),
    ("topSites", None),
    ("tts", Some(Engine::Chromium)),
    ("ttsEngine", Some(Engine::Chromium)),
    ("unlimitedStorage", None),
    ("userScripts", None),
    ("vpnProvider", Some(Engine::Chromium)),
    ("wallpaper", Some(Engine::Chromium)),
    ("webAuthenticationProxy", Some(Engine::Chromium)),
    ("webNavigation", None),
    ("webRequest", None),
    ("webRequestAuthProvider", None),
    ("webRequestBlocking", None),
    ("webRequestFilterResponse", Some(Engine::Gecko)),
    ("webRequestFilterResponse.serviceWorkerScript", Some(Engine::Gecko)),
];

/// Which engines know permission `p`: `None` when no browser does, `Some(None)` when both
/// do, `Some(Some(engine))` when only that one does.
pub fn engines_of(p: &str) -> Option<Option<Engine>> {
    KNOWN.iter().find(|(name, _)| *name == p).map(|(_, f)| *f)
}

/// Every permission name, for "did you mean".
pub fn known_names() -> impl Iterator<Item = &'static str> {
    KNOWN.iter().map(|(n, _)| *n)
}

/// The permissions that grant an API namespace: using `chrome.<namespace>` needs one of
/// them. Namespaces not listed need none (`runtime`, `tabs`, `i18n`, `action`, …).
const API_PERMISSIONS: &[(&str, &[&str])] = &[
    ("alarms", &["alarms"]),
    ("bookmarks", &["bookmarks"]),
    ("browserSettings", &["browserSettings"]),
    ("browsingData", &["browsingData"]),
    ("contentSettings", &["contentSettings"]),
    ("contextMenus", &["contextMenus", "menus"]),
    ("contextualIdentities", &["contextualIdentities"]),
    ("cookies", &["cookies"]),
    ("debugger", &["debugger"]),
    ("declarativeContent", &["declarativeContent"]),
    (
        "declarativeNetRequest",
        &["declarativeNetRequest", "declarativeNetRequestWithHostAccess", "declarativeNetRequestFeedback"],
    ),
    ("desktopCapture", &["desktopCapture"]),
    ("dns", &["dns"]),
    ("downloads", &["downloads"]),
    ("find", &["find"]),
    ("fontSettings", &["fontSettings"]),
    ("gcm", &["gcm"]),
    ("history", &["history"]),
    ("identity", &["identity"]),
    ("idle", &["idle"]),
    ("menus", &["menus", "contextMenus"]),
    ("notifications", &["notifications"]),
    ("offscreen", &["offscreen"]),
    ("pageCapture", &["pageCapture"]),
    ("pkcs11", &["pkcs11"]),
    ("power", &["power"]),
    ("printing", &["printing"]),
    ("privacy", &["privacy"]),
    ("proxy", &["proxy"]),
    ("readingList", &["readingList"]),
    ("scripting", &["scripting"]),
    ("search", &["search"]),
    ("sessions", &["sessions"]),
    ("sidePanel", &["sidePanel"]),
    ("storage", &["storage"]),
    ("system.cpu", &["system.cpu"]),
    ("system.display", &["system.display"]),
    ("system.memory", &["system.memory"]),
    ("system.storage", &["system.storage"]),
    ("tabCapture", &["tabCapture"]),
    ("tabGroups", &["tabGroups"]),
    ("theme", &["theme"]),
    ("topSites", &["topSites"]),
    ("tts", &["tts"]),
    ("ttsEngine", &["ttsEngine"]),
    ("userScripts", &["userScripts"]),
    ("webNavigation", &["webNavigation"]),
    ("webRequest", &["webRequest"]),
];

/// Manifest keys that only work with a permission: the permission is used by the key,
/// whatever the code does. (key path, permissions any of which it needs, source).
pub const KEY_PERMISSIONS: &[(&str, &[&str], &str)] = &[
    (
        "side_panel",
        &["sidePanel"],
        "https://developer.chrome.com/docs/extensions/reference/api/sidePanel#manifest",
    ),
    (
        "declarative_net_request",
        &["declarativeNetRequest", "declarativeNetRequestWithHostAccess"],
        "https://developer.chrome.com/docs/extensions/reference/api/declarativeNetRequest#manifest",
    ),
    (
        "tts_engine",
        &["ttsEngine"],
        "https://developer.chrome.com/docs/extensions/reference/api/ttsEngine#manifest",
    ),
    (
        "storage.managed_schema",
        &["storage"],
        "https://developer.chrome.com/docs/extensions/reference/manifest/storage",
    ),
    (
        "chrome_url_overrides",
        &[],
        "https://developer.chrome.com/docs/extensions/develop/ui/override-chrome-pages (needs none)",
    ),
];

/// The permissions the keys present in `m` need (see [`KEY_PERMISSIONS`]).
pub fn needed_by_keys(m: &crate::manifest::Json) -> Vec<&'static str> {
    KEY_PERMISSIONS
        .iter()
        .filter(|(key, _, _)| {
            let mut cur = Some(m);
            for part in key.split('.') {
                cur = cur.and_then(|v| v.get(part));
            }
            cur.is_some()
        })
        .flat_map(|(_, ps, _)| ps.iter().copied())
        .collect()
}

/// Methods that need a permission their namespace otherwise does not.
const METHOD_PERMISSIONS: &[(&str, &[&str])] = &[
    ("runtime.connectNative", &["nativeMessaging"]),
    ("runtime.sendNativeMessage", &["nativeMessaging"]),
    ("tabs.hide", &["tabHide"]),
    ("downloads.open", &["downloads.open"]),
];

/// The permissions any of which allows `api` (`storage.local.get`), or `None` when it needs
/// none. `management` needs one except for its own-extension methods.
pub fn needed_for(api: &str) -> Option<&'static [&'static str]> {
    if let Some((_, p)) =
        METHOD_PERMISSIONS.iter().find(|(m, _)| api == *m || api.starts_with(&format!("{m}.")))
    {
        return Some(*p);
    }
    if api.starts_with("management.")
        && !api.starts_with("management.getSelf")
        && !api.starts_with("management.uninstallSelf")
    {
        return Some(&["management"]);
    }
    API_PERMISSIONS
        .iter()
        .filter(|(ns, _)| api == *ns || api.starts_with(&format!("{ns}.")))
        .max_by_key(|(ns, _)| ns.len())
        .map(|(_, p)| *p)
}

/// Whether the extension uses permission `p`, given the APIs it calls: `None` when that
/// cannot be told from API calls (`activeTab`, `unlimitedStorage`, `clipboardWrite`, …).
pub fn is_used(p: &str, apis: &[&str]) -> Option<bool> {
    let grants = |a: &&str| needed_for(a).is_some_and(|ps| ps.contains(&p));
    let mappable =
        API_PERMISSIONS.iter().chain(METHOD_PERMISSIONS).any(|(_, ps)| ps.contains(&p)) || p == "management";
    if p == "tabs" {
        return Some(apis.iter().any(|a| a.starts_with("tabs.") || a.starts_with("windows.")));
    }
    mappable.then(|| apis.iter().any(grants))
}

/// What store review asks about a permission (Chrome Web Store "justify each permission",
/// AMO's manual review), when it is one of the costly ones.
pub fn review_cost(p: &str) -> Option<&'static str> {
    Some(match p {
        "<all_urls>" | "*://*/*" | "http://*/*" | "https://*/*" => {
            "broad host access: the Chrome Web Store reviews it in depth and delays publishing; prefer activeTab or specific hosts"
        }
        "tabs" => {
            "`tabs` shows \"Read your browsing history\" at install; activeTab or tabs.query without url often suffice"
        }
        "scripting" => "`scripting` with host access lets the extension change any page: reviewers ask why",
        "debugger" => "`debugger` shows \"Access the page debugger backend\" and gets manual review",
        "nativeMessaging" => {
            "`nativeMessaging` talks to programs outside the browser: reviewers ask what runs there"
        }
        "webRequest" | "webRequestBlocking" => {
            "request interception gets in-depth review; declarativeNetRequest is preferred"
        }
        "cookies" | "history" | "downloads" | "management" | "privacy" | "proxy" => {
            "a sensitive permission: reviewers ask for the user-facing reason"
        }
        _ => return None,
    })
}

/// The install warning a permission shows (Chrome, Firefox); `None` where it shows none.
pub fn install_warning(p: &str, family: Engine) -> Option<String> {
    let chrome = |s: &str| (family == Engine::Chromium).then(|| s.to_owned());
    let firefox = |s: &str| (family == Engine::Gecko).then(|| s.to_owned());
    if p == "<all_urls>"
        || p == "*://*/*"
        || p.starts_with("*://*/")
        || p == "http://*/*"
        || p == "https://*/*"
    {
        return chrome("Read and change all your data on all websites")
            .or(firefox("Access your data for all websites"));
    }
    if let Some((_, rest)) = p.split_once("://") {
        let host = rest.split('/').next().unwrap_or(rest);
        return chrome(&format!("Read and change your data on {host}"))
            .or(firefox(&format!("Access your data for {host}")));
    }
    let (c, f): (&str, &str) = match p {
        "bookmarks" => ("Read and change your bookmarks", "Read and modify bookmarks"),
        "browserSettings" => ("", "Read and modify browser settings"),
        "browsingData" => ("", "Clear recent browsing history, cookies, and related data"),
        "clipboardRead" => ("Read data you copy and paste", "Get data from the clipboard"),
        "clipboardWrite" => ("Modify data you copy and paste", "Input data to the clipboard"),
        "contentSettings" => (
            "Change your settings that control websites' access to features such as cookies, JavaScript, plugins, geolocation, microphone, camera etc.",
            "",
        ),
        "debugger" => ("Access the page debugger backend; Read and change all your data on all websites", ""),
        "declarativeNetRequest" => ("Block content on any page", "Block content on any page"),
        "declarativeNetRequestFeedback" => ("Read your browsing history", ""),
        "desktopCapture" => ("Capture content of your screen", ""),
        "downloads" => {
            ("Manage your downloads", "Download files and read and modify the browser's download history")
        }
        "downloads.open" => ("", "Open files downloaded to your computer"),
        "find" => ("", "Read the text of all open tabs"),
        "geolocation" => ("Detect your physical location", "Access your location"),
        "history" => {
            ("Read and change your browsing history on all your signed-in devices", "Access browsing history")
        }
        "management" => {
            ("Manage your apps, extensions, and themes", "Monitor extension usage and manage themes")
        }
        "nativeMessaging" => (
            "Communicate with cooperating native applications",
            "Exchange messages with programs other than Firefox",
        ),
        "notifications" => ("Display notifications", "Display notifications to you"),
        "pageCapture" => ("Read and change all your data on all websites", ""),
        "pkcs11" => ("", "Provide cryptographic authentication services"),
        "privacy" => ("Change your privacy-related settings", "Read and modify privacy settings"),
        "proxy" => ("Read and change all your data on all websites", "Control browser proxy settings"),
        "readingList" => ("Read and change entries in the reading list", ""),
        "sessions" => ("", "Access recently closed tabs"),
        "system.storage" => ("Identify and eject storage devices", ""),
        "tabCapture" => ("Read and change all your data on all websites", ""),
        "tabGroups" => ("View and manage your tab groups", "View and manage your tab groups"),
        "tabHide" => ("", "Hide and show browser tabs"),
        "tabs" => ("Read your browsing history", "Access browser tabs"),
        "topSites" => ("Read a list of your most frequently visited websites", "Access browsing history"),
        "ttsEngine" => ("Read all text spoken using synthesized speech", ""),
        "webNavigation" => ("Read your browsing history", "Access browser activity during navigation"),
        "favicon" => ("Read the icons of the websites you visit", ""),
        _ => ("", ""),
    };
    let s = if family == Engine::Chromium { c } else { f };
    (!s.is_empty()).then(|| s.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apis_map_to_their_permissions() {
        assert_eq!(needed_for("storage.local.get"), Some(&["storage"][..]));
        assert_eq!(needed_for("tabs.query"), None);
        assert_eq!(needed_for("runtime.sendMessage"), None);
        assert_eq!(needed_for("runtime.connectNative"), Some(&["nativeMessaging"][..]));
        assert_eq!(needed_for("management.getSelf"), None);
        assert_eq!(needed_for("management.getAll"), Some(&["management"][..]));
        assert_eq!(needed_for("system.cpu.getInfo"), Some(&["system.cpu"][..]));
        assert_eq!(is_used("storage", &["storage.sync.get"]), Some(true));
        assert_eq!(is_used("alarms", &["storage.sync.get"]), Some(false));
        assert_eq!(is_used("activeTab", &[]), None);
        assert_eq!(is_used("tabs", &["tabs.query"]), Some(true));
        assert!(install_warning("<all_urls>", Engine::Chromium).unwrap().contains("all websites"));
        assert_eq!(install_warning("storage", Engine::Gecko), None);
    }
}
