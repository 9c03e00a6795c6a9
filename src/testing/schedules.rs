//! Schedules in the test kit: a [`Team`](super::Team) keeps a clock ([`Team::at`],
//! [`Team::advance`]) and the team's pending schedules ([`Team::pending_schedules`]), as the team
//! actor's outbox would — one pending occurrence per key, a cancel removing it — and fires them
//! as its alarm would: [`Team::run_due`] runs every occurrence due by the clock (a firing's
//! `on_schedule` listener with the team's state and `cx.now()` the clock; a fixed effect as the
//! effect it performs), then queues a recurring one's next occurrence by its calendar or interval,
//! skipping — and counting in [`Firing::missed`] — those that fell due while the clock jumped past
//! them, as the runtime does after downtime. [`Team::fire`] runs one key's occurrence now.
//!
//! ```
//! use slackline::prelude::*;
//! use slackline::testing::{command, Team};
//!
//! let app = Listeners::new()
//!     .command("/digest", |_, cx| { cx.schedule("digest", When::daily_at(9, 0, "Europe/Berlin")?).run(); Ok(()) })
//!     .on_schedule("digest", |_, cx| { cx.say("C1", &format!("digest at {}", cx.now())); Ok(()) });
//! // Monday 5 January 2026, 07:00 UTC (08:00 in Berlin).
//! let team = Team::at(1_767_596_400_000);
//! team.handle(&app, &command("/digest", ""));
//! assert_eq!(team.pending_schedules()[0].due_at, 1_767_600_000_000, "09:00 in Berlin, 08:00 UTC");
//! assert!(team.run_due(&app).is_empty(), "not yet");
//! team.advance(60 * MINUTE_MS);
//! let fired = team.run_due(&app);
//! assert_eq!(fired[0].handled.calls()[0].1["text"], "digest at 1767600000000");
//! ```

use super::{Handled, Team};
use crate::app::{self, Decision, Fired};
use crate::kinds::registry::{Action, Effect};
use crate::kinds::schedule::{recurrence, Due, Recurrence, When};

/// A pending occurrence of a schedule, as [`Team::pending_schedules`] lists it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PendingSchedule {
    /// The schedule's key.
    pub key: String,
    /// When this occurrence falls due (epoch ms).
    pub due_at: i64,
    /// Its schedule (its `due` resolved to `due_at`).
    pub when: When,
    /// What it does then: a firing (`Action::Fire`) or a fixed effect.
    action: Action,
}

impl PendingSchedule {
    /// Whether it runs the app's `on_schedule` listener (`.run()`) rather than a fixed effect.
    pub fn runs_code(&self) -> bool {
        self.action == Action::Fire
    }
}

/// One occurrence run by [`Team::run_due`] or [`Team::fire`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Firing {
    /// The schedule's key.
    pub key: String,
    /// When it fell due.
    pub due_at: i64,
    /// When it ran (the team's clock).
    pub ran_at: i64,
    /// Occurrences of a recurring schedule that fell due after it and before it ran: skipped, as
    /// after the runtime's downtime (its delivery line's `schedule_missed`).
    pub missed: u32,
    /// What ran: a firing's listener's effects, state writes, failure (`failed`) or
    /// `ignored: Some("no_listener")`; a fixed effect as its one effect.
    pub handled: Handled,
}

impl Team {
    /// A team with no state whose clock reads `now` (epoch ms): what `cx.now()` says, and what
    /// schedules count from.
    pub fn at(now: i64) -> Team {
        let team = Team::new();
        team.clock.set(now);
        team
    }

    /// The team's clock (epoch ms).
    pub fn now(&self) -> i64 {
        self.clock.get()
    }

    /// Moves the clock `ms` on (nothing runs by itself: [`Team::run_due`] runs what fell due).
    pub fn advance(&self, ms: i64) {
        self.clock.set(self.clock.get() + ms);
    }

    /// The pending schedules, soonest due first.
    pub fn pending_schedules(&self) -> Vec<PendingSchedule> {
        let mut pending = self.schedules.borrow().clone();
        pending.sort_by_key(|p| p.due_at);
        pending
    }

