//! `TeamActor`: one Durable Object per Slack installation, named by its team key. It is the single
//! writer of that team's receipts and outbox.
//!
//! - `POST /ingest` runs the atomic unit (receipt + the app's effects + outbox rows) and arms the
//!   alarm to now when it queued anything; it answers only after the writes are durable (the
//!   output gate), so the front door's 200 never precedes the record;
//! - `alarm()` is the sweep: it delivers due rows, then re-arms itself to the next due time on every
//!   path (a failed sweep re-arms after [`REARM_AFTER_ERROR_MS`]), never relying on the platform's
//!   six alarm retries;
//! - `/admin/...` serves the admin API's reads and operator actions (see `runtime::admin`).

use super::store::{self, Ingest, NewRow, Operated};
use super::sweep::{Nudge, SweepReport, Sweeper};
use super::{clock, directory, env, header, request_json, log, query_param};
use crate::app::{self, Decision, DefaultApp};
use crate::config::{Config, BULK_REDRIVE_CAP};
use crate::ingest::{IngestOutcome, Receipt};
use crate::oauth::Installation;
use crate::outbox::{Status, Trigger};
use crate::slack::envelope::{Dispatch, Event};
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use worker::{durable_object, wasm_bindgen, DurableObject, Env, Method, Request, Response, Result, ScheduledTime, SqlStorage, State};

/// The Durable Object binding of the team actors.
pub const BINDING: &str = "TEAM";

/// Sends one request to the team actor named `team_key`.
pub async fn call(env: &Env, team_key: &str, method: Method, path: &str, body: Option<String>, headers: Option<worker::Headers>) -> Result<Response> {
    super::call_actor(env, BINDING, team_key, method, path, body, headers).await
}

/// Tests only (`ALLOW_TEST_CLOCK=1`): the ingest waits this many ms before its unit, so tests can
/// exceed the front door's ack budget.
pub const TEST_ACTOR_DELAY: &str = "x-slackline-test-actor-delay-ms";

/// When a sweep fails on storage, the alarm is re-armed this far ahead: 5 s.
pub const REARM_AFTER_ERROR_MS: i64 = 5_000;
/// How often a sweep prunes old receipts and delivered rows: at most once a minute.
pub const PRUNE_EVERY_MS: i64 = 60_000;
/// The most rows one admin listing returns.
const MAX_PAGE: i64 = 200;

/// The team actor.
#[durable_object]
pub struct TeamActor {
    state: State,
    env: Env,
    sql: SqlStorage,
    /// Housekeeping runs in a sweep at most once per [`PRUNE_EVERY_MS`].
    next_prune_at: Cell<i64>,
    /// The alarm this instance set and that has not started yet (cleared when `alarm()` starts).
    /// Lets an ingest skip `setAlarm` when a sweep is already due; lost with the instance, which
    /// only costs one redundant `setAlarm`.
    armed_at: Cell<Option<i64>>,
    /// The team key, once known (it never changes for an actor).
    team: RefCell<Option<String>>,
    /// One per running sweep (an alarm's and an admin's may overlap): tells it that an ingest
    /// queued new rows (see `Sweeper::run`).
    nudges: RefCell<Vec<Nudge>>,
}

impl DurableObject for TeamActor {
    fn new(state: State, env: Env) -> Self {
        let sql = state.storage().sql();
        if let Err(e) = store::migrate(&sql) {
            log::error(json!({"kind": "schema_error", "error": e.to_string()}));
        }
        TeamActor { state, env, sql, next_prune_at: Cell::new(0), armed_at: Cell::new(None), team: RefCell::new(None), nudges: RefCell::new(Vec::new()) }
    }

