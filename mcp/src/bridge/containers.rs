//! Firefox containers as one server sees them: the container it was started with
//! (`--container NAME`, config `container`) — where its new tabs open — whether it is
//! scoped to that container (config `scope = "container"`: it lists and acts only on that
//! container's tabs; the helper answers `NOT_FOUND` for any other, see
//! `extension/src/tabs.js` `resolveTab`), and the default `set_default_container` chose.
//! Chromium has no containers: a container named there is `UNSUPPORTED` (from the helper).

use std::collections::HashMap;
use std::sync::Mutex;

use webext_mcp_host::descriptor::Descriptor;
pub use webext_mcp_host::protocol::methods::{Container, ContainerList};
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

/// The container `asked` names: a cookie store id, else exactly one container of that name
/// (case-insensitively). None: `NOT_FOUND` listing the names; several: `INVALID_ARGUMENT`
/// listing them with their ids.
pub fn resolve<'a>(list: &'a [Container], asked: &str) -> Result<&'a Container, ErrorBody> {
    if let Some(c) = list.iter().find(|c| c.cookie_store_id == asked) {
        return Ok(c);
    }
    let hits: Vec<&Container> = list.iter().filter(|c| c.name.eq_ignore_ascii_case(asked.trim())).collect();
    match hits.as_slice() {
        [one] => Ok(one),
        [] => {
            let names: Vec<&str> = list.iter().map(|c| c.name.as_str()).collect();
            Err(ErrorBody::not_found(format!("no container named `{asked}`"))
                .with_hint(format!(
                    "containers here: {}",
                    if names.is_empty() { "none".to_owned() } else { names.join(", ") }
                ))
                .with_data(serde_json::json!({ "names": names })))
        }
        many => {
            let ids: Vec<String> =
                many.iter().map(|c| format!("{} ({})", c.name, c.cookie_store_id)).collect();
            Err(ErrorBody::new(
                ErrorCode::InvalidArgument,
                format!("{} containers are named `{asked}`", many.len()),
            )
            .with_hint(format!("pass the cookieStoreId of one: {}", ids.join(", "))))
        }
    }
}

/// A server's container settings and choices, per browser.
#[derive(Default)]
pub struct Containers {
    /// `--container` / config `container`: a name or a cookie store id.
    configured: Option<String>,
    /// Config `scope = "container"`.
    scoped: bool,
    /// Per browser: the cookie store of `configured`, once resolved.
    resolved: Mutex<HashMap<String, String>>,
    /// Per browser: the default for new tabs `set_default_container` chose.
    defaults: Mutex<HashMap<String, String>>,
}

fn key(d: &Descriptor) -> String {
    d.session.clone().unwrap_or_else(|| d.label.clone())
}

impl Containers {
    /// `scope`: config `scope` (`all` or `container`).
    pub fn new(configured: Option<&str>, scope: Option<&str>) -> Result<Containers, ErrorBody> {
        let scoped = match scope.unwrap_or("all") {
            "all" => false,
            "container" => true,
            other => {
                return Err(ErrorBody::invalid_argument(format!(
                    "config `scope` must be all or container, not `{other}`"
                ))
                .with_hint("fix `scope` in the config file"));
            }
        };
        if scoped && configured.is_none() {
            return Err(ErrorBody::invalid_argument("`scope = \"container\"` needs a container")
                .with_hint("start the server with --container NAME, or set `container` in the config file"));
        }
        Ok(Containers { configured: configured.map(str::to_owned), scoped, ..Containers::default() })
    }

    pub fn configured(&self) -> Option<&str> {
        self.configured.as_deref()
    }

    pub fn scoped(&self) -> bool {
        self.scoped
    }

    pub fn resolved(&self, d: &Descriptor) -> Option<String> {
        self.resolved.lock().ok().and_then(|m| m.get(&key(d)).cloned())
    }

    pub fn remember(&self, d: &Descriptor, store: &str) {
        if let Ok(mut m) = self.resolved.lock() {
            m.insert(key(d), store.to_owned());
        }
    }

    pub fn default_for(&self, d: &Descriptor) -> Option<String> {
        self.defaults.lock().ok().and_then(|m| m.get(&key(d)).cloned())
    }

    pub fn set_default(&self, d: &Descriptor, store: &str) {
        if let Ok(mut m) = self.defaults.lock() {
            m.insert(key(d), store.to_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(name: &str, id: &str) -> Container {
        Container {
            name: name.into(),
            color: "blue".into(),
            icon: "briefcase".into(),
            cookie_store_id: id.into(),
            tabs: 0,
        }
    }

    #[test]
    fn names_resolve_to_one_container_or_say_which_exist() {
        let list = [
            c("Work", "firefox-container-2"),
            c("Personal", "firefox-container-1"),
            c("Dup", "a"),
            c("dup", "b"),
        ];
        assert_eq!(resolve(&list, "work").unwrap().cookie_store_id, "firefox-container-2");
        assert_eq!(resolve(&list, "firefox-container-1").unwrap().name, "Personal");
        let none = resolve(&list, "Banking").unwrap_err();
        assert_eq!(none.code, ErrorCode::NotFound);
        assert!(none.hint.unwrap().contains("Work, Personal"));
        let many = resolve(&list, "DUP").unwrap_err();
        assert_eq!(many.code, ErrorCode::InvalidArgument);
        assert!(many.hint.unwrap().contains("Dup (a), dup (b)"));
    }

    #[test]
    fn a_scope_needs_a_container_and_a_known_word() {
        assert!(Containers::new(None, Some("container")).is_err());
        assert!(Containers::new(Some("Work"), Some("everything")).is_err());
        assert!(Containers::new(Some("Work"), Some("container")).unwrap().scoped());
        assert!(!Containers::new(Some("Work"), None).unwrap().scoped());
    }
}
