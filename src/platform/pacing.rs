//! The team actor's pacer as one attempt's Slack calls see it: a [`Gate`] asks the pacer
//! ([`crate::outbox::pace`]) before each call leaves, by the budgets of `SLACK_RATE_LIMITS`
//! ([`crate::slack::tiers`]), and remembers the lane of the call it let through, so that a 429 to
//! it holds that lane (the sweep does, once the row's transition is known).
//!
//! The pacer lives in the actor's memory (one per instance, shared by overlapping sweeps); holds
//! are also stored and read back into a new instance's pacer ([`load`]).

use super::clock;
use super::rows;
use crate::outbox::pace::{Pace, Pacer};
use crate::outbox::RowId;
use crate::slack::classify::Verdict;
use crate::slack::tiers::RateLimits;
use serde_json::Value;
use std::cell::RefCell;
use worker::SqlStorage;

/// A pacer with the holds stored by earlier instances of the actor. (If they cannot be read, the
/// pacer starts without them: the claim still skips rows whose target is held, and a lane held
/// only here costs one more 429, which holds it again.)
pub fn load(sql: &SqlStorage, now: i64) -> Pacer {
    let mut pacer = Pacer::default();
    for (lane, until) in rows::active_holds(sql, now).unwrap_or_default() {
        pacer.hold(&lane, until);
    }
    pacer
}

/// One attempt's way past the pacer.
pub struct Gate<'a> {
    pacer: &'a RefCell<Pacer>,
    limits: &'a RateLimits,
    row: i64,
    lane: RefCell<Option<String>>,
}

impl<'a> Gate<'a> {
    /// The gate of outbox row `row`'s attempt.
    pub fn new(pacer: &'a RefCell<Pacer>, limits: &'a RateLimits, row: RowId) -> Gate<'a> {
        Gate { pacer, limits, row: row.0, lane: RefCell::new(None) }
    }

    /// Whether the call of `method` with `args` may leave now; `Err` is the paced verdict (the
    /// call's slot is reserved for this row). A lane held by a 429 lets nothing through.
    pub fn admit(&self, method: &str, args: &Value) -> Result<(), Verdict> {
        let now = clock::now_ms();
        let buckets = self.limits.buckets(method, args);
        let hold_key = self.limits.hold_key(method, args);
        let mut pacer = self.pacer.borrow_mut();
        if !buckets.iter().any(|b| b.key == hold_key) {
            if let Some(until) = pacer.held_until(&hold_key, now) {
                return Err(Verdict::Paced { until });
            }
        }
        match pacer.admit(self.row, &buckets, now) {
            Pace::Go => {
                *self.lane.borrow_mut() = Some(hold_key);
                Ok(())
            }
            Pace::Wait { until } => Err(Verdict::Paced { until }),
        }
    }

    /// The lane of the last call this gate let through (what a 429 to it holds).
    pub fn lane(&self) -> Option<String> {
        self.lane.borrow().clone()
    }
}
