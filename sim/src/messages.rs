//! The fake Slack's messages: every post that landed (`chat.postMessage` answered `ok`, also one
//! answered late or whose answer was lost), with its thread and its message metadata, and the two
//! reads Slack answers from them — `conversations.history` (a channel's top-level messages, newest
//! first) and `conversations.replies` (a thread's messages, oldest first).
//!
//! Both read as Slack's do: `oldest` and `latest` bound the `ts` (exclusive unless `inclusive`),
//! `limit` caps a page (Slack's default 100; its maximum 999, here too), `cursor` continues where
//! the last page's `response_metadata.next_cursor` left off, and a message's `metadata`
//! (`{event_type, event_payload}`) is shown only with `include_all_metadata`. Arguments may be JSON
//! values or the strings a form body carries.

use serde_json::{json, Map, Value};

/// The fake's bot id.
pub const FAKE_BOT_ID: &str = "BFAKE";
/// The fake's app id.
pub const FAKE_APP_ID: &str = "ASIM";

/// Slack's page size when `limit` is not given.
pub const DEFAULT_PAGE: usize = 100;
/// The largest page Slack answers.
pub const MAX_PAGE: usize = 999;

/// One message, as the fake keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct FakeMessage {
    /// Its channel.
    pub channel: String,
    /// Its `ts`.
    pub ts: String,
    /// The thread it is in (`None` at top level).
    pub thread_ts: Option<String>,
    /// Its text (what `chat.update` set last).
    pub text: String,
    /// Its message metadata, if it was posted with some.
    pub metadata: Option<Value>,
    /// Posted by the bot.
    pub bot: bool,
}

impl FakeMessage {
    /// How Slack shows it in a read: `metadata` only when asked for.
    fn shown(&self, with_metadata: bool) -> Value {
        let mut m = json!({"type": "message", "ts": self.ts, "text": self.text});
        if self.bot {
            m["user"] = json!(super::lists::FAKE_BOT_USER);
            m["bot_id"] = json!(FAKE_BOT_ID);
            m["app_id"] = json!(FAKE_APP_ID);
        }
        if let Some(thread) = &self.thread_ts {
            m["thread_ts"] = json!(thread);
        }
        if let (true, Some(metadata)) = (with_metadata, &self.metadata) {
            m["metadata"] = metadata.clone();
        }
        m
    }
}

/// The messages of the fake, in the order they landed.
#[derive(Default)]
pub struct Messages {
    all: Vec<FakeMessage>,
}

/// A read's bounds and page, parsed from its arguments.
struct Page {
    oldest: u64,
    latest: u64,
    inclusive: bool,
    limit: usize,
    offset: usize,
    with_metadata: bool,
}

impl Page {
    fn of(args: &Map<String, Value>) -> Page {
        let limit = match number(args, "limit") {
            Some(0) | None => DEFAULT_PAGE,
            Some(n) => (n as usize).min(MAX_PAGE),
        };
        Page {
            oldest: args.get("oldest").and_then(ts_micros).unwrap_or(0),
            latest: args.get("latest").and_then(ts_micros).unwrap_or(u64::MAX),
            inclusive: flag(args, "inclusive"),
            limit,
            offset: args.get("cursor").and_then(Value::as_str).and_then(|c| c.strip_prefix("next:")).and_then(|n| n.parse().ok()).unwrap_or(0),
            with_metadata: flag(args, "include_all_metadata"),
        }
    }

    fn holds(&self, ts: &str) -> bool {
        let Some(at) = ts_micros(&json!(ts)) else { return false };
        match self.inclusive {
            true => self.oldest <= at && at <= self.latest,
            false => self.oldest < at && at < self.latest,
        }
    }

    /// One page of `messages` (already in the read's order), as Slack answers it.
    fn answer(&self, messages: Vec<&FakeMessage>) -> Value {
        let total = messages.len();
        let shown: Vec<Value> = messages.into_iter().skip(self.offset).take(self.limit).map(|m| m.shown(self.with_metadata)).collect();
        let has_more = self.offset + self.limit < total;
        let next = if has_more { format!("next:{}", self.offset + self.limit) } else { String::new() };
        json!({"ok": true, "messages": shown, "has_more": has_more, "response_metadata": {"next_cursor": next}})
    }
}

impl Messages {
    /// Keeps a message that landed.
    pub fn add(&mut self, message: FakeMessage) {
        self.all.push(message);
    }

    /// `chat.update`'s new text for the message at (channel, ts), if kept.
    pub fn edit(&mut self, channel: &str, ts: &str, text: &str) {
        for m in self.all.iter_mut().filter(|m| m.channel == channel && m.ts == ts) {
            m.text = text.to_string();
        }
    }

    /// Every message kept in `channel` (thread replies too), in the order they landed.
    pub fn in_channel(&self, channel: &str) -> Vec<FakeMessage> {
        self.all.iter().filter(|m| m.channel == channel).cloned().collect()
    }

