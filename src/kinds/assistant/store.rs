//! Streamed answers' checkpoints over the actor's SQLite: read when an attempt starts, written
//! (with the claim's lease extended) before every Slack call — only while the claim holds — and
//! forgotten with the row's completion; the Stops users pressed; each thread's newest session
//! intent (`super::session`).

use super::session::{Intent, Newest, SessionStatus};
use super::stream::Checkpoint;
use crate::kinds::completion::lease_wants_extending;
use crate::outbox::ClaimToken;
use crate::platform::exec::{int, rows, run, text, tx_sync};
use serde::Deserialize;
use serde_json::Value;
use worker::{SqlStorage, Storage};

/// The checkpoint a previous attempt of row `row_id` (`idem_key`) left, if any (one that cannot be
/// read is treated as none: the answer starts over).
pub fn load(sql: &SqlStorage, row_id: i64, idem_key: &str) -> worker::Result<Option<Checkpoint>> {
    #[derive(Deserialize)]
    struct Row {
        checkpoint: String,
    }
    let found: Vec<Row> = rows(sql, super::sql::LOAD, vec![int(row_id), text(idem_key)])?;
    Ok(found.into_iter().next().and_then(|r| serde_json::from_str(&r.checkpoint).ok()))
}

/// A streamed answer's claim, after its fence: held until when (epoch ms), or taken over by
/// another sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// Still this attempt's, until then.
    Held {
        /// The lease's end.
        until: i64,
    },
    /// Another sweep has the row: this attempt writes and calls nothing more.
    Lost,
}

/// The lease a claim is kept under: its length, and the longest a Slack call may take (the
/// attempt's timeout), which a checkpoint's call must fit in.
#[derive(Debug, Clone, Copy)]
pub struct Lease {
    /// `LEASE_MS`.
    pub ms: i64,
    /// `ATTEMPT_TIMEOUT_MS`.
    pub call_ms: i64,
}

/// Writes `checkpoint` of `row` (its id and idempotency key) if `token` still holds it, in one
/// unit with the fence (a read), extending the lease to a full one from `now` when
/// [`lease_wants_extending`] before a call (one row written per Slack call, the checkpoint, and
/// the lease's about once a quarter lease); [`Claim::Lost`] (and nothing written) if another
/// sweep took the row over.
pub fn save(
    storage: &Storage,
    sql: &SqlStorage,
    row: (i64, &str),
    token: &ClaimToken,
    checkpoint: &Checkpoint,
    lease: Lease,
    now: i64,
) -> worker::Result<Claim> {
    let json = serde_json::to_string(checkpoint).map_err(|e| worker::Error::RustError(e.to_string()))?;
    let (sql, token, (row_id, idem_key)) = (sql.clone(), token.as_str().to_string(), (row.0, row.1.to_string()));
    tx_sync(storage, move || {
        let claim = hold(&sql, row_id, &token, lease.ms, lease.call_ms, now)?;
        if let Claim::Held { .. } = claim {
            run(&sql, super::sql::SAVE, vec![int(row_id), text(&json), int(now), text(&idem_key)])?;
        }
        Ok(claim)
    })
}

/// Keeps row `row_id`'s claim between calls (a wait, a read of the model), as [`save`] does
/// before a call; an attempt that does not yet know its claim's end pays a read, not a write.
pub fn keep(sql: &SqlStorage, row_id: i64, token: &ClaimToken, lease_ms: i64, now: i64) -> worker::Result<Claim> {
    hold(sql, row_id, token.as_str(), lease_ms, 0, now)
}

/// The fence and the lease: reads until when `token` holds row `row_id` ([`Claim::Lost`] if it
/// does not), and extends it to `lease_ms` from `now` only when [`lease_wants_extending`] before
/// a step of up to `step_ms`.
fn hold(sql: &SqlStorage, row_id: i64, token: &str, lease_ms: i64, step_ms: i64, now: i64) -> worker::Result<Claim> {
    #[derive(Deserialize)]
    struct Held {
        claim_expires_at: Option<i64>,
    }
    let held: Vec<Held> = rows(sql, super::sql::CLAIM_UNTIL, vec![int(row_id), text(token)])?;
    let Some(held) = held.into_iter().next() else { return Ok(Claim::Lost) };
    if let Some(until) = held.claim_expires_at.filter(|until| !lease_wants_extending(*until, now, lease_ms, step_ms)) {
        return Ok(Claim::Held { until });
    }
    let extended: Vec<Value> = rows(sql, super::sql::HOLD_CLAIM, vec![int(row_id), text(token), int(now + lease_ms)])?;
    Ok(match extended.is_empty() {
        true => Claim::Lost,
        false => Claim::Held { until: now + lease_ms },
    })
}

