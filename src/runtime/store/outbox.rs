//! Claims, fenced completions, the next alarm time and housekeeping.

use super::ingest::insert_rows;
use crate::kinds::completion::{to_store, AfterWrite, Fence};
use crate::kinds::lists::api::RunView;
use crate::kinds::lists::store::{self as lists, Queueing};
use crate::kinds::notify::sql as notify_sql;
use crate::kinds::notify::store as notify;
use crate::kinds::notify::PostWrite;
use crate::kinds::schedule::store as scheduled;
use crate::outbox::{ClaimToken, Outcome, RowId, StreakChange, Transition};
use crate::platform::exec::{int, opt_int, rows, run, text, tx_sync};
use crate::platform::rows::note_done;
pub use crate::platform::rows::{remember_team_key, team_key};
use crate::platform::rows::{ClaimedRow, PreClaim};
use crate::platform::state;
use crate::slack::classify::Verdict;
use crate::sql;
use crate::sql::known::Known;
use serde::Deserialize;
use serde_json::Value;
use std::rc::Rc;
use worker::{SqlStorage, SqlStorageValue as V, Storage};

/// Claims up to `limit` due rows for `token` until `lease_until`.
pub fn claim(sql: &SqlStorage, token: &ClaimToken, lease_until: i64, now: i64, limit: i64) -> worker::Result<Vec<ClaimedRow>> {
    let mut claimed: Vec<ClaimedRow> = rows(sql, sql::outbox::CLAIM, vec![text(token.as_str()), int(lease_until), int(now), int(limit)])?;
    claimed.sort_by_key(|r| r.id);
    Ok(claimed)
}

/// The outcome of a fenced completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// Our claim still held: the transition was stored.
    Stored,
    /// Another claimer owns the row now: nothing of ours was written but the attempt log.
    Fenced,
}

/// One attempt, for the row's history.
#[derive(Debug, Clone)]
pub struct AttemptLog {
    /// Which attempt.
    pub attempt: i64,
    /// How the attempt ended (before fencing: the completion may still turn it into `Fenced`).
    pub outcome: Outcome,
    /// The Slack error or failure code (also kept as the row's `last_error`).
    pub detail: Option<String>,
    /// The HTTP status, when there was an answer.
    pub http_status: Option<i64>,
    /// How long the attempt took.
    pub latency_ms: i64,
}

/// Everything a completion writes, in one unit.
pub struct Completing {
    /// The row.
    pub row_id: RowId,
    /// Our claim token (the fence).
    pub token: ClaimToken,
    /// The row's rate-limit target (for its failure streak).
    pub target: String,
    /// The row's receipt key, given to follow-ups.
    pub op_key: String,
    /// The state machine's decision.
    pub transition: Transition,
    /// The attempt's verdict (a List job's end is resolved with it).
    pub verdict: Verdict,
    /// The attempt's history entry.
    pub log: AttemptLog,
    /// What the job's outcome writes besides the transition, only if the claim still holds.
    pub writes: Vec<AfterWrite>,
    /// The attempt budget of follow-ups, the next reconciliation pass's delay, and now.
    pub queueing: Queueing,
}

/// What a completion stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Completed {
    /// Stored or fenced.
    pub completion: Completion,
    /// The outcome written to the attempt history: the attempt's, or `Fenced`.
    pub outcome: Outcome,
    /// Failures in a row of the row's target after this attempt (0 after a success).
    pub target_failures: i64,
    /// The reconciliation pass this completion finished, if any.
    pub reconciled: Option<RunView>,
    /// The follow-ups it inserted claimed by the sweep's instance, for its next claim to adopt.
    pub claimed: Vec<i64>,
}

/// Stores completions whose claims still hold (each fenced by `claim_token`), with their
/// follow-ups, holds, attempt history (a paced row, never sent, has none; a success stored as
/// done is carried by its row) and target failure streaks, all in one unit (a success counts
/// itself by its done row; the other outcomes are counted by the sweep, `store::admin::save_sweep`): the
/// sweep hands over every attempt that finished together, so one commit serves several rows.
/// Returns one [`Completed`] per completion, in order. A follow-up due now is inserted claimed by
/// `claim` (the actor instance's token and the lease's end, as an ingest's rows are), so that the
/// sweep adopts it (`runtime::sweep::adopt`) instead of claiming it with a write of its own.
pub fn complete(
    storage: &Storage,
    sql: &SqlStorage,
    completions: Vec<Completing>,
    known: &Rc<Known>,
    claim: Option<(ClaimToken, i64)>,
) -> worker::Result<Vec<Completed>> {
    let (sql, knows) = (sql.clone(), known.clone());
    let completed = tx_sync(storage, move || {
        let mut done = Vec::with_capacity(completions.len());
        let claim = claim.as_ref().map(|(token, until)| PreClaim { token: token.as_str(), until: *until });
        for c in completions {
            done.push(complete_one(&sql, c, &knows, claim)?);
        }
        Ok(done)
    });
    if completed.is_err() {
        known.forget();
    }
    completed
}

