//! Work that may take longer than an MCP client waits for one call (a delegated build's
//! `npm install`, a template's dependency install) runs as a job that outlives the call.
//!
//! ```text
//!  call ─▶ job for (tool, arguments)? ─ no ─▶ start it on a blocking thread
//!            │ yes (running or just finished)
//!            ▼
//!  wait for its result, at most the call's budget (MCP: 45 s; the CLI: no limit)
//!   ├─ done in time ─▶ its result (and the job is forgotten)
//!   └─ not yet ─────▶ TIMEOUT "still running, it goes on: call again with the same
//!                      arguments" with the elapsed time and its last output line
//! ```
//!
//! A client's request timeout (60 s by default) is not extended by progress notifications, so
//! without this the call died with the client's `-32001` and the work was cancelled with it.
//! A caller that cancels (MCP `notifications/cancelled`, Ctrl-C) while it is the only one
//! waiting cancels the job. A finished job nobody came back for is dropped after
//! [`KEEP_RESULT`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::json;
use tokio_util::sync::CancellationToken;
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use super::{Call, ToolResult};

/// How long a finished job's result waits for the caller to come back for it: long enough
/// for a client that calls again as told, short enough that a call much later (after more
/// edits) builds afresh instead of getting an old result.
const KEEP_RESULT: Duration = Duration::from_secs(120);

/// One job: its result once done, who listens to its progress, its last output line.
struct Job {
    started: Instant,
    cancel: CancellationToken,
    done: tokio::sync::watch::Receiver<Option<(ToolResult, Instant)>>,
    state: Mutex<JobState>,
}

#[derive(Default)]
struct JobState {
    /// The call waiting now; progress goes to it.
    listener: Option<Call>,
    waiters: usize,
    last_line: String,
}

impl Job {
    fn state(&self) -> std::sync::MutexGuard<'_, JobState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

static JOBS: Mutex<Option<HashMap<String, Arc<Job>>>> = Mutex::new(None);

/// The job key of a call: the tool, the working folder (relative paths resolve against it)
/// and the arguments as given.
pub fn key(tool: &str, args: &serde_json::Value) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    format!("{tool}\u{0}{}\u{0}{args}", cwd.display())
}

/// What the work gets: the job's cancellation token and a sink for its output lines.
pub type Work = Box<dyn FnOnce(CancellationToken, &mut dyn FnMut(&str)) -> ToolResult + Send>;

/// Runs `work` as the job `key` (the tool's name and its arguments), or joins the job of that
/// key already running, and waits for it within `call`'s budget. `tool` names the tool for
/// the caller.
pub async fn run_or_join(call: &Call, tool: &str, key: String, work: Work) -> ToolResult {
    let job = job_for(key.clone(), work);
    {
        let mut s = job.state();
        s.listener = Some(call.clone());
        s.waiters += 1;
    }
    let waiting = Waiting { call, job: &job };
    let mut done = job.done.clone();
    let finished = async {
        loop {
            if let Some((result, _)) = done.borrow().as_ref() {
                return result.clone();
            }
            if done.changed().await.is_err() {
                return Err(ErrorBody::internal(format!("the {tool} job stopped without a result")));
            }
        }
    };
    let outcome = match call.budget() {
        Some(budget) => tokio::time::timeout(budget, finished).await.ok(),
        None => Some(finished.await),
    };
    drop(waiting);
    match outcome {
        Some(result) => {
            forget(&key, &job);
            result
        }
        None => Err(still_running(tool, &job)),
    }
}

/// The job of `key`: the running one, or a new one started with `work`.
fn job_for(key: String, work: Work) -> Arc<Job> {
    let mut jobs = JOBS.lock().unwrap_or_else(PoisonError::into_inner);
    let jobs = jobs.get_or_insert_with(HashMap::new);
    jobs.retain(|_, j| j.done.borrow().as_ref().is_none_or(|(_, at)| at.elapsed() < KEEP_RESULT));
    if let Some(job) = jobs.get(&key) {
        return Arc::clone(job);
    }
    let (tx, rx) = tokio::sync::watch::channel(None);
    let job = Arc::new(Job {
        started: Instant::now(),
        cancel: CancellationToken::new(),
        done: rx,
        state: Mutex::new(JobState::default()),
    });
    let (runner, cancel) = (Arc::clone(&job), job.cancel.clone());
    tokio::task::spawn_blocking(move || {
        let mut output = |line: &str| {
            let listener = {
                let mut s = runner.state();
                s.last_line = line.chars().take(300).collect();
                s.listener.clone()
            };
            if let Some(call) = listener {
                call.status(line);
            }
        };
        let result = work(cancel, &mut output);
        let _ = tx.send(Some((result, Instant::now())));
    });
    jobs.insert(key, Arc::clone(&job));
    job
}

