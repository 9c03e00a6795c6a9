use super::*;
use crate::sql::ingest;
use rusqlite::{params, Connection};

const DAY: i64 = 86_400_000;

fn db() -> Connection {
    let db = Connection::open_in_memory().unwrap();
    for step in crate::kinds::schema::TEAM.migrations {
        db.execute_batch(step.sql).unwrap();
    }
    db
}

/// Records a receipt as the ingest unit does; true when it is new.
fn receive(db: &Connection, key: &str, at: i64) -> bool {
    let new = db.prepare(ingest::INSERT_RECEIPT).unwrap().query_map(params![key, "event", at], |_| Ok(())).unwrap().count() == 1;
    if new {
        db.execute(NOTE_RECEIPT, params![at.to_string()]).unwrap();
    }
    new
}

fn rotate(db: &Connection, now: i64) {
    let (newest, n): (Option<i64>, i64) = db.query_row(CURRENT_RECEIPTS, [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    for statement in rotation(newest, n, now, DAY) {
        match statement == SINCE {
            true => db.execute(statement, params![now.to_string()]).unwrap(),
            false => db.execute(statement, []).unwrap(),
        };
    }
}

fn since(db: &Connection) -> Option<i64> {
    db.query_row(OLDEST, [], |r| r.get(0)).unwrap()
}

fn count(db: &Connection) -> i64 {
    db.query_row(crate::sql::admin::RECEIPT_COUNT, [], |r| r.get(0)).unwrap()
}

#[test]
fn a_receipt_deduplicates_in_either_table_until_it_is_a_retention_old() {
    let db = db();
    assert!(receive(&db, "Ev1", 0));
    assert_eq!(since(&db), Some(0), "the first receipt starts the table");
    assert!(receive(&db, "Ev2", DAY / 2));
    assert_eq!(since(&db), Some(0), "a later one leaves the note alone");
    rotate(&db, DAY);
    assert_eq!((since(&db), count(&db)), (Some(DAY), 2), "the current table became the previous one");
    assert!(!receive(&db, "Ev2", DAY + 1), "a receipt in the previous table is still a duplicate");
    assert!(receive(&db, "Ev3", DAY + 2));
    rotate(&db, 2 * DAY);
    assert!(!receive(&db, "Ev3", 2 * DAY + 1), "kept a retention at least");
    assert!(receive(&db, "Ev1", 2 * DAY + 1), "a receipt two retentions old is gone");
}

#[test]
fn a_rotation_with_nothing_younger_than_the_retention_leaves_no_receipt_and_no_note() {
    for n in [1, CLEAR_AT_MOST + 2] {
        let db = db();
        for i in 0..n {
            assert!(receive(&db, &format!("Ev{i}"), i));
        }
        rotate(&db, 2 * DAY);
        assert_eq!((since(&db), count(&db)), (None, 0), "{n} receipts");
        assert!(receive(&db, "Ev0", 2 * DAY), "both tables are there to take receipts again");
        assert_eq!(since(&db), Some(2 * DAY));
    }
}

#[test]
fn a_rotation_drops_tables_instead_of_deleting_rows_unless_they_are_few() {
    assert_eq!(rotation(Some(10), 500, DAY, DAY), [DROP_PREVIOUS, CURRENT_TO_PREVIOUS, CREATE_CURRENT, SINCE]);
    assert_eq!(rotation(Some(0), 500, DAY, DAY), [DROP_PREVIOUS, DROP_CURRENT, CREATE_CURRENT, CREATE_PREVIOUS, UNNOTE_RECEIPTS]);
    assert_eq!(rotation(Some(0), 2, DAY, DAY), [DROP_PREVIOUS, CLEAR_CURRENT, CREATE_PREVIOUS, UNNOTE_RECEIPTS]);
    assert_eq!(rotation(None, 0, DAY, DAY), [DROP_PREVIOUS, CLEAR_CURRENT, CREATE_PREVIOUS, UNNOTE_RECEIPTS]);
}
