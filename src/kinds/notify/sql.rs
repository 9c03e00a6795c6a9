//! The notify API: idempotency keys, Slack's answers to posts, status messages.

// ---- The notify API (`crate::kinds::notify`, `runtime::store::notify`) ----

/// Forgets an expired idempotency key: ?1 key, ?2 now.
pub const EXPIRE_KEY: &str = "DELETE FROM idempotency_keys WHERE key = ?1 AND expires_at <= ?2";

/// Notes when the oldest idempotency key expires (?1, as text: meta values are TEXT), unless one
/// is noted: writes nothing while the note stands. Run with each new key (once per actor instance:
/// `crate::sql::known`); the housekeeping scans the keys once the note is due (see
/// [`MIGRATION_10`]).
pub const NOTE_KEYS: &str = "INSERT INTO meta(key, value) VALUES ('keys_oldest', ?1) ON CONFLICT(key) DO NOTHING";

/// After a prune of expired keys: the note follows the oldest key left, or goes with the last.
pub const RENOTE_KEYS: &str = "INSERT INTO meta(key, value) SELECT 'keys_oldest', MIN(expires_at) FROM idempotency_keys
 HAVING COUNT(*) > 0 ON CONFLICT(key) DO UPDATE SET value = excluded.value";

/// Forgets the keys' note when no key is left.
pub const UNNOTE_KEYS: &str = "DELETE FROM meta WHERE key = 'keys_oldest' AND NOT EXISTS (SELECT 1 FROM idempotency_keys)";

/// Deletes expired keys, at most ?2 of them: ?1 now. A scan (the keys have no expiry index since
/// [`MIGRATION_10`]), run only when the keys' note says one has expired.
pub const PRUNE_KEYS: &str = "DELETE FROM idempotency_keys WHERE key IN (
   SELECT key FROM idempotency_keys WHERE expires_at <= ?1 LIMIT ?2)";

/// Migration 10 (`keys_unindexed`): the idempotency keys lose their expiry index
/// (`idempotency_by_expiry`), which cost a row written with every key (issue 39: a notify POST
/// wrote 9 rows over its life, now 8). What it served is done another way: the sweep's end reads
/// when housekeeping next has keys to prune from a note (`meta.keys_oldest`, [`NOTE_KEYS`]), as it
/// does for the delivered rows, and the housekeeping finds the expired keys by a scan, once a
/// bucket's worth is due ([`PRUNE_KEYS`]). A key is still found by its primary key, and an expired
/// one is still forgotten when it is used again ([`EXPIRE_KEY`]). The note is taken from the keys
/// already stored.
///
/// Index-only, so the floor stays: a release from before it runs correctly on the database after
/// it (its lookups use the primary key), only its sweeps scan the keys to find the oldest expiry
/// (`MIN(expires_at)`), which the index answered at once: after a rollback, each sweep of a team
/// with many live keys reads them all (rows read, not written) until the release is deployed again.
pub const MIGRATION_10: &str = "DROP INDEX IF EXISTS idempotency_by_expiry;
INSERT INTO meta(key, value) SELECT 'keys_oldest', MIN(expires_at) FROM idempotency_keys HAVING COUNT(*) > 0
 ON CONFLICT(key) DO UPDATE SET value = excluded.value";

/// A stored key: ?1 key.
pub const IDEMPOTENCY_KEY: &str = "SELECT body_hash, status, response FROM idempotency_keys WHERE key = ?1";

/// Claims a key with its answer (the UNIQUE key is the atomic claim): ?1 key, ?2 body hash,
/// ?3 status, ?4 answer, ?5 message row or NULL, ?6 now, ?7 expires at. One returned row = ours.
pub const CLAIM_KEY: &str = "INSERT INTO idempotency_keys(key, body_hash, status, response, message_id, created_at, expires_at)
 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT(key) DO NOTHING RETURNING key";

/// Migration 5 (`posted_on_row`): a notify message's post (Slack's `channel` and `ts`) is kept on
/// its own outbox row, set by the fenced completion as done in the same statement
/// ([`crate::sql::outbox::COMPLETE_DONE`]): no `slack_results` row to insert, and none to delete
/// when the row is pruned (2 rows written fewer per notify post). Additive: the previous release
/// never names the columns. Rows delivered before it keep their `slack_results` row, which
/// [`MESSAGE`] still reads (and the housekeeping still prunes). After a rollback to the release
/// before, a message this release delivered shows no `ts` in that release's `GET …/messages/{id}`.
pub const MIGRATION_5: &str = "ALTER TABLE outbox ADD COLUMN posted_channel TEXT;
ALTER TABLE outbox ADD COLUMN posted_ts TEXT";

/// Keeps what Slack answered a post, for a row not completed as done here (the completion as done
/// carries it on the row): ?1 row id, ?2 channel, ?3 ts.
pub const SAVE_RESULT: &str = "INSERT INTO slack_results(row_id, channel, ts) VALUES (?1, ?2, ?3)
 ON CONFLICT(row_id) DO UPDATE SET channel = excluded.channel, ts = excluded.ts";

/// A notify message: ?1 row id.
pub const MESSAGE: &str = "SELECT o.id, o.idem_key, o.status, o.attempts, o.reason, o.last_error, o.last_status, o.created_at,
   o.finished_at, COALESCE(o.posted_channel, r.channel) AS channel, COALESCE(o.posted_ts, r.ts) AS ts
 FROM outbox o LEFT JOIN slack_results r ON r.row_id = o.id
 WHERE o.id = ?1 AND o.effect = 'notify'";

/// A status message: ?1 name.
pub const STATUS: &str = "SELECT name, channel, text, blocks, version, posted_version, ts, post_channel, syncs, created_at, updated_at
 FROM status_messages WHERE name = ?1";

/// Sets a status message's newest state: ?1 name, ?2 channel, ?3 text, ?4 blocks JSON or NULL,
/// ?5 version, ?6 now. Only a higher version changes it; one returned row = changed.
pub const PUT_STATUS: &str = "INSERT INTO status_messages(name, channel, text, blocks, version, created_at, updated_at)
 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)
 ON CONFLICT(name) DO UPDATE SET channel = excluded.channel, text = excluded.text, blocks = excluded.blocks,
   version = excluded.version, updated_at = excluded.updated_at
 WHERE excluded.version > status_messages.version RETURNING syncs";

/// Counts one more queued sync of a status message: ?1 name. Returns the new count.
pub const BUMP_STATUS_SYNCS: &str = "UPDATE status_messages SET syncs = syncs + 1 WHERE name = ?1 RETURNING syncs";

/// Slack shows a status message at `version`: ?1 name, ?2 ts, ?3 channel, ?4 version.
pub const STATUS_POSTED: &str = "UPDATE status_messages SET ts = COALESCE(ts, ?2), post_channel = COALESCE(post_channel, ?3),
   posted_version = MAX(posted_version, ?4) WHERE name = ?1";

// Against bundled SQLite (rusqlite), which the wasm32 tests do not have.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
