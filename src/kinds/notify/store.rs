//! The notify API's tables: idempotency keys with their stored answers, Slack's answers to posts
//! (on the message's outbox row since migration 5, `super::sql::MIGRATION_5`; in `slack_results`
//! for rows delivered before it), and status messages. A key, its answer and its outbox row are
//! one unit.

use super::{key_of_row, row_key, Invalid, MessageView, PostWrite, StatusUpdate, StatusView};
use crate::kinds::registry::Action;
use crate::platform::exec::{int, rows, run, text, tx_sync};
use crate::platform::rows::{insert_action, insert_claimed, queue_serial, PreClaim, Queue};
use crate::sql::known::Known;
use serde::Deserialize;
use serde_json::{json, Value};
use std::rc::Rc;
use worker::{SqlStorage, SqlStorageValue as V, Storage};

fn json_error(e: serde_json::Error) -> worker::Error {
    worker::Error::RustError(format!("JSON: {e}"))
}

/// An answer to a notify POST: its status and its exact bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredAnswer {
    /// HTTP status (202, or 422 for a body that can never be valid).
    pub status: u16,
    /// The body, byte for byte as first sent.
    pub body: String,
}

/// What a notify POST found under its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyOutcome {
    /// The key was new: this answer was stored with it (and, for a 202, the message queued).
    First(StoredAnswer),
    /// The key was used before with the same body: the first answer.
    Replayed(StoredAnswer),
    /// The key was used before with another body: nothing changes.
    Mismatch,
}

/// Settings of a notify unit.
#[derive(Debug, Clone, Copy)]
pub struct KeyTerms {
    /// How long the key is kept.
    pub ttl_ms: i64,
    /// Attempt budget of the message.
    pub max_attempts: u32,
    /// Now, for the key (a test may move it forward to expire keys).
    pub now: i64,
    /// Now, for the outbox row (the runtime's clock: the row is due at once).
    pub queued_at: i64,
}

/// A notify POST's message as recorded: what its key found, and the id of its row if it was
/// inserted claimed (for the instance's sweep to adopt).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// What the key found.
    pub outcome: KeyOutcome,
    /// The message's row, inserted claimed by the given claim.
    pub claimed: Option<i64>,
}

#[derive(Deserialize)]
struct KeyRow {
    body_hash: String,
    status: i64,
    response: String,
}

/// Records a notify POST in one unit: an expired key is forgotten; a live one is replayed (same
/// body hash) or refused (another hash); a new one is claimed with its answer — a 422 for an
/// invalid body (stored: it would never become valid), or a queued message and its 202. With
/// `claim` (the actor instance's token, the lease's end), the message's row is inserted claimed.
#[allow(clippy::too_many_arguments)]
pub fn record_message(
    storage: &Storage,
    sql: &SqlStorage,
    key: &str,
    hash: &str,
    message: Result<Value, Invalid>,
    terms: KeyTerms,
    claim: Option<(String, i64)>,
    known: &Rc<Known>,
) -> worker::Result<Recorded> {
    let (sql, key, hash, knows) = (sql.clone(), key.to_string(), hash.to_string(), known.clone());
    let recorded = tx_sync(storage, move || {
        let now = terms.now;
        run(&sql, super::sql::EXPIRE_KEY, vec![text(&key), int(now)])?;
        if let Some(found) = rows::<KeyRow>(&sql, super::sql::IDEMPOTENCY_KEY, vec![text(&key)])?.into_iter().next() {
            let outcome = match found.body_hash == hash {
                true => KeyOutcome::Replayed(StoredAnswer { status: found.status as u16, body: found.response }),
                false => KeyOutcome::Mismatch,
            };
            return Ok(Recorded { outcome, claimed: None });
        }
        let (answer, message_id) = match message {
            Err(invalid) => (StoredAnswer { status: 422, body: invalid.body().to_string() }, None),
            Ok(args) => {
                let pre_claim = claim.as_ref().map(|(token, until)| PreClaim { token, until: *until });
                let id = queue_message(&sql, &key, args, terms, pre_claim)?;
                let body = json!({ "id": id, "status": "pending", "key": key }).to_string();
                (StoredAnswer { status: 202, body }, Some(id))
            }
        };
        let claimed: Vec<Value> = rows(
            &sql,
            super::sql::CLAIM_KEY,
            vec![
                text(&key),
                text(&hash),
                int(answer.status as i64),
                text(&answer.body),
                message_id.map(int).unwrap_or(V::Null),
                int(now),
                int(now + terms.ttl_ms),
            ],
        )?;
        if claimed.is_empty() {
            // Unreachable while the actor runs one unit at a time; refuse rather than double-post.
            return Err(worker::Error::RustError("the idempotency key was claimed concurrently".into()));
        }
        if !knows.keys_noted() {
            run(&sql, super::sql::NOTE_KEYS, vec![text(&(now + terms.ttl_ms).to_string())])?;
            knows.note_keys();
        }
        let claimed = message_id.filter(|_| claim.is_some());
        Ok(Recorded { outcome: KeyOutcome::First(answer), claimed })
    });
    if recorded.is_err() {
        known.forget();
    }
    recorded
}

