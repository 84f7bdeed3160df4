//! Firefox containers (issue 31): list_containers, new_page_in_container,
//! set_default_container, and a server scoped to one container that can neither see nor
//! touch another container's tabs (a click never lands: the test server's hit log says so).
//! Chromium answers UNSUPPORTED with what to use instead.

use serde_json::json;
use webext_mcp::browsers::Engine;

use crate::Agent;
use crate::common::http::TestServer;
use crate::common::mcp_client::{Server, command};

const PAGE: &str = r#"<!doctype html><title>Account</title>
<button onclick="fetch('/clicked')">Delete account</button>"#;

/// An agent started with `--container NAME` and config `scope`.
fn contained(container: &str, scope: &str) -> Agent {
    let browser = crate::common::helper::shared(Engine::Gecko);
    let home = tempfile::Builder::new().prefix("wxm-agent-").tempdir().unwrap();
    let mut cmd = command(home.path());
    cmd.env("WEBEXT_MCP_RUNTIME_DIR", browser.runtime_dir.path()).env("WEBEXT_MCP_SCOPE", scope).args([
        "serve",
        "--browser",
        &browser.session,
        "--container",
        container,
    ]);
    let mut server = Server::spawn(cmd);
    server.initialize();
    Agent { server, browser, _home: home }
}

