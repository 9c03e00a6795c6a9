//! Step executions over the actor's SQLite: recorded by the ingest unit, read and ended by the
//! ending's and the guard's jobs.

use super::sql;
use crate::platform::exec::{int, rows, run, text};
use serde::Deserialize;
use worker::SqlStorage;

/// An execution as its jobs see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Execution {
    /// Not recorded (or pruned): nothing to end with.
    Unknown,
    /// Ended already: nothing more is sent.
    Ended,
    /// Running, with its sealed token.
    Running { sealed_token: String },
}

/// Records an execution (inside the ingest unit; a duplicate writes nothing).
pub(crate) fn record(sql: &SqlStorage, execution_id: &str, callback_id: &str, sealed_token: &str, deadline_at: i64, now: i64) -> worker::Result<()> {
    run(sql, sql::RECORD, vec![text(execution_id), text(callback_id), text(sealed_token), int(deadline_at), int(now)])
}

/// What is stored of `execution_id`.
pub(crate) fn execution(sql: &SqlStorage, execution_id: &str) -> worker::Result<Execution> {
    #[derive(Deserialize)]
    struct Row {
        token: Option<String>,
        ended_at: Option<i64>,
    }
    let found: Vec<Row> = rows(sql, sql::EXECUTION, vec![text(execution_id)])?;
    Ok(match found.into_iter().next() {
        None => Execution::Unknown,
        Some(Row { ended_at: Some(_), .. }) | Some(Row { token: None, .. }) => Execution::Ended,
        Some(Row { token: Some(sealed_token), .. }) => Execution::Running { sealed_token },
    })
}

/// Marks `execution_id` ended and drops its token.
pub(crate) fn ended(sql: &SqlStorage, execution_id: &str, now: i64) -> worker::Result<()> {
    run(sql, sql::ENDED, vec![text(execution_id), int(now)])
}

/// Forgets the executions started before `cutoff` (housekeeping).
pub(crate) fn prune(sql: &SqlStorage, cutoff: i64) -> worker::Result<()> {
    run(sql, sql::PRUNE, vec![int(cutoff)])
}
