//! What the actor keeps of a streamed answer ([`Checkpoint`]), written before every Slack call
//! and read by the next attempt. It is stored as JSON (table `answers`), so a field is only ever
//! added, with a default, and a release that does not know a new field ignores it: an answer with
//! no tasks writes exactly what the release before tasks wrote.
//!
//! **The accounting.** Text is appended by Slack, so the checkpoint keeps it exactly: `delivered`
//! (everything Slack accepted, over every message) and `in_flight` (the text of the call being
//! made, written before it). Task updates replace a task's status in the message that shows it
//! ([`super::super::chunks`]), so it keeps, per open message, each task's status as Slack last
//! accepted it (`Open::tasks`), the task updates of the call being made (`in_flight_tasks`), and
//! the ids of tasks finished in earlier messages (`done_tasks`). A resumed attempt re-sends the
//! in-flight updates with the open message's `chat.stopStream` (harmless if they landed: the same
//! status again), and ends the tasks still open there; so no update is lost, and none repeated.

use super::super::chunks::{apply, Task};
use serde::{Deserialize, Serialize};

/// How the answer reaches Slack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// `chat.startStream` / `appendStream` / `stopStream`.
    Stream,
    /// `chat.postMessage` then `chat.update` (streaming refused).
    Fallback,
}

/// Where the open message stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Streaming: text is appended to it.
    Streaming,
    /// Posted (the fallback): text is added with `chat.update`.
    Posted,
    /// Its stream must be stopped before anything else (a roll-over, a recovery, a conflict,
    /// `msg_too_long`).
    Stopping {
        /// The answer ends with it (the feedback buttons).
        last: bool,
    },
    /// Stopped or closed by Slack: its text is set to `shown + in_flight` with `chat.update`,
    /// and then it is done.
    Closing,
}

/// The message the answer is being written into.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Open {
    /// Its `ts`; `None` while the call that creates it is in flight.
    pub ts: Option<String>,
    /// Where its text begins in `delivered` (bytes).
    pub start: usize,
    /// When it was opened (epoch ms).
    pub opened_at: i64,
    /// Where it stands.
    pub phase: Phase,
    /// The tasks it shows, each with the status Slack last accepted for it, in the order shown.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<Task>,
}

/// What the actor keeps of a streamed answer, written before every Slack call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// How it reaches Slack.
    pub mode: Mode,
    /// All the text Slack has accepted, over every message of the answer.
    pub delivered: String,
    /// The text of the call being made (it may or may not have landed).
    pub in_flight: String,
    /// The open message, if any.
    pub open: Option<Open>,
    /// The model has finished and all its output is in `delivered` or `in_flight` (text) and in
    /// the messages' tasks.
    pub complete: bool,
    /// The task updates of the call being made (they may or may not have landed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub in_flight_tasks: Vec<Task>,
    /// The tasks ended in messages already closed (ids): a continuation of the model that reports
    /// one again adds nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub done_tasks: Vec<String>,
}

impl Default for Checkpoint {
    fn default() -> Self {
        Checkpoint {
            mode: Mode::Stream,
            delivered: String::new(),
            in_flight: String::new(),
            open: None,
            complete: false,
            in_flight_tasks: Vec::new(),
            done_tasks: Vec::new(),
        }
    }
}

impl Checkpoint {
    /// The text the open message shows (without what is in flight).
    pub(super) fn shown(&self) -> &str {
        self.open.as_ref().map_or("", |o| &self.delivered[o.start..])
    }

    /// The open message's tasks as they are once the call in flight has landed.
    pub(super) fn tasks_after_flight(&self) -> Vec<Task> {
        let mut tasks = self.open.as_ref().map(|o| o.tasks.clone()).unwrap_or_default();
        apply(&mut tasks, &self.in_flight_tasks);
        tasks
    }

    /// Whether the answer has shown anything yet (text, or a task).
    pub(super) fn showed_anything(&self) -> bool {
        !self.delivered.is_empty() || !self.done_tasks.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_without_tasks_is_written_as_before_tasks_and_an_old_one_reads() {
        let old = r#"{"mode":"stream","delivered":"Hi","in_flight":" there","open":{"ts":"1.2","start":0,"opened_at":5,"phase":"streaming"},"complete":false}"#;
        let cp: Checkpoint = serde_json::from_str(old).unwrap();
        assert!(cp.in_flight_tasks.is_empty() && cp.done_tasks.is_empty() && cp.open.as_ref().unwrap().tasks.is_empty());
        assert_eq!(serde_json::to_string(&cp).unwrap(), old, "no new field is written for an answer without tasks");
    }
}
