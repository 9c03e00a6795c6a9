//! The wire between the Worker (the front door) and the Durable Objects, and how two releases
//! understand each other across it, pure.
//!
//! During a deploy two releases run side by side: Cloudflare may defer a deploy's Durable Object
//! code update by minutes while the Worker switches at once (wrangler's
//! `--durable-objects-code-update-mode`), and a gradual deployment serves two versions for as long
//! as the operator says. So a front door of release N meets actors of N−1 and N+1, and the other
//! way round. Every message therefore says what it is, in a form both sides read:
//!
//! - **A version on both sides.** The front door sends [`HEADER`] with its [`VERSION`] on every
//!   call to an actor; an actor answers with its own on every response (errors included). A
//!   release before this one sends and answers none (version 0).
//! - **A route in two forms** ([`RouteForm`]). The *header form* (path `/admin` or `/api`, the
//!   route in `routes::ROUTE_HEADER`) is what the releases from 9aab1a5 to this one understand;
//!   the *path form* (the route as the path after `/admin/teams/{team}` or `/api/teams/{team}`,
//!   with its own method) is what the releases before them understood. This release's actor
//!   reads both ([`classify`]); its front door sends the header form and, when an actor that
//!   names no version answers 404, the path form once more ([`retry_in_path_form`]).
//! - **A Slack request as Slack's own words.** The ingest's body is the `Dispatch` JSON, which
//!   carries each event as Slack sent it (`raw`): the actor parses the event again from that
//!   (`Dispatch::from_wire`), so an event type one release knows and the other does not is
//!   understood by the actor that runs the handler, and an event in a shape this release does not
//!   know is an `Event::Other` here, never a refusal. Unknown fields are ignored everywhere.
//! - **What cannot be understood is retryable.** A route or a body the actor cannot read, when
//!   the front door could, means the two are different releases: the actor answers 503
//!   [`MISMATCH`] with `Retry-After` ([`RETRY_AFTER_S`]) and writes nothing. Slack retries the
//!   event (the front door answers it 500), an API client retries its call (docs/api.md), and by
//!   then the deploy has usually finished.
//!
//! Invariant: a message either reaches the code that understands it or is refused before any
//! write with a status its sender retries; nothing acknowledged depends on both releases agreeing.

use crate::routes::{AdminRoute, ApiRoute, Verb};

/// This release's wire version.
pub const VERSION: u32 = 1;

/// [`VERSION`] as [`HEADER`] carries it (a test holds the two equal).
pub const VERSION_TEXT: &str = "1";

/// The header that carries the sender's wire version, both ways.
pub const HEADER: &str = "x-slackline-wire";

/// The error code of a message the actor cannot understand (503, retryable).
pub const MISMATCH: &str = "release_mismatch";

/// The `Retry-After` (seconds) of a [`MISMATCH`].
pub const RETRY_AFTER_S: u32 = 5;

/// The version a [`HEADER`] value names: 0 when absent (a release before this wire) or unreadable.
pub fn version_of(value: Option<&str>) -> u32 {
    value.and_then(|v| v.trim().parse().ok()).unwrap_or(0)
}

/// How a routed call travels to the actor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteForm {
    /// Path `/admin` (always POST) or `/api` (the route's method), the route in
    /// `routes::ROUTE_HEADER`: releases from 9aab1a5 on.
    Header,
    /// The route as the path (`/admin/outbox/7`, `/messages`, `/lists/F1/records/r1`) with its own
    /// method: the releases before.
    Path,
}

/// A routed call as it leaves the front door: method, path and route header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outgoing {
    /// The method.
    pub verb: Verb,
    /// The actor's path, without the query string.
    pub path: String,
    /// The value of `routes::ROUTE_HEADER` (sent in both forms; the path form's readers ignore it).
    pub route: String,
}

/// A route the front door forwards to a team actor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Routed {
    /// An admin route.
    Admin(AdminRoute),
    /// A service API route.
    Api(ApiRoute),
}

