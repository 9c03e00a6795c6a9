//! `TeamActor`: one Durable Object per Slack installation, named by its team key. It is the single
//! writer of that team's receipts and outbox. Each of its audiences has a file:
//!
//! - [`ingest`]: the request path. `POST /ingest` runs the atomic unit (the receipt, the app's
//!   effects as outbox rows) and arms the alarm to now when it queued anything; it answers only
//!   after the writes are durable (the output gate), so the front door's 200 never precedes the
//!   record;
//! - this file: the alarm path. `alarm()` is the sweep (`runtime::sweep`): it delivers due rows,
//!   then re-arms itself to the next due time on every path (a failed sweep re-arms after
//!   [`REARM_AFTER_ERROR_MS`]), never relying on the platform's six alarm retries;
//! - [`admin`]: the admin API's reads and operator actions (an `AdminRoute` forwarded by
//!   `runtime::admin`);
//! - [`lists`]: the records API of Slack Lists, and [`notify`]: messages and status messages
//!   (an `ApiRoute` forwarded by `runtime::api`);
//! - [`error`]: every failure of the above as one `ActorError`, mapped to HTTP once.
//!
//! Before it serves anything, the actor brings its database to the code's schema version
//! (`store::schema`, in the constructor, which runs before the first `fetch` or `alarm`). If it
//! cannot — a migration failed, or the database is newer than the code (a rollback) — every
//! request answers 500 (`ActorError::Schema`: Slack retries) and the alarm only re-arms itself
//! [`SCHEMA_REARM_MS`] later: nothing is written on a schema the code does not know.

mod admin;
mod error;
mod ingest;
mod lists;
mod notify;

use error::ActorError;
pub use error::TOO_LATE;

use super::store;
use super::sweep::{Nudge, Sweeper};
use super::test_hooks::{HookedApp, TestHooks};
use crate::app::App;
use crate::config::Config;
use crate::logs::{AlarmMissingLine, Alert, ErrorLine, LogLine, SweepLine};
use crate::outbox::alarm::{self, AlarmOp, AlarmView, NextWake};
use crate::outbox::pace::Pacer;
use crate::outbox::Trigger;
use crate::platform::credential;
use crate::platform::{clock, env, log};
use crate::routes::{ApiService, Verb, ROUTE_HEADER};
use crate::sql::known::Known;
use crate::sql::migrate::Outcome;
use crate::wire::{self, ActorRequest, Kept, RouteForm, Routed};

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use worker::{Env, Method, Request, Response, Result, SqlStorage, State, Storage};

/// The Durable Object binding of the team actors.
pub const BINDING: &str = super::TEAM_BINDING;

/// Sends one request to the team actor named `team_key`.
pub async fn call(env: &Env, team_key: &str, method: Method, path: &str, body: Option<String>, headers: Option<worker::Headers>) -> Result<Response> {
    super::call_actor(env, BINDING, team_key, super::ActorCall { method, path, body, headers, signal: None }).await
}

/// Sends one request to the team actor named `team_key` and reads its answer (status, headers
/// and text), all within `budget_ms`: the runtime's own timer (`AbortSignal.timeout`) aborts the
/// call. The front door's ack budget and the `/api/…` routes' budget are this one mechanism.
pub async fn call_within(
    env: &Env,
    team_key: &str,
    method: Method,
    path: &str,
    body: Option<String>,
    headers: Option<worker::Headers>,
    budget_ms: i64,
) -> std::result::Result<Answer, Late> {
    let signal = crate::platform::js::timeout_signal(budget_ms);
    let call = super::ActorCall { method, path, body, headers, signal: Some(&signal) };
    answer_of(env, team_key, call).await.map_err(|e| Late::of(e, Some(&signal)))
}

