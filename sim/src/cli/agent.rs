//! The agent messaging experience's inputs (`agent_view`, 2026): `agent-open` (the user opens the
//! agent's DM on its Messages tab), `agent-dm` (they write in it: a top-level message, the root of
//! its own thread, or with `--thread` a reply) and `context` (what they look at changes: a channel,
//! a canvas, a list, a message). Each is one signed event, sent like the other inputs
//! (`super::run_input`), its ack printed.
//!
//! The three share the conversation's two ids: `--user` (default `U1`) and `--dm`, the agent's DM
//! with them (default `D` + the user, the test kit's convention), so a context set by `context`
//! is the one the next `agent-dm` of that user reads — in the same team: pass `--team` to each,
//! since the default is a fresh one per command.

use super::{Input, InputOptions};
use clap::Args;
use serde_json::{json, Value};

/// The user and their DM with the agent.
#[derive(Debug, Clone, PartialEq, Args)]
pub struct Conversation {
    /// The user
    #[arg(long, value_name = "U", default_value = "U1")]
    user: String,
    /// The agent's DM with them [default: D followed by the user]
    #[arg(long, value_name = "D")]
    dm: Option<String>,
}

impl Conversation {
    fn ids(self) -> (String, String) {
        let dm = self.dm.unwrap_or_else(|| format!("D{}", self.user));
        (self.user, dm)
    }
}

/// `agent-open`'s options.
#[derive(Debug, Clone, PartialEq, Args)]
pub struct OpenOptions {
    #[command(flatten)]
    pub(super) input: InputOptions,
    #[command(flatten)]
    conversation: Conversation,
}

/// `agent-dm`'s options.
#[derive(Debug, Clone, PartialEq, Args)]
pub struct DmOptions {
    #[command(flatten)]
    pub(super) input: InputOptions,
    #[command(flatten)]
    conversation: Conversation,
    /// The message's text
    #[arg(long, value_name = "T")]
    text: String,
    /// Reply in this thread (a top-level message's ts) [default: a top-level message]
    #[arg(long, value_name = "TS")]
    thread: Option<String>,
}

/// `context`'s options: what the user now looks at (none of them: nothing Slack shares).
#[derive(Debug, Clone, PartialEq, Args)]
pub struct ContextOptions {
    #[command(flatten)]
    pub(super) input: InputOptions,
    #[command(flatten)]
    conversation: Conversation,
    /// A channel
    #[arg(long, value_name = "C")]
    channel: Option<String>,
    /// A canvas
    #[arg(long, value_name = "F")]
    canvas: Option<String>,
    /// A Slack List
    #[arg(long, value_name = "F")]
    list: Option<String>,
    /// A message
    #[arg(long, value_name = "C:TS", value_parser = channel_and_ts)]
    message: Option<(String, String)>,
}

fn channel_and_ts(text: &str) -> Result<(String, String), String> {
    match text.split_once(':') {
        Some((channel, ts)) if !channel.is_empty() && !ts.is_empty() => Ok((channel.into(), ts.into())),
        _ => Err(format!("--message takes CHANNEL:TS, not `{text}`")),
    }
}

/// One entity of a context, in Slack's shape.
fn entity(kind: &str, value: Value) -> Value {
    json!({"type": format!("slack#/types/{kind}"), "value": value})
}

impl OpenOptions {
    /// The input it sends.
    pub fn input(self) -> (InputOptions, Input) {
        let (user, dm) = self.conversation.ids();
        (self.input, Input::AgentOpen { user, dm })
    }
}

impl DmOptions {
    /// The input it sends.
    pub fn input(self) -> (InputOptions, Input) {
        let (user, dm) = self.conversation.ids();
        (self.input, Input::AgentDm { user, dm, text: self.text, thread_ts: self.thread })
    }
}

impl ContextOptions {
    /// The input it sends: the entities in the order channel, canvas, list, message.
    pub fn input(self) -> (InputOptions, Input) {
        let (user, dm) = self.conversation.ids();
        let entities = [
            self.channel.map(|c| entity("channel_id", json!(c))),
            self.canvas.map(|f| entity("canvas_id", json!(f))),
            self.list.map(|f| entity("list_id", json!(f))),
            self.message.map(|(channel, ts)| entity("message_context", json!({"channel_id": channel, "message_ts": ts}))),
        ];
        (self.input, Input::Context { user, dm, entities: entities.into_iter().flatten().collect() })
    }
}
