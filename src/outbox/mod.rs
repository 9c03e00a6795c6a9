//! The outbox state machine, pure. The SQL that stores it lives in [`crate::sql`]; this
//! module decides every transition.
//!
//! ```text
//!            insert (in the receipt's atomic unit, UNIQUE idempotency key)
//!                 │
//!                 ▼
//!   ┌────────► pending ──claim (token, lease)──► pending+claimed ──perform──┐
//!   │             ▲                                   │                      │
//!   │             └──────── lease expires ────────────┘                      │
//!   │                                                                        ▼
//!   │   retry (transient; next_attempt_at = backoff or Retry-After)  ◄── after_attempt
//!   └──────────────────────────────────────────────────────────────────┘     │
//!                                                                            ├─► done
//!   redrive (admin) ◄── parked (reason: the Slack error, expired,  ◄─────────┘
//!                        attempts_exhausted, not_installed, ...)
//! ```
//!
//! Invariants:
//! - a row leaves `pending` only through a *fenced* completion (`WHERE id = ? AND claim_token = ?`):
//!   a claimer whose lease was taken over cannot overwrite the new claimer's outcome;
//! - a claim always carries a lease expiry, so a crash between perform and complete only delays a
//!   row (the lease runs out and the next sweep claims it again): nothing is claimed forever;
//! - attempts are counted at claim time, so a row that crashes the runtime still runs out of attempts;
//! - a parked row keeps its payload, attempts, reason, last error and times: nothing is deleted
//!   silently; only `done` rows are pruned, after their retention.
//!
//! Delivery is at-least-once: if the process dies after Slack accepted a post and before the
//! completion is stored, the post is made again. Fencing protects our record, not Slack's channel.

pub mod retry;
pub mod schedule;

use crate::slack::classify::Verdict;
use retry::RetryPolicy;
use serde::{Deserialize, Serialize};

/// A row's state, as stored in `outbox.status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Waiting for its next attempt (maybe claimed by a sweep right now).
    Pending,
    /// Delivered; pruned after its retention.
    Done,
    /// Given up on; kept with its reason until redriven or discarded.
    Parked,
}

impl Status {
    /// The stored text.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Done => "done",
            Status::Parked => "parked",
        }
    }

    /// Parses the stored text (also the admin API's `status` filter).
    pub fn parse(s: &str) -> Option<Status> {
        match s {
            "pending" => Some(Status::Pending),
            "done" => Some(Status::Done),
            "parked" => Some(Status::Parked),
            _ => None,
        }
    }
}

/// Reasons for parking a row that are not a Slack error code.
pub mod reasons {
    /// The deadline passed before delivery.
    pub const EXPIRED: &str = "expired";
    /// Transient failures used up every attempt.
    pub const ATTEMPTS_EXHAUSTED: &str = "attempts_exhausted";
    /// No token for the team: no stored installation and no `SLACK_BOT_TOKEN`.
    pub const NOT_INSTALLED: &str = "not_installed";
    /// The stored payload could not be read (a bug or a schema change).
    pub const BAD_PAYLOAD: &str = "bad_payload";
    /// The effect needs a setting that is missing (e.g. `LLM_API_URL`).
    pub const NOT_CONFIGURED: &str = "not_configured";
    /// The app was uninstalled (or its bot token revoked): pending rows were parked with this.
    pub const UNINSTALLED: &str = "uninstalled";
}

/// What a claimed row looks like to the state machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attempted {
    /// Attempts so far, including the one just made.
    pub attempts: u32,
    /// The row's maximum.
    pub max_attempts: u32,
    /// When the row expires, if it does.
    pub deadline_at: Option<i64>,
}

/// The next state of a row after an attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transition {
    /// Delivered.
    Done,
    /// Try again at `at`; hold the row's target for the whole team until then when `hold` is true.
    Retry {
        /// The next attempt's due time (epoch ms).
        at: i64,
        /// HTTP 429: every row with the same target waits until `at`.
        hold: bool,
    },
    /// Give up, with a reason.
    Park {
        /// Why: a Slack error code or one of [`reasons`].
        reason: String,
    },
}

