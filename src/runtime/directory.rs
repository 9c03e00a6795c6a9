//! `Directory`: one Durable Object for the whole deployment that lists the teams (for
//! `GET /admin/teams`) and remembers consumed OAuth states (single use).
//!
//! It is never on the hot path of an event: a team actor notes itself here once, the first time
//! it records its team key, in the background (`wait_until`); installs and uninstalls note
//! themselves too. Losing such a note loses only a line of the admin list, never an event.
//!
//! **Housekeeping wakes.** A team whose sweep leaves nothing pending does not keep its own alarm a
//! day ahead for its housekeeping (a `setAlarm`, one billed row, per quiet event: issue 39): it
//! asks the directory to wake it then (`POST /wakes`, once per actor instance while the time it
//! holds comes no later; a later time writes nothing). The directory's alarm, set to its soonest
//! wake, calls each due team's `POST /housekeep` ([`WAKE_BATCH`] per alarm), which sweeps and
//! answers when its housekeeping is next due; the directory keeps that (or forgets the team when
//! none is due). A team that does not answer is tried again [`WAKE_RETRY_MS`] later. Invariant:
//! while a team has housekeeping due and nothing pending, either its own alarm or a row here
//! wakes it no later than it asked (a failed ask makes the team set its own alarm).
//!
//! Like a team actor, it brings its database to the code's schema version before it serves
//! anything (`store::schema`), and answers 500 to everything if it cannot (a failed migration,
//! a database newer than the code), with the error body of `crate::routes::error_body`.

use super::store;
use crate::logs::{ErrorLine, LogLine};
use crate::outbox::alarm::{AlarmOp, AlarmView};
use crate::platform::exec::{int, rows};
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
/// Where a team asks for its housekeeping wake.
pub const WAKES_PATH: &str = "/wakes";
/// Where a test runs one team's wake if due at its clock (`?team=`, `x-slackline-test-now`;
/// `ALLOW_TEST_CLOCK=1` only).
pub const WAKES_DUE_PATH: &str = "/wakes/due";
/// The most teams one alarm wakes (one after another); more due → the alarm fires again at once.
pub const WAKE_BATCH: i64 = 50;
/// A team that did not answer its wake is woken again this much later: 5 minutes.
pub const WAKE_RETRY_MS: i64 = 300_000;
/// How long a team's wake (one sweep: its budget, `SWEEP_BUDGET_MS`, plus the attempts in
/// flight) may take before the directory gives up on it: 60 s.
pub const WAKE_TIMEOUT_MS: i64 = 60_000;

/// The directory actor (a bot's crate exports it as the `Directory` class through
/// `slackline::worker!`).
pub struct Directory {
    state: State,
    env: Env,
    sql: SqlStorage,
    /// What the wake found the schema to be: the directory serves only when it is `Ready`.
    schema: Outcome,
    /// Its stored alarm as this instance knows it (`crate::outbox::alarm`).
    alarm: AlarmView,
}

#[derive(Deserialize)]
struct WakeAsk {
    team_key: String,
    at: i64,
}

#[derive(Deserialize)]
struct DueWake {
    team_key: String,
    at: i64,
}

#[derive(Deserialize)]
struct Housekept {
    next_at: Option<i64>,
}

#[derive(Deserialize)]
struct Soonest {
    at: Option<i64>,
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
    pub fn new(state: State, env: Env) -> Self {
        let sql = state.storage().sql();
        let schema = store::schema::bring_up_to_date(&state.storage(), &sql, &migrate::DIRECTORY);
        log::schema(&migrate::DIRECTORY, None, &schema);
        Directory { state, env, sql, schema, alarm: AlarmView::default() }
    }

    /// The alarm: wakes the teams whose housekeeping is due, then re-arms for the soonest left.
    pub async fn alarm(&self) -> Result<Response> {
        self.alarm.fired();
        if let Outcome::Refused(_) = self.schema {
            return Response::ok("");
        }
        self.wake_due(clock::now_ms(), None).await?;
        Response::ok("")
    }

