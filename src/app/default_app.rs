//! The app slackline ships: a threaded reply to every mention and DM, an answer to every slash
//! command through its `response_url`, and a "Mark resolved" button that updates the reply.
//!
//! With an LLM configured, replies and command answers come from a chat completion (a chained
//! effect: the completion first, then the post). In the agent's DM (`agent_view`) every message is
//! answered by streaming the model's answer into its thread as the model writes it
//! (`Action::StreamAnswer`, under a "thinking" status): a top-level message into its own thread,
//! a reply into the thread it continues, a legacy assistant thread's message into that thread;
//! opening the DM's Messages tab pins suggested prompts to it. A new legacy assistant thread
//! gets suggested prompts, LLM or not. Without an LLM, the reply quotes the mention or the DM. A
//! click on an answer's feedback buttons is thanked, ephemerally, in the answer's thread.

use super::listen::agent::{in_agent_dm, opens_messages_tab, tab_prompts_args, APP_HOME_OPENED};
use super::listen::assistant::{streamed_answer, AssistantThread, Prompt};
use super::{App, Context, Decision, HandlerOutput};
use crate::kinds::assistant::calls::{FEEDBACK_ACTION_ID, FEEDBACK_NEGATIVE};
use crate::kinds::registry::{truncate_chars, Action, Effect, Followup};
use crate::slack::envelope::{Dispatch, Event, EventEnvelope, Interaction, InteractionKind, Message, SlashCommand};
use crate::slack::method;
use serde_json::{json, Value};

/// A reply to a mention later than this is worse than none: it is parked as `expired` instead.
pub const REPLY_DEADLINE_MS: i64 = 30 * 60 * 1000;
/// Slack accepts `response_url` posts for 30 minutes.
pub const RESPONSE_URL_DEADLINE_MS: i64 = 30 * 60 * 1000;
/// Updating a message after a button press stays useful for a day.
pub const UPDATE_DEADLINE_MS: i64 = 24 * 60 * 60 * 1000;
/// A "thinking" status is useless after Slack clears it (2 minutes without a message).
pub const STATUS_DEADLINE_MS: i64 = 2 * 60 * 1000;
/// The button on our replies.
pub const RESOLVE_ACTION_ID: &str = "slackline_resolve";
/// How much of the mention the acknowledgement quotes.
const QUOTE_CHARS: usize = 200;

/// The shipped app. Stateless.
#[derive(Debug, Default, Clone, Copy)]
pub struct DefaultApp;

/// A slash command's immediate answer (the 200's body) and its later work.
#[derive(Debug, Clone, PartialEq)]
struct CommandReply {
    ack: Value,
    decision: Decision,
}

impl crate::app::sealed::Sealed for DefaultApp {}

impl App for DefaultApp {
    fn handle(&self, request: &Dispatch, ctx: &Context) -> HandlerOutput {
        match request {
            Dispatch::Event(e) => HandlerOutput::of(self.on_event(e, ctx)),
            Dispatch::Command(c) => {
                let reply = self.on_command(c, ctx);
                HandlerOutput::of(reply.decision).with_ack(reply.ack)
            }
            Dispatch::Interaction(i) => HandlerOutput::of(self.on_interaction(i, ctx)),
        }
    }
}

impl DefaultApp {
    /// A mention or a message addressed to the bot: a threaded reply.
    fn on_event(&self, envelope: &EventEnvelope, ctx: &Context) -> Decision {
        let bot = envelope.bot_user_id.as_deref();
        match &envelope.event {
            Event::AppMention(m) => reply_unless_ignored(m, envelope, ctx, true),
            Event::Message(m) => {
                let addressed = m.channel_type.as_deref() == Some("im") || bot.is_some_and(|b| m.text.contains(&format!("<@{b}>")));
                reply_unless_ignored(m, envelope, ctx, addressed)
            }
            Event::AppUninstalled | Event::TokensRevoked { .. } | Event::AgentSessionStopped { .. } => Decision::Ignore("handled_by_slackline"),
            Event::Other { .. } if envelope.event.type_name() == "assistant_thread_started" => assistant_thread_started(envelope),
            Event::Other { .. } if envelope.event.type_name() == APP_HOME_OPENED => agent_opened(envelope, ctx),
            Event::Other { .. } => Decision::Ignore("unhandled_event_type"),
        }
    }