/// How one attempt ended, as counted by the sweep, written to the row's history (`attempts.outcome`)
/// and to the team's counters, and logged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Delivered.
    Success,
    /// Scheduled for another attempt.
    Retry,
    /// Parked with a reason (also a row that expired before it was performed).
    Parked,
    /// Our claim had been taken over: nothing of ours was stored but the attempt's history entry.
    Fenced,
}

/// What an attempt does to its target's streak of failures in a row (the `target_failing` alert).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreakChange {
    /// A success ends the streak.
    Reset,
    /// A failure that reached the target (it has an error code) lengthens it.
    Extend,
    /// Says nothing about the target: a fenced completion, or a row parked before it was performed.
    Keep,
}

impl Outcome {
    /// The outcome a stored transition stands for.
    pub fn of(transition: &Transition) -> Outcome {
        match transition {
            Transition::Done => Outcome::Success,
            Transition::Retry { .. } => Outcome::Retry,
            Transition::Park { .. } => Outcome::Parked,
        }
    }

    /// The stored text (attempt history and counter names).
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::Retry => "retry",
            Outcome::Parked => "parked",
            Outcome::Fenced => "fenced",
        }
    }

    /// The failure-streak rule: a success resets its target's streak, a failure with an error
    /// code extends it, anything else leaves it alone.
    pub fn streak_change(self, error: Option<&str>) -> StreakChange {
        match (self, error) {
            (Outcome::Success, _) => StreakChange::Reset,
            (Outcome::Fenced, _) | (_, None) => StreakChange::Keep,
            (Outcome::Retry | Outcome::Parked, Some(_)) => StreakChange::Extend,
        }
    }
}

/// Whether a streak of `failures` in a row raises a `target_failing` alert: at every multiple of
/// `every` (so a long outage alerts again, not once per failure).
pub fn streak_alerts(failures: i64, every: i64) -> bool {
    failures > 0 && every > 0 && failures % every == 0
}

/// What started a sweep.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    /// The team actor's alarm.
    #[default]
    Alarm,
    /// `POST /admin/teams/{team}/sweep`.
    Admin,
}

/// Before performing a claimed row: park it if its deadline has passed.
pub fn before_attempt(row: &Attempted, now_ms: i64) -> Option<Transition> {
    row.deadline_at
        .filter(|deadline| now_ms > *deadline)
        .map(|_| Transition::Park { reason: reasons::EXPIRED.into() })
}