    /// Applies a unit's schedules and cancels, in order, as the team actor's unit does: a key
    /// already pending adds nothing.
    pub(super) fn note_schedules(&self, effects: &[Effect]) {
        let now = self.now();
        let mut pending = self.schedules.borrow_mut();
        for effect in effects {
            match &effect.action {
                Action::CancelSchedule { key } => pending.retain(|p| &p.key != key),
                Action::Scheduled { key, when, effect, .. } if !pending.iter().any(|p| &p.key == key) => {
                    let due_at = when.due_at(now);
                    pending.push(PendingSchedule { key: key.clone(), due_at, when: When { due: Due::At(due_at), ..*when }, action: (**effect).clone() });
                }
                _ => {}
            }
        }
    }

    /// Runs every occurrence due by the clock, soonest first (each recurring one once, however
    /// many times it fell due: the rest are [`Firing::missed`]).
    pub fn run_due(&self, app: &dyn app::App) -> Vec<Firing> {
        let due: Vec<PendingSchedule> = self.pending_schedules().into_iter().filter(|p| p.due_at <= self.now()).collect();
        due.into_iter().map(|p| self.run(app, p)).collect()
    }

    /// Runs the pending occurrence of `key` now, due or not.
    ///
    /// # Panics
    ///
    /// When `key` has no pending occurrence.
    pub fn fire(&self, app: &dyn app::App, key: &str) -> Firing {
        let pending = self.pending_schedules().into_iter().find(|p| p.key == key);
        self.run(app, pending.unwrap_or_else(|| panic!("no pending schedule {key:?}")))
    }

    /// Runs one occurrence, applies what it did, and queues its next occurrence — as the team
    /// actor does: while it runs it is still pending (scheduling its key again adds nothing), and
    /// a cancel of its key from its own listener stops its recurrence.
    fn run(&self, app: &dyn app::App, occurrence: PendingSchedule) -> Firing {
        let now = self.now();
        let handled = match &occurrence.action {
            Action::Fire => self.fire_listener(app, &Fired { key: occurrence.key.clone(), due_at: occurrence.due_at }),
            fixed => {
                let effect = Effect { key: super::schedule_row_key(&occurrence.key, occurrence.due_at), action: fixed.clone(), deadline_after_ms: None };
                Handled::of(None, Decision::Enqueue(vec![effect]), None)
            }
        };
        let mut pending = self.schedules.borrow_mut();
        let still_pending = pending.iter().any(|p| p.key == occurrence.key);
        pending.retain(|p| p.key != occurrence.key);
        let mut missed = 0;
        if let Some(Recurrence { due, missed: skipped }) = recurrence(&occurrence.when, occurrence.due_at, now).filter(|_| still_pending) {
            missed = skipped;
            pending.push(PendingSchedule { due_at: due, when: When { due: Due::At(due), ..occurrence.when }, ..occurrence.clone() });
        }
        Firing { key: occurrence.key, due_at: occurrence.due_at, ran_at: now, missed, handled }
    }

    /// A firing's listener, run with the team's state at the clock, its writes applied once per
    /// fact and its own schedules and cancels noted.
    fn fire_listener(&self, app: &dyn app::App, fired: &Fired) -> Handled {
        self.run_app(|ctx| app::fire(app, fired, ctx))
    }
}

#[cfg(test)]
mod tests {
    use super::super::command;
    use super::*;
    use crate::kinds::schedule::zone::days_from_civil;
    use crate::kinds::schedule::DAY_MS;
    use crate::prelude::*;

    const HOUR: i64 = 3_600_000;

    fn utc(y: i64, mo: u32, d: u32, h: i64) -> i64 {
        days_from_civil(y, mo, d) * DAY_MS + h * HOUR
    }

    fn tickets() -> Listeners {
        Listeners::new()
            .command("/open", |c, cx| {
                cx.state().update::<u32>("open", |n| Some(n.unwrap_or(0) + c.text.parse::<u32>().unwrap_or(1)))?;
                Ok(())
            })
            .command("/digest", |_, cx| {
                cx.schedule("digest", When::daily_at(9, 0, "Europe/Berlin")?).run();
                Ok(())
            })
            .on_schedule("digest*", |fired, cx| {
                let open = cx.state().get::<u32>("open")?.unwrap_or(0);
                cx.say("C1", &format!("{open} open tickets ({})", fired.key));
                let now = cx.now();
                cx.state().put("last_digest", &now)?;
                Ok(())
            })
    }

