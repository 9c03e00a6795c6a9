//! Every SQL statement the actors run, as text: one file per store module (`runtime::store::x`
//! runs `sql::x::…`; the schemas are in [`schema`]); parameters are documented on each statement.
//! The statements are plain `const`s so that two engines run the very same text: the Durable
//! Object's SQLite (through `runtime::store`, the only module that calls `sql.exec`) and, in the
//! native property tests, bundled SQLite through `rusqlite`.
//!
//! Conventions: numbers bound from JavaScript arrive as REAL (the runtime's SQL binding takes
//! JavaScript numbers), so every numeric column is INTEGER (which converts them back) and no number
//! is ever bound into a TEXT column (it would be stored as `'5.0'`); booleans are 0/1; Slack ids and
//! `ts` values are TEXT. Positional `?NNN` parameters are used so one value can appear twice.

pub mod admin;
pub mod directory;
pub mod ingest;
pub mod installation;
pub mod known;
pub mod lean;
pub mod migrate;
pub mod outbox;
pub mod schema;
pub mod state;
