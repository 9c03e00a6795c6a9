//! A streamed answer's state machine, with no I/O: it is fed the model's text and Slack's replies
//! and says which Slack call to make next ([`Step`]). The adapter performs each call, writes the
//! [`Checkpoint`] before it (fenced by the row's claim), and feeds the reply back.
//!
//! **The shape of an answer.** Text from the model is buffered and flushed by size or by time
//! ([`Policy`]): the first flush opens the message (`chat.startStream`, in the thread), later ones
//! append to it (`chat.appendStream`, at most [`Policy::max_call_chars`] each), and the end closes it
//! (`chat.stopStream`, with the feedback buttons). A message that has streamed for
//! [`Policy::rollover_ms`] is closed and the answer continues in a new message in the same thread,
//! before Slack's own ~5-minute lifetime closes it. Where Slack refuses to stream, the answer is
//! posted (`chat.postMessage`) and grown with `chat.update` no more often than
//! [`Policy::update_every_ms`].
//!
//! **What survives a crash.** The checkpoint holds the text Slack has been given (`delivered`),
//! the text of the call being made (`in_flight`: written *before* the call, so whether or not the
//! call landed, the next attempt knows the most the message may show), and the open message's
//! `ts`. [`Answer::resume`] turns a checkpoint left by a dead attempt into calls that leave one
//! coherent answer: the open stream is stopped, and when a call was in flight its message is set to
//! exactly `delivered + in_flight` with `chat.update`; if the model had not finished, the answer
//! continues in a new message (the model is asked to continue from the delivered text). A
//! message whose `chat.startStream` was in flight without its `ts` being recorded is found in the
//! thread first ([`Call::Find`]). So: never two full answers, never a message left streaming.
//!
//! **Invariants.** Text is never dropped: a 429 or a transient failure puts the call's text back
//! at the head of the buffer. After `stopped_by_user` no call is made. Every call's text is at
//! most `max_call_chars`. A finished answer makes no call.

use serde::{Deserialize, Serialize};

/// The knobs, with Slack's limits as defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// Flush once this many characters are buffered (bolt-js's `ChatStreamer` buffers 256).
    pub flush_chars: usize,
    /// ... or once the oldest buffered text has waited this long.
    pub flush_ms: i64,
    /// `markdown_text` is capped at 12,000 characters a call.
    pub max_call_chars: usize,
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
        Policy { flush_chars: 256, flush_ms: 1_000, max_call_chars: 12_000, rollover_ms: 270_000, update_every_ms: 1_500, max_transient: 3 }
    }
}

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
    /// Its stream must be stopped before anything else (a roll-over, a recovery, a conflict).
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
    /// The model has finished and all its text is in `delivered` or `in_flight`.
    pub complete: bool,
}

impl Default for Checkpoint {
    fn default() -> Self {
        Checkpoint { mode: Mode::Stream, delivered: String::new(), in_flight: String::new(), open: None, complete: false }
    }
}

impl Checkpoint {
    /// The text the open message shows (without what is in flight).
    fn shown(&self) -> &str {
        self.open.as_ref().map_or("", |o| &self.delivered[o.start..])
    }
}

/// A Slack call to make. Channel, thread and recipients are the adapter's (they never change).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// `chat.startStream` in the thread.
    Start {
        /// The first text.
        text: String,
    },
    /// `chat.appendStream`.
    Append {
        /// The streaming message.
        ts: String,
        /// The next text.
        text: String,
    },
    /// `chat.stopStream`.
    Stop {
        /// The streaming message.
        ts: String,
        /// The answer ends here: add the feedback buttons.
        last: bool,
    },
    /// `chat.postMessage` in the thread (the fallback, or an answer with no text).
    Post {
        /// The message's text.
        text: String,
    },
    /// `chat.update`.
    Update {
        /// The message.
        ts: String,
        /// Its whole text.
        text: String,
    },
    /// Look in the thread for the bot's message opened at or after `since`: a `startStream` or
    /// `postMessage` whose answer the checkpoint did not get to record.
    Find {
        /// When the call that may have created it was made (epoch ms).
        since: i64,
    },
}

/// Slack's answer to a [`Call`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// `ok: true`.
    Ok {
        /// The message a `Start` or `Post` created, or the one [`Call::Find`] found (`None`:
        /// there is none).
        ts: Option<String>,
    },
    /// `ok: false` with this error.
    Refused(String),
    /// 429.
    RateLimited {
        /// Its `Retry-After`, in ms.
        retry_after_ms: i64,
    },
    /// A 5xx, a timeout, a network failure.
    Transient(String),
}

