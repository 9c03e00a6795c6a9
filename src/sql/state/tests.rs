//! The state statements against bundled SQLite (the engine the Durable Object runs).

use super::*;
use crate::state::prefix_end;
use rusqlite::{params, Connection};

fn db() -> Connection {
    let db = Connection::open_in_memory().unwrap();
    db.execute_batch(MIGRATION_2).unwrap();
    db
}

fn put(db: &Connection, key: &str, value: &str) {
    db.execute(PUT, params![key, value, 1]).unwrap();
}

fn scan(db: &Connection, prefix: &str, after: Option<&str>, limit: i64) -> Vec<String> {
    let mut statement = db.prepare(SCAN).unwrap();
    let keys = statement.query_map(params![prefix, prefix_end(prefix), after, limit], |row| row.get(0)).unwrap();
    keys.collect::<rusqlite::Result<_>>().unwrap()
}

#[test]
fn a_scan_is_the_prefix_range_in_key_order_paged_by_the_last_key() {
    let db = db();
    for key in ["incident:2", "incident:10", "incident;", "incidenT:1", "incident:1", "other"] {
        put(&db, key, "1");
    }
    assert_eq!(scan(&db, "incident:", None, 10), vec!["incident:1", "incident:10", "incident:2"]);
    assert_eq!(scan(&db, "incident:", None, 2), vec!["incident:1", "incident:10"]);
    assert_eq!(scan(&db, "incident:", Some("incident:10"), 10), vec!["incident:2"]);
    assert_eq!(scan(&db, "", None, 10).len(), 6, "an empty prefix is every key");
}

#[test]
fn a_put_replaces_and_a_delete_removes() {
    let db = db();
    put(&db, "k", "1");
    put(&db, "k", "2");
    db.execute(DELETE, params!["missing"]).unwrap();
    let value: String = db.query_row(GET, params!["k"], |row| row.get(0)).unwrap();
    assert_eq!(value, "2");
    db.execute(DELETE, params!["k"]).unwrap();
    assert_eq!(db.query_row(COUNT, [], |row| row.get::<_, i64>(0)).unwrap(), 0);
}

#[test]
fn a_remembered_answer_adds_no_key_past_the_limit_but_may_replace_one() {
    let db = db();
    put(&db, "a", "1");
    put(&db, "b", "1");
    let stored = |key: &str| db.prepare(PUT_WITHIN_LIMIT).unwrap().query_map(params![key, "{}", 2, 2], |_| Ok(())).unwrap().count();
    assert_eq!(stored("c"), 0, "a third key is refused at a limit of two");
    assert_eq!(stored("a"), 1, "an existing key is replaced");
    let value: String = db.query_row(GET, params!["a"], |row| row.get(0)).unwrap();
    assert_eq!(value, "{}");
}

#[test]
fn a_fact_is_claimed_once() {
    let db = db();
    let claim = |fact: &str| db.prepare(CLAIM_FACT).unwrap().query_map(params![fact, 5], |_| Ok(())).unwrap().count();
    assert_eq!(claim("msg:C1:1.2"), 1);
    assert_eq!(claim("msg:C1:1.2"), 0, "the same fact again applies nothing");
    db.execute(PRUNE_FACTS, params![6, 10]).unwrap();
    assert_eq!(claim("msg:C1:1.2"), 1, "a pruned fact is forgotten");
}

#[test]
fn the_admin_page_lists_keys_of_a_prefix_with_their_sizes_in_bytes() {
    let db = db();
    put(&db, "a:1", "\"é\"");
    put(&db, "b:1", "1");
    let mut statement = db.prepare(PAGE).unwrap();
    let rows: Vec<(String, i64)> =
        statement.query_map(params![None::<String>, 10, "a:"], |row| Ok((row.get(0)?, row.get(3)?))).unwrap().map(Result::unwrap).collect();
    assert_eq!(rows, vec![("a:1".to_string(), 4)]);
}
