//! The team's alarm as one actor instance knows it, pure: which `setAlarm` / `deleteAlarm` to
//! issue, and which one it may skip.
//!
//! The contract (the alarm invariant): **while a row is due, the stored alarm is set at or before
//! its due time**, whatever the interleaving of requests, alarms and the awaits inside them. Under
//! load most ingests find a sweep already due and skip their `setAlarm` (a billed row write);
//! [`AlarmView`] is what lets them, and it may never believe in an alarm that storage does not
//! hold.
//!
//! Why the view is written **when an operation is issued**, not when its await returns: storage
//! applies alarm operations in the order they are issued, but an actor is not closed while it
//! awaits one. The alarm an ingest just set to "now" can fire, sweep and re-arm the housekeeping
//! wake a day ahead before the ingest's `await` returns; had the ingest noted its "now" only then,
//! the view would say "armed at a past time" while storage said "tomorrow", and the next ingest
//! would skip its `setAlarm` — rows acked, no sweep for a day (issue 33). Written at issue time,
//! the view always names the last operation issued, which is what storage holds once the pending
//! operations land — until the alarm fires ([`AlarmView::fired`]: from then on storage holds
//! whatever the sweep or a concurrent ingest sets, so the view forgets) or an operation fails
//! ([`AlarmView::failed`]: its effect is unknown).
//!
//! Not knowing is always safe: [`Known::Unknown`] makes the next [`AlarmView::arm_by`] write.
//! The model in the tests below runs every interleaving of ingests, sweeps and their awaits
//! against a storage that behaves as the runtime's does, and checks that no row is ever left due
//! without an alarm.
//!
//! **Housekeeping is not the alarm's when nothing else is** ([`next_wake`]): a sweep that leaves
//! rows pending sets the alarm to the earliest of their due time and the housekeeping's; one that
//! leaves none asks the directory to wake the team for its housekeeping instead
//! ([`NextWake::Directory`], `runtime::directory`), once per actor instance while the time it
//! holds comes no later ([`must_ask`]). So a quiet team's event pays one `setAlarm` (the ingest's,
//! to now), not two: the sweep that delivered it no longer moves the alarm a day ahead again.
//! Should the directory not answer, the sweep sets the alarm to the housekeeping time as before.
//!
//! The safety net ([`overdue`], [`covers`]) checks the invariant against storage itself, for what
//! no model covers: a row due for longer than a grace with no alarm at or before it is re-armed
//! and reported (`alert: alarm_missing`).

use serde::{Deserialize, Serialize};
use std::cell::Cell;

/// What this instance knows the stored alarm to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Known {
    /// Nothing: the instance is new, its alarm has fired since it last set one, or an operation
    /// failed. The next [`AlarmView::arm_by`] sets the alarm.
    #[default]
    Unknown,
    /// The last operation this instance issued set the alarm to this time (epoch ms), and that
    /// alarm has not fired yet.
    Set(i64),
    /// The last operation this instance issued deleted the alarm.
    Cleared,
}

/// An operation on the stored alarm: issue it at once, before any await (the view already counts
/// it as done).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlarmOp {
    /// `setAlarm(at)`.
    Set(i64),
    /// `deleteAlarm()`.
    Delete,
}

/// One actor instance's view of its stored alarm (see the module docs for why it is exact).
#[derive(Debug, Default)]
pub struct AlarmView {
    known: Cell<Known>,
}

impl AlarmView {
    /// A sweep must start no later than `at`: the `setAlarm` to issue, unless an alarm this
    /// instance set is due by then already.
    pub fn arm_by(&self, at: i64) -> Option<AlarmOp> {
        match self.known.get() {
            Known::Set(armed) if armed <= at => None,
            _ => Some(self.arm(at)),
        }
    }

    /// The alarm is to be set to `at` whatever it is now (a sweep's end): the `setAlarm` to issue.
    pub fn arm(&self, at: i64) -> AlarmOp {
        self.known.set(Known::Set(at));
        AlarmOp::Set(at)
    }

