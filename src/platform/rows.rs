//! The outbox's row primitives, beneath every kind's store: insert a row for an action unless
//! its key is taken, queue a serial target's job, note that a delivered row exists, and the team
//! key the rows belong to. Every store module that queues or completes rows (ingest, notify,
//! lists, scheduled, outbox) builds on this file, which imports none of them: the store's
//! modules import each other one way.

use super::exec::{int, opt_int, rows, run, text};
use crate::sql;
use serde::Deserialize;
use serde_json::Value;
use worker::{SqlStorage, SqlStorageValue as V};

/// What an outbox row performs, as the row stores it: its label (`effect`), its serial target
/// and its JSON payload. The registry's `Action` is the one implementation; the platform knows no
/// kind, it stores what this gives it.
pub(crate) trait RowAction: serde::Serialize {
    /// The row's `effect` column.
    fn label(&self) -> &'static str;
    /// The row's `target` column: rows of one target are delivered one at a time, in order.
    fn target(&self) -> String;
}

/// Where and when an outbox row is queued.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Queue<'a> {
    /// Its idempotency key.
    pub key: &'a str,
    /// The receipt (or API call) it belongs to.
    pub op_key: &'a str,
    /// Its attempt budget.
    pub max_attempts: u32,
    /// When it is first due.
    pub due: i64,
    /// Its absolute deadline, if any.
    pub deadline_at: Option<i64>,
    /// Now (a schedule's firing passes its due time instead, so that one queued late still counts
    /// from it). The row enters the queue (`created_at`) at the later of this and `due`: a row
    /// due later (a scheduled row, a List's next reconciliation pass, a step's guard) counts its
    /// age, its `waited_ms` and the `pending_too_old` alert from its due time, not from when it
    /// was queued.
    pub now: i64,
}

/// Inserts one outbox row for `action` unless its key is taken; returns its id when inserted.
pub(crate) fn insert_action(sql: &SqlStorage, action: &impl RowAction, q: Queue) -> worker::Result<Option<i64>> {
    insert(sql, action, q, None)
}

/// The claim an actor instance takes of a row as it inserts it (`sql::ingest::INSERT_OUTBOX_CLAIMED`;
/// its sweep adopts the row: `runtime::sweep::adopt`): its token and the lease's end.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PreClaim<'a> {
    /// The instance's token.
    pub token: &'a str,
    /// The lease's end.
    pub until: i64,
}

/// [`insert_action`] for a row due now, claimed by the inserting instance as it is inserted.
pub(crate) fn insert_claimed(sql: &SqlStorage, action: &impl RowAction, q: Queue, claim: PreClaim) -> worker::Result<Option<i64>> {
    insert(sql, action, q, Some(claim))
}

fn insert(sql: &SqlStorage, action: &impl RowAction, q: Queue, claim: Option<PreClaim>) -> worker::Result<Option<i64>> {
    #[derive(serde::Deserialize)]
    struct Id {
        id: i64,
    }
    let payload = serde_json::to_string(action).map_err(|e| worker::Error::RustError(e.to_string()))?;
    let mut values = vec![
        text(q.key),
        text(q.op_key),
        text(action.label()),
        text(&action.target()),
        V::String(payload),
        int(q.max_attempts as i64),
        int(q.due),
        opt_int(q.deadline_at),
        int(q.now.max(q.due)),
    ];
    let statement = match claim {
        None => sql::ingest::INSERT_OUTBOX,
        Some(claim) => {
            values.extend([text(claim.token), int(claim.until)]);
            sql::ingest::INSERT_OUTBOX_CLAIMED
        }
    };
    let inserted: Vec<Id> = rows(sql, statement, values)?;
    Ok(inserted.first().map(|r| r.id))
}

/// Queues the job of a serial target (a List record's sync, a status message's) unless its latest
/// job still waits unclaimed: that one will send the newest state when it runs. `queued` is how
/// many jobs the owner has queued so far, `key(n)` names job `n`, and `bump` counts one more and
/// returns the new count. The job is due at once (`now`). Returns whether a job was queued.
#[allow(clippy::too_many_arguments)]
pub(crate) fn queue_serial(
    sql: &SqlStorage,
    action: &impl RowAction,
    queued: i64,
    key: impl Fn(i64) -> String,
    bump: impl FnOnce() -> worker::Result<Option<i64>>,
    op_key: &str,
    max_attempts: u32,
    now: i64,
) -> worker::Result<bool> {
    if serial_waiting(sql, queued, &key(queued))? {
        return Ok(false);
    }
    let key = key(bump()?.unwrap_or(queued + 1));
    insert_action(sql, action, Queue { key: &key, op_key, max_attempts, due: now, deadline_at: None, now })?;
    Ok(true)
}

/// Whether job `queued` of a serial target (named `key`) still waits unclaimed: a new job would
/// add nothing, that one sends the newest state when it runs. `queued` 0: none was ever queued.
pub(crate) fn serial_waiting(sql: &SqlStorage, queued: i64, key: &str) -> worker::Result<bool> {
    if queued == 0 {
        return Ok(false);
    }
    let waiting: Vec<Value> = rows(sql, sql::ingest::SYNC_WAITING, vec![text(key)])?;
    Ok(!waiting.is_empty())
}

/// Notes that a delivered row exists from `now` on (for housekeeping, `sql::lean`): writes
/// nothing while an older one is noted.
pub fn note_done(sql: &SqlStorage, now: i64) -> worker::Result<()> {
    run(sql, sql::lean::NOTE_DONE, vec![text(&now.to_string())])
}

/// Records the actor's team key (the name it was reached by) unless one is recorded.
pub fn remember_team_key(sql: &SqlStorage, key: &str) -> worker::Result<()> {
    run(sql, sql::outbox::REMEMBER_TEAM_KEY, vec![text(key)])
}

/// The team key this actor recorded, if any.
pub fn team_key(sql: &SqlStorage) -> worker::Result<Option<String>> {
    #[derive(Deserialize)]
    struct Row {
        value: String,
    }
    Ok(rows::<Row>(sql, sql::outbox::TEAM_KEY, vec![])?.into_iter().next().map(|r| r.value))
}

/// Every lane held at `now` and until when (for a new actor instance's pacer).
pub fn active_holds(sql: &SqlStorage, now: i64) -> worker::Result<Vec<(String, i64)>> {
    #[derive(Deserialize)]
    struct Row {
        target: String,
        until_ms: i64,
    }
    Ok(rows::<Row>(sql, sql::outbox::ACTIVE_HOLDS, vec![int(now)])?.into_iter().map(|r| (r.target, r.until_ms)).collect())
}

/// A row as claimed by a sweep.
#[derive(Debug, Clone, Deserialize)]
pub struct ClaimedRow {
    /// Row id.
    pub id: crate::outbox::RowId,
    /// Idempotency key.
    pub idem_key: String,
    /// The receipt that produced it.
    pub op_key: String,
    /// Effect label.
    pub effect: String,
    /// Rate-limit target.
    pub target: String,
    /// The effect's action, as JSON.
    pub payload: String,
    /// Attempts including this one.
    pub attempts: i64,
    /// The row's maximum.
    pub max_attempts: i64,
    /// Absolute deadline.
    pub deadline_at: Option<i64>,
    /// When it entered the queue: when it was queued, or a scheduled row's due time.
    pub created_at: i64,
    /// When its oldest attempt whose outcome is unknown began (a lease that expired mid-call, a
    /// post that timed out), if any: a post reads back first (`crate::kinds::post`).
    pub uncertain_since: Option<i64>,
    /// When this claim took it.
    pub claimed_at: i64,
}