/// One call to the team actor named `team_key`, its answer read whole.
async fn answer_of(env: &Env, team_key: &str, call: super::ActorCall<'_>) -> Result<Answer> {
    let response = super::call_actor(env, BINDING, team_key, call).await?;
    let (status, headers) = (response.status_code(), response.headers().clone());
    Ok(Answer { status, headers, text: super::body_text(response).await? })
}

/// Sends a routed call (an admin or service API route) to the team actor named `team_key`, in the
/// header form, and once more in the path form when the actor answered 404 naming no wire version:
/// it may be a release that reads routes from the path (`crate::wire`, a deploy under way).
/// Within `budget_ms` for both, when given (the `/api/…` routes' ack budget).
pub async fn call_routed(
    env: &Env,
    team_key: &str,
    routed: &Routed,
    query: &str,
    body: Option<String>,
    headers: worker::Headers,
    budget_ms: Option<i64>,
) -> std::result::Result<Answer, Late> {
    let signal = budget_ms.map(crate::platform::js::timeout_signal);
    let send = |form| {
        let out = routed.outgoing(form);
        let (body, headers, signal) = (body.clone(), headers.clone(), signal.as_ref());
        async move {
            headers.set(ROUTE_HEADER, &out.route)?;
            let path = format!("{}{query}", out.path);
            answer_of(
                env,
                team_key,
                super::ActorCall { method: Method::from(out.verb.as_str().to_string()), path: &path, body, headers: Some(headers), signal },
            )
            .await
        }
    };
    let late = |e| Late::of(e, signal.as_ref());
    let first = send(RouteForm::Header).await.map_err(late)?;
    if !wire::retry_in_path_form(first.status, first.headers.get(wire::HEADER).ok().flatten().as_deref()) {
        return Ok(first);
    }
    let second = send(RouteForm::Path).await.map_err(late)?;
    Ok(match wire::kept_answer(second.status) {
        Kept::First => first,
        Kept::Second => second,
    })
}

/// A team actor's answer, read whole.
pub struct Answer {
    /// Its status.
    pub status: u16,
    /// Its headers.
    pub headers: worker::Headers,
    /// Its body.
    pub text: String,
}

impl Answer {
    /// The answer as the front door's response: its status, body, and the headers a client reads
    /// (`content-type`, `retry-after`, `idempotent-replayed`).
    pub fn into_response(self) -> Result<Response> {
        let out = worker::Headers::new();
        for name in ["content-type", "retry-after", "idempotent-replayed"] {
            if let Some(value) = self.headers.get(name)? {
                out.set(name, &value)?;
            }
        }
        Ok(Response::ok(self.text)?.with_status(self.status).with_headers(out))
    }
}

/// Why [`call_within`] brought no answer.
#[derive(Debug)]
pub enum Late {
    /// The budget ran out first.
    OverBudget,
    /// The call failed.
    Failed(worker::Error),
}

impl Late {
    /// Why a call with `signal` (its budget's timer, if any) failed with `e`.
    fn of(e: worker::Error, signal: Option<&worker::web_sys::AbortSignal>) -> Late {
        match signal {
            Some(s) if s.aborted() => Late::OverBudget,
            _ => Late::Failed(e),
        }
    }
}

/// The team key, sent by the front door with `/api/…` requests (an actor reached only through the
/// API has seen no event that names its team): kept for log lines.
pub const TEAM_HEADER: &str = "x-slackline-team";

/// The notify API's `Idempotency-Key`, as the front door forwards it.
pub const IDEMPOTENCY_KEY: &str = "x-slackline-idempotency-key";

/// When a sweep fails on storage, the alarm is re-armed this far ahead: 5 s.
pub const REARM_AFTER_ERROR_MS: i64 = 5_000;
/// While the actor refuses its database (see the module docs), its alarm fires again this far
/// ahead, so that pending rows are swept as soon as a release that knows the schema runs: 60 s.
pub const SCHEMA_REARM_MS: i64 = 60_000;
/// How often a sweep prunes old receipts and delivered rows: at most once a minute.
pub const PRUNE_EVERY_MS: i64 = 60_000;
/// The alarm's safety net: a row due for longer than this with no alarm at or before it (or
/// within [`REARM_AFTER_ERROR_MS`]) is reported and re-armed by the next request; the net looks
/// at most once per this interval per instance: 5 s.
pub const ALARM_MISSING_AFTER_MS: i64 = 5_000;
/// The most rows one admin listing returns.
const MAX_PAGE: i64 = 200;

