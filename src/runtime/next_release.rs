//! The next release, played by this one on the wire between the Worker and the actors
//! (`TEST_WIRE_NEXT=1`, test builds only: `Config::test_wire_next` is false without slackline's
//! `testkit` feature), so that the tests can run a front door of one release with the actors of
//! the next, both ways (`tests/e2e/releases.rs`). What the next release does here is what
//! `crate::wire` says any later release may do: name a newer version, add fields this release
//! never wrote, send an event in a shape this release does not know (a variant of its own), and
//! serve a route this release does not have ([`ROUTE`]).
//!
//! Every function is the plain release's behaviour unless the setting is on.

use crate::config::Config;
use crate::ingest::IngestOutcome;
use crate::slack::envelope::{Dispatch, Event};
use crate::wire;
use serde_json::{json, Value};
use worker::{Headers, Response};

/// The next release's wire version.
const NEXT_VERSION: &str = "2";

/// A field this release never writes nor reads.
const NEW_FIELD: &str = "field_of_the_next_release";

/// The service API route only the next release has: `POST /api/teams/{team}/next-release`, in
/// the route header's form.
pub const ROUTE: &str = "POST next-release";

/// The path segment of [`ROUTE`] after `/api/teams/{team}/`.
pub const SEGMENT: &str = "next-release";

fn on(config: &Config) -> bool {
    cfg!(feature = "testkit") && config.test_wire_next
}

/// The wire version this build names.
pub fn version(config: &Config) -> &'static str {
    if on(config) {
        NEXT_VERSION
    } else {
        wire::VERSION_TEXT
    }
}

/// Names the version on a call's headers (the plain release lets `runtime::call_actor` do it).
pub fn name_version(config: &Config, headers: &Headers) -> worker::Result<()> {
    if on(config) {
        headers.set(wire::HEADER, NEXT_VERSION)?;
    }
    Ok(())
}

/// The ingest's body: the dispatch's JSON; the next release's with a new field, and an event this
/// release parses as `Other` sent in its own shape (as a variant of a newer release would be).
pub fn ingest_body(config: &Config, dispatch: &Dispatch) -> serde_json::Result<String> {
    if !on(config) {
        return serde_json::to_string(dispatch);
    }
    let mut body = serde_json::to_value(dispatch)?;
    body[NEW_FIELD] = json!({ "since": NEXT_VERSION });
    if let Dispatch::Event(envelope) = dispatch {
        if let Event::Other { .. } = envelope.event {
            body["event"] = envelope.raw.clone();
        }
    }
    Ok(body.to_string())
}

/// The ingest's answer: the outcome's JSON; the next release's with a new field.
pub fn ingest_answer(config: &Config, outcome: &IngestOutcome) -> worker::Result<Response> {
    let mut body = serde_json::to_value(outcome)?;
    if on(config) {
        body[NEW_FIELD] = json!({ "since": NEXT_VERSION });
    }
    Response::from_json(&body)
}

/// The next release's answer to [`ROUTE`], if this build plays it and `route` is it.
pub fn serve(config: &Config, route: Option<&str>) -> Option<Value> {
    (on(config) && route == Some(ROUTE)).then(|| json!({ "ok": true, "served_by": "next_release" }))
}

/// Whether the front door forwards `segments` (after `/api/teams/{team}/`) as [`ROUTE`].
pub fn forwards(config: &Config, post: bool, segments: &[&str]) -> bool {
    on(config) && post && segments == [SEGMENT]
}
