//! The Slack calls of a streamed answer: what each [`Call`] of the state machine sends
//! (`chat.startStream`, `appendStream`, `stopStream`, `chat.postMessage`, `chat.update`,
//! `conversations.replies`), and how Slack's judged answer becomes the machine's [`Reply`].
//!
//! A call whose content is text alone sends it as `markdown_text`, as before tasks existed; one
//! that carries a task update (or the plan's title) sends everything as `chunks`, in the model's
//! order (Slack refuses both at once: `cannot_provide_both_markdown_text_and_chunks`). Every
//! message of the answer starts with its display mode and, in `plan` mode, its plan's title
//! (`plan_update`). The answer's last `chat.stopStream` carries the app's closing blocks as a
//! `blocks` chunk, and the feedback buttons. A posted answer (the fallback, when Slack refuses
//! to stream) shows its tasks as lines above its text, and no closing blocks.

use super::chunks::{Chunk, Task, TaskDisplayMode, TaskStatus};
use super::stream::{Call, Reply};
use crate::slack::classify::Verdict;
use crate::slack::method;
use serde_json::{json, Value};

/// The `action_id` of the feedback buttons under a finished answer.
pub const FEEDBACK_ACTION_ID: &str = "slackline_feedback";
/// The value of the feedback's positive button ("Good answer").
pub const FEEDBACK_POSITIVE: &str = "good";
/// The value of its negative button ("Bad answer").
pub const FEEDBACK_NEGATIVE: &str = "bad";

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
    /// How its tasks are shown (`task_display_mode`; absent: Slack's default, `timeline`).
    pub task_display_mode: Option<TaskDisplayMode>,
    /// The plan's title (`plan_update`), sent as each message of the answer starts.
    pub plan_title: Option<&'a str>,
    /// Blocks shown under the finished answer: a `blocks` chunk in its last `chat.stopStream`
    /// (none: no chunk).
    pub closing_blocks: &'a [Value],
}

/// The method and arguments of `call`.
pub fn request(to: &Target<'_>, call: &Call) -> (&'static str, Value) {
    let (channel, thread) = (to.channel, to.thread_ts);
    match call {
        Call::Start { chunks } => {
            let mut args = json!({ "channel": channel, "thread_ts": thread });
            content(&mut args, chunks, to.plan_title);
            if let (Some(user), Some(team)) = (to.recipient_user_id, to.recipient_team_id) {
                args["recipient_user_id"] = json!(user);
                args["recipient_team_id"] = json!(team);
            }
            if let Some(mode) = to.task_display_mode {
                args["task_display_mode"] = json!(mode.as_str());
            }
            (method::START_STREAM, args)
        }
        Call::Append { ts, chunks } => {
            let mut args = json!({ "channel": channel, "ts": ts });
            content(&mut args, chunks, None);
            (method::APPEND_STREAM, args)
        }
        Call::Stop { ts, last, tasks } => {
            let mut args = json!({ "channel": channel, "ts": ts });
            if *last {
                args["blocks"] = feedback_blocks();
            }
            let closing = Some(to.closing_blocks).filter(|blocks| *last && !blocks.is_empty());
            let chunks: Vec<Value> = tasks.iter().map(task_chunk).chain(closing.map(|blocks| json!({ "type": "blocks", "blocks": blocks }))).collect();
            if !chunks.is_empty() {
                args["chunks"] = json!(chunks);
            }
            (method::STOP_STREAM, args)
        }
        Call::Post { text, tasks } => (method::POST_MESSAGE, json!({ "channel": channel, "thread_ts": thread, "text": with_task_lines(to, tasks, text) })),
        Call::Update { ts, text, tasks } => (method::UPDATE, json!({ "channel": channel, "ts": ts, "text": with_task_lines(to, tasks, text) })),
        Call::Find { since } => (method::CONVERSATIONS_REPLIES, json!({ "channel": channel, "ts": thread, "oldest": slack_ts(*since), "inclusive": true })),
    }
}

