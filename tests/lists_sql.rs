//! Slack Lists' statements against real SQLite (bundled, through rusqlite), with the very text the
//! team actor runs (`slackline::internal::kinds::lists::sql`) on the schema the code writes: which index each
//! lookup uses now that records keep one partial index (migration 11, `lean_records`), the
//! record's one write per PUT (its sync job counted in the same statement), and a reconciliation
//! pass that writes only the records it changes yet marks missing exactly what it did not see.
#![cfg(not(target_arch = "wasm32"))]

use rusqlite::{params, Connection};
use slackline::internal::kinds::lists::sql as lists;

/// The team schema at the code's version, with `n` records of List `F1`, every other one linked.
fn records(n: usize) -> Connection {
    let db = Connection::open_in_memory().unwrap();
    for step in slackline::internal::kinds::schema::TEAM.migrations {
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

/// The records `RECORD_SEEN` wrote (returned) for a linked row listed in pass `run`.
fn seen(db: &Connection, record: &str, run: i64, archived: i64, force: i64) -> bool {
    db.query_row(lists::RECORD_SEEN, params!["F1", record, run, archived, force], |_| Ok(())).is_ok()
}

#[test]
fn a_pass_writes_only_the_records_it_changes_and_marks_missing_only_what_neither_its_list_nor_seen_run_holds() {
    let db = records(8); // r0000, r0002, r0004, r0006 linked at 2
    db.execute("UPDATE records SET state = 'missing' WHERE record_id = 'r0006'", []).unwrap();
    assert!(!seen(&db, "r0000", 7, 0, 0), "listed as it was: not written (the pass keeps it in its list)");
    assert!(seen(&db, "r0002", 7, 1, 0), "archived in Slack: written");
    assert!(seen(&db, "r0006", 7, 0, 0), "back from missing: written");
    assert!(seen(&db, "r0004", 7, 0, 1), "past the list's room: written whatever");
    let state = |r: &str| db.query_row("SELECT state FROM records WHERE record_id = ?1", [r], |row| row.get::<_, String>(0)).unwrap();
    assert_eq!(state("r0006"), "synced");
    let missing = |list: &str| -> Vec<String> {
        let mut stmt = db.prepare(lists::MARK_MISSING).unwrap();
        let gone = stmt.query_map(params!["F1", 7, 10, list], |r| r.get::<_, String>(0)).unwrap().map(Result::unwrap).collect();
        gone
    };
    assert_eq!(missing(r#"["r0000"]"#), Vec::<String>::new(), "seen by the list or by seen_run: none missing");
    assert_eq!(missing("[]"), vec!["r0000".to_string()], "not in the list, no seen_run of this pass: missing");
    let written: i64 = db.query_row("SELECT count(*) FROM records WHERE seen_run = 7", [], |r| r.get(0)).unwrap();
    assert_eq!(written, 3);
}

#[test]
fn a_human_edit_already_noted_writes_nothing() {
    let db = records(2);
    assert_eq!(db.execute(lists::RECORD_HUMAN_EDITED, params!["F1", "r0000", "UHUMAN"]).unwrap(), 1);
    assert_eq!(db.execute(lists::RECORD_HUMAN_EDITED, params!["F1", "r0000", "UHUMAN"]).unwrap(), 0, "the same editor again");
    assert_eq!(db.execute(lists::RECORD_HUMAN_EDITED, params!["F1", "r0000", "UOTHER"]).unwrap(), 1, "another editor");
}

/// `MARK_MISSING` as the releases before migration 11 run it, verbatim (they know no seen list):
/// linked records without this pass's `seen_run`, linked before the pass's `started_at`.
const MARK_MISSING_BEFORE_11: &str = "UPDATE records SET state = 'missing'
 WHERE list_id = ?1 AND row_id IS NOT NULL AND (seen_run IS NULL OR seen_run <> ?2) AND linked_at < ?3
   AND state NOT IN ('deleted', 'missing') RETURNING record_id, row_id";

#[test]
fn a_release_before_the_seen_list_that_ends_a_pass_this_one_began_marks_nothing_missing() {
    let db = records(8); // r0000, r0002, r0004, r0006 linked at 2
    let run: i64 = db.query_row(lists::QUEUE_RUN, params!["F1", "schedule", 5], |r| r.get(0)).unwrap();
    let all_seen = r#"["r0000","r0002","r0004","r0006"]"#;
    db.execute(lists::RUN_PAGE, params![run, 10, "active", "page2", "{}", "[]", all_seen, None::<i64>]).unwrap();
    let (started_at, begun_at): (i64, i64) =
        db.query_row("SELECT started_at, begun_at FROM reconcile_runs WHERE id = ?1", [run], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    assert_eq!((started_at, begun_at), (lists::OLDER_RELEASES_START, 10));
    let mark_before_11 = |start: i64| -> usize {
        let mut stmt = db.prepare(MARK_MISSING_BEFORE_11).unwrap();
        let marked = stmt.query_map(params!["F1", run, start], |r| r.get::<_, String>(0)).unwrap().count();
        marked
    };
    assert_eq!(mark_before_11(started_at), 0, "the older release reads the pass's start where it reads it: nothing is missing");
    assert_eq!(mark_before_11(begun_at), 4, "with the real start it would take every record this pass saw for missing");
}
