//! Versioned schema migrations: each actor kind's schema version, its ordered migrations, and
//! the plan that brings a database from its stored version to the code's.
//!
//! Why: a Durable Object's SQLite lives as long as its team, across every release. Before
//! versioning, each actor ran `CREATE TABLE IF NOT EXISTS …` at start, which can add a table but
//! never change one, and cannot tell a database written by a newer release (after a rollback)
//! from its own. Now every database carries a version stamp, and a release says what each step
//! from version N to N+1 is.
//!
//! Invariants:
//! - **Version N is the database after the first N migrations.** `migrations[i].to == i + 1`
//!   (checked by a test); the code's version is the number of migrations.
//! - **Version 1 is the schema of the last unversioned release, exactly** ([`super::schema`]). Its
//!   migration is all `IF NOT EXISTS`, so it adopts a database from before versioning (tables,
//!   no stamp: [`Stored::Unversioned`]) as it creates an empty one; the first versioned release
//!   only stamps. Later migrations run on a known version and need not be idempotent.
//! - **One migration, one transaction, with its stamp.** The adapter (`runtime::store::schema`)
//!   runs each step's SQL and [`STAMP`] in one `transactionSync`: a step that fails leaves the
//!   database at the version before it, data and schema intact.
//! - **A rollback keeps serving when the newer release said it may.** Each migration names its
//!   *floor*: the oldest code version that still runs correctly on the database after it. An
//!   additive step (a new table, a new column with a default, a new index) keeps the floor where
//!   it was; only a step that truly breaks older code raises it to its own version. The floor is
//!   stamped with the version (`meta.schema_floor`). Code whose version is below the database's
//!   but at or above its floor serves it as it is ([`Ready::Ahead`]): no step runs, no stamp is
//!   written, the newer release's tables and columns are left to it. Code below the floor, or
//!   facing a newer database with no floor (written before floors existed), never writes it
//!   ([`Refused::Newer`]): it cannot know what the newer one changed. Neither is a stamp it cannot
//!   read. Releases before this one refuse every newer stamp: the guarantee starts here.
//! - **Migrations are append-only.** A released migration is never edited or reordered; a change
//!   is a new migration at the end (see `docs/operations.md`, "Upgrades and rollbacks").
//!
//! The stamp is the row `schema_version` of the `meta` table (`PRAGMA user_version` is not
//! allowed in Durable Objects' SQLite). The team actor's schema has always had `meta`; the
//! directory's did not, so [`STAMP_TABLE`] (the same table) runs before each stamp.
//!
//! Adding migration 2 (say, a nullable column): append
//! `Migration { to: 2, name: "outbox_priority", sql: "ALTER TABLE outbox ADD COLUMN priority INTEGER" }`
//! to `crate::kinds::schema::TEAM`, add a fixture of version 1 (`scripts/schema-fixture.sh`), and the tests upgrade
//! every fixture, from every earlier version, to 2.

use super::schema::{DIRECTORY_SCHEMA, DIRECTORY_WAKES};

/// One step: the SQL that brings a database from version `to - 1` to `to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Migration<'a> {
    /// The version the database has after this step.
    pub to: u32,
    /// A short name for log lines and docs (`baseline`, `outbox_priority`).
    pub name: &'a str,
    /// The step's statements (several, separated by `;`).
    pub sql: &'a str,
    /// The oldest code version that still runs correctly on the database after this step: the
    /// floor before it for an additive step, `to` for one that breaks older code (see the
    /// module docs). Never above `to`, never below the step before it (checked by a test).
    pub floor: u32,
}

impl Migration<'_> {
    /// How log lines name it: `1_baseline`.
    pub fn label(&self) -> String {
        format!("{}_{}", self.to, self.name)
    }
}

/// One actor kind's schema: who it is and its migrations, in order.
#[derive(Debug, Clone, Copy)]
pub struct Schema<'a> {
    /// The actor kind, as log lines name it (`team`, `directory`).
    pub actor: &'a str,
    /// Version N is the database after the first N of them.
    pub migrations: &'a [Migration<'a>],
}

impl Schema<'_> {
    /// The version this code writes: the number of migrations.
    pub fn version(&self) -> u32 {
        self.migrations.len() as u32
    }
}

/// The directory's schema.
pub const DIRECTORY: Schema<'static> = Schema {
    actor: "directory",
    migrations: &[
        Migration { to: 1, name: "baseline", sql: DIRECTORY_SCHEMA, floor: 1 },
        // Additive: a release without it never reads the table (its teams arm their own wakes).
        Migration { to: 2, name: "wakes", sql: DIRECTORY_WAKES, floor: 1 },
    ],
};

