//! A running call's link back to its caller: progress reports and cancellation.

use std::sync::Arc;

/// One progress report of a running call.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Work done so far (seconds elapsed when nothing better is known); increases.
    pub done: f64,
    pub total: Option<f64>,
    pub message: String,
}

/// Where a call's progress reports go: MCP `notifications/progress` when the client sent a
/// `progressToken`, stderr for the CLI on a terminal.
pub type ProgressSink = Arc<dyn Fn(Progress) + Send + Sync>;

/// A call's link back to its caller: a progress sink and a cancellation token (MCP
/// `notifications/cancelled`, Ctrl-C). [`call`] stops a cancelled tool by dropping it, which
/// ends every wait; long work that runs outside the future (a build thread) checks
/// [`Call::is_cancelled`].
#[derive(Clone)]
pub struct Call {
    progress: Option<ProgressSink>,
    cancel: tokio_util::sync::CancellationToken,
    started: std::time::Instant,
    /// How long the caller waits for one answer, when it gives up by itself (an MCP client);
    /// `None` for the CLI, which waits to the end. Long work answers within it ([`jobs`]).
    budget: Option<std::time::Duration>,
    /// The last report sent (its `done` and when): MCP wants `progress` to increase with
    /// every notification, and the heartbeat stays quiet while the tool reports by itself.
    last: Arc<std::sync::Mutex<Option<(f64, std::time::Instant)>>>,
}

impl Default for Call {
    fn default() -> Call {
        Call::new(None, Default::default())
    }
}

impl Call {
    pub fn new(progress: Option<ProgressSink>, cancel: tokio_util::sync::CancellationToken) -> Call {
        Call { progress, cancel, started: std::time::Instant::now(), budget: None, last: Default::default() }
    }

    /// The same call with a budget: the caller waits at most that long for an answer.
    pub fn with_budget(mut self, budget: std::time::Duration) -> Call {
        self.budget = Some(budget);
        self
    }

    pub fn budget(&self) -> Option<std::time::Duration> {
        self.budget
    }

    /// Reports progress, when anyone listens. `done` is raised above the last report's when
    /// it would not increase.
    pub fn report(&self, done: f64, total: Option<f64>, message: impl Into<String>) {
        let Some(sink) = &self.progress else { return };
        let done = {
            let mut last = self.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let done = match *last {
                Some((prev, _)) if done <= prev => prev + 0.001,
                _ => done,
            };
            *last = Some((done, std::time::Instant::now()));
            done
        };
        sink(Progress { done, total, message: message.into() });
    }

    /// Reports what the call is doing now, with the seconds since it began as `done`.
    pub fn status(&self, message: impl Into<String>) {
        self.report(self.elapsed_secs(), None, message);
    }

    /// Seconds since the call began.
    pub fn elapsed_secs(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// Whether the tool reported by itself within `window` (the heartbeat then says nothing).
    pub(super) fn reported_within(&self, window: std::time::Duration) -> bool {
        let last = self.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        last.is_some_and(|(_, at)| at.elapsed() < window)
    }

    pub fn wants_progress(&self) -> bool {
        self.progress.is_some()
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// The token itself, for work that runs outside the call's future (a build thread).
    pub fn cancel_token(&self) -> tokio_util::sync::CancellationToken {
        self.cancel.clone()
    }

    /// Resolves when the caller cancels.
    pub async fn cancelled(&self) {
        self.cancel.cancelled().await
    }
}

/// How often a call that is still running says so.
pub const HEARTBEAT: std::time::Duration = std::time::Duration::from_secs(1);
