//! Streamed answers in progress (`crate::kinds::assistant::stream`): one checkpoint per outbox row,
//! written before every Slack call of the answer, fenced by the row's claim.

/// Migration 4 (`streamed_answers`): the checkpoints. Additive: the previous release never names
/// the table (its rows would just be left; a `stream` row it cannot perform is parked as
/// `bad_payload`).
///
/// A checkpoint names its row by id *and* idempotency key: a row id may be used again once its
/// row is gone (discarded, pruned), and a new row must never resume another's answer.
pub const MIGRATION_4: &str = "CREATE TABLE answers (
  row_id INTEGER PRIMARY KEY,
  idem_key TEXT NOT NULL,
  checkpoint TEXT NOT NULL,
  updated_at INTEGER NOT NULL
)";

/// A row's checkpoint: ?1 row id, ?2 its idempotency key.
pub const LOAD: &str = "SELECT checkpoint FROM answers WHERE row_id = ?1 AND idem_key = ?2";

/// The fence, and the lease it extends: the row is still claimed by ?2, until ?3 now. ?1 row id.
/// `RETURNING` says whether the claim held.
pub const HOLD_CLAIM: &str = "UPDATE outbox SET claim_expires_at = ?3 WHERE id = ?1 AND claim_token = ?2 AND status = 'pending' RETURNING id";

/// Keeps a checkpoint: ?1 row id, ?2 checkpoint JSON, ?3 now, ?4 the row's idempotency key (a
/// left-over checkpoint of an earlier row with that id is replaced).
pub const SAVE: &str = "INSERT INTO answers(row_id, idem_key, checkpoint, updated_at) VALUES (?1, ?4, ?2, ?3)
  ON CONFLICT(row_id) DO UPDATE SET idem_key = excluded.idem_key, checkpoint = excluded.checkpoint, updated_at = excluded.updated_at";

/// Forgets a finished answer's checkpoint: ?1 row id.
pub const FORGET: &str = "DELETE FROM answers WHERE row_id = ?1";
