//! What the admin API reads and does: stats, listings, redrive, discard, audit, seeding.

use crate::admin::sweeps::Sweeps;
use crate::admin::{AuditEntry, OutboxPage, OutboxRow, RowDetail, Stats};
use crate::logs::SweepLine;
use crate::outbox::alarm::MissedAlarms;
use crate::outbox::{RowId, Status};
use crate::platform::exec::{count, int, rows, run, text, tx_sync};
use crate::platform::installation::{installation, uninstalled};
use crate::platform::rows::team_key;
use crate::slack::rate_limited::{Noted, Notices};
use crate::sql;
use serde::Deserialize;
use serde_json::Value;
use worker::{SqlStorage, SqlStorageValue as V, Storage};

/// The JSON value of the one `meta` row `query` reads (an absent or unreadable value: none).
fn meta_json<T: serde::de::DeserializeOwned>(sql: &SqlStorage, query: &str) -> worker::Result<Option<T>> {
    #[derive(Deserialize)]
    struct MetaText {
        value: String,
    }
    Ok(rows::<MetaText>(sql, query, vec![])?.into_iter().next().and_then(|t| serde_json::from_str(&t.value).ok()))
}

/// The team's sweeps as stored (`crate::admin::sweeps`; an unreadable value counts as none).
fn sweeps(sql: &SqlStorage) -> worker::Result<Option<Sweeps>> {
    meta_json(sql, sql::admin::SWEEPS)
}

/// Writes the team's sweeps (one row).
fn store_sweeps(sql: &SqlStorage, sweeps: &Sweeps) -> worker::Result<()> {
    run(sql, sql::admin::SAVE_SWEEPS, vec![V::String(serde_json::to_string(sweeps)?)])
}

/// Keeps a sweep's report as the last one and adds its outcomes to the counters: one read and
/// one row written with no await between them (the actor is the team's only writer).
pub fn save_sweep(sql: &SqlStorage, report: SweepLine) -> worker::Result<()> {
    store_sweeps(sql, &Sweeps::record(sweeps(sql)?, report))
}

/// Notes, once per team, when it began counting successes by their delivered rows
/// (`crate::admin::sweeps`): run at each wake, it writes a row only the first time.
pub fn note_counting_since(sql: &SqlStorage, now: i64) -> worker::Result<()> {
    run(sql, sql::admin::NOTE_COUNTING_SINCE, vec![text(&now.to_string())])
}

/// Before the housekeeping deletes delivered rows (?1 cutoff, ?2 limit as `PRUNE_DONE`'s), adds
/// those that counted themselves as successes to the stored count; run with no await before the
/// delete, so both are one unit. Writes nothing when none of them counted.
pub fn keep_pruned_successes(sql: &SqlStorage, cutoff: i64, limit: i64) -> worker::Result<()> {
    let pruned = count(sql, sql::admin::PRUNED_DELIVERED_ROWS, vec![int(cutoff), int(limit)])?;
    if pruned == 0 {
        return Ok(());
    }
    store_sweeps(sql, &Sweeps::add_pruned_successes(sweeps(sql)?, pruned))
}

/// The team's `app_rate_limited` notices, if it had any (an unreadable value counts as none).
pub fn rate_limited(sql: &SqlStorage) -> worker::Result<Option<Notices>> {
    meta_json(sql, sql::admin::RATE_LIMITED)
}

/// Keeps one more `app_rate_limited` notice for `minute`; what it changed. One read and one write
/// with no await between them: the actor is the team's only writer, so nothing interleaves.
pub fn note_rate_limited(sql: &SqlStorage, minute: i64, now: i64) -> worker::Result<Noted> {
    let noted = Notices::note(rate_limited(sql)?, minute, now);
    if let Noted::NewMinute(notices) = &noted {
        run(sql, sql::admin::SAVE_RATE_LIMITED, vec![V::String(serde_json::to_string(notices)?)])?;
    }
    Ok(noted)
}

/// What the alarm's safety net found, if it ever did (an unreadable value counts as none).
pub fn alarms_missed(sql: &SqlStorage) -> worker::Result<Option<MissedAlarms>> {
    meta_json(sql, sql::admin::ALARMS_MISSED)
}

