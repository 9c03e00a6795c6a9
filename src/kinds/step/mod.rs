//! Workflow Builder custom steps (`function_executed`), pure: a step is a fact with a deadline, and
//! slackline makes its ending durable.
//!
//! Why: when a workflow reaches the app's step, Slack sends `function_executed` with the step's
//! inputs and a short-lived per-execution token, and waits for `functions.completeSuccess` or
//! `functions.completeError`. Frameworks that ack and then work in memory lose the ending when the
//! work dies, and the step hangs. Here the ending is an outbox row, and more:
//!
//! - **The execution is recorded before the ack** (`step_executions`, migration 9): its token,
//!   sealed like installation tokens and never logged, and its deadline. The ending's job reads
//!   the token from there (not from the row), and drops it once the step has ended.
//! - **It ends once.** The handler's `cx.complete(outputs)` / `cx.fail(error)` share one key per
//!   execution ([`end_key`]): a duplicate of the event, or a second ending, adds nothing. Slack's
//!   `execution_not_in_running_state` (the step had ended) is success by shape ([`judge`]), and an
//!   ending that finds the step ended sends nothing. Slack's `function_execution_not_found` parks
//!   the ending and marks the step ended (nothing can end it); outputs Slack refuses
//!   (`parameter_validation_failed`) fail the step at once with a readable error
//!   ([`outputs_refused`]) and park the ending with Slack's error.
//! - **It always ends.** The ingest unit queues a guard row with every execution ([`guard_key`]),
//!   whatever the app decides: due at the step's deadline (`STEP_DEADLINE_MS`, default 15
//!   minutes), or at once with the handler's error when the handler failed or panicked (the
//!   request is still kept as `handler_failed` for a redrive). The guard fails a step that has not
//!   ended with a readable error, and does nothing to one that has; once the app's ending has
//!   ended the step, a guard still waiting (unclaimed, never attempted) is dropped at once
//!   (`sql::DROP_GUARD`: no claim, no completion, no wake at the deadline, no pruning).
//!
//! Invariants: an execution's token is read only by its ending's and its guard's jobs; a step
//! marked ended is never called again; at most one ending per execution is queued by the app.

pub mod end;
#[cfg(target_arch = "wasm32")]
pub(crate) mod job;
pub mod sql;
#[cfg(target_arch = "wasm32")]
pub(crate) mod store;
#[cfg(test)]
mod tests;

pub use end::{call, judge, outputs_refused, Judged, StepEnd, MAX_ERROR_CHARS};

use crate::kinds::registry::{Action, Effect};
use end::cut;
use serde_json::{json, Value};

/// How long a step may take before its guard fails it (`STEP_DEADLINE_MS`): 15 minutes. The
/// setting's default lives with the others, in the config.
pub use crate::config::DEFAULT_STEP_DEADLINE_MS;
/// Slack's event type.
pub const FUNCTION_EXECUTED: &str = "function_executed";

/// A step Slack asked the app to run (`function_executed`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepStarted {
    /// The step's `callback_id`, as the manifest declares it.
    pub callback_id: String,
    /// This execution (`function_execution_id`): the step's identity.
    pub execution_id: String,
    /// The workflow's execution, if Slack sent it.
    pub workflow_execution_id: Option<String>,
    /// The step's inputs, by name.
    pub inputs: Value,
    /// The per-execution token (`bot_access_token`, `xwfp-…`): secret.
    pub token: String,
}

impl StepStarted {
    /// The step a `function_executed` event starts, or why it is not one.
    pub fn from_event(raw: &Value) -> Result<StepStarted, String> {
        let field = |path: &str| raw.pointer(path).and_then(Value::as_str).map(str::to_string);
        Ok(StepStarted {
            callback_id: field("/function/callback_id").ok_or("function_executed without function.callback_id")?,
            execution_id: field("/function_execution_id").ok_or("function_executed without function_execution_id")?,
            workflow_execution_id: field("/workflow_execution_id"),
            inputs: raw.get("inputs").cloned().unwrap_or_else(|| json!({})),
            token: field("/bot_access_token").ok_or("function_executed without bot_access_token")?,
        })
    }
}

/// What the ingest unit records of a started step, whatever the app decided: the execution (its
/// token sealed) and its guard row.
#[derive(Debug, Clone, PartialEq)]
pub struct Recording {
    /// The execution.
    pub execution_id: String,
    /// Its step.
    pub callback_id: String,
    /// Its token, sealed (`crate::crypto`).
    pub sealed_token: String,
    /// When the guard fails it, if it has not ended.
    pub deadline_at: i64,
    /// The guard: due at the deadline, or at once (with the handler's error) if the handler failed.
    pub guard: Effect,
    /// When the guard falls due.
    pub guard_due: i64,
}

/// The recording of `started` at `now`: a step may take `deadline_ms`; a handler that failed
/// (`handler_failed`: its error) fails the step at once.
pub fn recording(started: &StepStarted, sealed_token: String, now: i64, deadline_ms: i64, handler_failed: Option<&str>) -> Recording {
    let deadline_at = now + deadline_ms;
    let (guard_due, error) = match handler_failed {
        Some(why) => (now, self::handler_failed(why)),
        None => (deadline_at, timed_out(deadline_ms)),
    };
    let action = Action::StepGuard { execution_id: started.execution_id.clone(), error };
    Recording {
        execution_id: started.execution_id.clone(),
        callback_id: started.callback_id.clone(),
        sealed_token,
        deadline_at,
        guard: Effect { key: guard_key(&started.execution_id), action, deadline_after_ms: None },
        guard_due,
    }
}

/// The key of an execution's ending: one per execution, whichever helper queues it.
pub fn end_key(execution_id: &str) -> String {
    format!("step:{execution_id}:end")
}

/// The key of an execution's guard.
pub fn guard_key(execution_id: &str) -> String {
    format!("step:{execution_id}:guard")
}

/// The guard's message when the handler failed or panicked.
pub fn handler_failed(why: &str) -> String {
    cut(&format!("The app's step failed: {why}"))
}

/// The guard's message when the step did not end in time.
pub fn timed_out(deadline_ms: i64) -> String {
    format!("The app did not finish this step within {} minutes.", (deadline_ms + 59_999) / 60_000)
}
