//! The alarm's safety net against real SQLite (bundled, through rusqlite), running the very
//! statements the team actor runs ([`slackline::internal::sql`]): `OVERDUE` reckons a row's due time as the
//! sweep's re-arm (`SWEEP_END`) does — a live lease's expiry, a 429 hold's end — and reads only
//! rows whose next attempt is past the grace.
#![cfg(not(target_arch = "wasm32"))]

use rusqlite::{params, Connection};
use slackline::internal::outbox::alarm::overdue;
use slackline::internal::sql;

const NOW: i64 = 1_000_000;
const GRACE: i64 = 5_000;

fn db() -> Connection {
    let db = Connection::open_in_memory().unwrap();
    for step in slackline::internal::kinds::schema::TEAM.migrations {
        db.execute_batch(step.sql).unwrap();
    }
    db
}

/// Queues a row for `target`, next attempt at `next`; returns its id.
fn queue(db: &Connection, key: &str, target: &str, next: i64) -> i64 {
    let payload = r#"{"type":"status","name":"s"}"#;
    db.query_row(sql::ingest::INSERT_OUTBOX, params![key, "op", "slack_api", target, payload, 6, next, Option::<i64>::None, next], |r| r.get(0)).unwrap()
}

/// The net's due time at `NOW`, as the store reads it, then as the net judges it.
fn net(db: &Connection) -> (Option<i64>, Option<i64>) {
    let due: Option<i64> = db.query_row(sql::outbox::OVERDUE, params![NOW, NOW - GRACE], |r| r.get(0)).unwrap();
    (due, overdue(due, NOW, GRACE))
}

/// The sweep's re-arm time at `NOW`.
fn sweep_next(db: &Connection) -> Option<i64> {
    db.query_row(sql::outbox::SWEEP_END, params![NOW, 0, 0, 0], |r| r.get(0)).unwrap()
}

#[test]
fn a_row_due_past_the_grace_is_overdue_at_its_due_time_and_one_due_within_it_is_not_read() {
    let db = db();
    assert_eq!(net(&db), (None, None), "nothing pending");
    queue(&db, "recent", "chat.postMessage", NOW - 1_000);
    assert_eq!(net(&db), (None, None), "due 1 s ago: its own ingest's alarm covers it");
    queue(&db, "old", "chat.postMessage", NOW - 60_000);
    assert_eq!(net(&db), (Some(NOW - 60_000), Some(NOW - 60_000)));
    assert_eq!(sweep_next(&db), Some(NOW - 60_000), "the sweep would re-arm for the same time");
}

#[test]
fn a_live_lease_and_a_hold_move_the_due_time_as_the_sweeps_rearm_does() {
    let db = db();
    let leased = queue(&db, "leased", "chat.postMessage", NOW - 60_000);
    db.execute("UPDATE outbox SET claim_token = 't', claim_expires_at = ?1 WHERE id = ?2", params![NOW + 30_000, leased]).unwrap();
    assert_eq!(net(&db), (Some(NOW + 30_000), None), "a sweep holds it until its lease ends");
    assert_eq!(sweep_next(&db), Some(NOW + 30_000));

    let db = self::db();
    queue(&db, "held", "reactions.add", NOW - 60_000);
    db.execute("INSERT INTO holds(target, until_ms) VALUES ('reactions.add', ?1)", [NOW + 10_000]).unwrap();
    assert_eq!(net(&db), (Some(NOW + 10_000), None), "a 429 hold keeps it back by design");
    assert_eq!(sweep_next(&db), Some(NOW + 10_000));

    let lapsed = queue(&db, "lapsed", "chat.postMessage", NOW - 60_000);
    db.execute("UPDATE outbox SET claim_token = 't', claim_expires_at = ?1 WHERE id = ?2", params![NOW - 20_000, lapsed]).unwrap();
    assert_eq!(net(&db), (Some(NOW - 60_000), Some(NOW - 60_000)), "a lease that lapsed 20 s ago with no sweep: overdue");
}
