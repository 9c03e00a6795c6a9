//! A schedule's firing (`cx.schedule(key, when).run()`), due now: the app's `on_schedule`
//! listener runs inside the team actor (`runtime::sweep::app_run`, as a redrive does), with the
//! team's state and the runtime's clock, and what it decides is stored with the firing row's
//! fenced completion — one unit: its effects (keyed by the firing's fact, `fire:{key}@{due}`, so
//! a run again after a crash adds nothing twice), its state change, the row done and, for a
//! recurring schedule, its next occurrence. A handler that fails parks the firing as
//! `handler_failed`; one no listener takes, as `no_listener`: kept, redrivable, never lost.

use super::Fired;
use crate::kinds::completion::JobOutcome;
use crate::kinds::job::Job;

/// Runs the listener of the schedule `key`'s occurrence due at `due`.
pub fn run(job: &Job<'_>, key: &str, due: i64) -> JobOutcome {
    let fired = Fired { key: key.to_string(), due_at: due };
    job.app.fire(job, &fired)
}
