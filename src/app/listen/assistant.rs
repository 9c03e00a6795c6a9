//! Slack's assistant surface on the listener API: the assistant thread a user opens beside a
//! channel (`assistant_thread_started`), the channel they look at changing
//! (`assistant_thread_context_changed`), and what they write in the thread; with the helpers
//! Slack gives that thread (`assistant.threads.setStatus`, `setSuggestedPrompts`, `setTitle`).
//!
//! The thread's context (the channel the user is viewing) is kept in the app's state under
//! [`context_key`], written in the same unit as the event's receipt, before the handler runs: so a
//! later message's handler reads the context its thread was last given, and a duplicate of the
//! event writes nothing twice. Like every helper, `set_status` and the others are effects:
//! performed after the ack, from the outbox, keyed by the fact.
//!
//! ```
//! use slackline::prelude::{Listeners, Prompt};
//!
//! let app = Listeners::new()
//!     .assistant_thread_started(|thread, cx| {
//!         cx.set_suggested_prompts(thread, Some("Try one of these"), &[Prompt::new("Summarize", "Summarize this channel")]);
//!         Ok(())
//!     })
//!     .assistant_message(|m, thread, cx| {
//!         cx.set_status(thread, "is thinking…", &[]);
//!         cx.reply(&format!("You said: {}", m.message.text));
//!         Ok(())
//!     });
//! # let _ = app;
//! ```

use super::{Cx, EffectRef, HandlerResult, Listeners, MessageIn, Route};
use crate::kinds::assistant::chunks::TaskDisplayMode;
use crate::kinds::registry::Action;
use crate::slack::envelope::Message;
use crate::slack::method;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The channel (and workspace) the user is viewing beside the assistant thread.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ThreadContext {
    /// The channel, if the user is viewing one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel_id: Option<String>,
    /// Its workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team_id: Option<String>,
    /// Its organization (Enterprise Grid).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enterprise_id: Option<String>,
}

/// An assistant thread: where the user talks to the app.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AssistantThread {
    /// The app's DM with the user, where the thread is.
    pub channel_id: String,
    /// The thread's root.
    pub thread_ts: String,
    /// The user.
    pub user_id: Option<String>,
    /// What the user is viewing (from the event, or as last kept for this thread).
    pub context: ThreadContext,
}

/// A suggested prompt: the title shown, and the message it sends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Prompt {
    /// What the button shows.
    pub title: String,
    /// What choosing it says.
    pub message: String,
}

impl Prompt {
    /// A prompt titled `title` that sends `message`.
    pub fn new(title: &str, message: &str) -> Prompt {
        Prompt { title: title.into(), message: message.into() }
    }
}

/// A thread the assistant helpers address ([`Cx::set_status`], [`Cx::set_title`]): an assistant
/// thread, or a conversation in the agent's DM ([`super::agent::AgentThread`]).
pub trait ThreadAddress {
    /// The DM channel.
    fn channel_id(&self) -> &str;
    /// The thread's root.
    fn thread_ts(&self) -> &str;
}

impl ThreadAddress for AssistantThread {
    fn channel_id(&self) -> &str {
        &self.channel_id
    }

    fn thread_ts(&self) -> &str {
        &self.thread_ts
    }
}

/// The arguments naming a thread, as the `assistant.threads.*` methods take them.
fn thread_args(thread: &impl ThreadAddress) -> Value {
    json!({ "channel_id": thread.channel_id(), "thread_ts": thread.thread_ts() })
}

/// The state key under which a thread's context is kept.
pub fn context_key(channel_id: &str, thread_ts: &str) -> String {
    format!("assistant:context:{channel_id}:{thread_ts}")
}

