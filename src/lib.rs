//! # slackline
//!
//! A Slack app backend for Cloudflare Workers that never loses an event Slack was told we received:
//! each request is verified, recorded durably with the work it calls for (one atomic unit in the
//! team's Durable Object) *before* the 200, and the work is delivered at least once from a
//! transactional outbox by the actor's alarm.
//!
//! # Writing a bot
//!
//! slackline is a library: a bot is its own crate that depends on it. The bot imports the
//! [`prelude`] (the listener API and what its handlers receive), lists its listeners, and becomes
//! a Worker with one call of [`worker!`]:
//!
//! ```
//! use slackline::prelude::*;
//!
//! fn app() -> Listeners {
//!     Listeners::new()
//!         .mention(|m, cx| { cx.reply(&format!("Hi! You said: {}", m.words())); Ok(()) })
//!         .message(Pattern::contains("deploy"), |_, cx| { cx.react("rocket"); Ok(()) })
//!         .command("/status", |_, cx| { cx.ack_ephemeral("All green."); Ok(()) })
//! }
//!
//! slackline::worker!(app);
//! ```
//!
//! A handler is pure, and that is the point: it runs inside the team actor's atomic unit, while
//! Slack waits, and answers with effects (`cx.reply`, `cx.react`, `cx.open_modal`, any Web API
//! call, `cx.schedule(key, when)…`) that are committed with the event's receipt and performed
//! after the 200, at least once, paced by Slack's rate limits. An `Err` (or a panic) is recorded
//! too, its event parked for a redrive. `docs/app.md` has every listener and helper; `template/`
//! is a bot to start from (`make new`), and `examples/` has four (`echo`, the shipped
//! [`DefaultApp`](app::DefaultApp); `hello`; `triage`; `digest`).
//!
//! **The test kit.** [`testing`] runs an app natively, with no runtime: Slack-shaped payloads
//! built through the Worker's own parsers, [`testing::handle`] to run the app on one, and
//! [`testing::Handled`] to read what the team actor would record: the ack, the Web API calls,
//! every effect as plain values ([`testing::Queued`]: method, arguments, schedule, what it
//! cancels), the state written. [`testing::Team`] keeps a team's state across requests.
//!
//! ```
//! use slackline::prelude::*;
//! use slackline::testing::{handle, mention};
//!
//! let app = Listeners::new().mention(|m, cx| { cx.reply(&format!("You said: {}", m.words())); Ok(()) });
//! let done = handle(&app, &mention("C1", "U1", "<@UBOT> hello"));
//! assert_eq!(done.calls()[0].1["text"], "You said: hello");
//! ```
//!
//! The prelude, the test kit and the macro are all a bot names of slackline (`tests/layout.rs`
//! holds the examples and the template to it). The modules below are the backend they sit on.
//!
//! # Layout
//!
//! The code follows the two paths of `docs/architecture.md`: the **request path** (the Worker's
//! front door verifies and parses the request; the team actor runs the app and records the
//! receipt, the outbox rows and the state writes in one unit; then the 200) and the **alarm path**
//! (the team actor's sweep claims due rows, performs them, and stores each outcome fenced by its
//! claim). Every decision on both is made in the pure core; the adapters only carry it out.
//!
//! Pure core (no `worker::` imports; tested natively with `cargo test`):
//! - [`slack::signature`]: Slack's request signature check;
//! - [`slack::envelope`]: every request body parsed into one enum, [`slack::envelope::Inbound`];
//! - [`slack::classify`]: what Slack's answers mean (success / transient / permanent);
//! - [`slack::method`]: every Slack Web API method name slackline uses, written once;
//! - [`admission`]: the front door's first decision, from the headers alone: a request's
//!   deadline, or shed at once;
//! - [`app`]: the app's handlers (pure): the listener API ([`app::listen`]) and the shipped
//!   [`app::DefaultApp`];
//! - [`blocks`]: typed Block Kit: builders that serialize to Slack's JSON, the ids a view and
//!   its handler share ([`blocks::Field`], [`blocks::ActionId`]), Slack's limits checked;
//! - [`state`]: app state: the handler's view (reads now, writes with the unit), its limits, the
//!   reader trait and an in-memory store;
//! - [`ingest`]: the ingest unit's outcome, the team actor's typed answer to the front door;
//! - [`outbox`]: the outbox state machine, the sweep's timing, the pacer and the [`outbox::retry`]
//!   policy (clock and jitter passed in);
//! - [`kinds`]: the kinds of work: [`kinds::registry`] (the effects an app asks for, keyed by the
//!   fact they react to, and what each kind of row does), and one room each: [`kinds::notify`] (the notify API's
//!   messages with an idempotency key, versioned status messages), [`kinds::lists`] (records
//!   mirrored into Slack Lists: the column map, create outcomes, reconciliation),
//!   [`kinds::assistant`] (streamed LLM answers: the model's events, the answer's state machine,
//!   its checkpoints), [`kinds::schedule`] (scheduled effects: due times, their keys,
//!   recurrence, what a cancel decides), [`kinds::respond_url`] (answers posted to a
//!   `response_url`), [`kinds::redrive`] (failed handlers' requests, parked and run again) and
//!   [`kinds::llm`] (LLM replies: the request, the answer's text), [`kinds::slack_api`] (a
//!   handler's Web API call) and [`kinds::post`] (a post
//!   read back before it is sent again after an unknown outcome: the key in its metadata, the
//!   read's window, the decision);
//! - [`routes`]: the admin and service API routes, parsed once, and the one JSON error body;
//! - [`lockout`]: failed-token lockout per client;
//! - [`url_parts`]: a request URL's query and origin, without the `url` crate;
//! - [`sql`]: every SQL statement, run by the actors and by the native property tests;
//! - [`oauth`]: the install flow's signed state, URLs, answers and pages;
//! - [`crypto`]: tokens at rest (AES-256-GCM with key ids);
//! - [`admin`]: the admin API's answers and the admin page (session cookie, HTML);
//! - [`config`]: one typed configuration, and the [`Vars`](config::Vars) an app reads;
//! - [`logs`]: every log line, as types (the fields `docs/operations.md` lists);
//! - [`meter`]: the cost meter's tallies (rows read and written per statement, alarms), for the
//!   cost benchmark.
//!
//! The Slack simulator (`slackline-sim`: a fake Slack, its command line and the flows' scripts)
//! is a crate of its own (`sim/`), a dev-dependency of the bots and tests that run flows: a bot's
//! own build and tests compile none of it.
//!
//! Thin adapters (`runtime`, wasm32 only; tested end to end in workerd):
//! - `runtime::front_door`: the Worker's `fetch`: verify, parse, route, wait for the actor;
//! - `runtime::team`: the `TeamActor` Durable Object: the atomic ingest unit and the alarm;
//! - `runtime::sweep`: the alarm path: the delivery loop (each row's job is picked by
//!   `kinds::perform`, in the kind's room);
//! - `runtime::directory`: the `Directory` Durable Object: the teams, consumed OAuth states;
//! - `runtime::store`: the engine's statements (ingest, outbox, admin, directory), bound and run.
//!
//! Beneath them, `platform` (wasm32 only): the primitives that know no kind, route or actor —
//! the only SQL execution and the row inserts, the app state's store, the only module that calls
//! `Fetch`, the pacer, time, logs, settings.
#![warn(missing_docs)]

