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
//! [`DefaultApp`](prelude::DefaultApp); `hello`; `triage`; `digest`).
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
//! # The API
//!
//! What a bot writes against is this crate's API, and only it: the [`prelude`] (the listener API
//! and what its handlers receive), [`handler`] (what a handler reaches through those values),
//! [`blocks`] (typed Block Kit), the [`testing`] kit and [`worker!`]. They follow semantic versioning: `CHANGELOG.md` says, for every release that
//! breaks a bot, what to change in it. `tests/layout.rs` holds the examples and the template to
//! these four, and `tests/api.rs` holds the documented surface to its committed listing
//! (`docs/api.txt`), so a change to the API shows in review.
//!
//! Everything else is the backend they sit on, private to the crate. Its modules are reachable
//! as `slackline::internal::…` only for slackline's own tests, benchmarks and simulator: not
//! documented, not stable, changed in any release without a note.
//!
//! # Layout
//!
//! The code follows the two paths of `docs/architecture.md`: the **request path** (the Worker's
//! front door verifies and parses the request; the team actor runs the app and records the
//! receipt, the outbox rows and the state writes in one unit; then the 200) and the **alarm path**
//! (the team actor's sweep claims due rows, performs them, and stores each outcome fenced by its
//! claim). Every decision on both is made in the pure core (no `worker::` imports; tested natively
//! with `cargo test`): `slack` (signatures, every request parsed, what Slack's answers mean),
//! `admission`, `app` (the listener API), `state`, `ingest`, `outbox` (the state machine, the
//! sweep's timing, the pacer, the retry policy), `kinds` (one room per kind of work, and the
//! registry that keys them), `routes`, `sql`, `oauth`, `crypto`, `config`, `logs`. The adapters
//! only carry the decisions out (wasm32 only; tested end to end in workerd): `runtime` (the front
//! door, the `TeamActor` and `Directory` Durable Objects, the sweep, the engine's statements) on
//! `platform` (the primitives that know no kind, route or actor: SQL execution, the only module
//! that calls `Fetch`, the pacer, time, logs, settings). `docs/architecture.md` walks both paths
//! file by file.
//!
//! The Slack simulator (`slackline-sim`: a fake Slack, its command line and the flows' scripts)
//! is a crate of its own (`sim/`), a dev-dependency of the bots and tests that run flows: a bot's
//! own build and tests compile none of it.
#![warn(missing_docs)]

pub mod blocks;
pub mod handler;
pub mod prelude;
pub mod testing;

#[doc(hidden)]
pub mod internal;

mod admin;
mod admission;
mod app;
mod config;
mod crypto;
mod html;
mod ingest;
mod kinds;
mod lockout;
mod logs;
mod meter;
mod oauth;
mod outbox;
mod routes;
mod slack;
mod sql;
mod state;
mod url_parts;
mod wire;

/// The adapters between the pure core and the Workers runtime (wasm32 only): the front door, the
/// team and directory actors, the sweep. A bot's crate reaches them through [`worker!`].
#[cfg(target_arch = "wasm32")]
mod runtime;

/// The wasm32 primitives beneath the actors and the kinds' jobs and stores: statement execution,
/// row inserts, HTTP, the pacer, time, logs, settings. Knows no kind, route or actor.
#[cfg(target_arch = "wasm32")]
mod platform;

/// Makes this crate a Cloudflare Worker running slackline with the app `make_app` builds (an
/// [`App`](prelude::App): a [`Listeners`](prelude::Listeners)): exports the Worker's `fetch` and
/// the two Durable Object classes its `wrangler.toml` binds, `TeamActor` and `Directory`.
/// `make_app` is `fn() -> impl App`, or `fn(&Vars) -> impl App` (the prelude's
/// [`Vars`](prelude::Vars)) for an app that reads settings of its own (its vars and secrets,
/// once, when the team actor starts). One call, in the bot's `src/lib.rs`; the bot's crate also
/// depends on `worker` (`=0.8.7`), whose macros the expansion uses. On other targets (the bot's
/// native tests) it expands to nothing.
///
/// `worker!(app, manifest = "manifest.json")` compiles the bot's Slack app manifest in (the path
/// is from the bot crate's root): an install then asks for the manifest's bot scopes
/// (`oauth_config.scopes.bot`), written once where Slack reads them too, unless the deployment
/// sets `SLACK_BOT_SCOPES`. Without it, an install asks for `SLACK_BOT_SCOPES` or slackline's
/// defaults.
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
    (@serve $make_app:expr, $manifest:expr) => {
        #[cfg(target_arch = "wasm32")]
        mod __slackline_worker {
            // The app's constructor is named where the macro is called.
            #[allow(unused_imports)]
            use super::*;
            use ::worker::wasm_bindgen;

            #[::worker::event(fetch)]
            async fn fetch(req: ::worker::Request, env: ::worker::Env, ctx: ::worker::Context) -> ::worker::Result<::worker::Response> {
                $crate::internal::platform::env::declare_manifest($manifest);
                $crate::internal::runtime::front_door::fetch(req, env, ctx).await
            }

            /// One Durable Object per Slack installation: the receipts, the outbox, the alarm.
            #[::worker::durable_object]
            pub struct TeamActor {
                inner: ::std::panic::AssertUnwindSafe<$crate::internal::runtime::team::TeamActor>,
            }

            impl ::worker::DurableObject for TeamActor {
                fn new(state: ::worker::State, env: ::worker::Env) -> Self {
                    $crate::internal::platform::env::declare_manifest($manifest);
                    let app = $crate::internal::app::make_app(&$make_app, &$crate::internal::platform::env::vars(&env));
                    TeamActor { inner: ::std::panic::AssertUnwindSafe($crate::internal::runtime::team::TeamActor::new(state, env, app)) }
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
                inner: ::std::panic::AssertUnwindSafe<$crate::internal::runtime::directory::Directory>,
            }

            impl ::worker::DurableObject for Directory {
                fn new(state: ::worker::State, env: ::worker::Env) -> Self {
                    $crate::internal::platform::env::declare_manifest($manifest);
                    Directory { inner: ::std::panic::AssertUnwindSafe($crate::internal::runtime::directory::Directory::new(state, env)) }
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
    ($make_app:expr) => {
        $crate::worker!(@serve $make_app, ::core::option::Option::None);
    };
    ($make_app:expr, manifest = $manifest:literal) => {
        $crate::worker!(@serve $make_app, ::core::option::Option::Some(include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/", $manifest))));
    };
}
