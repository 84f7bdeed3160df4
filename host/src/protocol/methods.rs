//! Every method and event of protocol v1, with its parameters, defined once. The host uses the
//! table to tell its own methods from the extension's; `extension/src/protocol.js` is
//! generated from it ([`super::js`]).
//!
//! Each method is also a type ([`Method`]): its parameters struct names the method, its
//! result type and its default deadline, beside its table entry in the area's file
//! (`methods/tabs.rs`, …). Callers send a parameters value and get the result type back, so
//! a renamed field fails to compile (ours) or fails as `INTERNAL` naming it (the helper's),
//! and a test holds each type's fields to its table entry.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::timeouts::{
    ACTION_TIMEOUT_MS, EVALUATE_TIMEOUT_MS, LOAD_TIMEOUT_MS, MAX_TIMEOUT_MS, MIN_TIMEOUT_MS,
    SNAPSHOT_TIMEOUT_MS, TAB_CALL_TIMEOUT_MS,
};

/// Who answers a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// The host answers it itself; it never reaches the browser.
    Host,
    /// The host forwards it to the helper extension.
    Extension,
}

/// A parameter's default value: used by whichever end fills the parameter in (the extension
/// reads it from the generated `protocol.js`, Rust from this table), so it is stated once.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(untagged)]
pub enum DefaultValue {
    Int(i64),
    Str(&'static str),
    Bool(bool),
}

/// One parameter, JSON-schema style.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Param {
    pub name: &'static str,
    /// JSON type: `string`, `integer`, `number`, `boolean`, `array`, `object`.
    #[serde(rename = "type")]
    pub ty: &'static str,
    pub required: bool,
    pub doc: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<DefaultValue>,
    /// Inclusive bounds of an integer parameter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<i64>,
}

impl Param {
    /// With a default value.
    pub const fn or(mut self, default: DefaultValue) -> Param {
        self.default = Some(default);
        self
    }

    /// With inclusive bounds.
    pub const fn within(mut self, min: i64, max: i64) -> Param {
        self.min = Some(min);
        self.max = Some(max);
        self
    }
}

/// The parameter `param` of method `method`, if the table has it.
pub fn param(method: &str, param: &str) -> Option<&'static Param> {
    find(method)?.params.iter().find(|p| p.name == param)
}

/// The integer default of `param` of `method` (a table entry every caller relies on: a
/// missing one is a bug the tests catch, answered here with 0).
pub fn int_default(method: &str, param: &str) -> i64 {
    match self::param(method, param).and_then(|p| p.default) {
        Some(DefaultValue::Int(n)) => n,
        _ => 0,
    }
}

/// One method.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct MethodSpec {
    pub name: &'static str,
    pub target: Target,
    pub doc: &'static str,
    pub params: &'static [Param],
    /// The shape of a successful result, in words.
    pub result: &'static str,
}

/// A protocol method as a type. The implementing struct is the method's parameters (the
/// per-tab address — `tabId`, `pageIdx`, `expectTabSet`, `container` — is the caller's to
/// add, so it is not a field); `Result` is what a successful call answers.
pub trait Method: Serialize {
    /// The method's name on the wire, one of the constants below.
    const NAME: &'static str;
    /// The answer, as the helper (or host) sends it.
    type Result: DeserializeOwned + Serialize;
    /// The deadline of a call when its caller sets none (a tool's `timeoutMs`).
    const TIMEOUT_MS: u64;
}

/// Declares that `$params` is the parameters of method `$name` answering `$result`.
macro_rules! method {
    ($params:ty => $name:expr, $result:ty, $timeout:expr) => {
        impl Method for $params {
            const NAME: &'static str = $name;
            type Result = $result;
            const TIMEOUT_MS: u64 = $timeout;
        }
    };
}

/// An area's `visit`: every typed method of the area, in table order.
macro_rules! typed_methods {
    ($($m:ty),* $(,)?) => {
        pub(super) fn visit(v: &mut impl Visit) {
            $(v.visit::<$m>();)*
        }
    };
}

/// Sees each typed method once ([`visit_typed`]): the tests that hold the types to the table
/// and the answers to their shapes walk every method through it.
pub trait Visit {
    fn visit<M: Method + DeserializeOwned>(&mut self);
}

