//! The notify API's room: other services post to Slack through slackline and get the outbox's
//! guarantees (recorded before the answer, delivered at least once, parked with a reason). This
//! file is its pure half; beside it, its SQL text ([`sql`]) and, wasm32 only, its store (`store`:
//! the idempotency keys, Slack's answers to posts, status messages) and its two jobs (`post`: a
//! message's `chat.postMessage`; `status`: a status message brought up to its newest version). Its
//! API routes are served by the team actor (`runtime/team/notify.rs`).
//!
//! - `POST /api/teams/{team}/messages` takes an `Idempotency-Key` with Stripe's semantics: the
//!   first request's answer is stored under the key with a hash of the canonical body; the same
//!   key and body again get that answer back byte for byte (`Idempotent-Replayed: true`); the same
//!   key with another body is refused (422 `idempotency_key_mismatch`). A body that can never be valid is a
//!   deterministic failure: its 422 is stored and replayed too. A failure to record (the actor did
//!   not commit within the budget) stores nothing, so a retry really runs.
//! - `PUT /api/teams/{team}/status/{name}` sets a status message's *final state* with a
//!   monotonic `version` ([`StatusUpdate`]): a stale version changes nothing, and the sync always
//!   sends the newest state, so a delayed delivery can never overwrite a newer one in Slack.

#[cfg(target_arch = "wasm32")]
pub(crate) mod post;
pub mod sql;
#[cfg(target_arch = "wasm32")]
pub(crate) mod status;
#[cfg(target_arch = "wasm32")]
pub(crate) mod store;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

/// Slack's limit on a message's `text`.
pub const MAX_TEXT_CHARS: usize = 40_000;
/// Slack's limit on a message's blocks.
pub const MAX_BLOCKS: usize = 50;
/// The longest idempotency key.
pub const MAX_KEY_LEN: usize = 255;

/// Whether an `Idempotency-Key` is acceptable: 1 to 255 printable ASCII characters.
pub fn valid_key(key: &str) -> bool {
    (1..=MAX_KEY_LEN).contains(&key.len()) && key.bytes().all(|b| (0x20..=0x7e).contains(&b))
}

/// A body's fingerprint: SHA-256 of its canonical JSON (keys sorted, no spaces) when it is JSON,
/// else of its bytes. Two bodies that differ only in key order or spacing are the same request.
pub fn body_hash(body: &str) -> String {
    let canonical = serde_json::from_str::<Value>(body).map(|v| v.to_string());
    hex::encode(Sha256::digest(canonical.as_deref().unwrap_or(body).as_bytes()))
}

/// Why a body was refused (422), naming the field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Invalid {
    /// The field, or `body` for the whole.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl Invalid {
    fn new(field: &str, message: impl Into<String>) -> Invalid {
        Invalid { field: field.into(), message: message.into() }
    }

    /// The 422 answer's body.
    pub fn body(&self) -> Value {
        json!({ "ok": false, "error": "invalid_body", "field": self.field, "message": self.message })
    }
}

/// A message to post, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// `chat.postMessage`'s arguments.
    pub args: Value,
}

fn object(body: &str) -> Result<Map<String, Value>, Invalid> {
    match serde_json::from_str::<Value>(body) {
        Ok(Value::Object(fields)) => Ok(fields),
        Ok(_) => Err(Invalid::new("body", "the body must be a JSON object")),
        Err(e) => Err(Invalid::new("body", format!("the body is not JSON: {e}"))),
    }
}

fn only(fields: &Map<String, Value>, allowed: &[&str]) -> Result<(), Invalid> {
    match fields.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(unknown) => Err(Invalid::new(unknown, format!("unknown field; allowed: {}", allowed.join(", ")))),
        None => Ok(()),
    }
}

fn channel(fields: &Map<String, Value>) -> Result<String, Invalid> {
    let id =
        fields.get("channel").and_then(Value::as_str).ok_or_else(|| Invalid::new("channel", "required: a channel id (C…, G…, D…) or a user id (U…, W…)"))?;
    let ok = (2..=64).contains(&id.len()) && id.starts_with(['C', 'G', 'D', 'U', 'W']) && id.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit());
    ok.then(|| id.to_string()).ok_or_else(|| Invalid::new("channel", "must be a channel id (C…, G…, D…) or a user id (U…, W…)"))
}

fn text(fields: &Map<String, Value>) -> Result<String, Invalid> {
    let text = fields.get("text").and_then(Value::as_str).ok_or_else(|| Invalid::new("text", "required: a string"))?;
    if text.trim().is_empty() || text.chars().count() > MAX_TEXT_CHARS {
        return Err(Invalid::new("text", format!("must be 1 to {MAX_TEXT_CHARS} characters")));
    }
    Ok(text.to_string())
}