/// Queues the message's row, claimed by `claim` if given.
fn queue_message(sql: &SqlStorage, key: &str, args: Value, terms: KeyTerms, claim: Option<PreClaim>) -> worker::Result<i64> {
    let (row_key, op_key) = (row_key(key, terms.now), format!("api:notify:{key}"));
    let queue = Queue { key: &row_key, op_key: &op_key, max_attempts: terms.max_attempts, due: terms.queued_at, deadline_at: None, now: terms.queued_at };
    let action = Action::Notify { args };
    let inserted = match claim {
        Some(claim) => insert_claimed(sql, &action, queue, claim)?,
        None => insert_action(sql, &action, queue)?,
    };
    inserted.ok_or_else(|| worker::Error::RustError("the message row was not inserted".into()))
}

/// A notify message, with Slack's answer once posted.
pub fn message(sql: &SqlStorage, id: i64) -> worker::Result<Option<MessageView>> {
    #[derive(Deserialize)]
    struct Row {
        id: i64,
        idem_key: String,
        status: String,
        attempts: i64,
        reason: Option<String>,
        last_error: Option<String>,
        created_at: i64,
        finished_at: Option<i64>,
        channel: Option<String>,
        ts: Option<String>,
    }
    Ok(rows::<Row>(sql, super::sql::MESSAGE, vec![int(id)])?.into_iter().next().map(|r| MessageView {
        id: r.id,
        key: key_of_row(&r.idem_key),
        status: r.status,
        attempts: r.attempts,
        reason: r.reason,
        last_error: r.last_error,
        channel: r.channel,
        ts: r.ts,
        created_at: r.created_at,
        finished_at: r.finished_at,
    }))
}

/// A status message as stored.
#[derive(Debug, Clone, Deserialize)]
pub struct StatusRow {
    /// Name.
    pub name: String,
    /// Channel.
    pub channel: String,
    /// Newest text.
    pub text: String,
    /// Newest blocks (JSON text).
    pub blocks: Option<String>,
    /// Newest version.
    pub version: i64,
    /// Version Slack shows.
    pub posted_version: i64,
    /// The message, once posted.
    pub ts: Option<String>,
    /// Its channel as Slack answered.
    pub post_channel: Option<String>,
    /// Syncs queued so far.
    pub syncs: i64,
}

impl StatusRow {
    fn view(self, stale: bool) -> StatusView {
        StatusView { name: self.name, channel: self.channel, text: self.text, version: self.version, posted_version: self.posted_version, ts: self.ts, stale }
    }
}

/// A status message, if it exists.
pub fn status_row(sql: &SqlStorage, name: &str) -> worker::Result<Option<StatusRow>> {
    Ok(rows::<StatusRow>(sql, super::sql::STATUS, vec![text(name)])?.into_iter().next())
}

/// A status message's view.
pub fn status(sql: &SqlStorage, name: &str) -> worker::Result<Option<StatusView>> {
    Ok(status_row(sql, name)?.map(|r| r.view(false)))
}

/// Sets a status message's newest state and queues its sync, in one unit; a version that is not
/// above the stored one changes nothing (`stale`).
pub fn put_status(storage: &Storage, sql: &SqlStorage, name: &str, update: StatusUpdate, max_attempts: u32, now: i64) -> worker::Result<StatusView> {
    let (sql, name) = (sql.clone(), name.to_string());
    tx_sync(storage, move || {
        let blocks = update.blocks.as_ref().map(|b| V::String(b.to_string())).unwrap_or(V::Null);
        let changed: Vec<Value> =
            rows(&sql, super::sql::PUT_STATUS, vec![text(&name), text(&update.channel), text(&update.text), blocks, int(update.version), int(now)])?;
        let stale = changed.is_empty();
        if !stale {
            queue_status_sync(&sql, &name, max_attempts, now)?;
        }
        let row = status_row(&sql, &name)?.ok_or_else(|| worker::Error::RustError("the status message vanished".into()))?;
        Ok(row.view(stale))
    })
}

/// Queues a status message's sync unless one is waiting unclaimed (it will send the newest state).
fn queue_status_sync(sql: &SqlStorage, name: &str, max_attempts: u32, now: i64) -> worker::Result<()> {
    #[derive(Deserialize)]
    struct Syncs {
        syncs: i64,
    }
    let queued = status_row(sql, name)?.map_or(0, |r| r.syncs);
    let bump = || Ok(rows::<Syncs>(sql, super::sql::BUMP_STATUS_SYNCS, vec![text(name)])?.first().map(|s| s.syncs));
    let action = Action::Status { name: name.to_string() };
    queue_serial(sql, &action, queued, |n| format!("status:{name}:{n}"), bump, &format!("api:status:{name}"), max_attempts, now).map(|_| ())
}

/// Applies a post's write for outbox row `row_id`.
pub fn apply(sql: &SqlStorage, row_id: i64, write: &PostWrite) -> worker::Result<()> {
    match write {
        PostWrite::Message { channel, ts } => run(sql, super::sql::SAVE_RESULT, vec![int(row_id), text(channel), text(ts)]),
        PostWrite::Status { name, posted, version } => {
            let (ts, channel) = match posted {
                Some((ts, channel)) => (text(ts), text(channel)),
                None => (V::Null, V::Null),
            };
            run(sql, super::sql::STATUS_POSTED, vec![text(name), ts, channel, int(*version)])
        }
    }
}

/// A status message's newest blocks.
pub fn blocks_of(row: &StatusRow) -> worker::Result<Option<Value>> {
    row.blocks.as_deref().map(serde_json::from_str).transpose().map_err(json_error)
}
