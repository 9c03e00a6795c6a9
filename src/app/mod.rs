//! The app's handlers: pure functions from what Slack sent to the effects we owe.
//!
//! An app implements [`App`]. The team actor calls it inside the atomic unit that records the
//! receipt, so a handler must be pure and fast: no I/O, no clock, no randomness. Everything slow
//! (Slack calls, token lookups, LLM calls) is an [`Effect`] that the outbox
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
#[cfg(any(test, feature = "testkit"))]
pub mod tally;

pub use crate::config::Vars;
pub use default_app::{strip_mentions, DefaultApp, RESOLVE_ACTION_ID};
pub use make::{make_app, MakeApp};

use crate::effect::Effect;
use crate::slack::envelope::{Dispatch, EventEnvelope, Interaction, SlashCommand};
use crate::state::{StateChange, StateReader};
use serde_json::Value;
use std::cell::RefCell;
use std::rc::Rc;

/// What the handler knows besides the request itself.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// True when an LLM endpoint is configured (`LLM_API_URL`).
    pub llm_enabled: bool,
    /// The team's state as the handler may read it, and what it hands over to the unit.
    pub state: StateSlot,
}

impl Context {
    /// The handlers' context under this deployment's settings.
    pub fn of(config: &crate::config::Config) -> Context {
        Context { llm_enabled: config.llm.is_some(), ..Context::default() }
    }

    /// The same context, its handlers reading the team's state from `reader`.
    pub fn with_state(mut self, reader: Rc<dyn StateReader>) -> Context {
        self.state = StateSlot { reader: Some(reader), change: Rc::default() };
        self
    }
}

/// The team's state for one request: the reader the handler's [`State`](crate::state::State)
/// reads through (none: an empty store), and the change a successful handler hands over for the
/// unit to apply. A failed handler hands over nothing.
#[derive(Clone, Default)]
pub struct StateSlot {
    reader: Option<Rc<dyn StateReader>>,
    change: Rc<RefCell<Option<StateChange>>>,
}

impl std::fmt::Debug for StateSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateSlot").field("reader", &self.reader.is_some()).field("change", &self.change.borrow()).finish()
    }
}

impl StateSlot {
    /// The reader (an empty in-memory store when the context has none).
    pub fn reader(&self) -> Rc<dyn StateReader> {
        self.reader.clone().unwrap_or_else(|| Rc::new(crate::state::MemState::new()))
    }

    /// Hands over a successful handler's change (called by the listener API, or an `App` of
    /// one's own, when the handler returns and its effects stand).
    pub fn hand_over(&self, change: StateChange) {
        *self.change.borrow_mut() = Some(change).filter(|c| !c.writes.is_empty());
    }

    /// The change handed over, taken (by the team actor, for the unit).
    pub fn take(&self) -> Option<StateChange> {
        self.change.borrow_mut().take()
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
    /// Whether the value of this state key is secret: the admin API and page show the key, never
    /// its value. By default: none is.
    fn is_secret_state(&self, _key: &str) -> bool {
        false
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
