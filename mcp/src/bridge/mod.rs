//! The bridge: the one door through which every browser tool reaches a browser.
//!
//! ```text
//! tool ─▶ BrowserState::call (a browser) ─┐
//!         BrowserState::call_tab (a tab) ─┼─▶ send: the only Client::call ─▶ host ─▶ helper
//!         BrowserState::call_in (a host) ─┘        │
//!                                                  └─▶ results::decode::<R>  (typed, INTERNAL on drift)
//! ```
//!
//! - which browser: the tool's `browser` argument, else the choice made by `select_browser`
//!   (or `--browser` / config `browser` at start), else the only daily browser;
//!   [`webext_mcp_host::client::Hub`] finds, connects and reconnects;
//! - which tab ([`targeting`]): `tabId` / `pageIdx` / `expectTabSet`, else this server's
//!   current page in that browser;
//! - how long ([`timeouts`]): the caller's validated [`Timeout`] for the page, one margin
//!   more for the transport;
//! - what comes back ([`results`]): each method's result as a struct.
//!
//! Tools never touch the hub or a client themselves (a test below reads their sources).

pub mod containers;
pub mod results;
pub mod targeting;
pub mod timeouts;

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use serde_json::Value;
use webext_mcp_host::client::Hub;
use webext_mcp_host::descriptor::{Descriptor, DirReport};
use webext_mcp_host::protocol::methods::{
    self as methods, COOKIES_CLEAR, COOKIES_GET, COOKIES_SET, ContainersList, Method, TABS_NEW, TabsList,
};
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

pub use containers::Containers;
pub use targeting::{CurrentPages, TabTarget};
pub use timeouts::Timeout;

/// The browser side of a server's [`crate::tools::Context`]: the hosts, the browser chosen
/// by `select_browser`, and this server's current page per browser.
pub struct BrowserState {
    hub: Hub,
    selected: Mutex<Option<String>>,
    pages: CurrentPages,
    containers: Containers,
}

impl BrowserState {
    /// `dirs` are the runtime dirs to search; `initial` is `--browser` / config `browser`.
    pub fn new(dirs: &[PathBuf], initial: Option<&str>) -> BrowserState {
        BrowserState {
            hub: Hub::searching(dirs.to_vec()),
            selected: Mutex::new(initial.map(str::to_owned)),
            pages: Default::default(),
            containers: Containers::default(),
        }
    }

    /// The same state with this server's container settings (`--container`, `scope`).
    pub fn with_containers(mut self, containers: Containers) -> BrowserState {
        self.containers = containers;
        self
    }

    pub fn containers(&self) -> &Containers {
        &self.containers
    }

    /// The Firefox containers of browser `d` (`UNSUPPORTED` from Chromium's helper).
    pub async fn container_list(
        &self,
        d: &Descriptor,
        timeout: Timeout,
    ) -> Result<Vec<containers::Container>, ErrorBody> {
        let list = self.call_in(d, ContainersList {}, timeout).await?;
        Ok(list.containers)
    }

    /// The cookie store of the container this server was started with, in browser `d`.
    async fn configured_store(&self, d: &Descriptor, timeout: Timeout) -> Result<Option<String>, ErrorBody> {
        let Some(name) = self.containers.configured() else { return Ok(None) };
        if let Some(store) = self.containers.resolved(d) {
            return Ok(Some(store));
        }
        let list = self.container_list(d, timeout).await?;
        let store = containers::resolve(&list, name)?.cookie_store_id.clone();
        self.containers.remember(d, &store);
        Ok(Some(store))
    }

