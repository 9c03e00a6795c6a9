//! The Worker's `fetch`: stateless. It verifies each Slack request, parses it, forwards it to the
//! team actor of its installation, and waits for the actor at most until the request's
//! [`Deadline`]. It never calls Slack, looks up a token or calls an LLM: all of that happens after
//! the ack, in the actor.
//!
//! The deadline is decided at the door, from the headers alone (`crate::admission`): the arrival
//! (the start of `fetch`) plus `ACK_BUDGET_MS`, or earlier when the request's signed timestamp
//! says Slack's own 3 s end sooner — the request waited before the Worker ran. One with too little
//! of Slack's time left is shed: a 500 before its body is read. Reading, verifying and parsing the
//! body spend the budget too. The deadline goes to the actor with the request, and a request that
//! reaches the actor after it is not recorded (the actor answers `too_late`): under overload the
//! actor does not spend its time on answers the front door has stopped waiting for. So a 200 is
//! always sent after the commit, and the front door stops waiting at the deadline. Not bounded: a
//! timer that fires late on a saturated isolate (see docs/delivery.md, "Overload").
//!
//! Order of checks for a Slack route: signing secret configured (else 500) → body size (413,
//! before any hashing) → signature and timestamp (401) → content type (415) → parse (400). Every
//! error is mapped to HTTP in one place, [`FrontDoorError::into_response`] (in `runtime::error`, so
//! the modules the front door calls can return it without importing the front door).

use super::error::FrontDoorError;
use super::test_hooks::TestHooks;
use super::{admin, api, header, next_release, oauth, team};
use crate::admission::{Arrival, Door};
use crate::config::{Config, MAX_BODY_BYTES};
use crate::ingest::{Deadline, IngestOutcome, Receipt};
use crate::logs::{Alert, ErrorLine, LogLine, RequestLine, RequestVerdict};
use crate::platform::{clock, env, log};
use crate::slack::envelope::{self, Dispatch, Inbound, ParseError};
use crate::slack::rate_limited::RateLimitedNotice;
use crate::slack::signature;
use futures::StreamExt;
use serde_json::json;
use worker::{Env, Method, Request, Response};

impl From<team::Late> for FrontDoorError {
    fn from(late: team::Late) -> Self {
        match late {
            team::Late::OverBudget => FrontDoorError::ActorTimeout,
            team::Late::Failed(e) => FrontDoorError::from(e),
        }
    }
}

/// The three Slack routes, each with its body format.
#[derive(Debug, Clone, Copy)]
enum SlackRoute {
    Events,
    Commands,
    Interactivity,
}

impl SlackRoute {
    fn path(self) -> &'static str {
        match self {
            SlackRoute::Events => "/slack/events",
            SlackRoute::Commands => "/slack/commands",
            SlackRoute::Interactivity => "/slack/interactivity",
        }
    }

    fn content_type(self) -> &'static str {
        match self {
            SlackRoute::Events => "application/json",
            _ => "application/x-www-form-urlencoded",
        }
    }

    fn parse(self, body: &[u8]) -> Result<Inbound, ParseError> {
        match self {
            SlackRoute::Events => envelope::parse_events_body(body),
            SlackRoute::Commands => envelope::parse_command_form(body),
            SlackRoute::Interactivity => envelope::parse_interaction_form(body),
        }
    }
}

/// The Worker's `fetch`: every request. A bot's crate exports it through `slackline::worker!`.
pub async fn fetch(req: Request, env: Env, _ctx: worker::Context) -> worker::Result<Response> {
    let started = clock::now_ms();
    let path = req.path();
    let config = match env::config(&env) {
        Ok(config) => config,
        Err(e) => {
            log::error(LogLine::ConfigError(ErrorLine::new(&e)));
            return Ok(FrontDoorError::Internal(e.to_string()).into_response());
        }
    };
    match route(req, &env, &config, started).await {
        Ok(response) => Ok(response),
        Err(e) => {
            let line = RequestLine { route: path, reason: Some(e.label()), ack_ms: clock::now_ms() - started, ..RequestLine::default() };
            if matches!(e, FrontDoorError::NotConfigured(_) | FrontDoorError::Internal(_) | FrontDoorError::ActorTimeout | FrontDoorError::Shed { .. }) {
                log::error(line);
            } else {
                log::emit(line);
            }
            Ok(e.into_response())
        }
    }
}

