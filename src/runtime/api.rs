//! The `/api/…` routes' front half: the `API_TOKEN` bearer check and forwarding to the team
//! actor, which owns the data (`runtime::team::lists`). Without `API_TOKEN` every `/api/…` route
//! answers 404; a missing or wrong token is 401. Bodies over 64 KiB are refused with 413 before
//! they are forwarded.
//!
//! | method and path | actor route |
//! | --- | --- |
//! | `PUT`, `GET /api/teams/{team}/lists/{list_id}` | `/lists/{list_id}` (the column map) |
//! | `PUT`, `GET`, `DELETE /api/teams/{team}/lists/{list_id}/records/{record_id}` | `/lists/{list_id}/records/{record_id}` |
//! | `GET /api/teams/{team}/lists/{list_id}/records?state=&after=&limit=` | `/lists/{list_id}/records` |
//! | `POST`, `GET /api/teams/{team}/lists/{list_id}/reconcile` | `/lists/{list_id}/reconcile` |

use super::error::FrontDoorError;
use super::{header, team, valid_team};
use crate::config::Config;
use crate::lists::api::{valid_list_id, valid_record_id, MAX_BODY_BYTES};
use worker::{Env, Method, Request, Response};

/// Serves `/api/...`.
pub async fn route(mut req: Request, env: &Env, config: &Config) -> Result<Response, FrontDoorError> {
    let token = config.api_token.as_ref().ok_or(FrontDoorError::NotFound)?;
    let bearer = header(&req, "authorization");
    if !bearer.as_deref().and_then(|b| b.strip_prefix("Bearer ")).is_some_and(|given| token.matches(given)) {
        return Err(FrontDoorError::Unauthorized);
    }
    let path = req.path();
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let ["api", "teams", team, "lists", list_id, rest @ ..] = segments.as_slice() else {
        return Err(FrontDoorError::NotFound);
    };
    let method = req.method();
    let allowed = matches!(
        (&method, rest),
        (Method::Put | Method::Get, [])
            | (Method::Put | Method::Get | Method::Delete, ["records", _])
            | (Method::Get, ["records"])
            | (Method::Post | Method::Get, ["reconcile"])
    );
    if !allowed {
        return Err(FrontDoorError::NotFound);
    }
    if !valid_team(team) {
        return Err(FrontDoorError::BadRequest("team must be a Slack team or enterprise id".into()));
    }
    if !valid_list_id(list_id) {
        return Err(FrontDoorError::BadRequest("list_id must be a List id (F…)".into()));
    }
    if let ["records", record_id] = rest {
        if !valid_record_id(record_id) {
            return Err(FrontDoorError::BadRequest("record_id must be 1 to 128 letters, digits, _, -, . or :".into()));
        }
    }
    let body = match method {
        Method::Put => Some(body_within_limit(&mut req).await?),
        _ => None,
    };
    let query = req.url()?.query().map(|q| format!("?{q}")).unwrap_or_default();
    let actor_path = format!("/lists/{list_id}{}{query}", rest.iter().map(|s| format!("/{s}")).collect::<String>());
    let headers = worker::Headers::new();
    headers.set(team::TEAM_HEADER, team)?;
    Ok(team::call(env, team, method, &actor_path, body, Some(headers)).await?)
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
