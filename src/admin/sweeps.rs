//! The team's sweeps as the stats keep them, in one `meta` row (`sweeps`): the last stored
//! sweep's report and the attempt outcomes counted since the first sweep. The release before
//! this layout kept them in a `counters` row per outcome and a `last_sweep` row, which the stats
//! still read and add in ([`Sweeps::counters_with`]).
//!
//! **A sweep that only delivered writes nothing here** ([`worth_storing`]): a success is counted
//! by its own row instead. A delivered row carries its successful attempt (`last_latency_ms`, set
//! only by the fenced completion as done), so the stats count `success` as the stored count plus
//! the delivered rows that finished since the team began counting this way
//! (`meta.successes_counted_since`, noted once, when a release that counts this way first wakes
//! the actor: the rows before it were counted by the sweeps that delivered them). The
//! housekeeping adds the delivered rows it prunes to the stored count in the same unit as their
//! delete ([`Sweeps::add_pruned_successes`]). So a quiet team's delivered event costs no
//! `sweeps` row; a sweep with a retry, a park, a fence, a 429, a paced wait, an error or an alert
//! still stores its report and those outcomes. The last report of every sweep is kept in the
//! actor's memory too, and the stats show the newer of the two.

use super::Counter;
use crate::logs::SweepLine;
use crate::outbox::Outcome;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The stored sweeps.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Sweeps {
    /// The last sweep's report, with the time it was stored (`at`).
    pub last: Option<SweepLine>,
    /// Attempt outcomes counted so far, by name (`success`, `retry`, `parked`, `fenced`, ...).
    pub counters: BTreeMap<String, i64>,
}

impl Sweeps {
    /// `stored` (none, or unreadable: counted from zero) with `report` as the last sweep and its
    /// outcomes added, but for its successes: each delivered row counts itself (module docs).
    pub fn record(stored: Option<Sweeps>, report: SweepLine) -> Sweeps {
        let mut sweeps = stored.unwrap_or_default();
        for (outcome, n) in stored_outcomes(&report) {
            *sweeps.counters.entry(outcome.as_str().to_string()).or_default() += n;
        }
        sweeps.last = Some(report);
        sweeps
    }

    /// `stored` with `pruned` delivered rows (counted since the team began counting successes by
    /// their rows) added to `success`: their rows are about to be deleted.
    pub fn add_pruned_successes(stored: Option<Sweeps>, pruned: i64) -> Sweeps {
        let mut sweeps = stored.unwrap_or_default();
        *sweeps.counters.entry(Outcome::Success.as_str().to_string()).or_default() += pruned;
        sweeps
    }

    /// The counters as the stats show them: these plus the `legacy` rows, by name, and
    /// `delivered_rows` (the delivered rows not yet pruned and not counted before) as successes.
    pub fn counters_with(&self, legacy: Vec<Counter>, delivered_rows: i64) -> Vec<Counter> {
        let mut all = self.counters.clone();
        if delivered_rows > 0 {
            *all.entry(Outcome::Success.as_str().to_string()).or_default() += delivered_rows;
        }
        for c in legacy {
            *all.entry(c.name).or_default() += c.value;
        }
        all.into_iter().map(|(name, value)| Counter { name, value }).collect()
    }
}

/// The outcomes a sweep's report adds to the stored counters: those it had, but for its
/// successes (each delivered row counts itself).
fn stored_outcomes(report: &SweepLine) -> impl Iterator<Item = (Outcome, i64)> {
    report.outcomes().into_iter().filter(|(o, n)| *n > 0 && *o != Outcome::Success)
}

/// Whether a sweep's report is stored: it has outcomes to add (`stored_outcomes`), an error or
/// an alert. An idle sweep and one that only delivered write nothing.
pub fn worth_storing(report: &SweepLine) -> bool {
    report.error.is_some() || report.alert.is_some() || stored_outcomes(report).next().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_stored_sweep_adds_its_outcomes_but_successes_and_becomes_the_last() {
        let first = Sweeps::record(None, SweepLine { delivered: 3, fenced: 1, ..SweepLine::default() });
        let second = Sweeps::record(Some(first), SweepLine { retried: 2, duration_ms: 9, ..SweepLine::default() });
        assert_eq!(second.counters, BTreeMap::from([("fenced".to_string(), 1), ("retry".to_string(), 2)]));
        assert_eq!(second.last.map(|l| l.duration_ms), Some(9));
    }

    #[test]
    fn the_stats_add_the_counters_an_earlier_release_kept_and_the_delivered_rows() {
        let sweeps = Sweeps::record(None, SweepLine { retried: 2, ..SweepLine::default() });
        let legacy = vec![Counter { name: "success".into(), value: 10 }, Counter { name: "retry".into(), value: 1 }];
        let shown: Vec<(String, i64)> = sweeps.counters_with(legacy, 4).into_iter().map(|c| (c.name, c.value)).collect();
        assert_eq!(shown, [("retry".to_string(), 3), ("success".to_string(), 14)]);
    }

    #[test]
    fn pruned_deliveries_move_from_their_rows_to_the_stored_count() {
        let stored = Sweeps::add_pruned_successes(Some(Sweeps::record(None, SweepLine { parked: 1, ..SweepLine::default() })), 5);
        let stored = Sweeps::add_pruned_successes(Some(stored), 2);
        assert_eq!(stored.counters, BTreeMap::from([("parked".to_string(), 1), ("success".to_string(), 7)]));
        let shown: Vec<(String, i64)> = stored.counters_with(vec![], 3).into_iter().map(|c| (c.name, c.value)).collect();
        assert_eq!(shown, [("parked".to_string(), 1), ("success".to_string(), 10)]);
    }

    #[test]
    fn only_a_sweep_with_more_than_successes_is_stored() {
        assert!(!worth_storing(&SweepLine::default()), "an idle sweep");
        assert!(!worth_storing(&SweepLine { claimed: 4, delivered: 4, ..SweepLine::default() }), "deliveries only");
        for report in [
            SweepLine { delivered: 3, retried: 1, ..SweepLine::default() },
            SweepLine { parked: 1, ..SweepLine::default() },
            SweepLine { fenced: 1, ..SweepLine::default() },
            SweepLine { rate_limited: 1, ..SweepLine::default() },
            SweepLine { paced: 1, ..SweepLine::default() },
            SweepLine { error: Some("storage".into()), ..SweepLine::default() },
            SweepLine { alert: Some(crate::logs::Alert::PendingTooOld), ..SweepLine::default() },
        ] {
            assert!(worth_storing(&report), "{report:?}");
        }
    }
}