    #[test]
    fn a_firing_runs_its_listener_with_the_state_and_the_clock_of_then() {
        let team = Team::at(utc(2026, 3, 27, 6));
        team.handle(&tickets(), &command("/digest", ""));
        team.handle(&tickets(), &command("/open", "3"));
        let pending = team.pending_schedules();
        assert_eq!((pending[0].key.as_str(), pending[0].due_at, pending[0].runs_code()), ("digest", utc(2026, 3, 27, 8), true));
        team.advance(2 * HOUR);
        let fired = team.run_due(&tickets());
        assert_eq!(fired.len(), 1);
        let (_, args) = &fired[0].handled.calls()[0];
        assert_eq!(args["text"], "3 open tickets (digest)");
        assert_eq!(fired[0].handled.keys(), [format!("fire:digest@{}:say", utc(2026, 3, 27, 8))], "keyed by the firing");
        assert_eq!(team.state.value("last_digest"), Some(serde_json::json!(utc(2026, 3, 27, 8))));
        assert_eq!(team.pending_schedules()[0].due_at, utc(2026, 3, 28, 8), "the next at 09:00 CET");
    }

    #[test]
    fn a_daily_digest_keeps_to_nine_in_berlin_across_the_spring_change() {
        let team = Team::at(utc(2026, 3, 27, 6));
        team.handle(&tickets(), &command("/digest", ""));
        let mut ran = Vec::new();
        for _ in 0..4 * 24 {
            team.advance(HOUR);
            ran.extend(team.run_due(&tickets()).into_iter().map(|f| f.due_at));
        }
        assert_eq!(
            ran,
            [utc(2026, 3, 27, 8), utc(2026, 3, 28, 8), utc(2026, 3, 29, 7), utc(2026, 3, 30, 7)],
            "09:00 local: 08:00 UTC, then 07:00 from the 29th"
        );
    }

    #[test]
    fn after_downtime_the_digest_runs_once_late_and_the_missed_ones_are_skipped_and_counted() {
        let team = Team::at(utc(2026, 1, 5, 6));
        team.handle(&tickets(), &command("/digest", ""));
        team.advance(3 * DAY_MS + 4 * HOUR);
        let fired = team.run_due(&tickets());
        assert_eq!(fired.len(), 1, "once, not four times");
        assert_eq!((fired[0].due_at, fired[0].ran_at, fired[0].missed), (utc(2026, 1, 5, 8), utc(2026, 1, 8, 10), 3));
        assert_eq!(team.pending_schedules()[0].due_at, utc(2026, 1, 9, 8));
    }

    #[test]
    fn a_firing_no_listener_takes_is_ignored_and_a_failing_one_fails() {
        let none = Listeners::new().command("/x", |_, cx| {
            cx.schedule("other", When::after(0)).run();
            Ok(())
        });
        let team = Team::at(utc(2026, 1, 5, 6));
        team.handle(&none, &command("/x", ""));
        assert_eq!(team.fire(&none, "other").handled.ignored, Some("no_listener"));
        let failing = Listeners::new().on_schedule("boom", |_, cx| {
            cx.state().put("k", &1)?;
            Err("broken".into())
        });
        let team = Team::at(0);
        team.handle(
            &Listeners::new().command("/x", |_, cx| {
                cx.schedule("boom", When::after(0)).run();
                Ok(())
            }),
            &command("/x", ""),
        );
        let failed = team.fire(&failing, "boom");
        assert_eq!((failed.handled.failed.as_deref(), team.state.value("k")), (Some("broken"), None), "a failure writes nothing");
    }

    #[test]
    fn a_cancel_removes_the_pending_schedule_and_a_fixed_effect_runs_as_itself() {
        let app = Listeners::new()
            .command("/remind", |_, cx| {
                cx.schedule("remind", When::after(30 * MINUTE_MS)).say("C1", "stand-up");
                Ok(())
            })
            .command("/stop", |_, cx| {
                cx.cancel("remind");
                Ok(())
            });
        let team = Team::at(0);
        team.handle(&app, &command("/remind", ""));
        assert!(!team.pending_schedules()[0].runs_code());
        team.advance(30 * MINUTE_MS);
        let fired = team.run_due(&app);
        assert_eq!(fired[0].handled.calls()[0].1["text"], "stand-up");
        assert!(team.pending_schedules().is_empty(), "a one-off is gone once it ran");
        team.handle(&app, &command("/remind", ""));
        team.handle(&app, &command("/stop", ""));
        assert!(team.pending_schedules().is_empty());
    }
}
