//! The fake Slack's streamed messages (`chat.startStream`, `appendStream`, `stopStream`), as
//! strict as Slack's: a stream is a thread's reply, for a recipient outside a DM; it closes
//! [`DEFAULT_STREAM_LIFETIME_MS`] after it starts; `chat.update` is refused while it streams.
//!
//! **Content.** A call carries `markdown_text` or `chunks`, never both
//! (`cannot_provide_both_markdown_text_and_chunks`): `markdown_text` (its text appended),
//! `task_update` (`id`, `title`, `status` of `pending`, `in_progress`, `complete`, `error`; a
//! task the stream shows by that id is changed in place, a new one added), `plan_update` (the
//! plan's `title`) and `blocks` (at most 50). `chat.startStream` takes `task_display_mode`
//! (`timeline`, the default, or `plan`). Anything else is `invalid_arguments`.
//!
//! **`msg_too_long`.** Besides 12,000 characters of text in one call, a stream takes at most
//! [`DEFAULT_STREAM_MAX_CHUNKS`] structured chunks (`task_update`, `plan_update`, `blocks`;
//! text is not counted) over its life (`FakeSlack::set_stream_max_chunks`). The call that would
//! pass it is refused `msg_too_long` and **the stream is closed**, so the stop that follows answers
//! `message_not_in_streaming_state` — the two errors users report after many task chunks
//! (ivy/thicket#88). The number is ours: Slack documents none. 50 is Block Kit's limit of blocks
//! in a message (and of a `blocks` chunk), the likeliest ceiling for a message whose tasks Slack
//! renders as blocks; text is left out so that a long answer of text alone is never cut by it,
//! as before structured chunks existed.

use super::{channel, fresh_message_ts, message_ts, missing, refusal, text, Answer, Web, SESSION_STATUSES};
use crate::lists::FAKE_BOT_USER;
use crate::messages::FAKE_BOT_ID;
use serde_json::{json, Map, Value};

/// How long Slack keeps a stream open: about 5 minutes (undocumented; python-slack-sdk #1859).
pub const DEFAULT_STREAM_LIFETIME_MS: u64 = 300_000;
/// How many structured chunks a stream takes before `msg_too_long` (see the module docs).
pub const DEFAULT_STREAM_MAX_CHUNKS: usize = 50;
/// `markdown_text` in one call: at most this many characters.
const MAX_CALL_TEXT_CHARS: usize = 12_000;
/// The statuses a `task_update` takes.
const TASK_STATUSES: [&str; 4] = ["pending", "in_progress", "complete", "error"];

/// A task a stream shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FakeTask {
    /// Its id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its status as last set.
    pub status: String,
}

/// A streamed message, as the fake keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FakeStream {
    /// Its channel.
    pub channel: String,
    /// Its `ts`.
    pub ts: String,
    /// The thread it is in.
    pub thread_ts: String,
    /// Its text: everything appended, or what `chat.update` set.
    pub text: String,
    /// Its tasks, in the order they first appeared, each with its last status.
    pub tasks: Vec<FakeTask>,
    /// The plan's title (`plan_update`), if one was given.
    pub plan_title: Option<String>,
    /// `task_display_mode` as started (`timeline` unless `plan` was asked).
    pub task_display_mode: String,
    /// The structured chunks it took.
    pub chunks: usize,
    /// Still streaming (not stopped, by the app, the user, its lifetime or `msg_too_long`).
    pub streaming: bool,
    /// The user pressed stop.
    pub stopped_by_user: bool,
    /// `chat.stopStream` added blocks (the feedback buttons).
    pub blocks: bool,
    /// The blocks its `blocks` chunks carried, in order (not part of its text).
    pub block_chunks: Vec<Value>,
    /// When it started (ms since the epoch).
    pub started_ms: u64,
}

/// What one call adds to a stream.
#[derive(Debug, Default)]
struct Content {
    text: String,
    tasks: Vec<FakeTask>,
    plan_title: Option<String>,
    blocks: Vec<Value>,
    /// Its structured chunks (what the limit counts).
    structured: usize,
}

