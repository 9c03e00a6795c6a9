//! The fallback: where Slack refuses to stream, the answer is posted (`chat.postMessage`) and
//! grown with `chat.update`, no more often than [`super::Policy::update_every_ms`], its tasks as
//! lines above its text; a message that holds [`super::Policy::max_call_chars`] is full, and the
//! rest goes into a new one.

use super::super::chunks::{apply, tasks_of, text_of, Task};
use super::{Answer, Call, Phase, Step, MAX_CHAR_BYTES};

impl Answer {
    /// The next step of a posted answer.
    pub(super) fn next_posted(&mut self, now: i64) -> Step {
        let Some(open) = self.cp.open.clone() else {
            if self.flush_due(now) {
                let chunks = self.take(self.policy.max_call_chars);
                self.open_message(now, Phase::Posted);
                self.updated_at = now;
                // A call's chunks hold each task once (`take`): they are the message's tasks.
                return Step::Call(Call::Post { text: text_of(&chunks), tasks: tasks_of(&chunks) });
            }
            return self.idle(now);
        };
        let ts = open.ts.expect("an open message has its ts outside closing_call");
        let shown = self.cp.shown().len();
        if shown + MAX_CHAR_BYTES > self.policy.max_call_chars && !self.pending.is_empty() {
            // Full: the rest goes into a new message.
            self.close_message();
            return self.next_posted(now);
        }
        let ending = self.model_done || self.model_failed.is_some();
        if self.flush_due(now) && (ending || now.saturating_sub(self.updated_at) >= self.policy.update_every_ms) {
            let chunks = self.take(self.policy.max_call_chars - shown);
            self.updated_at = now;
            let mut tasks = open.tasks;
            apply(&mut tasks, &tasks_of(&chunks));
            return Step::Call(Call::Update { ts, text: format!("{}{}", self.cp.shown(), text_of(&chunks)), tasks });
        }
        if self.pending.is_empty() && ending {
            if self.end_posted_tasks() {
                return self.next_posted(now);
            }
            self.close_message();
            return self.idle(now);
        }
        match self.buffered_since {
            Some(t) => Step::Read(Some(t.saturating_add(self.policy.flush_ms).max(self.updated_at.saturating_add(self.policy.update_every_ms)))),
            None => Step::Read(None),
        }
    }

    /// At the end of a posted answer: queues the end of the tasks its message still shows open
    /// (tasks a dead attempt left, or shown again from a full message); whether there were any.
    pub(super) fn end_posted_tasks(&mut self) -> bool {
        let status = self.closing_status();
        let open: Vec<Task> = self.cp.open.iter().flat_map(|o| o.tasks.iter()).filter(|t| !t.status.is_final()).map(|t| t.ended(status)).collect();
        let any = !open.is_empty();
        for task in open {
            self.pending.push_task(task);
        }
        any
    }
}
