//! A streamed answer's state machine, with no I/O: it is fed the model's text and tool calls and
//! Slack's replies and says which Slack call to make next ([`Step`]). The adapter performs each
//! call, writes the [`Checkpoint`] before it (fenced by the row's claim), and feeds the reply back.
//!
//! **The shape of an answer.** The model's output — text, and the tools it reports calling, each
//! shown as a task (`in_progress` when the call starts, `complete` when the model moves on: to
//! text, to the next call, or to its end; `error` if it fails) — is buffered in the order it came
//! ([`super::chunks::Pending`]) and flushed by size or by time ([`Policy`]): the first flush opens
//! the message (`chat.startStream`, in the thread), later ones append to it
//! (`chat.appendStream`, at most [`Policy::max_call_chars`] of text and
//! [`Policy::max_call_chunks`] chunks each), and the end closes it (`chat.stopStream`, with the
//! feedback buttons). A message that has streamed for [`Policy::rollover_ms`], or that Slack
//! refuses more of (`msg_too_long`), is closed and the answer continues in a new message in the
//! same thread. Where Slack refuses to stream, the answer is posted (`chat.postMessage`) and grown
//! with `chat.update` no more often than [`Policy::update_every_ms`], its tasks as lines above the
//! text.
//!
//! **A message never closes with a task left open in it** when Slack lets us say so: the
//! `stopStream` that closes it ends the tasks still open (`complete`; `error` when the model
//! failed or the user stopped it). Where Slack closed the message under us (its lifetime,
//! `msg_too_long`), nothing more can be said in it: its open tasks are shown again, with their
//! next status, at the head of the next message.
//!
//! **What survives a crash.** The checkpoint holds the text Slack has been given (`delivered`),
//! the text and task updates of the call being made (`in_flight`, `in_flight_tasks`: written
//! *before* the call, so whether or not it landed, the next attempt knows the most the message may
//! show), the open message's `ts` and the status of each task it shows (`checkpoint.rs`).
//! [`Answer::resume`] turns a checkpoint left by a dead attempt into calls that leave one coherent
//! answer: the open stream is stopped — re-sending the in-flight task updates and ending its open
//! tasks —, and when text was in flight its message is set to exactly `delivered + in_flight` with
//! `chat.update`; if the model had not finished, the answer continues in a new message (the model
//! is asked to continue from the delivered text; a task it reports again by the same id adds
//! nothing). A message whose `chat.startStream` was in flight without its `ts` being recorded is
//! found in the thread first ([`Call::Find`]). So: never two full answers, never a message left
//! streaming, never a task shown twice in a message.
//!
//! **Invariants.** Nothing is dropped: a 429 or a transient failure puts the call's chunks back at
//! the head of the buffer. After `stopped_by_user` no call is made. Every call's text is at most
//! `max_call_chars`. A finished answer makes no call.

mod checkpoint;
mod closing;
mod posted;
mod replies;
mod step;

pub use checkpoint::{Checkpoint, Mode, Open, Phase};
pub use step::{Call, End, Reply, Step};

use super::chunks::{compact, tasks_of, text_of, Chunk, Pending, Task, TaskStatus};
use std::collections::BTreeSet;

/// The knobs, with Slack's limits as defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// Flush once this many characters are buffered (bolt-js's `ChatStreamer` buffers 256).
    pub flush_chars: usize,
    /// ... or once the oldest buffered text (or task update) has waited this long.
    pub flush_ms: i64,
    /// `markdown_text` is capped at 12,000 characters a call.
    pub max_call_chars: usize,
    /// The most chunks (text runs and task updates) one call carries: 50, as Slack's `blocks`
    /// chunk takes at most 50 blocks (no limit on a call's chunks is documented). A call Slack
    /// answers `msg_too_long` at a message's start is made again with half as many.
    pub max_call_chunks: usize,
    /// Close a message that has streamed this long and continue in a new one (Slack closes
    /// streams after about 5 minutes).
    pub rollover_ms: i64,
    /// In the fallback, the least time between two `chat.update`s of the message.
    pub update_every_ms: i64,
    /// Transient failures of one call in a row before the attempt gives up (the row retries and
    /// resumes from the checkpoint).
    pub max_transient: u32,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            flush_chars: 256,
            flush_ms: 1_000,
            max_call_chars: 12_000,
            max_call_chunks: 50,
            rollover_ms: 270_000,
            update_every_ms: 1_500,
            max_transient: 3,
        }
    }
}

