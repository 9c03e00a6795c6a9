//! Step executions over the actor's SQLite: recorded by the ingest unit, read and ended by the
//! ending's and the guard's jobs.

use super::sql;
use crate::config::Config;
use crate::platform::clock;
use crate::platform::exec::{int, rows, run, text};
use crate::platform::rows::{insert_action, Queue};
use crate::slack::envelope::Dispatch;
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

/// A Workflow step's start (`function_executed`), as the ingest unit records it: the execution
/// with its token sealed, and its guard. An event that names no execution or token records nothing
/// (there is nothing to end): the app's handler sees it, and fails on it as it sees fit.
pub(crate) fn started(dispatch: &Dispatch, config: &Config, now: i64, handler_failed: Option<&str>) -> Option<super::Recording> {
    let Dispatch::Event(envelope) = dispatch else { return None };
    if envelope.event.type_name() != super::FUNCTION_EXECUTED {
        return None;
    }
    let started = super::StepStarted::from_event(&envelope.raw).ok()?;
    let sealed = config.cipher.seal(&started.token, clock::random_bytes());
    Some(super::recording(&started, sealed, now, config.step_deadline_ms, handler_failed))
}

/// Records a started step's execution and queues its guard (due at its deadline, or now), inside
/// the ingest unit; returns whether the guard was new. A duplicate of the execution writes
/// nothing: its guard was queued with it, whether or not it is still there (the app's ending drops
/// a waiting guard once it has ended the step, `sql::DROP_GUARD`).
pub(crate) fn record(sql: &SqlStorage, op_key: &str, step: &super::Recording, max_attempts: u32, now: i64) -> worker::Result<bool> {
    let values = vec![text(&step.execution_id), text(&step.callback_id), text(&step.sealed_token), int(step.deadline_at), int(now)];
    if rows::<serde_json::Value>(sql, sql::RECORD, values)?.is_empty() {
        return Ok(false);
    }
    let queue = Queue { key: &step.guard.key, op_key, max_attempts, due: step.guard_due, deadline_at: None, now };
    Ok(insert_action(sql, &step.guard.action, queue)?.is_some())
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

/// Marks `execution_id` ended and drops its token, and settles the pair's other row: the guard,
/// when the app's ending ended the step, is dropped while it waits (`sql::DROP_GUARD`), else
/// settled as done with the ending the guard's failure overtook (`sql::SETTLE_PAIR`); `own_key`
/// is the key of the row whose job ended it.
pub(crate) fn ended(sql: &SqlStorage, execution_id: &str, own_key: &str, now: i64) -> worker::Result<()> {
    run(sql, sql::ENDED, vec![text(execution_id), int(now)])?;
    let (end, guard) = (super::end_key(execution_id), super::guard_key(execution_id));
    if own_key == end {
        run(sql, sql::DROP_GUARD, vec![text(&guard)])?;
    }
    run(sql, sql::SETTLE_PAIR, vec![text(&end), text(&guard), int(now), text(own_key)])?;
    crate::platform::rows::note_done(sql, now)
}

/// Forgets the executions started before `cutoff` (housekeeping).
pub(crate) fn prune(sql: &SqlStorage, cutoff: i64) -> worker::Result<()> {
    run(sql, sql::PRUNE, vec![int(cutoff)])
}
