use super::*;
use crate::kinds::schema::TEAM;
use crate::sql::schema::SCHEMA;
use rusqlite::{params, Connection};

/// The migrations against bundled SQLite, each step in one transaction with its stamp, as the
/// Durable Object's adapter runs them in `transactionSync`.
struct Sqlite(Connection);

impl Database for Sqlite {
    type Error = rusqlite::Error;

    fn user_tables(&self) -> rusqlite::Result<Vec<String>> {
        let mut statement = self.0.prepare(USER_TABLES)?;
        let names = statement.query_map([], |row| row.get(0))?;
        names.collect()
    }

    fn stamp(&self) -> rusqlite::Result<Option<String>> {
        let mut statement = self.0.prepare(READ_STAMP)?;
        let mut rows = statement.query_map([], |row| row.get(0))?;
        rows.next().transpose()
    }

    fn floor(&self) -> rusqlite::Result<Option<String>> {
        let mut statement = self.0.prepare(READ_FLOOR)?;
        let mut rows = statement.query_map([], |row| row.get(0))?;
        rows.next().transpose()
    }

    fn apply(&self, step: &Migration) -> rusqlite::Result<()> {
        let tx = self.0.unchecked_transaction()?;
        tx.execute_batch(step.sql)?;
        tx.execute_batch(STAMP_TABLE)?;
        tx.execute(STAMP, params![step.to.to_string(), step.floor.to_string()])?;
        tx.commit()
    }
}

fn empty() -> Sqlite {
    Sqlite(Connection::open_in_memory().unwrap())
}

/// A database as the last unversioned release left it: its schema, a row, no stamp.
fn unversioned() -> Sqlite {
    let db = empty();
    db.0.execute_batch(SCHEMA).unwrap();
    db.0.execute("INSERT INTO receipts(op_key, kind, received_at) VALUES ('Ev1', 'event', 1)", []).unwrap();
    db.0.execute("INSERT INTO meta(key, value) VALUES ('team_key', 'T1')", []).unwrap();
    db
}

/// Every object's definition, for comparing schemas.
fn schema_of(db: &Sqlite) -> Vec<(String, String)> {
    let mut statement = db.0.prepare("SELECT name, coalesce(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name").unwrap();
    let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?))).unwrap();
    rows.collect::<rusqlite::Result<_>>().unwrap()
}

fn count(db: &Sqlite, query: &str) -> i64 {
    db.0.query_row(query, [], |row| row.get(0)).unwrap()
}

fn stamp_of(db: &Sqlite) -> Option<String> {
    db.stamp().ok().flatten()
}

/// A schema of three steps on top of the team's baseline, the third failing halfway; the two
/// before it additive (the baseline's code still runs after them).
const GROWN: [Migration<'static>; 4] = [
    Migration { to: 1, name: "baseline", sql: SCHEMA, floor: 1 },
    Migration { to: 2, name: "outbox_priority", sql: "ALTER TABLE outbox ADD COLUMN priority INTEGER", floor: 1 },
    Migration {
        to: 3,
        name: "notes",
        sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY); INSERT INTO receipts(op_key, kind, received_at) VALUES ('x', 'y', 2)",
        floor: 1,
    },
    Migration {
        to: 4,
        name: "broken",
        sql: "CREATE TABLE half (id INTEGER); UPDATE receipts SET kind = 'changed'; INSERT INTO no_such_table VALUES (1)",
        floor: 4,
    },
];

/// The team's schema as the release before app state knew it (version 1).
fn team_v1() -> Schema<'static> {
    Schema { actor: "team", migrations: &TEAM.migrations[..1] }
}

/// The team's schema as release `n` knew it (its first `n` migrations).
fn team_v(n: usize) -> Schema<'static> {
    Schema { actor: "team", migrations: &TEAM.migrations[..n] }
}

fn grown(n: usize) -> Schema<'static> {
    Schema { actor: "team", migrations: &GROWN[..n] }
}

#[test]
fn every_schema_numbers_its_migrations_one_by_one_from_one() {
    for schema in [TEAM, DIRECTORY, grown(4)] {
        for (i, step) in schema.migrations.iter().enumerate() {
            assert_eq!(step.to, i as u32 + 1, "{} migration {}", schema.actor, step.name);
        }
        assert_eq!(schema.version(), schema.migrations.len() as u32);
    }
}

