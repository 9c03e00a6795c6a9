//! The only module that runs SQL. It binds values to the statements in [`crate::store::sql`] and
//! turns result rows into outcome enums.
//!
//! All-or-nothing units (the ingest unit, a completion with its follow-ups) run inside
//! `transactionSync` (reached through `Storage::as_raw()`, which workers-rs does not bind): if any
//! statement fails, every write of the unit is rolled back, so a receipt never exists without its
//! outbox rows. No `.await` happens inside a unit.

use crate::effect::Effect;
use crate::outbox::Transition;
use crate::store::sql;
use serde::{de::DeserializeOwned, Deserialize, Serialize};
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

fn rows<T: DeserializeOwned>(sql: &SqlStorage, query: &str, bindings: Vec<V>) -> worker::Result<Vec<T>> {
    sql.exec(query, bindings)?.to_array()
}

/// Runs a statement for its effect. The cursor is always drained: a `RETURNING` statement left
/// half-read stays "in progress", and `transactionSync` then fails to release its savepoint.
fn run(sql: &SqlStorage, query: &str, bindings: Vec<V>) -> worker::Result<()> {
    sql.exec(query, bindings)?.to_array::<Value>().map(|_| ())
}

fn int(v: i64) -> V {
    V::Integer(v)
}

fn opt_int(v: Option<i64>) -> V {
    v.map(V::Integer).unwrap_or(V::Null)
}

fn text(v: &str) -> V {
    V::String(v.to_string())
}

/// Creates the tables (idempotent).
pub fn migrate(sql: &SqlStorage) -> worker::Result<()> {
    run(sql, sql::SCHEMA, vec![])
}

/// What the ingest unit did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "receipt", rename_all = "snake_case")]
pub enum Receipt {
    /// First time this operation key was seen: its effects were offered to the outbox.
    New {
        /// Rows inserted.
        queued: u32,
        /// Effects whose idempotency key was already queued (the same fact seen before).
        already_queued: u32,
    },
    /// The operation key was already recorded: nothing was written.
    Duplicate,
}

/// An effect ready to insert, with its absolute deadline.
#[derive(Debug, Clone)]
pub struct NewRow {
    /// The effect.
    pub effect: Effect,
    /// Absolute deadline (epoch ms), if any.
    pub deadline_at: Option<i64>,
}

impl NewRow {
    /// A row for `effect` queued at `now`.
    pub fn queued_at(effect: Effect, now: i64) -> NewRow {
        let deadline_at = effect.deadline_after_ms.map(|after| now + after);
        NewRow { effect, deadline_at }
    }
}

fn insert_rows(sql: &SqlStorage, op_key: &str, rows_to_insert: &[NewRow], max_attempts: u32, now: i64) -> worker::Result<(u32, u32)> {
    let (mut queued, mut already) = (0, 0);
    for row in rows_to_insert {
        let payload = serde_json::to_string(&row.effect.action).map_err(|e| worker::Error::RustError(e.to_string()))?;
        let inserted: Vec<Value> = rows(sql, sql::INSERT_OUTBOX, vec![
            text(&row.effect.key), text(op_key), text(row.effect.action.label()), text(&row.effect.action.target()),
            V::String(payload), int(max_attempts as i64), int(now), opt_int(row.deadline_at), int(now),
        ])?;
        if inserted.is_empty() { already += 1 } else { queued += 1 }
    }
    Ok((queued, already))
}

/// What the ingest unit recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recorded {
    /// New or duplicate, and what was queued.
    pub receipt: Receipt,
    /// True the first time this actor saw its team key (for the directory).
    pub first_seen: bool,
    /// Rows parked by an uninstall in this unit.
    pub parked: u32,
}