/// The team actor (a bot's crate exports it as the `TeamActor` class through `slackline::worker!`,
/// with its app).
pub struct TeamActor {
    state: State,
    env: Env,
    sql: SqlStorage,
    /// What the wake found the schema to be: the actor serves only when it is `Ready`.
    schema: Outcome,
    /// Housekeeping runs in a sweep at most once per [`PRUNE_EVERY_MS`].
    next_prune_at: Cell<i64>,
    /// The stored alarm as this instance knows it, written as each operation is issued
    /// (`crate::outbox::alarm`): lets an ingest skip `setAlarm` when a sweep is already due, and
    /// never believes in an alarm storage does not hold. Lost with the instance, which only costs
    /// one `setAlarm` more.
    alarm: AlarmView,
    /// The safety net ([`TeamActor::check_alarm`]) looks again no earlier than this.
    next_alarm_check_at: Cell<i64>,
    /// How many sweeps this instance has ended, alarm re-armed (a test hook waits for one).
    sweeps_ended: Cell<u64>,
    /// The last sweep this instance ran, with its time: a sweep that only delivered is not stored
    /// (`crate::admin::sweeps`), and the stats show this one when it is the newer.
    last_sweep: RefCell<Option<SweepLine>>,
    /// The team key, once known (it never changes for an actor).
    team: RefCell<Option<String>>,
    /// One per running sweep (an alarm's and an admin's may overlap): tells it that an ingest
    /// queued new rows (see `Sweeper::run`).
    nudges: RefCell<Vec<Nudge>>,
    /// The bot token as last resolved (see `credential::Cache`); forgotten on install and uninstall.
    credentials: credential::Cache,
    /// Slack's rate budgets as this instance has spent them, with the stored holds read back at
    /// start (see `runtime::pacing`).
    pacer: RefCell<Pacer>,
    /// The app: its handlers decide each request's effects inside the ingest unit.
    app: Rc<dyn App>,
    /// What this instance knows its database holds (`crate::sql::known`): lets the ingest and
    /// the completions skip statements that would write nothing.
    known: Rc<Known>,
    /// The rows this instance inserted claimed (its ingests', its completions' follow-ups), for
    /// its sweeps to adopt (`super::sweep::adopt`).
    pre_claims: super::sweep::PreClaims,
    /// The housekeeping wake this instance knows the directory holds for the team (it asked for
    /// it, or the directory's wake was answered with it): a sweep that leaves only housekeeping
    /// asks again only for an earlier one. Lost with the instance: a new one asks once.
    directory_wake: Cell<Option<i64>>,
}

impl TeamActor {
    /// The actor on its storage, running `app`.
    pub fn new(state: State, env: Env, app: Rc<dyn App>) -> Self {
        let sql = state.storage().sql();
        if let Ok(config) = env::config(&env) {
            crate::platform::meter::enable(config.allow_test_clock);
        }
        let schema = bring_up_to_date(&state.storage(), &sql);
        if let Outcome::Ready(_) = schema {
            // A failure leaves the note to the next wake: no row or delivery depends on it, but the
            // stats do not count the rows delivered before it as successes (crate::admin::sweeps).
            let _ = store::admin::note_counting_since(&sql, clock::now_ms());
        }
        let pacer = RefCell::new(crate::platform::pacing::load(&sql, clock::now_ms()));
        TeamActor {
            state,
            env,
            sql,
            schema,
            next_prune_at: Cell::new(0),
            alarm: AlarmView::default(),
            next_alarm_check_at: Cell::new(0),
            sweeps_ended: Cell::new(0),
            last_sweep: RefCell::new(None),
            team: RefCell::new(None),
            nudges: RefCell::new(Vec::new()),
            credentials: credential::Cache::default(),
            pacer,
            app,
            known: Rc::default(),
            pre_claims: super::sweep::PreClaims::default(),
            directory_wake: Cell::new(None),
        }
    }

