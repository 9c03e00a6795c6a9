//! The only module that runs SQL. It binds values to the statements in [`crate::sql`] and
//! turns result rows into outcome enums.
//!
//! All-or-nothing units (the ingest unit, a completion with its follow-ups) run inside
//! `transactionSync` (reached through `Storage::as_raw()`, which workers-rs does not bind): if any
//! statement fails, every write of the unit is rolled back, so a receipt never exists without its
//! outbox rows. No `.await` happens inside a unit.
//!
//! - [`ingest`]: the receipt and its outbox rows (and an uninstall) in one unit;
//! - [`outbox`]: claims, fenced completions, the next alarm, housekeeping;
//! - [`installation`]: the team's installation and the single-flight refresh slot;
//! - [`admin`]: stats, listings, redrive, discard, audit, benchmark seeding;
//! - [`lists`]: Slack Lists: column maps, records, reconciliation passes;
//! - [`notify`]: the notify API: idempotency keys, Slack's answers to posts, status messages;
//! - [`directory`]: the Directory actor's teams and consumed OAuth states.

mod admin;
mod directory;
mod ingest;
mod installation;
pub mod lists;
pub mod notify;
mod outbox;

pub use admin::*;
pub use directory::*;
pub use ingest::*;
pub use installation::*;
pub use outbox::*;

use crate::sql;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::cell::RefCell;
use std::rc::Rc;
use worker::wasm_bindgen::{closure::Closure, JsCast, JsValue};
use worker::{SqlStorage, SqlStorageValue as V, Storage};

/// Runs `f` inside `storage.transactionSync`: its writes commit together or not at all.
pub fn tx_sync<T: 'static>(storage: &Storage, f: impl FnOnce() -> worker::Result<T> + 'static) -> worker::Result<T> {
    use worker::js_sys::{Function, Reflect};
    let raw = storage.as_raw();
    let func: Function = Reflect::get(raw, &JsValue::from_str("transactionSync"))?.dyn_into()?;
    let out: Rc<RefCell<Option<T>>> = Rc::new(RefCell::new(None));
    let slot = out.clone();
    let callback = Closure::once(move || -> Result<JsValue, JsValue> {
        let value = f().map_err(|e| JsValue::from_str(&e.to_string()))?;
        *slot.borrow_mut() = Some(value);
        Ok(JsValue::UNDEFINED)
    });
    func.call1(raw, callback.as_ref().unchecked_ref()).map_err(worker::Error::from)?;
    let value = out.borrow_mut().take();
    value.ok_or_else(|| worker::Error::RustError("transactionSync did not run its callback".into()))
}

pub(crate) fn rows<T: DeserializeOwned>(sql: &SqlStorage, query: &str, bindings: Vec<V>) -> worker::Result<Vec<T>> {
    sql.exec(query, bindings)?.to_array()
}

/// Runs a statement for its effect. The cursor is always drained: a `RETURNING` statement left
/// half-read stays "in progress", and `transactionSync` then fails to release its savepoint.
pub(crate) fn run(sql: &SqlStorage, query: &str, bindings: Vec<V>) -> worker::Result<()> {
    sql.exec(query, bindings)?.to_array::<Value>().map(|_| ())
}

pub(crate) fn int(v: i64) -> V {
    V::Integer(v)
}

pub(crate) fn opt_int(v: Option<i64>) -> V {
    v.map(V::Integer).unwrap_or(V::Null)
}

pub(crate) fn text(v: &str) -> V {
    V::String(v.to_string())
}

/// Creates the tables (idempotent).
pub fn migrate(sql: &SqlStorage) -> worker::Result<()> {
    run(sql, sql::schema::SCHEMA, vec![])
}