/// Keeps one more finding of the safety net: rows due since `due_at`, no alarm to sweep them.
/// One read and one row written, with no await between them.
pub fn note_alarm_missed(sql: &SqlStorage, now: i64, due_at: i64) -> worker::Result<()> {
    let missed = MissedAlarms::note(alarms_missed(sql)?, now, due_at);
    run(sql, sql::admin::SAVE_ALARMS_MISSED, vec![V::String(serde_json::to_string(&missed)?)])
}

/// The pending summary at `now`: how many rows are pending, how many of them are scheduled rows
/// not due yet, and how long the oldest due one has waited.
fn pending(sql: &SqlStorage, now: i64) -> worker::Result<(i64, i64, Option<i64>)> {
    #[derive(Deserialize)]
    struct Row {
        n: i64,
        later: i64,
        oldest: Option<i64>,
    }
    let row = rows::<Row>(sql, sql::admin::PENDING_SUMMARY, vec![int(now)])?.into_iter().next();
    Ok(row.map_or((0, 0, None), |r| (r.n, r.later, r.oldest.map(|o| now - o))))
}

/// The admin API's view of the team (the installation and the uninstall mark included).
/// `remembered` is the last sweep this actor instance ran (a sweep that only delivered is not
/// stored): shown when it is newer than the stored one.
pub fn stats(sql: &SqlStorage, now: i64, remembered: Option<SweepLine>) -> worker::Result<Stats> {
    let stored = sweeps(sql)?.unwrap_or_default();
    let legacy = || meta_json(sql, sql::admin::LAST_SWEEP);
    let last_sweep = match (remembered, stored.last.clone()) {
        (Some(mine), Some(kept)) => Some(if mine.at >= kept.at { mine } else { kept }),
        (Some(last), None) | (None, Some(last)) => Some(last),
        (None, None) => legacy()?,
    };
    let (pending, scheduled, oldest_pending_age_ms) = pending(sql, now)?;
    Ok(Stats {
        team: team_key(sql)?,
        pending,
        oldest_pending_age_ms,
        scheduled,
        parked_by_reason: rows(sql, sql::admin::PARKED_BY_REASON, vec![])?,
        groups: rows(sql, sql::admin::STATS_BY_STATUS, vec![])?,
        receipts: count(sql, sql::admin::RECEIPT_COUNT, vec![])?,
        counters: stored.counters_with(rows(sql, sql::admin::COUNTERS, vec![])?, count(sql, sql::admin::DELIVERED_ROWS, vec![])?),
        holds: rows(sql, sql::outbox::ACTIVE_HOLDS, vec![int(now)])?,
        pacing: Vec::new(), // the actor's pacer fills it in
        failing_targets: rows(sql, sql::admin::STREAKS, vec![])?,
        last_sweep,
        installation: installation(sql)?,
        uninstalled: uninstalled(sql)?,
        app_rate_limited: rate_limited(sql)?,
        alarm_missing: alarms_missed(sql)?,
    })
}

/// Which parked rows a bulk redrive takes.
#[derive(Debug, Clone)]
pub struct ParkedFilter {
    /// Only this reason (None: any).
    pub reason: Option<String>,
    /// Parked at or after (epoch ms).
    pub since: i64,
    /// Parked at or before (epoch ms).
    pub until: i64,
}

impl ParkedFilter {
    fn bindings(&self) -> Vec<V> {
        vec![self.reason.as_deref().map(text).unwrap_or(V::Null), int(self.since), int(self.until)]
    }
}

/// How many parked rows match.
pub fn count_parked(sql: &SqlStorage, filter: &ParkedFilter) -> worker::Result<i64> {
    count(sql, sql::admin::COUNT_PARKED_MATCHING, filter.bindings())
}

/// Redrives up to `cap` matching rows, spaced `spacing_ms` apart so Slack is not hit all at once;
/// audited. Returns how many were redriven.
pub fn bulk_redrive(storage: &Storage, sql: &SqlStorage, filter: ParkedFilter, cap: i64, spacing_ms: i64, max_attempts: u32, now: i64) -> worker::Result<i64> {
    #[derive(Deserialize)]
    struct Row {
        id: i64,
    }
    let sql = sql.clone();
    tx_sync(storage, move || {
        let mut bindings = filter.bindings();
        bindings.push(int(cap));
        let ids: Vec<Row> = rows(&sql, sql::admin::PARKED_MATCHING_IDS, bindings)?;
        for (i, row) in ids.iter().enumerate() {
            run(&sql, sql::admin::REDRIVE, vec![int(row.id), int(now + i as i64 * spacing_ms), int(max_attempts as i64)])?;
        }
        let detail = serde_json::json!({"reason": filter.reason, "since": filter.since, "until": filter.until, "count": ids.len()});
        run(&sql, sql::admin::AUDIT, vec![int(now), text("bulk_redrive"), V::Null, V::String(detail.to_string())])?;
        Ok(ids.len() as i64)
    })
}