impl Routed {
    /// The call in `form`.
    pub fn outgoing(&self, form: RouteForm) -> Outgoing {
        let route = match self {
            Routed::Admin(r) => r.to_header(),
            Routed::Api(r) => r.to_header(),
        };
        let (method, canonical) = route.split_once(' ').unwrap_or(("GET", ""));
        let verb = Verb::parse(method);
        let (verb, path) = match (self, form) {
            (Routed::Admin(_), RouteForm::Header) => (Verb::Post, "/admin".to_string()),
            (Routed::Api(_), RouteForm::Header) => (verb, "/api".to_string()),
            (Routed::Admin(_), RouteForm::Path) => (verb, format!("/admin/{canonical}")),
            (Routed::Api(_), RouteForm::Path) => (verb, format!("/{canonical}")),
        };
        Outgoing { verb, path, route }
    }
}

/// Whether the front door sends a routed call again in the path form: the actor answered 404 and
/// named no wire version, so it may be a release that reads routes only from the path. (An actor
/// of this release or later names its version, and its 404 is an answer.)
pub fn retry_in_path_form(status: u16, answered: Option<&str>) -> bool {
    status == 404 && answered.is_none()
}

/// Of the two answers of a call sent in both forms, the one to keep: the path form's, unless it
/// is a 404 too (then the actor read the header form and its 404 was the answer).
pub fn kept_answer(path_form_status: u16) -> Kept {
    match path_form_status {
        404 => Kept::First,
        _ => Kept::Second,
    }
}

/// Which answer [`kept_answer`] keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// The header form's.
    First,
    /// The path form's.
    Second,
}

/// What a request to a team actor is, by its method, path and route header: every form any
/// release's front door sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActorRequest {
    /// `POST /ingest`: a Slack request's dispatch.
    Ingest,
    /// `POST /installation`: the OAuth flow's installation.
    Install,
    /// `POST /rate-limited`: Slack's `app_rate_limited` notice.
    RateLimited,
    /// `POST /housekeep`: the directory's housekeeping wake (`runtime::directory`). A release
    /// before it answers [`MISMATCH`]; the directory tries again later.
    Housekeep,
    /// An admin or service API route, in either form.
    Routed(Routed),
    /// Nothing this release knows: a newer release's route (or a bug). Answered [`MISMATCH`].
    NotUnderstood,
}

/// The path the front door posts `app_rate_limited` notices to.
pub const RATE_LIMITED_PATH: &str = "/rate-limited";

/// The path the directory wakes a team actor's housekeeping at.
pub const HOUSEKEEP_PATH: &str = "/housekeep";

/// Classifies a request to a team actor: `verb`, `path` (without the query string) and the value
/// of `routes::ROUTE_HEADER`, if any.
pub fn classify(verb: Verb, path: &str, route: Option<&str>) -> ActorRequest {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let understood = match (verb, segments.as_slice()) {
        (Verb::Post, ["ingest"]) => Some(ActorRequest::Ingest),
        (Verb::Post, ["installation"]) => Some(ActorRequest::Install),
        (Verb::Post, ["rate-limited"]) => Some(ActorRequest::RateLimited),
        (Verb::Post, ["housekeep"]) => Some(ActorRequest::Housekeep),
        (_, ["admin"]) => route.and_then(|r| AdminRoute::from_header(r).ok()).map(|r| ActorRequest::Routed(Routed::Admin(r))),
        (_, ["api"]) => route.and_then(|r| ApiRoute::from_header(r).ok()).map(|r| ActorRequest::Routed(Routed::Api(r))),
        (verb, ["admin", rest @ ..]) => AdminRoute::parse(verb, rest).ok().map(|r| ActorRequest::Routed(Routed::Admin(r))),
        (verb, all @ (["messages", ..] | ["status", ..] | ["lists", ..])) => ApiRoute::parse(verb, all).ok().map(|r| ActorRequest::Routed(Routed::Api(r))),
        _ => None,
    };
    understood.unwrap_or(ActorRequest::NotUnderstood)
}

#[cfg(test)]
mod tests;