    async fn fetch(&self, req: Request) -> Result<Response> {
        let config = match env::config(&self.env) {
            Ok(c) => c,
            Err(e) => return Response::error(format!("configuration error: {e}"), 500),
        };
        let path = req.path();
        let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
        match (req.method(), segments.as_slice()) {
            (Method::Post, ["ingest"]) => self.ingest(req, &config).await,
            (Method::Post, ["installation"]) => self.install(req, &config).await,
            (Method::Get, ["admin", "stats"]) => self.stats(),
            (Method::Get, ["admin", "outbox"]) => self.list(&req),
            (Method::Get, ["admin", "audit"]) => Response::from_json(&json!({ "audit": store::audit(&self.sql, MAX_PAGE)? })),
            (Method::Get, ["admin", "outbox", id]) => self.show(id),
            (Method::Post, ["admin", "outbox", id, "redrive"]) => self.redrive(id, &config).await,
            (Method::Delete, ["admin", "outbox", id]) => self.discard(id),
            (Method::Post, ["admin", "sweep"]) => Response::from_json(&self.sweep(&config, Trigger::Admin).await?),
            (Method::Post, ["admin", "redrive"]) => self.bulk_redrive(&req, &config).await,
            (Method::Post, ["admin", "seed"]) if config.allow_bench_seed => self.seed(&req),
            _ => Response::error("not found", 404),
        }
    }

    async fn alarm(&self) -> Result<Response> {
        self.armed_at.set(None);
        match env::config(&self.env) {
            Ok(config) => {
                self.sweep(&config, Trigger::Alarm).await?;
            }
            Err(e) => {
                log::error(json!({"kind": "config_error", "error": e.to_string()}));
                self.arm(clock::now_ms() + REARM_AFTER_ERROR_MS).await?;
            }
        }
        Response::ok("")
    }
}

/// `app_uninstalled`, or `tokens_revoked` naming a bot: the team's tokens are gone.
fn uninstalls(dispatch: &Dispatch) -> bool {
    match dispatch {
        Dispatch::Event(e) => match &e.event {
            Event::AppUninstalled => true,
            Event::TokensRevoked { bot, .. } => !bot.is_empty(),
            _ => false,
        },
        _ => false,
    }
}

impl TeamActor {
    async fn ingest(&self, mut req: Request, config: &Config) -> Result<Response> {
        let dispatch: Dispatch = request_json(&mut req).await?;
        let test_delay = header(&req, TEST_ACTOR_DELAY).and_then(|d| d.parse::<u64>().ok());
        if let (true, Some(ms)) = (config.allow_test_clock, test_delay) {
            worker::Delay::from(std::time::Duration::from_millis(ms)).await;
        }
        let ctx = app::Context { llm_enabled: config.llm.is_some() };
        let (decision, ack) = app::decide(&DefaultApp, &dispatch, &ctx);
        let now = clock::now_ms();
        let (effects, ignored) = match decision {
            Decision::Enqueue(effects) => (effects, None),
            Decision::Ignore(reason) => (Vec::new(), Some(reason)),
        };
        let uninstall = uninstalls(&dispatch);
        let ingest = Ingest {
            team_key: dispatch.team_key().to_string(),
            op_key: dispatch.op_key().to_string(),
            kind: dispatch.kind().to_string(),
            rows: effects.into_iter().map(|e| NewRow::queued_at(e, now)).collect(),
            uninstall,
            max_attempts: config.retry.max_attempts,
            team_key_stored: self.team.borrow().is_some(),
        };
        let recorded = store::record(&self.state.storage(), &self.sql, ingest, now)?;
        if recorded.receipt.queued() > 0 {
            for nudge in self.nudges.borrow().iter() {
                nudge.send();
            }
            // Issued right after the unit, with no await between: committed with it. Set even
            // while a sweep runs: the alarm is what survives if this instance does not.
            self.arm_by(now).await?;
        }
        self.team.borrow_mut().get_or_insert_with(|| dispatch.team_key().to_string());
        self.note_in_directory(dispatch.team_key(), recorded.first_seen, uninstall && recorded.receipt != Receipt::Duplicate);
        if recorded.parked > 0 {
            log::emit(json!({"kind": "uninstall", "team": dispatch.team_key(), "parked": recorded.parked, "alert": "team_uninstalled"}));
        }
        let ignored = if uninstall { Some("uninstalled") } else { ignored };
        Response::from_json(&IngestOutcome { receipt: recorded.receipt, ignored: ignored.map(str::to_string), ack })
    }

    /// Tells the directory about this team, in the background (never on the ack's path).
    fn note_in_directory(&self, team_key: &str, first_seen: bool, uninstalled: bool) {
        for (wanted, path) in [(first_seen, "/seen"), (uninstalled, "/uninstalled")] {
            if wanted {
                let (env, body) = (self.env.clone(), json!({ "team_key": team_key }));
                self.state.wait_until(async move { directory::note(&env, path, body).await });
            }
        }
    }

