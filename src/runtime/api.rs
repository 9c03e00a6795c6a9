//! The `/api/…` routes' front half: the `API_TOKEN` bearer check (with the failed-token lockout of
//! `runtime::guard`) and forwarding to the team actor, which owns the data
//! (`runtime::team::{lists, notify}`). Without `API_TOKEN` every `/api/…` route answers 404; a
//! missing or wrong token is 401. Bodies over 64 KiB are refused with 413 before
//! they are forwarded.
//!
//! The path after `/api/teams/{team}` is parsed once into an [`ApiRoute`] (`crate::routes`, which
//! lists them), every id in it checked; the actor gets the typed route and matches it.
//!
//! The front door waits at most `ACK_BUDGET_MS` for the actor (the runtime's
//! `AbortSignal.timeout`, as for an event's ack): past it the answer is 500 and nothing the client
//! can see was promised.

use super::error::FrontDoorError;
use super::test_hooks::TestHooks;
use super::{guard, header, next_release, team};
use crate::config::Config;
use crate::kinds::lists::api::MAX_BODY_BYTES;
use crate::kinds::notify::valid_key;
use crate::routes::{ApiRoute, RouteError, TeamKey, Verb};
use crate::wire::Routed;
use worker::{Env, Request, Response};

/// Serves `/api/...`.
pub async fn route(mut req: Request, env: &Env, config: &Config, hooks: &TestHooks) -> Result<Response, FrontDoorError> {
    let token = config.api_token.as_ref().ok_or(FrontDoorError::NotFound)?;
    let client = guard::client(&req, hooks);
    guard::check(&client)?;
    let bearer = header(&req, "authorization");
    match bearer.as_deref().and_then(|b| b.strip_prefix("Bearer ")) {
        Some(given) if token.matches(given) => {}
        Some(_) => {
            guard::failed(&client);
            return Err(FrontDoorError::Unauthorized);
        }
        None => return Err(FrontDoorError::Unauthorized),
    }
    let path = req.path();
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let ["api", "teams", team, rest @ ..] = segments.as_slice() else {
        return Err(FrontDoorError::NotFound);
    };
    let team = TeamKey::parse(team)?;
    if next_release::forwards(config, req.method() == worker::Method::Post, rest) {
        return next_release_route(env, config, &team).await;
    }
    let route = ApiRoute::parse(Verb::parse(req.method().as_ref()), rest)?;
    let headers = worker::Headers::new();
    headers.set(team::TEAM_HEADER, team.as_str())?;
    if route == ApiRoute::PostMessage {
        let key = header(&req, "idempotency-key").filter(|k| valid_key(k)).ok_or(FrontDoorError::MissingIdempotencyKey)?;
        headers.set(team::IDEMPOTENCY_KEY, &key)?;
    }
    hooks.forward(&headers)?;
    next_release::name_version(config, &headers)?;
    let body = if route.has_body() { Some(body_within_limit(&mut req).await?) } else { None };
    let query = super::query_suffix(&req);
    // At most ACK_BUDGET_MS, like an event's ack: a write not confirmed by then answers 500 and
    // may or may not have been committed (a retry is safe: PUTs are sets, POSTs carry a key).
    let answer = team::call_routed(env, team.as_str(), &Routed::Api(route), &query, body, headers, Some(config.ack_budget_ms)).await?;
    Ok(answer.into_response()?)
}

/// The route only the tests' next release has (`next_release::ROUTE`), forwarded in the header
/// form: an actor of this release answers it as a release mismatch (503, retryable).
async fn next_release_route(env: &Env, config: &Config, team: &TeamKey) -> Result<Response, FrontDoorError> {
    let headers = worker::Headers::new();
    headers.set(crate::routes::ROUTE_HEADER, next_release::ROUTE)?;
    next_release::name_version(config, &headers)?;
    let answer = team::call_within(env, team.as_str(), worker::Method::Post, "/api", None, Some(headers), config.ack_budget_ms).await?;
    answer.into_response().map_err(FrontDoorError::from)
}

impl From<RouteError> for FrontDoorError {
    fn from(e: RouteError) -> Self {
        match e {
            RouteError::NotFound => FrontDoorError::NotFound,
            RouteError::BadId(why) => FrontDoorError::BadRequest(why.into()),
        }
    }
}

/// The body as text, refused (413) past [`MAX_BODY_BYTES`]: by its declared length first, then
/// by what arrived.
async fn body_within_limit(req: &mut Request) -> Result<String, FrontDoorError> {
    if header(req, "content-length").and_then(|v| v.parse::<usize>().ok()).is_some_and(|n| n > MAX_BODY_BYTES) {
        return Err(FrontDoorError::TooLarge);
    }
    let body = req.text().await?;
    if body.len() > MAX_BODY_BYTES {
        return Err(FrontDoorError::TooLarge);
    }
    Ok(body)
}
