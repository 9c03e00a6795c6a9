//! The app's handlers: pure functions from what Slack sent to the effects we owe.
//!
//! An app implements [`App`] (sealed: [`listen::Listeners`] and [`DefaultApp`] do): one function, [`App::handle`], from a request to one
//! [`HandlerOutput`] — the decision (effects to queue, ignored, or failed), the ack's body when
//! Slack wants one, and the state change to apply with the unit. The team actor calls it inside
//! the atomic unit that records the receipt, so a handler must be pure and fast: no I/O, no
//! randomness, and no clock but the context's (`Context::now_ms`, `cx.now()`). A schedule's firing
//! runs the app too ([`App::fire`]), inside the actor when it falls due. Everything slow (Slack calls, token lookups, LLM calls) is an
//! [`Effect`] that the outbox performs after the ack. [`listen::Listeners`] is the app a bot
//! writes; [`DefaultApp`] is the app slackline ships. An app that needs settings of its own reads
//! them from the deployment's [`Vars`] when it is built ([`MakeApp`]).
//!
//! Invariant: every request, of every kind, ends in one `HandlerOutput`, and the runtime reads
//! nothing else from a handler run (no side channel): what the unit records is exactly its fields.
//!
mod default_app;
pub mod guard;
pub mod listen;
mod make;
#[cfg(any(test, feature = "testkit"))]
pub mod tally;

pub use crate::config::Vars;
pub use default_app::{strip_mentions, DefaultApp, RESOLVE_ACTION_ID};
pub use make::{make_app, MakeApp};

use crate::kinds::answer::Answered;
use crate::kinds::registry::Effect;
pub use crate::kinds::schedule::Fired;
use crate::slack::envelope::Dispatch;
use crate::state::{StateChange, StateReader};
use serde_json::Value;
use std::rc::Rc;

/// What the handler knows besides the request itself.
#[derive(Clone, Default)]
pub struct Context {
    /// True when an LLM endpoint is configured (`LLM_API_URL`).
    pub llm_enabled: bool,
    /// The time the handler runs at (epoch ms; `cx.now()`): the runtime's clock when the request
    /// or the firing is handled, the test clock in tests.
    pub now_ms: i64,
    /// The team's state as the handler may read it (none: an empty store).
    reader: Option<Rc<dyn StateReader>>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context").field("llm_enabled", &self.llm_enabled).field("now_ms", &self.now_ms).field("reader", &self.reader.is_some()).finish()
    }
}

impl Context {
    /// The handlers' context under this deployment's settings.
    pub fn of(config: &crate::config::Config) -> Context {
        Context { llm_enabled: config.llm.is_some(), ..Context::default() }
    }

    /// The same context at the time `now_ms` (what `cx.now()` says).
    pub fn at(mut self, now_ms: i64) -> Context {
        self.now_ms = now_ms;
        self
    }

    /// The same context, its handlers reading the team's state from `reader`.
    pub fn with_state(mut self, reader: Rc<dyn StateReader>) -> Context {
        self.reader = Some(reader);
        self
    }