#[test]
fn containers_open_list_and_scope_tabs_in_firefox() {
    let server = TestServer::start();
    server.page("/account.html", PAGE);
    let mut agent = Agent::new(Engine::Gecko);
    let list = agent.ok("list_containers", json!({}));
    let names: Vec<&str> =
        list["containers"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    for want in ["Personal", "Work"] {
        assert!(names.contains(&want), "the default containers: {list}");
    }
    let work = list["containers"].as_array().unwrap().iter().find(|c| c["name"] == "Work").unwrap();
    let work_store = work["cookieStoreId"].as_str().unwrap().to_owned();
    // A tab in Work, by name; list_pages shows its container.
    let opened =
        agent.ok("new_page_in_container", json!({ "container": "work", "url": server.url("/account.html") }));
    assert_eq!(opened["tab"]["container"], work_store.as_str(), "{opened}");
    let work_tab = opened["tab"]["tabId"].as_i64().unwrap();
    let pages = agent.text("list_pages", json!({}));
    assert!(pages.contains(&format!("tabId={work_tab} [{work_store}]")), "{pages}");
    // set_default_container: this server's next new_page opens there.
    agent.ok("set_default_container", json!({ "container": "Personal" }));
    let plain = agent.ok("new_page", json!({ "url": "about:blank" }));
    let personal_store = plain["tab"]["container"].as_str().unwrap().to_owned();
    assert_ne!(personal_store, work_store);
    // Name resolution: an unknown name lists the names there are.
    let none = agent.err("new_page_in_container", json!({ "container": "Nope" }));
    assert_eq!(none["code"], "NOT_FOUND", "{none}");
    assert!(none["hint"].as_str().unwrap().contains("Work"), "{none}");

    // A server scoped to Personal: the Work tab does not exist for it, and its clicks never land.
    let mut scoped = contained("Personal", "container");
    let seen = scoped.ok("list_pages", json!({}));
    let tabs = seen["tabs"].as_array().unwrap();
    assert!(!tabs.is_empty() && tabs.iter().all(|t| t["container"] == personal_store.as_str()), "{seen}");
    for (tool, args) in [
        ("take_snapshot", json!({ "tabId": work_tab })),
        ("click", json!({ "tabId": work_tab, "locator": "text=Delete account" })),
        ("evaluate_script", json!({ "tabId": work_tab, "function": "() => fetch('/clicked')" })),
        ("close_page", json!({ "tabId": work_tab })),
    ] {
        let e = scoped.err(tool, args);
        assert_eq!(e["code"], "NOT_FOUND", "{tool}: {e}");
    }
    let mine = scoped.ok("new_page", json!({ "url": server.url("/account.html") }));
    assert_eq!(mine["tab"]["container"], personal_store.as_str(), "{mine}");
    let denied = scoped.err("new_page_in_container", json!({ "container": "Work" }));
    assert_eq!(denied["code"], "PERMISSION_DENIED", "{denied}");
    assert!(
        !server.requests().iter().any(|r| r.contains("/clicked")),
        "a scoped server's click landed in another container"
    );
    // Cookies: the scoped server reads and clears its own container's store only.
    let url = "http://scope.test/";
    agent.ok(
        "set_cookies",
        json!({ "cookies": [
        { "url": url, "name": "work", "value": "w", "storeId": work_store },
        { "url": url, "name": "personal", "value": "p", "storeId": personal_store },
    ] }),
    );
    let names = |out: &serde_json::Value| -> Vec<String> {
        out["cookies"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap().to_owned()).collect()
    };
    let theirs = scoped.ok("get_cookies", json!({ "domain": "scope.test" }));
    assert_eq!(names(&theirs), ["personal"], "{theirs}");
    let peek = scoped.err("get_cookies", json!({ "domain": "scope.test", "storeId": work_store }));
    assert_eq!(peek["code"], "PERMISSION_DENIED", "{peek}");
    scoped.ok("clear_cookies", json!({ "domain": "scope.test" }));
    let left = agent.ok("get_cookies", json!({ "domain": "scope.test", "storeId": work_store }));
    assert_eq!(names(&left), ["work"], "the scoped clear reached another container: {left}");
    agent.ok("clear_cookies", json!({ "domain": "scope.test", "storeId": work_store }));
    // The unscoped server still reaches the Work tab.
    agent.ok("click", json!({ "tabId": work_tab, "locator": "text=Delete account" }));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !server.requests().iter().any(|r| r.contains("/clicked")) {
        assert!(std::time::Instant::now() < deadline, "the unscoped server's click never landed");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    agent.close(work_tab);
    let mine = mine["tab"]["tabId"].as_i64().unwrap();
    scoped.close(mine);
    agent.close(plain["tab"]["tabId"].as_i64().unwrap());
}

/// A container-scoped server's `get_browser_info` and `list_connected_browsers` count only its
/// container's tabs (Banking: no other test opens tabs there), while an unscoped server's
/// count includes every tab.
#[test]
fn a_scoped_servers_browser_info_counts_only_its_containers_tabs() {
    let mut agent = Agent::new(Engine::Gecko);
    let other =
        agent.ok("new_page_in_container", json!({ "container": "Work" }))["tab"]["tabId"].as_i64().unwrap();
    let mut scoped = contained("Banking", "container");
    let count = |a: &mut Agent| {
        let info = a.ok("get_browser_info", json!({}));
        let listed = a.ok("list_connected_browsers", json!({}));
        (info["visibleTabCount"].as_u64().unwrap(), listed["browsers"][0]["tabCount"].as_u64().unwrap())
    };
    let before = count(&mut scoped);
    let mine = scoped.ok("new_page", json!({}))["tab"]["tabId"].as_i64().unwrap();
    let after = count(&mut scoped);
    assert_eq!((after.0, after.1), (before.0 + 1, before.1 + 1), "{before:?} → {after:?}");
    let pages = scoped.ok("list_pages", json!({}));
    assert_eq!(pages["tabs"].as_array().unwrap().len() as u64, after.0, "{pages}");
    let all = count(&mut agent);
    assert!(all.0 > after.0 && all.1 > after.1, "unscoped {all:?}, scoped {after:?}");
    scoped.close(mine);
    agent.close(other);
}

#[test]
fn chromium_has_no_containers_and_says_what_to_use() {
    let mut agent = Agent::new(Engine::Chromium);
    let e = agent.err("list_containers", json!({}));
    assert_eq!(e["code"], "UNSUPPORTED", "{e}");
    assert!(e["hint"].as_str().unwrap().contains("profile"), "{e}");
    let e = agent.err("new_page_in_container", json!({ "container": "Work" }));
    assert_eq!(e["code"], "UNSUPPORTED", "{e}");
}