#[test]
fn a_floor_is_never_above_its_step_nor_below_the_step_before() {
    for schema in [TEAM, DIRECTORY, grown(4)] {
        let mut before = 0;
        for step in schema.migrations {
            assert!(step.floor <= step.to && step.floor >= before, "{} migration {}: floor {}", schema.actor, step.name, step.floor);
            before = step.floor;
        }
    }
}

#[test]
fn version_one_is_the_unversioned_schema_exactly() {
    assert_eq!(TEAM.migrations[0].sql, SCHEMA);
    assert_eq!(DIRECTORY.migrations[0].sql, DIRECTORY_SCHEMA);
}

#[test]
fn a_stamp_is_read_as_a_version_and_no_stamp_by_the_tables() {
    let tables = vec!["meta".to_string()];
    assert_eq!(Stored::read(&[], None), Stored::Empty);
    assert_eq!(Stored::read(&tables, None), Stored::Unversioned);
    assert_eq!(Stored::read(&tables, Some("3")), Stored::At(3));
    assert_eq!(Stored::read(&tables, Some("3.0")), Stored::Unreadable("3.0".into()));
    assert_eq!(Stored::read(&tables, Some("-1")), Stored::Unreadable("-1".into()));
}

#[test]
fn the_plan_runs_the_missing_steps_and_refuses_what_it_cannot_know() {
    let schema = grown(3);
    let all = GROWN[..3].to_vec();
    assert_eq!(plan(&schema, &Stored::Empty), Plan::Migrate(all.clone()));
    assert_eq!(plan(&schema, &Stored::Unversioned), Plan::Migrate(all), "the baseline adopts an unversioned database");
    assert_eq!(plan(&schema, &Stored::At(1)), Plan::Migrate(GROWN[1..3].to_vec()));
    assert_eq!(plan(&schema, &Stored::At(3)), Plan::UpToDate);
    assert_eq!(plan(&schema, &Stored::At(4)), Plan::Newer { db: 4, code: 3 });
    assert_eq!(plan(&schema, &Stored::Unreadable("x".into())), Plan::Unreadable("x".into()));
}

#[test]
fn an_empty_database_gets_the_baseline_and_its_stamp() {
    for schema in [TEAM, DIRECTORY, team_v1()] {
        let db = empty();
        assert_eq!(run(&db, &schema), Outcome::Ready(Ready::Migrated { from: Stored::Empty, to: schema.version() }));
        assert_eq!(stamp_of(&db), Some(schema.version().to_string()));
        let direct = empty();
        for step in schema.migrations {
            direct.0.execute_batch(step.sql).unwrap();
        }
        direct.0.execute_batch(STAMP_TABLE).unwrap();
        assert_eq!(schema_of(&db), schema_of(&direct), "{}: the baseline and every later step (and the stamp's table)", schema.actor);
        assert_eq!(run(&db, &schema), Outcome::Ready(Ready::UpToDate), "the second wake does nothing");
    }
}

#[test]
fn an_unversioned_database_is_only_stamped() {
    let db = unversioned();
    let before = schema_of(&db);
    assert_eq!(run(&db, &team_v1()), Outcome::Ready(Ready::Migrated { from: Stored::Unversioned, to: 1 }));
    assert_eq!(schema_of(&db), before, "no table or index changed");
    assert_eq!(stamp_of(&db).as_deref(), Some("1"));
    assert_eq!(count(&db, "SELECT count(*) FROM receipts"), 1);
    assert_eq!(count(&db, "SELECT count(*) FROM meta WHERE key = 'team_key' AND value = 'T1'"), 1);
}

#[test]
fn an_unversioned_directory_gets_the_stamps_table() {
    let db = empty();
    db.0.execute_batch(DIRECTORY_SCHEMA).unwrap();
    db.0.execute("INSERT INTO teams(team_key, source, first_seen_at) VALUES ('T1', 'traffic', 1)", []).unwrap();
    assert_eq!(run(&db, &DIRECTORY), Outcome::Ready(Ready::Migrated { from: Stored::Unversioned, to: 2 }));
    assert_eq!(stamp_of(&db).as_deref(), Some("2"));
    assert_eq!(count(&db, "SELECT count(*) FROM teams"), 1);
    assert_eq!(count(&db, "SELECT count(*) FROM wakes"), 0);
}

