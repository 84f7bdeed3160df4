//! The delegated pipeline: a project that needs a bundler is built by its own toolchain
//! ([`super::delegate`] runs it), then its output is staged, zipped and swapped in like a
//! native build's.

use super::*;

pub(super) fn delegated(
    req: &BuildRequest,
    opts: BuildOptions,
    pkg: Option<&Json>,
    findings: Vec<Finding>,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<BrowserBuild>, BuildError> {
    let why = needs::code_list(&findings);
    if !req.allow_delegation {
        return Err(BuildError::Failed {
            message: format!(
                "the project needs a bundler ({why}) and this build already runs inside a delegated build ({}=1), so it does not delegate again",
                delegate::DELEGATED_ENV
            ),
            hint: "have the project's build script call its bundler (e.g. `extension build`) instead of webext-mcp, or make every script a plain classic script".into(),
            findings,
            output_tail: Vec::new(),
        });
    }
    let toolchain = match delegate::detect(&req.project, pkg) {
        Ok(Some(Toolchain::Script { command })) => {
            match delegate::instead_of_script(&req.project, pkg, &command) {
                None => Toolchain::Script { command },
                Some((dir, why)) if req.allow_npx => Toolchain::ExtensionJsNpx { dir, why },
                Some((_, why)) => {
                    return Err(BuildError::Failed {
                        message: format!(
                            "the project needs a bundler ({why_needed}), and {why}; the pinned Extension.js through npx would build it, but build.allowNpx is false",
                            why_needed = why_of(&findings)
                        ),
                        hint: "install Extension.js in the project (`npm i -D extension`, Node.js ≥ 22.12), or allow npx (build.allowNpx = true, WEBEXT_MCP_BUILD_ALLOW_NPX=1)".into(),
                        findings,
                        output_tail: Vec::new(),
                    });
                }
            }
        }
        Ok(Some(t)) => t,
        Ok(None) if req.allow_npx && delegate::is_extension_js_project(&req.project, pkg) => {
            Toolchain::ExtensionJsNpx {
                dir: req.project.clone(),
                why: "an Extension.js project (extension.config.*, or scripts running `extension`) with no Extension.js in node_modules".into(),
            }
        }
        Ok(None) => {
            return Err(BuildError::Failed {
                message: format!("the project needs a bundler ({why}) and has no toolchain to build it"),
                hint: "add Extension.js (`npm i -D extension`, Node.js ≥ 22.12) or a `build` script to package.json, or turn the scripts into plain classic scripts (no import/export)".into(),
                findings,
                output_tail: Vec::new(),
            });
        }
        Err(DelegateError::NotInstalled { what, hint }) => {
            return Err(BuildError::NotInstalled {
                message: format!("{what}; it is needed because {}", why_of(&findings)),
                hint,
                findings,
            });
        }
        Err(other) => return Err(delegate_error(other, findings)),
    };
    // Nothing of the project runs (not even its Node.js, to ask its version) before the user
    // allowed it.
    let (runs, programs) = delegate::describe(&req.project, &toolchain, req.node.as_deref());
    consent::check(&req.consent, consent::exposure(&req.project, runs, programs))
        .map_err(BuildError::NotAllowed)?;
    let node = delegate::find_node(&req.project, req.node.as_deref());
    let node = delegate::require_node(&toolchain, node).map_err(|e| delegate_error(e, findings.clone()))?;
    progress(&format!("delegating to {} ({why})", toolchain.name()));
    if let Toolchain::ExtensionJsNpx { why, .. } = &toolchain {
        progress(&format!("Extension.js through npx instead: {why}"));
    }
    // Extension.js builds every requested browser in one run; other toolchains, one a run.
    let groups: Vec<&[Target]> = if delegate::builds_all_at_once(&toolchain) {
        vec![&req.targets[..]]
    } else {
        req.targets.chunks(1).collect()
    };
    let mut results = Vec::new();
    for targets in groups {
        results.extend(delegated_run(req, opts, &toolchain, node.as_ref(), targets, &findings, progress)?);
    }
    // The source zip uses the source manifest when there is one.
    match manifest::load(&req.project) {
        Ok(s) => finish_source_zip(req, &s.json, s.messages.as_ref(), &mut results)?,
        Err(_) => {
            let built = results
                .first()
                .and_then(|r| std::fs::read_to_string(r.output_path.join("manifest.json")).ok())
                .and_then(|t| manifest::parse_jsonc(&t).ok())
                .unwrap_or(Json::Null);
            finish_source_zip(req, &built, None, &mut results)?;
        }
    }
    Ok(results)
}

/// One run of the toolchain for `targets` (locks held for each), then each target's output
/// copied, zipped and reported as ours.
fn delegated_run(
    req: &BuildRequest,
    opts: BuildOptions,
    toolchain: &Toolchain,
    node: Option<&delegate::Node>,
    targets: &[Target],
    findings: &[Finding],
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<BrowserBuild>, BuildError> {
    let started = Instant::now();
    let _locks = targets.iter().map(|t| take_lock(req, opts, t.name)).collect::<Result<Vec<_>, _>>()?;
    let inv = Invocation {
        project: &req.project,
        targets,
        toolchain,
        node,
        timeout: req.timeout,
        cancel: req.cancel.as_ref(),
    };
    let ran =
        delegate::run(&inv, SystemTime::now(), progress).map_err(|e| delegate_error(e, findings.to_vec()))?;
    let delegation = Delegation {
        toolchain: toolchain.name(),
        command: ran.command.clone(),
        reason: match toolchain {
            Toolchain::ExtensionJsNpx { why, .. } => format!("{}; {why}", why_of(findings)),
            _ => why_of(findings),
        },
        output_tail: ran.output_tail.iter().rev().take(10).rev().cloned().collect(),
    };
    targets
        .iter()
        .zip(&ran.outputs)
        .map(|(target, built)| {
            let mut b = adopt_output(req, opts, toolchain, *target, built, findings, started)?;
            b.delegation = Some(delegation.clone());
            Ok(b)
        })
        .collect()
}

/// Why a project needs a toolchain, in words: the first reason, then every code once.
fn why_of(findings: &[Finding]) -> String {
    match findings.first() {
        Some(f) if findings.len() == 1 => f.line_text(),
        Some(f) => {
            format!("{} (and {} more: {})", f.line_text(), findings.len() - 1, needs::code_list(findings))
        }
        None => "the project has its own build".into(),
    }
}

/// Takes a delegated build's output folder for `target` into our staging, zip and result.
fn adopt_output(
    req: &BuildRequest,
    opts: BuildOptions,
    toolchain: &Toolchain,
    target: Target,
    built: &Path,
    findings: &[Finding],
    started: Instant,
) -> Result<BrowserBuild, BuildError> {
    let manifest_text = std::fs::read_to_string(built.join("manifest.json"))
        .map_err(BuildError::io(format!("cannot read {}", built.join("manifest.json").display())))?;
    let built_manifest = manifest::parse_jsonc(&manifest_text).map_err(|e| BuildError::Failed {
        message: format!("{} wrote an invalid manifest.json: {e}", toolchain.name()),
        hint: "check the toolchain's output".into(),
        findings: Vec::new(),
        output_tail: Vec::new(),
    })?;
    let messages = std::fs::read_to_string(
        built
            .join("_locales")
            .join(built_manifest.get("default_locale").and_then(Json::as_str).unwrap_or("en"))
            .join("messages.json"),
    )
    .ok()
    .and_then(|t| manifest::Messages::parse(&t).ok());
    let stem = output::artifact_stem(&built_manifest, messages.as_ref(), &req.project);
    let staging = Staging::create(&req.out_dir, target.name)
        .map_err(BuildError::io("cannot create the staging folder"))?;
    copy_tree(built, &staging.dir, &format!("{stem}.zip"))
        .map_err(BuildError::io(format!("cannot copy {}", built.display())))?;
    let warnings = findings.iter().filter(|f| !f.is_error()).cloned().collect();
    finish(req, opts, target, Pipeline::Delegated, staging, &stem, warnings, started)
}

/// Copies a built tree, leaving out a previous store zip of the same name.
fn copy_tree(from: &Path, to: &Path, skip_name: &str) -> std::io::Result<()> {
    for f in list_files(from)? {
        if f.path == skip_name || (f.path.ends_with(".zip") && !f.path.contains('/')) {
            continue;
        }
        output::copy_into(to, &f.path, &from.join(&f.path))?;
    }
    Ok(())
}

fn delegate_error(e: DelegateError, findings: Vec<Finding>) -> BuildError {
    match e {
        DelegateError::NotInstalled { what, hint } => {
            BuildError::NotInstalled { message: what, hint, findings }
        }
        DelegateError::Node { found, needed, hint } => BuildError::NotInstalled {
            message: format!(
                "{needed} ({}); it is needed because {}",
                match found {
                    Some(f) => format!("found {f}"),
                    None => "no node found".to_owned(),
                },
                why_of(&findings)
            ),
            hint,
            findings,
        },
        DelegateError::Failed { message, output_tail } => BuildError::Failed {
            message: with_tail(message, &output_tail),
            hint: "fix the error the toolchain printed (above; all of it in outputTail), and build again"
                .into(),
            findings,
            output_tail,
        },
        DelegateError::Cancelled { output_tail } => BuildError::Failed {
            message: "the build was cancelled by the caller; the toolchain was stopped".into(),
            hint: "build again when you want the result".into(),
            findings,
            output_tail,
        },
        DelegateError::Timeout { after, output_tail } => BuildError::Timeout {
            message: with_tail(
                format!("the toolchain did not finish within {} s", after.as_secs()),
                &output_tail,
            ),
            output_tail,
        },
    }
}

/// Lines of the toolchain's output shown in a failure's message (the text an MCP client and
/// the CLI print), so the cause is read where the failure is.
const SHOWN_LINES: usize = 12;

/// `message`, then the toolchain's last non-blank lines (at most [`SHOWN_LINES`], each cut
/// at 300 characters).
fn with_tail(message: String, tail: &[String]) -> String {
    let lines: Vec<&String> = tail.iter().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return format!("{message}; it printed nothing");
    }
    let shown = &lines[lines.len().saturating_sub(SHOWN_LINES)..];
    let mut out = format!("{message}; its last output:");
    for l in shown {
        out.push_str("\n  ");
        out.push_str(&crate::text::truncate_chars(l, 300));
    }
    out
}