/// Puts a stream call's content in `args`: text alone as `markdown_text`, anything else (a task
/// update, the plan's title) as `chunks`.
fn content(args: &mut Value, chunks: &[Chunk], plan_title: Option<&str>) {
    if let ([Chunk::Text(text)], None) = (chunks, plan_title) {
        args["markdown_text"] = json!(text);
        return;
    }
    let plan = plan_title.map(|title| json!({ "type": "plan_update", "title": title }));
    let rest = chunks.iter().map(|chunk| match chunk {
        Chunk::Text(text) => json!({ "type": "markdown_text", "text": text }),
        Chunk::Task(task) => task_chunk(task),
    });
    args["chunks"] = plan.into_iter().chain(rest).collect();
}

/// A `task_update` chunk.
fn task_chunk(task: &Task) -> Value {
    json!({ "type": "task_update", "id": task.id, "title": task.title, "status": task.status.as_str() })
}

/// A posted message's text: its tasks as lines above it (under the plan's title), when it has any.
fn with_task_lines(to: &Target<'_>, tasks: &[Task], text: &str) -> String {
    if tasks.is_empty() {
        return text.to_string();
    }
    let mut lines: Vec<String> = to.plan_title.filter(|t| !t.is_empty()).map(|t| format!("*{t}*")).into_iter().collect();
    lines.extend(tasks.iter().map(|t| format!("{} {}", status_mark(t.status), t.title)));
    let head = lines.join("\n");
    if text.is_empty() {
        head
    } else {
        format!("{head}\n\n{text}")
    }
}

/// How a task's status shows in a line of text.
fn status_mark(status: TaskStatus) -> &'static str {
    match status {
        TaskStatus::Pending => "○",
        TaskStatus::InProgress => "◐",
        TaskStatus::Complete => "✓",
        TaskStatus::Error => "✗",
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
            "action_id": FEEDBACK_ACTION_ID,
            "positive_button": {"text": {"type": "plain_text", "text": "Good answer"}, "value": FEEDBACK_POSITIVE},
            "negative_button": {"text": {"type": "plain_text", "text": "Bad answer"}, "value": FEEDBACK_NEGATIVE}
        }]
    }])
}

/// An answer's target for tests: user `U1` of `T1` asked "p" in thread `1.0` of `C1`.
#[cfg(test)]
pub(crate) const TEST_TARGET: Target<'static> = Target {
    prompt: "p",
    channel: "C1",
    thread_ts: "1.0",
    recipient_user_id: Some("U1"),
    recipient_team_id: Some("T1"),
    task_display_mode: None,
    plan_title: None,
    closing_blocks: &[],
};

#[cfg(test)]
mod tests {
    use super::*;

    const TO: Target<'static> = TEST_TARGET;

    fn text(t: &str) -> Vec<Chunk> {
        vec![Chunk::Text(t.into())]
    }

    fn task(id: &str, status: TaskStatus) -> Task {
        Task { id: id.into(), title: format!("{id}_tool"), status }
    }

    #[test]
    fn a_stream_in_a_channel_names_its_recipient_and_the_last_stop_has_the_feedback_buttons() {
        let (method, args) = request(&TO, &Call::Start { chunks: text("Hi") });
        assert_eq!((method, args["recipient_user_id"].as_str(), args["thread_ts"].as_str()), ("chat.startStream", Some("U1"), Some("1.0")));
        assert_eq!((args["markdown_text"].as_str(), args.get("chunks"), args.get("task_display_mode")), (Some("Hi"), None, None), "text alone, as before");
        let (_, last) = request(&TO, &Call::Stop { ts: "2.0".into(), last: true, tasks: vec![] });
        assert_eq!(last["blocks"][0]["elements"][0]["type"], "feedback_buttons");
        assert_eq!(last["blocks"][0]["elements"][0]["action_id"], FEEDBACK_ACTION_ID);
        assert!(last.get("chunks").is_none());
        let (_, rollover) = request(&TO, &Call::Stop { ts: "2.0".into(), last: false, tasks: vec![] });
        assert!(rollover.get("blocks").is_none());
    }

