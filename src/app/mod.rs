//! The app's handlers: pure functions from what Slack sent to the effects we owe.
//!
//! An app implements [`App`]. The team actor calls it inside the atomic unit that records the
//! receipt, so a handler must be pure and fast: no I/O, no clock, no randomness. Everything slow
//! (Slack calls, token lookups, LLM calls) is an [`Effect`](crate::effect::Effect) that the outbox
//! performs after the ack. [`DefaultApp`] is the app slackline ships. An app that needs settings
//! of its own reads them from the deployment's [`Vars`] when it is built ([`MakeApp`]).
//!
//! ```
//! use slackline::app::{App, Context, Decision, CommandReply};
//! use slackline::slack::envelope::{EventEnvelope, Interaction, SlashCommand};
//!
//! struct Quiet;
//! impl App for Quiet {
//!     fn on_event(&self, _: &EventEnvelope, _: &Context) -> Decision { Decision::Ignore("quiet") }
//!     fn on_command(&self, _: &SlashCommand, _: &Context) -> CommandReply {
//!         CommandReply { ack: serde_json::json!({"text": "shh"}), decision: Decision::Ignore("quiet") }
//!     }
//!     fn on_interaction(&self, _: &Interaction, _: &Context) -> Decision { Decision::Ignore("quiet") }
//! }
//! ```

mod default_app;
pub mod guard;
pub mod listen;
mod make;

pub use crate::config::Vars;
pub use default_app::{strip_mentions, DefaultApp, RESOLVE_ACTION_ID};
pub use make::{make_app, MakeApp};

use crate::effect::Effect;
use crate::slack::envelope::{Dispatch, EventEnvelope, Interaction, SlashCommand};
use serde_json::Value;

/// What the handler knows besides the request itself.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// True when an LLM endpoint is configured (`LLM_API_URL`).
    pub llm_enabled: bool,
}

impl Context {
    /// The handlers' context under this deployment's settings.
    pub fn of(config: &crate::config::Config) -> Context {
        Context { llm_enabled: config.llm.is_some() }
    }
}

/// A handler's answer for one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Queue these effects (an empty list is allowed: recorded, nothing to do).
    Enqueue(Vec<Effect>),
    /// Nothing to do; the reason is logged (`bot_message`, `own_message`, ...).
    Ignore(&'static str),
    /// The handler gave up (its error): the event must still be recorded, its work parked as
    /// `handler_failed` for an operator to redrive once the handler is fixed.
    Failed(String),
}

/// A slash command's immediate answer (the HTTP 200 body) and its later work.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandReply {
    /// The JSON body Slack shows at once (e.g. an ephemeral "working on it").
    pub ack: Value,
    /// The work to do after the ack.
    pub decision: Decision,
}

/// The app: one function per kind of request. All pure.
pub trait App {
    /// An Events API event.
    fn on_event(&self, event: &EventEnvelope, ctx: &Context) -> Decision;
    /// A slash command.
    fn on_command(&self, command: &SlashCommand, ctx: &Context) -> CommandReply;
    /// An interactivity payload.
    fn on_interaction(&self, interaction: &Interaction, ctx: &Context) -> Decision;
    /// An interactivity payload, with the ack's body when Slack wants one (a `view_submission`'s
    /// `response_action`, a `block_suggestion`'s options). By default: none.
    fn on_interaction_ack(&self, interaction: &Interaction, ctx: &Context) -> (Decision, Option<Value>) {
        (self.on_interaction(interaction, ctx), None)
    }
}

/// Runs the app on one dispatch: its decision, and the immediate body for a command.
///
/// A handler that panics fails like one that returns an error ([`Decision::Failed`], the
/// panic's message and location as the reason, no ack body): see [`guard`].
pub fn decide(app: &dyn App, dispatch: &Dispatch, ctx: &Context) -> (Decision, Option<Value>) {
    guard::guarded(|| match dispatch {
        Dispatch::Event(e) => (app.on_event(e, ctx), None),
        Dispatch::Command(c) => {
            let reply = app.on_command(c, ctx);
            (reply.decision, Some(reply.ack))
        }
        Dispatch::Interaction(i) => app.on_interaction_ack(i, ctx),
    })
    .unwrap_or_else(|why| (Decision::Failed(why), None))
}