    /// Stores an installation from the OAuth flow: tokens sealed, an earlier uninstall cleared.
    async fn install(&self, mut req: Request, config: &Config) -> Result<Response> {
        let installation: Installation = request_json(&mut req).await?;
        let bot = config.cipher.seal(&installation.bot_token, clock::random_bytes());
        let refresh = installation.refresh_token.as_deref().map(|r| config.cipher.seal(r, clock::random_bytes()));
        store::save_installation(&self.state.storage(), &self.sql, installation, bot, refresh, clock::now_ms())?;
        Response::from_json(&json!({ "stored": true, "encrypted": config.cipher.encrypts() }))
    }

    fn stats(&self) -> Result<Response> {
        Response::from_json(&store::stats(&self.sql, clock::now_ms())?)
    }

    async fn arm(&self, at_ms: i64) -> Result<()> {
        let date = worker::js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(at_ms as f64));
        self.state.storage().set_alarm(ScheduledTime::new(date)).await?;
        self.armed_at.set(Some(at_ms));
        Ok(())
    }

    /// Makes sure a sweep starts no later than `at_ms`: sets the alarm unless one this instance
    /// set is already due by then (under load most ingests find one and skip the write).
    async fn arm_by(&self, at_ms: i64) -> Result<()> {
        match self.armed_at.get() {
            Some(armed) if armed <= at_ms => Ok(()),
            _ => self.arm(at_ms).await,
        }
    }

    /// The team key: remembered from the first ingest, else read once from storage.
    fn team_key(&self) -> Option<String> {
        if self.team.borrow().is_none() {
            *self.team.borrow_mut() = store::team_key(&self.sql).ok().flatten();
        }
        self.team.borrow().clone()
    }

    /// One sweep, then the alarm re-armed to the next due time (or a short delay after an error).
    async fn sweep(&self, config: &Config, trigger: Trigger) -> Result<SweepReport> {
        let storage = self.state.storage();
        let team = self.team_key();
        let prune = clock::now_ms() >= self.next_prune_at.get();
        if prune {
            self.next_prune_at.set(clock::now_ms() + PRUNE_EVERY_MS);
        }
        let (nudge, nudges) = super::sweep::nudges();
        self.nudges.borrow_mut().push(nudge);
        let mut report = Sweeper { storage: &storage, sql: &self.sql, config, team, prune }.run(trigger, nudges).await;
        // `run` dropped its receiving side: forget every nudge whose sweep has ended.
        self.nudges.borrow_mut().retain(|nudge| !nudge.is_closed());
        let now = clock::now_ms();
        let next = match (&report.error, store::next_alarm(&self.sql, now, config.receipt_retention_ms, config.done_retention_ms, self.next_prune_at.get())) {
            (None, Ok(next)) => next,
            (_, Err(e)) => {
                report.error.get_or_insert(e.to_string());
                Some(now + REARM_AFTER_ERROR_MS)
            }
            (Some(_), Ok(next)) => Some(next.unwrap_or(now).max(now + REARM_AFTER_ERROR_MS)),
        };
        if let Some(at) = next {
            self.arm(at.max(now)).await?;
        }
        report.next_alarm_at = next;
        if let Ok(pending) = store::pending(&self.sql, now) {
            report.pending = pending.pending;
            report.oldest_pending_age_ms = pending.oldest_pending_age_ms;
        }
        self.log_sweep(&report, config);
        Ok(report)
    }

    fn log_sweep(&self, report: &SweepReport, config: &Config) {
        let mut line = json!({ "kind": "sweep" });
        if let (Value::Object(fields), Ok(Value::Object(more))) = (&mut line, serde_json::to_value(report)) {
            fields.extend(more);
        }
        if report.oldest_pending_age_ms.is_some_and(|age| age > config.alert_pending_age_ms) {
            line["alert"] = json!("pending_too_old");
        }
        let mut saved = line.clone();
        saved["at"] = json!(clock::now_ms());
        if let Err(e) = store::save_last_sweep(&self.sql, &saved) {
            line["error"] = json!(e.to_string());
        }
        if report.error.is_some() {
            log::error(line);
        } else if report.claimed > 0 || line.get("alert").is_some() {
            // An idle sweep (housekeeping only) is not worth a line.
            log::emit(line);
        }
    }

    fn list(&self, req: &Request) -> Result<Response> {
        let query = |name: &str| query_param(req, name);
        let status = query("status").unwrap_or_else(|| "pending".into());
        let Some(status) = Status::parse(&status) else {
            return Response::error("status must be pending, parked or done", 400);
        };
        let limit = query("limit").and_then(|v| v.parse().ok()).unwrap_or(50).clamp(1, MAX_PAGE);
        let before = query("before").and_then(|v| v.parse().ok()).unwrap_or(i64::from(i32::MAX) * 1024);
        Response::from_json(&store::list_rows(&self.sql, status.as_str(), before, limit)?)
    }

    /// Bulk redrive by reason and time window. A dry run (the default) only counts; to act, pass
    /// `dry_run=false` and `expect=<the dry run's count>` (409 if the count changed since).
    async fn bulk_redrive(&self, req: &Request, config: &Config) -> Result<Response> {
        let query = |name: &str| query_param(req, name);
        let number = |name: &str, default: i64| query(name).map(|v| v.parse::<i64>()).unwrap_or(Ok(default));
        let (Ok(since), Ok(until)) = (number("since", 0), number("until", i64::from(i32::MAX) * 1_000_000)) else {
            return Response::error("since and until must be epoch milliseconds", 400);
        };
        let filter = store::ParkedFilter { reason: query("reason").filter(|r| !r.is_empty()), since, until };
        let matching = store::count_parked(&self.sql, &filter)?;
        if query("dry_run").as_deref() != Some("false") {
            return Response::from_json(&json!({ "dry_run": true, "matching": matching, "cap": BULK_REDRIVE_CAP }));
        }
        if query("expect").and_then(|e| e.parse::<i64>().ok()) != Some(matching) {
            let body = json!({ "error": "expect must equal the dry run's count", "matching": matching });
            return Ok(Response::from_json(&body)?.with_status(409));
        }
        let now = clock::now_ms();
        let spacing = config.redrive_spacing_ms;
        let redriven = store::bulk_redrive(&self.state.storage(), &self.sql, filter, BULK_REDRIVE_CAP, spacing, config.retry.max_attempts, now)?;
        if redriven > 0 {
            self.arm_by(now).await?;
        }
        log::emit(json!({"kind": "admin", "action": "bulk_redrive", "team": self.team_key(), "redriven": redriven}));
        Response::from_json(&json!({ "redriven": redriven, "remaining": matching - redriven, "spacing_ms": spacing }))
    }

    /// Benchmarks only (`ALLOW_BENCH_SEED=1`): `?receipts=N&done=M&from=K`.
    fn seed(&self, req: &Request) -> Result<Response> {
        let number = |name: &str| query_param(req, name).and_then(|v| v.parse::<i64>().ok()).unwrap_or(0);
        let (receipts, done, from) = (number("receipts").clamp(0, 200_000), number("done").clamp(0, 200_000), number("from"));
        store::seed(&self.sql, receipts, done, from, clock::now_ms())?;
        Response::from_json(&json!({ "seeded_receipts": receipts, "seeded_done": done }))
    }

    fn show(&self, id: &str) -> Result<Response> {
        let Ok(id) = id.parse::<i64>() else { return Response::error("row id must be a number", 400) };
        match store::row_with_attempts(&self.sql, id)? {
            Some(row) => Response::from_json(&row),
            None => Response::error("no such row", 404),
        }
    }

    async fn redrive(&self, id: &str, config: &Config) -> Result<Response> {
        let Ok(id) = id.parse::<i64>() else { return Response::error("row id must be a number", 400) };
        let now = clock::now_ms();
        match store::redrive(&self.state.storage(), &self.sql, id, config.retry.max_attempts, now)? {
            Operated::Applied => {
                self.arm_by(now).await?;
                Response::from_json(&json!({ "redriven": id }))
            }
            Operated::NotParked => Response::error("no parked row with that id", 409),
        }
    }

    fn discard(&self, id: &str) -> Result<Response> {
        let Ok(id) = id.parse::<i64>() else { return Response::error("row id must be a number", 400) };
        match store::discard(&self.state.storage(), &self.sql, id, clock::now_ms())? {
            Operated::Applied => Response::from_json(&json!({ "discarded": id })),
            Operated::NotParked => Response::error("no parked row with that id", 409),
        }
    }
}
