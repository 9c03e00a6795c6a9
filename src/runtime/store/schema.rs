//! Brings an actor's database to the code's schema version before the actor serves anything:
//! [`crate::sql::migrate::run`] (the plan and its loop, pure) over the Durable Object's SQLite.
//!
//! Each step runs in its own `transactionSync` with its stamp (`meta.schema_version`, and
//! `meta.schema_floor`: the oldest code that may run on it, see `sql::migrate`): if any
//! statement of the step fails, the runtime rolls the whole step back, so the database stays at
//! the version before it, with its data; the next wake of the actor tries again.

use crate::platform::exec::{rows, run, text, tx_sync};
use crate::sql::migrate::{self, Database, Migration, Outcome, Schema};
use serde::Deserialize;
use worker::{SqlStorage, Storage};

/// One actor's storage, as the migrations see it.
struct Actor<'a> {
    storage: &'a Storage,
    sql: &'a SqlStorage,
}

#[derive(Deserialize)]
struct Name {
    name: String,
}

#[derive(Deserialize)]
struct Value {
    value: String,
}

impl Database for Actor<'_> {
    type Error = worker::Error;

    fn user_tables(&self) -> worker::Result<Vec<String>> {
        Ok(rows::<Name>(self.sql, migrate::USER_TABLES, vec![])?.into_iter().map(|t| t.name).collect())
    }

    fn stamp(&self) -> worker::Result<Option<String>> {
        Ok(rows::<Value>(self.sql, migrate::READ_STAMP, vec![])?.into_iter().next().map(|v| v.value))
    }

    fn floor(&self) -> worker::Result<Option<String>> {
        Ok(rows::<Value>(self.sql, migrate::READ_FLOOR, vec![])?.into_iter().next().map(|v| v.value))
    }

    fn apply(&self, step: &Migration) -> worker::Result<()> {
        let sql = self.sql.clone();
        let (statements, version, floor) = (step.sql.to_string(), step.to.to_string(), step.floor.to_string());
        tx_sync(self.storage, move || {
            run(&sql, &statements, vec![])?;
            run(&sql, migrate::STAMP_TABLE, vec![])?;
            run(&sql, migrate::STAMP, vec![text(&version), text(&floor)])
        })
    }
}

/// Runs the migrations `schema` still needs on this actor's database (see [`migrate::run`]).
pub fn bring_up_to_date(storage: &Storage, sql: &SqlStorage, schema: &Schema) -> Outcome {
    migrate::run(&Actor { storage, sql }, schema)
}