/// Slack errors that mean "streaming is not available here": use the fallback.
pub(crate) const NO_STREAMING: &[&str] =
    &["method_not_supported_for_channel_type", "not_allowed_token_type", "feature_not_enabled", "unknown_method", "streaming_mode_mismatch"];
/// The user pressed Stop on the stream: no call is made after it.
pub(crate) const STOPPED_BY_USER: &str = "stopped_by_user";
/// The message takes no more: the answer rolls over into a new one.
pub(crate) const MSG_TOO_LONG: &str = "msg_too_long";
/// Slack closed the stream (its lifetime): the message is set, the answer goes on in a new one.
pub(crate) const NOT_STREAMING: &str = "message_not_in_streaming_state";
/// The message still streams (a stop that did not land): stop it first.
pub(crate) const STILL_STREAMING: &str = "streaming_state_conflict";
/// Every refusal the state machine treats apart from any other (`replies.rs`); each is one the
/// classifier makes permanent, so it reaches the machine as a [`Reply::Refused`]
/// (`crate::kinds::slack_errors` holds it). Slack's "try again" errors never do: the classifier
/// makes them transient, and the machine retries them as any transient failure.
#[cfg(test)]
pub(crate) const REFUSALS: &[&str] = &[STOPPED_BY_USER, MSG_TOO_LONG, NOT_STREAMING, STILL_STREAMING];
/// The text of an answer the model gave nothing for.
pub const EMPTY_ANSWER: &str = "_(no answer)_";
/// A task's title is the tool's name, cut to this many characters.
const MAX_TITLE_CHARS: usize = 200;
/// A UTF-8 character is at most this many bytes: a posted message with less room than this left
/// is full.
const MAX_CHAR_BYTES: usize = 4;

/// One streamed answer in progress.
#[derive(Debug, Clone)]
pub struct Answer {
    cp: Checkpoint,
    policy: Policy,
    /// The model's output not yet handed to Slack.
    pending: Pending,
    /// When the oldest buffered chunk arrived.
    buffered_since: Option<i64>,
    /// When the fallback message was last updated.
    updated_at: i64,
    model_done: bool,
    /// Why the model stopped early (the stream broke, or hung).
    model_failed: Option<String>,
    /// The call in flight.
    calling: Option<Call>,
    /// What the call in flight took off the buffer (a 429 puts it back).
    taken: Vec<Chunk>,
    hold_until: i64,
    transient: u32,
    ended: Option<End>,
    /// The user pressed Stop ([`Answer::stop`]).
    user_stopped: bool,
    /// The tasks the model reported and has not moved on from, while they are open.
    model_open: Vec<Task>,
    /// Every task id the answer has seen: a continuation that reports one again adds nothing.
    known: BTreeSet<String>,
    /// Slack refused more of the open message (`msg_too_long`): its stop carries no chunks.
    full: bool,
    /// The most chunks a call takes ([`Policy::max_call_chunks`], halved by `msg_too_long`).
    chunk_cap: usize,
}

impl Answer {
    /// A new answer.
    pub fn new(policy: Policy) -> Answer {
        Answer::from(Checkpoint::default(), policy)
    }

    fn from(cp: Checkpoint, policy: Policy) -> Answer {
        let model_done = cp.complete;
        let known = cp.done_tasks.iter().cloned().chain(cp.tasks_after_flight().into_iter().map(|t| t.id)).collect();
        Answer {
            cp,
            policy,
            pending: Pending::default(),
            buffered_since: None,
            updated_at: i64::MIN,
            model_done,
            model_failed: None,
            calling: None,
            taken: Vec::new(),
            hold_until: i64::MIN,
            transient: 0,
            ended: None,
            user_stopped: false,
            model_open: Vec::new(),
            known,
            full: false,
            chunk_cap: policy.max_call_chunks.max(1),
        }
    }

