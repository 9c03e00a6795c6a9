//! Prints log lines: one JSON object per line through the Workers console, so `wrangler tail
//! --format json` and Workers Logs can filter on stable field names. What a line holds is typed in
//! [`crate::logs`].

use crate::logs::{LogLine, SchemaLine};
use crate::sql::migrate::{Outcome, Schema};

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

/// Prints what an actor's wake did to its database: nothing when it was up to date, a line when
/// it migrated, an error line (one, naming the migration) when the actor refuses to write.
pub fn schema(schema: &Schema, team: Option<String>, outcome: &Outcome) {
    match (SchemaLine::of(schema, team, outcome), outcome) {
        (Some(line), Outcome::Ready(_)) => emit(line),
        (Some(line), Outcome::Refused(_)) => error(line),
        (None, _) => {}
    }
}