/// The tables of a database, its own (not SQLite's `sqlite_*` nor the runtime's `_cf_*`).
pub const USER_TABLES: &str = "SELECT name FROM sqlite_master WHERE type = 'table'
  AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'";

/// The table that holds the stamp (the team actor's `meta`, created for the directory).
pub const STAMP_TABLE: &str = "CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID";

/// The stored stamp, when `meta` exists.
pub const READ_STAMP: &str = "SELECT value FROM meta WHERE key = 'schema_version'";

/// Stamps the version and its floor. ?1 = the version, ?2 = the floor, as text (`meta.value` is
/// TEXT).
pub const STAMP: &str = "INSERT INTO meta(key, value) VALUES ('schema_version', ?1), ('schema_floor', ?2)
  ON CONFLICT(key) DO UPDATE SET value = excluded.value";

/// The stored floor (the oldest code version that may run on the database), when stamped.
pub const READ_FLOOR: &str = "SELECT value FROM meta WHERE key = 'schema_floor'";

/// What a database says about its version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stored {
    /// No tables: a new actor.
    Empty,
    /// Tables but no stamp: written by a release from before versioning.
    Unversioned,
    /// Stamped with this version.
    At(u32),
    /// A stamp that is not a version (written by hand?): never guessed at.
    Unreadable(String),
}

impl Stored {
    /// Reads the database's own tables ([`USER_TABLES`]) and its stamp ([`READ_STAMP`], `None`
    /// when there is no `meta` table or no stamp in it).
    pub fn read(tables: &[String], stamp: Option<&str>) -> Stored {
        match stamp {
            Some(text) => text.trim().parse().map(Stored::At).unwrap_or_else(|_| Stored::Unreadable(text.to_string())),
            None if tables.is_empty() => Stored::Empty,
            None => Stored::Unversioned,
        }
    }

    /// How log lines name what was found: `empty`, `unversioned`, `stamped`, `unreadable`.
    pub fn found(&self) -> &'static str {
        match self {
            Stored::Empty => "empty",
            Stored::Unversioned => "unversioned",
            Stored::At(_) => "stamped",
            Stored::Unreadable(_) => "unreadable",
        }
    }

    /// The version it counts as: 0 for an empty or unversioned database, none for an unreadable
    /// stamp.
    pub fn version(&self) -> Option<u32> {
        match self {
            Stored::Empty | Stored::Unversioned => Some(0),
            Stored::At(v) => Some(*v),
            Stored::Unreadable(_) => None,
        }
    }
}

/// What to do with a database before the actor serves anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan<'a> {
    /// Stamped with the code's version: serve.
    UpToDate,
    /// Run these steps, in order, each in its own transaction with its stamp; then serve.
    Migrate(Vec<Migration<'a>>),
    /// Written by a newer release (a rollback): serve as it is if its floor allows this code
    /// ([`run`] reads it), else refuse to write.
    Newer {
        /// The database's version.
        db: u32,
        /// The code's.
        code: u32,
    },
    /// The stamp is not a version: refuse to write.
    Unreadable(String),
}

/// The plan for a database in state `stored` under `schema`.
pub fn plan<'a>(schema: &Schema<'a>, stored: &Stored) -> Plan<'a> {
    match stored {
        // Empty and unversioned databases count as version 0: every migration runs (the
        // first one adopts the unversioned).
        Stored::Unreadable(text) => Plan::Unreadable(text.clone()),
        _ => from(schema, stored.version().unwrap_or(0)),
    }
}

/// The plan for a database at version `db`.
fn from<'a>(schema: &Schema<'a>, db: u32) -> Plan<'a> {
    let code = schema.version();
    match db.cmp(&code) {
        std::cmp::Ordering::Equal => Plan::UpToDate,
        std::cmp::Ordering::Greater => Plan::Newer { db, code },
        std::cmp::Ordering::Less => Plan::Migrate(schema.migrations[db as usize..].to_vec()),
    }
}

/// A database the migrations run on: the Durable Object's SQLite (`runtime::store::schema`) or,
/// in the native tests, bundled SQLite. The loop ([`run`]) is the same for both.
pub trait Database {
    /// The engine's error.
    type Error: std::fmt::Display;
    /// The database's own tables ([`USER_TABLES`]).
    fn user_tables(&self) -> Result<Vec<String>, Self::Error>;
    /// The stamp ([`READ_STAMP`]), `None` when there is no `meta` table or no stamp in it.
    fn stamp(&self) -> Result<Option<String>, Self::Error>;
    /// The floor ([`READ_FLOOR`]), `None` when none is stamped.
    fn floor(&self) -> Result<Option<String>, Self::Error>;
    /// Runs `step.sql`, [`STAMP_TABLE`] and [`STAMP`] (`step.to`, `step.floor`) in one
    /// transaction: all of it or none of it.
    fn apply(&self, step: &Migration) -> Result<(), Self::Error>;
}