    /// Serves one request.
    pub async fn fetch(&self, req: Request) -> Result<Response> {
        if !admin::reads_the_meter(&req) {
            crate::platform::meter::request();
        }
        let mut response = self.serve(req).await.unwrap_or_else(ActorError::into_response);
        // Every answer names this release's wire version (`crate::wire`), errors included.
        let version = env::config(&self.env).map(|c| super::next_release::version(&c)).unwrap_or(wire::VERSION_TEXT);
        let _ = response.headers_mut().set(wire::HEADER, version);
        Ok(response)
    }

    /// The alarm: one sweep, then the alarm re-armed.
    pub async fn alarm(&self) -> Result<Response> {
        crate::platform::meter::alarm();
        self.alarm.fired();
        if let Outcome::Refused(_) = self.schema {
            self.arm(clock::now_ms() + SCHEMA_REARM_MS).await?;
            return Response::ok("");
        }
        match env::config(&self.env) {
            Ok(config) => {
                let report = self.sweep(&config, Trigger::Alarm, None).await?;
                self.wake_by_directory(report.housekeeping_at).await?;
            }
            Err(e) => {
                log::error(LogLine::ConfigError(ErrorLine::new(e)));
                self.arm(clock::now_ms() + REARM_AFTER_ERROR_MS).await?;
            }
        }
        Response::ok("")
    }
}

/// Brings the database to the team schema's version and logs what that did (see the module docs).
fn bring_up_to_date(storage: &Storage, sql: &SqlStorage) -> Outcome {
    let team = store::outbox::team_key(sql).ok().flatten();
    let outcome = store::schema::bring_up_to_date(storage, sql, &crate::kinds::schema::TEAM);
    log::schema(&crate::kinds::schema::TEAM, team, &outcome);
    outcome
}

impl TeamActor {
    /// Every request the actor serves, in whichever form a release's front door sends it
    /// (`crate::wire::classify`): the ingest unit and an install (from the front door), the
    /// admin routes and the service API (their routes parsed by the Worker). What this release
    /// cannot read is a release mismatch (503, retryable), written nowhere.
    async fn serve(&self, mut req: Request) -> std::result::Result<Response, ActorError> {
        if let Outcome::Refused(refused) = &self.schema {
            return Err(ActorError::Schema(refused.clone()));
        }
        let config = env::config(&self.env).map_err(|e| ActorError::Config(e.to_string()))?;
        self.check_alarm().await;
        let route = super::header(&req, ROUTE_HEADER);
        match wire::classify(Verb::parse(req.method().as_ref()), &req.path(), route.as_deref()) {
            ActorRequest::Ingest => self.ingest(req, &config).await,
            ActorRequest::Install => self.install(req, &config).await,
            ActorRequest::RateLimited => self.rate_limited(req).await,
            ActorRequest::Housekeep => self.housekeep(&req, &config).await,
            ActorRequest::Routed(Routed::Admin(route)) => self.admin(&req, route, &config).await,
            ActorRequest::Routed(Routed::Api(route)) => {
                self.remember_team(&req);
                let body = if route.has_body() { req.text().await? } else { String::new() };
                match route.service() {
                    ApiService::Notify => self.notify(&req, &body, route, &config).await,
                    ApiService::Lists => self.lists(&req, &body, route, &config).await,
                }
            }
            ActorRequest::NotUnderstood => match super::next_release::serve(&config, route.as_deref()) {
                Some(answer) => Ok(Response::from_json(&answer)?),
                None => Err(ActorError::Mismatch(format!("{} {} ({})", req.method().as_ref(), req.path(), route.unwrap_or_default()))),
            },
        }
    }