/// What one ingest unit writes: the receipt key, its effects, and whether it uninstalls the team.
pub struct Ingest {
    /// The installation.
    pub team_key: String,
    /// The receipt key.
    pub op_key: String,
    /// `event`, `command` or `interaction`.
    pub kind: String,
    /// The effects to queue.
    pub rows: Vec<NewRow>,
    /// `app_uninstalled` or a revoked bot token: delete the tokens, park every pending row.
    pub uninstall: bool,
    /// Attempt budget of new rows.
    pub max_attempts: u32,
}

/// The ingest unit: the receipt, its outbox rows (and, for an uninstall, the revocation), all or
/// nothing.
pub fn record(storage: &Storage, sql: &SqlStorage, ingest: Ingest, now: i64) -> worker::Result<Recorded> {
    let sql = sql.clone();
    tx_sync(storage, move || {
        let first: Vec<Value> = rows(&sql, sql::REMEMBER_TEAM_KEY_RETURNING, vec![text(&ingest.team_key)])?;
        let fresh: Vec<Value> = rows(&sql, sql::INSERT_RECEIPT, vec![text(&ingest.op_key), text(&ingest.kind), int(now)])?;
        if fresh.is_empty() {
            return Ok(Recorded { receipt: Receipt::Duplicate, first_seen: !first.is_empty(), parked: 0 });
        }
        let (queued, already_queued) = insert_rows(&sql, &ingest.op_key, &ingest.rows, ingest.max_attempts, now)?;
        let parked = if ingest.uninstall { revoke(&sql, now)? } else { 0 };
        Ok(Recorded { receipt: Receipt::New { queued, already_queued }, first_seen: !first.is_empty(), parked })
    })
}

/// Deletes the tokens, marks the team uninstalled, parks every pending row as `uninstalled`.
fn revoke(sql: &SqlStorage, now: i64) -> worker::Result<u32> {
    run(sql, sql::DELETE_INSTALLATION, vec![])?;
    run(sql, sql::MARK_UNINSTALLED, vec![text(&now.to_string())])?;
    let parked: Vec<Value> = rows(sql, sql::PARK_ALL_PENDING, vec![int(now), text(crate::outbox::reasons::UNINSTALLED)])?;
    Ok(parked.len() as u32)
}

/// An installation as stored: tokens still sealed.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct StoredInstallation {
    /// Workspace id.
    pub team_id: Option<String>,
    /// Workspace name.
    pub team_name: Option<String>,
    /// Organization id.
    pub enterprise_id: Option<String>,
    /// Organization name.
    pub enterprise_name: Option<String>,
    /// 1 for an org-wide install.
    pub is_enterprise_install: i64,
    /// App id.
    pub app_id: Option<String>,
    /// Bot user id.
    pub bot_user_id: Option<String>,
    /// Bot id.
    pub bot_id: Option<String>,
    /// Granted scopes.
    pub bot_scopes: String,
    /// Installer.
    pub installer_user_id: Option<String>,
    /// Sealed bot token.
    #[serde(skip_serializing)]
    pub bot_token: String,
    /// Sealed refresh token.
    #[serde(skip_serializing)]
    pub refresh_token: Option<String>,
    /// Token expiry (rotation).
    pub token_expires_at: Option<i64>,
    /// First stored.
    pub installed_at: i64,
    /// Last changed.
    pub updated_at: i64,
}

/// Stores an installation (tokens already sealed) and clears an earlier uninstall, together.
pub fn save_installation(storage: &Storage, sql: &SqlStorage, i: crate::oauth::Installation, bot: String, refresh: Option<String>, now: i64) -> worker::Result<()> {
    let sql = sql.clone();
    let opt = |v: &Option<String>| v.as_deref().map(text).unwrap_or(V::Null);
    tx_sync(storage, move || {
        run(&sql, sql::UPSERT_INSTALLATION, vec![
            opt(&i.team_id), opt(&i.team_name), opt(&i.enterprise_id), opt(&i.enterprise_name),
            int(i64::from(i.is_enterprise_install)), opt(&i.app_id), opt(&i.bot_user_id), opt(&i.bot_id),
            text(&i.bot_scopes), opt(&i.installer_user_id), V::String(bot), opt(&refresh), opt_int(i.token_expires_at), int(now),
        ])?;
        if let Some(key) = i.team_key() {
            run(&sql, sql::REMEMBER_TEAM_KEY, vec![text(key)])?;
        }
        run(&sql, sql::CLEAR_UNINSTALLED, vec![])
    })
}

