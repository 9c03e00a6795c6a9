//! Scheduled rows against real SQLite (bundled, through rusqlite), running the very statements
//! the team actor runs ([`slackline::internal::sql`], and the schedules' own,
//! `slackline::internal::kinds::schedule::sql`): a row not due yet is neither claimed nor counted as
//! waiting, but arms the alarm; a cancel and a claim never both take a row (one or the other);
//! a key's rows are found through the UNIQUE index on `idem_key`.
#![cfg(not(target_arch = "wasm32"))]

use rusqlite::types::Null;
use rusqlite::{params, Connection};
use slackline::internal::kinds::schedule::{self, all_range, key_range, row_key};
use slackline::internal::sql;

const NOW: i64 = 1_000_000;
const LEASE_MS: i64 = 1_000;

/// A database with one scheduled row of `key`, due at `due` (its `created_at`, as the store
/// queues it). Returns it and the row's id.
fn with_scheduled(key: &str, due: i64) -> (Connection, i64) {
    let db = Connection::open_in_memory().unwrap();
    for step in slackline::internal::kinds::schema::TEAM.migrations {
        db.execute_batch(step.sql).unwrap();
    }
    let payload = r#"{"type":"scheduled","key":"k","when":{"due":{"at":0}},"effect":{"type":"status","name":"s"}}"#;
    let id = db
        .query_row(
            sql::ingest::INSERT_OUTBOX,
            params![row_key(key, "ix:T1"), "ix:T1", "slack_api", "chat.postMessage", payload, 6, due, Option::<i64>::None, due],
            |r| r.get::<_, i64>(0),
        )
        .unwrap();
    (db, id)
}

fn ids(db: &Connection, statement: &str, params: impl rusqlite::Params) -> Vec<i64> {
    let mut stmt = db.prepare(statement).unwrap();
    let found = stmt.query_map(params, |r| r.get::<_, i64>(0)).unwrap().map(Result::unwrap).collect();
    found
}

fn status(db: &Connection, id: i64) -> (String, Option<String>) {
    db.query_row("SELECT status, reason FROM outbox WHERE id = ?1", [id], |r| Ok((r.get(0)?, r.get(1)?))).unwrap()
}

