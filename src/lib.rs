//! # slackline
//!
//! A Slack app backend for Cloudflare Workers that never loses an event Slack was told we received:
//! each request is verified, recorded durably with the work it calls for (one atomic unit in the
//! team's Durable Object) *before* the 200, and the work is delivered at least once from a
//! transactional outbox by the actor's alarm.
//!
//! # Layout
//!
//! Pure core (no `worker::` imports; tested natively with `cargo test`):
//! - [`slack::signature`]: Slack's request signature check;
//! - [`slack::envelope`]: every request body parsed into one enum, [`slack::envelope::Inbound`];
//! - [`slack::classify`]: what Slack's answers mean (success / transient / permanent);
//! - [`app`]: the app's handlers (pure): the listener API ([`app::listen`]) and the shipped
//!   [`app::DefaultApp`];
//! - [`testing`]: payload builders and `handle`, to test an app natively;
//! - [`effect`]: the effects an app asks for, keyed by the fact they react to;
//! - [`ingest`]: the ingest unit's outcome, the team actor's typed answer to the front door;
//! - [`lists`]: records mirrored into Slack Lists: the column map, create outcomes, reconciliation;
//! - [`notify`]: the notify API: messages with an idempotency key, versioned status messages;
//! - [`lockout`]: failed-token lockout per client;
//! - [`outbox`]: the outbox state machine and [`outbox::retry`] policy (clock and jitter passed in);
//! - [`routes`]: the admin and service API routes, parsed once, and the one JSON error body;
//! - [`url_parts`]: a request URL's query and origin, without the `url` crate;
//! - [`sql`]: every SQL statement, run by the actors and by the native property tests;
//! - [`oauth`]: the install flow's signed state, URLs, answers and pages;
//! - [`crypto`]: tokens at rest (AES-256-GCM with key ids);
//! - [`admin`]: the admin API's answers and the admin page (session cookie, HTML);
//! - [`config`]: one typed configuration;
//! - [`logs`]: every log line, as types (the fields `docs/operations.md` lists).
//!
//! Native only: [`sim`], the Slack simulator (`slackline-sim`) the end-to-end tests share.
//!
//! Thin adapters (`runtime`, wasm32 only; tested end to end in workerd):
//! - `runtime::front_door`: the Worker's `fetch`: verify, parse, route, wait for the actor;
//! - `runtime::team`: the `TeamActor` Durable Object: the atomic ingest unit and the alarm sweep;
//! - `runtime::store`: the only module that runs SQL;
//! - `runtime::http`: the only module that calls `Fetch`.
#![warn(missing_docs)]

pub mod admin;
pub mod app;
pub mod config;
pub mod crypto;
pub mod effect;
pub mod ingest;
pub mod lists;
pub mod lockout;
pub mod logs;
pub mod notify;
pub mod oauth;
pub mod outbox;
pub mod routes;
#[cfg(not(target_arch = "wasm32"))]
pub mod sim;
pub mod slack;
pub mod sql;
pub mod testing;
pub mod url_parts;

#[cfg(target_arch = "wasm32")]
mod runtime;