/// The stored installation, if any.
pub fn installation(sql: &SqlStorage) -> worker::Result<Option<StoredInstallation>> {
    Ok(rows::<StoredInstallation>(sql, sql::INSTALLATION, vec![])?.into_iter().next())
}

/// Whether the team was uninstalled (and not reinstalled since).
pub fn uninstalled(sql: &SqlStorage) -> worker::Result<bool> {
    Ok(!rows::<Value>(sql, sql::UNINSTALLED_AT, vec![])?.is_empty())
}

/// Takes the single-flight refresh slot until `until`; false if another refresh holds it.
pub fn begin_refresh(sql: &SqlStorage, now: i64, until: i64) -> worker::Result<bool> {
    Ok(!rows::<Value>(sql, sql::BEGIN_REFRESH, vec![int(now), int(until)])?.is_empty())
}

/// Stores a refreshed (sealed) token pair and frees the slot.
pub fn store_refresh(sql: &SqlStorage, bot: String, refresh: String, expires_at: i64, now: i64) -> worker::Result<()> {
    run(sql, sql::STORE_REFRESH, vec![V::String(bot), V::String(refresh), int(expires_at), int(now)])
}

/// Frees the refresh slot after a failure.
pub fn end_refresh(sql: &SqlStorage) -> worker::Result<()> {
    run(sql, sql::END_REFRESH, vec![])
}

/// A row as claimed by a sweep.
#[derive(Debug, Clone, Deserialize)]
pub struct ClaimedRow {
    /// Row id.
    pub id: i64,
    /// Idempotency key.
    pub idem_key: String,
    /// The receipt that produced it.
    pub op_key: String,
    /// Effect label.
    pub effect: String,
    /// Rate-limit target.
    pub target: String,
    /// The effect's action, as JSON.
    pub payload: String,
    /// Attempts including this one.
    pub attempts: i64,
    /// The row's maximum.
    pub max_attempts: i64,
    /// Absolute deadline.
    pub deadline_at: Option<i64>,
}

/// Claims up to `limit` due rows for `token` until `lease_until`.
pub fn claim(sql: &SqlStorage, token: &str, lease_until: i64, now: i64, limit: i64) -> worker::Result<Vec<ClaimedRow>> {
    let mut claimed: Vec<ClaimedRow> = rows(sql, sql::CLAIM, vec![text(token), int(lease_until), int(now), int(limit)])?;
    claimed.sort_by_key(|r| r.id);
    Ok(claimed)
}

/// The outcome of a fenced completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// Our claim still held: the transition was stored.
    Stored,
    /// Another claimer owns the row now: nothing of ours was written but the attempt log.
    Fenced,
}

/// One attempt, for the row's history.
#[derive(Debug, Clone)]
pub struct AttemptLog {
    /// Which attempt.
    pub attempt: i64,
    /// `success`, `retry`, `parked` or `fenced`.
    pub outcome: &'static str,
    /// The Slack error or failure code.
    pub detail: Option<String>,
    /// The HTTP status, when there was an answer.
    pub http_status: Option<i64>,
    /// How long the attempt took.
    pub latency_ms: i64,
}

