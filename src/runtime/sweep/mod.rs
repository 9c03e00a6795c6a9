//! The alarm's delivery loop: claim a bounded batch, perform each effect (a few at a time, each
//! with a timeout), complete each with a fenced write; claim again when the batch is done — or
//! earlier, when rows are waiting (a full claim, or the actor's signal that an ingest queued some)
//! behind an attempt that has run past [`HOLDBACK_MS`](crate::outbox::schedule::HOLDBACK_MS), so a slow call never holds back the team's
//! other deliveries; stop when nothing is due or the time budget is spent. The caller re-arms the
//! alarm from the returned report on every path. Those timing decisions are the pure
//! [`crate::outbox::schedule`]'s; this loop only does what it says.
//!
//! The folder follows the path: [`adopt`] (the rows the instance inserted claimed — its
//! ingests', its completions' follow-ups — taken without a claim), [`attempt`] (one row:
//! expire, perform, decide; the job itself is the kind's, picked by `kinds::perform`),
//! [`credential`] (the bot token at delivery time), [`nudge`] (an ingest waking a running sweep).
//!
//! Invariants: the claim is one UPDATE (no SELECT-then-UPDATE); a completion whose claim was taken
//! over is counted as fenced and changes nothing; a row past its deadline is parked without being
//! performed; a crash anywhere leaves claimed rows to be reclaimed when their lease expires.

mod adopt;
mod app_run;
mod attempt;
mod nudge;

pub use adopt::{pre_claim_ms, PreClaims};
pub use nudge::{nudges, Nudge, Nudges};

use super::store;
use crate::config::{Config, PRUNE_BATCH};
use crate::kinds::lists::api::RunView;
use crate::kinds::post::read_back::ReadBacks;
use crate::logs::{Alert, AlertLine, SweepLine};
use crate::outbox::pace::Pacer;
use crate::outbox::schedule::{Drain, Step};
use crate::outbox::{streak_alerts, ClaimToken, Outcome, Transition, Trigger, WaitCause};
use crate::platform::credential::{self, Credential};
use crate::platform::rows::ClaimedRow;
use crate::platform::{clock, log};
use crate::sql::known::Known;
use attempt::Finished;
use futures::stream::FuturesUnordered;
use futures::{FutureExt, StreamExt};
use nudge::{next_event, Event};
use std::collections::VecDeque;
use std::rc::Rc;
use store::{outbox::Completed, outbox::Completion};
use worker::{SqlStorage, Storage};

/// The adapters a sweep works with.
pub struct Sweeper<'a> {
    /// The actor's storage (for transactionSync).
    pub storage: &'a Storage,
    /// The actor's SQL handle.
    pub sql: &'a SqlStorage,
    /// Settings.
    pub config: &'a Config,
    /// The team key, for log lines.
    pub team: Option<String>,
    /// Whether to prune old receipts and delivered rows in this sweep, and the time the
    /// retention counts back from (now, or an admin sweep's test clock).
    pub prune: Option<i64>,
    /// The actor's cached credential.
    pub credentials: &'a credential::Cache,
    /// The actor's pacer: Slack calls wait for their method's (or channel's) rate budget.
    pub pacer: &'a std::cell::RefCell<Pacer>,
    /// The app (a redriven `handler_failed` row runs its handler again).
    pub app: &'a dyn crate::app::App,
    /// What the actor knows its database holds (statements the completions can skip).
    pub known: &'a Rc<Known>,
    /// The rows the actor instance inserted claimed (its ingests', its completions' follow-ups):
    /// adopted before each claim.
    pub pre_claims: &'a PreClaims,
}

