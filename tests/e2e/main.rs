//! The end-to-end tests: the compiled Worker in workerd (through Miniflare) against the fake
//! Slack, one module per area, in one test binary so that they all share one runtime and fake
//! ([`support::shared`]) and isolate themselves by unique team, channel and event ids. A test that
//! needs other settings, or kills and restarts its runtime, starts its own (`delivery::fast`,
//! `pacing::paced`, the crash tests).
//!
//! `cargo test --test e2e` runs them all; `cargo test --test e2e reliability::` one area (`make
//! soak` runs the reliability suite that way at ten times the load).
#![cfg(not(target_arch = "wasm32"))]

mod support;

mod admin;
mod alarm;
mod answers;
mod assistant;
mod delivery;
mod examples;
mod fire;
mod foundation;
mod handler;
mod ingress;
mod install;
mod lists;
mod middleware;
mod notify;
mod overload;
mod pacing;
mod releases;
mod reliability;
mod retention;
mod schedule;
mod sim;
mod state;
mod steps;
mod tickets;
mod unfurls;
mod upgrade;