#[test]
fn later_steps_run_in_order_on_a_stamped_database() {
    let db = unversioned();
    assert!(matches!(run(&db, &grown(1)), Outcome::Ready(_)));
    assert_eq!(run(&db, &grown(3)), Outcome::Ready(Ready::Migrated { from: Stored::At(1), to: 3 }));
    assert_eq!(stamp_of(&db).as_deref(), Some("3"));
    assert_eq!(count(&db, "SELECT count(*) FROM pragma_table_info('outbox') WHERE name = 'priority'"), 1);
    assert_eq!(count(&db, "SELECT count(*) FROM receipts"), 2);
}

#[test]
fn a_failing_step_leaves_the_version_before_it_intact() {
    let db = unversioned();
    assert!(matches!(run(&db, &grown(2)), Outcome::Ready(_)));
    let before = schema_of(&db);
    let Outcome::Refused(Refused::Failed { from, migration, at, error }) = run(&db, &grown(4)) else { panic!("the broken step must fail") };
    assert_eq!((from, migration.as_str(), at), (Stored::At(2), "4_broken", 3), "steps before it committed, each with its stamp");
    assert!(error.contains("no_such_table"), "{error}");
    assert_eq!(stamp_of(&db).as_deref(), Some("3"));
    assert_eq!(count(&db, "SELECT count(*) FROM sqlite_master WHERE name = 'half'"), 0, "nothing of the failed step remains");
    assert_eq!(count(&db, "SELECT count(*) FROM receipts WHERE kind = 'changed'"), 0);
    assert_ne!(schema_of(&db), before, "step 3 did commit");
    let again = run(&db, &grown(4));
    assert!(matches!(again, Outcome::Refused(Refused::Failed { at: 3, .. })), "the next wake tries again from 3: {again:?}");
}

#[test]
fn a_database_newer_than_the_code_with_a_floor_above_it_or_none_is_not_written() {
    let db = unversioned();
    assert!(matches!(run(&db, &TEAM), Outcome::Ready(_)));
    // A later release's stamp (a rollback to this code), from a step that broke older code.
    let newer = TEAM.version() + 1;
    db.0.execute("UPDATE meta SET value = ?1 WHERE key IN ('schema_version', 'schema_floor')", [newer.to_string()]).unwrap();
    let before = (schema_of(&db), count(&db, "SELECT count(*) FROM receipts"));
    assert_eq!(run(&db, &TEAM), Outcome::Refused(Refused::Newer { db: newer, code: TEAM.version(), floor: Some(newer) }));
    // A newer stamp with no floor: written by a release from before floors.
    db.0.execute("DELETE FROM meta WHERE key = 'schema_floor'", []).unwrap();
    assert_eq!(run(&db, &TEAM), Outcome::Refused(Refused::Newer { db: newer, code: TEAM.version(), floor: None }));
    assert_eq!((schema_of(&db), count(&db, "SELECT count(*) FROM receipts")), before);
    assert_eq!(stamp_of(&db), Some(newer.to_string()));
}

#[test]
fn a_rollback_onto_additive_steps_serves_the_newer_database_as_it_is() {
    let db = empty();
    assert!(matches!(run(&db, &grown(3)), Outcome::Ready(_)));
    assert_eq!(db.floor().unwrap().as_deref(), Some("1"), "two additive steps keep the baseline's floor");
    let before = (schema_of(&db), count(&db, "SELECT count(*) FROM receipts"));
    // The release before the two steps, then the baseline's, run on it: neither migrates, stamps
    // or drops what the newer release added.
    assert_eq!(run(&db, &grown(2)), Outcome::Ready(Ready::Ahead { db: 3, code: 2, floor: 1 }));
    assert_eq!(run(&db, &grown(1)), Outcome::Ready(Ready::Ahead { db: 3, code: 1, floor: 1 }));
    assert_eq!((schema_of(&db), count(&db, "SELECT count(*) FROM receipts")), before);
    assert_eq!(stamp_of(&db).as_deref(), Some("3"));
    // The older code writes its rows on it: the new column takes its default.
    db.0.execute("INSERT INTO receipts(op_key, kind, received_at) VALUES ('Ev2', 'event', 3)", []).unwrap();
    // And the newer release, back again, finds its database as it left it.
    assert_eq!(run(&db, &grown(3)), Outcome::Ready(Ready::UpToDate));
}