fn complete_one(sql: &SqlStorage, c: Completing, known: &Known, claim: Option<PreClaim>) -> worker::Result<Completed> {
    let (id, token, now) = (int(c.row_id.0), text(c.token.as_str()), c.queueing.now);
    let detail = || c.log.detail.as_deref().map(text).unwrap_or(V::Null);
    let stored: Vec<Value> = match &c.transition {
        Transition::Done => {
            let (channel, ts) = posted_message(&c.writes).map_or((V::Null, V::Null), |(channel, ts)| (text(channel), text(ts)));
            rows(sql, sql::outbox::COMPLETE_DONE, vec![id, token, int(now), opt_int(c.log.http_status), int(c.log.latency_ms), channel, ts])?
        }
        Transition::Retry { at } => {
            rows(sql, sql::outbox::COMPLETE_RETRY, vec![id, token, int(*at), detail(), opt_int(c.log.http_status), opt_int(uncertain_since(&c.writes))])?
        }
        Transition::Wait { at, .. } => {
            let sent = int(i64::from(c.log.outcome.was_sent()));
            rows(sql, sql::outbox::COMPLETE_WAIT, vec![id, token, int(*at), detail(), opt_int(c.log.http_status), sent])?
        }
        Transition::Park { reason } => rows(sql, sql::outbox::COMPLETE_PARK, vec![id, token, text(reason), detail(), opt_int(c.log.http_status), int(now)])?,
    };
    let completion = if stored.is_empty() { Completion::Fenced } else { Completion::Stored };
    if completion == Completion::Stored && c.transition == Transition::Done && !known.done_noted() {
        note_done(sql, now)?;
        known.note_done();
    }
    let outcome = if completion == Completion::Fenced { Outcome::Fenced } else { c.log.outcome };
    // A call the pacer kept back was never sent: it has no place in the attempt history. A
    // success stored as done is carried by the row itself (`sql::lean`).
    let carried = completion == Completion::Stored && outcome == Outcome::Success && c.transition == Transition::Done;
    if c.log.outcome.was_sent() && !carried {
        run(
            sql,
            sql::outbox::LOG_ATTEMPT,
            vec![int(c.row_id.0), int(c.log.attempt), int(now), text(outcome.as_str()), detail(), opt_int(c.log.http_status), int(c.log.latency_ms)],
        )?;
    }
    let target_failures = streak(sql, &c.target, outcome.streak_change(c.log.detail.as_deref()), known)?;
    let fence = match completion {
        Completion::Stored => Fence::Held,
        Completion::Fenced => Fence::Lost,
    };
    let mut claimed = Vec::new();
    let reconciled = apply_after(sql, &c, to_store(&c.writes, fence), claim, &mut claimed)?;
    Ok(Completed { completion, outcome, target_failures, reconciled, claimed })
}

/// The notify message's post among a completion's after-writes: its channel and ts.
fn posted_message(writes: &[AfterWrite]) -> Option<(&str, &str)> {
    writes.iter().find_map(|w| match w {
        AfterWrite::SlackResult(PostWrite::Message { channel, ts }) => Some((channel.as_str(), ts.as_str())),
        _ => None,
    })
}

/// Since when the row's post may already be in Slack, if the job said so (a retry keeps it on the
/// row: `COMPLETE_RETRY`).
fn uncertain_since(writes: &[AfterWrite]) -> Option<i64> {
    writes.iter().find_map(|w| match w {
        AfterWrite::Uncertain(since) => Some(*since),
        _ => None,
    })
}

