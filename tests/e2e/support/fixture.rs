//! Schema fixtures: the Durable Objects' SQLite state as a release wrote it, checked in as SQL
//! text (`sqlite3 .dump`) under `tests/fixtures/schema/v{N}/` (N = the schema version that wrote
//! it; v0 = the last release before versioning), one `.sql` per database file of the persistence
//! folder (`v3/do/{script}-{class}/{id}.sql` for `….sqlite`), and `written_at` (epoch ms, when the writing
//! runtime was killed). `scripts/schema-fixture.sh` writes them (`upgrade::seed_a_fixture`).
//!
//! Loading moves the fixture's clock to now: every integer that is an epoch time in ms (or, for
//! the runtime's alarm tables, in ns) moves by `now - written_at`, so rows mid-retry, live
//! leases, receipts and keys within their retention look as they did when they were written,
//! however old the fixture is.

use super::slack::now_ms;
use rusqlite::Connection;
use std::fs;
use std::path::{Path, PathBuf};

/// Where the fixtures are.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schema")
}

/// Every fixture version there is (`v0`, `v1`, …), oldest first.
pub fn versions() -> Vec<String> {
    let mut found: Vec<(u32, String)> = fs::read_dir(root())
        .map(|entries| entries.filter_map(|e| e.ok()?.file_name().into_string().ok()).filter_map(|n| Some((n.strip_prefix('v')?.parse().ok()?, n))).collect())
        .unwrap_or_default();
    found.sort();
    found.into_iter().map(|(_, name)| name).collect()
}

/// The `.sql` files of a fixture, relative to it.
fn dumps(dir: &Path, under: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            dumps(&path, under, out);
        } else if path.extension().is_some_and(|e| e == "sql") {
            out.push(path.strip_prefix(under).unwrap().to_path_buf());
        }
    }
}

/// Writes fixture `version` into the persistence folder `state`, its clock moved to now.
/// Returns the team actors' database files (not the namespace's `metadata.sqlite`).
pub fn load(version: &str, state: &Path) -> Vec<PathBuf> {
    let dir = root().join(version);
    let written_at: i64 = fs::read_to_string(dir.join("written_at")).unwrap().trim().parse().unwrap();
    let mut files = Vec::new();
    dumps(&dir, &dir, &mut files);
    assert!(!files.is_empty(), "fixture {version} has no databases");
    let mut teams = Vec::new();
    for file in files {
        let target = state.join(file.with_extension("sqlite"));
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        let db = Connection::open(&target).unwrap();
        db.execute_batch(&fs::read_to_string(dir.join(&file)).unwrap()).unwrap();
        shift_clock(&db, now_ms() - written_at);
        if target.parent().unwrap().ends_with("slackline-TeamActor") && !target.ends_with("metadata.sqlite") {
            teams.push(target);
        }
    }
    teams
}

/// Moves every epoch time of `db` by `delta_ms`.
fn shift_clock(db: &Connection, delta_ms: i64) {
    let tables: Vec<String> = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for table in tables {
        let columns: Vec<String> =
            db.prepare(&format!("SELECT name FROM pragma_table_info('{table}')")).unwrap().query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
        for c in columns {
            // ms: 2001–2286; ns: the same years.
            let ms =
                format!("UPDATE \"{table}\" SET \"{c}\" = \"{c}\" + ?1 WHERE typeof(\"{c}\") = 'integer' AND \"{c}\" BETWEEN 1000000000000 AND 9999999999999");
            let ns = format!("UPDATE \"{table}\" SET \"{c}\" = \"{c}\" + ?1 * 1000000 WHERE typeof(\"{c}\") = 'integer' AND \"{c}\" BETWEEN 1000000000000000000 AND 9223372036854775807 - ?1 * 1000000");
            db.execute(&ms, [delta_ms]).unwrap();
            db.execute(&ns, [delta_ms]).unwrap();
        }
    }
}

/// Runs `sql` on a database file the runtime is not running on, and reads a number back.
pub fn query(file: &Path, sql: &str) -> i64 {
    Connection::open(file).unwrap().query_row(sql, [], |r| r.get(0)).unwrap()
}

/// Runs `sql` on a database file before the runtime starts on it.
pub fn alter(file: &Path, sql: &str) {
    Connection::open(file).unwrap().execute_batch(sql).unwrap();
}
