//! Workflow Builder custom steps on the listener API: `.function(callback_id, handler)` runs when a
//! workflow reaches the app's step (`function_executed`), and the handler ends the step with
//! `cx.complete(outputs)` or `cx.fail(error)` — effects like any other, sent with the execution's
//! own token. A button in a message the step posted (`function_data` on `block_actions`) can end
//! it too: its `cx.complete` ends that execution.
//!
//! What slackline adds (`crate::kinds::step`): the execution is recorded before the ack; it ends
//! once (one key per execution; `execution_not_in_running_state` is success); it always ends (a
//! handler that fails or panics fails the step with its message, and a step not ended by its
//! deadline, `STEP_DEADLINE_MS`, is failed by the sweep).
//!
//! ```
//! use slackline::prelude::*;
//! use serde_json::json;
//!
//! let app = Listeners::new().function("create_ticket", |step, cx| {
//!     let title = step.input("title").ok_or("the step needs a title")?;
//!     cx.complete(json!({ "ticket_id": format!("TCK-{}", title.len()) }));
//!     Ok(())
//! });
//! # let _ = app;
//! ```

use super::{Cx, EffectRef, HandlerResult, Listeners, Route};
use crate::kinds::registry::Action;
use crate::kinds::step::{end_key, StepEnd, StepStarted};
use serde_json::Value;

/// A step a workflow asked the app to run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StepIn {
    /// The step's `callback_id`.
    pub callback_id: String,
    /// This execution.
    pub execution_id: String,
    /// The workflow's execution, if Slack sent it.
    pub workflow_execution_id: Option<String>,
    /// The inputs, by the manifest's names.
    pub inputs: Value,
}

impl StepIn {
    /// An input as text, if it is one.
    pub fn input(&self, name: &str) -> Option<&str> {
        self.inputs.get(name).and_then(Value::as_str)
    }

    pub(super) fn of(started: StepStarted) -> StepIn {
        StepIn {
            callback_id: started.callback_id,
            execution_id: started.execution_id,
            workflow_execution_id: started.workflow_execution_id,
            inputs: started.inputs,
        }
    }
}

impl Listeners {
    /// The app's Workflow Builder step `callback_id` (`function_executed`): the handler ends it
    /// with [`Cx::complete`] or [`Cx::fail`], now or from a button the step posted.
    pub fn function(self, callback_id: &str, handler: impl Fn(&StepIn, &mut Cx) -> HandlerResult + 'static) -> Listeners {
        self.with(Route::Function(callback_id.to_string(), Box::new(handler)))
    }
}

impl Cx {
    /// Ends this request's Workflow step successfully with `outputs` (by the manifest's output
    /// names): `functions.completeSuccess`, with the execution's token. Outside a step (no
    /// `function_executed`, no button with `function_data`) the handler fails with a misuse.
    pub fn complete(&mut self, outputs: Value) -> Option<EffectRef<'_>> {
        self.end_step(StepEnd::Success { outputs })
    }

    /// Ends this request's Workflow step with an error the workflow's user reads:
    /// `functions.completeError`.
    pub fn fail(&mut self, error: &str) -> Option<EffectRef<'_>> {
        self.end_step(StepEnd::Error { error: error.to_string() })
    }

    fn end_step(&mut self, end: StepEnd) -> Option<EffectRef<'_>> {
        let Some(execution_id) = self.origin().step_execution.clone() else {
            self.note_misuse("complete/fail: this request is not a Workflow step's (no function_executed, no function_data)");
            return None;
        };
        let action = Action::StepEnd { execution_id: execution_id.clone(), end };
        Some(self.push_keyed(end_key(&execution_id), action, None))
    }
}

#[cfg(test)]
mod tests;
