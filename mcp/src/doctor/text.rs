//! The human form of a `doctor` report (the JSON report is the source; this only renders it).

use serde_json::Value;

/// The human form of a doctor report.
pub fn text(report: &Value) -> String {
    let mut out = String::new();
    let s = |v: &Value| v.as_str().unwrap_or("").to_owned();
    out.push_str(&format!(
        "webext-mcp {} (protocol {})\n",
        s(&report["server"]["version"]),
        report["server"]["protocol"]
    ));
    let browsers = report["browsers"].as_array().cloned().unwrap_or_default();
    if browsers.is_empty() {
        out.push_str("no browser detected and no host manifest found\n");
    }
    for b in &browsers {
        let ok = b["problems"].as_array().is_none_or(Vec::is_empty);
        let state = match (ok, b["connected"].as_bool() == Some(true)) {
            (true, true) => "ok, connected",
            (true, false) => "ok, not connected (is the browser running with the helper loaded?)",
            (false, true) => "problems, connected",
            (false, false) => "problems",
        };
        out.push_str(&format!("{:<28} {state}\n", s(&b["name"])));
    }
    for d in report["runtimeDirs"].as_array().into_iter().flatten() {
        out.push_str(&format!("runtime dir {}: {}", s(&d["path"]), s(&d["verdict"])));
        match d["verdict"].as_str() {
            Some("used") => {
                let n = d["hosts"].as_u64().and_then(|n| usize::try_from(n).ok()).unwrap_or(0);
                out.push_str(&format!(" ({})\n", crate::text::counted(n, "host", "hosts")));
            }
            Some("refused") => out.push_str(&format!(" ({})\n", s(&d["problem"]))),
            _ => out.push('\n'),
        }
    }
    for h in report["hosts"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "host {} {} (label {}): helper {}, protocol {}, {}\n",
            s(&h["browser"]),
            s(&h["browserVersion"]),
            s(&h["label"]),
            s(&h["extVersion"]),
            h["protocol"],
            if h["reachable"] == true { "reachable" } else { "unreachable" }
        ));
    }
    let problems = report["problems"].as_array().cloned().unwrap_or_default();
    if problems.is_empty() {
        out.push_str("no problems found\n");
    }
    for p in &problems {
        out.push_str(&format!(
            "{} [{}]: {}\n  fix: {}\n",
            s(&p["code"]),
            s(&p["scope"]),
            s(&p["message"]),
            s(&p["fix"])
        ));
    }
    out
}