    /// A slash command: "Working on it…" at once, the answer through its `response_url`.
    fn on_command(&self, command: &SlashCommand, ctx: &Context) -> CommandReply {
        let key = format!("cmd:{}:answer", command.trigger_id);
        let then = Followup::ResponseUrl { url: command.response_url.clone() };
        let effect = if ctx.llm_enabled {
            Effect { key, action: Action::LlmReply { prompt: command.text.clone(), then }, deadline_after_ms: Some(RESPONSE_URL_DEADLINE_MS) }
        } else {
            let answer = format!("You ran `{} {}`.", command.command, command.text);
            Effect { deadline_after_ms: Some(RESPONSE_URL_DEADLINE_MS), ..then.effect(&key, answer.trim_end(), None) }
        };
        CommandReply { ack: json!({ "response_type": "ephemeral", "text": "Working on it…" }), decision: Decision::Enqueue(vec![effect]) }
    }

    /// "Mark resolved": the reply is updated. A click on a streamed answer's feedback buttons:
    /// a word of thanks, seen by the clicker alone.
    fn on_interaction(&self, interaction: &Interaction, _ctx: &Context) -> Decision {
        if interaction.kind() != InteractionKind::BlockActions {
            return Decision::Ignore("unhandled_interaction");
        }
        if let Some(feedback) = interaction.actions.iter().find(|a| a.action_id == FEEDBACK_ACTION_ID) {
            return thank_for_feedback(interaction, feedback.value.as_deref());
        }
        if !interaction.actions.iter().any(|a| a.action_id == RESOLVE_ACTION_ID) {
            return Decision::Ignore("unhandled_action");
        }
        let (Some(channel), Some(ts)) = (&interaction.channel_id, &interaction.message_ts) else {
            return Decision::Ignore("action_without_message");
        };
        let who = interaction.user_id.as_deref().map(|u| format!("<@{u}>")).unwrap_or_else(|| "someone".into());
        let text = format!(":white_check_mark: Resolved by {who}.");
        Decision::Enqueue(vec![Effect {
            key: format!("ix:{}:resolve", interaction.op_key),
            action: Action::slack_api(method::UPDATE, json!({ "channel": channel, "ts": ts, "text": text, "blocks": [] })),
            deadline_after_ms: Some(UPDATE_DEADLINE_MS),
        }])
    }
}

/// The ephemeral thanks for a click on the feedback buttons, in the answer's thread.
fn thank_for_feedback(interaction: &Interaction, value: Option<&str>) -> Decision {
    let (Some(channel), Some(user)) = (&interaction.channel_id, &interaction.user_id) else {
        return Decision::Ignore("action_without_message");
    };
    let text = match value {
        Some(FEEDBACK_NEGATIVE) => "Thanks for telling me. Try asking another way, with more detail.",
        _ => "Thanks for the feedback.",
    };
    let mut args = json!({ "channel": channel, "user": user, "text": text });
    if let Some(thread) = interaction.raw.pointer("/message/thread_ts").or_else(|| interaction.raw.pointer("/container/thread_ts")) {
        args["thread_ts"] = thread.clone();
    }
    Decision::Enqueue(vec![Effect {
        key: format!("ix:{}:feedback", interaction.op_key),
        action: Action::slack_api(method::POST_EPHEMERAL, args),
        deadline_after_ms: Some(STATUS_DEADLINE_MS),
    }])
}

/// Why a message is not ours to answer, if it is not.
fn ignore_reason(m: &Message, bot_user_id: Option<&str>) -> Option<&'static str> {
    if m.bot_id.is_some() || m.subtype.as_deref() == Some("bot_message") {
        return Some("bot_message");
    }
    if m.user.is_some() && m.user.as_deref() == bot_user_id {
        return Some("own_message");
    }
    if m.subtype.is_some() {
        return Some("unhandled_subtype");
    }
    if m.user.is_none() {
        return Some("no_author");
    }
    None
}

fn reply_unless_ignored(m: &Message, envelope: &EventEnvelope, ctx: &Context, addressed: bool) -> Decision {
    if let Some(reason) = ignore_reason(m, envelope.bot_user_id.as_deref()) {
        return Decision::Ignore(reason);
    }
    if !addressed {
        return Decision::Ignore("not_addressed");
    }
    if ctx.llm_enabled && in_agent_dm(m) {
        return Decision::Enqueue(streamed_reply(m, &envelope.team_key));
    }
    Decision::Enqueue(vec![reply(m, ctx)])
}