/// Everything a completion writes, in one unit.
pub struct Completing {
    /// The row.
    pub row_id: i64,
    /// Our claim token (the fence).
    pub token: String,
    /// The state machine's decision.
    pub transition: Transition,
    /// For a retry that was a 429: hold this target until the retry time.
    pub hold_target: Option<String>,
    /// The error to keep as `last_error`.
    pub last_error: Option<String>,
    /// The attempt's history entry.
    pub log: AttemptLog,
    /// Follow-up rows (an LLM answer's post), inserted only if the completion is stored.
    pub followups: Vec<NewRow>,
    /// The row's receipt key, given to follow-ups.
    pub op_key: String,
    /// Attempt budget for follow-ups.
    pub max_attempts: u32,
    /// Now.
    pub now: i64,
}

/// What a completion stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completed {
    /// Stored or fenced.
    pub completion: Completion,
    /// Failures in a row of the row's target after this attempt (0 after a success).
    pub target_failures: i64,
}

/// Stores a completion if our claim still holds (fenced by `claim_token`), with its follow-ups,
/// hold, attempt history, counters and the target's failure streak, all or nothing.
pub fn complete(storage: &Storage, sql: &SqlStorage, c: Completing, target: String) -> worker::Result<Completed> {
    let sql = sql.clone();
    tx_sync(storage, move || {
        let stored: Vec<Value> = match &c.transition {
            Transition::Done => rows(&sql, sql::COMPLETE_DONE, vec![int(c.row_id), text(&c.token), int(c.now), opt_int(c.log.http_status)])?,
            Transition::Retry { at, .. } => rows(&sql, sql::COMPLETE_RETRY, vec![
                int(c.row_id), text(&c.token), int(*at), c.last_error.as_deref().map(text).unwrap_or(V::Null), opt_int(c.log.http_status),
            ])?,
            Transition::Park { reason } => rows(&sql, sql::COMPLETE_PARK, vec![
                int(c.row_id), text(&c.token), text(reason), c.last_error.as_deref().map(text).unwrap_or(V::Null),
                opt_int(c.log.http_status), int(c.now),
            ])?,
        };
        let completion = if stored.is_empty() { Completion::Fenced } else { Completion::Stored };
        let outcome = if completion == Completion::Fenced { "fenced" } else { c.log.outcome };
        run(&sql, sql::LOG_ATTEMPT, vec![
            int(c.row_id), int(c.log.attempt), int(c.now), text(outcome), c.log.detail.as_deref().map(text).unwrap_or(V::Null),
            opt_int(c.log.http_status), int(c.log.latency_ms),
        ])?;
        run(&sql, sql::BUMP_COUNTER, vec![text(outcome), int(1)])?;
        let target_failures = match (outcome, &c.log.detail) {
            ("success", _) => streak(&sql, &target, true)?,
            ("fenced", _) | (_, None) => 0,
            (_, Some(_)) => streak(&sql, &target, false)?,
        };
        if completion == Completion::Stored {
            if let (Some(target), Transition::Retry { at, .. }) = (&c.hold_target, &c.transition) {
                run(&sql, sql::HOLD_TARGET, vec![text(target), int(*at)])?;
            }
            insert_rows(&sql, &c.op_key, &c.followups, c.max_attempts, c.now)?;
        }
        Ok(Completed { completion, target_failures })
    })
}

/// Ends or extends the target's streak of failed attempts; returns its length.
fn streak(sql: &SqlStorage, target: &str, succeeded: bool) -> worker::Result<i64> {
    #[derive(Deserialize)]
    struct Row {
        failures: i64,
    }
    if succeeded {
        run(sql, sql::STREAK_RESET, vec![text(target)])?;
        return Ok(0);
    }
    Ok(rows::<Row>(sql, sql::STREAK_FAIL, vec![text(target)])?.first().map(|r| r.failures).unwrap_or(0))
}

#[derive(Deserialize)]
struct NextAt {
    next_at: Option<i64>,
}

