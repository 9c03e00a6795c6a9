//! App state: typed values (serde, stored as JSON) under string keys, one store per team, read
//! and written **inside the atomic unit** that records the request's receipt and its effects.
//!
//! Why: a Slack app keeps state (an incident's status, who voted, the `ts` of a message to edit
//! later). Kept in a second store written after the ack, a crash between the two or a Slack retry
//! applies a change twice or not at all. Here the handler's reads are served by the team actor's
//! own SQLite, synchronously, during the handler ([`StateReader`]), and its writes are buffered in
//! its context ([`State`]) and applied in the same `transactionSync` as the receipt and the
//! outbox rows, only when the receipt is new. So:
//!
//! - **a duplicate of the fact changes nothing twice**: a duplicate receipt (Slack's retries,
//!   concurrent copies) writes nothing, and a fact that arrives again under another receipt (a
//!   fresh `event_id`, the `message` and `app_mention` of one post) finds its fact recorded
//!   ([`StateChange`], the `state_facts` table) and writes nothing either;
//! - **all or nothing**: a handler that fails (an `Err`, a panic) or refuses a submission writes
//!   no state; the unit commits state, receipt and effects together or not at all;
//! - **limits are checked before anything is buffered** ([`MAX_VALUE_BYTES`], [`MAX_KEY_BYTES`],
//!   [`MAX_KEYS`]): a `put` over a limit returns a [`StateError`] and buffers nothing.
//!
//! Invariant: between the handler's first read and the unit's commit the actor does not await, so
//! no other request's writes can come in between (the actor is single-threaded; Durable Object
//! SQL is synchronous). The one exception is a redriven `handler_failed` row: its handler runs in
//! the sweep and its writes are stored with the row's fenced completion, after the attempts of
//! its batch (documented in `docs/app.md`). The pure core never touches storage: the reader is a
//! trait, and [`MemState`] serves native tests.

mod mem;
pub mod thread;
mod view;

pub use mem::MemState;
pub use view::State;

use serde::Serialize;

/// The largest value, as stored JSON: 64 KiB.
pub const MAX_VALUE_BYTES: usize = 64 * 1024;
/// The longest key: 512 bytes.
pub const MAX_KEY_BYTES: usize = 512;
/// The most keys one team may hold: 10,000 (× 64 KiB ≈ 640 MiB, well inside a Durable Object's
/// 10 GB of SQLite, which the outbox and receipts share).
pub const MAX_KEYS: u64 = 10_000;
/// The most entries one scan returns: 1,000.
pub const MAX_SCAN: u32 = 1_000;

/// Why a state operation was refused; nothing was buffered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StateError {
    /// The value's JSON is longer than [`MAX_VALUE_BYTES`].
    ValueTooLarge {
        /// The key.
        key: String,
        /// Its JSON's length.
        bytes: usize,
    },
    /// The key is empty or longer than [`MAX_KEY_BYTES`].
    BadKey(String),
    /// A new key would make the team hold more than [`MAX_KEYS`].
    TooManyKeys {
        /// The key refused.
        key: String,
    },
    /// The value could not be turned into JSON or back (its type does not match what is stored).
    Serde {
        /// The key.
        key: String,
        /// serde's message.
        error: String,
    },
    /// The store failed to read.
    Storage(String),
}

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StateError::ValueTooLarge { key, bytes } => write!(f, "state value of {key:?} is {bytes} bytes (at most {MAX_VALUE_BYTES})"),
            StateError::BadKey(key) => write!(f, "state key {key:?} is empty or longer than {MAX_KEY_BYTES} bytes"),
            StateError::TooManyKeys { key } => write!(f, "state key {key:?} refused: the team holds {MAX_KEYS} keys already"),
            StateError::Serde { key, error } => write!(f, "state value of {key:?}: {error}"),
            StateError::Storage(e) => write!(f, "state store: {e}"),
        }
    }
}

impl std::error::Error for StateError {}

impl From<StateError> for String {
    fn from(e: StateError) -> String {
        e.to_string()
    }
}

/// Reads a team's stored state (JSON text), synchronously. The team actor's SQLite serves it in
/// the Worker; [`MemState`] natively.
pub trait StateReader {
    /// The stored JSON of `key`.
    fn get(&self, key: &str) -> Result<Option<String>, StateError>;
    /// Up to `limit` entries whose keys start with `prefix` and sort after `after` (if given), in
    /// key order.
    fn scan(&self, prefix: &str, after: Option<&str>, limit: u32) -> Result<Vec<(String, String)>, StateError>;
    /// How many keys the team holds.
    fn count(&self) -> Result<u64, StateError>;
}

/// One buffered change, applied with the unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum StateWrite {
    /// Store this JSON under `key` (insert or replace).
    Put {
        /// The key.
        key: String,
        /// The value's JSON.
        value: String,
    },
    /// Remove `key` (nothing if absent).
    Delete {
        /// The key.
        key: String,
    },
}

impl StateWrite {
    /// The key it changes.
    pub fn key(&self) -> &str {
        match self {
            StateWrite::Put { key, .. } | StateWrite::Delete { key } => key,
        }
    }
}

/// What one handler's success writes: its buffered writes, and the fact they are about.
///
/// The unit applies them only when its receipt is new **and** no earlier unit applied a change
/// for the same fact (the `state_facts` table): Slack's retries are duplicate receipts, and a
/// fresh `event_id` for the same message, or its `message` and `app_mention` events, are the same
/// fact (`msg:{channel}:{ts}`), so each changes the state once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateChange {
    /// The fact (`msg:{channel}:{ts}`, `cmd:{trigger_id}`, `ix:{…}`, `ev:{event_id}`).
    pub fact: String,
    /// The writes, in key order.
    pub writes: Vec<StateWrite>,
}

/// The exclusive upper bound of the keys that start with `prefix` (the prefix with its last
/// character stepped up), so a scan is a range on the primary key: `key >= prefix AND key < end`.
/// `None` when there is no bound (an empty prefix, or one of only `char::MAX`).
pub fn prefix_end(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let next = (last as u32 + 1..=char::MAX as u32).find_map(char::from_u32);
        if let Some(next) = next {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

/// Checks a key against [`MAX_KEY_BYTES`].
pub fn check_key(key: &str) -> Result<(), StateError> {
    match key.is_empty() || key.len() > MAX_KEY_BYTES {
        true => Err(StateError::BadKey(key.chars().take(64).collect())),
        false => Ok(()),
    }
}

/// The value's JSON, checked against [`MAX_VALUE_BYTES`].
pub fn encode<T: Serialize + ?Sized>(key: &str, value: &T) -> Result<String, StateError> {
    let json = serde_json::to_string(value).map_err(|e| StateError::Serde { key: key.into(), error: e.to_string() })?;
    match json.len() > MAX_VALUE_BYTES {
        true => Err(StateError::ValueTooLarge { key: key.into(), bytes: json.len() }),
        false => Ok(json),
    }
}

/// Whether a key is secret by an app's list of secret prefixes (its value redacted in the admin
/// API and page).
pub fn is_secret(secret_prefixes: &[String], key: &str) -> bool {
    secret_prefixes.iter().any(|p| key.starts_with(p.as_str()))
}

/// What [`EffectRef::remember`](crate::app::listen::EffectRef::remember) keeps of Slack's
/// answer: where the message is, to `update` or `delete` it later.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Posted {
    /// The channel id.
    pub channel: String,
    /// The message's `ts`.
    pub ts: String,
}

/// What the admin API shows instead of a secret value.
pub const REDACTED: &str = "[redacted]";

#[cfg(test)]
mod tests;