fn blocks(fields: &Map<String, Value>) -> Result<Option<Value>, Invalid> {
    match fields.get("blocks") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(blocks)) if blocks.len() <= MAX_BLOCKS && blocks.iter().all(|b| b.get("type").and_then(Value::as_str).is_some()) => {
            Ok(Some(Value::Array(blocks.clone())))
        }
        Some(_) => Err(Invalid::new("blocks", format!("must be an array of at most {MAX_BLOCKS} Block Kit blocks (objects with a type)"))),
    }
}

/// Validates a `POST …/messages` body into `chat.postMessage` arguments.
pub fn parse_message(body: &str) -> Result<Message, Invalid> {
    let fields = object(body)?;
    only(&fields, &["channel", "text", "blocks", "thread_ts", "unfurl_links"])?;
    let mut args = json!({ "channel": channel(&fields)?, "text": text(&fields)? });
    if let Some(blocks) = blocks(&fields)? {
        args["blocks"] = blocks;
    }
    match fields.get("thread_ts") {
        None | Some(Value::Null) => {}
        Some(Value::String(ts)) if is_ts(ts) => args["thread_ts"] = json!(ts),
        Some(_) => return Err(Invalid::new("thread_ts", "must be a message ts like 1700000000.000100")),
    }
    match fields.get("unfurl_links") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(b)) => args["unfurl_links"] = json!(b),
        Some(_) => return Err(Invalid::new("unfurl_links", "must be true or false")),
    }
    Ok(Message { args })
}

fn is_ts(ts: &str) -> bool {
    let mut parts = ts.split('.');
    let digits = |s: Option<&str>| s.is_some_and(|s| !s.is_empty() && s.len() <= 10 && s.bytes().all(|b| b.is_ascii_digit()));
    digits(parts.next()) && digits(parts.next()) && parts.next().is_none()
}

/// A status message's name as a path carries it.
pub fn valid_status_name(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// A `PUT …/status/{name}` body, validated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatusUpdate {
    /// Where the message lives (fixed by the first PUT that posts it).
    pub channel: String,
    /// Its text.
    pub text: String,
    /// Its blocks.
    pub blocks: Option<Value>,
    /// Monotonic: a PUT whose version is not above the stored one is stale.
    pub version: i64,
}

/// Validates a status body.
pub fn parse_status(body: &str) -> Result<StatusUpdate, Invalid> {
    let fields = object(body)?;
    only(&fields, &["channel", "text", "blocks", "version"])?;
    let version = fields.get("version").and_then(Value::as_i64).filter(|v| *v >= 1);
    let version = version.ok_or_else(|| Invalid::new("version", "required: a whole number from 1, higher for each newer state"))?;
    Ok(StatusUpdate { channel: channel(&fields)?, text: text(&fields)?, blocks: blocks(&fields)?, version })
}

/// What a status message's sync sends, from what is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatusCall {
    /// Not posted yet: `chat.postMessage`.
    Post,
    /// Posted at `ts` with an older version: `chat.update`.
    Update {
        /// The message.
        ts: String,
        /// Its channel (as Slack answered the post).
        channel: String,
    },
    /// Slack shows the newest version: nothing.
    Nothing,
}

/// The call that brings the status message to `version`.
pub fn status_call(version: i64, posted_version: i64, posted: Option<(String, String)>) -> StatusCall {
    match posted {
        None => StatusCall::Post,
        Some(_) if posted_version >= version => StatusCall::Nothing,
        Some((ts, channel)) => StatusCall::Update { ts, channel },
    }
}

/// `GET /api/teams/{team}/messages/{id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageView {
    /// The outbox row.
    pub id: i64,
    /// The `Idempotency-Key` it was posted with.
    pub key: String,
    /// `pending`, `done` or `parked`.
    pub status: String,
    /// Attempts so far.
    pub attempts: i64,
    /// Why it was parked.
    pub reason: Option<String>,
    /// The last attempt's error.
    pub last_error: Option<String>,
    /// The channel Slack posted in, once posted.
    pub channel: Option<String>,
    /// Slack's `ts` of the message, once posted.
    pub ts: Option<String>,
    /// When it was recorded.
    pub created_at: i64,
    /// When it was delivered or parked.
    pub finished_at: Option<i64>,
}

/// A notify row's idempotency key: `notify:{key}:{recorded at}` (a key used again after it
/// expired makes a new row, while the old one may still be kept).
pub fn row_key(key: &str, now: i64) -> String {
    format!("notify:{key}:{now}")
}

