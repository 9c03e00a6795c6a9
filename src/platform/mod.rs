//! The wasm32 primitives every actor, the engine's store and each kind's job and store stand on:
//! nothing here knows a kind of work, a route or an actor. It imports no module of
//! `crate::runtime` (`tests/layout.rs` checks it), so a kind's wasm32 code can use it without
//! reaching into the actors.
//!
//! - [`exec`]: running a statement, binding values, `transactionSync` (the only SQL execution);
//! - [`rows`]: the row primitives every kind's store builds on (insert a row unless its key is
//!   taken, queue a serial job, note a delivered row, the team key, the held lanes);
//! - [`state`]: app state over the actor's SQLite (no kind's: every handler's, every job's): the
//!   handlers' reader, the unit's writes, remembered answers, a post's thread read at delivery;
//! - [`http`]: the only module that calls `Fetch` (Slack's Web API behind the pacer, other
//!   endpoints), over [`js`], the runtime's own fetch objects;
//! - [`pacing`]: the team's pacer as one attempt's Slack calls see it (Slack's rate limits);
//! - [`app_run`]: the app run for a claimed row (a redrive, a schedule's firing): its context and
//!   what its completion stores;
//! - [`job`]: one claimed row's job, the context every kind's job takes (`Job::call_slack`,
//!   `Job::post`); [`credential`]: the bot token at delivery time, over [`installation`] (the
//!   stored installation and the single-flight refresh slot);
//! - [`env`], [`log`], [`clock`]: configuration, JSON log lines, time and randomness;
//! - [`meter`]: the cost meter (rows read and written, alarms), test builds only.

pub mod clock;
pub mod credential;
pub mod env;
pub mod exec;
pub mod http;
pub mod installation;
pub mod js;
pub mod log;
pub mod meter;
pub mod pacing;
pub mod rows;
pub mod state;