#[test]
fn this_releases_code_serves_the_next_releases_database_when_its_step_is_additive() {
    let db = empty();
    assert!(matches!(run(&db, &TEAM), Outcome::Ready(_)));
    let floor = TEAM.migrations.last().unwrap().floor;
    assert_eq!(db.floor().unwrap(), Some(floor.to_string()));
    // What the next release's additive migration would stamp.
    let next = TEAM.version() + 1;
    db.0.execute_batch("ALTER TABLE outbox ADD COLUMN priority INTEGER NOT NULL DEFAULT 0; CREATE TABLE future (id INTEGER PRIMARY KEY)").unwrap();
    db.0.execute("UPDATE meta SET value = ?1 WHERE key = 'schema_version'", [next.to_string()]).unwrap();
    assert_eq!(run(&db, &TEAM), Outcome::Ready(Ready::Ahead { db: next, code: TEAM.version(), floor }));
}

#[test]
fn an_unreadable_stamp_is_refused_and_kept() {
    let db = unversioned();
    db.0.execute("INSERT INTO meta(key, value) VALUES ('schema_version', 'two')", []).unwrap();
    assert_eq!(run(&db, &TEAM), Outcome::Refused(Refused::Unreadable("two".into())));
    assert_eq!(stamp_of(&db).as_deref(), Some("two"));
}

#[test]
fn a_migration_is_named_by_its_version_and_name() {
    assert_eq!(TEAM.migrations[0].label(), "1_baseline");
}

#[test]
fn migration_2_adds_app_state_to_a_version_1_database_and_keeps_its_data() {
    let db = unversioned();
    assert!(matches!(run(&db, &team_v1()), Outcome::Ready(_)));
    assert_eq!(run(&db, &team_v(2)), Outcome::Ready(Ready::Migrated { from: Stored::At(1), to: 2 }));
    assert_eq!(TEAM.migrations[1].label(), "2_app_state");
    assert_eq!(count(&db, "SELECT count(*) FROM state"), 0);
    assert_eq!(count(&db, "SELECT count(*) FROM state_facts"), 0);
    assert_eq!(count(&db, "SELECT count(*) FROM receipts"), 1, "the receipts are kept");
}