    /// Applies this server's containers to a call: new tabs open in the default container
    /// (`set_default_container`, else `--container`), and a scoped server names its container
    /// on every method that takes one, so the helper refuses every other container's tab.
    async fn contain(
        &self,
        d: &Descriptor,
        method: &str,
        params: &mut Value,
        timeout: Timeout,
    ) -> Result<(), ErrorBody> {
        if self.containers.configured().is_none() && self.containers.default_for(d).is_none() {
            return Ok(());
        }
        let scope = if self.containers.scoped() { self.configured_store(d, timeout).await? } else { None };
        if method == TABS_NEW {
            let asked = params.get("cookieStoreId").and_then(Value::as_str).map(str::to_owned);
            if let (Some(scope), Some(asked)) = (&scope, &asked)
                && scope != asked
            {
                return Err(ErrorBody::new(ErrorCode::PermissionDenied, "this server is scoped to its own container")
                    .with_hint("open the tab there (omit the container), or use a server without `scope = \"container\"`"));
            }
            let store = match asked.or_else(|| self.containers.default_for(d)) {
                Some(s) => Some(s),
                None => self.configured_store(d, timeout).await?,
            };
            if let (Some(store), Some(obj)) = (store, params.as_object_mut()) {
                obj.insert("cookieStoreId".into(), Value::String(store));
            }
        }
        // Cookies: a scoped server reads, sets and clears its container's store only.
        if let Some(scope) = &scope {
            let cookies: Vec<&mut Value> = match method {
                COOKIES_GET | COOKIES_CLEAR => vec![params],
                COOKIES_SET => params
                    .get_mut("cookies")
                    .and_then(Value::as_array_mut)
                    .map(|c| c.iter_mut().collect())
                    .unwrap_or_default(),
                _ => Vec::new(),
            };
            for c in cookies {
                if c.get("storeId").and_then(Value::as_str).is_some_and(|s| s != scope) {
                    return Err(ErrorBody::new(
                        ErrorCode::PermissionDenied,
                        "this server is scoped to its own container's cookie store",
                    )
                    .with_hint("leave storeId out, or use a server without `scope = \"container\"`"));
                }
                if let Some(obj) = c.as_object_mut() {
                    obj.insert("storeId".into(), Value::String(scope.clone()));
                }
            }
        }
        let takes_scope =
            methods::find(method).is_some_and(|m| m.params.iter().any(|p| p.name == "container"));
        if let (Some(scope), true, Some(obj)) = (scope, takes_scope, params.as_object_mut()) {
            obj.insert("container".into(), Value::String(scope));
        }
        Ok(())
    }

    /// This server's current page per browser.
    pub fn pages(&self) -> &CurrentPages {
        &self.pages
    }

    /// The default set by `select_browser` or at start.
    pub fn selected(&self) -> Option<String> {
        self.selected.lock().ok().and_then(|s| s.clone())
    }

    /// Makes the host `browser` names the default; returns it and the key remembered (its
    /// session, else its label: what survives a browser restart).
    pub fn select(&self, browser: &str) -> Result<(Descriptor, String), ErrorBody> {
        let d = self.hub.resolve(Some(browser))?;
        let key = d.session.clone().unwrap_or_else(|| d.label.clone());
        if let Ok(mut s) = self.selected.lock() {
            *s = Some(key.clone());
        }
        Ok((d, key))
    }

    /// What a tool's `browser` argument resolves against.
    fn choice(&self, arg: Option<&str>) -> Option<String> {
        arg.map(str::to_owned).or_else(|| self.selected())
    }

    /// The host a tool with this `browser` argument talks to.
    pub fn resolve(&self, arg: Option<&str>) -> Result<Descriptor, ErrorBody> {
        self.hub.resolve(self.choice(arg).as_deref())
    }

    /// Live hosts, and what was found in each runtime dir searched (refused dirs included).
    pub fn hosts(&self) -> (Vec<Descriptor>, Vec<DirReport>) {
        self.hub.search()
    }

