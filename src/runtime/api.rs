//! The `/api/…` routes' front half: the `API_TOKEN` bearer check (with the failed-token lockout of
//! `runtime::guard`) and forwarding to the team actor, which owns the data
//! (`runtime::team::{lists, notify}`). Without `API_TOKEN` every `/api/…` route answers 404; a
//! missing or wrong token is 401. Bodies over 64 KiB are refused with 413 before
//! they are forwarded.
//!
//! | method and path | actor route |
//! | --- | --- |
//! | `PUT`, `GET /api/teams/{team}/lists/{list_id}` | `/lists/{list_id}` (the column map) |
//! | `PUT`, `GET`, `DELETE /api/teams/{team}/lists/{list_id}/records/{record_id}` | `/lists/{list_id}/records/{record_id}` |
//! | `GET /api/teams/{team}/lists/{list_id}/records?state=&after=&limit=` | `/lists/{list_id}/records` |
//! | `POST`, `GET /api/teams/{team}/lists/{list_id}/reconcile` | `/lists/{list_id}/reconcile` |
//! | `POST /api/teams/{team}/messages` (`Idempotency-Key`) | `/messages` |
//! | `GET /api/teams/{team}/messages/{id}` | `/messages/{id}` |
//! | `PUT`, `GET /api/teams/{team}/status/{name}` | `/status/{name}` |
//!
//! The front door waits at most `ACK_BUDGET_MS` for the actor, like an event's ack: past it the
//! answer is 500 and nothing the client can see was promised.

use super::error::FrontDoorError;
use super::{guard, header, team, valid_team};
use crate::config::Config;
use crate::lists::api::{valid_list_id, valid_record_id, MAX_BODY_BYTES};
use crate::notify::{valid_key, valid_status_name};
use worker::{Env, Method, Request, Response};

/// Serves `/api/...`.
pub async fn route(mut req: Request, env: &Env, config: &Config) -> Result<Response, FrontDoorError> {
    let token = config.api_token.as_ref().ok_or(FrontDoorError::NotFound)?;
    let client = guard::client(&req, config);
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
    if !valid_team(team) {
        return Err(FrontDoorError::BadRequest("team must be a Slack team or enterprise id".into()));
    }
    let method = req.method();
    let headers = worker::Headers::new();
    headers.set(team::TEAM_HEADER, team)?;
    let actor_path = match (&method, rest) {
        (_, ["lists", list_id, rest @ ..]) => lists_path(&method, list_id, rest)?,
        (Method::Post, ["messages"]) => {
            let key = header(&req, "idempotency-key").filter(|k| valid_key(k)).ok_or(FrontDoorError::MissingIdempotencyKey)?;
            headers.set(team::IDEMPOTENCY_KEY, &key)?;
            "/messages".to_string()
        }
        (Method::Get, ["messages", id]) if id.parse::<i64>().is_ok() => format!("/messages/{id}"),
        (Method::Put | Method::Get, ["status", name]) if valid_status_name(name) => format!("/status/{name}"),
        (Method::Put | Method::Get, ["status", _]) => return Err(FrontDoorError::BadRequest("a status name is 1 to 64 letters, digits, _, - or .".into())),
        _ => return Err(FrontDoorError::NotFound),
    };
    let body = match method {
        Method::Put | Method::Post => Some(body_within_limit(&mut req).await?),
        _ => None,
    };
    if config.allow_test_clock {
        for name in [team::TEST_ACTOR_DELAY, team::TEST_NOW] {
            if let Some(value) = header(&req, name) {
                headers.set(name, &value)?;
            }
        }
    }
    let query = super::query_suffix(&req);
    within_budget(team::call(env, team, method, &format!("{actor_path}{query}"), body, Some(headers)), config.ack_budget_ms).await
}

/// The actor path of a Lists route, after checking its ids.
fn lists_path(method: &Method, list_id: &str, rest: &[&str]) -> Result<String, FrontDoorError> {
    let allowed = matches!(
        (method, rest),
        (Method::Put | Method::Get, [])
            | (Method::Put | Method::Get | Method::Delete, ["records", _])
            | (Method::Get, ["records"])
            | (Method::Post | Method::Get, ["reconcile"])
    );
    if !allowed {
        return Err(FrontDoorError::NotFound);
    }
    if !valid_list_id(list_id) {
        return Err(FrontDoorError::BadRequest("list_id must be a List id (F…)".into()));
    }
    if let ["records", record_id] = rest {
        if !valid_record_id(record_id) {
            return Err(FrontDoorError::BadRequest("record_id must be 1 to 128 letters, digits, _, -, . or :".into()));
        }
    }
    Ok(format!("/lists/{list_id}{}", rest.iter().map(|s| format!("/{s}")).collect::<String>()))
}

/// Waits at most `budget_ms` for the actor: a write that is not confirmed by then answers 500 and
/// may or may not have been committed (a retry is safe: PUTs are sets, POSTs carry a key).
async fn within_budget(call: impl std::future::Future<Output = worker::Result<Response>>, budget_ms: i64) -> Result<Response, FrontDoorError> {
    let timer = worker::Delay::from(std::time::Duration::from_millis(budget_ms as u64));
    futures::pin_mut!(call);
    match futures::future::select(call, timer).await {
        futures::future::Either::Left((answer, _)) => Ok(answer?),
        futures::future::Either::Right(_) => Err(FrontDoorError::ActorTimeout),
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