    /// `conversations.history`: `channel`'s top-level messages (a thread's parent, not its replies),
    /// newest first.
    pub fn history(&self, channel: &str, args: &Map<String, Value>) -> Value {
        let page = Page::of(args);
        let mut found: Vec<&FakeMessage> =
            self.all.iter().filter(|m| m.channel == channel && m.thread_ts.as_ref().is_none_or(|t| *t == m.ts) && page.holds(&m.ts)).collect();
        found.sort_by_key(|m| std::cmp::Reverse(ts_micros(&json!(m.ts))));
        page.answer(found)
    }

    /// `conversations.replies`: the thread `thread` of `channel` (its parent, if kept, and its
    /// replies; `extra` adds messages kept elsewhere, the streams), oldest first.
    pub fn replies(&self, channel: &str, thread: &str, extra: Vec<FakeMessage>, args: &Map<String, Value>) -> Value {
        let page = Page::of(args);
        let in_thread = |m: &&FakeMessage| m.channel == channel && (m.ts == thread || m.thread_ts.as_deref() == Some(thread));
        let mut found: Vec<&FakeMessage> = self.all.iter().chain(extra.iter()).filter(in_thread).filter(|m| page.holds(&m.ts)).collect();
        found.sort_by_key(|m| ts_micros(&json!(m.ts)));
        page.answer(found)
    }
}

/// A `ts` (`"1700000000.000100"`, or a number) in microseconds.
fn ts_micros(value: &Value) -> Option<u64> {
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    let (secs, frac) = text.split_once('.').unwrap_or((&text, ""));
    let frac: String = frac.chars().chain(std::iter::repeat('0')).take(6).collect();
    Some(secs.parse::<u64>().ok()? * 1_000_000 + frac.parse::<u64>().ok()?)
}

/// A number argument (a JSON number, or a string of digits).
fn number(args: &Map<String, Value>, name: &str) -> Option<u64> {
    match args.get(name)? {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

/// A boolean argument (`true`, `"true"`, `1` or `"1"`).
fn flag(args: &Map<String, Value>, name: &str) -> bool {
    matches!(args.get(name), Some(Value::Bool(true))) || matches!(args.get(name).and_then(Value::as_str), Some("true" | "1")) || number(args, name) == Some(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(channel: &str, ts: &str, thread: Option<&str>, key: Option<&str>) -> FakeMessage {
        let metadata = key.map(|k| json!({"event_type": "slackline_post", "event_payload": {"key": k}}));
        FakeMessage { channel: channel.into(), ts: ts.into(), thread_ts: thread.map(str::to_string), text: "hi".into(), metadata, bot: true }
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    fn listed(answer: &Value) -> Vec<String> {
        answer["messages"].as_array().unwrap().iter().map(|m| m["ts"].as_str().unwrap().to_string()).collect()
    }

    fn messages() -> Messages {
        let mut m = Messages::default();
        m.add(message("C1", "10.000001", None, Some("k1")));
        m.add(message("C1", "11.000001", Some("10.000001"), Some("k2")));
        m.add(message("C1", "12.000001", None, None));
        m.add(message("C2", "13.000001", None, Some("k3")));
        m.add(message("C1", "14.000001", None, Some("k4")));
        m
    }

    #[test]
    fn history_lists_a_channels_top_level_messages_newest_first_within_the_bounds() {
        let m = messages();
        assert_eq!(listed(&m.history("C1", &args(json!({})))), ["14.000001", "12.000001", "10.000001"]);
        assert_eq!(listed(&m.history("C1", &args(json!({"oldest": "10.000001", "latest": "14.000001"})))), ["12.000001"], "exclusive bounds");
        assert_eq!(listed(&m.history("C1", &args(json!({"oldest": "10.000001", "inclusive": true})))), ["14.000001", "12.000001", "10.000001"]);
    }

    #[test]
    fn history_pages_with_a_cursor_as_slack_does() {
        let m = messages();
        let first = m.history("C1", &args(json!({"limit": 2})));
        assert_eq!(listed(&first), ["14.000001", "12.000001"]);
        assert_eq!(first["has_more"], true);
        let cursor = first["response_metadata"]["next_cursor"].as_str().unwrap();
        let second = m.history("C1", &args(json!({"limit": "2", "cursor": cursor})));
        assert_eq!(listed(&second), ["10.000001"]);
        assert_eq!(second["has_more"], false);
        assert_eq!(second["response_metadata"]["next_cursor"], "");
    }

    #[test]
    fn metadata_is_shown_only_when_asked_for() {
        let m = messages();
        assert!(m.history("C1", &args(json!({})))["messages"][0].get("metadata").is_none());
        let with = m.history("C1", &args(json!({"include_all_metadata": true})));
        assert_eq!(with["messages"][0]["metadata"]["event_payload"]["key"], "k4");
        let replies = m.replies("C1", "10.000001", Vec::new(), &args(json!({"include_all_metadata": "true"})));
        assert_eq!(listed(&replies), ["10.000001", "11.000001"]);
        assert_eq!(replies["messages"][1]["metadata"]["event_payload"]["key"], "k2");
        assert!(m.replies("C1", "10.000001", Vec::new(), &args(json!({})))["messages"][1].get("metadata").is_none());
    }
}