/// What [`run`] found and did: the actor serves only when it is [`Outcome::Ready`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The database is at the code's version: serve.
    Ready(Ready),
    /// The database cannot be written by this code: answer 500 to everything, write nothing.
    Refused(Refused),
}

/// How the database came to be at the code's version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ready {
    /// It already was.
    UpToDate,
    /// Every step ran.
    Migrated {
        /// What it was before.
        from: Stored,
        /// The code's version, now stamped.
        to: u32,
    },
    /// A newer release wrote it (a rollback), and its floor lets this code run on it: served as
    /// it is, nothing migrated or stamped.
    Ahead {
        /// The database's version.
        db: u32,
        /// The code's.
        code: u32,
        /// The oldest code version that may run on it.
        floor: u32,
    },
}

/// Why this code must not write the database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// A step failed; the database is left at the version before it (`at`), untouched by it.
    Failed {
        /// What it was when the actor woke.
        from: Stored,
        /// The step that failed (its label, `2_outbox_priority`).
        migration: String,
        /// The version the database is left at.
        at: u32,
        /// The engine's error.
        error: String,
    },
    /// Written by a newer release (a rollback) whose floor is above this code.
    Newer {
        /// The database's version.
        db: u32,
        /// The code's.
        code: u32,
        /// The oldest code version that may run on it (`None`: not stamped, or unreadable).
        floor: Option<u32>,
    },
    /// The stamp is not a version.
    Unreadable(String),
    /// The version could not be read at all.
    Unread(String),
}

impl Refused {
    /// The error code of the actor's 500s (`crate::routes::error_body`).
    pub fn code(&self) -> &'static str {
        match self {
            Refused::Failed { .. } => "migration_failed",
            Refused::Newer { .. } => "schema_newer_than_code",
            Refused::Unreadable(_) | Refused::Unread(_) => "schema_unreadable",
        }
    }

    /// Why the actor answers 500 (the `schema` log line has the details).
    pub fn message(&self) -> String {
        match self {
            Refused::Failed { migration, at, .. } => format!("migration {migration} failed; the database is left at version {at}: retry later"),
            Refused::Newer { db, code, floor: Some(floor) } => {
                format!("the database is at schema version {db}, newer than this code's {code}, and needs code of version {floor} or later: nothing is written")
            }
            Refused::Newer { db, code, floor: None } => format!("the database is at schema version {db}, newer than this code's {code}: nothing is written"),
            Refused::Unreadable(_) | Refused::Unread(_) => "the database's schema version cannot be read: nothing is written".into(),
        }
    }
}

/// Brings `db` to `schema`'s version, one step (one transaction) at a time, stopping at the
/// first step that fails. Runs before the actor serves anything.
pub fn run<D: Database>(db: &D, schema: &Schema) -> Outcome {
    let stored = match read(db) {
        Ok(stored) => stored,
        Err(e) => return Outcome::Refused(Refused::Unread(e.to_string())),
    };
    let steps = match plan(schema, &stored) {
        Plan::UpToDate => return Outcome::Ready(Ready::UpToDate),
        Plan::Newer { db: at, code } => return ahead(db, at, code),
        Plan::Unreadable(text) => return Outcome::Refused(Refused::Unreadable(text)),
        Plan::Migrate(steps) => steps,
    };
    for step in &steps {
        if let Err(e) = db.apply(step) {
            let (migration, at, error) = (step.label(), step.to - 1, e.to_string());
            return Outcome::Refused(Refused::Failed { from: stored, migration, at, error });
        }
    }
    Outcome::Ready(Ready::Migrated { from: stored, to: schema.version() })
}

/// A database at version `at`, newer than the code's: served as it is when its floor allows the
/// code ([`Ready::Ahead`]), refused otherwise.
fn ahead<D: Database>(db: &D, at: u32, code: u32) -> Outcome {
    let floor = match db.floor() {
        Ok(floor) => floor.and_then(|f| f.trim().parse::<u32>().ok()),
        Err(e) => return Outcome::Refused(Refused::Unread(e.to_string())),
    };
    match floor {
        Some(floor) if floor <= code => Outcome::Ready(Ready::Ahead { db: at, code, floor }),
        floor => Outcome::Refused(Refused::Newer { db: at, code, floor }),
    }
}

/// What `db` says about its version.
fn read<D: Database>(db: &D) -> Result<Stored, D::Error> {
    let tables = db.user_tables()?;
    let stamp = if tables.iter().any(|t| t == "meta") { db.stamp()? } else { None };
    Ok(Stored::read(&tables, stamp.as_deref()))
}

// Against bundled SQLite (rusqlite), which the wasm32 tests do not have.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
