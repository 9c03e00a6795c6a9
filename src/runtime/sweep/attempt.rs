//! One claimed row's attempt: expire it if its deadline passed, else perform its job
//! (`kinds::perform`, the kind's room) behind the pacer, decide its transition (`outbox::after_attempt`), and add
//! the hold a 429 calls for. Nothing is stored here: the loop stores what finished together in
//! one unit ([`Finished::completing`]).

use super::app_run::{answered_in_completion, ListenerRan};
use super::Sweeper;
use crate::config::Config;
use crate::kinds::answer::{Answered, Ended, Failure};
use crate::kinds::completion::{AfterWrite, JobOutcome};
use crate::kinds::job::Job;
use crate::kinds::lists::store::Queueing;
use crate::kinds::perform::perform;
use crate::kinds::post::read_back::ReadBacks;
use crate::kinds::registry::{is_serial, Action};
use crate::kinds::schedule as scheduled;
use crate::logs::{Alert, DeliveryLine};
use crate::outbox::{after_attempt, before_attempt, reasons, Attempted, ClaimToken, Outcome, Transition};
use crate::platform::clock;
use crate::platform::credential::Credential;
use crate::platform::pacing::Gate;
use crate::platform::rows::ClaimedRow;
use crate::runtime::store::{outbox::AttemptLog, outbox::Completing};
use crate::slack::classify::Verdict;
use std::rc::Rc;

/// A performed attempt waiting to be stored.
pub(super) struct Finished {
    pub(super) row: ClaimedRow,
    /// A scheduled row's key and due time.
    pub(super) schedule: Option<(String, i64)>,
    /// A recurring schedule's occurrences skipped since this one fell due (0: none).
    missed: u32,
    attempted: Attempted,
    outcome: JobOutcome,
    pub(super) transition: Transition,
    started: i64,
    /// The token the row was taken with: its completion's fence.
    token: ClaimToken,
}

impl Finished {
    /// Its `kind: delivery` log line, once stored with `outcome`.
    pub(super) fn line(&self, team: Option<String>, outcome: Outcome, now: i64) -> DeliveryLine {
        let row = &self.row;
        let (next_attempt_at, reason) = match &self.transition {
            Transition::Retry { at } | Transition::Wait { at, .. } => (Some(*at), None),
            Transition::Park { reason } if outcome == Outcome::Parked => (None, Some(reason.clone())),
            _ => (None, None),
        };
        DeliveryLine {
            team,
            row: row.id.0,
            effect: row.effect.clone(),
            target: row.target.clone(),
            key: row.idem_key.clone(),
            attempt: self.attempted.attempts,
            outcome,
            error: self.error(),
            http_status: self.outcome.http_status,
            latency_ms: now - self.started,
            waited_ms: self.started - row.created_at,
            schedule: self.schedule.as_ref().map(|(key, _)| key.clone()),
            due_at: self.schedule.as_ref().map(|(_, due)| *due),
            schedule_missed: Some(self.missed).filter(|n| *n > 0),
            next_attempt_at,
            alert: reason.is_some().then_some(Alert::RowParked),
            reason,
        }
    }

    /// The attempt's error code, if it failed.
    pub(super) fn error(&self) -> Option<String> {
        self.outcome.verdict.code().map(str::to_string)
    }

    /// Whether storing this attempt makes rows due now: its follow-ups, or the next job of its
    /// serial target (which the claim held back while this one was pending).
    pub(super) fn makes_rows_due(&self) -> bool {
        self.outcome.queues_rows() || is_serial(&self.row.effect)
    }

    /// What storing this attempt writes.
    pub(super) fn completing(&self, config: &Config, now: i64) -> Completing {
        Completing {
            row_id: self.row.id,
            token: self.token.clone(),
            target: self.row.target.clone(),
            op_key: self.row.op_key.clone(),
            transition: self.transition.clone(),
            verdict: self.outcome.verdict.clone(),
            log: AttemptLog {
                attempt: i64::from(self.attempted.attempts),
                outcome: Outcome::of(&self.transition),
                detail: self.error(),
                http_status: self.outcome.http_status,
                latency_ms: now - self.started,
            },
            writes: self.outcome.writes.clone(),
            queueing: Queueing::of(config, now),
        }
    }
}

