//! How a step ends, pure: the ending's call and what Slack's answer to it means. Apart from the
//! room's `mod.rs` because the registry's `Action` carries a [`StepEnd`] while `mod.rs` builds
//! `Action`s: this file imports neither.

use crate::slack::classify::Verdict;
use crate::slack::method;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The longest error message sent to Slack (its UI shows it to the workflow's user).
pub const MAX_ERROR_CHARS: usize = 500;

/// How a step ends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "end", rename_all = "snake_case")]
pub enum StepEnd {
    /// `functions.completeSuccess` with these outputs (by the manifest's output names).
    Success {
        /// The outputs.
        outputs: Value,
    },
    /// `functions.completeError` with this message (shown to the workflow's user).
    Error {
        /// The message.
        error: String,
    },
}

/// The Web API call that ends execution `execution_id` with `end`.
pub fn call(execution_id: &str, end: &StepEnd) -> (&'static str, Value) {
    match end {
        StepEnd::Success { outputs } => (method::FUNCTIONS_COMPLETE_SUCCESS, json!({ "function_execution_id": execution_id, "outputs": outputs })),
        StepEnd::Error { error } => (method::FUNCTIONS_COMPLETE_ERROR, json!({ "function_execution_id": execution_id, "error": cut(error) })),
    }
}

/// What an ending's call did to the step.
#[derive(Debug, Clone, PartialEq)]
pub enum Judged {
    /// The step has ended: by this call, or before it (`execution_not_in_running_state`).
    Ended,
    /// Not ended: the row retries or parks as the verdict says.
    NotEnded(Verdict),
}

/// Slack's verdict on an ending: success, `execution_not_in_running_state` (ended already) or
/// `token_revoked` (the execution's token, revoked when the step ended) all mean the step has
/// ended; anything else is judged as any call is.
pub fn judge(verdict: Verdict) -> Judged {
    match verdict {
        Verdict::Success => Judged::Ended,
        // The execution's token is revoked once the step has ended (by its app, or by Slack).
        Verdict::Permanent { code } if code == "execution_not_in_running_state" || code == "token_revoked" => Judged::Ended,
        other => Judged::NotEnded(other),
    }
}

pub(super) fn cut(message: &str) -> String {
    message.chars().take(MAX_ERROR_CHARS).collect()
}