/// The client's key back from a notify row's idempotency key.
pub fn key_of_row(idem_key: &str) -> String {
    let inner = idem_key.strip_prefix("notify:").unwrap_or(idem_key);
    inner.rsplit_once(':').map_or(inner, |(key, _)| key).to_string()
}

/// `PUT`/`GET /api/teams/{team}/status/{name}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatusView {
    /// The name.
    pub name: String,
    /// The channel.
    pub channel: String,
    /// The newest text.
    pub text: String,
    /// The newest version stored.
    pub version: i64,
    /// The version Slack shows (0: not posted yet).
    pub posted_version: i64,
    /// The message's `ts`, once posted.
    pub ts: Option<String>,
    /// `true` when this PUT's version was not above the stored one: nothing changed.
    pub stale: bool,
}

/// What a post's completion keeps (only when the claim still holds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PostWrite {
    /// A notify message was posted here.
    Message {
        /// Slack's channel.
        channel: String,
        /// Slack's ts.
        ts: String,
    },
    /// A status message shows `version` (posted at `posted`, the first time).
    Status {
        /// Its name.
        name: String,
        /// `(ts, channel)` of the first post.
        posted: Option<(String, String)>,
        /// The version sent.
        version: i64,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rows_key_gives_the_clients_key_back() {
        assert_eq!(key_of_row(&row_key("deploy:42", 1_700)), "deploy:42");
    }

    #[test]
    fn keys_are_printable_ascii_up_to_255() {
        assert!(valid_key("a") && valid_key("deploy 42/#7") && valid_key(&"k".repeat(255)));
        assert!(!valid_key("") && !valid_key(&"k".repeat(256)) && !valid_key("tab\there") && !valid_key("é"));
    }

    #[test]
    fn the_hash_ignores_key_order_and_spacing_but_not_values() {
        assert_eq!(body_hash(r#"{"a":1,"b":"x"}"#), body_hash(r#"{ "b": "x", "a": 1 }"#));
        assert_ne!(body_hash(r#"{"a":1}"#), body_hash(r#"{"a":2}"#));
        assert_eq!(body_hash("not json"), body_hash("not json"));
        assert_ne!(body_hash("not json"), body_hash("not json "));
    }

    #[test]
    fn a_message_becomes_post_message_arguments() {
        let m = parse_message(r#"{"channel":"C123","text":"deployed","thread_ts":"1700000000.000100","unfurl_links":false,"blocks":[{"type":"section"}]}"#)
            .unwrap();
        assert_eq!(m.args["channel"], "C123");
        assert_eq!(m.args["thread_ts"], "1700000000.000100");
        assert_eq!(m.args["unfurl_links"], false);
        assert_eq!(m.args["blocks"][0]["type"], "section");
    }

    #[test]
    fn a_bad_message_names_its_field() {
        let field = |body: &str| parse_message(body).unwrap_err().field;
        assert_eq!(field(r#"{"text":"x"}"#), "channel");
        assert_eq!(field(r##"{"channel":"#general","text":"x"}"##), "channel");
        assert_eq!(field(r#"{"channel":"C1","text":""}"#), "text");
        assert_eq!(field(r#"{"channel":"C1","text":"x","thread_ts":"yesterday"}"#), "thread_ts");
        assert_eq!(field(r#"{"channel":"C1","text":"x","blocks":"nope"}"#), "blocks");
        assert_eq!(field(r#"{"channel":"C1","text":"x","unfurl_links":"yes"}"#), "unfurl_links");
        assert_eq!(field(r#"{"channel":"C1","text":"x","colour":"red"}"#), "colour");
        assert_eq!(field("[1]"), "body");
        assert_eq!(field("{oops"), "body");
    }

    #[test]
    fn a_status_needs_a_version_and_the_call_follows_what_slack_shows() {
        assert_eq!(parse_status(r#"{"channel":"C1","text":"x"}"#).unwrap_err().field, "version");
        assert_eq!(parse_status(r#"{"channel":"C1","text":"x","version":0}"#).unwrap_err().field, "version");
        assert_eq!(parse_status(r#"{"channel":"C1","text":"x","version":3}"#).unwrap().version, 3);
        let posted = Some(("1.2".to_string(), "C1".to_string()));
        assert_eq!(status_call(1, 0, None), StatusCall::Post);
        assert_eq!(status_call(5, 3, posted.clone()), StatusCall::Update { ts: "1.2".into(), channel: "C1".into() });
        assert_eq!(status_call(5, 5, posted), StatusCall::Nothing);
        assert!(valid_status_name("deploy-prod.web_1") && !valid_status_name("a/b") && !valid_status_name(""));
    }
}