    /// Wakes up to [`WAKE_BATCH`] teams whose wake is due at `now` (`test`: a test's clock, the
    /// time their housekeeping counts from, and the one team it wakes), one after another; keeps
    /// each one's next wake (or forgets it); then sets the alarm to the soonest wake left.
    /// Returns how many it woke.
    async fn wake_due(&self, now: i64, test: Option<(i64, &str)>) -> Result<usize> {
        let (at, only) = match test {
            Some((test_now, team)) => (test_now, worker::SqlStorageValue::String(team.into())),
            None => (now, worker::SqlStorageValue::Null),
        };
        let test_now = test.map(|(at, _)| at);
        let due: Vec<DueWake> = rows(&self.sql, crate::sql::directory::WAKES_DUE, vec![int(at), int(WAKE_BATCH), only])?;
        for wake in &due {
            let next = match housekeep(&self.env, &wake.team_key, test_now).await {
                Ok(next) => next,
                Err(e) => {
                    log::error(LogLine::DirectoryError(ErrorLine {
                        path: Some(format!("{} {}", crate::wire::HOUSEKEEP_PATH, wake.team_key)),
                        ..ErrorLine::new(e)
                    }));
                    Some(clock::now_ms() + WAKE_RETRY_MS)
                }
            };
            store::directory::woken(&self.sql, &wake.team_key, wake.at, next)?;
        }
        let soonest: Option<Soonest> = rows(&self.sql, crate::sql::directory::NEXT_WAKE, vec![])?.into_iter().next();
        if let Some(at) = soonest.and_then(|s| s.at) {
            let at = if due.len() as i64 == WAKE_BATCH { clock::now_ms() } else { at.max(clock::now_ms()) };
            self.issue(self.alarm.arm_by(at)).await?;
        }
        Ok(due.len())
    }

    /// A team asks to be woken by `at`: kept (or brought forward), and the alarm set by then.
    async fn wake_by(&self, ask: WakeAsk) -> Result<()> {
        store::directory::wake_by(&self.sql, &ask.team_key, ask.at)?;
        self.issue(self.alarm.arm_by(ask.at)).await
    }

    /// Issues an alarm operation the view has already counted, if any (`super::issue_alarm`).
    async fn issue(&self, op: Option<AlarmOp>) -> Result<()> {
        match op {
            Some(op) => super::issue_alarm(&self.state.storage(), &self.alarm, op).await,
            None => Ok(()),
        }
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
            (Method::Post, WAKES_PATH) => {
                let ask: WakeAsk = super::request_json(&mut req).await?;
                self.wake_by(ask).await?;
                Response::ok("")
            }
            // A test moves the clock: the wakes due at its time, now (`ALLOW_TEST_CLOCK=1` only).
            (Method::Post, WAKES_DUE_PATH) => {
                let hooks = crate::platform::env::config(&self.env).map(|c| super::test_hooks::TestHooks::read(&req, &c)).unwrap_or_default();
                match (hooks.now_ms, super::query_param(&req, "team")) {
                    (Some(test_now), Some(team)) => Response::from_json(&json!({ "woken": self.wake_due(now, Some((test_now, &team))).await? })),
                    _ => Ok(super::json_response(404, &crate::routes::error_body("not_found", "not found", None))),
                }
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
    call_with(env, method, path, body, worker::Headers::new()).await
}

/// [`call`] with headers (a test's clock).
pub async fn call_with(env: &Env, method: Method, path: &str, body: Option<Value>, headers: worker::Headers) -> Result<Response> {
    super::call_actor(env, BINDING, NAME, super::ActorCall { method, path, body: body.map(|b| b.to_string()), headers: Some(headers), signal: None }).await
}

/// Notes something about a team, logging (not failing) when the directory cannot be reached.
pub async fn note(env: &Env, path: &str, body: Value) {
    if let Err(e) = call(env, Method::Post, path, Some(body)).await {
        log::error(LogLine::DirectoryError(ErrorLine { path: Some(path.into()), ..ErrorLine::new(e) }));
    }
}

/// Asks the directory to wake team `team_key` for its housekeeping by `at` (epoch ms).
pub async fn wake_by(env: &Env, team_key: &str, at: i64) -> Result<()> {
    let response = call(env, Method::Post, WAKES_PATH, Some(json!({ "team_key": team_key, "at": at }))).await?;
    match response.status_code() {
        200 => Ok(()),
        status => Err(worker::Error::RustError(format!("the directory answered {status} to a wake"))),
    }
}

/// Wakes team `team_key`'s housekeeping (`POST /housekeep`), waiting at most [`WAKE_TIMEOUT_MS`]
/// (the runtime's own timer aborts the call); returns when it is next due.
async fn housekeep(env: &Env, team_key: &str, test_now: Option<i64>) -> Result<Option<i64>> {
    let headers = worker::Headers::new();
    super::test_hooks::pass_clock(&headers, test_now)?;
    let signal = crate::platform::js::timeout_signal(WAKE_TIMEOUT_MS);
    let call = super::ActorCall { method: Method::Post, path: crate::wire::HOUSEKEEP_PATH, body: None, headers: Some(headers), signal: Some(&signal) };
    let response = super::call_actor(env, super::TEAM_BINDING, team_key, call).await?;
    match response.status_code() {
        200 => Ok(super::response_json::<Housekept>(response).await?.next_at),
        status => Err(worker::Error::RustError(format!("the team answered {status} to its wake"))),
    }
}