impl Content {
    /// The call's `markdown_text` or `chunks` (an array, or the JSON text a form body carries).
    fn of(args: &Map<String, Value>) -> Result<Content, Value> {
        let chunks = match args.get("chunks") {
            None | Some(Value::Null) => None,
            Some(Value::String(encoded)) => Some(serde_json::from_str::<Vec<Value>>(encoded).map_err(|_| refusal("invalid_arguments"))?),
            Some(Value::Array(chunks)) => Some(chunks.clone()),
            Some(_) => return Err(refusal("invalid_arguments")),
        };
        let markdown = text(args, "markdown_text");
        let mut content = Content { text: markdown.unwrap_or("").to_string(), ..Content::default() };
        match (markdown, chunks) {
            (Some(_), Some(_)) => return Err(refusal("cannot_provide_both_markdown_text_and_chunks")),
            (_, Some(chunks)) => chunks.iter().try_for_each(|chunk| content.add(chunk))?,
            (_, None) => {}
        }
        if content.text.chars().count() > MAX_CALL_TEXT_CHARS {
            return Err(refusal("msg_too_long"));
        }
        Ok(content)
    }

    fn add(&mut self, chunk: &Value) -> Result<(), Value> {
        let field = |name: &str| chunk.get(name).and_then(Value::as_str);
        let bad = || refusal("invalid_arguments");
        match field("type") {
            Some("markdown_text") => self.text.push_str(field("text").ok_or_else(bad)?),
            Some("task_update") => {
                let status = field("status").filter(|s| TASK_STATUSES.contains(s)).ok_or_else(bad)?;
                let (id, title) = (field("id").filter(|i| !i.is_empty()).ok_or_else(bad)?, field("title").ok_or_else(bad)?);
                self.tasks.push(FakeTask { id: id.into(), title: title.into(), status: status.into() });
                self.structured += 1;
            }
            Some("plan_update") => {
                self.plan_title = Some(field("title").ok_or_else(bad)?.to_string());
                self.structured += 1;
            }
            Some("blocks") => {
                let blocks = chunk.get("blocks").and_then(Value::as_array).filter(|b| b.len() <= 50).ok_or_else(bad)?;
                self.blocks.extend(blocks.iter().cloned());
                self.structured += 1;
            }
            _ => return Err(bad()),
        }
        Ok(())
    }

    fn is_empty(&self) -> bool {
        self.text.is_empty() && self.structured == 0
    }
}

impl FakeStream {
    /// Adds what a call carries.
    fn take(&mut self, content: Content) {
        self.text.push_str(&content.text);
        for task in content.tasks {
            match self.tasks.iter_mut().find(|t| t.id == task.id) {
                Some(shown) => *shown = task,
                None => self.tasks.push(task),
            }
        }
        if content.plan_title.is_some() {
            self.plan_title = content.plan_title;
        }
        self.block_chunks.extend(content.blocks);
        self.chunks += content.structured;
    }
}

impl Web {
    /// `chat.startStream`: in a thread; in a channel (not a DM), for a recipient.
    pub(super) fn start_stream(&mut self, args: &Map<String, Value>, now_ms: u64) -> Answer {
        let channel = channel(args)?;
        let thread_ts = message_ts(args, "thread_ts")?;
        let in_a_dm = channel.starts_with('D');
        if !in_a_dm && (text(args, "recipient_user_id").is_none() || text(args, "recipient_team_id").is_none()) {
            return Err(refusal("invalid_arguments"));
        }
        let mode = text(args, "task_display_mode").unwrap_or("timeline");
        if !["timeline", "plan"].contains(&mode) {
            return Err(refusal("invalid_arguments"));
        }
        let content = Content::of(args)?;
        if content.structured > self.max_chunks() {
            return Err(refusal("msg_too_long"));
        }
        let ts = fresh_message_ts();
        let mut stream = FakeStream {
            channel: channel.into(),
            ts: ts.clone(),
            thread_ts: thread_ts.into(),
            text: String::new(),
            tasks: Vec::new(),
            plan_title: None,
            task_display_mode: mode.into(),
            chunks: 0,
            streaming: true,
            stopped_by_user: false,
            blocks: false,
            block_chunks: Vec::new(),
            started_ms: now_ms,
        };
        stream.take(content);
        self.streams.insert((channel.to_string(), ts.clone()), stream);
        self.session_moves(channel, thread_ts, "processing");
        Ok(json!({"ok": true, "channel": channel, "ts": ts}))
    }