/// Drops the job of `key` once its result has been handed out.
fn forget(key: &str, job: &Arc<Job>) {
    let mut jobs = JOBS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(jobs) = jobs.as_mut()
        && jobs.get(key).is_some_and(|j| Arc::ptr_eq(j, job))
    {
        jobs.remove(key);
    }
}

/// The answer of a call whose budget ended first.
fn still_running(tool: &str, job: &Job) -> ErrorBody {
    let secs = job.started.elapsed().as_secs();
    let last = job.state().last_line.clone();
    let said = if last.is_empty() { String::new() } else { format!("; last output: {last}") };
    ErrorBody::new(ErrorCode::Timeout, format!("{tool} is still running after {secs} s{said}"))
        .with_hint(format!(
            "it goes on: call {tool} again with the same arguments (within 2 minutes of its end) to wait for its result; MCP clients give up on a call after 60 s, so one call waits at most 45 s"
        ))
        .with_data(json!({ "running": true, "elapsedMs": job.started.elapsed().as_millis() as u64, "lastOutput": last }))
}

/// A call waiting on a job. When the call's future is dropped because its caller cancelled,
/// and nobody else waits, the job is cancelled too.
struct Waiting<'a> {
    call: &'a Call,
    job: &'a Arc<Job>,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let mut s = self.job.state();
        s.waiters = s.waiters.saturating_sub(1);
        if s.waiters == 0 {
            s.listener = None;
            if self.call.is_cancelled() {
                self.job.cancel.cancel();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slow(ms: u64, counter: Arc<std::sync::atomic::AtomicUsize>) -> Work {
        Box::new(move |cancel, out| {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            out("step 1");
            let end = Instant::now() + Duration::from_millis(ms);
            while Instant::now() < end {
                if cancel.is_cancelled() {
                    return Err(ErrorBody::new(ErrorCode::BuildFailed, "cancelled"));
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            Ok(super::super::ToolOutput::json(json!({"built": true})))
        })
    }

    #[tokio::test]
    async fn a_job_longer_than_the_budget_answers_in_time_and_the_next_call_gets_its_result() {
        let runs = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let call = Call::default().with_budget(Duration::from_millis(100));
        let first = run_or_join(&call, "extension_build", "k1".into(), slow(400, runs.clone())).await;
        let e = first.unwrap_err();
        assert_eq!(e.code, ErrorCode::Timeout);
        assert!(e.message.contains("still running") && e.message.contains("step 1"), "{}", e.message);
        assert!(e.hint.unwrap().contains("same arguments"));
        // The same arguments join the running job (no second run) and get its result.
        let call = Call::default().with_budget(Duration::from_secs(30));
        let second = run_or_join(&call, "extension_build", "k1".into(), slow(400, runs.clone())).await;
        assert_eq!(second.unwrap().structured["built"], true);
        assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), 1);
        // Handed out: the next call runs the work afresh.
        let third = run_or_join(&call, "extension_build", "k1".into(), slow(1, runs.clone())).await;
        assert!(third.is_ok());
        assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn a_caller_that_cancels_cancels_the_job_and_no_budget_waits_to_the_end() {
        let runs = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let token = CancellationToken::new();
        let call = Call::new(None, token.clone());
        let waiting = run_or_join(&call, "extension_build", "k2".into(), slow(30_000, runs.clone()));
        // The caller cancels, then the call is dropped, as the MCP server does.
        let canceller = token.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            canceller.cancel();
        });
        tokio::select! {
            _ = waiting => panic!("the job finished before it was cancelled"),
            () = token.cancelled() => {}
        }
        // The job saw the cancellation and ended with it; the next call gets that outcome.
        let again =
            run_or_join(&Call::default(), "extension_build", "k2".into(), slow(1, runs.clone())).await;
        assert_eq!(again.unwrap_err().message, "cancelled");
        assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), 1);
        // Without a budget (the CLI) a call waits for the whole job.
        let long =
            run_or_join(&Call::default(), "extension_build", "k3".into(), slow(300, runs.clone())).await;
        assert_eq!(long.unwrap().structured["built"], true);
    }
}
