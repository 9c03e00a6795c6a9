//! Slack Lists' statements against real SQLite (bundled, through rusqlite), with the very text the
//! team actor runs (`slackline::kinds::lists::sql`) on the schema the code writes: which index each
//! lookup uses now that records keep one partial index (migration 11, `lean_records`), and the
//! record's one write per PUT (its sync job counted in the same statement).
#![cfg(not(target_arch = "wasm32"))]

use rusqlite::{params, Connection};
use slackline::kinds::lists::sql as lists;
use slackline::sql;

/// The team schema at the code's version, with `n` records of List `F1`, every other one linked.
fn records(n: usize) -> Connection {
    let db = Connection::open_in_memory().unwrap();
    for step in sql::migrate::TEAM.migrations {
        db.execute_batch(step.sql).unwrap();
    }
    for i in 0..n {
        db.query_row(lists::PUT_RECORD, params!["F1", format!("r{i:04}"), "{}", 1, 1], |_| Ok(())).unwrap();
        if i % 2 == 0 {
            db.execute(lists::RECORD_LINKED, params!["F1", format!("r{i:04}"), format!("Rec{i}"), 1, 2]).unwrap();
        }
    }
    db.execute_batch("ANALYZE").unwrap();
    db
}

/// The query plan of `statement`, one line per step, as SQLite's `EXPLAIN QUERY PLAN` prints it.
fn query_plan(db: &Connection, statement: &str, params: impl rusqlite::Params) -> Vec<String> {
    let mut stmt = db.prepare(&format!("EXPLAIN QUERY PLAN {statement}")).unwrap();
    stmt.query_map(params, |r| r.get::<_, String>(3)).unwrap().map(Result::unwrap).collect()
}

#[test]
fn a_row_is_looked_up_through_the_partial_index_of_linked_records() {
    let db = records(200);
    let plan = query_plan(&db, lists::RECORD_BY_ROW, params!["F1", "Rec4"]);
    assert!(plan.iter().any(|s| s.contains("USING COVERING INDEX records_linked") || s.contains("USING INDEX records_linked")), "{plan:#?}");
    let found: String = db.query_row(lists::RECORD_BY_ROW, params!["F1", "Rec4"], |r| r.get(0)).unwrap();
    assert_eq!(found, "r0004");
    assert!(db.query_row(lists::RECORD_BY_ROW, params!["F1", "Rec5"], |r| r.get::<_, String>(0)).is_err(), "r0005 was never linked");
}

#[test]
fn a_lists_records_by_state_are_read_by_the_primary_key_not_a_scan_of_every_list() {
    let db = records(200);
    for (statement, plan) in [
        ("LIST_STATES", query_plan(&db, lists::LIST_STATES, params!["F1"])),
        ("RECORDS_PAGE", query_plan(&db, lists::RECORDS_PAGE, params!["F1", "pending", "", 50])),
        ("RELEASE_UNCERTAIN", query_plan(&db, lists::RELEASE_UNCERTAIN, params!["F1", 5])),
    ] {
        assert!(plan.iter().any(|s| s.contains("records USING PRIMARY KEY (list_id=?")), "{statement}: {plan:#?}");
    }
    let states: Vec<(String, i64)> =
        db.prepare(lists::LIST_STATES).unwrap().query_map(params!["F1"], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect();
    assert_eq!(states, vec![("pending".into(), 100), ("synced".into(), 100)]);
}

#[test]
fn a_put_counts_its_sync_job_in_the_same_write() {
    let db = records(0);
    let syncs = |fields: &str, queued: i64| db.query_row(lists::PUT_RECORD, params!["F1", "r1", fields, 10, queued], |r| r.get::<_, i64>(0)).unwrap();
    assert_eq!(syncs("{\"a\":1}", 1), 1, "a new record's first sync is job 1");
    assert_eq!(syncs("{\"a\":2}", 0), 1, "a job still waits: not counted");
    assert_eq!(syncs("{\"a\":3}", 1), 2, "a new job: counted");
    let (version, state): (i64, String) =
        db.query_row("SELECT version, state FROM records WHERE record_id = 'r1'", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    assert_eq!((version, state.as_str()), (3, "pending"));
}
