//! Scheduled effects in the store ([`super`] decides): queueing one (one pending
//! occurrence per key), cancelling a key or one row, and whether an occurrence still recurs. Every
//! function runs inside its caller's unit (the ingest unit, a completion, an admin action), so a
//! cancel and a claim never interleave: the actor runs one at a time.

use super::{Cancel, Cancelled};
use crate::kinds::completion::NewRow;
use crate::kinds::registry::Action;
use crate::outbox::{reasons, RowId};
use crate::platform::exec::{int, rows, run, text, tx_sync};
use crate::platform::rows::{insert_action, Queue};
use crate::sql;
use serde::Deserialize;
use worker::{SqlStorage, SqlStorageValue as V, Storage};

/// A pending row of a schedule, as a cancel sees it.
#[derive(Debug, Clone, Deserialize)]
struct Pending {
    id: i64,
    payload: String,
    claim_expires_at: Option<i64>,
}

impl Pending {
    /// Its action, if it is a schedule (a scheduled LLM reply's follow-up shares the key's range
    /// but is not one).
    fn schedule(&self) -> Option<Action> {
        serde_json::from_str::<Action>(&self.payload).ok().filter(|a| matches!(a, Action::Scheduled { .. }))
    }
}

/// The pending occurrences of `key`.
fn pending(sql: &SqlStorage, key: &str) -> worker::Result<Vec<Pending>> {
    let (low, high) = super::key_range(key);
    let found: Vec<Pending> = rows(sql, super::sql::PENDING_IN_RANGE, vec![text(&low), text(&high)])?;
    Ok(found.into_iter().filter(|p| p.schedule().is_some()).collect())
}

/// Queues a scheduled row (`key` is its schedule's) due at its time, entering the queue then
/// (`created_at` = due), unless `key` already has a pending occurrence. Returns its id if queued.
pub fn queue(sql: &SqlStorage, key: &str, row: &NewRow, op_key: &str, max_attempts: u32, now: i64) -> worker::Result<Option<i64>> {
    if !pending(sql, key)?.is_empty() {
        return Ok(None);
    }
    let due = row.due_at(now);
    insert_action(sql, &row.effect.action, Queue { key: &row.effect.key, op_key, max_attempts, due, deadline_at: row.deadline_at, now: due })
}

/// Cancels `key` at `now`: each pending occurrence ends `done` with reason `cancelled` or, in flight, left to
/// fire with its recurrence stopped. A key with none is a no-op.
pub fn cancel(sql: &SqlStorage, key: &str, now: i64) -> worker::Result<Cancelled> {
    let mut done = Cancelled::default();
    for row in pending(sql, key)? {
        done.count(cancel_one(sql, &row, now)?);
    }
    Ok(done)
}

fn cancel_one(sql: &SqlStorage, row: &Pending, now: i64) -> worker::Result<Cancel> {
    match super::cancel_row(row.claim_expires_at, now) {
        Cancel::Cancelled => {
            run(sql, super::sql::CANCEL, vec![int(row.id), int(now), text(reasons::CANCELLED)])?;
            crate::platform::rows::note_done(sql, now)?;
            Ok(Cancel::Cancelled)
        }
        Cancel::InFlight => {
            stop_recurring(sql, row)?;
            Ok(Cancel::InFlight)
        }
    }
}

/// An in-flight occurrence fires, but queues no next one: its stored payload loses `every`.
fn stop_recurring(sql: &SqlStorage, row: &Pending) -> worker::Result<()> {
    let Some(Action::Scheduled { key, when, scheduled_at, effect }) = row.schedule() else { return Ok(()) };
    if !when.recurs() {
        return Ok(());
    }
    let when = when.once();
    let payload = serde_json::to_string(&Action::Scheduled { key, when, scheduled_at, effect }).map_err(|e| worker::Error::RustError(e.to_string()))?;
    run(sql, super::sql::SET_PAYLOAD, vec![int(row.id), V::String(payload)])
}

/// Cancels the one scheduled row `id` (the admin API), with an audit record, in one unit: its
/// decision, or None when it is not a pending scheduled row.
pub fn cancel_audited(storage: &Storage, sql: &SqlStorage, RowId(id): RowId, now: i64) -> worker::Result<Option<Cancel>> {
    let sql = sql.clone();
    tx_sync(storage, move || {
        let found: Vec<Pending> = rows(&sql, super::sql::PENDING_ROW, vec![int(id)])?;
        let Some(row) = found.into_iter().find(|p| p.schedule().is_some()) else { return Ok(None) };
        let decision = cancel_one(&sql, &row, now)?;
        let outcome = match decision {
            Cancel::Cancelled => "cancelled",
            Cancel::InFlight => "in_flight",
        };
        let detail = serde_json::json!({ "outcome": outcome, "payload": row.payload }).to_string();
        run(&sql, sql::admin::AUDIT, vec![int(now), text("cancel"), int(id), V::String(detail)])?;
        Ok(Some(decision))
    })
}

/// Test builds only (an admin sweep with the test clock, `ALLOW_TEST_CLOCK=1`): the schedules
/// that fall due after `now` and no later than `at` fall due now, in one unit. Only their
/// `next_attempt_at` moves: their payload keeps their due time, which their firing (`Fired::due_at`,
/// its effects' keys) and their next occurrence count from, as if the clock were `at`. Returns
/// their ids.
#[cfg(feature = "testkit")]
pub fn due_by(storage: &Storage, sql: &SqlStorage, at: i64, now: i64) -> worker::Result<Vec<i64>> {
    let sql = sql.clone();
    tx_sync(storage, move || {
        let (low, high) = super::all_range();
        let found: Vec<Pending> = rows(&sql, super::sql::DUE_BY, vec![text(&low), text(&high), int(now), int(at)])?;
        let due: Vec<i64> = found.iter().filter(|p| p.schedule().is_some()).map(|p| p.id).collect();
        for id in &due {
            run(&sql, super::sql::MAKE_DUE, vec![int(*id), int(now)])?;
        }
        Ok(due)
    })
}

/// Whether the row `id` still recurs (no cancel reached it in flight): read in its completion.
pub fn still_recurs(sql: &SqlStorage, RowId(id): RowId) -> worker::Result<bool> {
    #[derive(Deserialize)]
    struct Row {
        payload: String,
    }
    let found: Vec<Row> = rows(sql, super::sql::PAYLOAD, vec![int(id)])?;
    let recurs = |p: &str| matches!(serde_json::from_str::<Action>(p), Ok(Action::Scheduled { when, .. }) if when.recurs());
    Ok(found.first().is_some_and(|r| recurs(&r.payload)))
}