    /// An actor reached only through the API has seen no event that names its team: the front
    /// door sends the key ([`TEAM_HEADER`]), kept for log lines.
    fn remember_team(&self, req: &Request) {
        if self.team_key().is_none() {
            if let Some(team) = super::header(req, TEAM_HEADER) {
                if store::outbox::remember_team_key(&self.sql, &team).is_ok() {
                    *self.team.borrow_mut() = Some(team);
                }
            }
        }
    }

    /// Sets the alarm to `at_ms`, whatever it is now.
    async fn arm(&self, at_ms: i64) -> Result<()> {
        self.issue(self.alarm.arm(at_ms)).await
    }

    /// Deletes the alarm, if this instance may have one stored: nothing is pending and no
    /// housekeeping is due.
    async fn disarm(&self) -> Result<()> {
        match self.alarm.disarm() {
            Some(op) => self.issue(op).await,
            None => Ok(()),
        }
    }

    /// Makes sure a sweep starts no later than `at_ms`: sets the alarm unless one this instance
    /// set is already due by then (under load most ingests find one and skip the write).
    async fn arm_by(&self, at_ms: i64) -> Result<()> {
        match self.alarm.arm_by(at_ms) {
            Some(op) => self.issue(op).await,
            None => Ok(()),
        }
    }

    /// Issues an operation the view has already counted (`super::issue_alarm`).
    async fn issue(&self, op: AlarmOp) -> Result<()> {
        super::issue_alarm(&self.state.storage(), &self.alarm, op).await
    }

    /// The safety net of the alarm invariant (`crate::outbox::alarm`), run by requests at most
    /// once per [`ALARM_MISSING_AFTER_MS`]: rows due for longer than that, no sweep running, and
    /// storage's alarm (`getAlarm`, a read) unset or later than soon — the alarm is re-armed to
    /// now, one `alarm_missing` line printed and the finding counted for the stats. Costs one
    /// indexed read when nothing is overdue; its own failures are left to the next request.
    async fn check_alarm(&self) {
        let now = clock::now_ms();
        if now < self.next_alarm_check_at.get() || self.sweeping() {
            return;
        }
        self.next_alarm_check_at.set(now + ALARM_MISSING_AFTER_MS);
        // A row this instance inserted claimed and has not adopted is due from its insert,
        // whatever its lease says (`super::sweep::adopt`).
        let due = |now| {
            let stored = store::outbox::overdue(&self.sql, now, ALARM_MISSING_AFTER_MS).ok().flatten();
            stored.into_iter().chain(self.pre_claims.oldest_waiting()).min()
        };
        let overdue = |now| alarm::overdue(due(now), now, ALARM_MISSING_AFTER_MS);
        if overdue(now).is_none() {
            return;
        }
        let Ok(stored) = self.state.storage().get_alarm().await else { return };
        // Read again after the await: a sweep that started meanwhile (getAlarm says null while
        // the alarm handler runs) or took the rows is no finding.
        let now = clock::now_ms();
        let Some(due_at) = overdue(now).filter(|_| !self.sweeping() && !alarm::covers(stored, now, REARM_AFTER_ERROR_MS)) else { return };
        let line = AlarmMissingLine { alert: Alert::AlarmMissing, team: self.team_key(), due_at, waited_ms: now - due_at, stored_alarm_at: stored };
        log::error(line);
        let _ = store::admin::note_alarm_missed(&self.sql, now, due_at);
        let _ = self.arm(now).await;
    }

