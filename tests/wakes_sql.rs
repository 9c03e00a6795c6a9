//! The directory's housekeeping wakes against real SQLite (bundled, through rusqlite), running the
//! very statements the directory runs ([`slackline::internal::sql::directory`]): a team's ask keeps the
//! sooner of two times and writes nothing for a later one; the wakes due are read soonest first
//! (one team's only, for a test); a woken team's answer replaces its wake unless it asked for
//! another time meanwhile.
#![cfg(not(target_arch = "wasm32"))]

use rusqlite::{params, Connection};
use slackline::internal::sql;

fn db() -> Connection {
    let db = Connection::open_in_memory().unwrap();
    for step in sql::migrate::DIRECTORY.migrations {
        db.execute_batch(step.sql).unwrap();
    }
    db
}

/// A team asks for a wake by `at`; returns the rows the statement wrote.
fn ask(db: &Connection, team: &str, at: i64) -> usize {
    db.execute(sql::directory::WAKE_BY, params![team, at]).unwrap()
}

fn wake_of(db: &Connection, team: &str) -> Option<i64> {
    db.query_row("SELECT at FROM wakes WHERE team_key = ?1", params![team], |r| r.get(0)).ok()
}

/// The wakes due at `now` (only `team`'s, when given).
fn due(db: &Connection, now: i64, team: Option<&str>) -> Vec<(String, i64)> {
    let mut statement = db.prepare(sql::directory::WAKES_DUE).unwrap();
    let rows = statement.query_map(params![now, 50, team], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    rows.map(Result::unwrap).collect()
}

#[test]
fn an_ask_keeps_the_sooner_time_and_a_later_one_writes_nothing() {
    let db = db();
    assert_eq!(ask(&db, "T1", 5_000), 1, "the first ask is kept");
    assert_eq!(ask(&db, "T1", 9_000), 0, "a later time changes nothing and writes no row");
    assert_eq!(wake_of(&db, "T1"), Some(5_000));
    assert_eq!(ask(&db, "T1", 3_000), 1, "a sooner time is brought forward");
    assert_eq!(wake_of(&db, "T1"), Some(3_000));
}

#[test]
fn the_wakes_due_come_soonest_first_and_a_test_reads_its_team_only() {
    let db = db();
    ask(&db, "T1", 3_000);
    ask(&db, "T2", 1_000);
    ask(&db, "T3", 9_000);
    assert_eq!(due(&db, 5_000, None), vec![("T2".into(), 1_000), ("T1".into(), 3_000)]);
    assert_eq!(due(&db, 5_000, Some("T1")), vec![("T1".into(), 3_000)]);
    assert_eq!(due(&db, 5_000, Some("T3")), vec![], "not due yet");
    let soonest: Option<i64> = db.query_row(sql::directory::NEXT_WAKE, [], |r| r.get(0)).unwrap();
    assert_eq!(soonest, Some(1_000));
}

#[test]
fn a_woken_teams_answer_replaces_its_wake_unless_it_asked_again_meanwhile() {
    let db = db();
    ask(&db, "T1", 1_000);
    db.execute(sql::directory::WAKE_AGAIN, params!["T1", 1_000, 90_000]).unwrap();
    assert_eq!(wake_of(&db, "T1"), Some(90_000), "its next housekeeping");
    db.execute(sql::directory::WAKE_DONE, params!["T1", 90_000]).unwrap();
    assert_eq!(wake_of(&db, "T1"), None, "none due: forgotten");

    ask(&db, "T2", 1_000);
    ask(&db, "T2", 500); // asked for a sooner time while its wake at 1,000 ran
    db.execute(sql::directory::WAKE_AGAIN, params!["T2", 1_000, 90_000]).unwrap();
    db.execute(sql::directory::WAKE_DONE, params!["T2", 1_000]).unwrap();
    assert_eq!(wake_of(&db, "T2"), Some(500), "the ask made meanwhile stands");
}
