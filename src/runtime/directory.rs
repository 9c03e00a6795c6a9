//! `Directory`: one Durable Object for the whole deployment that lists the teams (for
//! `GET /admin/teams`) and remembers consumed OAuth states (single use).
//!
//! It is never on the hot path of an event: a team actor notes itself here once, the first time
//! it records its team key, in the background (`wait_until`); installs and uninstalls note
//! themselves too. Losing such a note loses only a line of the admin list, never an event.
//!
//! Like a team actor, it brings its database to the code's schema version before it serves
//! anything (`store::schema`), and answers 500 to everything if it cannot (a failed migration,
//! a database newer than the code), with the error body of `crate::routes::error_body`.

use super::store;
use crate::logs::{ErrorLine, LogLine};
use crate::platform::{clock, log};
use crate::sql::migrate::{self, Outcome};
use serde::Deserialize;
use serde_json::{json, Value};
use worker::{Env, Method, Request, Response, Result, SqlStorage, State};

/// The binding and the one name it is reached by.
pub const BINDING: &str = "DIRECTORY";
const NAME: &str = "directory";
/// The most teams one page of `GET /admin/teams` returns (also the default `limit`).
const MAX_TEAMS: i64 = 1_000;

/// The directory actor (a bot's crate exports it as the `Directory` class through
/// `slackline::worker!`).
pub struct Directory {
    sql: SqlStorage,
    /// What the wake found the schema to be: the directory serves only when it is `Ready`.
    schema: Outcome,
}

#[derive(Deserialize)]
struct TeamNote {
    team_key: String,
    team_name: Option<String>,
    enterprise_name: Option<String>,
    is_enterprise_install: Option<bool>,
}

#[derive(Deserialize)]
struct StateNote {
    nonce: String,
    expires_at: i64,
}

impl Directory {
    /// The actor on its storage.
    pub fn new(state: State, _env: Env) -> Self {
        let sql = state.storage().sql();
        let schema = store::schema::bring_up_to_date(&state.storage(), &sql, &migrate::DIRECTORY);
        log::schema(&migrate::DIRECTORY, None, &schema);
        Directory { sql, schema }
    }

    /// Serves one request; every answer names this release's wire version (`crate::wire`).
    pub async fn fetch(&self, req: Request) -> Result<Response> {
        let mut response = self.serve(req).await?;
        let _ = response.headers_mut().set(crate::wire::HEADER, crate::wire::VERSION_TEXT);
        Ok(response)
    }

    async fn serve(&self, mut req: Request) -> Result<Response> {
        crate::platform::meter::request();
        if let Outcome::Refused(refused) = &self.schema {
            return Ok(super::json_response(500, &crate::routes::error_body(refused.code(), &refused.message(), None)));
        }
        let now = clock::now_ms();
        match (req.method(), req.path().as_str()) {
            (Method::Get, "/teams") => teams_page(&req, &self.sql),
            (Method::Post, "/seen") => {
                let note: TeamNote = super::request_json(&mut req).await?;
                store::directory::directory_seen(&self.sql, &note.team_key, now)?;
                Response::ok("")
            }
            (Method::Post, "/installed") => {
                let n: TeamNote = super::request_json(&mut req).await?;
                let org_wide = n.is_enterprise_install.unwrap_or(false);
                store::directory::directory_installed(&self.sql, &n.team_key, n.team_name.as_deref(), n.enterprise_name.as_deref(), org_wide, now)?;
                Response::ok("")
            }
            (Method::Post, "/uninstalled") => {
                let note: TeamNote = super::request_json(&mut req).await?;
                store::directory::directory_uninstalled(&self.sql, &note.team_key, now)?;
                Response::ok("")
            }
            (Method::Post, "/states/consume") => {
                let note: StateNote = super::request_json(&mut req).await?;
                let fresh = store::directory::consume_state(&self.sql, &note.nonce, note.expires_at, now)?;
                Response::from_json(&json!({ "fresh": fresh }))
            }
            _ => Ok(super::json_response(404, &crate::routes::error_body("not_found", "not found", None))),
        }
    }
}

/// `GET /teams?limit=&after=`: a page of teams by key, with `next_after` when more may follow.
fn teams_page(req: &Request, sql: &SqlStorage) -> Result<Response> {
    let limit = match super::query_param(req, "limit") {
        None => MAX_TEAMS,
        Some(v) => match v.parse::<i64>() {
            Ok(n) if (1..=MAX_TEAMS).contains(&n) => n,
            _ => return Ok(super::json_response(400, &json!({ "ok": false, "error": format!("limit must be a whole number from 1 to {MAX_TEAMS}") }))),
        },
    };
    let after = super::query_param(req, "after").unwrap_or_default();
    let teams = store::directory::directory_teams(sql, &after, limit)?;
    let next_after = (teams.len() as i64 == limit).then(|| teams.last().and_then(|t| t["team_key"].as_str()).map(str::to_string)).flatten();
    Response::from_json(&json!({ "teams": teams, "next_after": next_after }))
}

/// Sends one request to the directory and returns its answer.
pub async fn call(env: &Env, method: Method, path: &str, body: Option<Value>) -> Result<Response> {
    super::call_actor(env, BINDING, NAME, super::ActorCall { method, path, body: body.map(|b| b.to_string()), headers: None, signal: None }).await
}

/// Notes something about a team, logging (not failing) when the directory cannot be reached.
pub async fn note(env: &Env, path: &str, body: Value) {
    if let Err(e) = call(env, Method::Post, path, Some(body)).await {
        log::error(LogLine::DirectoryError(ErrorLine { path: Some(path.into()), ..ErrorLine::new(e) }));
    }
}