#[test]
fn a_row_not_due_yet_is_not_claimed_nor_waiting_but_arms_the_alarm_at_its_due_time() {
    let (db, id) = with_scheduled("remind", NOW + 60_000);
    assert!(ids(&db, sql::outbox::CLAIM, params!["t1", NOW + LEASE_MS, NOW, 10]).is_empty());
    let (next, oldest): (Option<i64>, Option<i64>) = db.query_row(sql::outbox::SWEEP_END, [NOW, 0, 0, 0], |r| Ok((r.get(0)?, r.get(5)?))).unwrap();
    assert_eq!(next, Some(NOW + 60_000), "the alarm is armed to the due time");
    assert_eq!(oldest, None, "a row not due yet has not waited: no pending_too_old alert");
    let (n, later): (i64, i64) = db.query_row(sql::admin::PENDING_SUMMARY, [NOW], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    assert_eq!((n, later), (1, 1), "pending, and scheduled for later");
    assert_eq!(ids(&db, sql::outbox::CLAIM, params!["t1", NOW + 60_000 + LEASE_MS, NOW + 60_000, 10]), vec![id], "claimed once due");
}

#[test]
fn a_cancel_before_the_claim_parks_the_row_and_the_claim_then_takes_nothing() {
    let (db, id) = with_scheduled("remind", NOW);
    assert_eq!(ids(&db, schedule::sql::CANCEL, params![id, NOW, "cancelled"]), vec![id]);
    assert!(ids(&db, sql::outbox::CLAIM, params!["t1", NOW + LEASE_MS, NOW, 10]).is_empty(), "a cancelled row is never performed");
    assert_eq!(status(&db, id), ("done".into(), Some("cancelled".into())), "ended, not performed, nothing to decide");
}

#[test]
fn a_claim_before_the_cancel_wins_the_cancel_changes_nothing_and_the_completion_is_stored() {
    let (db, id) = with_scheduled("remind", NOW);
    assert_eq!(ids(&db, sql::outbox::CLAIM, params!["t1", NOW + LEASE_MS, NOW, 10]), vec![id]);
    assert!(ids(&db, schedule::sql::CANCEL, params![id, NOW + 10, "cancelled"]).is_empty(), "a live lease: the cancel is too late");
    assert_eq!(ids(&db, sql::outbox::COMPLETE_DONE, params![id, "t1", NOW + 20, 200, 12, Null, Null]), vec![id], "the firing is not fenced");
    assert_eq!(status(&db, id), ("done".into(), None));
    assert!(ids(&db, schedule::sql::CANCEL, params![id, NOW + 30, "cancelled"]).is_empty(), "a fired row: a no-op");
}

#[test]
fn a_cancel_after_the_lease_expired_parks_the_row_and_the_late_completion_is_fenced() {
    let (db, id) = with_scheduled("remind", NOW);
    ids(&db, sql::outbox::CLAIM, params!["t1", NOW + LEASE_MS, NOW, 10]);
    assert_eq!(ids(&db, schedule::sql::CANCEL, params![id, NOW + LEASE_MS, "cancelled"]), vec![id]);
    assert!(ids(&db, sql::outbox::COMPLETE_DONE, params![id, "t1", NOW + LEASE_MS + 1, 200, 12, Null, Null]).is_empty(), "fenced: the record stays cancelled");
    assert_eq!(status(&db, id).1.as_deref(), Some("cancelled"));
}

#[test]
fn a_keys_rows_are_found_through_the_unique_index_and_only_its_own() {
    let (db, id) = with_scheduled("remind:7", NOW);
    let (other, _) = (ids(&db, sql::ingest::INSERT_OUTBOX, params![row_key("remind:70", "f"), "f", "e", "t", "{}", 6, NOW, Option::<i64>::None, NOW]), ());
    assert_eq!(other.len(), 1);
    let (low, high) = key_range("remind:7");
    assert_eq!(ids(&db, schedule::sql::PENDING_IN_RANGE, params![low, high]), vec![id]);
    let plan: Vec<String> = db
        .prepare(&format!("EXPLAIN QUERY PLAN {}", schedule::sql::PENDING_IN_RANGE))
        .unwrap()
        .query_map(params![low, high], |r| r.get::<_, String>(3))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(plan.iter().any(|step| step.contains("sqlite_autoindex_outbox")), "{plan:#?}");
    let (all_low, all_high) = all_range();
    assert_eq!(ids(&db, schedule::sql::LIST_PENDING, params![all_low, all_high, 10]).len(), 2);
}

#[test]
fn a_test_clocks_sweep_makes_the_schedules_due_by_then_due_now_and_the_claim_takes_them() {
    let day = 86_400_000;
    let (db, id) = with_scheduled("digest", NOW + day);
    let (low, high) = all_range();
    assert!(ids(&db, schedule::sql::DUE_BY, params![low, high, NOW, NOW + day - 1]).is_empty(), "not due by a clock a ms short of it");
    assert_eq!(ids(&db, schedule::sql::DUE_BY, params![low, high, NOW, NOW + day]), vec![id], "due by its own time");
    db.execute(schedule::sql::MAKE_DUE, params![id, NOW]).unwrap();
    let (next, created): (i64, i64) =
        db.query_row("SELECT next_attempt_at, created_at FROM outbox WHERE id = ?1", [id], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    assert_eq!((next, created), (NOW, NOW + day), "due now; it entered the queue at its own due time");
    assert!(ids(&db, schedule::sql::DUE_BY, params![low, high, NOW, NOW + day]).is_empty(), "already due: nothing to move");
    assert_eq!(ids(&db, sql::outbox::CLAIM, params!["t1", NOW + LEASE_MS, NOW, 10]), vec![id], "the sweep's claim takes it now");
    // A row a live claim holds is left alone; once its lease has expired it is not.
    let (db, id) = with_scheduled("digest", NOW + day);
    db.execute("UPDATE outbox SET claim_token = 't0', claim_expires_at = ?1 WHERE id = ?2", params![NOW + LEASE_MS, id]).unwrap();
    assert!(ids(&db, schedule::sql::DUE_BY, params![low, high, NOW, NOW + day]).is_empty());
    assert_eq!(ids(&db, schedule::sql::DUE_BY, params![low, high, NOW + LEASE_MS, NOW + day]), vec![id]);
    // Rows outside every schedule's key range are not schedules.
    let db = with_scheduled("digest", NOW + day).0;
    assert_eq!(ids(&db, sql::ingest::INSERT_OUTBOX, params!["fx:T1|f", "f", "e", "t", "{}", 6, NOW + day, Option::<i64>::None, NOW]).len(), 1);
    assert_eq!(ids(&db, schedule::sql::DUE_BY, params![low, high, NOW, NOW + day]).len(), 1);
}
