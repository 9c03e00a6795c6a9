//! # slackline
//!
//! A Slack app backend for Cloudflare Workers that never loses an event Slack was told we received:
//! each request is verified, recorded durably with the work it calls for (one atomic unit in the
//! team's Durable Object) *before* the 200, and the work is delivered at least once from a
//! transactional outbox by the actor's alarm.
//!
//! slackline is a library: a bot is its own crate that depends on it, builds its app with the
//! listener API ([`app::listen`]) and becomes a Worker with [`worker!`] (see `template/`, and
//! `examples/echo`, the bot the repository serves).
//!
//! # Layout
//!
//! Pure core (no `worker::` imports; tested natively with `cargo test`):
//! - [`slack::signature`]: Slack's request signature check;
//! - [`slack::envelope`]: every request body parsed into one enum, [`slack::envelope::Inbound`];
//! - [`slack::classify`]: what Slack's answers mean (success / transient / permanent);
//! - [`slack::method`]: every Slack Web API method name slackline uses, written once;
//! - [`app`]: the app's handlers (pure): the listener API ([`app::listen`]) and the shipped
//!   [`app::DefaultApp`];
//! - [`state`]: app state: the handler's view (reads now, writes with the unit), its limits, the
//!   reader trait and an in-memory store;
//! - [`testing`]: payload builders and `handle`, to test an app natively;
//! - [`effect`]: the effects an app asks for, keyed by the fact they react to;
//! - [`ingest`]: the ingest unit's outcome, the team actor's typed answer to the front door;
//! - [`lists`]: records mirrored into Slack Lists: the column map, create outcomes, reconciliation;
//! - [`notify`]: the notify API: messages with an idempotency key, versioned status messages;
//! - [`lockout`]: failed-token lockout per client;
//! - [`outbox`]: the outbox state machine and [`outbox::retry`] policy (clock and jitter passed in);
//! - [`routes`]: the admin and service API routes, parsed once, and the one JSON error body;
//! - [`scheduled`]: scheduled effects: due times, their keys, recurrence, what a cancel decides;
//! - [`url_parts`]: a request URL's query and origin, without the `url` crate;
//! - [`sql`]: every SQL statement, run by the actors and by the native property tests;
//! - [`oauth`]: the install flow's signed state, URLs, answers and pages;
//! - [`crypto`]: tokens at rest (AES-256-GCM with key ids);
//! - [`admin`]: the admin API's answers and the admin page (session cookie, HTML);
//! - [`config`]: one typed configuration;
//! - [`logs`]: every log line, as types (the fields `docs/operations.md` lists);
//! - [`meter`]: the cost meter's tallies (rows read and written per statement, alarms), for the
//!   cost benchmark.
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
pub mod admission;
pub mod app;
pub mod assistant;
pub mod config;
pub mod crypto;
pub mod effect;
pub mod ingest;
pub mod lists;
pub mod lockout;
pub mod logs;
pub mod meter;
pub mod notify;
pub mod oauth;
pub mod outbox;
pub mod routes;
pub mod scheduled;
#[cfg(not(target_arch = "wasm32"))]
pub mod sim;
pub mod slack;
pub mod sql;
pub mod state;
pub mod testing;
pub mod url_parts;

/// The adapters between the pure core and the Workers runtime (wasm32 only): the front door, the
/// team and directory actors, the sweep. A bot's crate reaches them through [`worker!`].
#[cfg(target_arch = "wasm32")]
pub mod runtime;

/// The wasm32 primitives beneath the actors and the kinds' jobs and stores: statement execution,
/// row inserts, HTTP, the pacer, time, logs, settings. Knows no kind, route or actor.
#[cfg(target_arch = "wasm32")]
pub mod platform;

/// Makes this crate a Cloudflare Worker running slackline with the app `make_app` builds (an
/// `impl slackline::app::App`, e.g. a [`app::listen::Listeners`]): exports the Worker's `fetch` and
/// the two Durable Object classes its `wrangler.toml` binds, `TeamActor` and `Directory`.
/// `make_app` is `fn() -> impl App`, or `fn(&slackline::app::Vars) -> impl App` for an app that
/// reads settings of its own (its vars and secrets, once, when the team actor starts: see
/// [`app::MakeApp`]). One
/// call, in the bot's `src/lib.rs`; the bot's crate also depends on `worker` (`=0.8.7`), whose
/// macros the expansion uses. On other targets (the bot's native tests) it expands to nothing.
///
/// ```ignore
/// fn app() -> slackline::app::listen::Listeners {
///     slackline::app::listen::Listeners::new().mention(|_, cx| { cx.reply("hi"); Ok(()) })
/// }
/// slackline::worker!(app);
/// ```
#[macro_export]
macro_rules! worker {
    ($make_app:expr) => {
        #[cfg(target_arch = "wasm32")]
        mod __slackline_worker {
            // The app's constructor is named where the macro is called.
            #[allow(unused_imports)]
            use super::*;
            use ::worker::wasm_bindgen;

            #[::worker::event(fetch)]
            async fn fetch(req: ::worker::Request, env: ::worker::Env, ctx: ::worker::Context) -> ::worker::Result<::worker::Response> {
                $crate::runtime::front_door::fetch(req, env, ctx).await
            }

            /// One Durable Object per Slack installation: the receipts, the outbox, the alarm.
            #[::worker::durable_object]
            pub struct TeamActor {
                inner: ::std::panic::AssertUnwindSafe<$crate::runtime::team::TeamActor>,
            }

            impl ::worker::DurableObject for TeamActor {
                fn new(state: ::worker::State, env: ::worker::Env) -> Self {
                    let app = $crate::app::make_app(&$make_app, &$crate::platform::env::vars(&env));
                    TeamActor { inner: ::std::panic::AssertUnwindSafe($crate::runtime::team::TeamActor::new(state, env, app)) }
                }

                async fn fetch(&self, req: ::worker::Request) -> ::worker::Result<::worker::Response> {
                    self.inner.fetch(req).await
                }

                async fn alarm(&self) -> ::worker::Result<::worker::Response> {
                    self.inner.alarm().await
                }
            }

            /// The deployment's directory: the teams, consumed OAuth states.
            #[::worker::durable_object]
            pub struct Directory {
                inner: ::std::panic::AssertUnwindSafe<$crate::runtime::directory::Directory>,
            }

            impl ::worker::DurableObject for Directory {
                fn new(state: ::worker::State, env: ::worker::Env) -> Self {
                    Directory { inner: ::std::panic::AssertUnwindSafe($crate::runtime::directory::Directory::new(state, env)) }
                }

                async fn fetch(&self, req: ::worker::Request) -> ::worker::Result<::worker::Response> {
                    self.inner.fetch(req).await
                }
            }
        }
    };
}