    fn max_chunks(&self) -> usize {
        self.stream_max_chunks.unwrap_or(DEFAULT_STREAM_MAX_CHUNKS)
    }

    /// The stream at (channel, ts), closed first if its lifetime is over.
    pub(super) fn live_stream(&mut self, channel: &str, ts: &str, now_ms: u64) -> Option<&mut FakeStream> {
        let lifetime = self.stream_lifetime_ms.unwrap_or(DEFAULT_STREAM_LIFETIME_MS);
        let stream = self.streams.get_mut(&(channel.to_string(), ts.to_string()))?;
        if now_ms.saturating_sub(stream.started_ms) > lifetime {
            stream.streaming = false;
        }
        Some(stream)
    }

    /// `chat.appendStream`, or `chat.stopStream` when `stop`.
    pub(super) fn append_stream(&mut self, args: &Map<String, Value>, stop: bool, now_ms: u64) -> Answer {
        let channel = channel(args)?;
        let ts = message_ts(args, "ts")?;
        let content = Content::of(args)?;
        if !stop && content.is_empty() {
            return Err(missing("markdown_text"));
        }
        let session_status = text(args, "session_status").unwrap_or("active").to_string();
        if stop && !SESSION_STATUSES.contains(&session_status.as_str()) {
            return Err(refusal("invalid_arguments"));
        }
        let max_chunks = self.max_chunks();
        let Some(stream) = self.live_stream(channel, ts, now_ms) else { return Err(refusal("message_not_found")) };
        if stream.stopped_by_user {
            return Err(refusal("stopped_by_user"));
        }
        if !stream.streaming {
            return Err(refusal("message_not_in_streaming_state"));
        }
        if stream.chunks + content.structured > max_chunks {
            stream.streaming = false;
            return Err(refusal("msg_too_long"));
        }
        stream.take(content);
        if !stop {
            return Ok(json!({"ok": true, "channel": channel, "ts": ts}));
        }
        stream.streaming = false;
        stream.blocks = args.get("blocks").is_some_and(|b| !b.is_null());
        let (thread_ts, shown) = (stream.thread_ts.clone(), stream.text.clone());
        self.session_moves(channel, &thread_ts, &session_status);
        let message = json!({"type": "message", "text": shown, "user": FAKE_BOT_USER, "bot_id": FAKE_BOT_ID, "ts": ts});
        Ok(json!({"ok": true, "channel": channel, "ts": ts, "message": message}))
    }

    /// Streams close this long after they start.
    pub fn set_stream_lifetime(&mut self, ms: u64) {
        self.stream_lifetime_ms = Some(ms);
    }

    /// Streams take at most `n` structured chunks before `msg_too_long`.
    pub fn set_stream_max_chunks(&mut self, n: usize) {
        self.stream_max_chunks = Some(n);
    }

    /// The user presses stop on the stream `ts` of `channel` (false: no such stream).
    pub fn stop_as_user(&mut self, channel: &str, ts: &str) -> bool {
        let Some(stream) = self.streams.get_mut(&(channel.to_string(), ts.to_string())) else { return false };
        stream.stopped_by_user = true;
        stream.streaming = false;
        true
    }

    /// The streams in `channel`, oldest first.
    pub fn streams_in(&self, channel: &str) -> Vec<FakeStream> {
        let mut streams: Vec<FakeStream> = self.streams.values().filter(|s| s.channel == channel).cloned().collect();
        streams.sort_by(|a, b| a.ts.cmp(&b.ts));
        streams
    }
}