/// How an answer ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// Every piece of the model's answer is in Slack, the last message closed.
    Done,
    /// The user pressed stop: nothing more is sent, and nothing is retried.
    StoppedByUser,
    /// Slack refused for good (`channel_not_found`, `invalid_auth`, …): park.
    Refused(String),
    /// Give up this attempt; the row retries and [`Answer::resume`]s from the checkpoint.
    Retry(String),
}

/// What the adapter does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Write the checkpoint (fenced), then make this call and feed its reply to
    /// [`Answer::replied`].
    Call(Call),
    /// Nothing to do before then (a 429's hold or a retry's backoff), epoch ms.
    Wait(i64),
    /// Read the model: feed what arrives to [`Answer::text`] / [`Answer::model_done`] /
    /// [`Answer::model_failed`], waiting at most until the time given (a flush may fall due).
    Read(Option<i64>),
    /// The answer is over: complete the row by this.
    Finished(End),
}

/// Slack errors that mean "streaming is not available here": use the fallback.
const NO_STREAMING: &[&str] =
    &["method_not_supported_for_channel_type", "not_allowed_token_type", "feature_not_enabled", "unknown_method", "streaming_mode_mismatch"];
/// Slack errors worth the same call again.
const TRANSIENT: &[&str] = &["internal_error", "fatal_error", "service_unavailable", "request_timeout", "ratelimited"];
/// The text of an answer the model gave no words for.
pub const EMPTY_ANSWER: &str = "_(no answer)_";

/// One streamed answer in progress.
#[derive(Debug, Clone)]
pub struct Answer {
    cp: Checkpoint,
    policy: Policy,
    /// The model's text not yet handed to Slack.
    buffer: String,
    /// When the oldest buffered text arrived.
    buffered_since: Option<i64>,
    /// When the fallback message was last updated.
    updated_at: i64,
    model_done: bool,
    /// Why the model stopped early (the stream broke, or hung).
    model_failed: Option<String>,
    /// The call in flight.
    calling: Option<Call>,
    hold_until: i64,
    transient: u32,
    ended: Option<End>,
    /// The user pressed Stop ([`Answer::stop`]).
    user_stopped: bool,
}

impl Answer {
    /// A new answer.
    pub fn new(policy: Policy) -> Answer {
        Answer::from(Checkpoint::default(), policy)
    }

    fn from(cp: Checkpoint, policy: Policy) -> Answer {
        let model_done = cp.complete;
        Answer {
            cp,
            policy,
            buffer: String::new(),
            buffered_since: None,
            updated_at: i64::MIN,
            model_done,
            model_failed: None,
            calling: None,
            hold_until: i64::MIN,
            transient: 0,
            ended: None,
            user_stopped: false,
        }
    }

