//! When a sweep claims, starts, waits or stops: the delivery loop's decisions, pure. The loop in
//! `runtime::sweep` does the I/O (claim, perform, store, wait) and reports each event here; it
//! asks [`Drain::next_step`] what to do next. As in raft-rs, the state machine decides and the
//! caller acts, so every timing rule is tested natively with a table of cases.
//!
//! The rules:
//! - a free slot and a claimed row waiting → start it (at most `concurrency` attempts at once);
//! - nothing in flight → the first claim; after it, claim again only while rows may be waiting
//!   that no claim took: the last claim was full, an ingest nudged the sweep, or a finished attempt
//!   made rows due (follow-ups, the next job of a serial target). Otherwise stop: rows that come
//!   due later by the clock (retries, expired leases) are the re-armed alarm's, so a sweep of one
//!   row runs one claim, not a second one that finds nothing. Stop too once the sweep's time budget
//!   is spent (the alarm is re-armed by the caller);
//! - attempts in flight and rows possibly waiting (as above) → claim early once the oldest
//!   attempt has run [`HOLDBACK_MS`] and a slot is free, so one slow Slack call never holds back
//!   the team's other deliveries; until then wait, waking when the hold-back runs out;
//! - otherwise wait for an attempt to finish (or a nudge).
//!
//! Invariants: never more than `concurrency` attempts in flight; no claim while claimed rows
//! wait for a slot (claims stay batched); no claim after the budget; the loop ends only with
//! nothing in flight (every attempt started is stored before the sweep returns).

/// How long the attempts in flight may run before rows waiting behind them are claimed anyway,
/// outside a batch boundary: 300 ms. A Slack Web API call usually answers well within it, so
/// claims stay batched; a slow call (up to `ATTEMPT_TIMEOUT_MS`) holds nothing back for longer.
pub const HOLDBACK_MS: i64 = 300;

/// What the loop does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Claim a batch now.
    Claim,
    /// Start the next claimed row's attempt.
    Start,
    /// Wait for an attempt to finish or a nudge; with `until`, also wake at that time.
    Wait {
        /// When the hold-back of the oldest attempt runs out (epoch ms).
        until: Option<i64>,
    },
    /// Nothing in flight and nothing to claim: the sweep is over.
    Stop,
}

/// The delivery loop's state, as far as its decisions need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drain {
    /// When the sweep started (epoch ms).
    started_at: i64,
    /// After this long, no more claims (`SWEEP_BUDGET_MS`).
    budget_ms: i64,
    /// Attempts at once (`DELIVERY_CONCURRENCY`).
    concurrency: usize,
    /// Rows per claim (`BATCH_SIZE`).
    batch_size: usize,
    /// Claimed rows not started yet.
    queued: usize,
    /// (row id, start time) of each attempt in flight.
    in_flight: Vec<(i64, i64)>,
    /// A claim has run in this sweep.
    claimed_once: bool,
    /// Rows may be due that no claim took: the last claim filled its batch, or an attempt that
    /// finished since made rows due.
    more_due: bool,
}

impl Drain {
    /// A sweep starting at `started_at`.
    pub fn new(started_at: i64, budget_ms: i64, concurrency: usize, batch_size: usize) -> Drain {
        Drain { started_at, budget_ms, concurrency: concurrency.max(1), batch_size, queued: 0, in_flight: Vec::new(), claimed_once: false, more_due: false }
    }

    /// A claim returned `rows` rows.
    pub fn claimed(&mut self, rows: usize) {
        self.queued += rows;
        self.claimed_once = true;
        self.more_due = rows >= self.batch_size;
    }

    /// The attempt of claimed row `row` started at `at`.
    pub fn started(&mut self, row: i64, at: i64) {
        self.queued = self.queued.saturating_sub(1);
        self.in_flight.push((row, at));
    }

    /// The attempt of row `row` finished (and is being stored); `made_due` says its completion
    /// queued rows that are due now (follow-ups) or unblocked its serial target's next job.
    pub fn finished(&mut self, row: i64, made_due: bool) {
        self.in_flight.retain(|(id, _)| *id != row);
        self.more_due |= made_due;
    }

