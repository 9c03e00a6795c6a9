//! How one request's run goes and ends: the [`Turn`] it takes through the middleware and the
//! listener that takes it, with one [`Cx`], and the [`Ran`] it ends in, which [`settle`] turns
//! into the app's output.
//!
//! Invariant: what the unit records is what the `Cx` holds when the run ends, by the rule
//! [`settle`] states, and only then: an ignored run keeps its ack body alone, a failed one nothing.

use super::cx::Cx;
use super::middleware::{self, Middleware, Next};
use super::{HandlerError, HandlerResult};
use crate::app::{Decision, HandlerOutput};
use crate::slack::envelope::Dispatch;
use crate::state::StateChange;

/// How a request's run ended, before [`settle`] takes its context's effects and ack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Ran {
    /// A listener took it and its handler returned `Ok`.
    Handled,
    /// Nothing is to be done, for this reason (`no_listener`, `bot_message`, a middleware's).
    Ignored(&'static str),
    /// The handler, or a middleware, gave up with this error.
    Failed(String),
}

impl From<HandlerResult> for Ran {
    fn from(result: HandlerResult) -> Ran {
        match result {
            Ok(()) => Ran::Handled,
            Err(HandlerError(why)) => Ran::Failed(why),
        }
    }
}

/// One request's run through the middleware and the listeners: the request and the context
/// every step of it shares.
pub(super) struct Turn<'r> {
    pub(super) request: &'r Dispatch,
    pub(super) cx: &'r mut Cx,
}

impl Turn<'_> {
    /// Runs `chain`: `None` when every middleware lets the request continue, else how the run
    /// ended.
    pub(super) fn stops(&mut self, chain: &[Middleware]) -> Option<Ran> {
        match middleware::run_chain(chain, self.request, self.cx) {
            Ok(Next::Continue) => None,
            Ok(Next::Ignore(reason)) => Some(Ran::Ignored(reason)),
            Err(HandlerError(why)) => Some(Ran::Failed(why)),
        }
    }

    /// Runs the listener that took the request: its groups' middleware (`chain`), then `handler`.
    pub(super) fn run(&mut self, chain: &[Middleware], handler: impl FnOnce(&mut Cx) -> HandlerResult) -> Ran {
        match self.stops(chain) {
            Some(stopped) => stopped,
            None => handler(self.cx).into(),
        }
    }
}

/// The output of a run: a failure carries nothing of the context; an ignored request keeps only
/// its ack body; a handled one hands over its effects, ack and state writes — unless a helper was
/// misused (the run fails) or the ack refuses a submission (nothing is queued or written).
pub(super) fn settle(ran: Ran, mut cx: Cx) -> HandlerOutput {
    let fact = cx.origin().fact.clone();
    match ran {
        Ran::Failed(why) => return HandlerOutput::of(Decision::Failed(why)),
        Ran::Ignored(reason) => return HandlerOutput { ack: cx.finish().1, ..HandlerOutput::of(Decision::Ignore(reason)) },
        Ran::Handled => {}
    }
    if let Some(why) = cx.misuse() {
        return HandlerOutput::of(Decision::Failed(why.to_string()));
    }
    // A refused submission changes nothing: the user fixes the fields and submits again.
    if cx.refuses() {
        let (_, ack) = cx.finish();
        return HandlerOutput { ack, ..HandlerOutput::of(Decision::Enqueue(Vec::new())) };
    }
    let writes = cx.take_state();
    let (effects, ack) = cx.finish();
    let state = Some(StateChange { fact, writes }).filter(|c| !c.writes.is_empty());
    HandlerOutput { decision: Decision::Enqueue(effects), ack, state }
}
