//! Scheduled effects (`cx.schedule(key, when)`, `cx.cancel(key)`), pure: when one falls due, the
//! outbox key its rows carry, when a recurring one fires next, and what a cancel does to a row.
//!
//! A scheduled effect is an ordinary outbox row that is not due yet: its `next_attempt_at` is its
//! due time, the alarm is armed to the earliest due row (as for any row), and it is claimed,
//! paced, retried, fenced and parked like every other. So it survives restarts and deploys (it is
//! a row in the team's SQLite), and one that fell due while the runtime was down runs at the next
//! sweep, late by however long that took.
//!
//! Invariants:
//! - **A scheduled row enters the queue at its due time**: its `created_at` is the due time (the
//!   payload keeps when it was scheduled), so its deadline, its `waited_ms` in the delivery line
//!   and the pending-age alert all count from the due time, never from when it was scheduled.
//! - **The key is the row's key**: the first occurrence's idempotency key is
//!   `sched:{key}|{fact}` (the fact of the request that scheduled it), so a duplicate delivery of
//!   that request adds nothing, and [`key_range`] finds every row of one key with the UNIQUE
//!   index. A key has at most one pending occurrence: scheduling a key that is already pending
//!   adds nothing (cancel it first to move it).
//! - **Recurring** (`When::every`): each occurrence, once it ends (done or parked), queues the
//!   next in its fenced completion, at the first `due + k × every` after now: occurrences missed
//!   during an outage are skipped, never fired in a burst. The payload is the same every time.
//! - **Cancel** ([`cancel_row`]) decides per pending row, in the same single-writer unit as the
//!   claim, so a cancel and a firing never interleave: a row no sweep holds ends `done` with
//!   reason `cancelled`, never performed (pruned with the delivered rows); a row a sweep holds (its attempt is in flight) is not stopped — that
//!   occurrence fires, with its retries — and a recurring one queues no next occurrence.
//!
//! This file and [`when`] are the schedules' pure half; beside them, the room's SQL text
//! ([`sql`]: a key's pending rows, a cancel, the admin listing) and, wasm32 only, its store
//! (`store`: queueing one occurrence per key, cancelling, whether an occurrence still recurs). A
//! schedule has no job of its own: a due row performs its effect's (`Action::Scheduled` in the
//! sweep's `perform`), and the attempt queues a recurring one's next occurrence
//! ([`next_occurrence`]).

use crate::kinds::completion::NewRow;
use crate::kinds::registry::{Action, Effect};
use serde::Serialize;

pub mod calendar;
#[cfg(target_arch = "wasm32")]
pub(crate) mod fire;
pub mod sql;
#[cfg(target_arch = "wasm32")]
pub(crate) mod store;
pub mod when;
pub mod zone;
pub use calendar::{Calendar, CalendarError, Days};
pub use when::{Due, When, DAY_MS, MINUTE_MS, MIN_EVERY_MS};
pub use zone::{LocalTime, Zone, ZoneError};

/// A schedule's firing, as its `on_schedule` listener sees it (`cx.schedule(key, when).run()`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Fired {
    /// The schedule's key.
    pub key: String,
    /// When this occurrence fell due (epoch ms); `cx.now()` says when it runs.
    pub due_at: i64,
}

impl Fired {
    /// The fact its effects are keyed by, `fire:{key}@{due}`: a run of the same occurrence again
    /// (a crash before its completion was stored, a redrive) adds nothing twice.
    pub fn fact(&self) -> String {
        format!("fire:{}@{}", self.key, self.due_at)
    }
}

/// The prefix of every scheduled row's idempotency key.
pub const PREFIX: &str = "sched:";

/// A key as it appears inside a row key: `%` and `|` escaped, so that `|` ends the key.
fn escape(key: &str) -> String {
    key.replace('%', "%25").replace('|', "%7C")
}

/// The first occurrence's idempotency key: the schedule's key and the fact of the request that
/// scheduled it.
pub fn row_key(key: &str, fact: &str) -> String {
    format!("{PREFIX}{}|{fact}", escape(key))
}

/// A later occurrence's idempotency key (due at `due`).
pub fn occurrence_key(key: &str, due: i64) -> String {
    format!("{PREFIX}{}|@{due}", escape(key))
}

/// Every row key of `key` lies in `[low, high)` (binary order: `}` follows `|`), so one range
/// over the UNIQUE index finds them.
pub fn key_range(key: &str) -> (String, String) {
    let stem = format!("{PREFIX}{}", escape(key));
    (format!("{stem}|"), format!("{stem}}}"))
}

/// Every scheduled row's key lies in `[low, high)`.
pub fn all_range() -> (String, String) {
    (PREFIX.to_string(), "sched;".to_string())
}

/// The next occurrence of a schedule repeating `every` ms whose occurrence due at `due` ended at
/// `now`: the first `due + k × every` (k ≥ 1) after `now`.
pub fn next_due(due: i64, every: i64, now: i64) -> i64 {
    let every = every.max(MIN_EVERY_MS);
    let missed = (now - due).max(0) / every;
    due + (missed + 1) * every
}

