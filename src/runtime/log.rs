//! Structured logs: one JSON object per line through the Workers console, so `wrangler tail
//! --format json` and Workers Logs can filter on stable field names. Every line has `kind`.
//! Nothing that is a secret, a token or a signature is ever passed here.

use serde_json::Value;

/// Emits one log line. `fields` must be a JSON object with a `kind` field.
pub fn emit(fields: Value) {
    worker::console_log!("{}", fields);
}

/// Emits one line at error level (shown as `level: error` in tail output).
pub fn error(fields: Value) {
    worker::console_error!("{}", fields);
}