/// Fields a result struct does not name, passed through as they came (the agent sees every
/// field the helper sent).
pub type Extra = Map<String, Value>;

/// A method that takes no parameters of its own (`{}` on the wire).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoParams {}

/// One event the extension emits.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct EventSpec {
    pub name: &'static str,
    pub doc: &'static str,
    pub params: &'static [Param],
}

pub const CLIENT_HELLO: &str = "client.hello";
pub const SUBSCRIBE: &str = "subscribe";
pub const UNSUBSCRIBE: &str = "unsubscribe";
pub const HOST_INFO: &str = "host.info";
pub const PING: &str = "ping";
pub const BROWSER_INFO: &str = "browser.info";
pub const DEBUG_DIGEST: &str = "debug.digest";
pub const TABS_LIST: &str = "tabs.list";
pub const TABS_NEW: &str = "tabs.new";
pub const TABS_NAVIGATE: &str = "tabs.navigate";
pub const TABS_SELECT: &str = "tabs.select";
pub const TABS_CLOSE: &str = "tabs.close";
pub const PAGE_SNAPSHOT: &str = "page.snapshot";
pub const PAGE_CLEAR_SNAPSHOT: &str = "page.clearSnapshot";
pub const PAGE_RESOLVE_REF: &str = "page.resolveRef";
pub const PAGE_TEXT: &str = "page.text";
pub const PAGE_FIND: &str = "page.find";
pub const PAGE_ACT: &str = "page.act";
pub const PAGE_FILL_FORM: &str = "page.fillForm";
pub const PAGE_UPLOAD_OPEN: &str = "page.uploadOpen";
pub const PAGE_UPLOAD_CHUNK: &str = "page.uploadChunk";
pub const PAGE_UPLOAD_CANCEL: &str = "page.uploadCancel";
pub const PAGE_UPLOAD: &str = "page.upload";
pub const CONTAINERS_LIST: &str = "containers.list";
pub const PAGE_EVALUATE: &str = "page.evaluate";
pub const PAGE_WAIT_FOR: &str = "page.waitFor";
pub const PAGE_DIALOG: &str = "page.dialog";
pub const PAGE_SCREENSHOT: &str = "page.screenshot";
pub const PAGE_RESIZE: &str = "page.resize";
pub const PAGE_EMULATE: &str = "page.emulate";
pub const COOKIES_GET: &str = "cookies.get";
pub const COOKIES_SET: &str = "cookies.set";
pub const COOKIES_CLEAR: &str = "cookies.clear";
pub const STORAGE_GET: &str = "storage.get";
pub const STORAGE_SET: &str = "storage.set";
pub const STORAGE_CLEAR: &str = "storage.clear";
pub const CONSOLE_LIST: &str = "console.list";
pub const CONSOLE_CLEAR: &str = "console.clear";
pub const NETWORK_LIST: &str = "network.list";
pub const NETWORK_GET: &str = "network.get";

/// The extension's first event.
pub const EVENT_HELLO: &str = "hello";
/// A tab's console or network log has new entries, or the tab closed (ids and seqs only).
pub const EVENT_OBSERVE_CHANGED: &str = "observe.changed";

const fn p(name: &'static str, ty: &'static str, required: bool, doc: &'static str) -> Param {
    Param { name, ty, required, doc, default: None, min: None, max: None }
}

/// Page size of paged text results (snapshots, evaluate).
pub const DEFAULT_MAX_BYTES: i64 = 16_384;

/// A `timeoutMs` parameter with its default, within the one timeout policy's range.
const fn timeout_ms(doc: &'static str, default: u64) -> Param {
    p("timeoutMs", "integer", false, doc)
        .or(DefaultValue::Int(default as i64))
        .within(MIN_TIMEOUT_MS as i64, MAX_TIMEOUT_MS as i64)
}

/// How every per-tab method names its tab: at most one of `tabId` / `pageIdx`, optionally
/// guarded by `expectTabSet`. The extension resolves them in the same call that acts, so a
/// tab set that changed in between gives `STALE` and nothing is done.
macro_rules! tab_params {
    ($($extra:expr),* $(,)?) => {
        &[
            p("tabId", "integer", false, "the tab (preferred)"),
            p("pageIdx", "integer", false, "position in the visible tab list of `tabs.list`"),
            p("expectTabSet", "string", false, "tab-set fingerprint the caller saw; STALE when it changed"),
            p("container", "string", false, "a container-scoped server's cookie store: other tabs are NOT_FOUND"),
            $($extra),*
        ]
    };
}