    /// [`resolve`](Self::resolve), waiting (within `timeout`) while `browser` names a dev
    /// session whose process runs but whose helper has not connected yet (it is starting, or
    /// its browser restarts). A session id no session has is `NOT_FOUND` at once, saying so.
    pub async fn resolve_waiting(
        &self,
        arg: Option<&str>,
        timeout: Timeout,
    ) -> Result<Descriptor, ErrorBody> {
        let choice = self.choice(arg);
        let deadline = Instant::now() + std::time::Duration::from_millis(timeout.ms());
        loop {
            let err = match self.hub.resolve(choice.as_deref()) {
                Ok(d) => return Ok(d),
                Err(e) => e,
            };
            let Some(c) = choice.as_deref() else { return Err(err) };
            if !crate::session::control::session_alive(self.hub.dirs(), c) {
                return Err(no_such_session(err, c));
            }
            if Instant::now() >= deadline {
                return Err(ErrorBody::new(
                    ErrorCode::Timeout,
                    format!("session {c} is running but its browser did not connect within {} ms", timeout.ms()),
                )
                .with_hint("call extension_wait for the session (its events.ndjson says what it is doing), then retry"));
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }

    /// Calls method `M` in the browser `browser` names (see the module doc).
    pub async fn call<M: Method>(
        &self,
        browser: Option<&str>,
        params: M,
        timeout: Timeout,
    ) -> Result<(Descriptor, M::Result), ErrorBody> {
        let d = self.resolve_waiting(browser, timeout).await?;
        let mut wire = wire(&params)?;
        self.contain(&d, M::NAME, &mut wire, timeout).await?;
        let r = self.send_decoded::<M>(&d, wire, timeout).await?;
        Ok((d, r))
    }

    /// Calls per-tab method `M` with the tab `target` names (or the current page) added to
    /// its parameters.
    pub async fn call_tab<M: Method>(
        &self,
        target: &TabTarget,
        params: M,
        timeout: Timeout,
    ) -> Result<(Descriptor, M::Result), ErrorBody> {
        let d = self.resolve_waiting(target.browser.as_deref(), timeout).await?;
        let mut current = self.pages.get(&d);
        let unaddressed = current.is_none() && target.tab_id.is_none() && target.page_idx.is_none();
        // Only then: whether a live dev session runs this browser (a read of the tickets).
        if unaddressed
            && d.session
                .as_deref()
                .is_some_and(|s| crate::session::control::session_alive(self.hub.dirs(), s))
        {
            current = self.session_page(&d, timeout).await;
        }
        let mut wire = wire(&params)?;
        targeting::address(target, current, &d.browser, &mut wire)?;
        self.contain(&d, M::NAME, &mut wire, timeout).await?;
        let r = self.send_decoded::<M>(&d, wire, timeout).await?;
        Ok((d, r))
    }

    /// Calls per-tab method `M` on tab `tab_id` of host `d` (one already resolved: a dev
    /// session's own browser), its parameters otherwise as they are, like
    /// [`call_in`](Self::call_in).
    pub async fn call_at<M: Method>(
        &self,
        d: &Descriptor,
        tab_id: i64,
        params: M,
        timeout: Timeout,
    ) -> Result<M::Result, ErrorBody> {
        let target = TabTarget { browser: None, tab_id: Some(tab_id), page_idx: None, expect_tab_set: None };
        let mut wire = wire(&params)?;
        targeting::address(&target, None, &d.browser, &mut wire)?;
        self.send_decoded::<M>(d, wire, timeout).await
    }

    /// A dev session's browser (one a live `extension_dev`/`start`/`preview` process runs)
    /// belongs to the agent that started it: without a current page there, its active tab
    /// (the session's starting page) becomes the current page. Other browsers never get
    /// their active tab used silently.
    async fn session_page(&self, d: &Descriptor, timeout: Timeout) -> Option<i64> {
        let list = self.call_in(d, TabsList {}, timeout).await.ok()?;
        let tab = list.tabs.iter().find(|t| t.active).or(list.tabs.first())?;
        self.pages.set(d, tab.tab_id);
        Some(tab.tab_id)
    }

    /// The helper's events named `names` from host `d`, until that connection ends (the
    /// resource subscriptions' only way in; events carry ids, never page content).
    pub async fn events(
        &self,
        d: &Descriptor,
        names: &[&str],
    ) -> Result<tokio::sync::mpsc::UnboundedReceiver<webext_mcp_host::protocol::Event>, ErrorBody> {
        let client = self.hub.client(d).await?;
        client.subscribe(names).await
    }

    /// What host `d` said of itself when this server connected: the host's `client.hello`
    /// answer with the helper's `hello` event inside (versions, capabilities, granted
    /// permissions), for `doctor`. Connects when no connection is open.
    pub async fn hello_of(&self, d: &Descriptor) -> Result<Value, ErrorBody> {
        Ok(self.hub.client(d).await?.hello().clone())
    }

    /// Whether the very host process of `d` still runs (a restarted browser's new host at the
    /// same socket has other tabs).
    pub fn host_alive(&self, d: &Descriptor) -> bool {
        self.hub.discover().iter().any(|h| h.socket == d.socket && h.pid == d.pid)
    }

    /// Calls method `M` on the host `d` (one already resolved or listed), its parameters
    /// as they are (no tab address, no container).
    pub async fn call_in<M: Method>(
        &self,
        d: &Descriptor,
        params: M,
        timeout: Timeout,
    ) -> Result<M::Result, ErrorBody> {
        self.send_decoded::<M>(d, wire(&params)?, timeout).await
    }

    /// [`call_in`](Self::call_in) with this server's containers applied, for a host already
    /// listed (a scoped server's `browser.info` counts its container's tabs only).
    pub async fn call_in_contained<M: Method>(
        &self,
        d: &Descriptor,
        params: M,
        timeout: Timeout,
    ) -> Result<M::Result, ErrorBody> {
        let mut wire = wire(&params)?;
        self.contain(d, M::NAME, &mut wire, timeout).await?;
        self.send_decoded::<M>(d, wire, timeout).await
    }

    /// Sends `M`'s wire parameters and decodes its answer into `M::Result`.
    async fn send_decoded<M: Method>(
        &self,
        d: &Descriptor,
        wire: Value,
        timeout: Timeout,
    ) -> Result<M::Result, ErrorBody> {
        let value = self.send(d, M::NAME, wire, timeout).await?;
        results::decode(M::NAME, value)
    }

    /// The one place a browser tool's call reaches a host.
    async fn send(
        &self,
        d: &Descriptor,
        method: &str,
        params: Value,
        timeout: Timeout,
    ) -> Result<Value, ErrorBody> {
        let started = Instant::now();
        let client = self.hub.client(d).await?;
        let out = client.call(method, params, timeout.transport()).await;
        tracing::debug!(
            method,
            browser = %d.browser,
            ms = started.elapsed().as_millis() as u64,
            ok = out.is_ok(),
            "bridge call"
        );
        out
    }
}

/// A dev session asks through the bridge whether its own helper answers yet.
impl crate::session::readiness::HelperProbe for BrowserState {
    fn probe<'a>(
        &'a self,
        session_id: &'a str,
        timeout: std::time::Duration,
    ) -> crate::runner::BoxFuture<'a, Result<u32, ErrorBody>> {
        Box::pin(async move {
            let timeout = Timeout::fixed(timeout.as_millis() as u64);
            let (d, _) = self.call(Some(session_id), TabsList {}, timeout).await?;
            Ok(d.pid)
        })
    }
}

