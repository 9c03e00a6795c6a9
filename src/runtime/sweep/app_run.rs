//! The app run inside the team actor for a claimed row, not for a request ([`AppHandlers`], the
//! [`Handlers`] the sweep gives every row's job): a redriven
//! `handler_failed` request (`crate::kinds::redrive`) and a schedule's firing
//! (`crate::kinds::schedule::fire`). Both read the team's state through the actor's SQLite at the
//! runtime's clock ([`context`]) and end the same way ([`outcome`]): what the handler decided is
//! stored with the row's fenced completion — its effects as follow-up rows, its state change once
//! per fact — so a completion that is fenced (another sweep owns the row now) stores none of it,
//! and a run again after a crash adds nothing twice (the rows' keys and the state's fact are the
//! same); a handler that fails parks the row as `handler_failed`, for a redrive.

use crate::app::{self, App, Context, Decision, HandlerOutput};
use crate::config::Config;
use crate::kinds::answer::Answered;
use crate::kinds::completion::{AfterWrite, JobOutcome, NewRow};
use crate::kinds::job::{Handlers, Job};
use crate::kinds::registry::Action;
use crate::kinds::schedule::Fired;
use crate::logs::{ErrorLine, LogLine};
use crate::outbox::reasons;
use crate::platform::state::SqlState;
use crate::platform::{clock, log};
use crate::slack::classify::Verdict;
use crate::slack::envelope::Dispatch;
use std::rc::Rc;
use worker::SqlStorage;

/// The team actor's app, as the rows' jobs run it ([`Handlers`]).
pub struct AppHandlers<'a>(pub &'a dyn App);

impl Handlers for AppHandlers<'_> {
    fn redrive(&self, job: &Job<'_>, dispatch: &Dispatch) -> JobOutcome {
        let output = app::decide(self.0, dispatch, &context(job));
        outcome(output, &format!("a redrive of {}", dispatch.op_key()), None)
    }

    fn fire(&self, job: &Job<'_>, fired: &Fired) -> JobOutcome {
        let output = app::fire(self.0, fired, &context(job));
        outcome(output, &format!("the firing of schedule {:?}", fired.key), Some(reasons::NO_LISTENER))
    }

    fn answered(&self, job: &Job<'_>, answered: &Answered) -> JobOutcome {
        listener_outcome(self.0, job.sql, job.config, answered)
    }
}

/// A result listener's run on an effect's end, as the row's outcome: its writes, or the row
/// parked (`handler_failed`, `no_listener`). The one run both a redrive of a kept answer and the
/// effect's own completion ([`answered_in_completion`]) go through.
fn listener_outcome(app: &dyn App, sql: &SqlStorage, config: &Config, answered: &Answered) -> JobOutcome {
    let output = app::answered(app, answered, &context_of(sql, config));
    outcome(output, &format!("the result listener {:?} of {}", answered.listener, answered.key), Some(reasons::NO_LISTENER))
}

/// How a result listener ran in its effect's completion ([`answered_in_completion`]).
pub enum ListenerRan {
    /// It ran: what it decided, to store with the effect's end.
    Stored(Vec<AfterWrite>),
    /// It failed (or the app has none of that name): the row parks for `reason`, its action
    /// rewritten to keep the answer for a redrive.
    Parked {
        /// `handler_failed` or `no_listener`.
        reason: String,
        /// The rewrite to an `Action::Answer`.
        keep: Box<AfterWrite>,
    },
}

/// The result listener of an effect that just ended, run in the effect's completion: what to
/// store with it, or, when the listener failed (or the app has none of that name), the reason to
/// park the row for, with the answer kept for a redrive ([`AfterWrite::Rewrite`] to an
/// `Action::Answer`).
pub fn answered_in_completion(app: &dyn App, sql: &SqlStorage, config: &Config, answered: Answered) -> ListenerRan {
    let ended = listener_outcome(app, sql, config, &answered);
    match ended.verdict {
        Verdict::Permanent { code } => ListenerRan::Parked { reason: code, keep: Box::new(AfterWrite::Rewrite(Action::Answer { answered })) },
        _ => ListenerRan::Stored(ended.writes),
    }
}

/// The handlers' context for a row's run: the team's state, the runtime's clock.
fn context(job: &Job<'_>) -> Context {
    context_of(job.sql, job.config)
}

/// The same, from the actor's SQL handle and settings.
fn context_of(sql: &SqlStorage, config: &Config) -> Context {
    Context::of(config).with_state(Rc::new(SqlState { sql: sql.clone() })).at(clock::now_ms())
}

/// What the run of the app on behalf of `what` (for the log) stores with the row's completion:
/// its effects and state change (done), nothing (ignored: done, or parked as `ignored` when
/// given), or the row parked as `handler_failed`.
fn outcome(output: HandlerOutput, what: &str, ignored: Option<&str>) -> JobOutcome {
    match output.decision {
        Decision::Enqueue(effects) => {
            let now = clock::now_ms();
            let mut writes: Vec<AfterWrite> = effects.into_iter().map(|e| AfterWrite::Followup(NewRow::queued_at(e, now))).collect();
            writes.extend(output.state.map(AfterWrite::State));
            JobOutcome { writes, ..JobOutcome::verdict(Verdict::Success) }
        }
        Decision::Ignore(_) => match ignored {
            Some(code) => JobOutcome::verdict(Verdict::Permanent { code: code.into() }),
            None => JobOutcome::verdict(Verdict::Success),
        },
        Decision::Failed(why) => {
            log::error(LogLine::AdminError(ErrorLine::new(format!("handler_failed on {what}: {why}"))));
            JobOutcome::verdict(Verdict::Permanent { code: reasons::HANDLER_FAILED.into() })
        }
    }
}