/// Screenshot budget: the default byte size, the hard cap, and the default long side (what
/// vision models read well).
pub const SCREENSHOT_MAX_BYTES: i64 = 204_800;
pub const SCREENSHOT_HARD_MAX_BYTES: i64 = 1_048_576;
pub const SCREENSHOT_MAX_WIDTH: i64 = 1568;

/// Bounds of a viewport side `page.resize` takes, CSS px.
pub const VIEWPORT_MIN: i64 = 100;
pub const VIEWPORT_MAX: i64 = 7680;

/// Page size of cookie and storage listings.
pub const LISTING_MAX_BYTES: i64 = 16_384;

/// Cookie filters shared by `cookies.get` and `cookies.clear` (the `cookies.getAll` details).
macro_rules! cookie_filters {
    ($($extra:expr),* $(,)?) => {
        &[
            p("url", "string", false, "cookies the browser would send to this URL"),
            p("domain", "string", false, "cookies of this domain and its subdomains"),
            p("name", "string", false, "only cookies of this name"),
            p("storeId", "string", false, "cookie store (Firefox container `firefox-container-N`, private store)"),
            p("partitionKey", "object", false, "CHIPS partition `{topLevelSite}`; `{}` = every partition"),
            $($extra),*
        ]
    };
}

// The tables and types by area; after the macros above, which they use.
mod acting;
mod observe;
mod reading;
mod session;
mod storage;
mod tabs;
mod view;

pub use acting::*;
pub use observe::*;
pub use reading::*;
pub use session::*;
pub use storage::*;
pub use tabs::*;
pub use view::*;

/// Every method, by area, host-answered first (the order `protocol.js` lists them in).
pub const METHODS: &[MethodSpec] = &concat::<METHOD_COUNT>(&[
    session::METHODS,
    tabs::METHODS,
    reading::METHODS,
    acting::METHODS,
    view::METHODS,
    storage::METHODS,
    observe::METHODS,
]);

const METHOD_COUNT: usize = session::METHODS.len()
    + tabs::METHODS.len()
    + reading::METHODS.len()
    + acting::METHODS.len()
    + view::METHODS.len()
    + storage::METHODS.len()
    + observe::METHODS.len();

/// The areas' tables as one array, at compile time.
const fn concat<const N: usize>(parts: &[&[MethodSpec]]) -> [MethodSpec; N] {
    let mut out = [parts[0][0]; N];
    let (mut k, mut i) = (0, 0);
    while i < parts.len() {
        let mut j = 0;
        while j < parts[i].len() {
            out[k] = parts[i][j];
            k += 1;
            j += 1;
        }
        i += 1;
    }
    assert!(k == N, "METHOD_COUNT is the sum of the areas' lengths");
    out
}

/// Every event.
pub const EVENTS: &[EventSpec] = &[
    EventSpec {
        name: EVENT_HELLO,
        doc: "The extension's first frame after connectNative.",
        params: &[
            p("extVersion", "string", true, "helper extension version"),
            p("browser", "string", true, "browser name, e.g. chromium, chrome, edge, brave, firefox, zen"),
            p("browserVersion", "string", true, "browser version"),
            p("label", "string", true, "profile label (default `<browser>-<6 hex>`)"),
            p("capabilities", "array", true, "feature names, e.g. tabs, scripting, debugger"),
            p(
                "permissions",
                "object",
                false,
                "{permissions, origins}: what permissions.getAll() says the helper holds (doctor compares it with the permission table)",
            ),
        ],
    },
    EventSpec {
        name: EVENT_OBSERVE_CHANGED,
        doc: "A tab's console or network log has new entries (at most 4 events a second per tab), or the tab closed. Never an entry: read them with console.list / network.list.",
        params: &[
            p("tabId", "integer", true, "the tab"),
            p("console", "integer", false, "newest seq of its console log (lastSeq of console.list)"),
            p("network", "integer", false, "newest seq of its network log (lastSeq of network.list)"),
            p("closed", "boolean", false, "true: the tab closed"),
        ],
    },
];

