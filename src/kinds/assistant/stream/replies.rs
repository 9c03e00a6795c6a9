//! How Slack's reply to a call moves the answer on: a call that landed delivers what it carried
//! (its text to `delivered`, its task updates to the message's tasks); a 429 or a transient
//! failure puts its chunks back to go again; a refusal closes the message, falls back to posting,
//! rolls over (`msg_too_long`), or ends the answer.
//!
//! Invariant: after every reply, each chunk the model gave is in exactly one place — delivered,
//! in flight (only between [`Answer::next`] and [`Answer::replied`]), or back in the buffer.

use super::super::chunks::{apply, tasks_of, Chunk, Task};
use super::{Answer, Call, End, Mode, Phase, Reply, MSG_TOO_LONG, NOT_STREAMING, NO_STREAMING, STILL_STREAMING, STOPPED_BY_USER};

impl Answer {
    /// Slack's reply to the call [`Answer::next`] asked for.
    pub fn replied(&mut self, reply: Reply, now: i64) {
        let Some(call) = self.calling.take() else { return };
        match reply {
            Reply::Ok { ts } => self.landed(call, ts),
            Reply::RateLimited { retry_after_ms } => {
                self.hold_until = now + retry_after_ms.max(0);
                self.again(call);
            }
            Reply::Transient(why) => self.transient(call, why, now),
            Reply::Refused(code) => self.refused(call, code),
        }
    }

    fn landed(&mut self, call: Call, ts: Option<String>) {
        self.transient = 0;
        self.taken.clear();
        match call {
            Call::Start { chunks } => {
                self.opened(ts);
                self.deliver_in_flight(&tasks_of(&chunks));
            }
            Call::Post { tasks, .. } => {
                self.opened(ts);
                self.deliver_in_flight(&tasks);
            }
            Call::Append { chunks, .. } => self.deliver_in_flight(&tasks_of(&chunks)),
            Call::Update { tasks, .. } => {
                let closing = self.cp.open.as_ref().is_some_and(|o| o.phase == Phase::Closing);
                self.deliver_in_flight(&tasks);
                if closing {
                    self.close_message();
                }
            }
            Call::Stop { last, tasks, .. } => self.stopped(last, Some(&tasks)),
            Call::Find { .. } => self.found(ts),
        }
    }

    /// The call creating the open message landed: it has its `ts`.
    fn opened(&mut self, ts: Option<String>) {
        if let Some(open) = self.cp.open.as_mut() {
            open.ts = ts;
        }
    }

    /// The call in flight landed: its text is delivered, and the task updates it carried
    /// (`updates`; none for the `chat.update` of a streamed message, which sets only its text)
    /// are what the message shows.
    fn deliver_in_flight(&mut self, updates: &[Task]) {
        let text = std::mem::take(&mut self.cp.in_flight);
        self.cp.delivered.push_str(&text);
        if updates.is_empty() {
            return;
        }
        self.cp.in_flight_tasks.clear();
        if let Some(open) = self.cp.open.as_mut() {
            apply(&mut open.tasks, updates);
        }
    }

    /// The open stream is stopped — with `landed` task updates, or closed without them (Slack had
    /// closed it, or refused more of it): done, or its text still to be set, or the next one to
    /// open.
    fn stopped(&mut self, last: bool, landed: Option<&[Task]>) {
        if let Some(tasks) = landed.filter(|t| !t.is_empty()) {
            self.deliver_tasks(tasks);
        }
        if !self.cp.in_flight.is_empty() {
            self.phase(Phase::Closing);
            return;
        }
        self.close_message();
        if self.user_stopped {
            self.ended = Some(End::StoppedByUser);
        } else if last && self.pending.is_empty() {
            self.ended = Some(End::Done);
        } else if let Some(why) = self.model_failed.clone().filter(|_| self.pending.is_empty()) {
            self.ended = Some(End::Retry(why));
        }
    }

    /// A stop's task updates landed: the message shows them, and the tasks they end are no
    /// longer the model's to end.
    fn deliver_tasks(&mut self, tasks: &[Task]) {
        self.cp.in_flight_tasks.clear();
        if let Some(open) = self.cp.open.as_mut() {
            apply(&mut open.tasks, tasks);
        }
        self.model_open.retain(|m| !tasks.iter().any(|t| t.id == m.id && t.status.is_final()));
    }

