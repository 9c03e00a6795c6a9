//! The admin API's front half: authentication and forwarding to the team actor, which owns the
//! data; and the dead-letter page.
//!
//! Authentication: `Authorization: Bearer <ADMIN_TOKEN>` (compared in constant time), or the
//! session cookie the login form sets (`POST /admin/login`; the token travels in the form body,
//! never in a URL). A cookie-authenticated request that changes something must also carry
//! `x-slackline-admin: 1`, which a cross-site form cannot send. Without `ADMIN_TOKEN` the whole
//! admin surface is off (404); a wrong or missing token is 401 and nothing else. Wrong tokens
//! (bearer or login form) count toward the client's lockout (`runtime::guard`): 429 after 10 in a
//! minute.
//!
//! `GET /admin/teams?limit=&after=` is the `Directory` actor's list of teams, by key, paged
//! (`next_after`); `GET /admin/teams/{team}` the HTML dead-letter page (or the login form). Every
//! other path after `/admin/teams/{team}` is parsed once into an [`AdminRoute`] (`crate::routes`
//! lists them) and forwarded, typed, to the team actor.

use super::error::FrontDoorError;
use super::test_hooks::TestHooks;
use super::{directory, guard, header, html_page, response_json, team};
use crate::admin::page::{self, ACTION_HEADER, SESSION_COOKIE, SESSION_TTL_MS};
use crate::admin::state::StatePage;
use crate::admin::{OutboxPage, ScheduledPage, Stats};
use crate::config::{Config, Secret};
use crate::oauth::cookie;
use crate::platform::clock;
use crate::routes::{AdminRoute, TeamKey, Verb};
use crate::wire::Routed;
use worker::{Env, Headers, Method, Request, Response};

/// How a request proved it is the operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Caller {
    /// The bearer token.
    Bearer,
    /// The login cookie.
    Session,
}

fn caller(req: &Request, token: &Secret) -> Option<Caller> {
    let bearer = header(req, "authorization");
    if bearer.as_deref().and_then(|b| b.strip_prefix("Bearer ")).is_some_and(|given| token.matches(given)) {
        return Some(Caller::Bearer);
    }
    let cookies = header(req, "cookie");
    let session = cookie(cookies.as_deref(), SESSION_COOKIE)?;
    page::session_valid(token.expose(), session, clock::now_ms()).then_some(Caller::Session)
}

/// Serves `/admin/...`.
pub async fn route(mut req: Request, env: &Env, config: &Config, hooks: &TestHooks) -> Result<Response, FrontDoorError> {
    let token = config.admin_token.as_ref().ok_or(FrontDoorError::AdminOff)?;
    let client = guard::client(&req, hooks);
    guard::check(&client)?;
    let path = req.path();
    let segments: Vec<String> = path.trim_matches('/').split('/').map(str::to_string).collect();
    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
    if let (Method::Post, ["admin", "login"]) = (req.method(), segments.as_slice()) {
        return login(&mut req, token, &client).await;
    }
    let page_request = matches!((req.method(), segments.as_slice()), (Method::Get, ["admin", "teams", _]));
    let Some(who) = caller(&req, token) else {
        if header(&req, "authorization").is_some() {
            guard::failed(&client); // a wrong bearer (a stale session cookie is not a guess)
        }
        if page_request {
            return Ok(html_page(401, &page::login_page(&path, None))?);
        }
        return Err(FrontDoorError::Unauthorized);
    };
    if who == Caller::Session && req.method() != Method::Get && header(&req, ACTION_HEADER).as_deref() != Some("1") {
        return Err(FrontDoorError::Unauthorized);
    }
    let (team, rest) = match segments.as_slice() {
        ["admin", "teams"] if req.method() == Method::Get => {
            let query = super::query_suffix(&req);
            return Ok(directory::call(env, Method::Get, &format!("/teams{query}"), None).await?);
        }
        // A team's housekeeping wake, if due at a test's clock (`?team=`; `ALLOW_TEST_CLOCK=1`
        // only: the directory answers 404 without it).
        ["admin", "wakes", "due"] if req.method() == Method::Post => {
            let headers = Headers::new();
            hooks.forward(&headers)?;
            let query = super::query_suffix(&req);
            return Ok(directory::call_with(env, Method::Post, &format!("{}{query}", directory::WAKES_DUE_PATH), None, headers).await?);
        }
        ["admin", "teams", team] if page_request => return serve_page(env, &TeamKey::parse(team)?, hooks).await,
        ["admin", "teams", team, rest @ ..] if !rest.is_empty() => (*team, rest),
        _ => return Err(FrontDoorError::NotFound),
    };
    let team = TeamKey::parse(team)?;
    let route = AdminRoute::parse(Verb::parse(req.method().as_ref()), rest)?;
    let query = super::query_suffix(&req);
    Ok(call(env, &team, &route, &query, hooks).await?)
}

/// Sends `route` (with the request's query string and the test hooks the actor reads) to the
/// team's actor, in a form its release reads (`team::call_routed`).
async fn call(env: &Env, team: &TeamKey, route: &AdminRoute, query: &str, hooks: &TestHooks) -> worker::Result<Response> {
    let headers = Headers::new();
    hooks.forward(&headers)?;
    let routed = Routed::Admin(route.clone());
    match team::call_routed(env, team.as_str(), &routed, query, None, headers, None).await {
        Ok(answer) => answer.into_response(),
        Err(team::Late::Failed(e)) => Err(e),
        Err(team::Late::OverBudget) => Err(worker::Error::RustError("no budget was given".into())),
    }
}

/// `POST /admin/login`: checks the token from the form body and sets the session cookie.
async fn login(req: &mut Request, token: &Secret, client: &str) -> Result<Response, FrontDoorError> {
    let body = req.text().await?;
    let fields: std::collections::HashMap<String, String> = form_urlencoded::parse(body.as_bytes()).into_owned().collect();
    let next = fields.get("next").filter(|n| n.starts_with("/admin/teams/") && !n.contains("//")).cloned().unwrap_or_else(|| "/admin/teams".into());
    if !fields.get("token").is_some_and(|given| token.matches(given)) {
        guard::failed(client);
        return Ok(html_page(401, &page::login_page(&next, Some("That token is not right.")))?);
    }
    let session = page::issue_session(token.expose(), clock::now_ms());
    let headers = Headers::new();
    headers.set("location", &next)?;
    headers.set("set-cookie", &format!("{SESSION_COOKIE}={session}; Max-Age={}; Path=/admin/; Secure; HttpOnly; SameSite=Strict", SESSION_TTL_MS / 1000))?;
    Ok(Response::empty()?.with_status(303).with_headers(headers))
}

/// The dead-letter page of one team.
async fn serve_page(env: &Env, team: &TeamKey, hooks: &TestHooks) -> Result<Response, FrontDoorError> {
    let stats: Stats = response_json(call(env, team, &AdminRoute::Stats, "", hooks).await?).await?;
    let parked: OutboxPage = response_json(call(env, team, &AdminRoute::Outbox, "?status=parked&limit=200", hooks).await?).await?;
    let scheduled: ScheduledPage = response_json(call(env, team, &AdminRoute::Scheduled, "?limit=200", hooks).await?).await?;
    let state: StatePage = response_json(call(env, team, &AdminRoute::State, "?limit=50", hooks).await?).await?;
    Ok(html_page(200, &page::dead_letter_page(team.as_str(), &stats, &parked.rows, &scheduled.scheduled, &state))?)
}
