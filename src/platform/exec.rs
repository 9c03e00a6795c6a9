//! The store's few primitives: `transactionSync` (all or nothing), running a statement, reading
//! rows into types, and binding values (numbers as INTEGER, text as TEXT).

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
    let callback = Closure::once_assert_unwind_safe(move || -> Result<JsValue, JsValue> {
        let value = f().map_err(|e| JsValue::from_str(&e.to_string()))?;
        *slot.borrow_mut() = Some(value);
        Ok(JsValue::UNDEFINED)
    });
    func.call1(raw, callback.as_ref().unchecked_ref()).map_err(worker::Error::from)?;
    let value = out.borrow_mut().take();
    value.ok_or_else(|| worker::Error::RustError("transactionSync did not run its callback".into()))
}

/// Runs a query and reads its rows (counted by the cost meter, `runtime::meter`, once drained).
pub fn rows<T: DeserializeOwned>(sql: &SqlStorage, query: &str, bindings: Vec<V>) -> worker::Result<Vec<T>> {
    let cursor = sql.exec(query, bindings)?;
    let read = cursor.to_array();
    crate::platform::meter::statement(query, &cursor);
    read
}

/// The `n` of a one-row `… AS n` query (a `COUNT(*)`; 0 without a row).
pub fn count(sql: &SqlStorage, query: &str, bindings: Vec<V>) -> worker::Result<i64> {
    #[derive(serde::Deserialize)]
    struct Count {
        n: i64,
    }
    Ok(rows::<Count>(sql, query, bindings)?.first().map_or(0, |c| c.n))
}

/// Runs a statement for its effect. The cursor is always drained: a `RETURNING` statement left
/// half-read stays "in progress", and `transactionSync` then fails to release its savepoint.
pub fn run(sql: &SqlStorage, query: &str, bindings: Vec<V>) -> worker::Result<()> {
    rows::<Value>(sql, query, bindings).map(|_| ())
}

/// An integer binding.
pub fn int(v: i64) -> V {
    V::Integer(v)
}

/// An integer binding, or `NULL`.
pub fn opt_int(v: Option<i64>) -> V {
    v.map(V::Integer).unwrap_or(V::Null)
}

/// A text binding.
pub fn text(v: &str) -> V {
    V::String(v.to_string())
}
