//! The ingest unit: a receipt, the handler's state change and the outbox rows its effects call
//! for, all or nothing.

use crate::ingest::Receipt;
pub use crate::kinds::completion::NewRow;
use crate::kinds::perform::{self, AtIngest};
use crate::kinds::redrive::store as redrive;
use crate::kinds::registry::is_serial;
use crate::kinds::registry::Action;
use crate::kinds::schedule::store as scheduled;
use crate::outbox::ClaimToken;
use crate::platform::exec::{int, rows, run, text, tx_sync};
use crate::platform::rows::{insert_action, insert_claimed, PreClaim, Queue};
use crate::platform::state;
use crate::sql;
use crate::sql::known::Known;
use serde_json::Value;
use std::rc::Rc;
use worker::{SqlStorage, Storage};

/// Inserts the rows of a unit's effects, in order: a schedule due at its time, a cancel applied
/// (`kinds::schedule::store`), any other row due now — claimed by `claim` as it is inserted, when
/// given (a serial kind's row excepted: its order is the claim's), and its id added to `claimed`.
/// Returns (queued, already queued).
pub(super) fn insert_rows(
    sql: &SqlStorage,
    op_key: &str,
    rows_to_insert: &[NewRow],
    max_attempts: u32,
    now: i64,
    claim: Option<PreClaim>,
    claimed: &mut Vec<i64>,
) -> worker::Result<(u32, u32)> {
    let (mut queued, mut already) = (0, 0);
    for row in rows_to_insert {
        let inserted = match &row.effect.action {
            Action::CancelSchedule { key } => {
                scheduled::cancel(sql, key, now)?;
                continue;
            }
            Action::Scheduled { key, .. } => scheduled::queue(sql, key, row, op_key, max_attempts, now)?,
            action => {
                let queue = Queue { key: &row.effect.key, op_key, max_attempts, due: now, deadline_at: row.deadline_at, now };
                match claim.filter(|_| !is_serial(action.label())) {
                    Some(claim) => insert_claimed(sql, action, queue, claim)?.inspect(|id| claimed.push(*id)),
                    None => insert_action(sql, action, queue)?,
                }
            }
        };
        if let Some(row_id) = inserted {
            perform::queued(sql, &row.effect.action, row_id, now)?;
        }
        if inserted.is_some() {
            queued += 1
        } else {
            already += 1
        }
    }
    Ok((queued, already))
}

/// What the ingest unit recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// New or duplicate, and what was queued.
    pub receipt: Receipt,
    /// True the first time this actor saw its team key (for the directory).
    pub first_seen: bool,
    /// Rows parked by an uninstall in this unit.
    pub parked: u32,
    /// The rows inserted claimed by [`Ingest::claim`], for the instance's sweep to adopt.
    pub claimed: Vec<i64>,
}

/// What one ingest unit writes: the receipt key, its effects, and whether it uninstalls the team.
pub struct Ingest {
    /// The installation.
    pub team_key: String,
    /// The receipt key.
    pub op_key: String,
    /// `event`, `command` or `interaction`.
    pub kind: String,
    /// The effects to queue.
    pub rows: Vec<NewRow>,
    /// `app_uninstalled` or a revoked bot token: delete the tokens, park every pending row.
    pub uninstall: bool,
    /// Attempt budget of new rows.
    pub max_attempts: u32,
    /// The actor already knows its team key is stored (skips one statement).
    pub team_key_stored: bool,
    /// The handler's state change, applied if the receipt is new (once per fact).
    pub state: Option<crate::state::StateChange>,
    /// The handler failed (its error) on this request (the JSON kept for a redrive): instead of
    /// effects, one parked `handler_failed` row.
    pub failed: Option<(String, serde_json::Value)>,
    /// The actor instance's claim of the rows due now (its token, the lease's end): they are
    /// inserted claimed, for its sweep to adopt without a claim of its own
    /// (the sweep's `adopt.rs`).
    pub claim: Option<(ClaimToken, i64)>,
    /// What the rooms record in the unit beside the rows (a Stop, a step's start:
    /// `crate::kinds::perform::at_ingest`).
    pub at_ingest: Vec<AtIngest>,
}

/// The ingest unit: the receipt, its outbox rows (and, for an uninstall, the revocation), all or
/// nothing.
pub fn record(storage: &Storage, sql: &SqlStorage, ingest: Ingest, now: i64, known: &Rc<Known>) -> worker::Result<Recorded> {
    let (sql, knows) = (sql.clone(), known.clone());
    let recorded = tx_sync(storage, move || {
        let first: Vec<Value> = match ingest.team_key_stored {
            true => Vec::new(),
            false => rows(&sql, sql::ingest::REMEMBER_TEAM_KEY_RETURNING, vec![text(&ingest.team_key)])?,
        };
        let fresh: Vec<Value> = rows(&sql, sql::ingest::INSERT_RECEIPT, vec![text(&ingest.op_key), text(&ingest.kind), int(now)])?;
        if fresh.is_empty() {
            return Ok(Recorded { receipt: Receipt::Duplicate, first_seen: !first.is_empty(), parked: 0, claimed: Vec::new() });
        }
        if !knows.receipts_noted() {
            run(&sql, sql::lean::NOTE_RECEIPT, vec![text(&now.to_string())])?;
            knows.note_receipts();
        }
        if let Some(change) = &ingest.state {
            state::apply(&sql, change, now)?;
        }
        let claim = ingest.claim.as_ref().map(|(token, until)| PreClaim { token: token.as_str(), until: *until });
        let mut claimed = Vec::new();
        let (mut queued, mut already_queued) = insert_rows(&sql, &ingest.op_key, &ingest.rows, ingest.max_attempts, now, claim, &mut claimed)?;
        for at in &ingest.at_ingest {
            match perform::record_at_ingest(&sql, at, &ingest.op_key, ingest.max_attempts, now)? {
                Some(true) => queued += 1,
                Some(false) => already_queued += 1,
                None => {}
            }
        }
        if let Some((error, dispatch)) = &ingest.failed {
            redrive::park(&sql, &ingest.op_key, error, dispatch, ingest.max_attempts, now)?;
        }
        let parked = if ingest.uninstall { revoke(&sql, now)? } else { 0 };
        Ok(Recorded { receipt: Receipt::New { queued, already_queued }, first_seen: !first.is_empty(), parked, claimed })
    });
    if recorded.is_err() {
        known.forget();
    }
    recorded
}

/// Deletes the tokens, marks the team uninstalled, parks every pending row as `uninstalled`.
fn revoke(sql: &SqlStorage, now: i64) -> worker::Result<u32> {
    run(sql, sql::ingest::DELETE_INSTALLATION, vec![])?;
    run(sql, sql::ingest::MARK_UNINSTALLED, vec![text(&now.to_string())])?;
    let parked: Vec<Value> = rows(sql, sql::ingest::PARK_ALL_PENDING, vec![int(now), text(crate::outbox::reasons::UNINSTALLED)])?;
    Ok(parked.len() as u32)
}
