//! The admin API's front half: authentication (bearer `ADMIN_TOKEN`, compared in constant time;
//! the whole API is off, 404, without the variable) and forwarding to the team actor, which owns
//! the data. Routes:
//!
//! | method and path | actor route |
//! | --- | --- |
//! | `GET /admin/teams` | the `Directory` actor's list of teams |
//! | `GET /admin/teams/{team}/stats` | `GET /admin/stats` |
//! | `GET /admin/teams/{team}/outbox?status=&limit=&before=` | `GET /admin/outbox` |
//! | `GET /admin/teams/{team}/outbox/{id}` | `GET /admin/outbox/{id}` |
//! | `POST /admin/teams/{team}/outbox/{id}/redrive` | `POST /admin/outbox/{id}/redrive` |
//! | `DELETE /admin/teams/{team}/outbox/{id}` | `DELETE /admin/outbox/{id}` |
//! | `POST /admin/teams/{team}/sweep` | `POST /admin/sweep` (runs a sweep now, returns its report) |

use super::directory;
use super::front_door::FrontDoorError;
use crate::config::Config;
use worker::{Env, Method, Request, RequestInit, Response};

/// A team key as it may appear in a path: Slack ids are short and alphanumeric.
fn valid_team(team: &str) -> bool {
    (1..=64).contains(&team.len()) && team.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn authorize(req: &Request, config: &Config) -> Result<(), FrontDoorError> {
    let token = config.admin_token.as_ref().ok_or(FrontDoorError::AdminOff)?;
    let given = req.headers().get("authorization").ok().flatten().unwrap_or_default();
    match given.strip_prefix("Bearer ") {
        Some(given) if token.matches(given) => Ok(()),
        _ => Err(FrontDoorError::Unauthorized),
    }
}

/// Serves `/admin/...`.
pub async fn route(req: Request, env: &Env, config: &Config) -> Result<Response, FrontDoorError> {
    authorize(&req, config)?;
    let path = req.path();
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (team, rest) = match segments.as_slice() {
        ["admin", "teams"] if req.method() == Method::Get => return Ok(directory::call(env, Method::Get, "/teams", None).await?),
        ["admin", "teams", team, rest @ ..] if !rest.is_empty() => (*team, rest.join("/")),
        _ => return Err(FrontDoorError::NotFound),
    };
    if !valid_team(team) {
        return Err(FrontDoorError::BadRequest("team must be a Slack team or enterprise id".into()));
    }
    let allowed = matches!(
        (req.method(), rest.split('/').collect::<Vec<_>>().as_slice()),
        (Method::Get, ["stats"])
            | (Method::Get, ["outbox"])
            | (Method::Get, ["outbox", _])
            | (Method::Delete, ["outbox", _])
            | (Method::Post, ["outbox", _, "redrive"])
            | (Method::Post, ["sweep"])
    );
    if !allowed {
        return Err(FrontDoorError::NotFound);
    }
    let query = req.url()?.query().map(|q| format!("?{q}")).unwrap_or_default();
    forward(env, team, req.method(), &format!("https://team/admin/{rest}{query}")).await
}

async fn forward(env: &Env, team: &str, method: Method, url: &str) -> Result<Response, FrontDoorError> {
    let namespace = env.durable_object("TEAM")?;
    let stub = namespace.id_from_name(team)?.get_stub()?;
    let mut init = RequestInit::new();
    init.with_method(method);
    Ok(stub.fetch_with_request(Request::new_with_init(url, &init)?).await?)
}