impl AssistantThread {
    /// The thread an `assistant_thread_*` event is about, or why it is not one.
    pub fn from_event(raw: &Value) -> Result<AssistantThread, String> {
        let thread = raw.get("assistant_thread").ok_or("no assistant_thread in the event")?;
        let field = |name: &str| thread.get(name).and_then(Value::as_str).map(str::to_string);
        Ok(AssistantThread {
            channel_id: field("channel_id").ok_or("no assistant_thread.channel_id")?,
            thread_ts: field("thread_ts").ok_or("no assistant_thread.thread_ts")?,
            user_id: field("user_id"),
            context: thread.get("context").map(|c| serde_json::from_value(c.clone()).unwrap_or_default()).unwrap_or_default(),
        })
    }
}

/// The streamed answer to `prompt` in the thread of `m` (its own `ts` when it is a thread's root),
/// for its author in workspace `team`.
pub fn streamed_answer(m: &Message, prompt: &str, team: &str) -> Action {
    Action::StreamAnswer {
        prompt: prompt.to_string(),
        channel: m.channel.clone(),
        thread_ts: m.thread_ts.clone().unwrap_or_else(|| m.ts.clone()),
        recipient_user_id: m.user.clone(),
        recipient_team_id: Some(team.to_string()),
        task_display_mode: None,
        plan_title: None,
        closing_blocks: None,
    }
}

/// Whether a message is in an assistant thread: in the app's DM, in a thread (not its root).
pub fn in_assistant_thread(m: &Message) -> bool {
    m.channel_type.as_deref() == Some("im") && m.thread_ts.as_deref().is_some_and(|t| t != m.ts)
}

/// Keeps the event's context for its thread, and hands the thread to `handler`.
fn on_thread_event(raw: &Value, cx: &mut Cx, handler: &dyn Fn(&AssistantThread, &mut Cx) -> HandlerResult) -> HandlerResult {
    let thread = AssistantThread::from_event(raw)?;
    cx.state().put(&context_key(&thread.channel_id, &thread.thread_ts), &thread.context)?;
    handler(&thread, cx)
}

impl Listeners {
    /// A user opened an assistant thread (`assistant_thread_started`): typically answered with
    /// [`Cx::set_suggested_prompts`]. Its context is kept before the handler runs.
    pub fn assistant_thread_started(self, handler: impl Fn(&AssistantThread, &mut Cx) -> HandlerResult + 'static) -> Listeners {
        self.event("assistant_thread_started", move |e, cx| on_thread_event(e.raw, cx, &handler))
    }

    /// The user, with the thread open, moved to another channel
    /// (`assistant_thread_context_changed`). The new context is kept before the handler runs
    /// (a handler may do nothing else: `|_, _| Ok(())`).
    pub fn assistant_context_changed(self, handler: impl Fn(&AssistantThread, &mut Cx) -> HandlerResult + 'static) -> Listeners {
        self.event("assistant_thread_context_changed", move |e, cx| on_thread_event(e.raw, cx, &handler))
    }

    /// What a user writes in an assistant thread, with the thread (its context as last kept).
    /// Register it before any broader `message` listener: the first match wins.
    pub fn assistant_message(self, handler: impl for<'a> Fn(&MessageIn<'a>, &AssistantThread, &mut Cx) -> HandlerResult + 'static) -> Listeners {
        self.with(Route::AssistantMessage(Box::new(move |m, cx| {
            let (channel_id, thread_ts) = (m.message.channel.clone(), m.message.thread_ts.clone().unwrap_or_default());
            let context = cx.state().get::<ThreadContext>(&context_key(&channel_id, &thread_ts))?.unwrap_or_default();
            let thread = AssistantThread { channel_id, thread_ts, user_id: m.message.user.clone(), context };
            handler(m, &thread, cx)
        })))
    }
}

