//! Rows claimed as they are inserted, against real SQLite (bundled, through rusqlite), running the
//! very statements the team actor runs ([`slackline::sql`]): the ingest inserts a row due now
//! already claimed by its actor instance (`INSERT_OUTBOX_CLAIMED`), that instance's sweep takes it
//! without writing (`ADOPT`) or gives it back to the claim (`RELEASE`), and a new instance's claim
//! takes it over only once its lease has run out, as a row whose attempt may have begun.
#![cfg(not(target_arch = "wasm32"))]

use rusqlite::{params, Connection};
use slackline::sql;

const NOW: i64 = 1_000_000;
const LEASE_MS: i64 = 60_000;
const INSTANCE: &str = "instance-token";

fn db() -> Connection {
    let db = Connection::open_in_memory().unwrap();
    for step in sql::migrate::TEAM.migrations {
        db.execute_batch(step.sql).unwrap();
    }
    db
}

/// Inserts a row for `target` due now, claimed by the instance until `NOW + LEASE_MS`.
fn insert_claimed(db: &Connection, key: &str, target: &str) -> i64 {
    let payload = r#"{"type":"status","name":"s"}"#;
    let values = params![key, "op", "slack_api", target, payload, 6, NOW, Option::<i64>::None, NOW, INSTANCE, NOW + LEASE_MS];
    db.query_row(sql::ingest::INSERT_OUTBOX_CLAIMED, values, |r| r.get(0)).unwrap()
}

fn ids(db: &Connection, statement: &str, values: impl rusqlite::Params) -> Vec<i64> {
    let mut stmt = db.prepare(statement).unwrap();
    let found = stmt.query_map(values, |r| r.get(0)).unwrap().map(Result::unwrap).collect();
    found
}

fn adopt(db: &Connection, token: &str, ids_json: &str, now: i64) -> Vec<i64> {
    ids(db, sql::outbox::ADOPT, params![token, ids_json, now])
}

fn claim(db: &Connection, token: &str, now: i64) -> Vec<i64> {
    ids(db, sql::outbox::CLAIM, params![token, now + LEASE_MS, now, 10])
}

/// (claim token, attempts, last attempt at, uncertain since) of a row.
fn row(db: &Connection, id: i64) -> (Option<String>, i64, Option<i64>, Option<i64>) {
    let query = "SELECT claim_token, attempts, last_attempt_at, uncertain_since FROM outbox WHERE id = ?1";
    db.query_row(query, [id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))).unwrap()
}

#[test]
fn a_row_inserted_claimed_is_counted_as_claimed_and_no_other_claim_takes_it_within_its_lease() {
    let db = db();
    let id = insert_claimed(&db, "k1", "chat.postMessage");
    assert_eq!(row(&db, id), (Some(INSTANCE.into()), 1, Some(NOW), None));
    assert!(claim(&db, "sweep-1", NOW).is_empty(), "its lease is live");
    assert!(claim(&db, "sweep-1", NOW + LEASE_MS - 1).is_empty());
}

#[test]
fn the_instance_adopts_its_rows_by_id_and_token_and_completes_them_with_its_token() {
    let db = db();
    let (a, b) = (insert_claimed(&db, "k1", "chat.postMessage"), insert_claimed(&db, "k2", "reactions.add"));
    assert!(adopt(&db, "another-instance", &format!("[{a},{b}]"), NOW).is_empty(), "another token adopts nothing");
    assert_eq!(adopt(&db, INSTANCE, &format!("[{a}]"), NOW), vec![a], "only the ids asked for");
    assert_eq!(adopt(&db, INSTANCE, &format!("[{a},{b}]"), NOW), vec![a, b]);
    let done = ids(&db, sql::outbox::COMPLETE_DONE, params![a, INSTANCE, NOW + 10, 200, 10, Option::<String>::None, Option::<String>::None]);
    assert_eq!(done, vec![a], "fenced by the instance's token");
    assert!(adopt(&db, INSTANCE, &format!("[{a}]"), NOW + 20).is_empty(), "a completed row is not pending");
}

#[test]
fn a_row_whose_lane_is_held_is_not_adopted_and_once_released_is_claimed_as_a_row_never_attempted() {
    let db = db();
    let id = insert_claimed(&db, "k1", "chat.postMessage");
    db.execute(sql::outbox::HOLD_TARGET, params!["chat.postMessage", NOW + 5_000]).unwrap();
    assert!(adopt(&db, INSTANCE, &format!("[{id}]"), NOW).is_empty(), "held");
    db.execute(sql::outbox::RELEASE, params![INSTANCE, format!("[{id}]")]).unwrap();
    assert_eq!(row(&db, id), (None, 0, None, None), "unclaimed, the attempt given back");
    assert!(claim(&db, "sweep-1", NOW + 1_000).is_empty(), "the claim keeps to the hold");
    assert_eq!(claim(&db, "sweep-1", NOW + 5_000), vec![id]);
    assert_eq!(row(&db, id), (Some("sweep-1".into()), 1, Some(NOW + 5_000), None), "nothing to read back: no attempt began before");
}

#[test]
fn release_leaves_rows_that_are_no_longer_the_instances() {
    let db = db();
    let id = insert_claimed(&db, "k1", "chat.postMessage");
    assert_eq!(claim(&db, "sweep-2", NOW + LEASE_MS), vec![id], "taken over after its lease");
    db.execute(sql::outbox::RELEASE, params![INSTANCE, format!("[{id}]")]).unwrap();
    assert_eq!(row(&db, id).0.as_deref(), Some("sweep-2"), "the new claim stands");
}

#[test]
fn after_the_instance_is_gone_the_claim_takes_its_row_over_once_the_lease_ends_and_reads_it_back() {
    let db = db();
    let id = insert_claimed(&db, "k1", "chat.postMessage");
    assert!(claim(&db, "new-instance-sweep", NOW + LEASE_MS - 1).is_empty());
    assert_eq!(claim(&db, "new-instance-sweep", NOW + LEASE_MS), vec![id]);
    let (token, attempts, _, uncertain_since) = row(&db, id);
    assert_eq!(
        (token.as_deref(), attempts, uncertain_since),
        (Some("new-instance-sweep"), 2, Some(NOW)),
        "its attempt may have begun at the insert: a post is read back"
    );
    let stale = ids(&db, sql::outbox::COMPLETE_DONE, params![id, INSTANCE, NOW + LEASE_MS + 1, 200, 10, Option::<String>::None, Option::<String>::None]);
    assert!(stale.is_empty(), "the old instance's completion is fenced");
}

#[test]
fn a_key_already_queued_inserts_nothing_claimed() {
    let db = db();
    insert_claimed(&db, "k1", "chat.postMessage");
    let payload = r#"{"type":"status","name":"s"}"#;
    let values = params!["k1", "op2", "slack_api", "chat.postMessage", payload, 6, NOW, Option::<i64>::None, NOW, INSTANCE, NOW + LEASE_MS];
    assert!(ids(&db, sql::ingest::INSERT_OUTBOX_CLAIMED, values).is_empty());
}
