//! Slack's agent messaging experience (`agent_view`, 2026-06-30) on the listener API: the user
//! opening the agent's DM on its Messages tab (`app_home_opened`, tab `messages`), what they write
//! there, and what they look at in Slack meanwhile (`app_context_changed`); with the helper that
//! pins suggested prompts to the Messages tab ([`Cx::set_agent_prompts`]).
//!
//! Why a surface beside [`super::assistant`]: under `agent_view` Slack opens no thread for the app
//! (no `assistant_thread_started`). **Every top-level message the user writes in the DM is the root
//! of its own thread** (its `thread_ts` is absent: the thread is its `ts`), and replies in that
//! thread continue the conversation; prompts belong to the tab, not to a thread; and the context is
//! the user's, not a thread's. The legacy listeners keep working beside these, for as long as
//! Slack sends their events.
//!
//! Invariants:
//! - These events stay [`Event::Other`](crate::slack::envelope::Event::Other), routed by their type
//!   name: the front door ↔ actor wire does not change for them.
//! - The user's context is kept in the app's state under [`context_key`] (the DM and the user),
//!   written in the same unit as the event's receipt, **before** the handler runs: from every
//!   `app_context_changed`, and from an `app_home_opened` that carries one. A message's handler
//!   sees the context the message itself carries (`app_context`), else the one last kept; a message
//!   writes none. A duplicate of the event writes nothing twice.
//! - A malformed event (no `channel` or `user`, a context that is not an object, an entity of a
//!   known kind without its id) fails the handler with a message naming what is missing: the event
//!   is recorded and parked as `handler_failed`, never a panic. An entity of a kind slackline does
//!   not know is kept as it came ([`Viewed::Unknown`]).
//! - **The first matching listener wins**, as everywhere: `agent_message` takes every message a
//!   person writes in a DM with the app, top-level or in a thread. A legacy assistant thread's
//!   message looks the same (a DM message in a thread), so an app serving both experiences
//!   registers `assistant_message` first: it then takes the replies in threads, and
//!   `agent_message` the top-level messages.
//!
//! ```
//! use slackline::prelude::*;
//!
//! let app = Listeners::new()
//!     .agent_opened(|dm, cx| {
//!         cx.set_agent_prompts(dm, Some("Try one of these"), &[Prompt::new("Summarize", "Summarize what I'm looking at")]);
//!         Ok(())
//!     })
//!     .agent_context_changed(|_, _| Ok(())) // the new context is kept for you
//!     .agent_message(|m, thread, cx| {
//!         cx.set_status(thread, "is thinking…", &[]);
//!         let viewing = thread.context.channel_id().unwrap_or("nothing");
//!         cx.stream_answer(m, &format!("{} (the user looks at {viewing})", m.words()));
//!         Ok(())
//!     });
//! # let _ = app;
//! ```

use super::assistant::{Prompt, ThreadAddress};
use super::{Cx, EffectRef, EventIn, HandlerError, HandlerResult, Listeners, MessageIn, Route};
use crate::slack::envelope::Message;
use crate::slack::method;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// The event Slack sends when a user opens a tab of the app (`home` or `messages`).
pub const APP_HOME_OPENED: &str = "app_home_opened";
/// The event Slack sends when what the user looks at changes.
pub const APP_CONTEXT_CHANGED: &str = "app_context_changed";
/// The tab of `app_home_opened` that is the agent's DM.
pub const MESSAGES_TAB: &str = "messages";

/// Slack's type names of the entities of a context.
const CHANNEL_ENTITY: &str = "slack#/types/channel_id";
const CANVAS_ENTITY: &str = "slack#/types/canvas_id";
const LIST_ENTITY: &str = "slack#/types/list_id";
const MESSAGE_ENTITY: &str = "slack#/types/message_context";

/// What the user looks at: one entity of their context.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Viewed {
    /// A channel (its id).
    Channel(String),
    /// A canvas (its file id).
    Canvas(String),
    /// A Slack List (its file id).
    List(String),
    /// A message.
    Message {
        /// Its channel.
        channel_id: String,
        /// Its `ts`.
        message_ts: String,
    },
    /// A kind slackline does not know, as Slack sent it.
    Unknown {
        /// The entity's `type`.
        kind: String,
        /// Its `value`, untouched.
        value: Value,
    },
}

/// One entity of a context: what is viewed, and in which workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Value", into = "Value")]
#[non_exhaustive]
pub struct ContextEntity {
    /// What the user looks at.
    pub viewed: Viewed,
    /// Its workspace, when Slack says.
    pub team_id: Option<String>,
    /// Its organization (Enterprise Grid), when Slack says.
    pub enterprise_id: Option<String>,
}

/// What the user looks at in Slack while talking to the agent (Slack's `context`: its
/// `entities`; none when they look at nothing Slack shares). Stored as Slack writes it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AgentContext {
    /// The entities, in Slack's order.
    #[serde(default)]
    pub entities: Vec<ContextEntity>,
}