    /// The reader (an empty in-memory store when the context has none).
    pub fn reader(&self) -> Rc<dyn StateReader> {
        self.reader.clone().unwrap_or_else(|| Rc::new(crate::state::MemState::new()))
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

/// Everything one handler run hands the team actor's unit, for every kind of request.
#[derive(Debug, Clone, PartialEq)]
pub struct HandlerOutput {
    /// What to do: queue effects, nothing, or record the failure.
    pub decision: Decision,
    /// The 200's body, when Slack wants one: a command's answer, a `view_submission`'s
    /// `response_action`, a `block_suggestion`'s options. `None`: an empty 200.
    pub ack: Option<Value>,
    /// The state the handler wrote, applied with the unit once per fact. Only a handler whose
    /// effects stand hands one over: an ignored or failed run changes nothing.
    pub state: Option<StateChange>,
}

impl HandlerOutput {
    /// A decision with no ack body and no state change.
    pub fn of(decision: Decision) -> HandlerOutput {
        HandlerOutput { decision, ack: None, state: None }
    }

    /// The same output, answering Slack with `ack` (a `null` ack is none).
    pub fn with_ack(mut self, ack: Value) -> HandlerOutput {
        self.ack = Some(ack).filter(|a| !a.is_null());
        self
    }
}

/// Keeps [`App`] slackline's own to implement: what the team actor asks of an app (its
/// [`HandlerOutput`], the engine's types) is not API, and may change in any release.
pub(crate) mod sealed {
    /// Implemented by slackline's apps only.
    pub trait Sealed {}
}

/// An app: what [`worker!`](crate::worker) serves and the [test kit](crate::testing) runs — a
/// [`Listeners`](crate::prelude::Listeners), or the shipped
/// [`DefaultApp`](crate::prelude::DefaultApp). Sealed: a bot builds its app from listeners and
/// middleware, and does not implement this trait.
///
/// (Inside the crate: one pure function from a request to its [`HandlerOutput`].)
pub trait App: sealed::Sealed {
    #[doc(hidden)]
    /// Handles an Events API event, a slash command or an interactivity payload.
    fn handle(&self, request: &Dispatch, ctx: &Context) -> HandlerOutput;
    #[doc(hidden)]
    /// Whether the value of this state key is secret: the admin API and page show the key, never
    /// its value. By default: none is.
    fn is_secret_state(&self, _key: &str) -> bool {
        false
    }
    #[doc(hidden)]
    /// Runs the app's listener for a schedule's firing (`cx.schedule(key, when).run()`), inside
    /// the team actor, in the unit that marks the firing done. By default no listener takes it
    /// (ignored with `no_listener`: the firing is parked for a redrive).
    fn fire(&self, _fired: &Fired, _ctx: &Context) -> HandlerOutput {
        HandlerOutput::of(Decision::Ignore("no_listener"))
    }
    #[doc(hidden)]
    /// Runs the app's result listener on an effect's end (`.then(name, …)`, `.on_result(name,
    /// …)`), inside the team actor, in the effect's completion. By default no listener takes it
    /// (ignored with `no_listener`: the effect's row is parked with its answer kept).
    fn answered(&self, _answered: &Answered, _ctx: &Context) -> HandlerOutput {
        HandlerOutput::of(Decision::Ignore("no_listener"))
    }
}

/// Runs the app on one request: the one place every handler run goes through, so the one place
/// that holds the output to its rule — only a run whose effects stand ([`Decision::Enqueue`])
/// hands over a state change; an ignored or failed one changes nothing, whatever it returned.
///
/// A handler that panics fails like one that returns an error ([`Decision::Failed`], the
/// panic's message and location as the reason, no ack body, no state): see [`guard`].
pub fn decide(app: &dyn App, dispatch: &Dispatch, ctx: &Context) -> HandlerOutput {
    held(|| app.handle(dispatch, ctx))
}

/// Runs the app's listener for a firing: held to the same rule as [`decide`] (only a run whose
/// effects stand hands over a state change; a panic fails it).
pub fn fire(app: &dyn App, fired: &Fired, ctx: &Context) -> HandlerOutput {
    held(|| app.fire(fired, ctx))
}

/// Runs the app's result listener on an effect's end: held to the same rule as [`decide`].
pub fn answered(app: &dyn App, answered: &Answered, ctx: &Context) -> HandlerOutput {
    held(|| app.answered(answered, ctx))
}

/// A run held to the rule: a panic fails it, and only a run whose effects stand hands over a
/// state change.
fn held(run: impl FnOnce() -> HandlerOutput) -> HandlerOutput {
    let mut output = guard::guarded(run).unwrap_or_else(|why| HandlerOutput::of(Decision::Failed(why)));
    if !matches!(output.decision, Decision::Enqueue(_)) {
        output.state = None;
    }
    output
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::StateWrite;
    use crate::testing::mention;

    /// An app of one's own that returns a state change beside any decision.
    struct Careless(Decision);
    impl sealed::Sealed for Careless {}
    impl App for Careless {
        fn handle(&self, _: &Dispatch, _: &Context) -> HandlerOutput {
            let writes = vec![StateWrite::Put { key: "k".into(), value: "1".into() }];
            HandlerOutput { state: Some(StateChange { fact: "f".into(), writes }), ..HandlerOutput::of(self.0.clone()) }
        }
    }

    #[test]
    fn only_a_run_whose_effects_stand_hands_over_its_state() {
        let request = mention("C1", "U1", "<@UBOT> hi");
        let state = |d: Decision| decide(&Careless(d), &request, &Context::default()).state;
        assert!(state(Decision::Enqueue(Vec::new())).is_some(), "queued: the change stands");
        assert_eq!(state(Decision::Ignore("quiet")), None, "ignored: nothing changes");
        assert_eq!(state(Decision::Failed("broken".into())), None, "failed: nothing changes");
    }
}
