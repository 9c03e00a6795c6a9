//! Streamed answers' checkpoints against real SQLite (bundled, through rusqlite), with the very
//! statements the team actor runs (`slackline::internal::kinds::assistant::sql`): the fence holds only for the
//! row's claimer, and extends its lease; a checkpoint is upserted and forgotten.
#![cfg(not(target_arch = "wasm32"))]

use rusqlite::{params, Connection};
use slackline::internal::kinds::assistant::sql as answers;
use slackline::internal::sql;

const NOW: i64 = 1_000_000;

/// The team schema at the code's version, with one pending row claimed by `token`.
fn claimed(token: &str) -> (Connection, i64) {
    let db = Connection::open_in_memory().unwrap();
    for step in slackline::internal::kinds::schema::TEAM.migrations {
        db.execute_batch(step.sql).unwrap();
    }
    let payload = r#"{"type":"stream_answer","prompt":"p","channel":"D1","thread_ts":"1.0"}"#;
    let id = db
        .query_row(sql::ingest::INSERT_OUTBOX, params!["msg:D1:2.0:reply", "ev:1", "stream", "stream", payload, 6, NOW, Option::<i64>::None, NOW], |r| {
            r.get::<_, i64>(0)
        })
        .unwrap();
    let claimed: Vec<i64> = {
        let mut stmt = db.prepare(sql::outbox::CLAIM).unwrap();
        let rows = stmt.query_map(params![token, NOW + 1_000, NOW, 10], |r| r.get::<_, i64>(0)).unwrap().map(Result::unwrap).collect();
        rows
    };
    assert_eq!(claimed, vec![id]);
    (db, id)
}

fn hold(db: &Connection, id: i64, token: &str, until: i64) -> Option<i64> {
    db.query_row(answers::HOLD_CLAIM, params![id, token, until], |r| r.get(0)).ok()
}

#[test]
fn only_the_claimer_holds_the_fence_and_it_extends_the_lease() {
    let (db, id) = claimed("sweep-a");
    assert_eq!(hold(&db, id, "sweep-b", NOW + 9_000), None, "another sweep's token does not hold");
    assert_eq!(hold(&db, id, "sweep-a", NOW + 9_000), Some(id));
    let expires: i64 = db.query_row("SELECT claim_expires_at FROM outbox WHERE id = ?1", [id], |r| r.get(0)).unwrap();
    assert_eq!(expires, NOW + 9_000);
    // Once the row is done, no one holds it.
    db.execute("UPDATE outbox SET status = 'done', claim_token = NULL WHERE id = ?1", [id]).unwrap();
    assert_eq!(hold(&db, id, "sweep-a", NOW + 10_000), None);
}

#[test]
fn a_checkpoint_is_replaced_and_forgotten() {
    let (db, id) = claimed("sweep-a");
    let key = "msg:D1:2.0:reply";
    db.execute(answers::SAVE, params![id, r#"{"delivered":"a"}"#, NOW, key]).unwrap();
    db.execute(answers::SAVE, params![id, r#"{"delivered":"ab"}"#, NOW + 1, key]).unwrap();
    let kept: String = db.query_row(answers::LOAD, params![id, key], |r| r.get(0)).unwrap();
    assert_eq!(kept, r#"{"delivered":"ab"}"#);
    db.execute(answers::FORGET, [id]).unwrap();
    assert!(db.query_row(answers::LOAD, params![id, key], |r| r.get::<_, String>(0)).is_err());
}

#[test]
fn a_row_that_reuses_an_id_never_resumes_the_answer_left_under_it() {
    let (db, id) = claimed("sweep-a");
    db.execute(answers::SAVE, params![id, r#"{"delivered":"old"}"#, NOW, "msg:D1:2.0:reply"]).unwrap();
    assert!(db.query_row(answers::LOAD, params![id, "msg:D9:5.0:reply"], |r| r.get::<_, String>(0)).is_err(), "another row's key finds nothing");
    db.execute(answers::SAVE, params![id, r#"{"delivered":"new"}"#, NOW, "msg:D9:5.0:reply"]).unwrap();
    let kept: String = db.query_row(answers::LOAD, params![id, "msg:D9:5.0:reply"], |r| r.get(0)).unwrap();
    assert_eq!(kept, r#"{"delivered":"new"}"#, "and its own first checkpoint replaces the left-over one");
}
