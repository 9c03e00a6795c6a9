//! The team actor's storage, as SQL text. The statements are plain `const`s so that two engines run
//! the very same text: the Durable Object's SQLite (through `runtime::store`, the only module that
//! calls `sql.exec`) and, in the native property tests, bundled SQLite through `rusqlite`.
//!
//! Conventions (see `shared/reference/platform-facts.md` §1.2): numbers bound from JavaScript arrive
//! as REAL, so every numeric column is INTEGER (which converts them back) and no number is ever bound
//! into a TEXT column; booleans are 0/1; Slack ids and `ts` values are TEXT. Positional `?NNN`
//! parameters are used so one value can appear twice.

pub mod sql;
