//! A failed handler's request parked, inside the ingest unit that records its receipt.

use crate::kinds::registry::Action;
use crate::platform::exec::{int, run, text};
use serde_json::Value;
use worker::{SqlStorage, SqlStorageValue as V};

/// Parks the request `op_key` (its `dispatch`), whose handler failed with `error`, as a
/// `handler_failed` row (none more if it is parked already).
pub fn park(sql: &SqlStorage, op_key: &str, error: &str, dispatch: &Value, max_attempts: u32, now: i64) -> worker::Result<()> {
    let payload = serde_json::to_string(&Action::Handle { dispatch: dispatch.clone() }).map_err(|e| worker::Error::RustError(e.to_string()))?;
    let key = super::row_key(op_key);
    run(sql, super::sql::INSERT_HANDLER_FAILED, vec![text(&key), text(op_key), V::String(payload), text(error), int(i64::from(max_attempts)), int(now)])
}