    /// The test hook `arm_hold_ms` (`runtime::test_hooks`; `None` in production): waits until a
    /// sweep of this instance has ended, at most that long — the continuation of the ingest's
    /// `setAlarm` held while the alarm it set fires, sweeps and re-arms (issue 33's race).
    async fn hold_until_swept(&self, at_most_ms: Option<u64>) {
        let Some(at_most) = at_most_ms else { return };
        let (until, ended) = (clock::now_ms() + at_most as i64, self.sweeps_ended.get());
        while self.sweeps_ended.get() == ended && clock::now_ms() < until {
            worker::Delay::from(std::time::Duration::from_millis(5)).await;
        }
    }

    /// Whether a sweep (an alarm's or an admin's) is running in this instance: it re-arms the
    /// alarm when it ends.
    fn sweeping(&self) -> bool {
        !self.nudges.borrow().is_empty()
    }

    /// Rows were queued: running sweeps are told, and the alarm is armed to now (set even while a
    /// sweep runs: the alarm is what survives if this instance does not).
    async fn wake(&self) -> Result<()> {
        for nudge in self.nudges.borrow().iter() {
            nudge.send();
        }
        self.arm_by(clock::now_ms()).await
    }

    /// The team key: remembered from the first ingest, else read once from storage.
    fn team_key(&self) -> Option<String> {
        if self.team.borrow().is_none() {
            *self.team.borrow_mut() = store::outbox::team_key(&self.sql).ok().flatten();
        }
        self.team.borrow().clone()
    }

    /// One sweep, then the alarm re-armed to the next due time (or a short delay after an error).
    /// `test_now` (an admin sweep's test clock, `ALLOW_TEST_CLOCK=1` only) is the time its
    /// housekeeping counts from, run whenever it was last run: a test moves the clock past the
    /// retention times to see what pruning deletes. (The admin route also makes the schedules due
    /// by then due now before it sweeps: `admin::AdminRoute::Sweep`.)
    async fn sweep(&self, config: &Config, trigger: Trigger, test_now: Option<i64>) -> Result<SweepLine> {
        let storage = self.state.storage();
        let team = self.team_key();
        let now = clock::now_ms();
        let prune = test_now.or((now >= self.next_prune_at.get()).then_some(now));
        if prune.is_some() {
            self.next_prune_at.set(now + PRUNE_EVERY_MS);
        }
        let (nudge, nudges) = super::sweep::nudges();
        self.nudges.borrow_mut().push(nudge);
        let sweeper = Sweeper {
            storage: &storage,
            sql: &self.sql,
            config,
            team,
            prune,
            credentials: &self.credentials,
            pacer: &self.pacer,
            app: &HookedApp::of(&*self.app, config),
            known: &self.known,
            pre_claims: &self.pre_claims,
        };
        let mut report = sweeper.run(trigger, nudges).await;
        // `run` dropped its receiving side: forget every nudge whose sweep has ended.
        self.nudges.borrow_mut().retain(|nudge| !nudge.is_closed());
        let now = clock::now_ms();
        // Every read and write of the sweep's end happens before the await of `setAlarm`: after
        // an await, the first statement would open another implicit transaction.
        let end = store::outbox::sweep_end(&self.sql, now, config.receipt_retention_ms, config.done_retention_ms, self.next_prune_at.get());
        // Rows this instance inserted claimed and no sweep adopted yet are due now, whatever
        // their lease says (`super::sweep::adopt`).
        let waiting = self.pre_claims.oldest_waiting().map(|_| now);
        let wake = match (&report.error, &end) {
            (None, Ok(end)) => alarm::next_wake(end.work_at.into_iter().chain(waiting).min(), end.housekeeping_at),
            (_, Err(e)) => {
                report.error.get_or_insert(e.to_string());
                NextWake::Alarm(now + REARM_AFTER_ERROR_MS)
            }
            (Some(_), Ok(end)) => NextWake::Alarm(end.earliest().unwrap_or(now).max(now + REARM_AFTER_ERROR_MS)),
        };
        (report.next_alarm_at, report.housekeeping_at) = match wake {
            NextWake::Alarm(at) => (Some(at), None),
            NextWake::Directory(at) => (None, Some(at)),
            NextWake::Nothing => (None, None),
        };
        if let Ok(end) = &end {
            report.pending = end.pending;
            report.oldest_pending_age_ms = end.oldest_pending_age_ms;
        }
        if report.oldest_pending_age_ms.is_some_and(|age| age > config.alert_pending_age_ms) {
            report.alert = Some(Alert::PendingTooOld);
        }
        self.log_sweep(&report);
        match wake {
            NextWake::Alarm(at) => self.arm(at.max(now)).await?,
            // Only housekeeping: the caller has the directory wake the team for it
            // ([`TeamActor::wake_by_directory`]), or is the directory's wake itself. An alarm an
            // ingest set while this sweep ran (the sweep took its rows) runs one empty sweep.
            NextWake::Directory(_) => {}
            // Nothing pending, no housekeeping: such an alarm would only run an empty sweep.
            NextWake::Nothing => self.disarm().await?,
        }
        self.sweeps_ended.set(self.sweeps_ended.get() + 1);
        Ok(report)
    }