/// A new assistant thread gets two suggested prompts.
fn assistant_thread_started(envelope: &EventEnvelope) -> Decision {
    let Ok(thread) = AssistantThread::from_event(&envelope.raw) else { return Decision::Ignore("malformed_assistant_thread") };
    let prompts = [Prompt::new("What can you do?", "What can you do?"), Prompt::new("Say hello", "Say hello to the channel")];
    let args = json!({ "channel_id": thread.channel_id, "thread_ts": thread.thread_ts, "prompts": prompts });
    Decision::Enqueue(vec![Effect {
        key: format!("ev:{}:prompts", envelope.event_id),
        action: Action::slack_api(method::ASSISTANT_THREADS_SET_SUGGESTED_PROMPTS, args),
        deadline_after_ms: Some(REPLY_DEADLINE_MS),
    }])
}

/// With an LLM, the agent's DM (its Messages tab) opened: two prompts pinned to the tab. Without
/// one, as before: the DM answers with a quote, so prompts to the model would mislead.
fn agent_opened(envelope: &EventEnvelope, ctx: &Context) -> Decision {
    if !ctx.llm_enabled {
        return Decision::Ignore("unhandled_event_type");
    }
    if !opens_messages_tab(&envelope.raw) {
        return Decision::Ignore("not_the_messages_tab");
    }
    let Some(channel) = envelope.raw.get("channel").and_then(Value::as_str) else { return Decision::Ignore("malformed_agent_dm") };
    let prompts = [Prompt::new("What can you do?", "What can you do?"), Prompt::new("Say hello", "Say hello")];
    Decision::Enqueue(vec![Effect {
        key: format!("ev:{}:prompts", envelope.event_id),
        action: Action::slack_api(method::ASSISTANT_THREADS_SET_SUGGESTED_PROMPTS, tab_prompts_args(channel, Some("How can I help?"), &prompts)),
        deadline_after_ms: Some(REPLY_DEADLINE_MS),
    }])
}

/// With an LLM, a message in the agent's DM is answered in its thread (its own `ts` when it is
/// top-level), streamed as it is written, under a "thinking" status.
fn streamed_reply(m: &Message, team_key: &str) -> Vec<Effect> {
    let key = format!("msg:{}:{}:reply", m.channel, m.ts);
    let thread_ts = m.thread_ts.clone().unwrap_or_else(|| m.ts.clone());
    let status = json!({ "channel_id": m.channel, "thread_ts": thread_ts, "status": "is thinking…" });
    let answer = streamed_answer(m, &strip_mentions(&m.text), team_key);
    vec![
        Effect {
            key: format!("{key}:status"),
            action: Action::slack_api(method::ASSISTANT_THREADS_SET_STATUS, status),
            deadline_after_ms: Some(STATUS_DEADLINE_MS),
        },
        Effect { key, action: answer, deadline_after_ms: Some(REPLY_DEADLINE_MS) },
    ]
}

/// The one reply a message gets, keyed by the message itself so every copy maps to one row.
fn reply(m: &Message, ctx: &Context) -> Effect {
    let key = format!("msg:{}:{}:reply", m.channel, m.ts);
    let thread_ts = m.thread_ts.clone().unwrap_or_else(|| m.ts.clone());
    let then = Followup::Thread { channel: m.channel.clone(), thread_ts: thread_ts.clone() };
    if ctx.llm_enabled {
        return Effect { key, action: Action::LlmReply { prompt: strip_mentions(&m.text), then }, deadline_after_ms: Some(REPLY_DEADLINE_MS) };
    }
    let quoted = truncate_chars(&strip_mentions(&m.text), QUOTE_CHARS);
    let who = m.user.as_deref().unwrap_or("there");
    let text = format!("Got it, <@{who}>: “{quoted}”");
    Effect {
        key,
        action: Action::slack_api(method::POST_MESSAGE, json!({ "channel": m.channel, "thread_ts": thread_ts, "text": text, "blocks": reply_blocks(&text) })),
        deadline_after_ms: Some(REPLY_DEADLINE_MS),
    }
}

fn reply_blocks(text: &str) -> Value {
    json!([
        { "type": "section", "text": { "type": "mrkdwn", "text": text } },
        { "type": "actions", "elements": [{
            "type": "button", "action_id": RESOLVE_ACTION_ID, "value": "resolve",
            "text": { "type": "plain_text", "text": "Mark resolved" }
        }]}
    ])
}

/// Removes `<@U…>` mentions and trims, so the quote and the prompt are the human's words.
pub fn strip_mentions(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<@") {
        out.push_str(&rest[..start]);
        match rest[start..].find('>') {
            Some(end) => rest = &rest[start + end + 1..],
            None => {
                rest = &rest[start..];
                break;
            }
        }
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests;
