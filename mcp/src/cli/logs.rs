//! `webext-mcp logs PATH --follow`: the `extension_logs` tool called again and again, each
//! call following for a second from where the last one ended, its new entries printed as
//! they come (one line each, or one JSON object each with `--json`), until Ctrl-C or the
//! session stops.

use std::process::ExitCode;

use serde_json::Value;

use super::{print_result, print_stdout, terminal_progress};
use crate::session::logs::Entry;
use crate::tools::dev::logs::LogsArgs;
use crate::tools::{self, Ctx};

/// How long each call follows.
const STEP_MS: u64 = 1000;

pub async fn follow(ctx: &Ctx, mut args: LogsArgs, as_json: bool) -> ExitCode {
    args.follow = true;
    args.timeout_ms = Some(STEP_MS);
    loop {
        let call = serde_json::to_value(&args).unwrap_or(Value::Null);
        let result = tokio::select! {
            r = tools::call(ctx, terminal_progress(), "extension_logs", call) => r,
            _ = tokio::signal::ctrl_c() => return ExitCode::SUCCESS,
        };
        let out = match result {
            Some(Ok(out)) => out,
            Some(Err(e)) => return print_result(Err(e), as_json),
            None => return ExitCode::from(2),
        };
        let s = &out.structured;
        for entry in s["entries"].as_array().into_iter().flatten() {
            if as_json {
                print_stdout(&entry.to_string());
            } else if let Ok(e) = serde_json::from_value::<Entry>(entry.clone()) {
                print_stdout(&e.line_text());
            }
        }
        if s["alive"] != true {
            if !as_json {
                eprintln!("the session stopped");
            }
            return ExitCode::SUCCESS;
        }
        args.since = s["cursor"].as_str().or_else(|| s["next"].as_str()).map(str::to_owned);
        args.cursor = None;
    }
}
