//! Slack Lists' tables: column maps, records (with their sync state and linked row), and
//! reconciliation passes. Every write that goes with an outbox row (a PUT and its sync row, a
//! page's findings and the next page's row) is one unit.

use super::api::{page_key, sync_key, target, ListJob, RecordView, RunView};
use super::end::ListsWrite;
use super::reconcile::{self, classify, next, worth_reporting, Finding, ListedRow, Next, Pass, RecordRef, Report};
use super::sync::{RecordSync, RecordWrite, SyncState};
use super::ColumnMap;
use crate::kinds::registry::Action;
use crate::outbox::{ClaimToken, RowId};
use crate::platform::exec::{int, rows, run, text, tx_sync};
use crate::platform::rows::{insert_action, queue_serial, serial_waiting, Queue};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use worker::{SqlStorage, SqlStorageValue as V, Storage};

mod end;
pub use end::{apply, apply_page_in_job};

fn json_error(e: serde_json::Error) -> worker::Error {
    worker::Error::RustError(format!("stored JSON: {e}"))
}

/// A record as stored.
#[derive(Debug, Clone, Deserialize)]
struct RecordRow {
    list_id: String,
    record_id: String,
    fields: String,
    version: i64,
    synced_version: i64,
    row_id: Option<String>,
    state: String,
    deleted: i64,
    create_sent: i64,
    last_error: Option<String>,
    human_edited: i64,
    edited_by: Option<String>,
    archived: i64,
    syncs: i64,
    created_at: i64,
    updated_at: i64,
}

impl RecordRow {
    fn state(&self) -> SyncState {
        SyncState::parse(&self.state).unwrap_or(SyncState::Pending)
    }