/// A method's parameters as they go on the wire (an object, to which the bridge adds the
/// tab's address and the server's container).
fn wire<M: Method>(params: &M) -> Result<Value, ErrorBody> {
    match serde_json::to_value(params) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(_) => Err(ErrorBody::internal(format!("`{}` parameters are not an object", M::NAME))),
        Err(e) => Err(ErrorBody::internal(format!("encoding `{}` parameters: {e}", M::NAME))),
    }
}

/// The error for a `browser` that matched no host, when it looks like a session id and no
/// session has it: say that, instead of sending the caller off to install the helper.
fn no_such_session(err: ErrorBody, choice: &str) -> ErrorBody {
    let looks_like_session = choice
        .strip_prefix("dev-")
        .is_some_and(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()));
    if !looks_like_session || err.code != ErrorCode::NotFound {
        return err;
    }
    ErrorBody::not_found(format!("no dev session `{choice}` is running"))
        .with_hint("it has stopped or never started: start one with extension_dev (its sessionId is the `browser` to pass), or see list_connected_browsers")
}

#[cfg(test)]
mod tests {
    /// One door: no module of the binary reaches the hub or a host client except the bridge
    /// (tools, sessions, doctor and the CLI all go through it).
    #[test]
    fn nothing_reaches_a_host_except_through_the_bridge() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let bridge = src.join("bridge");
        let mut checked = 0;
        let mut dirs = vec![src.clone()];
        while let Some(d) = dirs.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    if path != bridge {
                        dirs.push(path);
                    }
                    continue;
                }
                if path.extension().is_none_or(|e| e != "rs") {
                    continue;
                }
                let source = std::fs::read_to_string(&path).unwrap();
                for needle in ["webext_mcp_host::client", "Hub::", "hub()", ".client(d"] {
                    assert!(
                        !source.contains(needle),
                        "{} uses `{needle}`: hosts are reached through crate::bridge only",
                        path.display()
                    );
                }
                checked += 1;
            }
        }
        assert!(checked >= 150, "read only {checked} files in {}", src.display());
    }
}
