//! `webext-mcp dev|start|preview`. With `--detach` each is its tool's call, nothing more. In
//! the foreground the CLI starts an owned session through the same tool, takes the session
//! back from the tool's owner list, and prints the session's events until it ends (stopped
//! from elsewhere, browser closed) or Ctrl-C stops it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use serde_json::{Value, json};

use super::{call, print_result, print_stdout, terminal_progress};
use crate::paths::resolve_lexically;
use crate::session;
use crate::tools::{self, Ctx};

/// The tools that start a session.
pub const SESSION_TOOLS: [&str; 3] = ["extension_dev", "extension_start", "extension_preview"];

/// `webext-mcp call <session tool>`: the command ends as soon as the tool answers, so a
/// session it owned would end with it. Detach is implied (and said in the result); an
/// explicit `detach: false` is refused, pointing at the foreground verb that can own one.
pub async fn call_detached(ctx: &Ctx, tool: &str, mut args: Value, as_json: bool) -> ExitCode {
    if let Value::Object(map) = &mut args {
        if map.get("detach") == Some(&Value::Bool(false)) {
            let verb = tool.trim_start_matches("extension_");
            let err = webext_mcp_host::protocol::ErrorBody::invalid_argument(
                "`detach: false` cannot work from `webext-mcp call`: the command exits once the tool answers, and an owned session ends with it",
            )
            .with_hint(format!(
                "omit detach (a called session is detached), or run `webext-mcp {verb} <path>` to keep it in the foreground until Ctrl-C"
            ));
            return print_result(Err(err), as_json);
        }
        map.insert("detach".into(), Value::Bool(true));
    }
    let Some(result) = tools::call(ctx, terminal_progress(), tool, args.clone()).await else {
        return ExitCode::from(2);
    };
    let result = result.map(|mut out| {
        if let Value::Object(map) = &mut out.structured {
            map.insert("detached".into(), Value::Bool(true));
        }
        let project = args["projectPath"].as_str().unwrap_or(".");
        let note = format!(
            "detached: the session outlives this command (`webext-mcp call` implies detach); stop it with `webext-mcp stop {project}` or extension_stop"
        );
        out.text = Some(match out.text.take() {
            Some(t) => format!("{t}\n{note}"),
            None => format!("{}\n{note}", out.structured),
        });
        out
    });
    print_result(result, as_json)
}

/// Runs `tool` (`extension_dev`, `extension_start` or `extension_preview`) for the CLI.
pub async fn verb(ctx: &Ctx, tool: &str, args: Value, detach: bool, as_json: bool) -> ExitCode {
    if detach {
        return call(ctx, tool, args, as_json).await;
    }
    ExitCode::from(foreground(ctx, tool, args, as_json, &mut |line| print_stdout(line)).await)
}

/// Starts an owned session with `tool` and follows it; returns the process exit code.
async fn foreground(ctx: &Ctx, tool: &str, args: Value, as_json: bool, out: &mut dyn FnMut(&str)) -> u8 {
    let started = match tools::call(ctx, terminal_progress(), tool, args.clone()).await {
        Some(Ok(started)) => started.structured,
        Some(Err(e)) => {
            if as_json {
                out(&json!({ "error": e }).to_string());
            } else {
                eprintln!("{}", e.line());
            }
            return 1;
        }
        None => return 2,
    };
    let pid = started["pid"].as_u64().and_then(|p| u32::try_from(p).ok()).unwrap_or(0);
    let Some(session::Owned { mut child, stdin, .. }) = session::take_owned(pid) else {
        eprintln!(
            "webext-mcp: the session (pid {pid}) is not owned by this process; stop it with `webext-mcp stop`"
        );
        return 1;
    };
    // `extension_start` without `wait` answers in short; the contract has the whole state.
    let dir = contract_dir(&args, started["browser"].as_str().unwrap_or("chromium"));
    // The tool's answer crossed the tool boundary as JSON; the contract file is typed.
    let ready = session::contract::read_ready(&dir)
        .or_else(|| serde_json::from_value::<session::contract::Ready>(started.clone()).ok());
    out(&match (&ready, as_json) {
        (Some(r), true) => serde_json::to_value(r).map(|v| v.to_string()).unwrap_or_default(),
        (Some(r), false) => tools::dev::sessions::describe(r),
        (None, _) => started.to_string(),
    });
    let events = dir.join("events.ndjson");
    let mut offset = std::fs::metadata(&events).map(|m| m.len()).unwrap_or(0);
    let mut stdin = Some(stdin);
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    loop {
        tokio::select! {
            _ = child.wait() => {
                print_events(&events, &mut offset, as_json, out);
                return 0;
            }
            _ = tokio::signal::ctrl_c(), if stdin.is_some() => {
                // Closing the owner pipe is how an owned session is told to stop.
                stdin = None;
                if !as_json {
                    out("stopping…");
                }
            }
            _ = tick.tick() => print_events(&events, &mut offset, as_json, out),
        }
    }
}

/// The session's contract folder, from the project path the tool was given.
fn contract_dir(args: &Value, browser: &str) -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_default();
    let project = resolve_lexically(&cwd, Path::new(args["projectPath"].as_str().unwrap_or(".")));
    let project = std::fs::canonicalize(&project).unwrap_or(project);
    session::contract_dir(&project.join("dist"), browser)
}

/// Prints the lines appended to `events.ndjson` since `offset`.
fn print_events(path: &Path, offset: &mut u64, as_json: bool, out: &mut dyn FnMut(&str)) {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = std::fs::File::open(path) else { return };
    if f.seek(SeekFrom::Start(*offset)).is_err() {
        return;
    }
    let mut text = String::new();
    if f.read_to_string(&mut text).is_err() {
        return;
    }
    let Some(end) = text.rfind('\n') else { return };
    *offset += end as u64 + 1;
    for line in text[..end].lines() {
        if as_json {
            out(line);
        } else if let Ok(v) = serde_json::from_str::<Value>(line) {
            out(&tools::dev::sessions::event_text(&v));
        }
    }
}