/// Stores a job's after-writes with its completion (those [`to_store`] keeps: none when fenced),
/// a follow-up due now claimed by `claim` (its id added to `claimed`). Returns the reconciliation
/// pass a List page finished, if any.
fn apply_after(sql: &SqlStorage, c: &Completing, writes: &[AfterWrite], claim: Option<PreClaim>, claimed: &mut Vec<i64>) -> worker::Result<Option<RunView>> {
    let q = c.queueing;
    let parked = matches!(c.transition, Transition::Park { .. });
    let mut reconciled = None;
    for write in writes {
        match write {
            AfterWrite::Followup(row) => {
                insert_rows(sql, &c.op_key, std::slice::from_ref(row), q.max_attempts, q.now, claim, claimed)?;
            }
            AfterWrite::Recur(row) => {
                if scheduled::still_recurs(sql, c.row_id)? {
                    insert_rows(sql, &c.op_key, std::slice::from_ref(row), q.max_attempts, q.now, None, claimed)?;
                }
            }
            // A message's post completed as done is on the row already (COMPLETE_DONE).
            AfterWrite::SlackResult(PostWrite::Message { .. }) if c.transition == Transition::Done => {}
            AfterWrite::SlackResult(post) => notify::apply(sql, c.row_id.0, post)?,
            AfterWrite::Lists(end) => {
                if let Some(write) = end.clone().write(&c.verdict, parked) {
                    reconciled = reconciled.or(lists::apply(sql, &write, q)?);
                }
            }
            AfterWrite::Hold { lane, until } if *until > q.now => run(sql, sql::outbox::HOLD_TARGET, vec![text(lane), int(*until)])?,
            AfterWrite::Hold { .. } => {}
            AfterWrite::Remember { key, value } => state::remember(sql, key, value, q.now)?,
            AfterWrite::ForgetAnswer => crate::kinds::assistant::store::forget(sql, c.row_id.0)?,
            // Kept by the retry's own UPDATE (COMPLETE_RETRY), or moot: the row is done or parked.
            AfterWrite::Uncertain(_) => {}
            AfterWrite::State(change) => {
                state::apply(sql, change, q.now)?;
            }
            AfterWrite::Rewrite(action) => {
                let payload = serde_json::to_string(action).map_err(|e| worker::Error::RustError(e.to_string()))?;
                run(sql, sql::outbox::REWRITE, vec![int(c.row_id.0), text(&payload), text(action.label()), text(&action.target())])?;
            }
        }
    }
    Ok(reconciled)
}

/// Applies an attempt's change to its target's streak of failed attempts; returns the streak's
/// length (0 when the attempt said nothing about the target). A reset of a target known to have no
/// streak runs nothing ([`Known`]).
fn streak(sql: &SqlStorage, target: &str, change: StreakChange, known: &Known) -> worker::Result<i64> {
    #[derive(Deserialize)]
    struct Row {
        failures: i64,
    }
    match change {
        StreakChange::Keep => Ok(0),
        StreakChange::Reset if known.is_clean(target) => Ok(0),
        StreakChange::Reset => {
            run(sql, sql::outbox::STREAK_RESET, vec![text(target)])?;
            known.clean(target);
            Ok(0)
        }
        StreakChange::Extend => {
            known.dirty(target);
            Ok(rows::<Row>(sql, sql::outbox::STREAK_FAIL, vec![text(target)])?.first().map_or(0, |r| r.failures))
        }
    }
}

/// What a sweep's end reads (one statement, [`sql::outbox::SWEEP_END`]).
#[derive(Debug, Clone, Default)]
pub struct SweepEnd {
    /// When the earliest pending row is due (or its claim runs out), if any is pending.
    pub work_at: Option<i64>,
    /// When the housekeeping is next due (not before the `prune_not_before` given), if ever.
    pub housekeeping_at: Option<i64>,
    /// How many rows are pending.
    pub pending: i64,
    /// Age of the oldest pending row (ms), if any.
    pub oldest_pending_age_ms: Option<i64>,
}

impl SweepEnd {
    /// The earliest of the due work and the housekeeping, if any.
    pub fn earliest(&self) -> Option<i64> {
        self.work_at.into_iter().chain(self.housekeeping_at).min()
    }
}

/// Reads what a sweep's end needs at `now`: when work and housekeeping are next due, and the pending summary.
pub fn sweep_end(sql: &SqlStorage, now: i64, receipt_retention_ms: i64, done_retention_ms: i64, prune_not_before: i64) -> worker::Result<SweepEnd> {
    let bucket = int(crate::config::PRUNE_BUCKET_MS);
    #[derive(Deserialize)]
    struct Row {
        next_at: Option<i64>,
        receipts_at: Option<i64>,
        done_at: Option<i64>,
        keys_at: Option<i64>,
        pending: i64,
        oldest: Option<i64>,
    }
    let Some(r) = rows::<Row>(sql, sql::outbox::SWEEP_END, vec![int(now), int(receipt_retention_ms), int(done_retention_ms), bucket])?.into_iter().next()
    else {
        return Ok(SweepEnd::default());
    };
    let housekeeping_at = [r.receipts_at, r.done_at, r.keys_at].into_iter().flatten().map(|t| t.max(prune_not_before)).min();
    Ok(SweepEnd { work_at: r.next_at, housekeeping_at, pending: r.pending, oldest_pending_age_ms: r.oldest.map(|o| now - o) })
}

