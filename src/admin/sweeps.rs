//! The team's sweeps as the stats keep them, in one `meta` row (`sweeps`): the last sweep's
//! report and the attempt outcomes counted since the first sweep. One row written per sweep
//! that did something (an idle one writes nothing), however many kinds of outcome it had; the
//! release before kept them in a `counters` row per outcome and a `last_sweep` row, which the
//! stats still read and add in ([`Sweeps::counters_with`]).

use super::Counter;
use crate::logs::SweepLine;
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
    /// outcomes added.
    pub fn record(stored: Option<Sweeps>, report: SweepLine) -> Sweeps {
        let mut sweeps = stored.unwrap_or_default();
        for (outcome, n) in report.outcomes().into_iter().filter(|(_, n)| *n > 0) {
            *sweeps.counters.entry(outcome.as_str().to_string()).or_default() += n;
        }
        sweeps.last = Some(report);
        sweeps
    }

    /// The counters as the stats show them: these plus the `legacy` rows, by name.
    pub fn counters_with(&self, legacy: Vec<Counter>) -> Vec<Counter> {
        let mut all = self.counters.clone();
        for c in legacy {
            *all.entry(c.name).or_default() += c.value;
        }
        all.into_iter().map(|(name, value)| Counter { name, value }).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_sweep_adds_its_outcomes_and_becomes_the_last() {
        let first = Sweeps::record(None, SweepLine { delivered: 3, fenced: 1, ..SweepLine::default() });
        let second = Sweeps::record(Some(first), SweepLine { delivered: 2, duration_ms: 9, ..SweepLine::default() });
        assert_eq!(second.counters, BTreeMap::from([("fenced".to_string(), 1), ("success".to_string(), 5)]));
        assert_eq!(second.last.map(|l| l.duration_ms), Some(9));
    }

    #[test]
    fn the_stats_add_the_counters_an_earlier_release_kept() {
        let sweeps = Sweeps::record(None, SweepLine { delivered: 2, ..SweepLine::default() });
        let legacy = vec![Counter { name: "success".into(), value: 10 }, Counter { name: "retry".into(), value: 1 }];
        let shown: Vec<(String, i64)> = sweeps.counters_with(legacy).into_iter().map(|c| (c.name, c.value)).collect();
        assert_eq!(shown, [("retry".to_string(), 1), ("success".to_string(), 12)]);
    }
}