/// Every typed method, area by area.
pub fn visit_typed(v: &mut impl Visit) {
    session::visit(v);
    tabs::visit(v);
    reading::visit(v);
    acting::visit(v);
    view::visit(v);
    storage::visit(v);
    observe::visit(v);
}

/// The method named `name`, if it exists.
pub fn find(name: &str) -> Option<&'static MethodSpec> {
    METHODS.iter().find(|m| m.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    use serde::de::{self, Deserializer, Visitor};

    /// The fields a derived `Deserialize` struct names: what it hands `deserialize_struct`.
    #[derive(Default)]
    struct FieldNames(Vec<&'static str>);

    impl<'de> Deserializer<'de> for &mut FieldNames {
        type Error = de::value::Error;

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _name: &'static str,
            fields: &'static [&'static str],
            _visitor: V,
        ) -> Result<V::Value, Self::Error> {
            self.0.extend(fields);
            Err(de::Error::custom("fields recorded"))
        }

        fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a struct with named fields"))
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }

    /// How a per-tab call names its tab: the bridge adds these, so a parameters type need
    /// not have them.
    const ADDRESS: &[&str] = &["tabId", "pageIdx", "expectTabSet", "container"];

    /// Each typed method against its table entry.
    #[derive(Default)]
    struct Agreement {
        typed: Vec<&'static str>,
        problems: Vec<String>,
    }

    impl Visit for Agreement {
        fn visit<M: Method + DeserializeOwned>(&mut self) {
            self.typed.push(M::NAME);
            let Some(spec) = find(M::NAME) else {
                self.problems.push(format!("{} is typed but not in the table", M::NAME));
                return;
            };
            let mut names = FieldNames::default();
            let _ = M::deserialize(&mut names);
            for field in &names.0 {
                if !spec.params.iter().any(|p| p.name == *field) {
                    self.problems.push(format!("{}: field `{field}` is not a table parameter", M::NAME));
                }
            }
            for p in spec.params {
                if !names.0.contains(&p.name) && !ADDRESS.contains(&p.name) {
                    self.problems.push(format!("{}: table parameter `{}` has no field", M::NAME, p.name));
                }
            }
            if !(MIN_TIMEOUT_MS..=MAX_TIMEOUT_MS).contains(&M::TIMEOUT_MS) {
                self.problems.push(format!("{}: default timeout {} ms out of range", M::NAME, M::TIMEOUT_MS));
            }
        }
    }

    /// A parameters type and its table entry (what `protocol.js` is generated from) name the
    /// same parameters, and every method the helper answers has a type.
    #[test]
    fn typed_methods_agree_with_the_table() {
        let mut a = Agreement::default();
        visit_typed(&mut a);
        assert!(a.problems.is_empty(), "{}", a.problems.join("\n"));
        for m in METHODS.iter().filter(|m| m.target == Target::Extension) {
            assert_eq!(a.typed.iter().filter(|n| **n == m.name).count(), 1, "{} typed once", m.name);
        }
        assert_eq!(a.typed.len(), METHODS.iter().filter(|m| m.target == Target::Extension).count());
    }

    /// The recorder sees renamed fields under their wire names.
    #[test]
    fn field_names_are_the_wire_names() {
        let mut names = FieldNames::default();
        let _ = PageWaitFor::deserialize(&mut names);
        assert_eq!(names.0, ["text", "selector", "ref", "url", "state", "timeoutMs"]);
    }

    #[test]
    fn names_are_unique_and_params_typed() {
        let mut seen = std::collections::HashSet::new();
        for m in METHODS {
            assert!(seen.insert(m.name), "duplicate {}", m.name);
            for p in m.params {
                assert!(
                    ["string", "integer", "number", "boolean", "array", "object", "string|boolean"]
                        .contains(&p.ty)
                );
            }
        }
        assert_eq!(find(PING).map(|m| m.target), Some(Target::Extension));
        assert_eq!(find(CLIENT_HELLO).map(|m| m.target), Some(Target::Host));
        assert!(find("nope").is_none());
    }
}