/// The agent's DM with one user: where the Messages tab's prompts go.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AgentDm {
    /// The DM channel (`D…`).
    pub channel_id: String,
    /// The user.
    pub user_id: String,
    /// What the user looks at (from the event, or as last kept).
    pub context: AgentContext,
}

/// A conversation in the agent's DM: a top-level message and the replies in its thread.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AgentThread {
    /// The DM channel.
    pub channel_id: String,
    /// The thread's root: the message's `thread_ts`, or its own `ts` when it is top-level.
    pub thread_ts: String,
    /// Who wrote the message.
    pub user_id: String,
    /// What the user looks at (the message's own `app_context`, or as last kept).
    pub context: AgentContext,
}

impl ThreadAddress for AgentThread {
    fn channel_id(&self) -> &str {
        &self.channel_id
    }

    fn thread_ts(&self) -> &str {
        &self.thread_ts
    }
}

/// The state key under which a user's context in the agent's DM is kept.
pub fn context_key(channel_id: &str, user_id: &str) -> String {
    format!("agent:context:{channel_id}:{user_id}")
}

/// Whether an `app_home_opened` opened the Messages tab (the agent's DM), not the Home tab.
pub fn opens_messages_tab(raw: &Value) -> bool {
    raw.get("tab").and_then(Value::as_str) == Some(MESSAGES_TAB)
}

/// Whether a message is a person's in a DM with the app (top-level or in a thread).
pub fn in_agent_dm(m: &Message) -> bool {
    m.channel_type.as_deref() == Some("im") && m.user.is_some()
}

/// The `assistant.threads.setSuggestedPrompts` arguments that pin up to four `prompts` to the
/// Messages tab of `channel_id`: no `thread_ts` (bolt-js's agent guide, `agent_view`).
pub fn tab_prompts_args(channel_id: &str, title: Option<&str>, prompts: &[Prompt]) -> Value {
    let mut args = json!({ "channel_id": channel_id, "prompts": prompts.iter().take(4).collect::<Vec<_>>() });
    if let Some(title) = title {
        args["title"] = json!(title);
    }
    args
}

impl AgentContext {
    /// The context in Slack's shape (`{"entities": [...]}`), or why it is not one.
    pub fn from_slack(raw: &Value) -> Result<AgentContext, String> {
        serde_json::from_value(raw.clone()).map_err(|e| format!("a context Slack should not send: {e}"))
    }

    /// The channel the user looks at: a channel entity's id, else a message's channel.
    pub fn channel_id(&self) -> Option<&str> {
        let channel = self.entities.iter().find_map(|e| match &e.viewed {
            Viewed::Channel(id) => Some(id.as_str()),
            _ => None,
        });
        channel.or_else(|| {
            self.entities.iter().find_map(|e| match &e.viewed {
                Viewed::Message { channel_id, .. } => Some(channel_id.as_str()),
                _ => None,
            })
        })
    }
}

impl ContextEntity {
    /// `viewed` in the workspace `team_id`.
    pub fn new(viewed: Viewed, team_id: Option<&str>) -> ContextEntity {
        ContextEntity { viewed, team_id: team_id.map(str::to_string), enterprise_id: None }
    }
}

fn str_of(v: &Value, name: &str) -> Option<String> {
    v.get(name).and_then(Value::as_str).map(str::to_string)
}

impl TryFrom<Value> for ContextEntity {
    type Error = String;

    fn try_from(raw: Value) -> Result<ContextEntity, String> {
        let kind = str_of(&raw, "type").ok_or("a context entity without a type")?;
        let value = raw.get("value").cloned().unwrap_or(Value::Null);
        let id = || value.as_str().map(str::to_string).ok_or_else(|| format!("a {kind} entity without its id (value)"));
        let viewed = match kind.as_str() {
            CHANNEL_ENTITY => Viewed::Channel(id()?),
            CANVAS_ENTITY => Viewed::Canvas(id()?),
            LIST_ENTITY => Viewed::List(id()?),
            MESSAGE_ENTITY => {
                let field = |name: &str| str_of(&value, name).ok_or_else(|| format!("a {kind} entity without value.{name}"));
                Viewed::Message { channel_id: field("channel_id")?, message_ts: field("message_ts")? }
            }
            _ => Viewed::Unknown { kind, value },
        };
        Ok(ContextEntity { viewed, team_id: str_of(&raw, "team_id"), enterprise_id: str_of(&raw, "enterprise_id") })
    }
}

impl From<ContextEntity> for Value {
    fn from(e: ContextEntity) -> Value {
        let (kind, value) = match e.viewed {
            Viewed::Channel(id) => (CHANNEL_ENTITY.to_string(), json!(id)),
            Viewed::Canvas(id) => (CANVAS_ENTITY.to_string(), json!(id)),
            Viewed::List(id) => (LIST_ENTITY.to_string(), json!(id)),
            Viewed::Message { channel_id, message_ts } => (MESSAGE_ENTITY.to_string(), json!({ "channel_id": channel_id, "message_ts": message_ts })),
            Viewed::Unknown { kind, value } => (kind, value),
        };
        let mut out = Map::new();
        out.insert("type".into(), json!(kind));
        out.insert("value".into(), value);
        for (name, field) in [("team_id", e.team_id), ("enterprise_id", e.enterprise_id)] {
            if let Some(field) = field {
                out.insert(name.into(), json!(field));
            }
        }
        Value::Object(out)
    }
}