    /// A sweep left nothing pending and the housekeeping due at `at` (its report's
    /// `housekeeping_at`): the directory is asked to wake the team then, unless this instance
    /// knows it holds a wake no later (`outbox::alarm::must_ask`). If it cannot be asked (no
    /// team key yet, the call failed), the alarm is set to `at`, as before the directory woke
    /// teams.
    async fn wake_by_directory(&self, at: Option<i64>) -> Result<()> {
        let Some(at) = at.filter(|at| alarm::must_ask(self.directory_wake.get(), *at)) else { return Ok(()) };
        let asked = match self.team_key() {
            Some(team) => super::directory::wake_by(&self.env, &team, at).await,
            None => Err(worker::Error::RustError("the team key is not known yet".into())),
        };
        match asked {
            Ok(()) => {
                self.directory_wake.set(Some(at));
                Ok(())
            }
            Err(e) => {
                log::error(LogLine::DirectoryError(ErrorLine { path: Some(super::directory::WAKES_PATH.into()), ..ErrorLine::new(e) }));
                self.arm(at.max(clock::now_ms())).await
            }
        }
    }

    /// `POST /housekeep`: the directory's wake (`runtime::directory`). One sweep (its
    /// housekeeping runs when due, and any pending row is delivered), answered with when the
    /// housekeeping is next due — the wake the directory then holds — or `null` when the alarm
    /// covers it or none is due. `x-slackline-test-now` (`ALLOW_TEST_CLOCK=1` only) is the time
    /// the housekeeping counts from.
    async fn housekeep(&self, req: &Request, config: &Config) -> std::result::Result<Response, ActorError> {
        let report = self.sweep(config, Trigger::Alarm, TestHooks::read(req, config).now_ms).await?;
        self.directory_wake.set(report.housekeeping_at);
        Ok(Response::from_json(&serde_json::json!({ "next_at": report.housekeeping_at }))?)
    }

    /// Keeps the report as the team's last sweep and adds its outcomes to the counters: in the
    /// instance's memory, and in storage (one row, `crate::admin::sweeps`) only when it had more
    /// than successes, an error or an alert; prints it, unless it is an idle sweep's
    /// (housekeeping only).
    fn log_sweep(&self, report: &SweepLine) {
        let mut line = report.clone();
        let dated = SweepLine { at: Some(clock::now_ms()), ..report.clone() };
        let saved = match crate::admin::sweeps::worth_storing(report) {
            true => store::admin::save_sweep(&self.sql, dated.clone()),
            false => Ok(()),
        };
        if report.worth_logging() {
            *self.last_sweep.borrow_mut() = Some(dated);
        }
        if let Err(e) = saved {
            line.error.get_or_insert(e.to_string());
        }
        if line.error.is_some() {
            log::error(line);
        } else if line.worth_logging() {
            log::emit(line);
        }
    }
}
