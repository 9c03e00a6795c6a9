//! The kinds of work, one room each: a kind's pure decisions (its `mod.rs`), its SQL text
//! (`sql.rs`), and, wasm32 only, its store (the statements bound and run, on `platform::exec` and
//! `platform::rows`) and its jobs (each takes a `platform::job::Job` and ends with one
//! `JobOutcome`). A kind is registered with the engine in one place: its `Action` variant
//! (`crate::effect`, with its label and target) and its arm in the sweep's `perform`.
//!
//! Invariant: a room imports the pure core, `platform` and its own files, never the actors
//! (`crate::runtime`) nor another kind's room (`tests/layout.rs` checks both); the actors import
//! the rooms.
//!
//! The move into rooms is under way (issue 34): [`notify`], [`lists`] and [`assistant`] (streamed
//! answers) have theirs; [`post`] holds the pure half of a post made once (read back after an
//! unknown outcome), whose wasm32 half is `platform::post`, as every kind that posts uses it; the other kinds (posts, `response_url`s, LLM replies, schedules,
//! redrives) still span
//! `effect.rs`, `sql/`, `runtime/store/` and `runtime/sweep/jobs/` as `docs/architecture.md`
//! shows.

pub mod assistant;
pub mod lists;
pub mod notify;
pub mod post;
