//! An effect's answer, back to the app (issue 54, goal 1): a handler names a result listener on
//! any effect it queues (`cx.api("users.info", …).then("tz_known", &data)`), and the app's
//! `.on_result("tz_known", |answered, cx| …)` runs with Slack's answer — or the failure that
//! parked the effect — and the data the handler attached.
//!
//! **Where it runs.** In the team actor, in the effect's own fenced completion: once the effect
//! ends (done, or parked), the sweep runs the listener and stores what it decided — its effects,
//! its state change — with the row's transition, one unit, only if the claim still held
//! (`runtime::sweep::attempt`). A retry of the effect runs nothing; a crash before the unit
//! commits leaves the row to be attempted again and its listener to run then, stored with that
//! attempt's completion instead (its effects are keyed by the answer's fact,
//! `answer:{row key}@{claimed at}`, its state change applied once per fact), so what the listener
//! decides is stored once per end of the effect.
//!
//! **When the listener fails** (an `Err`, a panic, or no listener of that name in this release),
//! the row is parked (`handler_failed`, `no_listener`) with the answer kept in its payload
//! ([`crate::kinds::registry::Action::Answer`]): a redrive runs the listener again on the kept
//! answer, never the effect.
//!
//! Invariant: an effect with a listener is performed exactly as the same effect without one (the
//! wrapper [`crate::kinds::registry::Action::Then`] is read through, as a schedule's is); only its
//! end differs.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a result listener (`.on_result(name, …)`) receives: the effect's end and the app's data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Answered {
    /// The listener's name (`.then(name, …)`).
    pub listener: String,
    /// The effect's idempotency key (its row's).
    pub key: String,
    /// How the effect ended.
    pub outcome: Ended,
    /// The data the handler attached (`.then(name, &data)`), as JSON.
    data: Value,
    /// When the attempt that ended the effect was claimed (epoch ms): an operator's redrive of a
    /// parked effect ends it again, in a later attempt, and its listener's decision is a new one.
    #[serde(default)]
    attempt_at: i64,
}

/// How an effect ended, as its result listener sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "ended", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Ended {
    /// It succeeded: Slack's (or the service's) answer, its JSON (`null` when it had none).
    Answered {
        /// The answer.
        answer: Value,
    },
    /// It was parked: it failed for good, or ran out of attempts or time.
    Failed(Failure),
}

/// Why an effect was parked, as its result listener sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Failure {
    /// The last attempt's error code (`user_not_found`, `http_500`, `timeout`), if it had one.
    pub error: Option<String>,
    /// Why the row was parked (`permanent`, `max_attempts`, `expired`, …).
    pub reason: String,
    /// The attempts made.
    pub attempts: u32,
}

impl Failure {
    /// A row parked for `reason` after `attempts`, its last error `error`.
    pub(crate) fn new(error: Option<String>, reason: &str, attempts: u32) -> Failure {
        Failure { error, reason: reason.into(), attempts }
    }
}

impl Answered {
    /// The end of the effect keyed `key` in its attempt claimed at `attempt_at`, for `listener`,
    /// with the handler's `data`.
    pub(crate) fn new(listener: &str, key: &str, attempt_at: i64, outcome: Ended, data: Value) -> Answered {
        Answered { listener: listener.into(), key: key.into(), outcome, data, attempt_at }
    }

    /// Slack's (or the service's) answer, when the effect succeeded.
    pub fn answer(&self) -> Option<&Value> {
        match &self.outcome {
            Ended::Answered { answer } => Some(answer),
            Ended::Failed(_) => None,
        }
    }

    /// Why the effect was parked, when it failed.
    pub fn failure(&self) -> Option<&Failure> {
        match &self.outcome {
            Ended::Failed(failure) => Some(failure),
            Ended::Answered { .. } => None,
        }
    }

    /// The data the handler attached, read as `T`: an error in words when it does not read as one
    /// (a release that changed the type while the effect was queued).
    pub fn data<T: DeserializeOwned>(&self) -> Result<T, DataError> {
        serde_json::from_value(self.data.clone())
            .map_err(|e| DataError(format!("the data of result listener {:?} does not read as expected: {e}", self.listener)))
    }

    /// The fact the listener's effects and state change are keyed by: one per end of the
    /// effect (`answer:{key}@{the ending attempt's claim time}`). Only the completion of the
    /// attempt that ended the effect stores what the listener decided, once (fenced); a crash
    /// before it commits ends the effect in a later attempt, whose completion stores it instead.
    /// An operator's redrive of a parked effect ends it again (a redrive counts its attempts from
    /// 0 again, so the claim's time tells the ends apart): its listener's new decision is its own.
    pub fn fact(&self) -> String {
        format!("answer:{}@{}", self.key, self.attempt_at)
    }
}

/// The data a handler attached to an effect does not read as the type asked for ([`Answered::data`]);
/// `?` in a listener fails it with these words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataError(pub String);

impl std::fmt::Display for DataError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DataError {}

#[cfg(test)]
mod tests;