    /// Nothing is pending and no housekeeping is due: the `deleteAlarm` to issue, when an alarm
    /// this instance set may still be stored. (After [`AlarmView::fired`], an alarm nobody set
    /// again is gone once the handler returns; one a request set meanwhile is kept, at worst one
    /// empty sweep.)
    pub fn disarm(&self) -> Option<AlarmOp> {
        match self.known.get() {
            Known::Set(_) => {
                self.known.set(Known::Cleared);
                Some(AlarmOp::Delete)
            }
            Known::Unknown | Known::Cleared => None,
        }
    }

    /// The alarm handler started: the alarm that fired is no longer pending, and what storage
    /// holds from now on is whatever is set while the handler runs.
    pub fn fired(&self) {
        self.known.set(Known::Unknown);
    }

    /// An issued operation failed: whether it took effect is unknown.
    pub fn failed(&self) {
        self.known.set(Known::Unknown);
    }
}

/// What a sweep's end arms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NextWake {
    /// The alarm, at this time: rows are pending (due then, or housekeeping sooner).
    Alarm(i64),
    /// Nothing is pending; the housekeeping is due at this time: the directory's wake.
    Directory(i64),
    /// Nothing is pending and no housekeeping is due: no wake at all.
    Nothing,
}

/// The wake a sweep's end needs: `work_at`, when the earliest pending row is due (or a claim
/// runs out), and `housekeeping_at`, when the housekeeping is next due.
pub fn next_wake(work_at: Option<i64>, housekeeping_at: Option<i64>) -> NextWake {
    match (work_at, housekeeping_at) {
        (Some(work), housekeeping) => NextWake::Alarm(housekeeping.map_or(work, |h| h.min(work))),
        (None, Some(housekeeping)) => NextWake::Directory(housekeeping),
        (None, None) => NextWake::Nothing,
    }
}

/// Whether the directory must be asked for a wake at `at`, when this instance last learned it
/// holds one at `held` (its answer to an ask, or the wake it sent): unless that comes no later.
pub fn must_ask(held: Option<i64>, at: i64) -> bool {
    held.is_none_or(|held| held > at)
}

/// The safety net's question, without I/O: of `due` (the earliest time a pending row is due, as
/// the sweep computes it), whether it has been due for longer than `grace_ms` at `now`. Only then
/// is storage's alarm worth reading: a row just queued is covered by the alarm its own ingest set.
pub fn overdue(due: Option<i64>, now: i64, grace_ms: i64) -> Option<i64> {
    due.filter(|&at| at + grace_ms <= now)
}

/// Whether the stored alarm (`getAlarm()`, `None` when unset) covers a row that is overdue at
/// `now`: an alarm at or before `now + soon_ms` is a sweep about to run (a sweep that failed on
/// storage re-arms a few seconds ahead on purpose); one later, or none, leaves the row waiting.
pub fn covers(stored: Option<i64>, now: i64, soon_ms: i64) -> bool {
    stored.is_some_and(|at| at <= now + soon_ms)
}

/// What the safety net found for a team, kept for the stats (`alarm_missing` in
/// `GET /admin/teams/{team}/stats`): how often, and the latest.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MissedAlarms {
    /// How many times a request found rows overdue with no alarm to sweep them.
    pub count: i64,
    /// When it last did (epoch ms).
    pub last_at: i64,
    /// The earliest due time of the rows it found then (epoch ms).
    pub last_due_at: i64,
}

impl MissedAlarms {
    /// `previous` with one more finding, at `now`, of rows due since `due_at`.
    pub fn note(previous: Option<MissedAlarms>, now: i64, due_at: i64) -> MissedAlarms {
        MissedAlarms { count: previous.map_or(0, |p| p.count) + 1, last_at: now, last_due_at: due_at }
    }
}

#[cfg(test)]
mod tests;
