//! App state over the actor's SQLite: the handlers' reader ([`SqlState`], synchronous, served
//! while the handler runs inside the ingest unit), the unit's writes ([`apply`], once per fact),
//! a completion's remembered answer ([`remember`]), a delivery's read of a post's thread
//! ([`value`]), the admin API's page and the facts' pruning.

use super::exec::{self, int, rows, run, text};
use crate::sql;
use crate::state::{prefix_end, StateChange, StateError, StateReader, StateWrite, MAX_KEYS};
use serde::Deserialize;
use worker::{SqlStorage, SqlStorageValue as V};

/// The team's state as a handler reads it: each read one synchronous statement.
pub struct SqlState {
    /// The actor's SQL handle.
    pub sql: SqlStorage,
}

fn storage(e: worker::Error) -> StateError {
    StateError::Storage(e.to_string())
}

#[derive(Deserialize)]
struct Entry {
    key: String,
    value: String,
}

impl StateReader for SqlState {
    fn get(&self, key: &str) -> Result<Option<String>, StateError> {
        value(&self.sql, key).map_err(storage)
    }

    fn scan(&self, prefix: &str, after: Option<&str>, limit: u32) -> Result<Vec<(String, String)>, StateError> {
        let end = prefix_end(prefix).map(V::String).unwrap_or(V::Null);
        let after = after.map(text).unwrap_or(V::Null);
        let found: Vec<Entry> = rows(&self.sql, sql::state::SCAN, vec![text(prefix), end, after, int(i64::from(limit))]).map_err(storage)?;
        Ok(found.into_iter().map(|e| (e.key, e.value)).collect())
    }

    fn count(&self) -> Result<u64, StateError> {
        Ok(exec::count(&self.sql, sql::state::COUNT, vec![]).map_err(storage)?.max(0) as u64)
    }
}

/// The JSON stored under `key`, if any (a handler's read; a delivery's, for a post's thread).
pub fn value(sql: &SqlStorage, key: &str) -> worker::Result<Option<String>> {
    #[derive(Deserialize)]
    struct Row {
        value: String,
    }
    let found: Vec<Row> = rows(sql, sql::state::GET, vec![text(key)])?;
    Ok(found.into_iter().next().map(|r| r.value))
}

/// What the unit did with a handler's state change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// Written: the first change for its fact.
    Written(usize),
    /// Not written: a change for the same fact was applied before.
    SameFact,
}

/// Applies a handler's change inside the ingest unit (its receipt is new), unless a change for
/// the same fact was applied already.
pub fn apply(sql: &SqlStorage, change: &StateChange, now: i64) -> worker::Result<Applied> {
    let first: Vec<serde_json::Value> = rows(sql, sql::state::CLAIM_FACT, vec![text(&change.fact), int(now)])?;
    if first.is_empty() {
        return Ok(Applied::SameFact);
    }
    for write in &change.writes {
        match write {
            StateWrite::Put { key, value } => run(sql, sql::state::PUT, vec![text(key), text(value), int(now)])?,
            StateWrite::Delete { key } => run(sql, sql::state::DELETE, vec![text(key)])?,
        }
    }
    Ok(Applied::Written(change.writes.len()))
}

/// Keeps a completion's remembered answer (its claim held), unless it would add a key past
/// [`MAX_KEYS`].
pub fn remember(sql: &SqlStorage, key: &str, value: &str, now: i64) -> worker::Result<()> {
    run(sql, sql::state::PUT_WITHIN_LIMIT, vec![text(key), text(value), int(now), int(MAX_KEYS as i64)])
}

/// One key as the admin API lists it.
#[derive(Debug, Clone, Deserialize)]
pub struct StoredEntry {
    /// The key.
    pub key: String,
    /// Its JSON.
    pub value: String,
    /// When it was last written.
    pub updated_at: i64,
    /// The JSON's length in bytes.
    pub bytes: i64,
}

/// A page of keys under `prefix`, after `after`, in key order.
pub fn page(sql: &SqlStorage, prefix: &str, after: Option<&str>, limit: u32) -> worker::Result<Vec<StoredEntry>> {
    rows(sql, sql::state::PAGE, vec![after.map(text).unwrap_or(V::Null), int(i64::from(limit)), text(prefix)])
}

/// Forgets facts applied before `cutoff` (at most `limit`).
pub fn prune_facts(sql: &SqlStorage, cutoff: i64, limit: i64) -> worker::Result<()> {
    run(sql, sql::state::PRUNE_FACTS, vec![int(cutoff), int(limit)])
}
