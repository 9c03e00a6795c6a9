//! What the actors' storage did, counted in isolate memory, for the cost benchmark
//! (`BENCH_ONLY=cost make bench`, `benches/load/cost.rs`): per statement text, how many times it
//! ran and the rows it read and wrote as the runtime's own cursor counts them (`rowsRead`,
//! `rowsWritten`: what Cloudflare bills); and the `setAlarm` / `deleteAlarm` calls (each billed
//! as one row written), the actor requests and the alarm invocations.
//!
//! Invariants:
//! - **Test runtimes only.** The adapter (`runtime::meter`) counts only once an actor of an
//!   isolate with `ALLOW_TEST_CLOCK=1` has started, and only the admin route `GET …/meter` (which
//!   answers 404 otherwise) reads it.
//! - **Counting writes nothing.** The tallies live in the isolate's memory, never in SQL: writing
//!   them would itself cost rows. They are lost with the isolate; a reader takes two snapshots
//!   and subtracts ([`Meter::since`]).
//! - **Every statement the store runs is counted** (the store's primitives record each cursor
//!   after draining it), inside a `transactionSync` or not.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What one statement text cost so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// How many times it ran.
    pub runs: u64,
    /// Rows it read (the cursor's `rowsRead`).
    pub rows_read: u64,
    /// Rows it wrote, index entries included (the cursor's `rowsWritten`).
    pub rows_written: u64,
}

impl Tally {
    fn minus(self, before: Tally) -> Tally {
        Tally {
            runs: self.runs.saturating_sub(before.runs),
            rows_read: self.rows_read.saturating_sub(before.rows_read),
            rows_written: self.rows_written.saturating_sub(before.rows_written),
        }
    }
}

/// Everything counted in one isolate.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meter {
    /// Per statement, by its text with runs of whitespace folded into one space.
    pub statements: BTreeMap<String, Tally>,
    /// `setAlarm` calls (one row written each).
    pub set_alarms: u64,
    /// `deleteAlarm` calls.
    pub delete_alarms: u64,
    /// Requests the actors served (`fetch`), the meter's own excepted.
    pub requests: u64,
    /// Alarm invocations.
    pub alarms: u64,
}

/// A statement's text as the meter keys it: whitespace runs folded into one space.
pub fn statement_key(sql: &str) -> String {
    sql.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl Meter {
    /// Counts one statement's run.
    pub fn record(&mut self, sql: &str, rows_read: u64, rows_written: u64) {
        let tally = self.statements.entry(statement_key(sql)).or_default();
        tally.runs += 1;
        tally.rows_read += rows_read;
        tally.rows_written += rows_written;
    }

    /// The sums over every statement.
    pub fn totals(&self) -> Tally {
        self.statements.values().fold(Tally::default(), |a, t| Tally {
            runs: a.runs + t.runs,
            rows_read: a.rows_read + t.rows_read,
            rows_written: a.rows_written + t.rows_written,
        })
    }

    /// Rows written as billed: the statements' plus one per `setAlarm` and `deleteAlarm`.
    pub fn billed_rows_written(&self) -> u64 {
        self.totals().rows_written + self.set_alarms + self.delete_alarms
    }

    /// What was counted after `before` (a snapshot of the same isolate): statements that did not
    /// run in between are left out.
    pub fn since(&self, before: &Meter) -> Meter {
        let statements = self
            .statements
            .iter()
            .map(|(sql, t)| (sql.clone(), t.minus(before.statements.get(sql).copied().unwrap_or_default())))
            .filter(|(_, t)| t.runs > 0)
            .collect();
        Meter {
            statements,
            set_alarms: self.set_alarms.saturating_sub(before.set_alarms),
            delete_alarms: self.delete_alarms.saturating_sub(before.delete_alarms),
            requests: self.requests.saturating_sub(before.requests),
            alarms: self.alarms.saturating_sub(before.alarms),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_are_keyed_by_their_text_with_whitespace_folded() {
        let mut meter = Meter::default();
        meter.record("SELECT 1\n   FROM t", 1, 0);
        meter.record("SELECT 1 FROM t", 2, 0);
        assert_eq!(meter.statements.len(), 1);
        assert_eq!(meter.statements["SELECT 1 FROM t"], Tally { runs: 2, rows_read: 3, rows_written: 0 });
    }

    #[test]
    fn billed_rows_written_count_each_alarm_call_as_one_row() {
        let mut meter = Meter { set_alarms: 2, delete_alarms: 1, ..Meter::default() };
        meter.record("INSERT INTO t VALUES (1)", 0, 2);
        assert_eq!(meter.billed_rows_written(), 5);
    }

    #[test]
    fn since_subtracts_a_snapshot_and_leaves_out_what_did_not_run() {
        let mut before = Meter { requests: 3, alarms: 1, set_alarms: 1, ..Meter::default() };
        before.record("A", 1, 1);
        before.record("B", 1, 1);
        let mut after = before.clone();
        after.record("A", 4, 2);
        after.record("C", 0, 1);
        after.requests += 2;
        let delta = after.since(&before);
        assert_eq!(delta.statements.keys().collect::<Vec<_>>(), ["A", "C"]);
        assert_eq!(delta.statements["A"], Tally { runs: 1, rows_read: 4, rows_written: 2 });
        assert_eq!((delta.requests, delta.alarms, delta.set_alarms), (2, 0, 0));
        assert_eq!(delta.totals(), Tally { runs: 2, rows_read: 4, rows_written: 3 });
    }
}
