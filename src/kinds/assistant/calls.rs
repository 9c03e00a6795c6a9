//! The Slack calls of a streamed answer: what each [`Call`] of the state machine sends
//! (`chat.startStream`, `appendStream`, `stopStream`, `chat.postMessage`, `chat.update`,
//! `conversations.replies`), and how Slack's judged answer becomes the machine's [`Reply`].

use super::stream::{Call, Reply};
use crate::slack::classify::Verdict;
use crate::slack::method;
use serde_json::{json, Value};

/// Where an answer goes.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    /// The user's words.
    pub prompt: &'a str,
    /// The channel.
    pub channel: &'a str,
    /// The thread.
    pub thread_ts: &'a str,
    /// Who it is for (required with the team when streaming in a channel).
    pub recipient_user_id: Option<&'a str>,
    /// Their workspace.
    pub recipient_team_id: Option<&'a str>,
}

/// The method and arguments of `call`.
pub fn request(to: &Target<'_>, call: &Call) -> (&'static str, Value) {
    let (channel, thread) = (to.channel, to.thread_ts);
    match call {
        Call::Start { text } => {
            let mut args = json!({ "channel": channel, "thread_ts": thread, "markdown_text": text });
            if let (Some(user), Some(team)) = (to.recipient_user_id, to.recipient_team_id) {
                args["recipient_user_id"] = json!(user);
                args["recipient_team_id"] = json!(team);
            }
            (method::START_STREAM, args)
        }
        Call::Append { ts, text } => (method::APPEND_STREAM, json!({ "channel": channel, "ts": ts, "markdown_text": text })),
        Call::Stop { ts, last: true } => (method::STOP_STREAM, json!({ "channel": channel, "ts": ts, "blocks": feedback_blocks() })),
        Call::Stop { ts, last: false } => (method::STOP_STREAM, json!({ "channel": channel, "ts": ts })),
        Call::Post { text } => (method::POST_MESSAGE, json!({ "channel": channel, "thread_ts": thread, "text": text })),
        Call::Update { ts, text } => (method::UPDATE, json!({ "channel": channel, "ts": ts, "text": text })),
        Call::Find { since } => (method::CONVERSATIONS_REPLIES, json!({ "channel": channel, "ts": thread, "oldest": slack_ts(*since), "inclusive": true })),
    }
}

/// What Slack's answer to `call`, judged (`classify_web_api`), tells the state machine.
pub fn reply(to: &Target<'_>, call: &Call, verdict: &Verdict, json: &Value) -> Reply {
    match verdict {
        Verdict::Success if matches!(call, Call::Find { .. }) => Reply::Ok { ts: last_bot_message(json, to.thread_ts) },
        Verdict::Success => Reply::Ok { ts: json["ts"].as_str().map(str::to_string) },
        Verdict::RateLimited { retry_after_ms } => Reply::RateLimited { retry_after_ms: retry_after_ms.unwrap_or(1_000) },
        Verdict::Permanent { code } => Reply::Refused(code.clone()),
        other => Reply::Transient(other.code().unwrap_or("transient").to_string()),
    }
}

/// The newest message of the bot in a `conversations.replies` answer (not the thread's root).
fn last_bot_message(json: &Value, thread: &str) -> Option<String> {
    let messages = json["messages"].as_array()?;
    messages.iter().rev().filter(|m| m["bot_id"].is_string() && m["ts"].as_str() != Some(thread)).find_map(|m| m["ts"].as_str().map(str::to_string))
}

/// An epoch-ms time as a Slack `ts` (`seconds.micros`).
fn slack_ts(ms: i64) -> String {
    format!("{}.{:06}", ms.div_euclid(1000), ms.rem_euclid(1000) * 1000)
}

/// The feedback buttons under a finished answer (Slack's `context_actions` block).
fn feedback_blocks() -> Value {
    json!([{
        "type": "context_actions",
        "elements": [{
            "type": "feedback_buttons",
            "action_id": "slackline_feedback",
            "positive_button": {"text": {"type": "plain_text", "text": "Good answer"}, "value": "good"},
            "negative_button": {"text": {"type": "plain_text", "text": "Bad answer"}, "value": "bad"}
        }]
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    const TO: Target<'static> = Target { prompt: "p", channel: "C1", thread_ts: "1.0", recipient_user_id: Some("U1"), recipient_team_id: Some("T1") };

    #[test]
    fn a_stream_in_a_channel_names_its_recipient_and_the_last_stop_has_the_feedback_buttons() {
        let (method, args) = request(&TO, &Call::Start { text: "Hi".into() });
        assert_eq!((method, args["recipient_user_id"].as_str(), args["thread_ts"].as_str()), ("chat.startStream", Some("U1"), Some("1.0")));
        let (_, last) = request(&TO, &Call::Stop { ts: "2.0".into(), last: true });
        assert_eq!(last["blocks"][0]["elements"][0]["type"], "feedback_buttons");
        let (_, rollover) = request(&TO, &Call::Stop { ts: "2.0".into(), last: false });
        assert!(rollover.get("blocks").is_none());
    }

    #[test]
    fn find_asks_for_the_thread_since_the_time_and_answers_the_bots_newest_reply() {
        let (method, args) = request(&TO, &Call::Find { since: 1_700_000_000_123 });
        assert_eq!((method, args["oldest"].as_str()), ("conversations.replies", Some("1700000000.123000")));
        let json = json!({"messages": [
            {"ts": "1.0", "text": "root", "user": "U1"},
            {"ts": "2.0", "bot_id": "B1"},
            {"ts": "3.0", "bot_id": "B1"},
            {"ts": "4.0", "user": "U1"}
        ]});
        assert_eq!(reply(&TO, &Call::Find { since: 0 }, &Verdict::Success, &json), Reply::Ok { ts: Some("3.0".into()) });
        let only_root = json!({"messages": [{"ts": "1.0", "bot_id": "B1"}]});
        assert_eq!(reply(&TO, &Call::Find { since: 0 }, &Verdict::Success, &only_root), Reply::Ok { ts: None });
    }

    #[test]
    fn slacks_verdicts_become_replies() {
        let start = Call::Start { text: "x".into() };
        assert_eq!(reply(&TO, &start, &Verdict::Success, &json!({"ts": "5.0"})), Reply::Ok { ts: Some("5.0".into()) });
        assert_eq!(reply(&TO, &start, &Verdict::RateLimited { retry_after_ms: Some(3_000) }, &Value::Null), Reply::RateLimited { retry_after_ms: 3_000 });
        assert_eq!(reply(&TO, &start, &Verdict::Permanent { code: "stopped_by_user".into() }, &Value::Null), Reply::Refused("stopped_by_user".into()));
        assert!(matches!(reply(&TO, &start, &Verdict::transient("http_503"), &Value::Null), Reply::Transient(_)));
    }
}
