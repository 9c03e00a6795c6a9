//! Streamed answers' checkpoints over the actor's SQLite: read when an attempt starts, written
//! (with the claim's lease extended) before every Slack call — only while the claim holds — and
//! forgotten with the row's completion.

use super::exec::{int, rows, run, text, tx_sync};
use crate::assistant::stream::Checkpoint;
use crate::outbox::completion::Fence;
use crate::outbox::ClaimToken;
use crate::sql;
use serde::Deserialize;
use serde_json::Value;
use worker::{SqlStorage, Storage};

/// The checkpoint a previous attempt of row `row_id` left, if any (one that cannot be read is
/// treated as none: the answer starts over, and the docs say so).
pub fn load(sql: &SqlStorage, row_id: i64) -> worker::Result<Option<Checkpoint>> {
    #[derive(Deserialize)]
    struct Row {
        checkpoint: String,
    }
    let found: Vec<Row> = rows(sql, sql::answers::LOAD, vec![int(row_id)])?;
    Ok(found.into_iter().next().and_then(|r| serde_json::from_str(&r.checkpoint).ok()))
}

/// Writes `checkpoint` if `token` still holds the row, extending its lease to `lease_until`, in
/// one unit; [`Fence::Lost`] (and nothing written) if another sweep took the row over.
pub fn save(
    storage: &Storage,
    sql: &SqlStorage,
    row_id: i64,
    token: &ClaimToken,
    checkpoint: &Checkpoint,
    lease_until: i64,
    now: i64,
) -> worker::Result<Fence> {
    let json = serde_json::to_string(checkpoint).map_err(|e| worker::Error::RustError(e.to_string()))?;
    let (sql, token) = (sql.clone(), token.as_str().to_string());
    tx_sync(storage, move || {
        let held: Vec<Value> = rows(&sql, sql::answers::HOLD_CLAIM, vec![int(row_id), text(&token), int(lease_until)])?;
        if held.is_empty() {
            return Ok(Fence::Lost);
        }
        run(&sql, sql::answers::SAVE, vec![int(row_id), text(&json), int(now)])?;
        Ok(Fence::Held)
    })
}

/// Forgets row `row_id`'s checkpoint (inside its completion's unit).
pub fn forget(sql: &SqlStorage, row_id: i64) -> worker::Result<()> {
    run(sql, sql::answers::FORGET, vec![int(row_id)])
}