    #[test]
    fn closing_blocks_are_a_blocks_chunk_after_the_tasks_of_the_last_stop_only() {
        let blocks = [json!({"type": "divider"}), json!({"type": "section", "text": {"type": "mrkdwn", "text": "Sources"}})];
        let to = Target { closing_blocks: &blocks, ..TO };
        let (_, last) = request(&to, &Call::Stop { ts: "2.0".into(), last: true, tasks: vec![task("c1", TaskStatus::Complete)] });
        assert_eq!(last["chunks"][0]["type"], "task_update");
        assert_eq!(last["chunks"][1], json!({"type": "blocks", "blocks": blocks}));
        assert_eq!(last["blocks"][0]["elements"][0]["type"], "feedback_buttons", "the feedback buttons stay");
        let (_, rollover) = request(&to, &Call::Stop { ts: "2.0".into(), last: false, tasks: vec![] });
        assert!(rollover.get("chunks").is_none(), "a message the answer rolls over from closes without them");
    }

    #[test]
    fn a_call_with_a_task_sends_everything_as_chunks_in_order_and_a_plan_starts_each_message() {
        let chunks = vec![Chunk::Task(task("c1", TaskStatus::InProgress)), Chunk::Text("Found it".into())];
        let (_, append) = request(&TO, &Call::Append { ts: "2.0".into(), chunks: chunks.clone() });
        assert!(append.get("markdown_text").is_none(), "never both");
        assert_eq!(
            append["chunks"],
            json!([{"type": "task_update", "id": "c1", "title": "c1_tool", "status": "in_progress"}, {"type": "markdown_text", "text": "Found it"}])
        );
        let plan = Target { task_display_mode: Some(TaskDisplayMode::Plan), plan_title: Some("Looking into it"), ..TO };
        let (_, start) = request(&plan, &Call::Start { chunks: text("Hi") });
        assert_eq!((start["task_display_mode"].as_str(), start.get("markdown_text")), (Some("plan"), None));
        assert_eq!(start["chunks"], json!([{"type": "plan_update", "title": "Looking into it"}, {"type": "markdown_text", "text": "Hi"}]));
        let (_, append) = request(&plan, &Call::Append { ts: "2.0".into(), chunks: text("more") });
        assert_eq!((append["markdown_text"].as_str(), append.get("task_display_mode")), (Some("more"), None), "the plan's title only at a start");
        let (_, stop) = request(&plan, &Call::Stop { ts: "2.0".into(), last: false, tasks: vec![task("c1", TaskStatus::Complete)] });
        assert_eq!(stop["chunks"][0]["status"], "complete");
    }

    #[test]
    fn a_posted_answer_shows_its_tasks_as_lines_above_its_text() {
        let plan = Target { plan_title: Some("Plan"), ..TO };
        let tasks = vec![task("a", TaskStatus::Complete), task("b", TaskStatus::InProgress), task("c", TaskStatus::Error)];
        let (method, post) = request(&plan, &Call::Post { text: "Answer".into(), tasks: tasks.clone() });
        assert_eq!((method, post["text"].as_str()), ("chat.postMessage", Some("*Plan*\n✓ a_tool\n◐ b_tool\n✗ c_tool\n\nAnswer")));
        let (_, update) = request(&plan, &Call::Update { ts: "2.0".into(), text: "Answer".into(), tasks: vec![] });
        assert_eq!(update["text"], "Answer", "no tasks, no lines: a streamed message's text is its text");
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
        let start = Call::Start { chunks: text("x") };
        assert_eq!(reply(&TO, &start, &Verdict::Success, &json!({"ts": "5.0"})), Reply::Ok { ts: Some("5.0".into()) });
        assert_eq!(reply(&TO, &start, &Verdict::RateLimited { retry_after_ms: Some(3_000) }, &Value::Null), Reply::RateLimited { retry_after_ms: 3_000 });
        assert_eq!(reply(&TO, &start, &Verdict::Permanent { code: "stopped_by_user".into() }, &Value::Null), Reply::Refused("stopped_by_user".into()));
        assert!(matches!(reply(&TO, &start, &Verdict::transient("http_503"), &Value::Null), Reply::Transient(_)));
    }
}
