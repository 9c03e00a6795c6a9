//! Prints log lines: one JSON object per line through the Workers console, so `wrangler tail
//! --format json` and Workers Logs can filter on stable field names. What a line holds is typed in
//! [`crate::logs`].

use crate::logs::LogLine;

fn text(line: LogLine) -> String {
    serde_json::to_string(&line).unwrap_or_else(|e| format!("{{\"kind\":\"log_error\",\"error\":{:?}}}", e.to_string()))
}

/// Prints one line.
pub fn emit(line: impl Into<LogLine>) {
    worker::console_log!("{}", text(line.into()));
}

/// Prints one line at error level (shown as `level: error` in tail output).
pub fn error(line: impl Into<LogLine>) {
    worker::console_error!("{}", text(line.into()));
}
