//! The shape of a manifest: every known key, the JSON type it must have, and the keys each
//! manifest version requires. Browsers refuse a wrong type at load time ("Error at key
//! 'permissions': expected an array") where a lenient tool would pass it silently, so a type
//! error is an error here, and a key nobody knows (a typo) is a warning with the closest
//! known name.
//!
//! Keys whose type depends on the manifest version (`content_security_policy`,
//! `web_accessible_resources`) are `Any` here and checked in `values.rs`.

use crate::manifest::{Finding, FindingCode, Json};

/// The JSON type a key must have.
#[derive(Debug, Clone, Copy)]
pub enum Ty {
    Str,
    /// An integer.
    Int,
    Bool,
    /// One of these strings.
    Word(&'static [&'static str]),
    /// An object with these keys (others are unknown keys).
    Obj(&'static [Key]),
    /// An object whose every value has this type (`icons`, `commands`).
    Map(&'static Ty),
    StrList,
    /// An array of objects with these keys.
    ObjList(&'static [Key]),
    /// A path, or an object of size → path (`default_icon`).
    Icon,
    /// A string or an object (`author` in Chrome MV3 may be `{ "email": … }`).
    StrOrObj,
    /// Anything (checked elsewhere, or free-form).
    Any,
}

/// One known key.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    pub name: &'static str,
    pub ty: Ty,
}

const fn k(name: &'static str, ty: Ty) -> Key {
    Key { name, ty }
}

const ACTION: &[Key] = &[
    k("default_popup", Ty::Str),
    k("default_title", Ty::Str),
    k("default_icon", Ty::Icon),
    k("theme_icons", Ty::ObjList(&[k("light", Ty::Str), k("dark", Ty::Str), k("size", Ty::Int)])),
    k("browser_style", Ty::Bool),
    k("default_area", Ty::Word(&["navbar", "menupanel", "tabstrip", "personaltoolbar"])),
    k("show_matches", Ty::StrList),
    k("hide_matches", Ty::StrList),
    k("pinned", Ty::Bool),
    k("default_state", Ty::Word(&["enabled", "disabled"])),
];

const BACKGROUND: &[Key] = &[
    k("service_worker", Ty::Str),
    k("scripts", Ty::StrList),
    k("page", Ty::Str),
    k("persistent", Ty::Bool),
    k("type", Ty::Word(&["classic", "module"])),
    k("preferred_environment", Ty::StrList),
];

const CONTENT_SCRIPT: &[Key] = &[
    k("matches", Ty::StrList),
    k("exclude_matches", Ty::StrList),
    k("include_globs", Ty::StrList),
    k("exclude_globs", Ty::StrList),
    k("js", Ty::StrList),
    k("css", Ty::StrList),
    k("run_at", Ty::Word(&["document_start", "document_end", "document_idle"])),
    k("all_frames", Ty::Bool),
    k("match_about_blank", Ty::Bool),
    k("match_origin_as_fallback", Ty::Bool),
    k("world", Ty::Word(&["ISOLATED", "MAIN"])),
    k("css_origin", Ty::Word(&["author", "user"])),
];

const GECKO: &[Key] = &[
    k("id", Ty::Str),
    k("strict_min_version", Ty::Str),
    k("strict_max_version", Ty::Str),
    k("update_url", Ty::Str),
    k("data_collection_permissions", Ty::Obj(&[k("required", Ty::StrList), k("optional", Ty::StrList)])),
    k("admin_install_only", Ty::Bool),
];

const SHORTCUTS: &[Key] = &[
    k("default", Ty::Str),
    k("mac", Ty::Str),
    k("windows", Ty::Str),
    k("linux", Ty::Str),
    k("chromeos", Ty::Str),
    k("android", Ty::Str),
    k("ios", Ty::Str),
];

const COMMAND: Ty =
    Ty::Obj(&[k("suggested_key", Ty::Obj(SHORTCUTS)), k("description", Ty::Str), k("global", Ty::Bool)]);

/// Every top-level key known to Chrome or Firefox.
pub const TOP: &[Key] = &[
    k("manifest_version", Ty::Int),
    k("name", Ty::Str),
    k("version", Ty::Str),
    k("version_name", Ty::Str),
    k("short_name", Ty::Str),
    k("description", Ty::Str),
    k("default_locale", Ty::Str),
    k("author", Ty::StrOrObj),
    k("developer", Ty::Obj(&[k("name", Ty::Str), k("url", Ty::Str)])),
    k("homepage_url", Ty::Str),
    k("icons", Ty::Map(&Ty::Str)),
    k("action", Ty::Obj(ACTION)),
    k("browser_action", Ty::Obj(ACTION)),
    k("page_action", Ty::Obj(ACTION)),
    k("background", Ty::Obj(BACKGROUND)),
    k("content_scripts", Ty::ObjList(CONTENT_SCRIPT)),
    k("permissions", Ty::StrList),
    k("optional_permissions", Ty::StrList),
    k("host_permissions", Ty::StrList),
    k("optional_host_permissions", Ty::StrList),
    k("content_security_policy", Ty::Any),
    k("web_accessible_resources", Ty::Any),
    k("options_page", Ty::Str),
    k("options_ui", Ty::Obj(&[k("page", Ty::Str), k("open_in_tab", Ty::Bool), k("browser_style", Ty::Bool)])),
    k("devtools_page", Ty::Str),
    k("side_panel", Ty::Obj(&[k("default_path", Ty::Str), k("open_panel_on_action_click", Ty::Bool)])),
    k(
        "sidebar_action",
        Ty::Obj(&[
            k("default_panel", Ty::Str),
            k("default_title", Ty::Str),
            k("default_icon", Ty::Icon),
            k("open_at_install", Ty::Bool),
            k("browser_style", Ty::Bool),
        ]),
    ),
    k(
        "chrome_url_overrides",
        Ty::Obj(&[k("newtab", Ty::Str), k("bookmarks", Ty::Str), k("history", Ty::Str)]),
    ),
    k("chrome_settings_overrides", Ty::Any),
    k("commands", Ty::Map(&COMMAND)),
    k("omnibox", Ty::Obj(&[k("keyword", Ty::Str)])),
    k(
        "browser_specific_settings",
        Ty::Obj(&[k("gecko", Ty::Obj(GECKO)), k("gecko_android", Ty::Any), k("safari", Ty::Any)]),
    ),
    k(
        "declarative_net_request",
        Ty::Obj(&[k(
            "rule_resources",
            Ty::ObjList(&[k("id", Ty::Str), k("enabled", Ty::Bool), k("path", Ty::Str)]),
        )]),
    ),
    k(
        "externally_connectable",
        Ty::Obj(&[k("matches", Ty::StrList), k("ids", Ty::StrList), k("accepts_tls_channel_id", Ty::Bool)]),
    ),
    k("incognito", Ty::Word(&["spanning", "split", "not_allowed"])),
    k("key", Ty::Str),
    k("update_url", Ty::Str),
    k("minimum_chrome_version", Ty::Str),
    k("offline_enabled", Ty::Bool),
    k("oauth2", Ty::Obj(&[k("client_id", Ty::Str), k("scopes", Ty::StrList)])),
    k("sandbox", Ty::Obj(&[k("pages", Ty::StrList), k("content_security_policy", Ty::Str)])),
    k("storage", Ty::Obj(&[k("managed_schema", Ty::Str)])),
    k("user_scripts", Ty::Obj(&[k("api_script", Ty::Str)])),
    k("theme", Ty::Any),
    k("dark_theme", Ty::Any),
    k("theme_experiment", Ty::Any),
    k("dictionaries", Ty::Map(&Ty::Str)),
    k(
        "protocol_handlers",
        Ty::ObjList(&[k("protocol", Ty::Str), k("name", Ty::Str), k("uriTemplate", Ty::Str)]),
    ),
    k("icon_variants", Ty::Any),
    k("tts_engine", Ty::Any),
    k("file_browser_handlers", Ty::Any),
    k("file_handlers", Ty::Any),
    k("file_system_provider_capabilities", Ty::Any),
    k("input_components", Ty::Any),
    k("requirements", Ty::Any),
    k("export", Ty::Any),
    k("import", Ty::Any),
    k("event_rules", Ty::Any),
    k("automation", Ty::Any),
    k("trial_tokens", Ty::StrList),
    k("cross_origin_embedder_policy", Ty::Any),
    k("cross_origin_opener_policy", Ty::Any),
    k("content_capabilities", Ty::Any),
    k("system_indicator", Ty::Any),
    k("replacement_web_app", Ty::Str),
    k("differential_fingerprint", Ty::Str),
    k("natively_connectable", Ty::Any),
    k("current_locale", Ty::Str),
];

/// Type errors, unknown keys (with the closest known name) and missing required fields.
pub fn check(m: &Json, out: &mut Vec<Finding>) {
    for field in ["manifest_version", "name", "version"] {
        if m.get(field).is_none() {
            out.push(
                Finding::new(
                    FindingCode::ManifestMissingField,
                    format!("manifest.json has no `{field}`, which every browser requires"),
                    match field {
                        "manifest_version" => "add \"manifest_version\": 3",
                        "name" => "add \"name\": \"Your extension\"",
                        _ => "add \"version\": \"1.0.0\"",
                    },
                )
                .at(field),
            );
        }
    }
    if let Some(o) = m.as_object() {
        object(o, TOP, "", out);
    }
}

fn object(o: &crate::manifest::Object, keys: &[Key], path: &str, out: &mut Vec<Finding>) {
    for (name, value) in o.iter() {
        let child = if path.is_empty() { name.to_owned() } else { format!("{path}.{name}") };
        match keys.iter().find(|k| k.name == name) {
            Some(key) => value_of(value, key.ty, &child, out),
            None => {
                let close = closest(name, keys.iter().map(|k| k.name));
                let fix = match close {
                    Some(c) => format!("did you mean `{c}`? rename the key, or remove it"),
                    None => {
                        "remove the key, or give it the browser prefix it belongs to (e.g. \"chromium:key\")"
                            .to_owned()
                    }
                };
                out.push(
                    Finding::new(
                        FindingCode::ManifestUnknownKey,
                        format!("`{child}` is not a manifest key the browser knows; it is ignored"),
                        fix,
                    )
                    .at(child),
                );
            }
        }
    }
}

fn value_of(v: &Json, ty: Ty, path: &str, out: &mut Vec<Finding>) {
    let wrong = |want: &str, example: &str, out: &mut Vec<Finding>| {
        out.push(
            Finding::new(
                FindingCode::ManifestShape,
                format!("`{path}` must be {want}, not {}", kind(v)),
                format!("write it as {example}"),
            )
            .at(path),
        )
    };
    match ty {
        Ty::Any => {}
        Ty::Str if !matches!(v, Json::String(_)) => wrong("a string", "\"…\"", out),
        Ty::Int if !is_integer(v) => wrong("an integer", "3", out),
        Ty::Bool if !matches!(v, Json::Bool(_)) => wrong("true or false", "true", out),
        Ty::Word(words) => match v.as_str() {
            Some(s) if words.contains(&s) => {}
            Some(s) => out.push(
                Finding::new(
                    FindingCode::ManifestShape,
                    format!("`{path}` is \"{s}\", which is not one of: {}", words.join(", ")),
                    format!(
                        "use one of: {}",
                        words.iter().map(|w| format!("\"{w}\"")).collect::<Vec<_>>().join(", ")
                    ),
                )
                .at(path),
            ),
            None => wrong("a string", &format!("\"{}\"", words.first().copied().unwrap_or("")), out),
        },
        Ty::Obj(keys) => match v.as_object() {
            Some(o) => object(o, keys, path, out),
            None => wrong("an object", "{ … }", out),
        },
        Ty::Map(inner) => match v.as_object() {
            Some(o) => {
                for (name, item) in o.iter() {
                    value_of(item, *inner, &format!("{path}.{name}"), out);
                }
            }
            None => wrong("an object", "{ … }", out),
        },
        Ty::StrList => match v.as_array() {
            Some(items) => {
                for (i, item) in items.iter().enumerate() {
                    value_of(item, Ty::Str, &format!("{path}[{i}]"), out);
                }
            }
            None if matches!(v, Json::String(_)) => {
                wrong("an array of strings", &format!("[{}]", short(v)), out)
            }
            None => wrong("an array of strings", "[\"…\"]", out),
        },
        Ty::ObjList(keys) => match v.as_array() {
            Some(items) => {
                for (i, item) in items.iter().enumerate() {
                    value_of(item, Ty::Obj(keys), &format!("{path}[{i}]"), out);
                }
            }
            None => wrong("an array of objects", "[{ … }]", out),
        },
        Ty::Icon => match v {
            Json::String(_) => {}
            Json::Object(_) => value_of(v, Ty::Map(&Ty::Str), path, out),
            _ => wrong("a path or an object of size → path", "{ \"16\": \"icons/16.png\" }", out),
        },
        Ty::StrOrObj if !matches!(v, Json::String(_) | Json::Object(_)) => wrong("a string", "\"…\"", out),
        _ => {}
    }
}

fn is_integer(v: &Json) -> bool {
    matches!(v, Json::Number(n) if !n.contains(['.', 'e', 'E']))
}

/// What kind of JSON value `v` is, for messages.
pub fn kind(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

/// The value in short, for fixes (`"storage"`).
fn short(v: &Json) -> String {
    let s = v.as_str().unwrap_or("");
    let s: String = s.chars().take(60).collect();
    format!("{s:?}")
}

/// The known name within edit distance 2 of `name`, if one is.
pub fn closest<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    if name.len() > 64 {
        return None;
    }
    known
        .map(|k| (crate::text::edit_distance(name, k), k))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::parse_jsonc;

    fn codes(text: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        check(&parse_jsonc(text).unwrap(), &mut out);
        out.into_iter().map(|f| (f.code.to_string(), f.path.unwrap_or_default())).collect()
    }

    #[test]
    fn wrong_types_everywhere_are_errors_with_paths() {
        let got = codes(
            r#"{"manifest_version":"3","name":1,"version":"1","permissions":"storage",
                "background":{"service_worker":["a.js"],"type":"esm"},
                "content_scripts":{"js":["a.js"]},"icons":{"16":16},"action":{"default_icon":3},
                "options_ui":{"open_in_tab":"yes"},"commands":{"x":{"suggested_key":"Ctrl+X"}}}"#,
        );
        let want = [
            ("MANIFEST_SHAPE", "manifest_version"),
            ("MANIFEST_SHAPE", "name"),
            ("MANIFEST_SHAPE", "permissions"),
            ("MANIFEST_SHAPE", "background.service_worker"),
            ("MANIFEST_SHAPE", "background.type"),
            ("MANIFEST_SHAPE", "content_scripts"),
            ("MANIFEST_SHAPE", "icons.16"),
            ("MANIFEST_SHAPE", "action.default_icon"),
            ("MANIFEST_SHAPE", "options_ui.open_in_tab"),
            ("MANIFEST_SHAPE", "commands.x.suggested_key"),
        ];
        assert_eq!(got, want.map(|(a, b)| (a.to_owned(), b.to_owned())));
    }

    #[test]
    fn required_fields_and_typos() {
        let got =
            codes(r#"{"name":"n","permisions":["tabs"],"content_scripts":[{"matchs":["<all_urls>"]}]}"#);
        assert_eq!(
            got,
            [
                ("MANIFEST_MISSING_FIELD".to_owned(), "manifest_version".to_owned()),
                ("MANIFEST_MISSING_FIELD".to_owned(), "version".to_owned()),
                ("MANIFEST_UNKNOWN_KEY".to_owned(), "permisions".to_owned()),
                ("MANIFEST_UNKNOWN_KEY".to_owned(), "content_scripts[0].matchs".to_owned()),
            ]
        );
        assert_eq!(closest("permisions", TOP.iter().map(|k| k.name)), Some("permissions"));
        assert_eq!(closest("zzzzzz", TOP.iter().map(|k| k.name)), None);
    }

    #[test]
    fn a_good_manifest_has_no_shape_findings() {
        assert!(codes(r#"{"manifest_version":3,"name":"n","version":"1.0","icons":{"16":"a.png"},"action":{"default_icon":"a.png"},"content_scripts":[{"matches":["<all_urls>"],"js":["c.js"],"world":"MAIN"}]}"#).is_empty());
    }
}
