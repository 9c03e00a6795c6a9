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

/// Slack's errors that mean the step has ended: by an earlier ending (the first one counts), or
/// Slack revoked the execution's token, which it does once the step has ended.
pub const ENDED: &[&str] = &["execution_not_in_running_state", "token_revoked"];
/// Slack's errors that mean the execution can never be ended (Slack does not know it).
pub const UNENDABLE: &[&str] = &["function_execution_not_found"];
/// Slack's errors that refuse a success's outputs (they do not match the manifest's
/// `output_parameters`): the step is failed at once with a readable error instead.
pub const OUTPUTS_REFUSED: &[&str] = &["parameter_validation_failed", "invalid_outputs"];

/// What an ending's call did to the step.
#[derive(Debug, Clone, PartialEq)]
pub enum Judged {
    /// The step has ended: by this call, or before it ([`ENDED`]).
    Ended,
    /// Slack does not know the execution ([`UNENDABLE`]): nothing will ever end it. The row parks
    /// with `code`; the execution is marked ended, so its guard sends nothing either.
    Unendable {
        /// Slack's error.
        code: String,
    },
    /// Slack refused a success's outputs ([`OUTPUTS_REFUSED`]): fail the step now with
    /// [`outputs_refused`]'s message, and park the row with `code`.
    OutputsRefused {
        /// Slack's error.
        code: String,
    },
    /// Not ended: the row retries or parks as the verdict says.
    NotEnded(Verdict),
}

/// Slack's verdict (`classify_web_api`'s) on ending `end`: see [`Judged`]. Every code named
/// here is one the classifier makes permanent (`PERMANENT_ERRORS`): a kind's judge is only ever
/// fed verdicts the classifier makes (`crate::kinds::slack_errors`' test holds it).
pub fn judge(end: &StepEnd, verdict: Verdict) -> Judged {
    match verdict {
        Verdict::Success => Judged::Ended,
        Verdict::Permanent { code } if ENDED.contains(&code.as_str()) => Judged::Ended,
        Verdict::Permanent { code } if UNENDABLE.contains(&code.as_str()) => Judged::Unendable { code },
        Verdict::Permanent { code } if OUTPUTS_REFUSED.contains(&code.as_str()) && matches!(end, StepEnd::Success { .. }) => Judged::OutputsRefused { code },
        other => Judged::NotEnded(other),
    }
}

/// The error a step whose outputs Slack refused is failed with (the workflow's user reads it).
pub fn outputs_refused(code: &str) -> String {
    format!("The app's step finished, but Slack refused its outputs ({code}): they do not match the step's output parameters.")
}

pub(super) fn cut(message: &str) -> String {
    message.chars().take(MAX_ERROR_CHARS).collect()
}
