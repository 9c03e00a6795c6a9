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
mod tests {
    use super::*;
    use rusqlite::{params, Connection};

    fn db() -> Connection {
        let db = Connection::open_in_memory().unwrap();
        for step in crate::sql::migrate::TEAM.migrations {
            db.execute_batch(step.sql).unwrap();
        }
        db
    }

    /// Claims a key as a notify POST does, with its note.
    fn claim(db: &Connection, key: &str, now: i64, expires_at: i64) {
        db.prepare(CLAIM_KEY).unwrap().query_map(params![key, "hash", 202, "{}", None::<i64>, now, expires_at], |_| Ok(())).unwrap().count();
        db.execute(NOTE_KEYS, params![expires_at.to_string()]).unwrap();
    }

    fn noted(db: &Connection) -> Option<i64> {
        db.query_row(crate::sql::lean::OLDEST, [], |r| r.get(2)).unwrap()
    }

    fn keys(db: &Connection) -> i64 {
        db.query_row("SELECT COUNT(*) FROM idempotency_keys", [], |r| r.get(0)).unwrap()
    }

    /// What the housekeeping runs once the note is due.
    fn prune(db: &Connection, now: i64, limit: i64) {
        db.execute(PRUNE_KEYS, params![now, limit]).unwrap();
        db.execute(UNNOTE_KEYS, []).unwrap();
        db.execute(RENOTE_KEYS, []).unwrap();
    }

    #[test]
    fn the_keys_have_no_expiry_index_and_their_note_is_the_first_keys_expiry() {
        let db = db();
        let indexes: i64 = db
            .query_row("SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'idempotency_keys' AND sql IS NOT NULL", [], |r| r.get(0))
            .unwrap();
        assert_eq!(indexes, 0, "only the primary key");
        assert_eq!(noted(&db), None);
        claim(&db, "a", 0, 1_000);
        claim(&db, "b", 10, 1_010);
        assert_eq!(noted(&db), Some(1_000), "a later key leaves the note as it is");
    }

    #[test]
    fn a_prune_deletes_the_expired_keys_and_notes_the_oldest_left_or_none() {
        let db = db();
        for (i, key) in ["a", "b", "c"].iter().enumerate() {
            claim(&db, key, 0, 1_000 * (i as i64 + 1));
        }
        prune(&db, 2_000, 100);
        assert_eq!((keys(&db), noted(&db)), (1, Some(3_000)), "a and b expired; c is left, noted");
        prune(&db, 5_000, 100);
        assert_eq!((keys(&db), noted(&db)), (0, None), "the note goes with the last key");
    }

    #[test]
    fn a_prune_takes_at_most_its_limit_and_the_note_stays_due_for_the_rest() {
        let db = db();
        for key in ["a", "b", "c"] {
            claim(&db, key, 0, 1_000);
        }
        prune(&db, 2_000, 2);
        assert_eq!((keys(&db), noted(&db)), (1, Some(1_000)));
    }

    #[test]
    fn the_migration_notes_the_keys_a_database_already_holds() {
        let db = Connection::open_in_memory().unwrap();
        let steps = crate::sql::migrate::TEAM.migrations;
        for step in steps.iter().filter(|s| s.to < 10) {
            db.execute_batch(step.sql).unwrap();
        }
        db.execute("INSERT INTO idempotency_keys(key, body_hash, status, response, created_at, expires_at) VALUES ('k', 'h', 202, '{}', 0, 7000), ('j', 'h', 202, '{}', 0, 5000)", []).unwrap();
        db.execute_batch(steps.iter().find(|s| s.to == 10).unwrap().sql).unwrap();
        assert_eq!(noted(&db), Some(5_000));
    }
}