/// A page of rows in one status, newest first.
pub fn list_rows(sql: &SqlStorage, status: Status, before_id: i64, limit: i64) -> worker::Result<OutboxPage> {
    Ok(OutboxPage::of(rows(sql, sql::admin::LIST_ROWS, vec![text(status.as_str()), int(before_id), int(limit)])?, limit))
}

/// One row with its attempt history, if it exists.
pub fn row_with_attempts(sql: &SqlStorage, RowId(id): RowId) -> worker::Result<Option<RowDetail>> {
    let found: Vec<OutboxRow> = rows(sql, sql::admin::ONE_ROW, vec![int(id)])?;
    let Some(row) = found.into_iter().next() else { return Ok(None) };
    let carried = rows(sql, sql::admin::CARRIED_SUCCESS, vec![int(id)])?.into_iter().next();
    Ok(Some(RowDetail { row, attempts_log: crate::admin::history(rows(sql, sql::admin::ROW_ATTEMPTS, vec![int(id)])?, carried) }))
}

/// Whether an operator's request found its row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operated {
    /// Done.
    Applied,
    /// No parked row with that id.
    NotParked,
}

/// The latest operator actions (redrive, bulk redrive, discard), newest first.
pub fn audit(sql: &SqlStorage, limit: i64) -> worker::Result<Vec<AuditEntry>> {
    rows(sql, sql::admin::AUDIT_LIST, vec![int(limit)])
}

/// Sends a parked row back to pending (audited), due now.
pub fn redrive(storage: &Storage, sql: &SqlStorage, RowId(id): RowId, max_attempts: u32, now: i64) -> worker::Result<Operated> {
    let sql = sql.clone();
    tx_sync(storage, move || {
        let done: Vec<Value> = rows(&sql, sql::admin::REDRIVE, vec![int(id), int(now), int(max_attempts as i64)])?;
        if done.is_empty() {
            return Ok(Operated::NotParked);
        }
        run(&sql, sql::admin::AUDIT, vec![int(now), text("redrive"), int(id), V::Null])?;
        Ok(Operated::Applied)
    })
}

/// Deletes a parked row, keeping an audit record of what it was.
pub fn discard(storage: &Storage, sql: &SqlStorage, RowId(id): RowId, now: i64) -> worker::Result<Operated> {
    let sql = sql.clone();
    tx_sync(storage, move || {
        let gone: Vec<Value> = rows(&sql, sql::admin::DISCARD, vec![int(id)])?;
        let Some(row) = gone.into_iter().next() else { return Ok(Operated::NotParked) };
        run(&sql, sql::admin::AUDIT, vec![int(now), text("discard"), int(id), V::String(row.to_string())])?;
        Ok(Operated::Applied)
    })
}

/// Benchmarks only: bulk-inserts synthetic receipts and delivered rows (offset `from`).
#[cfg(feature = "testkit")]
pub fn seed(sql: &SqlStorage, receipts: i64, done: i64, from: i64, now: i64) -> worker::Result<()> {
    if receipts > 0 {
        run(sql, sql::admin::SEED_RECEIPTS, vec![int(receipts), int(now), int(from)])?;
        run(sql, sql::lean::NOTE_RECEIPT, vec![text(&now.to_string())])?;
    }
    if done > 0 {
        run(sql, sql::admin::SEED_DONE, vec![int(done), int(now), int(from), text(crate::slack::method::POST_MESSAGE)])?;
    }
    Ok(())
}

/// The pending scheduled rows, soonest due first (at most `limit`): the admin API's listing of
/// the schedules (`GET …/scheduled`), in its rows.
pub fn scheduled(sql: &SqlStorage, limit: i64) -> worker::Result<Vec<OutboxRow>> {
    use crate::kinds::{registry::Action, schedule};
    let (low, high) = schedule::all_range();
    let found: Vec<OutboxRow> = rows(sql, schedule::sql::LIST_PENDING, vec![text(&low), text(&high), int(limit)])?;
    Ok(found.into_iter().filter(|r| matches!(serde_json::from_str::<Action>(&r.payload), Ok(Action::Scheduled { .. }))).collect())
}