async fn route(req: Request, env: &Env, config: &Config, started: i64) -> Result<Response, FrontDoorError> {
    let path = req.path();
    let hooks = TestHooks::read(&req, config);
    // The clock for signature timestamps and install states: the Workers clock, or the test clock.
    let now = hooks.now_ms.unwrap_or(started);
    match (req.method(), path.as_str()) {
        (Method::Get, "/healthz") => health(config),
        (Method::Get, "/slack/install") => Ok(oauth::install(&req, config, now)?),
        (Method::Get, "/slack/oauth_redirect") => Ok(oauth::redirect(&req, env, config, now).await?),
        (Method::Post, "/slack/events") => slack(req, env, config, SlackRoute::Events, (started, now), &hooks).await,
        (Method::Post, "/slack/commands") => slack(req, env, config, SlackRoute::Commands, (started, now), &hooks).await,
        (Method::Post, "/slack/interactivity") => slack(req, env, config, SlackRoute::Interactivity, (started, now), &hooks).await,
        (_, p) if p == "/admin" || p.starts_with("/admin/") => admin::route(req, env, config, &hooks).await,
        (_, p) if p.starts_with("/api/") => api::route(req, env, config, &hooks).await,
        _ => Err(FrontDoorError::NotFound),
    }
}

fn health(config: &Config) -> Result<Response, FrontDoorError> {
    let ready = config.signing_secret.is_some();
    let body = json!({
        "ok": ready,
        "service": "slackline",
        "version": env!("CARGO_PKG_VERSION"),
        "signing_secret": if ready { "set" } else { "missing" },
        "warnings": config.warnings,
    });
    Ok(Response::from_json(&body)?.with_status(if ready { 200 } else { 503 }))
}

/// A Slack route: `started` is when the request arrived, `now` the clock its signature is checked
/// against (the test clock, when allowed).
async fn slack(
    mut req: Request,
    env: &Env,
    config: &Config,
    route: SlackRoute,
    (started, now): (i64, i64),
    hooks: &TestHooks,
) -> Result<Response, FrontDoorError> {
    let secret = config.signing_secret.as_ref().ok_or(FrontDoorError::NotConfigured("SLACK_SIGNING_SECRET"))?;
    let (ts, sig) = (header(&req, "x-slack-request-timestamp"), header(&req, "x-slack-signature"));
    let retry_num = header(&req, "x-slack-retry-num");
    let deadline = match Arrival::new(started, now, ts.as_deref(), retry_num.as_deref()).door(config.ack_budget_ms) {
        Door::Admit(deadline) => deadline,
        Door::Shed { age_ms } => return Err(FrontDoorError::Shed { age_ms }),
    };
    let body = read_capped(&mut req, MAX_BODY_BYTES).await?;
    let now_secs = now.div_euclid(1000);
    signature::verify(secret, ts.as_deref(), sig.as_deref(), &body, now_secs).map_err(FrontDoorError::BadSignature)?;
    let content_type = header(&req, "content-type").unwrap_or_default();
    if !content_type.to_ascii_lowercase().starts_with(route.content_type()) {
        return Err(FrontDoorError::WrongContentType);
    }
    let inbound = route.parse(&body).map_err(FrontDoorError::Malformed)?;
    let mut line = RequestLine { route: route.path().into(), retry_num, retry_reason: header(&req, "x-slack-retry-reason"), ..RequestLine::default() };
    let response = answer(inbound, (env, config), deadline, &mut line, hooks).await?;
    line.ack_ms = clock::now_ms() - started;
    log::emit(line);
    Ok(response)
}