    /// Picks up the checkpoint a dead (or fenced) attempt left. The calls that close what it left
    /// open come first; then — unless the model had finished — the answer continues in a new
    /// message, for which the model is asked to continue from [`Answer::continues_from`].
    pub fn resume(mut cp: Checkpoint, policy: Policy) -> Answer {
        let last = cp.complete && cp.in_flight.is_empty();
        if let Some(open) = cp.open.as_mut() {
            open.phase = match (open.ts.is_some(), open.phase) {
                // Not known yet: [`Call::Find`] comes first, and decides.
                (false, phase) => phase,
                (true, Phase::Streaming) => Phase::Stopping { last },
                (true, Phase::Posted) => Phase::Closing,
                (true, phase) => phase,
            };
        }
        Answer::from(cp, policy)
    }

    /// The text a continuation follows: what Slack shows of the answer. Ask the model at the
    /// first [`Step::Read`] after [`Answer::resume`], once what a dead attempt left is settled.
    pub fn continues_from(&self) -> Option<&str> {
        Some(self.cp.delivered.as_str()).filter(|t| !t.is_empty())
    }

    /// The checkpoint to write before the next call.
    pub fn checkpoint(&self) -> &Checkpoint {
        &self.cp
    }

    /// More of the model's text: the model moved on from the tools it was calling.
    pub fn text(&mut self, piece: &str, now: i64) {
        if piece.is_empty() || self.ended.is_some() || self.user_stopped {
            return;
        }
        self.moves_on(TaskStatus::Complete);
        self.buffered_since.get_or_insert(now);
        self.pending.push_text(piece);
    }

    /// The model called the tool `name` (slackline does not run it: it shows what the model
    /// reports): a task, `in_progress` until the model moves on, flushed at once with what the
    /// buffer holds before it. `id` is the model's tool call id (one is made up when it gives
    /// none); an id the answer has seen adds nothing (a continuation reporting a call again).
    pub fn tool_call(&mut self, id: Option<&str>, name: &str) {
        if self.ended.is_some() || self.user_stopped {
            return;
        }
        let id = id.filter(|i| !i.is_empty()).map_or_else(|| self.fresh_task_id(), str::to_string);
        if !self.known.insert(id.clone()) {
            return self.reported_again(id);
        }
        self.moves_on(TaskStatus::Complete);
        let title: String = if name.is_empty() { "tool".into() } else { name.chars().take(MAX_TITLE_CHARS).collect() };
        let task = Task { id, title, status: TaskStatus::InProgress };
        self.model_open.push(task.clone());
        self.pending.push_task(task);
        // Shown at once: the buffer is due (a task in progress is worth a call of its own).
        self.buffered_since = Some(i64::MIN);
    }

    /// A continuation reported a task the answer knows: nothing is shown again, but if the task is
    /// still open, it is the model's to end when it moves on.
    fn reported_again(&mut self, id: String) {
        let waiting = self.pending.last_update(&id).cloned();
        let shown = || self.cp.tasks_after_flight().into_iter().find(|t| t.id == id);
        let open = waiting.or_else(shown).filter(|t| !t.status.is_final());
        if let Some(task) = open.filter(|t| !self.model_open.iter().any(|m| m.id == t.id)) {
            self.moves_on(TaskStatus::Complete);
            self.model_open.push(task);
        }
    }

    /// A task id no task of the answer has.
    fn fresh_task_id(&self) -> String {
        (self.known.len()..).map(|n| format!("task-{n}")).find(|id| !self.known.contains(id)).expect("an unused id")
    }

    /// The model moved on: the tasks it had open end with `status`.
    fn moves_on(&mut self, status: TaskStatus) {
        for task in std::mem::take(&mut self.model_open) {
            self.pending.push_task(task.ended(status));
        }
    }

    /// The model finished.
    pub fn model_done(&mut self) {
        self.moves_on(TaskStatus::Complete);
        self.model_done = true;
    }

    /// The model's stream broke or hung: its open tasks end in `error`, what is buffered is
    /// delivered, the message closed, and the attempt ends so that the row retries (and continues).
    pub fn model_failed(&mut self, why: &str) {
        self.moves_on(TaskStatus::Error);
        self.model_failed = Some(why.to_string());
    }

    /// The user pressed Stop (`agent_session_stopped`, recorded before this was called; between
    /// calls, never during one): nothing more of the model is sent — what is buffered is dropped —
    /// and the answer ends [`End::StoppedByUser`] once the open message is closed: a stream with
    /// `chat.stopStream` (the text shown so far, its open tasks ended as `error`), a call in
    /// flight's message set to its text first, a posted message left as it shows. An answer that
    /// sent nothing ends at once.
    pub fn stop(&mut self) {
        if self.ended.is_some() {
            return;
        }
        self.user_stopped = true;
        self.pending.clear();
        self.buffered_since = None;
    }

