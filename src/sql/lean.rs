//! Migration 3 (`lean_rows`): fewer rows written per event. Cloudflare bills every row a
//! statement writes — each index entry an insert adds, each index an update moves a row in, a
//! deleted row (its index entries are not counted), `sqlite_sequence` for an `AUTOINCREMENT`
//! table, and one per `setAlarm` — but not a dropped table's rows (measured by
//! `BENCH_ONLY=cost make bench`; docs/benchmarks.md "Cost per event"). Before it, a delivered
//! mention wrote 18 rows over its life and an ignored event 3; after it, 7 and 1.
//!
//! What it changes:
//! - **Receipts rotate between two tables** (`receipts`, `receipts_prev`), with no age index
//!   (`receipts_by_age` dropped): a receipt is one row written and never a row deleted.
//!   Invariant: every receipt in `receipts` was received at or after `meta.receipts_since`,
//!   every one in `receipts_prev` before it. Once `receipts_since` is a retention old, the
//!   housekeeping drops `receipts_prev` (all of it older than the retention), and `receipts`
//!   becomes `receipts_prev` (or, when all of it is past the retention too, goes as well):
//!   receipts are kept between one and two retentions (24 to 48 h). A new receipt is one only
//!   if neither table has its key ([`super::ingest::INSERT_RECEIPT`]).
//! - **`outbox` is rebuilt without `AUTOINCREMENT`** (which wrote `sqlite_sequence` on every
//!   insert) and with one partial index for the claim, `outbox_pending` (`next_attempt_at` of
//!   pending rows only), instead of `outbox_due` and `outbox_finished` (whose entries every
//!   completion moved). A row leaving `pending` leaves that index, which costs no row written.
//!   Ids stay monotonic without `AUTOINCREMENT` because the newest row is never pruned
//!   (`sql::outbox::PRUNE_DONE`); an operator's discard of the newest row is the one way an id
//!   can be given again. Delivered rows are found for pruning by a scan, once their oldest
//!   (`meta.done_oldest`, [`NOTE_DONE`]) has been past the retention for
//!   [`crate::config::PRUNE_BUCKET_MS`] (an hour's rows per scan).
//! - **`outbox.last_latency_ms`**: a delivered row carries its successful attempt (attempts,
//!   `last_attempt_at`, `last_status`, this latency), so a success writes no `attempts` row; the
//!   admin API shows it in the row's history as before. Every failed attempt still has its row.
//!
//! The previous release (version 2) refuses a database at version 3 (a rollback answers 500
//! until the newer release is back: `docs/operations.md`, "Upgrades and rollbacks").

/// The migration's statements (one transaction with its stamp).
pub const MIGRATION_3: &str = "DROP INDEX receipts_by_age;
CREATE TABLE receipts_prev (
  op_key TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  received_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE outbox_v3 (
  id INTEGER PRIMARY KEY,
  idem_key TEXT NOT NULL UNIQUE,
  op_key TEXT NOT NULL,
  effect TEXT NOT NULL,
  target TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL,
  next_attempt_at INTEGER NOT NULL,
  deadline_at INTEGER,
  claim_token TEXT,
  claim_expires_at INTEGER,
  reason TEXT,
  last_error TEXT,
  last_status INTEGER,
  created_at INTEGER NOT NULL,
  first_attempt_at INTEGER,
  last_attempt_at INTEGER,
  finished_at INTEGER,
  last_latency_ms INTEGER
);
INSERT INTO outbox_v3 (id, idem_key, op_key, effect, target, payload, status, attempts, max_attempts,
  next_attempt_at, deadline_at, claim_token, claim_expires_at, reason, last_error, last_status, created_at,
  first_attempt_at, last_attempt_at, finished_at)
 SELECT id, idem_key, op_key, effect, target, payload, status, attempts, max_attempts,
  next_attempt_at, deadline_at, claim_token, claim_expires_at, reason, last_error, last_status, created_at,
  first_attempt_at, last_attempt_at, finished_at FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_v3 RENAME TO outbox;
CREATE INDEX outbox_pending ON outbox(next_attempt_at) WHERE status = 'pending';
CREATE INDEX outbox_serial ON outbox(target, id) WHERE status = 'pending' AND effect IN ('lists', 'status');
INSERT INTO meta(key, value) SELECT 'receipts_since', MIN(received_at) FROM receipts WHERE true HAVING COUNT(*) > 0
 ON CONFLICT(key) DO UPDATE SET value = excluded.value;
INSERT INTO meta(key, value) SELECT 'done_oldest', MIN(finished_at) FROM outbox WHERE status = 'done' HAVING COUNT(*) > 0
 ON CONFLICT(key) DO UPDATE SET value = excluded.value";

/// Notes that `receipts` collects from ?1 (now, as text) on, unless it already does: writes
/// nothing while the note stands (run with each new receipt).
pub const NOTE_RECEIPT: &str = "INSERT INTO meta(key, value) VALUES ('receipts_since', ?1) ON CONFLICT(key) DO NOTHING";

/// Notes that a delivered (done) row exists from ?1 (now, as text) on, unless an older one is
/// noted.
pub const NOTE_DONE: &str = "INSERT INTO meta(key, value) VALUES ('done_oldest', ?1) ON CONFLICT(key) DO NOTHING";

/// Since when `receipts` collects, when the oldest delivered row was noted, and when the oldest
/// idempotency key expires (`kinds::notify::sql::NOTE_KEYS`) (epoch ms, NULL when there is none).
pub const OLDEST: &str = "SELECT
   (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'receipts_since') AS receipts,
   (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'done_oldest') AS done,
   (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'keys_oldest') AS keys";

/// The newest receipt of the current table and how many it holds (for a rotation).
pub const CURRENT_RECEIPTS: &str = "SELECT MAX(received_at) AS newest, COUNT(*) AS n FROM receipts";

/// A rotation's first step: the previous table goes whole (none of its receipts is younger than
/// the retention), which writes no row.
pub const DROP_PREVIOUS: &str = "DROP TABLE receipts_prev";

/// The current table becomes the previous one.
pub const CURRENT_TO_PREVIOUS: &str = "ALTER TABLE receipts RENAME TO receipts_prev";

/// The current table, empty (after it became the previous one, or went).
pub const CREATE_CURRENT: &str = "CREATE TABLE receipts (
  op_key TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  received_at INTEGER NOT NULL
) WITHOUT ROWID";

