//! The kinds of work, one room each: a kind's pure decisions (its `mod.rs`), its SQL text
//! (`sql.rs`), and, wasm32 only, its store (the statements bound and run, on `platform::exec` and
//! `platform::rows`) and its jobs (each takes a `platform::job::Job` and ends with one
//! `JobOutcome`). A kind is registered with the engine in one place: its `Action` variant
//! (`crate::effect`, with its label and target) and its arm in the sweep's `perform`.
//!
//! Invariant: a room imports the pure core, `platform` and its own files, never the actors
//! (`crate::runtime`) nor another kind's room (`tests/layout.rs` checks both); the actors import
//! the rooms. A room's store and job are the engine's to call, not the crate's API: crate-private
//! in every room ([`notify`]'s jobs are `post` and `status`).
//!
//! The move into rooms is under way (issue 34): [`notify`], [`lists`], [`assistant`] (streamed
//! answers), [`schedule`], [`respond_url`], [`redrive`] and [`llm`] (LLM replies) have theirs;
//! one kind is left, a handler's Web API call (`Action::SlackApi`: posts, updates, reactions),
//! whose job is `runtime/sweep/jobs/slack_api.rs`. [`post`] holds the pure half of a post made
//! once (read back after an unknown outcome), whose wasm32 half is `platform::post`, as every kind
//! that posts uses it.

pub mod assistant;
pub mod lists;
pub mod llm;
pub mod notify;
pub mod post;
pub mod redrive;
pub mod respond_url;
pub mod schedule;