impl EffectRef<'_> {
    /// Shows a streamed answer's tasks as a plan under `title` (`""`: a plan without a title):
    /// `chat.startStream` with `task_display_mode: plan`, and a `plan_update` chunk as each of
    /// the answer's messages starts (`cx.stream_answer(m, prompt).plan("Looking into it")`).
    /// Without it, Slack's default shows each task in a timeline. On another effect it fails the
    /// handler.
    pub fn plan(mut self, title: &str) -> Self {
        match self.performed_mut() {
            Action::StreamAnswer { task_display_mode, plan_title, .. } => {
                *task_display_mode = Some(TaskDisplayMode::Plan);
                *plan_title = Some(title.to_string()).filter(|t| !t.is_empty());
            }
            _ => self.misused(format!("plan({title:?}): only a streamed answer (cx.stream_answer) shows a plan")),
        }
        self
    }
}

/// Block Kit's most blocks in one message (and in one `blocks` chunk).
pub const MAX_BLOCKS: usize = 50;

impl EffectRef<'_> {
    /// Shows `blocks` under a streamed answer once it has ended (a `blocks` chunk in its last
    /// `chat.stopStream`, above the feedback buttons): sources, a follow-up button
    /// (`cx.stream_answer(m, prompt).closing_blocks(vec![json!({"type": "divider"})])`). At most
    /// [`MAX_BLOCKS`], each an object with a `type`; otherwise, or on another effect, it fails
    /// the handler. An answer Slack refuses to stream is posted without them.
    pub fn closing_blocks(mut self, blocks: Vec<Value>) -> Self {
        let checked = closing_blocks_ok(&blocks);
        match (self.performed_mut(), checked) {
            (Action::StreamAnswer { closing_blocks, .. }, Ok(())) => *closing_blocks = Some(blocks),
            (Action::StreamAnswer { .. }, Err(why)) => self.misused(format!("closing_blocks: {why}")),
            _ => self.misused("closing_blocks: only a streamed answer (cx.stream_answer) closes with blocks".to_string()),
        }
        self
    }
}

/// Why `blocks` cannot close an answer, if they cannot.
fn closing_blocks_ok(blocks: &[Value]) -> Result<(), String> {
    match blocks.iter().position(|b| b.get("type").and_then(Value::as_str).is_none_or(str::is_empty)) {
        _ if blocks.is_empty() => Err("no blocks".into()),
        _ if blocks.len() > MAX_BLOCKS => Err(format!("{} blocks, Slack takes at most {MAX_BLOCKS}", blocks.len())),
        Some(i) => Err(format!("block {i} has no type")),
        None => Ok(()),
    }
}