/// The end of an effect with a result listener, as the listener gets it: once its transition is
/// final (done, or parked); none while it is retried, waits or has no listener.
fn ended(action: &Action, row: &ClaimedRow, outcome: &JobOutcome, transition: &Transition, attempts: u32) -> Option<Answered> {
    let (listener, data) = action.result_listener()?;
    let ended = match transition {
        Transition::Done => Ended::Answered { answer: outcome.answer.clone().unwrap_or(serde_json::Value::Null) },
        Transition::Park { reason } => Ended::Failed(Failure::new(outcome.verdict.code().map(str::to_string), reason, attempts)),
        _ => return None,
    };
    Some(Answered::new(listener, &row.idem_key, row.claimed_at, ended, data.clone()))
}

impl Sweeper<'_> {
    /// Performs one claimed row (or expires it), started at `started`, and decides its
    /// transition; stores nothing.
    pub(super) async fn attempt(&self, row: ClaimedRow, credential: Rc<Credential>, token: ClaimToken, reads: &ReadBacks, started: i64) -> Finished {
        let claim_token = &token;
        let attempted = Attempted { attempts: row.attempts.max(0) as u32, max_attempts: row.max_attempts.max(1) as u32, deadline_at: row.deadline_at };
        let gate = Gate::new(self.pacer, &self.config.rate_limits, row.id);
        let action = serde_json::from_str::<Action>(&row.payload).ok();
        let (mut outcome, mut transition) = match before_attempt(&attempted, started) {
            // Not performed: the previous attempt's error stays as `last_error`.
            Some(expired) => (JobOutcome::verdict(Verdict::Success), expired),
            None => {
                let outcome = match &action {
                    Some(action) => {
                        let job = Job {
                            storage: self.storage,
                            sql: self.sql,
                            config: self.config,
                            credential: &credential,
                            gate: &gate,
                            row: &row,
                            claim_token,
                            started,
                            app: &super::app_run::AppHandlers(self.app),
                            reads,
                        };
                        perform(&job, action).await
                    }
                    None => JobOutcome::verdict(Verdict::Permanent { code: reasons::BAD_PAYLOAD.into() }),
                };
                let transition = after_attempt(&self.config.retry, &attempted, &outcome.verdict, clock::now_ms(), clock::jitter());
                (outcome, transition)
            }
        };
        // An effect with a result listener that ended (done or parked): the listener runs now,
        // and what it decided is stored in this completion; its failure parks the row with the
        // answer kept (`crate::kinds::answer`).
        if let Some(answered) = action.as_ref().and_then(|a| ended(a, &row, &outcome, &transition, attempted.attempts)) {
            match answered_in_completion(self.app, self.sql, self.config, answered) {
                ListenerRan::Stored(writes) => outcome.writes.extend(writes),
                ListenerRan::Parked { reason, keep } => {
                    transition = Transition::Park { reason };
                    outcome.writes.push(*keep);
                }
            }
        }
        if let Some(hold) = self.hold(&gate, &row, &outcome.verdict, &transition) {
            outcome.writes.push(hold);
        }
        let schedule = action.as_ref().and_then(|a| match a {
            Action::Scheduled { key, .. } => Some((key.clone(), a.due_at().unwrap_or(row.created_at))),
            _ => None,
        });
        // A recurring schedule's occurrence that ended (done or parked) queues the next one; the
        // ones that fell due meanwhile are skipped, and counted in its line.
        let mut missed = 0;
        if let (Some(action), Transition::Done | Transition::Park { .. }) = (&action, &transition) {
            if let Some((next, skipped)) = scheduled::next_occurrence(action, row.deadline_at, clock::now_ms()) {
                outcome.writes.push(AfterWrite::Recur(next));
                missed = skipped;
            }
        }
        Finished { row, schedule, missed, attempted, outcome, transition, started, token }
    }

    /// A 429 holds the refused call's lane (the row's target when no paced call was made: the
    /// LLM, a `response_url`) until the row's next attempt: at once in the pacer, and in storage
    /// with the completion.
    fn hold(&self, gate: &Gate<'_>, row: &ClaimedRow, verdict: &Verdict, transition: &Transition) -> Option<AfterWrite> {
        let Verdict::RateLimited { retry_after_ms } = verdict else { return None };
        let until = match transition {
            Transition::Wait { at, .. } => *at,
            _ => clock::now_ms() + retry_after_ms.unwrap_or(self.config.retry.base_delay_ms(1)),
        };
        let lane = gate.lane().unwrap_or_else(|| row.target.clone());
        self.pacer.borrow_mut().hold(&lane, until);
        Some(AfterWrite::Hold { lane, until })
    }
}