/// The previous table, empty.
pub const CREATE_PREVIOUS: &str = "CREATE TABLE receipts_prev (
  op_key TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  received_at INTEGER NOT NULL
) WITHOUT ROWID";

/// Every receipt of the current table goes (a few: cheaper than a table).
pub const CLEAR_CURRENT: &str = "DELETE FROM receipts";

/// The whole current table goes (every receipt in it is past the retention).
pub const DROP_CURRENT: &str = "DROP TABLE receipts";

/// After a rotation: `receipts` collects from ?1 (now, as text) on.
pub const SINCE: &str = "INSERT INTO meta(key, value) VALUES ('receipts_since', ?1) ON CONFLICT(key) DO UPDATE SET value = excluded.value";

/// After a rotation that left no receipt at all: the note goes (the next receipt sets it).
pub const UNNOTE_RECEIPTS: &str = "DELETE FROM meta WHERE key = 'receipts_since'";

/// At most this many receipts are deleted one by one when the current table goes: more, and
/// dropping the table (which writes no row) and creating it again is cheaper.
pub const CLEAR_AT_MOST: i64 = 3;

/// The statements of a rotation, in order, given the current table's newest receipt and count
/// (`CURRENT_RECEIPTS`): the previous table goes; the current one becomes the previous one and
/// `receipts` collects from now ([`SINCE`], bound to now as text), or — every receipt in it past
/// the retention — goes too and the note with it. Both tables exist after it.
pub fn rotation(newest: Option<i64>, n: i64, now: i64, retention_ms: i64) -> Vec<&'static str> {
    if newest.is_some_and(|at| at + retention_ms > now) {
        return vec![DROP_PREVIOUS, CURRENT_TO_PREVIOUS, CREATE_CURRENT, SINCE];
    }
    match n <= CLEAR_AT_MOST {
        true => vec![DROP_PREVIOUS, CLEAR_CURRENT, CREATE_PREVIOUS, UNNOTE_RECEIPTS],
        false => vec![DROP_PREVIOUS, DROP_CURRENT, CREATE_CURRENT, CREATE_PREVIOUS, UNNOTE_RECEIPTS],
    }
}

/// After a prune of delivered rows: the note follows the oldest left, or goes with the last.
pub const RENOTE_DONE: &str = "INSERT INTO meta(key, value) SELECT 'done_oldest', MIN(finished_at) FROM outbox WHERE status = 'done'
 HAVING COUNT(*) > 0 ON CONFLICT(key) DO UPDATE SET value = excluded.value";

/// Forgets the delivered rows' note when none is left.
pub const UNNOTE_DONE: &str = "DELETE FROM meta WHERE key = 'done_oldest' AND NOT EXISTS (SELECT 1 FROM outbox WHERE status = 'done')";

// Against bundled SQLite (rusqlite), which the wasm32 tests do not have.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