impl Cx {
    /// The thread's status under the app's name ("is thinking…"), with up to 10 loading messages
    /// Slack rotates through. Slack clears it when the app posts in the thread, or after 2
    /// minutes without a message; an empty status clears it.
    pub fn set_status(&mut self, thread: &impl ThreadAddress, status: &str, loading_messages: &[&str]) -> EffectRef<'_> {
        let mut args = thread_args(thread);
        args["status"] = json!(status);
        if !loading_messages.is_empty() {
            args["loading_messages"] = json!(loading_messages.iter().take(10).collect::<Vec<_>>());
        }
        self.api(method::ASSISTANT_THREADS_SET_STATUS, args).named("set_status")
    }

    /// Up to four prompts the user can pick in a legacy assistant thread, with an optional title
    /// above them (under `agent_view`, prompts go to the Messages tab: [`Cx::set_agent_prompts`]).
    pub fn set_suggested_prompts(&mut self, thread: &AssistantThread, title: Option<&str>, prompts: &[Prompt]) -> EffectRef<'_> {
        let mut args = thread_args(thread);
        args["prompts"] = json!(prompts.iter().take(4).collect::<Vec<_>>());
        if let Some(title) = title {
            args["title"] = json!(title);
        }
        self.api(method::ASSISTANT_THREADS_SET_SUGGESTED_PROMPTS, args).named("set_suggested_prompts")
    }

    /// Streams the LLM's answer to `prompt` (`LLM_API_URL`, asked with `stream: true`) into the
    /// thread of `message` as it is written (`chat.startStream` / `appendStream` /
    /// `stopStream`, with feedback buttons: [`Listeners::feedback`]), for the message's author;
    /// the tools the model reports calling show as tasks (`.plan(title)`: as a plan). Durable like every effect,
    /// and more: its progress is checkpointed before every call, so a crash or a lost lease
    /// mid-answer leaves one answer, continued where it stopped (docs/assistant.md). In an
    /// assistant thread, `message` is the user's message there; in the agent's DM, the answer goes
    /// in the thread of the user's message (its own `ts` when it is top-level).
    pub fn stream_answer(&mut self, message: &MessageIn<'_>, prompt: &str) -> EffectRef<'_> {
        let team = message.raw.get("team").or_else(|| message.raw.get("user_team")).and_then(Value::as_str);
        let action = streamed_answer(message.message, prompt, team.unwrap_or(&message.envelope.team_key));
        self.push("stream_answer", action, None)
    }

    /// The thread's title in the user's history.
    pub fn set_title(&mut self, thread: &impl ThreadAddress, title: &str) -> EffectRef<'_> {
        let mut args = thread_args(thread);
        args["title"] = json!(title);
        self.api(method::ASSISTANT_THREADS_SET_TITLE, args).named("set_title")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{assistant_context_changed, assistant_message, assistant_thread_started, dm, Team};

    fn assistant() -> Listeners {
        Listeners::new()
            .assistant_thread_started(|thread, cx| {
                cx.set_suggested_prompts(thread, Some("Try"), &[Prompt::new("Sum", "Summarize the channel")]);
                Ok(())
            })
            .assistant_context_changed(|_, _| Ok(()))
            .assistant_message(|m, thread, cx| {
                cx.set_status(thread, "is thinking…", &["Reading", "Writing"]);
                cx.set_title(thread, &m.message.text);
                cx.reply(&format!("viewing {}", thread.context.channel_id.as_deref().unwrap_or("nothing")));
                cx.stream_answer(m, &m.message.text);
                Ok(())
            })
            .message(super::super::Pattern::any(), |_, cx| {
                cx.reply("a plain DM");
                Ok(())
            })
    }

    #[test]
    fn a_started_thread_gets_its_prompts_and_its_context_is_kept() {
        let team = Team::new();
        let done = team.handle(&assistant(), &assistant_thread_started("U1", "1700000000.000001", Some("C42")));
        let calls = done.calls();
        assert_eq!(calls.len(), 1);
        let (method, args) = &calls[0];
        assert_eq!(method, "assistant.threads.setSuggestedPrompts");
        assert_eq!((args["channel_id"].as_str(), args["thread_ts"].as_str(), args["title"].as_str()), (Some("DU1"), Some("1700000000.000001"), Some("Try")));
        assert_eq!(args["prompts"][0]["message"], "Summarize the channel");
        assert_eq!(team.state.value(&context_key("DU1", "1700000000.000001")), Some(json!({"channel_id": "C42", "team_id": crate::testing::TEAM})));
    }

    #[test]
    fn a_message_in_the_thread_sees_the_context_it_was_last_given() {
        let team = Team::new();
        let app = assistant();
        team.handle(&app, &assistant_thread_started("U1", "1700000000.000002", Some("C1")));
        team.handle(&app, &assistant_context_changed("U1", "1700000000.000002", Some("C2")));
        let done = team.handle(&app, &assistant_message("U1", "1700000000.000002", "What happened here?"));
        let methods: Vec<String> = done.calls().into_iter().map(|(m, _)| m).collect();
        assert_eq!(methods, ["assistant.threads.setStatus", "assistant.threads.setTitle", "chat.postMessage"]);
        let Some(Action::StreamAnswer { prompt, channel, thread_ts, recipient_user_id, .. }) = done.rows.last().map(|e| &e.action) else {
            panic!("a streamed answer last")
        };
        assert_eq!(
            (prompt.as_str(), channel.as_str(), thread_ts.as_str(), recipient_user_id.as_deref()),
            ("What happened here?", "DU1", "1700000000.000002", Some("U1"))
        );
        let calls = done.calls();
        assert_eq!(calls[0].1["loading_messages"], json!(["Reading", "Writing"]));
        assert_eq!((calls[2].1["text"].as_str(), calls[2].1["thread_ts"].as_str()), (Some("viewing C2"), Some("1700000000.000002")));
    }

    #[test]
    fn a_plan_is_chosen_on_the_streamed_answer_and_nowhere_else() {
        let app = Listeners::new().assistant_message(|m, _, cx| {
            cx.stream_answer(m, &m.message.text).plan("Looking into it");
            Ok(())
        });
        let done = Team::new().handle(&app, &assistant_message("U1", "1700000000.000003", "why?"));
        let queued = &done.queued()[0];
        assert_eq!((queued.args["task_display_mode"].as_str(), queued.args["plan_title"].as_str()), (Some("plan"), Some("Looking into it")));
        let untitled = Listeners::new().assistant_message(|m, _, cx| {
            cx.stream_answer(m, "p").plan("");
            Ok(())
        });
        let args = &Team::new().handle(&untitled, &assistant_message("U1", "1.1", "x")).queued()[0].args;
        assert_eq!((args["task_display_mode"].as_str(), args.get("plan_title")), (Some("plan"), None));
        let misused = Listeners::new().assistant_message(|_, _, cx| {
            cx.reply("hi").plan("no");
            Ok(())
        });
        let failed = Team::new().handle(&misused, &assistant_message("U1", "1.1", "x")).failed;
        assert!(failed.as_deref().is_some_and(|f| f.contains("only a streamed answer")), "{failed:?}");
    }

    #[test]
    fn closing_blocks_ride_on_the_streamed_answer_and_bad_ones_fail_the_handler() {
        let closing = |blocks: Vec<Value>| {
            Listeners::new().assistant_message(move |m, _, cx| {
                cx.stream_answer(m, &m.message.text).closing_blocks(blocks.clone());
                Ok(())
            })
        };
        let sources = vec![json!({"type": "divider"}), json!({"type": "context", "elements": []})];
        let done = Team::new().handle(&closing(sources.clone()), &assistant_message("U1", "1.1", "x"));
        assert_eq!(done.queued()[0].args["closing_blocks"], json!(sources));
        for (blocks, why) in [
            (vec![], "no blocks"),
            (vec![json!({"type": "divider"}); MAX_BLOCKS + 1], "at most 50"),
            (vec![json!({"type": "divider"}), json!({"text": "untyped"})], "block 1 has no type"),
        ] {
            let failed = Team::new().handle(&closing(blocks), &assistant_message("U1", "1.1", "x")).failed;
            assert!(failed.as_deref().is_some_and(|f| f.contains(why)), "{why}: {failed:?}");
        }
        let misused = Listeners::new().assistant_message(|_, _, cx| {
            cx.reply("hi").closing_blocks(vec![json!({"type": "divider"})]);
            Ok(())
        });
        let failed = Team::new().handle(&misused, &assistant_message("U1", "1.1", "x")).failed;
        assert!(failed.as_deref().is_some_and(|f| f.contains("only a streamed answer")), "{failed:?}");
    }

    #[test]
    fn a_dm_outside_a_thread_is_not_an_assistant_message() {
        let done = Team::new().handle(&assistant(), &dm("U1", "hello"));
        assert_eq!(done.calls()[0].1["text"], "a plain DM");
    }

    #[test]
    fn a_thread_event_without_its_thread_fails_the_handler_and_is_kept() {
        let broken = crate::testing::event(json!({"type": "assistant_thread_started", "event_ts": "1.2"}));
        let done = Team::new().handle(&assistant(), &broken);
        assert!(done.failed.as_deref().is_some_and(|e| e.contains("assistant_thread")), "{:?}", done.failed);
    }
}
