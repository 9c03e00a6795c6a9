//! Rows claimed as they are inserted, against real SQLite (bundled, through rusqlite), running the
//! very statements the team actor runs ([`slackline::internal::sql`]): the ingest inserts a row due now
//! already claimed by its actor instance (`INSERT_OUTBOX_CLAIMED`), that instance's sweep takes it
//! without writing (`ADOPT`) or gives it back to the claim (`RELEASE`), and a new instance's claim
//! takes it over only once its lease has run out, as a row whose attempt may have begun — unless
//! it lies past the first `MAX_DELIVERY_CONCURRENCY` rows of its token, where no attempt can have
//! begun: the new instance gives those back at once (`UNTOUCHED_DEAD_CLAIMS`, `RELEASE_UNTOUCHED`).
#![cfg(not(target_arch = "wasm32"))]

use rusqlite::{params, Connection};
use slackline::internal::sql;

const NOW: i64 = 1_000_000;
const LEASE_MS: i64 = 60_000;
const INSTANCE: &str = "instance-token";

fn db() -> Connection {
    let db = Connection::open_in_memory().unwrap();
    for step in slackline::internal::kinds::schema::TEAM.migrations {
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

/// What a new instance gives back at once of what dead instances claimed: `UNTOUCHED_DEAD_CLAIMS`
/// read as it is, then `RELEASE_UNTOUCHED` of those ids; returns them.
fn take_over(db: &Connection, new_instance: &str, now: i64) -> Vec<i64> {
    let untouched = ids(db, sql::outbox::UNTOUCHED_DEAD_CLAIMS, params![new_instance, slackline::internal::config::MAX_DELIVERY_CONCURRENCY, now]);
    let json = serde_json::to_string(&untouched).unwrap();
    db.execute(sql::outbox::RELEASE_UNTOUCHED, params![json, new_instance]).unwrap();
    untouched
}

#[test]
fn a_new_instance_sends_at_once_what_a_dead_one_never_attempted_and_reads_back_only_the_rest() {
    let db = db();
    // The dead instance inserted 12 rows claimed, adopted the first 3 (in flight when it died:
    // adoption writes nothing), and one of them was done.
    let rows: Vec<i64> = (0..12).map(|i| insert_claimed(&db, &format!("k{i}"), &format!("C{i}"))).collect();
    assert_eq!(adopt(&db, INSTANCE, &format!("[{},{},{}]", rows[0], rows[1], rows[2]), NOW), rows[..3].to_vec());
    ids(&db, sql::outbox::COMPLETE_DONE, params![rows[0], INSTANCE, NOW + 10, 200, 10, Option::<String>::None, Option::<String>::None]);
    // A sweep of it had claimed 8 rows of its own (3 of them begun: its token says it ran 3 at
    // once), none finished. The instance's own token is an older release's, which does not say.
    let claimed: Vec<i64> = (0..8).map(|i| insert(&db, &format!("s{i}"))).collect();
    assert_eq!(ids(&db, sql::outbox::CLAIM, params!["3:dead-sweep", NOW + LEASE_MS, NOW, 8]), claimed);
    // The new instance has inserted a row claimed of its own since it started.
    let mine = {
        let payload = r#"{"type":"status","name":"s"}"#;
        let values = params!["mine", "op", "slack_api", "C-mine", payload, 6, NOW, Option::<i64>::None, NOW, "new-instance", NOW + LEASE_MS];
        db.query_row(sql::ingest::INSERT_OUTBOX_CLAIMED, values, |r| r.get::<_, i64>(0)).unwrap()
    };

    let (max, ran) = (slackline::internal::config::MAX_DELIVERY_CONCURRENCY as usize, 3);
    let released = take_over(&db, "new-instance", NOW + 1);
    let expected: Vec<i64> = rows[1 + max..].iter().chain(&claimed[ran..]).copied().collect();
    assert_eq!(released, expected, "past the first pending rows of each dead token, as many as it ran at once: never attempted");
    for id in &released {
        assert_eq!(row(&db, *id).0, None, "given back to the claim");
    }
    assert_eq!(row(&db, mine).0.as_deref(), Some("new-instance"), "the new instance's own row is left alone");

    // Claimed at once, with nothing to read back; the rest wait for their claim to run out.
    let now = NOW + 1_000;
    let mut taken = claim_many(&db, "new-sweep", now, 50);
    taken.sort();
    assert_eq!(taken, expected);
    assert!(taken.iter().all(|id| row(&db, *id).3.is_none()), "no post of these is read back: none was sent");
    assert_eq!(row(&db, rows[1 + max]).1, 1, "the attempt the dead claim counted was given back, this claim's counted");
    let mut later = claim_many(&db, "new-sweep-2", NOW + LEASE_MS, 50);
    later.sort();
    let mut first: Vec<i64> = rows[1..1 + max].iter().chain(&claimed[..ran]).chain([&mine]).copied().collect();
    first.sort();
    assert_eq!(later, first, "the first rows of each dead token (and the new instance's own), once their claim ran out");
    assert!(later.iter().all(|id| row(&db, *id).3 == Some(NOW)), "read back: their attempt may have begun");
}

/// A row due now, not claimed.
fn insert(db: &Connection, key: &str) -> i64 {
    let payload = r#"{"type":"status","name":"s"}"#;
    db.query_row(
        "INSERT INTO outbox(idem_key, op_key, effect, target, payload, status, attempts, max_attempts, next_attempt_at, created_at)
         VALUES (?1, 'op', 'slack_api', ?1, ?2, 'pending', 0, 6, ?3, ?3) RETURNING id",
        params![key, payload, NOW],
        |r| r.get(0),
    )
    .unwrap()
}

fn claim_many(db: &Connection, token: &str, now: i64, limit: i64) -> Vec<i64> {
    ids(db, sql::outbox::CLAIM, params![token, now + LEASE_MS, now, limit])
}