    /// Whether the user stopped it.
    pub fn stopped_by_user(&self) -> bool {
        self.user_stopped
    }

    /// What to do next, at `now`.
    pub fn next(&mut self, now: i64) -> Step {
        if let Some(end) = &self.ended {
            return Step::Finished(end.clone());
        }
        if self.hold_until > now {
            return Step::Wait(self.hold_until);
        }
        let step = match self.closing_call() {
            Some(step) => step,
            None if self.user_stopped => self.close_stopped(),
            None => match self.cp.mode {
                Mode::Stream => self.next_streamed(now),
                Mode::Fallback => self.next_posted(now),
            },
        };
        match &step {
            Step::Call(call) => self.calling = Some(call.clone()),
            Step::Finished(end) => self.ended = Some(end.clone()),
            _ => {}
        }
        step
    }

    /// Whether the buffer should go to Slack now.
    fn flush_due(&self, now: i64) -> bool {
        !self.pending.is_empty()
            && (self.pending.text_len() >= self.policy.flush_chars
                || self.model_done
                || self.model_failed.is_some()
                || self.buffered_since.is_some_and(|t| now.saturating_sub(t) >= self.policy.flush_ms))
    }

    /// Takes the next call's chunks off the buffer (at most `room` bytes of text, on a character
    /// boundary) and writes them ahead as in flight; a task updated twice in them is sent once.
    fn take(&mut self, room: usize) -> Vec<Chunk> {
        let taken = self.pending.take(room, self.chunk_cap);
        if self.pending.is_empty() {
            self.buffered_since = None;
        }
        let chunks = compact(taken.clone());
        self.taken = taken;
        self.cp.in_flight = text_of(&chunks);
        self.cp.in_flight_tasks = tasks_of(&chunks);
        chunks
    }

    fn all_given(&self) -> bool {
        self.model_done && self.pending.is_empty()
    }

    /// Read the model until the buffer's flush falls due.
    fn read(&self) -> Step {
        Step::Read(self.buffered_since.map(|t| t.saturating_add(self.policy.flush_ms)))
    }

    fn open_message(&mut self, now: i64, phase: Phase) {
        self.cp.open = Some(Open { ts: None, start: self.cp.delivered.len(), opened_at: now, phase, tasks: Vec::new() });
        self.full = false;
    }

    /// Sets the open message's phase.
    fn phase(&mut self, phase: Phase) {
        if let Some(open) = self.cp.open.as_mut() {
            open.phase = phase;
        }
    }

    fn next_streamed(&mut self, now: i64) -> Step {
        let open = self.cp.open.clone();
        let Some(open) = open else {
            if self.flush_due(now) {
                let chunks = self.take(self.policy.max_call_chars);
                self.open_message(now, Phase::Streaming);
                return Step::Call(Call::Start { chunks });
            }
            return self.idle(now);
        };
        let ts = open.ts.expect("an open message has its ts outside closing_call");
        if now - open.opened_at >= self.policy.rollover_ms && !self.all_given() && self.model_failed.is_none() {
            return self.stopping(ts, false);
        }
        if self.flush_due(now) {
            let chunks = self.take(self.policy.max_call_chars);
            return Step::Call(Call::Append { ts, chunks });
        }
        if self.model_failed.is_some() || self.all_given() {
            let last = self.model_failed.is_none();
            self.cp.complete = last;
            return self.stopping(ts, last);
        }
        self.read()
    }

    /// No message is open and nothing is due: end, or read on.
    fn idle(&mut self, now: i64) -> Step {
        if let Some(why) = self.model_failed.clone() {
            return Step::Finished(End::Retry(why));
        }
        if !self.all_given() {
            return self.read();
        }
        self.cp.complete = true;
        if !self.cp.showed_anything() {
            // The model said nothing: say so, once.
            self.open_message(now, Phase::Posted);
            self.taken.clear();
            self.cp.in_flight = EMPTY_ANSWER.into();
            return Step::Call(Call::Post { text: EMPTY_ANSWER.into(), tasks: Vec::new() });
        }
        Step::Finished(End::Done)
    }
}