/// The next occurrence of a recurring schedule, and what the occurrence that just ran skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recurrence {
    /// When the next occurrence falls due.
    pub due: i64,
    /// How many occurrences fell due after the one that ran and before it ended (the runtime
    /// was down, or the team's outbox busy): skipped, never run in a burst, and counted in the
    /// delivery line (`schedule_missed`).
    pub missed: u32,
}

/// The most missed occurrences counted (a minute's cron down for a year counts this many).
pub const MISSED_CAP: u32 = 10_000;

/// The next occurrence of `when` whose occurrence due at `due` ended at `now`: an interval's at
/// [`next_due`]; a calendar's at its first time after both (never "due plus a day": a calendar
/// does not drift, and it follows daylight saving). None when it does not recur.
pub fn recurrence(when: &When, due: i64, now: i64) -> Option<Recurrence> {
    if let Some(every) = when.every_ms {
        let every = every.max(MIN_EVERY_MS);
        let missed = ((now - due).max(0) / every).min(i64::from(MISSED_CAP)) as u32;
        return Some(Recurrence { due: next_due(due, every, now), missed });
    }
    let calendar = when.calendar?;
    let next = calendar.next_after(due.max(now))?;
    Some(Recurrence { due: next, missed: calendar.count_between(due, now, MISSED_CAP) })
}

/// The next occurrence of a recurring scheduled row (`action`, with its absolute deadline) whose
/// occurrence ended at `now`: the same effect at its [`recurrence`], keyed [`occurrence_key`],
/// with the same deadline after its due time, and how many occurrences the ended one skipped.
/// None when it does not recur.
pub fn next_occurrence(action: &Action, deadline_at: Option<i64>, now: i64) -> Option<(NewRow, u32)> {
    let Action::Scheduled { key, when: when @ When { due: Due::At(due), .. }, scheduled_at, effect } = action else { return None };
    let Recurrence { due: next, missed } = recurrence(when, *due, now)?;
    let when = When { due: Due::At(next), ..*when };
    let action = Action::Scheduled { key: key.clone(), when, scheduled_at: *scheduled_at, effect: effect.clone() };
    let effect = Effect { key: occurrence_key(key, next), action, deadline_after_ms: deadline_at.map(|at| at - due) };
    Some((NewRow::queued_at(effect, now), missed))
}

/// What a cancel does to one pending row of its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cancel {
    /// No sweep holds it: it ends `done` with reason `cancelled`, never performed.
    Cancelled,
    /// A sweep holds it (its attempt may be at Slack already): that occurrence goes on; a
    /// recurring one queues no next occurrence.
    InFlight,
}

/// The cancel of a pending row that a sweep claimed until `claim_expires_at` (None: unclaimed),
/// at `now`. An expired lease counts as unclaimed: that sweep is gone, and its completion, if it
/// ever comes, is fenced.
pub fn cancel_row(claim_expires_at: Option<i64>, now: i64) -> Cancel {
    match claim_expires_at {
        Some(until) if until > now => Cancel::InFlight,
        _ => Cancel::Cancelled,
    }
}

/// What one cancel did, over the rows of its key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Cancelled {
    /// Rows cancelled (never performed).
    pub cancelled: u32,
    /// Rows in flight, left to fire (their recurrence stopped).
    pub in_flight: u32,
}

impl Cancelled {
    /// Counts one row's decision.
    pub fn count(&mut self, decision: Cancel) {
        match decision {
            Cancel::Cancelled => self.cancelled += 1,
            Cancel::InFlight => self.in_flight += 1,
        }
    }

