//! The engine's SQL: it binds values to the statements in [`crate::sql`] and turns result rows
//! into outcome enums. (Each kind of work runs its own statements in its room, `crate::kinds`.)
//!
//! All-or-nothing units (the ingest unit, a completion with its follow-ups) run inside
//! `transactionSync` (reached through `Storage::as_raw()`, which workers-rs does not bind): if any
//! statement fails, every write of the unit is rolled back, so a receipt never exists without its
//! outbox rows. No `.await` happens inside a unit.
//!
//! - [`ingest`]: the receipt and its outbox rows (and an uninstall) in one unit;
//! - [`outbox`]: claims, fenced completions, the next alarm, housekeeping;
//! - [`admin`]: stats, listings, redrive, discard, audit, benchmark seeding;
//! - [`directory`]: the Directory actor's teams and consumed OAuth states;
//! - [`schema`]: the versioned migrations, run when an actor wakes (each step one unit with its
//!   stamp);
//!
//! The primitives beneath every store — running a statement, `transactionSync`, binding values
//! (`crate::platform::exec`), and the row primitives every kind's store builds on: insert a row
//! unless its key is taken, queue a serial job, note a delivered row, the team key
//! (`crate::platform::rows`) — live in `platform/`, which imports nothing of this module; each
//! kind's own statements live in its room (`crate::kinds`).
//!
//! Callers name the module: `store::outbox::claim`, `store::admin::stats`.

pub mod admin;
pub mod directory;
pub mod ingest;
pub mod outbox;
pub mod schema;