    fn view(self) -> worker::Result<RecordView> {
        let state = self.state();
        Ok(RecordView {
            fields: serde_json::from_str(&self.fields).map_err(json_error)?,
            list_id: self.list_id,
            record_id: self.record_id,
            version: self.version,
            synced_version: self.synced_version,
            row_id: self.row_id,
            state,
            deleted: self.deleted != 0,
            last_error: self.last_error,
            human_edited: self.human_edited != 0,
            edited_by: self.edited_by,
            archived: self.archived != 0,
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}

/// A pass as stored.
#[derive(Debug, Clone, Deserialize)]
struct RunRow {
    id: i64,
    list_id: String,
    trigger: String,
    queued_at: i64,
    started_at: Option<i64>,
    finished_at: Option<i64>,
    pass: String,
    cursor: Option<String>,
    report: String,
    findings: String,
    error: Option<String>,
    /// The records the pass saw without writing them (JSON array; only `RUN` reads it).
    #[serde(default)]
    seen: Option<String>,
    /// When the pass began, for a pass this release began ([`super::sql::MIGRATION_11`]).
    #[serde(default)]
    begun_at: Option<i64>,
}

impl RunRow {
    /// When the pass began: `begun_at`, or the `started_at` of a pass a release before migration
    /// 11 began ([`super::sql::OLDER_RELEASES_START`] there means neither). None: not yet begun.
    fn began(&self) -> Option<i64> {
        self.begun_at.or(self.started_at.filter(|&at| at != super::sql::OLDER_RELEASES_START))
    }

    fn view(self) -> worker::Result<RunView> {
        let started_at = self.began();
        Ok(RunView {
            id: self.id,
            list_id: self.list_id,
            trigger: self.trigger,
            queued_at: self.queued_at,
            started_at,
            finished_at: self.finished_at,
            pass: Pass::parse(&self.pass).unwrap_or(Pass::Active),
            report: serde_json::from_str(&self.report).map_err(json_error)?,
            findings: serde_json::from_str(&self.findings).map_err(json_error)?,
            error: self.error,
        })
    }
}

/// A list's column map, if it has one.
pub fn column_map(sql: &SqlStorage, list_id: &str) -> worker::Result<Option<ColumnMap>> {
    #[derive(Deserialize)]
    struct Row {
        column_map: String,
    }
    let found: Vec<Row> = rows(sql, super::sql::LIST_MAP, vec![text(list_id)])?;
    found.into_iter().next().map(|r| serde_json::from_str(&r.column_map).map_err(json_error)).transpose()
}

/// Records per state, for the list's answer.
pub fn record_states(sql: &SqlStorage, list_id: &str) -> worker::Result<BTreeMap<String, i64>> {
    #[derive(Deserialize)]
    struct Row {
        state: String,
        n: i64,
    }
    let found: Vec<Row> = rows(sql, super::sql::LIST_STATES, vec![text(list_id)])?;
    Ok(found.into_iter().map(|r| (r.state, r.n)).collect())
}

/// Settings a unit that queues list rows needs.
#[derive(Debug, Clone, Copy)]
pub struct Queueing {
    /// Attempt budget of new rows.
    pub max_attempts: u32,
    /// How long after a pass the next one is due.
    pub reconcile_ms: i64,
    /// Now.
    pub now: i64,
}

impl Queueing {
    /// The settings a unit at `now` queues rows with.
    pub fn of(config: &crate::config::Config, now: i64) -> Queueing {
        Queueing { max_attempts: config.retry.max_attempts, reconcile_ms: config.lists_reconcile_ms, now }
    }
}

fn insert_job(sql: &SqlStorage, list_id: &str, key: &str, job: ListJob, due: i64, q: Queueing) -> worker::Result<()> {
    let action = Action::Lists { list_id: list_id.to_string(), job };
    let op_key = format!("api:{list_id}");
    insert_action(sql, &action, Queue { key, op_key: &op_key, max_attempts: q.max_attempts, due, deadline_at: None, now: q.now }).map(|_| ())
}

/// Queues a sync of a record unless one is already waiting unclaimed (it will send the newest
/// fields). Returns whether a row was added.
fn queue_sync(sql: &SqlStorage, list_id: &str, record_id: &str, q: Queueing) -> worker::Result<bool> {
    #[derive(Deserialize)]
    struct Syncs {
        syncs: i64,
    }
    let Some(current) = rows::<RecordRow>(sql, super::sql::RECORD, vec![text(list_id), text(record_id)])?.into_iter().next() else {
        return Ok(false);
    };
    let action = Action::Lists { list_id: list_id.to_string(), job: ListJob::Sync { record_id: record_id.to_string() } };
    let bump = || Ok(rows::<Syncs>(sql, super::sql::BUMP_SYNCS, vec![text(list_id), text(record_id)])?.first().map(|s| s.syncs));
    queue_serial(sql, &action, current.syncs, |n| sync_key(list_id, record_id, n), bump, &format!("api:{list_id}"), q.max_attempts, q.now)
}

/// Queues a pass with its first page due at `due`; returns its id.
fn queue_run(sql: &SqlStorage, list_id: &str, trigger: &str, due: i64, q: Queueing) -> worker::Result<i64> {
    #[derive(Deserialize)]
    struct Id {
        id: i64,
    }
    let id = rows::<Id>(sql, super::sql::QUEUE_RUN, vec![text(list_id), text(trigger), int(q.now)])?.first().map(|r| r.id);
    let id = id.ok_or_else(|| worker::Error::RustError("the pass was not stored".into()))?;
    insert_job(sql, list_id, &page_key(list_id, id, 0), ListJob::Reconcile { run: id }, due, q)?;
    Ok(id)
}

/// Sets a list's column map; the first time, also schedules its first reconciliation pass.
/// Returns whether the list is new.
pub fn put_list(storage: &Storage, sql: &SqlStorage, list_id: &str, map: &ColumnMap, q: Queueing) -> worker::Result<bool> {
    #[derive(Deserialize)]
    struct Created {
        created: i64,
    }
    let (sql, list_id) = (sql.clone(), list_id.to_string());
    let map = serde_json::to_string(map).map_err(json_error)?;
    tx_sync(storage, move || {
        let created = rows::<Created>(&sql, super::sql::PUT_LIST, vec![text(&list_id), V::String(map), int(q.now)])?.first().is_some_and(|r| r.created != 0);
        if created {
            queue_run(&sql, &list_id, "schedule", q.now + q.reconcile_ms, q)?;
        }
        Ok(created)
    })
}

/// One record.
pub fn record(sql: &SqlStorage, list_id: &str, record_id: &str) -> worker::Result<Option<RecordView>> {
    rows::<RecordRow>(sql, super::sql::RECORD, vec![text(list_id), text(record_id)])?.into_iter().next().map(RecordRow::view).transpose()
}

/// A page of records (`state`: only those), after `after`.
pub fn records_page(sql: &SqlStorage, list_id: &str, state: Option<SyncState>, after: &str, limit: i64) -> worker::Result<Vec<RecordView>> {
    let state = state.map(|s| text(s.as_str())).unwrap_or(V::Null);
    rows::<RecordRow>(sql, super::sql::RECORDS_PAGE, vec![text(list_id), state, text(after), int(limit)])?.into_iter().map(RecordRow::view).collect()
}

/// What a PUT or DELETE of a record did.
#[derive(Debug, Clone, PartialEq)]
pub enum RecordChange {
    /// Stored (a new version) and its sync queued.
    Changed(RecordView),
    /// The same fields as stored: nothing changed, nothing queued.
    Unchanged(RecordView),
    /// No live record with that id (a DELETE).
    NoSuchRecord,
}

/// Stores a record's fields and queues its sync, in one unit; the same fields again change
/// nothing. `fields` is the canonical JSON text.
pub fn put_record(storage: &Storage, sql: &SqlStorage, list_id: &str, record_id: &str, fields: String, q: Queueing) -> worker::Result<RecordChange> {
    let (sql, list_id, record_id) = (sql.clone(), list_id.to_string(), record_id.to_string());
    tx_sync(storage, move || store_record(&sql, &list_id, &record_id, &fields, q))
}

/// [`put_record`]'s writes, inside a unit the caller holds (the API's, or a handler's `Put`
/// job's completion).
///
/// The record's row is written once: its new fields and, when a sync job is queued with them, the
/// job's count (`syncs`) in the same statement ([`super::sql::PUT_RECORD`]); the job is queued
/// unless the record's latest one still waits unclaimed (it sends the newest fields), as
/// [`queue_sync`] decides.
fn store_record(sql: &SqlStorage, list_id: &str, record_id: &str, fields: &str, q: Queueing) -> worker::Result<RecordChange> {
    #[derive(Deserialize)]
    struct Syncs {
        syncs: i64,
    }
    let stored = rows::<RecordRow>(sql, super::sql::RECORD, vec![text(list_id), text(record_id)])?.into_iter().next();
    let queued = stored.as_ref().map_or(0, |r| r.syncs);
    if let Some(same) = stored.filter(|r| r.fields == fields && r.deleted == 0) {
        return Ok(RecordChange::Unchanged(same.view()?));
    }
    let queue = !serial_waiting(sql, queued, &sync_key(list_id, record_id, queued))?;
    let put = vec![text(list_id), text(record_id), text(fields), int(q.now), int(i64::from(queue))];
    let syncs = rows::<Syncs>(sql, super::sql::PUT_RECORD, put)?.first().map_or(queued + 1, |s| s.syncs);
    if queue {
        let job = ListJob::Sync { record_id: record_id.to_string() };
        insert_job(sql, list_id, &sync_key(list_id, record_id, syncs), job, q.now, q)?;
    }
    Ok(record(sql, list_id, record_id)?.map(RecordChange::Changed).unwrap_or(RecordChange::NoSuchRecord))
}

/// Deletes a record (its row is deleted by a queued sync), in one unit.
pub fn delete_record(storage: &Storage, sql: &SqlStorage, list_id: &str, record_id: &str, q: Queueing) -> worker::Result<RecordChange> {
    let (sql, list_id, record_id) = (sql.clone(), list_id.to_string(), record_id.to_string());
    tx_sync(storage, move || {
        let deleted: Vec<Value> = rows(&sql, super::sql::DELETE_RECORD, vec![text(&list_id), text(&record_id), int(q.now)])?;
        if deleted.is_empty() {
            return Ok(match record(&sql, &list_id, &record_id)? {
                Some(view) => RecordChange::Unchanged(view),
                None => RecordChange::NoSuchRecord,
            });
        }
        queue_sync(&sql, &list_id, &record_id, q)?;
        Ok(record(&sql, &list_id, &record_id)?.map(RecordChange::Changed).unwrap_or(RecordChange::NoSuchRecord))
    })
}

/// A list's latest passes, newest first.
pub fn runs(sql: &SqlStorage, list_id: &str, limit: i64) -> worker::Result<Vec<RunView>> {
    rows::<RunRow>(sql, super::sql::RUNS, vec![text(list_id), int(limit)])?.into_iter().map(RunRow::view).collect()
}

/// Runs a pass now: the list's queued pass is brought forward (a running one is left to finish),
/// or a new one is queued due now. Returns it.
pub fn reconcile_now(storage: &Storage, sql: &SqlStorage, list_id: &str, q: Queueing) -> worker::Result<RunView> {
    let (sql, list_id) = (sql.clone(), list_id.to_string());
    tx_sync(storage, move || {
        let open = rows::<RunRow>(&sql, super::sql::OPEN_RUN, vec![text(&list_id)])?.into_iter().next();
        let id = match open {
            Some(run) if run.started_at.is_some() => run.id,
            Some(queued) => {
                run(&sql, super::sql::RUN_NOW, vec![text(&page_key(&list_id, queued.id, 0)), int(q.now)])?;
                run(&sql, super::sql::RUN_TRIGGER, vec![int(queued.id), text("api")])?;
                queued.id
            }
            None => queue_run(&sql, &list_id, "api", q.now, q)?,
        };
        let found = rows::<RunRow>(&sql, super::sql::RUN, vec![int(id)])?.into_iter().next();
        found.ok_or_else(|| worker::Error::RustError("the pass vanished".into()))?.view()
    })
}

/// What a sync reads: the record's state, its fields and the list's column map.
pub struct SyncInput {
    /// The record's sync state.
    pub record: RecordSync,
    /// Its fields.
    pub fields: Value,
    /// The list's column map.
    pub map: ColumnMap,
}

/// A record and its list, for a sync (`None`: the record or the list is gone).
pub fn sync_input(sql: &SqlStorage, list_id: &str, record_id: &str) -> worker::Result<Option<SyncInput>> {
    let Some(map) = column_map(sql, list_id)? else { return Ok(None) };
    let Some(row) = rows::<RecordRow>(sql, super::sql::RECORD, vec![text(list_id), text(record_id)])?.into_iter().next() else {
        return Ok(None);
    };
    let record = RecordSync {
        version: row.version,
        synced_version: row.synced_version,
        row_id: row.row_id.clone(),
        state: row.state(),
        deleted: row.deleted != 0,
        create_sent: row.create_sent != 0,
    };
    Ok(Some(SyncInput { record, fields: serde_json::from_str(&row.fields).map_err(json_error)?, map }))
}

/// Notes, committed before the create leaves, that a create of `version` is in flight, fenced by
/// the outbox row's claim. `false`: the claim was taken over or a create is already noted; do not
/// send.
pub fn mark_create_sent(
    sql: &SqlStorage,
    list_id: &str,
    record_id: &str,
    version: i64,
    outbox_row: RowId,
    token: &ClaimToken,
    now: i64,
) -> worker::Result<bool> {
    let marked: Vec<Value> =
        rows(sql, super::sql::MARK_CREATE_SENT, vec![text(list_id), text(record_id), int(now), int(version), int(outbox_row.0), text(token.as_str())])?;
    Ok(!marked.is_empty())
}

/// Our bot's user id, if known.
pub fn bot_user(sql: &SqlStorage) -> worker::Result<Option<String>> {
    #[derive(Deserialize)]
    struct Row {
        bot_user: Option<String>,
    }
    Ok(rows::<Row>(sql, super::sql::BOT_USER, vec![])?.into_iter().next().and_then(|r| r.bot_user))
}

/// Remembers our bot's user id (from `auth.test`).
pub fn remember_bot_user(sql: &SqlStorage, user_id: &str) -> worker::Result<()> {
    run(sql, super::sql::REMEMBER_BOT_USER, vec![text(user_id)])
}

/// Where a pass stands, for its next page.
pub struct RunCursor {
    /// The pass's phase.
    pub pass: Pass,
    /// The page cursor (`None`: the phase's first page).
    pub cursor: Option<String>,
    /// Already ended (a stale page row).
    pub finished: bool,
}

/// The cursor of pass `run`, if it exists.
pub fn run_cursor(sql: &SqlStorage, run_id: i64) -> worker::Result<Option<RunCursor>> {
    Ok(rows::<RunRow>(sql, super::sql::RUN, vec![int(run_id)])?.into_iter().next().map(|r| RunCursor {
        pass: Pass::parse(&r.pass).unwrap_or(Pass::Active),
        cursor: r.cursor,
        finished: r.finished_at.is_some(),
    }))
}
