//! The adapters between the pure core and the Workers runtime (wasm32 only). Each is thin: it
//! reads or writes the outside world and hands everything else to the core.
//!
//! - [`front_door`]: the Worker's `fetch` (stateless): verify, parse, route, wait for the actor;
//! - [`admin`]: the admin API's authentication and forwarding to a team actor;
//! - [`oauth`]: the install flow (`/slack/install`, `/slack/oauth_redirect`);
//! - [`team`]: the `TeamActor` Durable Object: the atomic ingest unit, the installation, the admin
//!   reads, the alarm;
//! - [`directory`]: the `Directory` Durable Object: the list of teams and consumed OAuth states;
//! - [`credential`]: the bot token at delivery time, with single-flight refresh;
//! - [`sweep`]: the alarm's delivery loop;
//! - [`store`]: the only module that runs SQL;
//! - [`http`]: the only module that calls `Fetch`;
//! - [`env`], [`log`], [`clock`]: configuration, JSON log lines, time and randomness.

pub mod admin;
pub mod clock;
pub mod credential;
pub mod directory;
pub mod env;
pub mod front_door;
pub mod http;
pub mod log;
pub mod oauth;
pub mod store;
pub mod sweep;
pub mod team;

/// The value of one request header, if present and readable.
pub fn header(req: &worker::Request, name: &str) -> Option<String> {
    req.headers().get(name).ok().flatten()
}

/// The value of one query parameter of a request's URL.
pub fn query_param(req: &worker::Request, name: &str) -> Option<String> {
    req.url().ok()?.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned())
}

/// An HTML page that no cache keeps (install results and admin pages are per person).
pub fn html_page(status: u16, body: &str) -> worker::Result<worker::Response> {
    let headers = worker::Headers::new();
    headers.set("content-type", "text/html; charset=utf-8")?;
    headers.set("cache-control", "no-store")?;
    Ok(worker::Response::ok(body)?.with_status(status).with_headers(headers))
}