impl Sweeper<'_> {
    /// Runs one sweep. Storage errors end it early (recorded in the report); they never escape.
    /// A signal on `nudges` says an ingest queued rows while the sweep runs: they are claimed in
    /// this sweep (early if the attempts in flight are slow) instead of waiting for the next alarm.
    pub async fn run(&self, trigger: Trigger, nudges: Nudges) -> SweepLine {
        let started = clock::now_ms();
        let mut report = SweepLine { trigger, team: self.team.clone(), ..SweepLine::default() };
        if let Err(e) = self.drain(started, &mut report, nudges).await {
            report.error = Some(e.to_string());
        }
        report.duration_ms = clock::now_ms() - started;
        report
    }

    /// The delivery loop: I/O only. Every decision (claim, start, wait, stop) is
    /// [`Drain::next_step`]'s.
    async fn drain(&self, started: i64, report: &mut SweepLine, nudges: Nudges) -> worker::Result<()> {
        let c = self.config;
        if let Some(at) = self.prune {
            self.known.forget_notes();
            store::outbox::prune(self.storage, self.sql, at, c.receipt_retention_ms, c.done_retention_ms, PRUNE_BATCH)?;
        }
        self.pacer.borrow_mut().forget_idle(started);
        // Before this instance's first claim: what a dead instance never sent goes out at once.
        report.taken_over = adopt::take_over(self.sql, self.pre_claims, c, started)? as u32;
        // One sweep at a time adopts the rows this instance inserted claimed.
        let adopter = self.pre_claims.adopter();
        let token = clock::claim_token(c.delivery_concurrency);
        let mut drain = Drain::new(started, c.sweep_budget_ms, c.delivery_concurrency, c.batch_size as usize);
        let mut queued: VecDeque<(ClaimedRow, Rc<Credential>, ClaimToken)> = VecDeque::new();
        let reads = ReadBacks::default();
        let mut in_flight = FuturesUnordered::new();
        let Nudges { signals: mut woken, outstanding } = nudges;
        loop {
            let now = clock::now_ms();
            match drain.next_step(now, outstanding.get()) {
                Step::Stop => break,
                Step::Claim => {
                    // This claim takes what was queued until now: the rows this instance inserted
                    // claimed first (no row written), only as many as start at once (an adopted
                    // row's claim covers one attempt), then a claim of the rest, a batch in all.
                    outstanding.set(false);
                    let free = c.delivery_concurrency.saturating_sub(in_flight.len() + queued.len());
                    let adopted = match &adopter {
                        Some(adopter) => adopt::adopt(self.sql, adopter, c, now, free)?,
                        None => Vec::new(),
                    };
                    if adopter.is_some() && self.pre_claims.waiting() {
                        outstanding.set(true); // claim again when a slot frees
                    }
                    let left = c.batch_size - adopted.len() as i64;
                    let claimed = if left > 0 { store::outbox::claim(self.sql, &token, now + c.lease_ms, now, left)? } else { Vec::new() };
                    let taken = adopted.len() + claimed.len();
                    drain.claimed(taken);
                    reads.claimed(&adopted);
                    reads.claimed(&claimed);
                    if taken > 0 {
                        report.claimed += taken as u32;
                        let credential = credential::resolve_cached(self.credentials, self.sql, c, now).await?;
                        let tokens = std::iter::repeat_n(self.pre_claims.token(c), adopted.len()).chain(std::iter::repeat(&token));
                        queued.extend(adopted.into_iter().chain(claimed).zip(tokens).map(|(row, token)| (row, credential.clone(), token.clone())));
                    }
                }
                Step::Start => {
                    let (row, credential, row_token) = queued.pop_front().expect("the schedule starts only claimed rows");
                    drain.started(row.id.0, now);
                    in_flight.push(self.attempt(row, credential, row_token, &reads, now));
                }
                Step::Wait { until } => match next_event(&mut in_flight, &mut woken, until.map(|at| at - now)).await {
                    // `outstanding` already says rows are waiting; the signal only woke the loop.
                    Event::Signal(Some(())) | Event::Stalled => {}
                    Event::Signal(None) => woken = None, // the actor let go of the sender
                    Event::Finished(None) => break,
                    Event::Finished(Some(first)) => {
                        // Attempts that finished together are stored together: one unit, one commit.
                        let mut chunk = vec![*first];
                        while let Some(Some(finished)) = in_flight.next().now_or_never() {
                            chunk.push(finished);
                        }
                        for finished in &chunk {
                            drain.finished(finished.row.id.0, finished.makes_rows_due());
                            if let Transition::Wait { at, cause: WaitCause::Paced } = finished.transition {
                                report.paced_until = report.paced_until.max(Some(at));
                            }
                        }
                        for outcome in self.store(chunk)? {
                            report.count(outcome);
                        }
                    }
                },
            }
        }
        Ok(())
    }

    /// Stores finished attempts in one fenced unit (each by the token it was taken with), then
    /// logs each; returns their outcomes.
    fn store(&self, finished: Vec<Finished>) -> worker::Result<Vec<Outcome>> {
        let now = clock::now_ms();
        let completing = finished.iter().map(|f| f.completing(self.config, now)).collect();
        // Follow-ups due now are inserted claimed by this instance and adopted by the next claim
        // (`adopt`): one write fewer each than a claim of their own.
        let until = now + pre_claim_ms(self.config);
        let completed = store::outbox::complete(self.storage, self.sql, completing, self.known, Some((self.pre_claims.token(self.config).clone(), until)))?;
        for done in &completed {
            self.pre_claims.inserted(&done.claimed, now, until);
        }
        Ok(finished.iter().zip(completed).map(|(f, done)| self.log_attempt(f, done, now)).collect())
    }

    /// The `reconcile` line of a pass that a completion finished.
    fn log_reconcile(&self, run: RunView, now: i64) {
        log::emit(run.line(self.team.clone(), now));
    }

    /// The `delivery` line of one stored attempt, and a `target_failing` alert on a long streak.
    fn log_attempt(&self, f: &Finished, done: Completed, now: i64) -> Outcome {
        if let Some(run) = done.reconciled {
            self.log_reconcile(run, now);
        }
        let outcome = if done.completion == Completion::Fenced { Outcome::Fenced } else { Outcome::of(&f.transition) };
        let error = f.error();
        let prints = match f.schedule {
            Some(_) => self.config.log_deliveries.prints_scheduled(outcome),
            None => self.config.log_deliveries.prints(outcome),
        };
        if prints {
            log::emit(f.line(self.team.clone(), outcome, now));
        }
        let failures = done.target_failures;
        if streak_alerts(failures, self.config.alert_failure_streak) {
            log::emit(AlertLine { alert: Alert::TargetFailing, team: self.team.clone(), target: f.row.target.clone(), target_failures: failures, error });
        }
        outcome
    }
}