/// When the alarm should next fire: the earliest due work, or housekeeping (not before
/// `prune_not_before`), if any.
pub fn next_alarm(sql: &SqlStorage, now: i64, receipt_retention_ms: i64, done_retention_ms: i64, prune_not_before: i64) -> worker::Result<Option<i64>> {
    let due: Vec<NextAt> = rows(sql, sql::NEXT_DUE, vec![int(now)])?;
    let prune: Vec<NextAt> = rows(sql, sql::NEXT_PRUNE, vec![int(receipt_retention_ms), int(done_retention_ms)])?;
    let never = 9_007_199_254_740_991;
    let prune_at = prune.into_iter().filter_map(|r| r.next_at).filter(|t| *t < never).map(|t| t.max(prune_not_before));
    Ok(due.into_iter().filter_map(|r| r.next_at).chain(prune_at).min())
}

/// Housekeeping: deletes receipts and delivered rows past retention (bounded), and stale holds.
pub fn prune(sql: &SqlStorage, now: i64, receipt_retention_ms: i64, done_retention_ms: i64, limit: i64) -> worker::Result<()> {
    run(sql, sql::PRUNE_RECEIPTS, vec![int(now - receipt_retention_ms), int(limit)])?;
    run(sql, sql::PRUNE_DONE_ATTEMPTS, vec![int(now - done_retention_ms), int(limit)])?;
    run(sql, sql::PRUNE_DONE, vec![int(now - done_retention_ms), int(limit)])?;
    run(sql, sql::PRUNE_HOLDS, vec![int(now)])
}

/// The team key this actor recorded, if any.
pub fn team_key(sql: &SqlStorage) -> worker::Result<Option<String>> {
    #[derive(Deserialize)]
    struct Row {
        value: String,
    }
    Ok(rows::<Row>(sql, sql::TEAM_KEY, vec![])?.into_iter().next().map(|r| r.value))
}

/// Pending rows: how many, and how long the oldest has waited.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Pending {
    /// How many rows are pending.
    pub pending: i64,
    /// Age of the oldest pending row (ms), if any.
    pub oldest_pending_age_ms: Option<i64>,
}

/// The pending summary at `now`.
pub fn pending(sql: &SqlStorage, now: i64) -> worker::Result<Pending> {
    #[derive(Deserialize)]
    struct Row {
        n: i64,
        oldest: Option<i64>,
    }
    let row = rows::<Row>(sql, sql::PENDING_SUMMARY, vec![])?.into_iter().next();
    Ok(row.map(|r| Pending { pending: r.n, oldest_pending_age_ms: r.oldest.map(|o| now - o) }).unwrap_or_default())
}

/// Keeps the last sweep's report for the stats.
pub fn save_last_sweep(sql: &SqlStorage, report: &Value) -> worker::Result<()> {
    run(sql, sql::SAVE_LAST_SWEEP, vec![V::String(report.to_string())])
}

/// The admin API's view of the team.
pub fn stats(sql: &SqlStorage, now: i64) -> worker::Result<Value> {
    #[derive(Deserialize)]
    struct Text {
        value: String,
    }
    let groups: Vec<Value> = rows(sql, sql::STATS_BY_STATUS, vec![])?;
    let receipts: Vec<Value> = rows(sql, sql::RECEIPT_COUNT, vec![])?;
    let counters: Vec<Value> = rows(sql, sql::COUNTERS, vec![])?;
    let holds: Vec<Value> = rows(sql, sql::ACTIVE_HOLDS, vec![int(now)])?;
    let parked: Vec<Value> = rows(sql, sql::PARKED_BY_REASON, vec![])?;
    let streaks: Vec<Value> = rows(sql, sql::STREAKS, vec![])?;
    let last_sweep = rows::<Text>(sql, sql::LAST_SWEEP, vec![])?.into_iter().next().and_then(|t| serde_json::from_str::<Value>(&t.value).ok());
    let pending = pending(sql, now)?;
    Ok(serde_json::json!({
        "team": team_key(sql)?,
        "pending": pending.pending,
        "oldest_pending_age_ms": pending.oldest_pending_age_ms,
        "parked_by_reason": parked,
        "groups": groups,
        "receipts": receipts.first().and_then(|r| r.get("n")).cloned().unwrap_or(Value::from(0)),
        "counters": counters,
        "holds": holds,
        "failing_targets": streaks,
        "last_sweep": last_sweep,
    }))
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
    #[derive(Deserialize)]
    struct Row {
        n: i64,
    }
    Ok(rows::<Row>(sql, sql::COUNT_PARKED_MATCHING, filter.bindings())?.first().map(|r| r.n).unwrap_or(0))
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
        let ids: Vec<Row> = rows(&sql, sql::PARKED_MATCHING_IDS, bindings)?;
        for (i, row) in ids.iter().enumerate() {
            run(&sql, sql::REDRIVE, vec![int(row.id), int(now + i as i64 * spacing_ms), int(max_attempts as i64)])?;
        }
        let detail = serde_json::json!({"reason": filter.reason, "since": filter.since, "until": filter.until, "count": ids.len()});
        run(&sql, sql::AUDIT, vec![int(now), text("bulk_redrive"), V::Null, V::String(detail.to_string())])?;
        Ok(ids.len() as i64)
    })
}

