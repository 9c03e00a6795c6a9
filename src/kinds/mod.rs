//! The kinds of work, one room each: a kind's pure decisions (its `mod.rs`), its SQL text
//! (`sql.rs`), and, wasm32 only, its store (the statements bound and run, on `platform::exec` and
//! `platform::rows`) and its jobs (each takes a `kinds::job::Job` and ends with one
//! `JobOutcome`). A kind is registered with the engine in one place: its `Action` variant (in
//! [`registry`], with its label, target and words) and its arm in `perform`.
//!
//! Invariant: a room imports the pure core, `platform` and its own files, never the actors
//! (`crate::runtime`) nor another kind's room (`tests/layout.rs` checks both); the actors import
//! the rooms. A room's store and job are the engine's to call, not the crate's API: crate-private
//! in every room ([`notify`]'s jobs are `post` and `status`).
//!
//! The registry ([`registry`]: `Effect`, `Action`, the serial kinds) names every kind once, with
//! its rate-limit target, label and words; its wasm32 half (`perform`) picks a claimed row's job
//! by its action. Neither is a room: every room may import the registry, and `perform` imports
//! every room's job. Nor is `slack_errors` (tests only): it feeds each room's judge the verdicts
//! the classifier makes of the Slack errors that room names. [`post`] holds the pure half of a post made once (read back after an unknown
//! outcome), whose wasm32 half is `kinds::post::read_back`, as every kind that posts uses it. [`unfurl`]
//! (link previews and Work Objects) is pure only: its effects are Web API calls the registry
//! already performs (`Action::SlackApi`).

pub mod answer;
pub mod assistant;
pub mod completion;
#[cfg(target_arch = "wasm32")]
pub mod job;
pub mod lists;
pub mod llm;
pub mod notify;
#[cfg(target_arch = "wasm32")]
pub(crate) mod perform;
pub mod post;
pub mod redrive;
pub mod registry;
pub mod respond_url;
pub mod schedule;
pub mod schema;
pub mod slack_api;
#[cfg(test)]
mod slack_errors;
pub mod step;
pub mod unfurl;