    /// What [`Call::Find`] found of a message whose creation was in flight.
    fn found(&mut self, ts: Option<String>) {
        let mode = self.cp.mode;
        let Some(open) = self.cp.open.as_mut() else { return };
        match ts {
            Some(ts) => {
                open.ts = Some(ts);
                open.phase = match mode {
                    Mode::Stream => Phase::Stopping { last: false },
                    Mode::Fallback => Phase::Closing,
                };
            }
            None => {
                // Never created: none of it showed. The continuation says the text after the
                // delivered text again; the task updates go out with the next message (a task the
                // continuation reports again is known: it is not added twice).
                self.cp.open = None;
                self.cp.in_flight.clear();
                let tasks = std::mem::take(&mut self.cp.in_flight_tasks);
                if !tasks.is_empty() {
                    self.pending.put_back(tasks.into_iter().map(Chunk::Task).collect());
                    self.buffered_since = Some(i64::MIN);
                }
            }
        }
    }

    /// Makes a call again later: its chunks go back to the head of the buffer, to go out with
    /// the next call (a message it would have opened is opened then); a call without chunks is
    /// simply made again.
    fn again(&mut self, call: Call) {
        let closing = self.cp.open.as_ref().is_some_and(|o| !matches!(o.phase, Phase::Streaming | Phase::Posted));
        if matches!(call, Call::Stop { .. } | Call::Find { .. }) || closing {
            return; // closing_call makes it again, from the checkpoint
        }
        self.pending.put_back(std::mem::take(&mut self.taken));
        self.cp.in_flight.clear();
        self.cp.in_flight_tasks.clear();
        self.buffered_since = Some(i64::MIN);
        if matches!(call, Call::Start { .. } | Call::Post { .. }) {
            self.cp.open = None;
        }
    }

    fn transient(&mut self, call: Call, why: String, now: i64) {
        self.transient += 1;
        if self.transient >= self.policy.max_transient {
            self.ended = Some(End::Retry(why));
            return;
        }
        self.hold_until = now + 500 * (1_i64 << self.transient.min(6));
        self.again(call);
    }

    fn refused(&mut self, call: Call, code: String) {
        match (code.as_str(), &call) {
            (STOPPED_BY_USER, _) => {
                self.cp.in_flight.clear();
                self.cp.in_flight_tasks.clear();
                self.cp.open = None;
                self.ended = Some(End::StoppedByUser);
            }
            (c, Call::Start { .. }) if NO_STREAMING.contains(&c) => {
                self.cp.mode = Mode::Fallback;
                self.again(call);
            }
            (MSG_TOO_LONG, _) => self.too_long(call, code),
            // Slack closed the stream (its lifetime): set the message to what it should show,
            // then go on in a new one. The in-flight text stays in flight: the update carries it;
            // the in-flight task updates go to the next message with its open tasks.
            (NOT_STREAMING, Call::Append { .. }) => self.phase(Phase::Closing),
            (NOT_STREAMING, Call::Stop { last, .. }) => self.stopped(*last, None),
            // Still streaming (a stop that did not land): stop it first, then set its text.
            (STILL_STREAMING, Call::Update { .. }) => self.phase(Phase::Stopping { last: false }),
            _ => self.ended = Some(End::Refused(code)),
        }
    }

    /// `msg_too_long`: the message takes no more. An append's chunks go to a new message (the
    /// open one is stopped, bare, and treated as closed whatever the stop answers); a stop's task
    /// updates are dropped from it; a first call with several chunks is made again with half as
    /// many. Slack refusing a single chunk in a message of its own parks the answer.
    fn too_long(&mut self, call: Call, code: String) {
        match &call {
            Call::Append { .. } => {
                self.again(call);
                self.full = true;
                self.phase(Phase::Stopping { last: false });
            }
            Call::Stop { tasks, .. } if !tasks.is_empty() => self.full = true,
            Call::Stop { last, .. } => self.stopped(*last, None),
            Call::Start { .. } if self.taken.len() > 1 => {
                self.chunk_cap = (self.taken.len() / 2).max(1);
                self.again(call);
            }
            _ => self.ended = Some(End::Refused(code)),
        }
    }
}
