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

/// The fence, read: until when the row ?1 is claimed by ?2 (no row: the claim is lost).
pub const CLAIM_UNTIL: &str = "SELECT claim_expires_at FROM outbox WHERE id = ?1 AND claim_token = ?2 AND status = 'pending'";

/// The lease the fence extends: the row is still claimed by ?2, until ?3 now. ?1 row id.
/// `RETURNING` says whether the claim held.
pub const HOLD_CLAIM: &str = "UPDATE outbox SET claim_expires_at = ?3 WHERE id = ?1 AND claim_token = ?2 AND status = 'pending' RETURNING id";

/// Keeps a checkpoint: ?1 row id, ?2 checkpoint JSON, ?3 now, ?4 the row's idempotency key (a
/// left-over checkpoint of an earlier row with that id is replaced).
pub const SAVE: &str = "INSERT INTO answers(row_id, idem_key, checkpoint, updated_at) VALUES (?1, ?4, ?2, ?3)
  ON CONFLICT(row_id) DO UPDATE SET idem_key = excluded.idem_key, checkpoint = excluded.checkpoint, updated_at = excluded.updated_at";

/// Forgets a finished answer's checkpoint: ?1 row id.
pub const FORGET: &str = "DELETE FROM answers WHERE row_id = ?1";

/// Migration 6 (`answer_stops`): the Stops users pressed on streamed answers
/// (`agent_session_stopped`), one per thread, recorded by the ingest unit before the ack. Additive
/// (the previous release never names the table: floor 5).
///
/// A stop holds for the answers that existed when it was pressed: the rows of the thread up to
/// `up_to_row` (the outbox's highest id then). A later message in the same thread gets its answer.
pub const MIGRATION_6: &str = "CREATE TABLE answer_stops (
  channel TEXT NOT NULL,
  thread_ts TEXT NOT NULL,
  up_to_row INTEGER NOT NULL,
  at INTEGER NOT NULL,
  PRIMARY KEY (channel, thread_ts)
)";

/// Records a stop: ?1 channel, ?2 thread ts, ?3 now. Holds for every row queued so far (a second
/// stop of the thread widens it to the rows queued since).
pub const RECORD_STOP: &str = "INSERT INTO answer_stops(channel, thread_ts, up_to_row, at)
  VALUES (?1, ?2, COALESCE((SELECT MAX(id) FROM outbox), 0), ?3)
  ON CONFLICT(channel, thread_ts) DO UPDATE SET up_to_row = MAX(up_to_row, excluded.up_to_row), at = excluded.at";

/// Whether row ?3's answer in thread ?2 of channel ?1 was stopped (a row returned).
pub const STOPPED: &str = "SELECT 1 AS stopped FROM answer_stops WHERE channel = ?1 AND thread_ts = ?2 AND up_to_row >= ?3";

/// Forgets stops older than ?1 (housekeeping: no answer runs that long).
pub const PRUNE_STOPS: &str = "DELETE FROM answer_stops WHERE at < ?1";

/// Migration 8 (`agent_sessions`): each thread's newest session intent
/// (`crate::kinds::assistant::session`): the outbox row that carries it (`row_id`, queue order),
/// its status (NULL for a streamed answer, which sets the status itself), and when it was noted.
/// Additive (the previous release never names the table: floor 5).
pub const MIGRATION_8: &str = "CREATE TABLE agent_sessions (
  channel TEXT NOT NULL,
  thread_ts TEXT NOT NULL,
  row_id INTEGER NOT NULL,
  status TEXT,
  at INTEGER NOT NULL,
  PRIMARY KEY (channel, thread_ts)
) WITHOUT ROWID";

/// Notes a session row's intent (inside the ingest unit): ?1 channel, ?2 thread ts, ?3 the row's
/// id, ?4 its status, ?5 now. A newer row's intent replaces an older one, never the reverse.
pub const NOTE_INTENT: &str = "INSERT INTO agent_sessions(channel, thread_ts, row_id, status, at) VALUES (?1, ?2, ?3, ?4, ?5)
  ON CONFLICT(channel, thread_ts) DO UPDATE SET row_id = excluded.row_id, status = excluded.status, at = excluded.at
  WHERE excluded.row_id > agent_sessions.row_id";

/// Notes a streamed answer queued in a thread that has a session (inside the ingest unit): ?1
/// channel, ?2 thread ts, ?3 the answer's row id, ?4 now. A thread without a session writes nothing.
pub const NOTE_ANSWER: &str = "UPDATE agent_sessions SET row_id = ?3, status = NULL, at = ?4
  WHERE channel = ?1 AND thread_ts = ?2 AND row_id < ?3";

/// The newest intent of thread ?2 of channel ?1, and the status of the row that carries it (NULL
/// once the row is pruned).
pub const NEWEST: &str = "SELECT s.row_id, s.status, (SELECT o.status FROM outbox o WHERE o.id = s.row_id) AS row_status
  FROM agent_sessions s WHERE s.channel = ?1 AND s.thread_ts = ?2";

/// Forgets sessions whose newest intent was noted before ?1 (housekeeping, with the receipts).
pub const PRUNE_SESSIONS: &str = "DELETE FROM agent_sessions WHERE at < ?1";