/// Reads the body, refusing (413) as soon as it is known to exceed `limit`: from Content-Length
/// (then the body is read whole, in one promise: the runtime holds it to that length), or while
/// streaming when there is none.
async fn read_capped(req: &mut Request, limit: usize) -> Result<Vec<u8>, FrontDoorError> {
    match header(req, "content-length").and_then(|v| v.parse::<usize>().ok()) {
        Some(len) if len > limit => return Err(FrontDoorError::TooLarge),
        Some(_) => {
            let body = req.bytes().await?;
            return if body.len() > limit { Err(FrontDoorError::TooLarge) } else { Ok(body) };
        }
        None => {}
    }
    let mut body = Vec::new();
    let Ok(mut stream) = req.stream() else { return Ok(body) };
    while let Some(chunk) = stream.next().await {
        let chunk = chunk?;
        if body.len() + chunk.len() > limit {
            return Err(FrontDoorError::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Answers a verified, parsed request; fills the log line's verdict.
async fn answer(
    inbound: Inbound,
    (env, config): (&Env, &Config),
    deadline: Deadline,
    line: &mut RequestLine,
    hooks: &TestHooks,
) -> Result<Response, FrontDoorError> {
    match inbound {
        Inbound::UrlVerification { challenge } => {
            line.verdict = RequestVerdict::UrlVerification;
            Ok(Response::from_json(&json!({ "challenge": challenge }))?)
        }
        Inbound::SslCheck => {
            line.verdict = RequestVerdict::SslCheck;
            Ok(Response::empty()?)
        }
        Inbound::AppRateLimited { team_id, minute_rate_limited } => {
            line.verdict = RequestVerdict::Ignored;
            line.reason = Some("app_rate_limited".into());
            line.team = Some(team_id.clone());
            line.alert = Some(Alert::AppRateLimited);
            line.minute_rate_limited = Some(minute_rate_limited);
            note_rate_limited(env, &team_id, minute_rate_limited, deadline).await?;
            Ok(Response::empty()?)
        }
        Inbound::Unknown { kind } => {
            line.verdict = RequestVerdict::Ignored;
            line.reason = Some("unknown_envelope_type".into());
            line.type_name = Some(kind);
            Ok(Response::empty()?)
        }
        Inbound::Dispatch(dispatch) => dispatch_to_actor(dispatch, (env, config), deadline, line, hooks).await,
    }
}

async fn dispatch_to_actor(
    d: Dispatch,
    (env, config): (&Env, &Config),
    deadline: Deadline,
    line: &mut RequestLine,
    hooks: &TestHooks,
) -> Result<Response, FrontDoorError> {
    line.team = Some(d.team_key().into());
    line.op_key = Some(d.op_key().into());
    line.type_name = Some(d.type_name().into());
    let outcome = record_at_actor((env, config), &d, deadline, hooks).await?;
    line.verdict = outcome.verdict().into();
    line.queued = match outcome.receipt {
        Receipt::New { queued, .. } => Some(queued),
        Receipt::Duplicate => None,
    };
    line.reason = outcome.ignored;
    if line.reason.as_deref() == Some(crate::outbox::reasons::HANDLER_FAILED) {
        line.alert = Some(Alert::HandlerFailed);
    }
    match outcome.ack {
        Some(ack) if !ack.is_null() => Ok(Response::from_json(&ack)?),
        _ => Ok(Response::empty()?),
    }
}

/// The budget left before `deadline`; a 500 (`ActorTimeout`) if it is spent already, so the actor is
/// not even called.
fn time_left(deadline: Deadline) -> Result<i64, FrontDoorError> {
    match deadline.remaining_ms(clock::now_ms()) {
        left if left > 0 => Ok(left),
        _ => Err(FrontDoorError::ActorTimeout),
    }
}

/// Has the team's actor count an `app_rate_limited` notice (for its stats), within the ack budget.
/// A notice without a team (Slack always names one) is only logged. Failing, it answers 500, as
/// an event would, so that Slack may send it again.
async fn note_rate_limited(env: &Env, team_id: &str, minute: i64, deadline: Deadline) -> Result<(), FrontDoorError> {
    if team_id.is_empty() {
        return Ok(());
    }
    let left_ms = time_left(deadline)?;
    let body = serde_json::to_string(&RateLimitedNotice { minute_rate_limited: minute }).map_err(|e| FrontDoorError::Internal(e.to_string()))?;
    let team::Answer { status, text, .. } = team::call_within(env, team_id, Method::Post, crate::wire::RATE_LIMITED_PATH, Some(body), None, left_ms).await?;
    match status {
        200 => Ok(()),
        _ => Err(FrontDoorError::Internal(format!("actor answered {status}: {text}"))),
    }
}

/// Sends the dispatch to its team actor and waits for the recorded outcome until `deadline` (past
/// it the call is aborted: the unit may still commit, and Slack's retry is a duplicate; or the
/// actor reaches the request too late and records nothing, and the retry records it). A budget
/// already spent before the call answers 500 without calling.
async fn record_at_actor((env, config): (&Env, &Config), d: &Dispatch, deadline: Deadline, hooks: &TestHooks) -> Result<IngestOutcome, FrontDoorError> {
    let left_ms = time_left(deadline)?;
    let body = next_release::ingest_body(config, d).map_err(|e| FrontDoorError::Internal(e.to_string()))?;
    let headers = worker::Headers::new();
    headers.set(Deadline::HEADER, &deadline.0.to_string())?;
    next_release::name_version(config, &headers)?;
    if hooks.for_the_actor() {
        hooks.forward(&headers)?;
    }
    let team::Answer { status, text, .. } = team::call_within(env, d.team_key(), Method::Post, "/ingest", Some(body), Some(headers), left_ms).await?;
    match status {
        200 => serde_json::from_str::<IngestOutcome>(&text).map_err(|e| FrontDoorError::Internal(format!("actor's answer is not an ingest outcome: {e}"))),
        503 if text.contains(team::TOO_LATE) => Err(FrontDoorError::ActorTimeout),
        _ => Err(FrontDoorError::Internal(format!("actor answered {status}: {text}"))),
    }
}