/// Whether a context an event carries is kept for the user (an event about the context) or only
/// read (a message).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Carried {
    /// Written to the state before the handler runs.
    Kept,
    /// Used for this handler only.
    ReadOnly,
}

fn required(raw: &Value, name: &str) -> Result<String, HandlerError> {
    let kind = raw.get("type").and_then(Value::as_str).unwrap_or("the event");
    str_of(raw, name).ok_or_else(|| HandlerError(format!("{kind} without its {name}")))
}

/// The context `raw` carries in `field` (kept for the user if `carried` says so), else the one
/// last kept for them in `channel_id`.
fn context_for(cx: &mut Cx, raw: &Value, field: &str, channel_id: &str, user_id: &str, carried: Carried) -> Result<AgentContext, HandlerError> {
    let key = context_key(channel_id, user_id);
    match raw.get(field) {
        Some(value) => {
            let context = AgentContext::from_slack(value).map_err(|e| HandlerError(format!("{field}: {e}")))?;
            if carried == Carried::Kept {
                cx.state().put(&key, &context)?;
            }
            Ok(context)
        }
        None => Ok(cx.state().get::<AgentContext>(&key)?.unwrap_or_default()),
    }
}

impl AgentDm {
    /// The DM an `app_home_opened` (Messages tab) or `app_context_changed` is about; the context it
    /// carries is kept for the user, and one it does not carry is read as last kept.
    fn of_event(raw: &Value, cx: &mut Cx) -> Result<AgentDm, HandlerError> {
        let (channel_id, user_id) = (required(raw, "channel")?, required(raw, "user")?);
        let context = context_for(cx, raw, "context", &channel_id, &user_id, Carried::Kept)?;
        Ok(AgentDm { channel_id, user_id, context })
    }
}

impl AgentThread {
    /// The thread a user's DM message belongs to, with the user's context.
    fn of_message(m: &MessageIn<'_>, cx: &mut Cx) -> Result<AgentThread, HandlerError> {
        let user_id = m.message.user.clone().ok_or("a DM message without its user")?;
        let channel_id = m.message.channel.clone();
        let context = context_for(cx, m.raw, "app_context", &channel_id, &user_id, Carried::ReadOnly)?;
        Ok(AgentThread { thread_ts: m.thread().to_string(), channel_id, user_id, context })
    }
}

impl Listeners {
    /// A user opened the agent's DM (`app_home_opened` on the Messages tab; the Home tab is not
    /// this, and goes on to the next listener): typically answered with
    /// [`Cx::set_agent_prompts`]. A context the event carries is kept before the handler runs.
    pub fn agent_opened(self, handler: impl Fn(&AgentDm, &mut Cx) -> HandlerResult + 'static) -> Listeners {
        self.with(Route::AgentOpened(Box::new(move |e: &EventIn<'_>, cx: &mut Cx| handler(&AgentDm::of_event(e.raw, cx)?, cx))))
    }

    /// What the user looks at changed (`app_context_changed`): a channel, a canvas, a list, a
    /// message. The new context is kept before the handler runs, for the user's next message in
    /// the DM (a handler may do nothing else: `|_, _| Ok(())`).
    pub fn agent_context_changed(self, handler: impl Fn(&AgentDm, &mut Cx) -> HandlerResult + 'static) -> Listeners {
        self.event(APP_CONTEXT_CHANGED, move |e, cx| {
            if e.raw.get("context").is_none() {
                return Err(HandlerError(format!("{APP_CONTEXT_CHANGED} without its context")));
            }
            handler(&AgentDm::of_event(e.raw, cx)?, cx)
        })
    }

    /// What a person writes in a DM with the app, top-level (the root of its own thread) or in a
    /// thread, with that thread and the user's context. The first matching listener wins:
    /// register [`assistant_message`](Listeners::assistant_message) before this to keep legacy
    /// assistant threads' replies there, and either before any broader `message` listener.
    pub fn agent_message(self, handler: impl for<'a> Fn(&MessageIn<'a>, &AgentThread, &mut Cx) -> HandlerResult + 'static) -> Listeners {
        self.with(Route::AgentMessage(Box::new(move |m: &MessageIn<'_>, cx: &mut Cx| handler(m, &AgentThread::of_message(m, cx)?, cx))))
    }
}

impl Cx {
    /// Up to four prompts pinned to the top of the agent's Messages tab, with an optional title
    /// (`assistant.threads.setSuggestedPrompts` with the DM and no `thread_ts`).
    pub fn set_agent_prompts(&mut self, dm: &AgentDm, title: Option<&str>, prompts: &[Prompt]) -> EffectRef<'_> {
        self.api(method::ASSISTANT_THREADS_SET_SUGGESTED_PROMPTS, tab_prompts_args(&dm.channel_id, title, prompts)).named("set_agent_prompts")
    }
}

#[cfg(test)]
mod tests;