/// A page of rows in one status, newest first.
pub fn list_rows(sql: &SqlStorage, status: &str, before_id: i64, limit: i64) -> worker::Result<Vec<Value>> {
    rows(sql, sql::LIST_ROWS, vec![text(status), int(before_id), int(limit)])
}

/// One row with its attempt history, if it exists.
pub fn row_with_attempts(sql: &SqlStorage, id: i64) -> worker::Result<Option<Value>> {
    let found: Vec<Value> = rows(sql, sql::ONE_ROW, vec![int(id)])?;
    let Some(mut row) = found.into_iter().next() else { return Ok(None) };
    let attempts: Vec<Value> = rows(sql, sql::ROW_ATTEMPTS, vec![int(id)])?;
    row["attempts_log"] = Value::Array(attempts);
    Ok(Some(row))
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
pub fn audit(sql: &SqlStorage, limit: i64) -> worker::Result<Vec<Value>> {
    rows(sql, sql::AUDIT_LIST, vec![int(limit)])
}

/// Sends a parked row back to pending (audited), due now.
pub fn redrive(storage: &Storage, sql: &SqlStorage, id: i64, max_attempts: u32, now: i64) -> worker::Result<Operated> {
    let sql = sql.clone();
    tx_sync(storage, move || {
        let done: Vec<Value> = rows(&sql, sql::REDRIVE, vec![int(id), int(now), int(max_attempts as i64)])?;
        if done.is_empty() {
            return Ok(Operated::NotParked);
        }
        run(&sql, sql::AUDIT, vec![int(now), text("redrive"), int(id), V::Null])?;
        Ok(Operated::Applied)
    })
}

/// Deletes a parked row, keeping an audit record of what it was.
pub fn discard(storage: &Storage, sql: &SqlStorage, id: i64, now: i64) -> worker::Result<Operated> {
    let sql = sql.clone();
    tx_sync(storage, move || {
        let gone: Vec<Value> = rows(&sql, sql::DISCARD, vec![int(id)])?;
        let Some(row) = gone.into_iter().next() else { return Ok(Operated::NotParked) };
        run(&sql, sql::AUDIT, vec![int(now), text("discard"), int(id), V::String(row.to_string())])?;
        Ok(Operated::Applied)
    })
}

/// Benchmarks only: bulk-inserts synthetic receipts and delivered rows (offset `from`).
pub fn seed(sql: &SqlStorage, receipts: i64, done: i64, from: i64, now: i64) -> worker::Result<()> {
    if receipts > 0 {
        run(sql, sql::SEED_RECEIPTS, vec![int(receipts), int(now), int(from)])?;
    }
    if done > 0 {
        run(sql, sql::SEED_DONE, vec![int(done), int(now), int(from)])?;
    }
    Ok(())
}
