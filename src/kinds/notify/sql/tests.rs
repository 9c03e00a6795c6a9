use super::*;
use rusqlite::{params, Connection};

fn db() -> Connection {
    let db = Connection::open_in_memory().unwrap();
    for step in crate::kinds::schema::TEAM.migrations {
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
    let steps = crate::kinds::schema::TEAM.migrations;
    for step in steps.iter().filter(|s| s.to < 10) {
        db.execute_batch(step.sql).unwrap();
    }
    db.execute("INSERT INTO idempotency_keys(key, body_hash, status, response, created_at, expires_at) VALUES ('k', 'h', 202, '{}', 0, 7000), ('j', 'h', 202, '{}', 0, 5000)", []).unwrap();
    db.execute_batch(steps.iter().find(|s| s.to == 10).unwrap().sql).unwrap();
    assert_eq!(noted(&db), Some(5_000));
}
