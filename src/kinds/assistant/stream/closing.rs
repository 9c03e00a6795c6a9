//! Closing the open message: the call that closes it while it is being closed (a stop, the
//! `chat.update` that sets its text, the search for a message whose creation was in flight), what
//! its `chat.stopStream` says of its tasks, and what closing it leaves — its ended tasks done,
//! those still open shown again at the head of the next message.

use super::super::chunks::{apply, Chunk, Task, TaskStatus};
use super::{Answer, Call, End, Mode, Open, Phase, Step};

impl Answer {
    /// The call that closes the open message, while it is being closed (or must be found).
    pub(super) fn closing_call(&mut self) -> Option<Step> {
        let open = self.cp.open.clone()?;
        let Some(ts) = open.ts else {
            return Some(Step::Call(Call::Find { since: open.opened_at }));
        };
        match open.phase {
            Phase::Streaming | Phase::Posted => None,
            Phase::Stopping { last } => Some(Step::Call(Call::Stop { ts, last, tasks: self.closing_tasks() })),
            Phase::Closing if !self.closing_update_due() => {
                self.close_message();
                self.after_close()
            }
            Phase::Closing => {
                let text = format!("{}{}", self.cp.shown(), self.cp.in_flight);
                let tasks = match self.cp.mode {
                    Mode::Stream => Vec::new(),
                    Mode::Fallback => self.cp.tasks_after_flight().iter().map(|t| t.ended(self.closing_status())).collect(),
                };
                Some(Step::Call(Call::Update { ts, text, tasks }))
            }
        }
    }

    /// Whether a message being closed still needs its `chat.update`: text in flight, or (posted)
    /// task lines not yet ended.
    pub(super) fn closing_update_due(&self) -> bool {
        let posted_tasks_open = self.cp.mode == Mode::Fallback && self.cp.tasks_after_flight().iter().any(|t| !t.status.is_final());
        !self.cp.in_flight.is_empty() || posted_tasks_open || (self.cp.mode == Mode::Fallback && !self.cp.in_flight_tasks.is_empty())
    }

    /// The status the tasks still open in a closing message end with.
    pub(super) fn closing_status(&self) -> TaskStatus {
        if self.model_failed.is_some() || self.user_stopped {
            TaskStatus::Error
        } else {
            TaskStatus::Complete
        }
    }

    /// What the open message's `chat.stopStream` says of its tasks: the in-flight updates again
    /// (they may not have landed) and the end of those still open; nothing once Slack refused more
    /// of the message.
    pub(super) fn closing_tasks(&self) -> Vec<Task> {
        if self.full {
            return Vec::new();
        }
        let status = self.closing_status();
        let in_flight = &self.cp.in_flight_tasks;
        let resent = |t: &Task| in_flight.iter().any(|f| f.id == t.id);
        self.cp.tasks_after_flight().into_iter().filter(|t| !t.status.is_final() || resent(t)).map(|t| t.ended(status)).collect()
    }

    /// After [`Answer::stop`], with nothing being closed: stop the open stream (the answer's
    /// last), or end.
    pub(super) fn close_stopped(&mut self) -> Step {
        match self.cp.open.clone() {
            Some(Open { ts: Some(ts), phase: Phase::Streaming, .. }) => self.stopping(ts, true),
            _ => {
                self.cp.open = None;
                Step::Finished(End::StoppedByUser)
            }
        }
    }

    /// Once a message is closed: end the attempt if the model failed, else go on.
    pub(super) fn after_close(&mut self) -> Option<Step> {
        if self.user_stopped {
            return Some(Step::Finished(End::StoppedByUser));
        }
        let why = self.model_failed.clone().filter(|_| self.pending.is_empty())?;
        Some(Step::Finished(End::Retry(why)))
    }

    /// Closes the open message in the checkpoint: its ended tasks are done; those still open, and
    /// task updates whose call may not have landed, are shown again at the head of the next
    /// message.
    pub(super) fn close_message(&mut self) {
        let Some(open) = self.cp.open.take() else { return };
        let in_flight = std::mem::take(&mut self.cp.in_flight_tasks);
        let mut carried: Vec<Task> = Vec::new();
        for task in open.tasks {
            if task.status.is_final() && !in_flight.iter().any(|f| f.id == task.id) {
                self.cp.done_tasks.push(task.id);
            } else {
                carried.push(task);
            }
        }
        apply(&mut carried, &in_flight);
        if !carried.is_empty() {
            self.pending.put_back(carried.into_iter().map(Chunk::Task).collect());
            self.buffered_since = Some(i64::MIN);
        }
    }

    /// Stops the open stream (`last`: the answer ends with it).
    pub(super) fn stopping(&mut self, ts: String, last: bool) -> Step {
        self.phase(Phase::Stopping { last });
        Step::Call(Call::Stop { ts, last, tasks: self.closing_tasks() })
    }
}
