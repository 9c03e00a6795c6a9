//! The state machine's conversation with its adapter: the [`Step`] it asks for, the Slack
//! [`Call`] to make, Slack's [`Reply`], and how the answer [`End`]s. Channel, thread, recipients
//! and the display mode are the adapter's (they never change within an answer).

use super::super::chunks::{text_of, Chunk, Task};

/// A Slack call to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// `chat.startStream` in the thread, opening a message with its first chunks.
    Start {
        /// The first text and task updates, in order.
        chunks: Vec<Chunk>,
    },
    /// `chat.appendStream`.
    Append {
        /// The streaming message.
        ts: String,
        /// The next text and task updates, in order.
        chunks: Vec<Chunk>,
    },
    /// `chat.stopStream`.
    Stop {
        /// The streaming message.
        ts: String,
        /// The answer ends here: add the feedback buttons.
        last: bool,
        /// The message's tasks to end with it (those still open, and any whose update may not
        /// have landed), as `task_update` chunks.
        tasks: Vec<Task>,
    },
    /// `chat.postMessage` in the thread (the fallback, or an answer with no text).
    Post {
        /// The message's text.
        text: String,
        /// Its tasks (rendered as lines above the text).
        tasks: Vec<Task>,
    },
    /// `chat.update`.
    Update {
        /// The message.
        ts: String,
        /// Its whole text.
        text: String,
        /// Its tasks, rendered as lines above the text (a posted message's; none for a streamed
        /// message, whose tasks are its stream's).
        tasks: Vec<Task>,
    },
    /// Look in the thread for the bot's message opened at or after `since`: a `startStream` or
    /// `postMessage` whose answer the checkpoint did not get to record.
    Find {
        /// When the call that may have created it was made (epoch ms).
        since: i64,
    },
}

impl Call {
    /// The text the call adds or sets (empty for a stop or a find).
    pub fn text(&self) -> String {
        match self {
            Call::Start { chunks } | Call::Append { chunks, .. } => text_of(chunks),
            Call::Post { text, .. } | Call::Update { text, .. } => text.clone(),
            Call::Stop { .. } | Call::Find { .. } => String::new(),
        }
    }
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
    /// Give up this attempt; the row retries and [`super::Answer::resume`]s from the checkpoint.
    Retry(String),
}

/// What the adapter does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Write the checkpoint (fenced), then make this call and feed its reply to
    /// [`super::Answer::replied`].
    Call(Call),
    /// Nothing to do before then (a 429's hold or a retry's backoff), epoch ms.
    Wait(i64),
    /// Read the model: feed what arrives to [`super::Answer::text`] / [`super::Answer::tool_call`]
    /// / [`super::Answer::model_done`] / [`super::Answer::model_failed`], waiting at most until
    /// the time given (a flush may fall due).
    Read(Option<i64>),
    /// The answer is over: complete the row by this.
    Finished(End),
}