/// After performing a claimed row: the transition its verdict calls for.
pub fn after_attempt(policy: &RetryPolicy, row: &Attempted, verdict: &Verdict, now_ms: i64, jitter: f64) -> Transition {
    match verdict {
        Verdict::Success => Transition::Done,
        Verdict::Permanent { code } => Transition::Park { reason: code.clone() },
        Verdict::Transient { retry_after_ms, hold_target, .. } => {
            if row.attempts >= row.max_attempts {
                return Transition::Park { reason: reasons::ATTEMPTS_EXHAUSTED.into() };
            }
            let at = policy.next_attempt_at(row.attempts, now_ms, jitter, *retry_after_ms);
            if row.deadline_at.is_some_and(|deadline| at > deadline) {
                return Transition::Park { reason: reasons::EXPIRED.into() };
            }
            Transition::Retry { at, hold: *hold_target }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(attempts: u32) -> Attempted {
        Attempted { attempts, max_attempts: 3, deadline_at: None }
    }

    fn transient(retry_after_ms: Option<i64>, hold_target: bool) -> Verdict {
        Verdict::Transient { code: "x".into(), retry_after_ms, hold_target }
    }

    #[test]
    fn success_is_done() {
        assert_eq!(after_attempt(&RetryPolicy::default(), &row(1), &Verdict::Success, 0, 0.5), Transition::Done);
    }

    #[test]
    fn a_permanent_error_parks_at_once_with_that_reason() {
        let v = Verdict::Permanent { code: "channel_not_found".into() };
        assert_eq!(
            after_attempt(&RetryPolicy::default(), &row(1), &v, 0, 0.5),
            Transition::Park { reason: "channel_not_found".into() }
        );
    }

    #[test]
    fn a_transient_error_retries_by_the_schedule() {
        let t = after_attempt(&RetryPolicy::default(), &row(1), &transient(None, false), 10_000, 0.5);
        assert_eq!(t, Transition::Retry { at: 11_000, hold: false });
    }

    #[test]
    fn a_429_retries_exactly_after_retry_after_and_holds_the_target() {
        let t = after_attempt(&RetryPolicy::default(), &row(1), &transient(Some(2_000), true), 10_000, 0.9);
        assert_eq!(t, Transition::Retry { at: 12_000, hold: true });
    }

    #[test]
    fn the_last_attempt_parks_as_attempts_exhausted() {
        let t = after_attempt(&RetryPolicy::default(), &row(3), &transient(None, false), 0, 0.5);
        assert_eq!(t, Transition::Park { reason: reasons::ATTEMPTS_EXHAUSTED.into() });
    }

    #[test]
    fn a_retry_that_would_land_after_the_deadline_parks_as_expired() {
        let r = Attempted { deadline_at: Some(10_500), ..row(1) };
        let t = after_attempt(&RetryPolicy::default(), &r, &transient(None, false), 10_000, 0.5);
        assert_eq!(t, Transition::Park { reason: reasons::EXPIRED.into() });
    }

    #[test]
    fn a_row_past_its_deadline_is_parked_before_it_is_performed() {
        let r = Attempted { deadline_at: Some(100), ..row(1) };
        assert_eq!(before_attempt(&r, 101), Some(Transition::Park { reason: reasons::EXPIRED.into() }));
        assert_eq!(before_attempt(&r, 100), None);
        assert_eq!(before_attempt(&row(1), i64::MAX), None);
    }

    #[test]
    fn statuses_round_trip() {
        for s in [Status::Pending, Status::Done, Status::Parked] {
            assert_eq!(Status::parse(s.as_str()), Some(s));
        }
        assert_eq!(Status::parse("leased"), None);
    }

    #[test]
    fn outcomes_follow_their_transition_and_keep_their_stored_names() {
        assert_eq!(Outcome::of(&Transition::Done), Outcome::Success);
        assert_eq!(Outcome::of(&Transition::Retry { at: 1, hold: false }), Outcome::Retry);
        assert_eq!(Outcome::of(&Transition::Park { reason: "x".into() }), Outcome::Parked);
        for o in [Outcome::Success, Outcome::Retry, Outcome::Parked, Outcome::Fenced] {
            assert_eq!(serde_json::to_value(o).unwrap(), o.as_str());
        }
    }

    #[test]
    fn the_failure_streak_counts_only_failures_that_reached_the_target() {
        let cases = [
            (Outcome::Success, None, StreakChange::Reset),
            (Outcome::Success, Some("x"), StreakChange::Reset),
            (Outcome::Retry, Some("ratelimited"), StreakChange::Extend),
            (Outcome::Parked, Some("channel_not_found"), StreakChange::Extend),
            (Outcome::Parked, None, StreakChange::Keep), // expired before it was performed
            (Outcome::Fenced, Some("internal_error"), StreakChange::Keep),
        ];
        for (outcome, error, change) in cases {
            assert_eq!(outcome.streak_change(error), change, "{outcome:?} {error:?}");
        }
    }

    #[test]
    fn a_streak_alerts_at_each_multiple_of_the_threshold() {
        let alerting: Vec<i64> = (0..=11).filter(|&n| streak_alerts(n, 5)).collect();
        assert_eq!(alerting, vec![5, 10]);
        assert!(!streak_alerts(3, 0), "a zero threshold never divides");
    }

    #[test]
    fn triggers_are_named_in_snake_case() {
        assert_eq!(serde_json::to_value(Trigger::Alarm).unwrap(), "alarm");
        assert_eq!(serde_json::to_value(Trigger::Admin).unwrap(), "admin");
    }
}