pub mod admin;
pub mod admission;
pub mod app;
pub mod blocks;
pub mod config;
pub mod crypto;
mod html;
pub mod ingest;
pub mod kinds;
pub mod lockout;
pub mod logs;
pub mod meter;
pub mod oauth;
pub mod outbox;
pub mod prelude;
pub mod routes;
pub mod slack;
pub mod sql;
pub mod state;
pub mod testing;
pub mod url_parts;
pub mod wire;

/// The adapters between the pure core and the Workers runtime (wasm32 only): the front door, the
/// team and directory actors, the sweep. A bot's crate reaches them through [`worker!`].
#[cfg(target_arch = "wasm32")]
pub mod runtime;

/// The wasm32 primitives beneath the actors and the kinds' jobs and stores: statement execution,
/// row inserts, HTTP, the pacer, time, logs, settings. Knows no kind, route or actor.
#[cfg(target_arch = "wasm32")]
pub mod platform;

/// Makes this crate a Cloudflare Worker running slackline with the app `make_app` builds (an
/// `impl slackline::app::App`, e.g. a [`Listeners`](prelude::Listeners)): exports the Worker's
/// `fetch` and the two Durable Object classes its `wrangler.toml` binds, `TeamActor` and
/// `Directory`. `make_app` is `fn() -> impl App`, or `fn(&Vars) -> impl App` (the prelude's
/// [`Vars`](prelude::Vars)) for an app that reads settings of its own (its vars and secrets, once,
/// when the team actor starts: see [`app::MakeApp`]). One call, in the bot's `src/lib.rs`; the
/// bot's crate also depends on `worker` (`=0.8.7`), whose macros the expansion uses. On other
/// targets (the bot's native tests) it expands to nothing.
///
/// ```ignore
/// use slackline::prelude::*;
///
/// fn app() -> Listeners {
///     Listeners::new().mention(|_, cx| { cx.reply("hi"); Ok(()) })
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

                async fn alarm(&self) -> ::worker::Result<::worker::Response> {
                    self.inner.alarm().await
                }
            }
        }
    };
}
