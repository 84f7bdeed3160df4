//! The content security policy an extension declares. MV3 (Chrome and Firefox alike) refuses
//! extension-page policies that allow `'unsafe-eval'`, inline scripts or scripts from
//! anywhere but the package (`'wasm-unsafe-eval'` and `http://localhost` are allowed); in MV2
//! such a policy loads but store review flags it (addons-linter `MANIFEST_CSP_UNSAFE_EVAL`).

use crate::manifest::{Finding, FindingCode, Json, Severity};

use super::keys::kind;

/// Checks `content_security_policy` (a string in MV2, `{extension_pages, sandbox}` in MV3).
pub fn check(csp: &Json, mv: Option<u32>, out: &mut Vec<Finding>) {
    match (mv, csp) {
        (Some(2), Json::String(policy)) => policy_rules(policy, "content_security_policy", false, out),
        (Some(2), other) => {
            // The fix keeps the project's own policy (its 'wasm-unsafe-eval', say); builds
            // convert it this way by themselves (`manifest::mv2`).
            let policy = other.get("extension_pages").and_then(Json::as_str).unwrap_or("script-src 'self'; object-src 'self'");
            out.push(
                Finding::new(
                    FindingCode::ManifestShape,
                    format!("`content_security_policy` must be a string in MV2, not {}", kind(other)),
                    format!("write \"content_security_policy\": \"{policy}\" (extension_build converts it so for MV2)"),
                )
                .at("content_security_policy"),
            )
        }
        (_, Json::Object(o)) => {
            for (key, v) in o.iter() {
                let path = format!("content_security_policy.{key}");
                match (key, v) {
                    ("extension_pages", Json::String(p)) => policy_rules(p, &path, true, out),
                    ("sandbox", Json::String(_)) => {}
                    ("extension_pages" | "sandbox", other) => out.push(
                        Finding::new(
                            FindingCode::ManifestShape,
                            format!("`{path}` must be a string, not {}", kind(other)),
                            "write the policy as one string, e.g. \"script-src 'self'\"",
                        )
                        .at(path),
                    ),
                    _ => out.push(
                        Finding::new(
                            FindingCode::ManifestUnknownKey,
                            format!("`{path}` is not a policy browsers know; it is ignored"),
                            "use extension_pages or sandbox",
                        )
                        .at(path),
                    ),
                }
            }
        }
        (_, other) => out.push(
            Finding::new(
                FindingCode::ManifestShape,
                format!("`content_security_policy` must be an object in MV3, not {}", kind(other)),
                "write \"content_security_policy\": { \"extension_pages\": \"script-src 'self'; object-src 'self'\" }",
            )
            .at("content_security_policy"),
        ),
    }
}

/// The directives that decide where scripts come from.
const SCRIPT_DIRECTIVES: [&str; 4] = ["script-src", "script-src-elem", "worker-src", "default-src"];

fn policy_rules(policy: &str, path: &str, mv3: bool, out: &mut Vec<Finding>) {
    let directives: Vec<(&str, Vec<&str>)> = policy
        .split(';')
        .filter_map(|d| {
            let mut words = d.split_whitespace();
            Some((words.next()?, words.collect()))
        })
        .collect();
    let has_script_src = directives.iter().any(|(n, _)| n.eq_ignore_ascii_case("script-src"));
    for (name, sources) in &directives {
        let name_lc = name.to_ascii_lowercase();
        if !SCRIPT_DIRECTIVES.contains(&name_lc.as_str()) || (name_lc == "default-src" && has_script_src) {
            continue;
        }
        for src in sources {
            let lc = src.to_ascii_lowercase();
            if lc == "'unsafe-eval'" {
                let mut f = Finding::new(
                    FindingCode::ManifestCspUnsafeEval,
                    format!(
                        "`{path}` allows 'unsafe-eval' in {name}{}",
                        if mv3 { ", which MV3 refuses" } else { "; store review rejects it" }
                    ),
                    "remove 'unsafe-eval'; for WebAssembly use 'wasm-unsafe-eval'",
                )
                .at(path);
                if !mv3 {
                    f = f.severity(Severity::Warning);
                }
                out.push(f);
            } else if mv3 && !allowed_mv3_source(&lc) {
                out.push(
                    Finding::new(
                        FindingCode::ManifestCspRemoteScript,
                        format!("`{path}` allows {src} in {name}; MV3 only runs scripts from the package"),
                        "keep only 'self' (and 'wasm-unsafe-eval'); bundle remote scripts into the extension",
                    )
                    .at(path),
                );
            }
        }
    }
}

fn allowed_mv3_source(src: &str) -> bool {
    matches!(src, "'self'" | "'none'" | "'wasm-unsafe-eval'" | "'inline-speculation-rules'")
        || src.starts_with("'sha256-")
        || src.starts_with("'sha384-")
        || src.starts_with("'sha512-")
        || ["http://localhost", "http://127.0.0.1"].iter().any(|h| {
            src == *h || src.strip_prefix(h).is_some_and(|r| r.starts_with(':') || r.starts_with('/'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::parse_jsonc;

    fn codes(csp: &str, mv: u32) -> Vec<(String, Severity)> {
        let mut out = Vec::new();
        check(&parse_jsonc(csp).unwrap(), Some(mv), &mut out);
        out.into_iter().map(|f| (f.code.to_string(), f.severity)).collect()
    }

    #[test]
    fn csp_table() {
        assert!(
            codes(r#"{"extension_pages":"script-src 'self' 'wasm-unsafe-eval'; object-src 'self'"}"#, 3)
                .is_empty()
        );
        assert!(codes(r#"{"extension_pages":"script-src 'self' http://localhost:3000"}"#, 3).is_empty());
        assert_eq!(
            codes(r#"{"extension_pages":"script-src 'self' 'unsafe-eval'"}"#, 3),
            [("MANIFEST_CSP_UNSAFE_EVAL".into(), Severity::Error)]
        );
        assert_eq!(
            codes(r#"{"extension_pages":"script-src 'self' https://cdn.example.com"}"#, 3),
            [("MANIFEST_CSP_REMOTE_SCRIPT".into(), Severity::Error)]
        );
        assert_eq!(codes(r#"{"extension_pages":"default-src * 'unsafe-inline'"}"#, 3).len(), 2);
        assert_eq!(codes(r#""script-src 'self'""#, 3), [("MANIFEST_SHAPE".into(), Severity::Error)]);
        assert_eq!(
            codes(r#""script-src 'self' 'unsafe-eval' https://x""#, 2),
            [("MANIFEST_CSP_UNSAFE_EVAL".into(), Severity::Warning)]
        );
        assert_eq!(codes(r#"{"sandbox":"script-src * 'unsafe-eval'"}"#, 3), []);
    }
}