    /// Attempts in flight.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// The next step at `now`; `nudged` says an ingest queued rows since the last claim.
    pub fn next_step(&self, now: i64, nudged: bool) -> Step {
        let slot_free = self.in_flight.len() < self.concurrency;
        if self.queued > 0 && slot_free {
            return Step::Start;
        }
        let within_budget = now - self.started_at < self.budget_ms;
        let Some(oldest) = self.in_flight.iter().map(|(_, at)| *at).min() else {
            // A batch boundary: nothing in flight (and, with a free slot, nothing queued).
            let waiting = !self.claimed_once || self.more_due || nudged;
            return if within_budget && waiting { Step::Claim } else { Step::Stop };
        };
        let waiting = self.more_due || nudged;
        let room = self.queued == 0 && slot_free;
        let holdback_over = now - oldest >= HOLDBACK_MS;
        match (waiting && room, holdback_over) {
            (true, true) if within_budget => Step::Claim,
            (true, false) => Step::Wait { until: Some(oldest + HOLDBACK_MS) },
            _ => Step::Wait { until: None },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUDGET: i64 = 20_000;

    /// A sweep started at 0 with concurrency 2 and batches of 3.
    fn drain() -> Drain {
        Drain::new(0, BUDGET, 2, 3)
    }

    /// `claims` claims of the given sizes, then attempts started at the given times.
    fn state(claims: &[usize], starts: &[i64]) -> Drain {
        let mut d = drain();
        for &rows in claims {
            d.claimed(rows);
        }
        for (i, &at) in starts.iter().enumerate() {
            d.started(i as i64 + 1, at);
        }
        d
    }

    #[test]
    fn the_decisions_follow_the_table() {
        let cases: Vec<(&str, Drain, i64, bool, Step)> = vec![
            ("a fresh sweep claims", drain(), 0, false, Step::Claim),
            ("a fresh sweep past its budget stops", drain(), BUDGET, false, Step::Stop),
            ("an empty claim at a boundary stops", state(&[0], &[]), 5, false, Step::Stop),
            ("a nudge after an empty claim claims again", state(&[0], &[]), 5, true, Step::Claim),
            ("claimed rows start while a slot is free", state(&[2], &[]), 1, false, Step::Start),
            ("a full batch starts up to the concurrency", state(&[3], &[0]), 1, false, Step::Start),
            ("no start beyond the concurrency", state(&[3], &[0, 0]), 1, false, Step::Wait { until: None }),
            ("rows queued behind full slots: no claim", state(&[3], &[0, 0]), 1_000, true, Step::Wait { until: None }),
            ("a partial batch in flight waits for it", state(&[1], &[0]), 10, false, Step::Wait { until: None }),
            ("a partial batch, slow: still nothing waiting", state(&[1], &[0]), 5_000, false, Step::Wait { until: None }),
            ("nudged, in flight: wait for the hold-back", state(&[1], &[100]), 150, true, Step::Wait { until: Some(100 + HOLDBACK_MS) }),
            ("nudged, hold-back over: claim early", state(&[1], &[100]), 100 + HOLDBACK_MS, true, Step::Claim),
            ("two partial claims fill both slots: wait", state(&[2, 2], &[0, 0]), 0, false, Step::Wait { until: None }),
            ("nudged past the budget: no early claim", state(&[1], &[0]), BUDGET, true, Step::Wait { until: None }),
        ];
        for (name, d, now, nudged, want) in cases {
            assert_eq!(d.next_step(now, nudged), want, "{name}");
        }
    }

    #[test]
    fn a_full_claim_behind_a_slow_attempt_claims_again_after_the_hold_back() {
        let mut d = Drain::new(0, BUDGET, 2, 1);
        d.claimed(1); // full: more may be due
        d.started(1, 0);
        assert_eq!(d.next_step(10, false), Step::Wait { until: Some(HOLDBACK_MS) });
        assert_eq!(d.next_step(HOLDBACK_MS, false), Step::Claim);
        d.claimed(0); // nothing more was due
        assert_eq!(d.next_step(HOLDBACK_MS + 1, false), Step::Wait { until: None }, "an empty early claim waits for the attempt");
    }

    #[test]
    fn a_finished_attempt_reopens_the_boundary_only_when_it_made_rows_due() {
        let mut d = state(&[1], &[0]);
        d.claimed(0);
        d.finished(1, true);
        assert_eq!(d.in_flight(), 0);
        assert_eq!(d.next_step(400, false), Step::Claim, "a follow-up is due now");
        d.claimed(0);
        assert_eq!(d.next_step(401, false), Step::Stop);
    }

    #[test]
    fn a_partial_batch_that_made_nothing_due_ends_the_sweep_without_a_second_claim() {
        let mut d = state(&[1], &[0]);
        d.finished(1, false);
        assert_eq!(d.next_step(10, false), Step::Stop, "the one due row was taken; later ones are the alarm's");
        assert_eq!(d.next_step(10, true), Step::Claim, "an ingest queued rows meanwhile");
        let mut full = state(&[3], &[0, 0]);
        full.finished(1, false);
        full.finished(2, false);
        full.started(3, 10);
        full.finished(3, false);
        assert_eq!(full.next_step(20, false), Step::Claim, "a full batch may have left rows behind");
    }

    #[test]
    fn a_loop_driven_by_the_decisions_never_exceeds_the_concurrency_and_ends_empty() {
        // Simulated: 7 due rows, each attempt takes 50 ms, batches of 3, concurrency 2.
        let mut d = Drain::new(0, BUDGET, 2, 3);
        let (mut due, mut now, mut next_id, mut running, mut done) = (7usize, 0i64, 1i64, Vec::<(i64, i64)>::new(), 0);
        let mut queue = std::collections::VecDeque::new();
        for _ in 0..1_000 {
            match d.next_step(now, false) {
                Step::Claim => {
                    let n = due.min(3);
                    due -= n;
                    for _ in 0..n {
                        queue.push_back(next_id);
                        next_id += 1;
                    }
                    d.claimed(n);
                }
                Step::Start => {
                    let id = queue.pop_front().expect("a queued row");
                    running.push((id, now + 50));
                    d.started(id, now);
                    assert!(d.in_flight() <= 2);
                }
                Step::Wait { .. } => {
                    running.sort_by_key(|(_, end)| *end);
                    let (id, end) = running.remove(0);
                    now = now.max(end);
                    d.finished(id, false);
                    done += 1;
                }
                Step::Stop => break,
            }
        }
        assert_eq!((done, due, d.in_flight()), (7, 0, 0));
    }
}