#[test]
fn migration_3_rebuilds_the_outbox_lean_and_keeps_every_row_and_id() {
    let db = unversioned();
    assert!(matches!(run(&db, &team_v(2)), Outcome::Ready(_)));
    let insert = "INSERT INTO outbox(idem_key, op_key, effect, target, payload, status, attempts, max_attempts, next_attempt_at,
      created_at, finished_at, reason) VALUES (?1, 'Ev1', 'slack_api', 'chat.postMessage', '{}', ?2, 1, 6, 5, 5, ?3, ?4)";
    for (key, status, finished, reason) in [("k1", "done", Some(7), None), ("k2", "parked", Some(8), Some("channel_not_found")), ("k3", "pending", None, None)]
    {
        db.0.execute(insert, params![key, status, finished, reason]).unwrap();
    }
    db.0.execute("DELETE FROM outbox WHERE idem_key = 'k3'", []).unwrap(); // AUTOINCREMENT: id 3 is never given again
    assert_eq!(run(&db, &team_v(3)), Outcome::Ready(Ready::Migrated { from: Stored::At(2), to: 3 }));
    assert_eq!(TEAM.migrations[2].label(), "3_lean_rows");
    let kept = "SELECT group_concat(id || ':' || idem_key || ':' || status || ':' || COALESCE(reason, ''), ' ') FROM outbox";
    assert_eq!(db.0.query_row(kept, [], |r| r.get::<_, String>(0)).unwrap(), "1:k1:done: 2:k2:parked:channel_not_found");
    let indexes = "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('outbox', 'receipts') AND sql IS NOT NULL ORDER BY name)";
    assert_eq!(db.0.query_row(indexes, [], |r| r.get::<_, String>(0)).unwrap(), "outbox_pending outbox_serial");
    assert_eq!(count(&db, "SELECT count(*) FROM receipts_prev"), 0, "the previous receipts table, empty");
    assert_eq!(count(&db, "SELECT count(*) FROM sqlite_sequence WHERE name = 'outbox'"), 0, "no AUTOINCREMENT");
    assert_eq!(count(&db, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'receipts_since'"), 1, "the receipts collect since the oldest");
    assert_eq!(count(&db, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'done_oldest'"), 7, "the oldest delivered row noted");
    assert_eq!(count(&db, "SELECT count(*) FROM pragma_table_info('outbox') WHERE name = 'last_latency_ms'"), 1);
}

#[test]
fn migration_4_adds_the_streamed_answers_checkpoints_and_keeps_the_data() {
    let db = unversioned();
    assert!(matches!(run(&db, &team_v(3)), Outcome::Ready(_)));
    assert_eq!(run(&db, &team_v(4)), Outcome::Ready(Ready::Migrated { from: Stored::At(3), to: 4 }));
    assert_eq!(TEAM.migrations[3].label(), "4_streamed_answers");
    assert_eq!(count(&db, "SELECT count(*) FROM answers"), 0);
    assert_eq!(count(&db, "SELECT count(*) FROM receipts"), 1, "the receipts are kept");
}

#[test]
fn migration_5_puts_a_posted_message_on_its_row_and_keeps_the_earlier_results() {
    let db = unversioned();
    assert!(matches!(run(&db, &team_v(4)), Outcome::Ready(_)));
    let insert = "INSERT INTO outbox(idem_key, op_key, effect, target, payload, status, attempts, max_attempts, next_attempt_at,
      created_at, finished_at) VALUES (?1, 'api:notify:k', 'notify', 'chat.postMessage', '{}', 'done', 1, 6, 5, 5, 7)";
    db.0.execute(insert, params!["notify:k1"]).unwrap();
    db.0.execute("INSERT INTO slack_results(row_id, channel, ts) VALUES (1, 'C1', '1.1')", []).unwrap();
    assert_eq!(run(&db, &team_v(5)), Outcome::Ready(Ready::Migrated { from: Stored::At(4), to: 5 }));
    assert_eq!(TEAM.migrations[4].label(), "5_posted_on_row");
    // A message delivered before it is read from slack_results; one delivered after, from its row.
    db.0.execute(insert, params!["notify:k2"]).unwrap();
    db.0.execute("UPDATE outbox SET posted_channel = 'C2', posted_ts = '2.2' WHERE id = 2", []).unwrap();
    let posted =
        |id: i64| db.0.query_row(crate::kinds::notify::sql::MESSAGE, [id], |r| Ok((r.get::<_, String>("channel")?, r.get::<_, String>("ts")?))).unwrap();
    assert_eq!(posted(1), ("C1".to_string(), "1.1".to_string()));
    assert_eq!(posted(2), ("C2".to_string(), "2.2".to_string()));
}

#[test]
fn migration_6_records_stops_for_the_answers_that_existed_when_they_were_pressed() {
    use crate::kinds::assistant::sql::{PRUNE_STOPS, RECORD_STOP, STOPPED};
    let db = unversioned();
    assert!(matches!(run(&db, &team_v(5)), Outcome::Ready(_)));
    assert_eq!(run(&db, &team_v(6)), Outcome::Ready(Ready::Migrated { from: Stored::At(5), to: 6 }));
    assert_eq!(TEAM.migrations[5].label(), "6_answer_stops");
    assert_eq!(TEAM.migrations[5].floor, 5, "additive: release 5 runs on it");
    let insert = "INSERT INTO outbox(idem_key, op_key, effect, target, payload, status, attempts, max_attempts, next_attempt_at, created_at)
      VALUES (?1, 'Ev1', 'stream', 'stream:D1', '{}', 'pending', 0, 6, 5, 5)";
    db.0.execute(insert, params!["answer-1"]).unwrap();
    let stopped = |row: i64| db.0.query_row(STOPPED, params!["D1", "1.1", row], |_| Ok(())).is_ok();
    assert!(!stopped(1), "no stop yet");
    for _ in 0..3 {
        db.0.execute(RECORD_STOP, params!["D1", "1.1", 100]).unwrap();
    }
    assert_eq!(count(&db, "SELECT count(*) FROM answer_stops"), 1, "a stop delivered three times is one");
    assert!(stopped(1), "the answer queued before the stop is stopped");
    db.0.execute(insert, params!["answer-2"]).unwrap();
    assert!(!stopped(2), "an answer queued after the stop runs");
    assert!(db.0.query_row(STOPPED, params!["D1", "9.9", 1], |_| Ok(())).is_err(), "another thread runs");
    db.0.execute(PRUNE_STOPS, params![101]).unwrap();
    assert_eq!(count(&db, "SELECT count(*) FROM answer_stops"), 0);
}

#[test]
fn migration_7_adds_the_uncertain_column_and_keeps_floor_5_so_version_5_still_serves() {
    let db = unversioned();
    assert!(matches!(run(&db, &team_v(6)), Outcome::Ready(_)));
    assert_eq!(run(&db, &team_v(7)), Outcome::Ready(Ready::Migrated { from: Stored::At(6), to: 7 }));
    assert_eq!(TEAM.migrations[6].label(), "7_uncertain_posts");
    assert_eq!(count(&db, "SELECT count(*) FROM pragma_table_info('outbox') WHERE name = 'uncertain_since'"), 1);
    assert_eq!(db.floor().unwrap().as_deref(), Some("5"), "additive: the floor stays");
    assert_eq!(run(&db, &team_v(5)), Outcome::Ready(Ready::Ahead { db: 7, code: 5, floor: 5 }), "a rollback to 5 serves it as it is");
}

#[test]
fn migration_8_keeps_each_threads_newest_session_intent_and_floor_5() {
    use crate::kinds::assistant::sql::{NEWEST, NOTE_ANSWER, NOTE_INTENT, PRUNE_SESSIONS};
    let db = unversioned();
    assert!(matches!(run(&db, &team_v(7)), Outcome::Ready(_)));
    assert_eq!(run(&db, &team_v(8)), Outcome::Ready(Ready::Migrated { from: Stored::At(7), to: 8 }));
    assert_eq!(TEAM.migrations[7].label(), "8_agent_sessions");
    assert_eq!(db.floor().unwrap().as_deref(), Some("5"), "additive: the floor stays");
    let insert = "INSERT INTO outbox(id, idem_key, op_key, effect, target, payload, status, attempts, max_attempts, next_attempt_at, created_at)
      VALUES (?1, ?2, 'Ev1', 'stream', 'stream', '{}', ?3, 0, 6, 5, 5)";
    let newest = |thread: &str| {
        db.0.query_row(NEWEST, params!["D1", thread], |r| {
            Ok((r.get::<_, i64>("row_id")?, r.get::<_, Option<String>>("status")?, r.get::<_, Option<String>>("row_status")?))
        })
        .ok()
    };
    db.0.execute(NOTE_ANSWER, params!["D1", "1.1", 3, 10]).unwrap();
    assert_eq!(newest("1.1"), None, "an answer in a thread without a session writes nothing");
    db.0.execute(insert, params![5, "s5", "pending"]).unwrap();
    db.0.execute(NOTE_INTENT, params!["D1", "1.1", 5, "processing", 10]).unwrap();
    db.0.execute(NOTE_INTENT, params!["D1", "1.1", 4, "closed", 11]).unwrap();
    assert_eq!(newest("1.1"), Some((5, Some("processing".into()), Some("pending".into()))), "an older row's intent never replaces a newer one");
    db.0.execute(insert, params![7, "a7", "done"]).unwrap();
    db.0.execute(NOTE_ANSWER, params!["D1", "1.1", 7, 12]).unwrap();
    assert_eq!(newest("1.1"), Some((7, None, Some("done".into()))), "a newer answer: the status is its own, and its row ended");
    db.0.execute(NOTE_INTENT, params!["D1", "1.1", 9, "suspended", 13]).unwrap();
    assert_eq!(newest("1.1").map(|n| n.1), Some(Some("suspended".into())), "a row not in the outbox yet (or pruned) still orders");
    db.0.execute(PRUNE_SESSIONS, params![14]).unwrap();
    assert_eq!(count(&db, "SELECT count(*) FROM agent_sessions"), 0);
    assert_eq!(run(&db, &team_v(5)), Outcome::Ready(Ready::Ahead { db: 8, code: 5, floor: 5 }), "a rollback to 5 serves it as it is");
}

#[test]
fn migration_9_records_each_step_execution_once_and_ends_it_once_dropping_its_token() {
    use crate::kinds::step::sql::{ENDED, EXECUTION, PRUNE, RECORD};
    let db = unversioned();
    assert!(matches!(run(&db, &team_v(8)), Outcome::Ready(_)));
    assert_eq!(run(&db, &team_v(9)), Outcome::Ready(Ready::Migrated { from: Stored::At(8), to: 9 }));
    assert_eq!(TEAM.migrations[8].label(), "9_step_executions");
    assert_eq!(db.floor().unwrap().as_deref(), Some("5"), "additive: the floor stays");
    let record = |token: &str, deadline: i64, now: i64| {
        db.0.prepare(RECORD).unwrap().query_map(params!["Fx1", "create_ticket", token, deadline, now], |r| r.get::<_, String>(0)).unwrap().count()
    };
    assert_eq!(record("sealed-1", 100, 10), 1, "a new execution is returned (its guard is queued)");
    assert_eq!(record("sealed-2", 999, 11), 0, "a duplicate returns nothing (no second guard)");
    let execution = |id: &str| db.0.query_row(EXECUTION, [id], |r| Ok((r.get::<_, Option<String>>("token")?, r.get::<_, Option<i64>>("ended_at")?))).ok();
    assert_eq!(execution("Fx1"), Some((Some("sealed-1".into()), None)), "a duplicate of the event writes nothing");
    assert_eq!(db.0.execute(ENDED, params!["Fx1", 50]).unwrap(), 1);
    assert_eq!(db.0.execute(ENDED, params!["Fx1", 60]).unwrap(), 0, "ended once");
    assert_eq!(execution("Fx1"), Some((None, Some(50))), "the token is dropped with the end");
    db.0.execute(PRUNE, params![11]).unwrap();
    assert_eq!(execution("Fx1"), None);
    assert_eq!(run(&db, &team_v(5)), Outcome::Ready(Ready::Ahead { db: 9, code: 5, floor: 5 }), "a rollback to 5 serves it as it is");
}

#[test]
fn migration_11_leaves_records_one_partial_index_for_linked_rows_adds_a_passes_seen_list_and_start_and_keeps_the_floor() {
    let db = unversioned();
    assert!(matches!(run(&db, &team_v(10)), Outcome::Ready(_)));
    db.0.execute(
        "INSERT INTO records(list_id, record_id, fields, version, state, row_id, created_at, updated_at) VALUES ('F1', 'r1', '{}', 1, 'synced', 'Rec1', 1, 1)",
        [],
    )
    .unwrap();
    assert_eq!(run(&db, &team_v(11)), Outcome::Ready(Ready::Migrated { from: Stored::At(10), to: 11 }));
    assert_eq!(TEAM.migrations[10].label(), "11_lean_records");
    let indexes =
        "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records' AND sql IS NOT NULL ORDER BY name)";
    assert_eq!(db.0.query_row(indexes, [], |r| r.get::<_, String>(0)).unwrap(), "records_linked");
    assert_eq!(count(&db, "SELECT count(*) FROM records WHERE list_id = 'F1' AND row_id = 'Rec1'"), 1, "the records are kept");
    assert_eq!(count(&db, "SELECT count(*) FROM pragma_table_info('reconcile_runs') WHERE name IN ('seen', 'begun_at')"), 2);
    assert_eq!(db.floor().unwrap().as_deref(), Some("5"), "a release before it runs on it (a pass it takes over reads a start of 0)");
    assert_eq!(run(&db, &team_v(5)), Outcome::Ready(Ready::Ahead { db: 11, code: 5, floor: 5 }), "a rollback to 5 serves it as it is");
}