    /// Neither: the key was unknown, had fired, or was cancelled already (a no-op).
    pub fn is_noop(&self) -> bool {
        self.cancelled == 0 && self.in_flight == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn after_counts_from_the_request_and_at_is_absolute() {
        assert_eq!(When::after(5_000).due_at(1_000), 6_000);
        assert_eq!(When::at(42).due_at(1_000), 42, "a time in the past is due at once");
        assert_eq!(When::after(5_000).every(DAY_MS).resolved(1_000), When { due: Due::At(6_000), every_ms: Some(DAY_MS), calendar: None });
        assert_eq!(When::after(-5).due_at(10), 10, "a negative delay is no delay");
    }

    #[test]
    fn a_recurrence_is_at_least_a_minute() {
        assert_eq!(When::at(0).every(10).every_ms, Some(MIN_EVERY_MS));
    }

    #[test]
    fn the_key_of_a_schedule_is_its_rows_key_and_its_range_holds_only_its_rows() {
        let first = row_key("incident:7:remind", "ix:T1");
        assert_eq!(first, "sched:incident:7:remind|ix:T1");
        let (low, high) = key_range("incident:7:remind");
        let inside = |k: &str| low.as_str() <= k && k < high.as_str();
        assert!(inside(&first));
        assert!(inside(&occurrence_key("incident:7:remind", 99)));
        assert!(!inside(&row_key("incident:7:remind2", "ix:T1")), "a longer key is another key");
        assert!(!inside(&row_key("incident:7", "ix:T1")), "a shorter key is another key");
        assert!(!inside("msg:C1:1.2:reply"));
    }

    #[test]
    fn a_bar_in_a_key_cannot_reach_into_another_keys_range() {
        let (low, high) = key_range("a");
        let tricky = row_key("a|b", "f");
        assert!(!(low.as_str() <= tricky.as_str() && tricky.as_str() < high.as_str()));
        let (all_low, all_high) = all_range();
        assert!(all_low.as_str() <= tricky.as_str() && tricky.as_str() < all_high.as_str());
    }

    #[test]
    fn the_next_occurrence_skips_the_ones_missed_while_down() {
        let day = DAY_MS;
        assert_eq!(next_due(10 * day, day, 10 * day + 5), 11 * day, "on time: the next day");
        assert_eq!(next_due(10 * day, day, 13 * day + 5), 14 * day, "three days down: one firing, then the next day");
        assert_eq!(next_due(10 * day, day, 10 * day - 1), 11 * day, "fired early (a test clock): still one interval on");
    }

    fn digest(when: When) -> Action {
        let post = Action::slack_api("chat.postMessage", serde_json::json!({"channel": "C1", "text": "digest"}));
        Action::Scheduled { key: "digest".into(), when, scheduled_at: Some(1), effect: Box::new(post) }
    }

    #[test]
    fn a_recurring_occurrence_queues_the_next_with_the_same_effect_and_deadline_span() {
        let day = DAY_MS;
        let (next, missed) = next_occurrence(&digest(When::at(10 * day).every(day)), Some(10 * day + 600), 10 * day + 50).expect("it recurs");
        assert_eq!(missed, 0);
        assert_eq!(next.effect.key, occurrence_key("digest", 11 * day));
        assert_eq!((next.due_at(0), next.deadline_at), (11 * day, Some(11 * day + 600)), "the deadline counts from the new due time");
        let Action::Scheduled { when, effect, .. } = &next.effect.action else { panic!("scheduled") };
        assert_eq!((when.every_ms, effect.label()), (Some(day), "slack_api"), "still recurring, the same effect");
    }

    #[test]
    fn a_calendar_recurs_at_its_next_time_and_counts_the_times_it_skipped() {
        let nine = When::daily_at(9, 0, "Europe/Berlin").expect("a zone");
        // 27 March 2026 09:00 CET = 08:00 UTC; the 29th's 09:00 is CEST (07:00 UTC).
        let due = zone::days_from_civil(2026, 3, 27) * DAY_MS + 8 * 3_600_000;
        let on_time = recurrence(&nine, due, due + 5_000).expect("recurs");
        assert_eq!(on_time, Recurrence { due: due + DAY_MS, missed: 0 });
        let late = recurrence(&nine, due, due + 2 * DAY_MS + 60_000).expect("recurs");
        assert_eq!(late, Recurrence { due: due + 3 * DAY_MS - 3_600_000, missed: 2 }, "two days down: two skipped, the next at 09:00 CEST");
        let (row, missed) = next_occurrence(&digest(When { due: Due::At(due), ..nine }), None, due + 10).expect("recurs");
        assert_eq!((row.due_at(0), missed), (due + DAY_MS, 0));
        assert_eq!(recurrence(&When::at(due), due, due + 10), None, "a one-off does not recur");
    }

    #[test]
    fn an_interval_counts_the_occurrences_it_skipped() {
        let r = recurrence(&When::at(0).every(DAY_MS), 0, 3 * DAY_MS + 5).expect("recurs");
        assert_eq!(r, Recurrence { due: 4 * DAY_MS, missed: 3 });
    }

    #[test]
    fn a_one_off_schedule_or_any_other_row_queues_nothing_after_it() {
        assert_eq!(next_occurrence(&digest(When::at(5)), None, 10), None);
        assert_eq!(next_occurrence(&Action::Status { name: "s".into() }, None, 10), None);
    }

    #[test]
    fn a_cancel_parks_a_row_no_sweep_holds_and_leaves_one_in_flight() {
        assert_eq!(cancel_row(None, 100), Cancel::Cancelled);
        assert_eq!(cancel_row(Some(101), 100), Cancel::InFlight, "a live lease: the attempt may be at Slack");
        assert_eq!(cancel_row(Some(100), 100), Cancel::Cancelled, "an expired lease: that sweep is gone");
        let mut done = Cancelled::default();
        assert!(done.is_noop(), "an unknown or fired key: nothing to do");
        done.count(Cancel::InFlight);
        assert_eq!((done.cancelled, done.in_flight, done.is_noop()), (0, 1, false));
    }
}