/// Housekeeping: rotates the receipts (and deletes the state facts as old), deletes delivered
/// rows past retention and expired idempotency keys (each bounded), and stale holds. The
/// receipts rotate once `receipts` has collected for a retention ([`rotate_receipts`]);
/// delivered rows are pruned only once their oldest (as `meta` notes it, `sql::lean`) has been
/// past its retention for a whole [`PRUNE_BUCKET_MS`](crate::config::PRUNE_BUCKET_MS), and
/// expired keys once the oldest (`kinds::notify::sql::NOTE_KEYS`) has been expired as long: each
/// such prune scans its table once and notes the oldest left.
pub fn prune(storage: &Storage, sql: &SqlStorage, now: i64, receipt_retention_ms: i64, done_retention_ms: i64, limit: i64) -> worker::Result<()> {
    #[derive(Deserialize)]
    struct Oldest {
        receipts: Option<i64>,
        done: Option<i64>,
        keys: Option<i64>,
    }
    let oldest = rows::<Oldest>(sql, sql::lean::OLDEST, vec![])?.into_iter().next();
    if oldest.as_ref().and_then(|o| o.receipts).is_some_and(|since| since + receipt_retention_ms <= now) {
        let sql = sql.clone();
        tx_sync(storage, move || rotate_receipts(&sql, now, receipt_retention_ms))?;
    }
    state::prune_facts(sql, now - receipt_retention_ms, limit)?;
    crate::kinds::perform::housekeep(sql, now - receipt_retention_ms)?;
    let bucket = crate::config::PRUNE_BUCKET_MS;
    if oldest.as_ref().and_then(|o| o.keys).is_some_and(|at| at + bucket <= now) {
        let sql = sql.clone();
        tx_sync(storage, move || {
            run(&sql, notify_sql::PRUNE_KEYS, vec![int(now), int(limit)])?;
            run(&sql, notify_sql::UNNOTE_KEYS, vec![])?;
            run(&sql, notify_sql::RENOTE_KEYS, vec![])
        })?;
    }
    if oldest.and_then(|o| o.done).is_some_and(|at| at + done_retention_ms + bucket <= now) {
        let (sql, cutoff) = (sql.clone(), now - done_retention_ms);
        // One unit: the successes the deleted rows counted move to the stored count with them.
        tx_sync(storage, move || {
            run(&sql, sql::outbox::PRUNE_DONE_RESULTS, vec![int(cutoff), int(limit)])?;
            run(&sql, sql::outbox::PRUNE_DONE_ATTEMPTS, vec![int(cutoff), int(limit)])?;
            super::admin::keep_pruned_successes(&sql, cutoff, limit)?;
            run(&sql, sql::outbox::PRUNE_DONE, vec![int(cutoff), int(limit)])?;
            run(&sql, sql::lean::UNNOTE_DONE, vec![])?;
            run(&sql, sql::lean::RENOTE_DONE, vec![])
        })?;
    }
    run(sql, sql::outbox::PRUNE_HOLDS, vec![int(now)])
}

/// Rotates the receipts ([`sql::lean::rotation`]). Run in one `transactionSync`: both tables
/// exist after it, whatever fails.
fn rotate_receipts(sql: &SqlStorage, now: i64, retention_ms: i64) -> worker::Result<()> {
    #[derive(Deserialize)]
    struct Current {
        newest: Option<i64>,
        n: i64,
    }
    let current = rows::<Current>(sql, sql::lean::CURRENT_RECEIPTS, vec![])?.into_iter().next();
    let (newest, n) = current.map_or((None, 0), |c| (c.newest, c.n));
    for statement in sql::lean::rotation(newest, n, now, retention_ms) {
        let bindings = if statement == sql::lean::SINCE { vec![text(&now.to_string())] } else { vec![] };
        run(sql, statement, bindings)?;
    }
    Ok(())
}

/// The alarm's safety net: the earliest due time of the pending rows whose next attempt is at
/// least `grace_ms` old at `now` (`sql::outbox::OVERDUE`), if any.
pub fn overdue(sql: &SqlStorage, now: i64, grace_ms: i64) -> worker::Result<Option<i64>> {
    #[derive(Deserialize)]
    struct Row {
        due: Option<i64>,
    }
    Ok(rows::<Row>(sql, sql::outbox::OVERDUE, vec![int(now), int(now - grace_ms)])?.into_iter().next().and_then(|r| r.due))
}