/// Forgets row `row_id`'s checkpoint (inside its completion's unit).
pub fn forget(sql: &SqlStorage, row_id: i64) -> worker::Result<()> {
    run(sql, super::sql::FORGET, vec![int(row_id)])
}

/// Records the Stop a user pressed in `thread_ts` of `channel` (inside the ingest's unit), and
/// tells this instance's running answers to read the Stops again ([`stops_recorded`]).
pub fn record_stop(sql: &SqlStorage, channel: &str, thread_ts: &str, now: i64) -> worker::Result<()> {
    run(sql, super::sql::RECORD_STOP, vec![text(channel), text(thread_ts), int(now)])?;
    STOPS_RECORDED.with(|n| n.set(n.get().wrapping_add(1)));
    Ok(())
}

thread_local! {
    /// How many Stops this isolate has recorded. A Durable Object has one live instance, so the
    /// ingest that records a Stop runs beside the answer it stops: an answer reads the table again
    /// when this moves, not at every event of the model's stream, and looks at it while it waits
    /// (`job::StopPoll`). A unit that rolled back after counting costs one needless read, never a
    /// missed Stop: the table is also read before every Slack call. A count, not a wake-up: the
    /// ingest that records a Stop may be another actor's (one isolate runs many), and a task of
    /// one actor woken from another's request could do no I/O.
    static STOPS_RECORDED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many Stops this isolate has recorded so far (compare two readings: a change means read the
/// Stops again).
pub fn stops_recorded() -> u64 {
    STOPS_RECORDED.with(|n| n.get())
}

/// Whether row `row_id`'s answer in `thread_ts` of `channel` was stopped by its user.
pub fn stopped(sql: &SqlStorage, channel: &str, thread_ts: &str, row_id: i64) -> worker::Result<bool> {
    let found: Vec<Value> = rows(sql, super::sql::STOPPED, vec![text(channel), text(thread_ts), int(row_id)])?;
    Ok(!found.is_empty())
}

/// Forgets the stops recorded before `cutoff` (housekeeping).
pub fn prune_stops(sql: &SqlStorage, cutoff: i64) -> worker::Result<()> {
    run(sql, super::sql::PRUNE_STOPS, vec![int(cutoff)])
}

/// Notes session row `row_id`'s intent for its thread (inside the ingest unit).
pub fn note_intent(sql: &SqlStorage, channel: &str, thread_ts: &str, row_id: i64, status: SessionStatus, now: i64) -> worker::Result<()> {
    run(sql, super::sql::NOTE_INTENT, vec![text(channel), text(thread_ts), int(row_id), text(status.as_str()), int(now)])
}

/// Notes streamed answer `row_id` in its thread, if the thread has a session (inside the ingest
/// unit; no row written otherwise).
pub fn note_answer(sql: &SqlStorage, channel: &str, thread_ts: &str, row_id: i64, now: i64) -> worker::Result<()> {
    run(sql, super::sql::NOTE_ANSWER, vec![text(channel), text(thread_ts), int(row_id), int(now)])
}

/// The newest session intent noted for `thread_ts` of `channel`.
pub fn newest(sql: &SqlStorage, channel: &str, thread_ts: &str) -> worker::Result<Option<Newest>> {
    #[derive(Deserialize)]
    struct Row {
        row_id: i64,
        status: Option<String>,
        row_status: Option<String>,
    }
    let found: Vec<Row> = rows(sql, super::sql::NEWEST, vec![text(channel), text(thread_ts)])?;
    Ok(found.into_iter().next().map(|r| {
        let intent = match r.status.as_deref().and_then(SessionStatus::parse) {
            Some(status) => Intent::Status(status),
            None => Intent::Answer { ended: r.row_status.as_deref() != Some("pending") },
        };
        Newest { row: r.row_id, intent }
    }))
}

/// Forgets the sessions last noted before `cutoff` (housekeeping).
pub fn prune_sessions(sql: &SqlStorage, cutoff: i64) -> worker::Result<()> {
    run(sql, super::sql::PRUNE_SESSIONS, vec![int(cutoff)])
}
