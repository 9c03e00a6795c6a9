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
//!   │   wait (429 or no rate budget: the attempt is given back)              │
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
//!   a *wait* (a 429, or a call the pacer kept back) gives its attempt back: rate limits never
//!   park a row by themselves, only its deadline does;
//! - a parked row keeps its payload, attempts, reason, last error and times: nothing is deleted
//!   silently; only `done` rows are pruned, after their retention.
//!
//! Delivery is at-least-once: if the process dies after Slack accepted a post and before the
//! completion is stored, the post is made again. Fencing protects our record, not Slack's channel.

pub mod alarm;
pub mod pace;
pub mod retry;
pub mod schedule;

use crate::slack::classify::Verdict;
use retry::RetryPolicy;
use serde::{Deserialize, Serialize};

/// An outbox row's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RowId(pub i64);

impl std::fmt::Display for RowId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// One sweep's claim token: the fence of every completion (`… WHERE claim_token = ?`). Fresh and
/// random per sweep, so no two sweeps share one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimToken(String);

impl ClaimToken {
    /// A token from its random text.
    pub fn new(text: String) -> ClaimToken {
        ClaimToken(text)
    }

    /// The stored text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

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
    /// The app's handler failed on the request: the request is kept in the row, for a redrive
    /// to run the (fixed) handler again.
    pub const HANDLER_FAILED: &str = "handler_failed";
    /// A firing (`cx.schedule(key, when).run()`) that no `on_schedule` listener takes: kept for
    /// a redrive once the app has one.
    pub const NO_LISTENER: &str = "no_listener";
    /// A scheduled effect cancelled before it fired (`cx.cancel`, or the admin API): the row
    /// ends `done` with this reason, never performed (nothing for an operator to decide).
    pub const CANCELLED: &str = "cancelled";
    /// A Workflow step's ending whose execution was never recorded (or was pruned): there is no
    /// token to end it with.
    pub const STEP_UNKNOWN: &str = "step_unknown";
    /// A stored token that the configured keys cannot open (`TOKEN_ENCRYPTION_KEY` changed
    /// without the old key in `TOKEN_ENCRYPTION_OLD_KEYS`).
    pub const TOKEN_UNREADABLE: &str = "token_unreadable";
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
    /// Try again at `at` (a failed attempt: it counts).
    Retry {
        /// The next attempt's due time (epoch ms).
        at: i64,
    },
    /// Wait until `at` without spending an attempt: Slack refused for rate, or the call was kept
    /// back for its rate budget.
    Wait {
        /// The next attempt's due time (epoch ms).
        at: i64,
        /// Why.
        cause: WaitCause,
    },
    /// Give up, with a reason.
    Park {
        /// Why: a Slack error code or one of [`reasons`].
        reason: String,
    },
}

/// Why a row waits without spending an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitCause {
    /// Sent, and Slack answered 429 (or `ratelimited`): the lane is held until `Retry-After`.
    RateLimited,
    /// Not sent: the lane's budget was spent; the row has a reserved slot.
    Paced,
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
    /// Slack refused for rate (429): waits for `Retry-After`, no attempt spent.
    RateLimited,
    /// Kept back for its rate budget, never sent: waits for its reserved slot, no attempt spent.
    Paced,
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
            Transition::Wait { cause: WaitCause::RateLimited, .. } => Outcome::RateLimited,
            Transition::Wait { cause: WaitCause::Paced, .. } => Outcome::Paced,
            Transition::Park { .. } => Outcome::Parked,
        }
    }

    /// Whether the attempt was sent (it has a history entry); a paced one was not.
    pub fn was_sent(self) -> bool {
        self != Outcome::Paced
    }

    /// The stored text (attempt history and counter names).
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::Retry => "retry",
            Outcome::Parked => "parked",
            Outcome::Fenced => "fenced",
            Outcome::RateLimited => "rate_limited",
            Outcome::Paced => "paced",
        }
    }

    /// The failure-streak rule: a success resets its target's streak, a failure with an error
    /// code extends it, anything else (a rate limit or pacing included: the target is fine, only
    /// busy) leaves it alone.
    pub fn streak_change(self, error: Option<&str>) -> StreakChange {
        match (self, error) {
            (Outcome::Success, _) => StreakChange::Reset,
            (Outcome::Fenced | Outcome::RateLimited | Outcome::Paced, _) | (_, None) => StreakChange::Keep,
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
    row.deadline_at.filter(|deadline| now_ms > *deadline).map(|_| Transition::Park { reason: reasons::EXPIRED.into() })
}

/// After performing a claimed row: the transition its verdict calls for. A rate limit or a
/// paced call waits however long it must (no attempt is spent), unless the wait would end after
/// the row's deadline: then it parks as `expired`, as a retry would.
pub fn after_attempt(policy: &RetryPolicy, row: &Attempted, verdict: &Verdict, now_ms: i64, jitter: f64) -> Transition {
    let unless_expired = |at: i64, then: Transition| match row.deadline_at {
        Some(deadline) if at > deadline => Transition::Park { reason: reasons::EXPIRED.into() },
        _ => then,
    };
    match verdict {
        Verdict::Success => Transition::Done,
        Verdict::Permanent { code } => Transition::Park { reason: code.clone() },
        Verdict::Paced { until } => unless_expired(*until, Transition::Wait { at: (*until).max(now_ms), cause: WaitCause::Paced }),
        Verdict::RateLimited { retry_after_ms } => {
            let at = now_ms + retry_after_ms.unwrap_or(policy.base_delay_ms(row.attempts));
            unless_expired(at, Transition::Wait { at, cause: WaitCause::RateLimited })
        }
        Verdict::Transient { retry_after_ms, .. } => {
            if row.attempts >= row.max_attempts {
                return Transition::Park { reason: reasons::ATTEMPTS_EXHAUSTED.into() };
            }
            let at = policy.next_attempt_at(row.attempts, now_ms, jitter, *retry_after_ms);
            unless_expired(at, Transition::Retry { at })
        }
    }
}

#[cfg(test)]
mod tests;
