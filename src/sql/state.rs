//! App state (`crate::state`): one row per key, the team's; and the facts whose state change a
//! unit applied (so the same fact under another receipt changes nothing twice).

/// Migration 2 (`app_state`): the state table and the applied facts. Additive: the previous
/// release never names them.
pub const MIGRATION_2: &str = "CREATE TABLE state (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE state_facts (
  fact TEXT PRIMARY KEY,
  applied_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX state_facts_applied ON state_facts(applied_at)";

/// One value: ?1 key.
pub const GET: &str = "SELECT value FROM state WHERE key = ?1";

/// Entries of a prefix in key order: ?1 prefix (the range's start), ?2 its end (exclusive) or
/// NULL, ?3 the last key already seen or NULL, ?4 limit.
pub const SCAN: &str = "SELECT key, value FROM state
 WHERE key >= ?1 AND (?2 IS NULL OR key < ?2) AND (?3 IS NULL OR key > ?3)
 ORDER BY key LIMIT ?4";

/// How many keys the team holds.
pub const COUNT: &str = "SELECT count(*) AS n FROM state";

/// Stores a value: ?1 key, ?2 JSON, ?3 now.
pub const PUT: &str = "INSERT INTO state(key, value, updated_at) VALUES (?1, ?2, ?3)
 ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at";

/// Stores a remembered answer unless it adds a key past the limit: ?1 key, ?2 JSON, ?3 now,
/// ?4 the most keys. One returned row = stored.
pub const PUT_WITHIN_LIMIT: &str = "INSERT INTO state(key, value, updated_at)
 SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM state WHERE key = ?1) OR (SELECT count(*) FROM state) < ?4
 ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
 RETURNING key";

/// Removes a key: ?1 key.
pub const DELETE: &str = "DELETE FROM state WHERE key = ?1";

/// Claims a fact's state change: ?1 fact, ?2 now. One returned row = first time (apply it).
pub const CLAIM_FACT: &str = "INSERT INTO state_facts(fact, applied_at) VALUES (?1, ?2)
 ON CONFLICT(fact) DO NOTHING RETURNING fact";

/// Forgets old facts (as old as the receipts kept): ?1 cutoff, ?2 limit.
pub const PRUNE_FACTS: &str = "DELETE FROM state_facts WHERE fact IN (
   SELECT fact FROM state_facts WHERE applied_at < ?1 ORDER BY applied_at LIMIT ?2)";

/// The admin API's page of keys: ?1 after this key (or NULL), ?2 limit, ?3 prefix.
pub const PAGE: &str = "SELECT key, value, updated_at, length(CAST(value AS BLOB)) AS bytes FROM state
 WHERE (?1 IS NULL OR key > ?1) AND key >= ?3 AND substr(key, 1, length(?3)) = ?3
 ORDER BY key LIMIT ?2";

// Against bundled SQLite (rusqlite), which the wasm32 tests do not have.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