    /// Picks up the checkpoint a dead (or fenced) attempt left. The calls that close what it left
    /// open come first; then — unless the model had finished — the answer continues in a new
    /// message, for which the model is asked to continue from [`Answer::continues_from`].
    pub fn resume(mut cp: Checkpoint, policy: Policy) -> Answer {
        if let Some(open) = cp.open.as_mut() {
            open.phase = match (open.ts.is_some(), open.phase) {
                // Not known yet: [`Call::Find`] comes first, and decides.
                (false, phase) => phase,
                (true, Phase::Streaming) => Phase::Stopping { last: cp.complete && cp.in_flight.is_empty() },
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

    /// More of the model's text.
    pub fn text(&mut self, piece: &str, now: i64) {
        if piece.is_empty() || self.ended.is_some() {
            return;
        }
        self.buffered_since.get_or_insert(now);
        self.buffer.push_str(piece);
    }

    /// The model finished.
    pub fn model_done(&mut self) {
        self.model_done = true;
    }

    /// The model's stream broke or hung: what is buffered is delivered, the message closed, and
    /// the attempt ends so that the row retries (and continues).
    pub fn model_failed(&mut self, why: &str) {
        self.model_failed = Some(why.to_string());
    }

    /// The user pressed Stop (`agent_session_stopped`, recorded before this was called; between
    /// calls, never during one): nothing more of the model is sent — what is buffered is dropped —
    /// and the answer ends [`End::StoppedByUser`] once the open message is closed: a stream with
    /// `chat.stopStream` (the text shown so far), a call in flight's message set to its text first,
    /// a posted message left as it shows. An answer that sent nothing ends at once.
    pub fn stop(&mut self) {
        if self.ended.is_some() {
            return;
        }
        self.user_stopped = true;
        self.buffer.clear();
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

    /// The call that closes the open message, while it is being closed (or must be found).
    fn closing_call(&mut self) -> Option<Step> {
        let open = self.cp.open.clone()?;
        let Some(ts) = open.ts else {
            return Some(Step::Call(Call::Find { since: open.opened_at }));
        };
        match open.phase {
            Phase::Streaming | Phase::Posted => None,
            Phase::Stopping { last } => Some(Step::Call(Call::Stop { ts, last })),
            Phase::Closing if self.cp.in_flight.is_empty() => {
                self.cp.open = None;
                self.after_close()
            }
            Phase::Closing => Some(Step::Call(Call::Update { ts, text: format!("{}{}", self.cp.shown(), self.cp.in_flight) })),
        }
    }

    /// After [`Answer::stop`], with nothing being closed: stop the open stream (the answer's
    /// last), or end.
    fn close_stopped(&mut self) -> Step {
        match self.cp.open.clone() {
            Some(Open { ts: Some(ts), phase: Phase::Streaming, .. }) => {
                self.phase(Phase::Stopping { last: true });
                Step::Call(Call::Stop { ts, last: true })
            }
            _ => {
                self.cp.open = None;
                Step::Finished(End::StoppedByUser)
            }
        }
    }

    /// Once a message is closed: end the attempt if the model failed, else go on.
    fn after_close(&mut self) -> Option<Step> {
        if self.user_stopped {
            return Some(Step::Finished(End::StoppedByUser));
        }
        let why = self.model_failed.clone().filter(|_| self.buffer.is_empty())?;
        Some(Step::Finished(End::Retry(why)))
    }

    /// Whether the buffer should go to Slack now.
    fn flush_due(&self, now: i64) -> bool {
        !self.buffer.is_empty()
            && (self.buffer.len() >= self.policy.flush_chars
                || self.model_done
                || self.model_failed.is_some()
                || self.buffered_since.is_some_and(|t| now.saturating_sub(t) >= self.policy.flush_ms))
    }

    /// Takes the next call's text off the buffer (at most `max_call_chars` bytes, on a character
    /// boundary) and writes it ahead as in flight.
    fn take_text(&mut self, room: usize) -> String {
        let mut cut = self.buffer.len().min(room);
        while !self.buffer.is_char_boundary(cut) {
            cut -= 1;
        }
        let rest = self.buffer.split_off(cut);
        let text = std::mem::replace(&mut self.buffer, rest);
        if self.buffer.is_empty() {
            self.buffered_since = None;
        }
        self.cp.in_flight = text.clone();
        text
    }

    fn all_given(&self) -> bool {
        self.model_done && self.buffer.is_empty()
    }

    /// Read the model until the buffer's flush falls due.
    fn read(&self) -> Step {
        Step::Read(self.buffered_since.map(|t| t.saturating_add(self.policy.flush_ms)))
    }

    fn open_message(&mut self, now: i64, phase: Phase) {
        self.cp.open = Some(Open { ts: None, start: self.cp.delivered.len(), opened_at: now, phase });
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
                let text = self.take_text(self.policy.max_call_chars);
                self.open_message(now, Phase::Streaming);
                return Step::Call(Call::Start { text });
            }
            return self.idle(now);
        };
        let ts = open.ts.expect("an open message has its ts outside closing_call");
        if now - open.opened_at >= self.policy.rollover_ms && !self.all_given() && self.model_failed.is_none() {
            self.phase(Phase::Stopping { last: false });
            return Step::Call(Call::Stop { ts, last: false });
        }
        if self.flush_due(now) {
            let text = self.take_text(self.policy.max_call_chars);
            return Step::Call(Call::Append { ts, text });
        }
        if self.model_failed.is_some() || self.all_given() {
            let last = self.model_failed.is_none();
            self.cp.complete = last;
            self.phase(Phase::Stopping { last });
            return Step::Call(Call::Stop { ts, last });
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
        if self.cp.delivered.is_empty() {
            // The model said nothing: say so, once.
            self.open_message(now, Phase::Posted);
            self.cp.in_flight = EMPTY_ANSWER.into();
            return Step::Call(Call::Post { text: EMPTY_ANSWER.into() });
        }
        Step::Finished(End::Done)
    }

    fn next_posted(&mut self, now: i64) -> Step {
        let Some(open) = self.cp.open.clone() else {
            if self.flush_due(now) {
                let text = self.take_text(self.policy.max_call_chars);
                self.open_message(now, Phase::Posted);
                self.updated_at = now;
                return Step::Call(Call::Post { text });
            }
            return self.idle(now);
        };
        let ts = open.ts.expect("an open message has its ts outside closing_call");
        let shown = self.cp.shown().len();
        if shown >= self.policy.max_call_chars && !self.buffer.is_empty() {
            // Full: the rest goes into a new message.
            self.cp.open = None;
            return self.next_posted(now);
        }
        let ending = self.model_done || self.model_failed.is_some();
        if self.flush_due(now) && (ending || now.saturating_sub(self.updated_at) >= self.policy.update_every_ms) {
            let new_text = self.take_text(self.policy.max_call_chars - shown);
            self.updated_at = now;
            return Step::Call(Call::Update { ts, text: format!("{}{}", self.cp.shown(), new_text) });
        }
        if self.buffer.is_empty() && ending {
            self.cp.open = None;
            return self.idle(now);
        }
        match self.buffered_since {
            Some(t) => Step::Read(Some(t.saturating_add(self.policy.flush_ms).max(self.updated_at.saturating_add(self.policy.update_every_ms)))),
            None => Step::Read(None),
        }
    }

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
            Reply::Refused(code) if TRANSIENT.contains(&code.as_str()) => self.transient(call, code, now),
            Reply::Refused(code) => self.refused(call, code),
        }
    }

    fn landed(&mut self, call: Call, ts: Option<String>) {
        self.transient = 0;
        match call {
            Call::Start { .. } | Call::Post { .. } => {
                if let Some(open) = self.cp.open.as_mut() {
                    open.ts = ts;
                }
                self.deliver_in_flight();
            }
            Call::Append { .. } => self.deliver_in_flight(),
            Call::Update { .. } => {
                let closing = self.cp.open.as_ref().is_some_and(|o| o.phase == Phase::Closing);
                self.deliver_in_flight();
                if closing {
                    self.cp.open = None;
                }
            }
            Call::Stop { last, .. } => self.stopped(last),
            Call::Find { .. } => self.found(ts),
        }
    }

    fn deliver_in_flight(&mut self) {
        let text = std::mem::take(&mut self.cp.in_flight);
        self.cp.delivered.push_str(&text);
    }

    /// The open stream is stopped: done, or its text still to be set, or the next one to open.
    fn stopped(&mut self, last: bool) {
        if !self.cp.in_flight.is_empty() {
            self.phase(Phase::Closing);
            return;
        }
        self.cp.open = None;
        if self.user_stopped {
            self.ended = Some(End::StoppedByUser);
        } else if last {
            self.ended = Some(End::Done);
        } else if let Some(why) = self.model_failed.clone().filter(|_| self.buffer.is_empty()) {
            self.ended = Some(End::Retry(why));
        }
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
                // Never created: its text never showed.
                self.cp.open = None;
                self.cp.in_flight.clear();
            }
        }
    }

    /// Makes a call again later: its text goes back to the head of the buffer, to go out with
    /// the next call (a message it would have opened is opened then); a call without text is
    /// simply made again.
    fn again(&mut self, call: Call) {
        let closing = self.cp.open.as_ref().is_some_and(|o| !matches!(o.phase, Phase::Streaming | Phase::Posted));
        if matches!(call, Call::Stop { .. } | Call::Find { .. }) || closing {
            return; // closing_call makes it again, from the checkpoint
        }
        // The in-flight text is the call's new text (for an update, what it adds to the message).
        let text = std::mem::take(&mut self.cp.in_flight);
        self.buffer.insert_str(0, &text);
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
            ("stopped_by_user", _) => {
                self.cp.in_flight.clear();
                self.cp.open = None;
                self.ended = Some(End::StoppedByUser);
            }
            (c, Call::Start { .. }) if NO_STREAMING.contains(&c) => {
                self.cp.mode = Mode::Fallback;
                self.again(call);
            }
            // Slack closed the stream (its lifetime): set the message to what it should show,
            // then go on in a new one. The in-flight text stays in flight: the update carries it.
            ("message_not_in_streaming_state", Call::Append { .. }) => self.phase(Phase::Closing),
            ("message_not_in_streaming_state", Call::Stop { last, .. }) => self.stopped(*last),
            // Still streaming (a stop that did not land): stop it first, then set its text.
            ("streaming_state_conflict", Call::Update { .. }) => self.phase(Phase::Stopping { last: false }),
            _ => self.ended = Some(End::Refused(code)),
        }
    }
}
