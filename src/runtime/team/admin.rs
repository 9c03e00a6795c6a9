//! The team actor's half of the admin API: reads and operator actions on this team's SQLite,
//! reached only through the Worker's `runtime::admin`, which authenticates, parses the route
//! once ([`AdminRoute`]) and forwards it here.

use super::error::ActorError;
use super::{TeamActor, MAX_PAGE};
use crate::admin::state::StatePage;
use crate::admin::{ScheduledPage, ScheduledRow};
use crate::app::App;
use crate::config::{Config, BULK_REDRIVE_CAP};
use crate::kinds::schedule::{store as scheduled, Cancel};
use crate::logs::AdminLine;
use crate::outbox::{RowId, Status, Trigger};
use crate::platform::{clock, log, state};
use crate::routes::AdminRoute;
use crate::runtime::query_param;
use crate::runtime::store::{self, admin::Operated};
use crate::runtime::test_hooks::{HookedApp, TestHooks};
use serde::Serialize;
use serde_json::json;
use worker::{Request, Response};

type Answer = Result<Response, ActorError>;

fn json_answer<T: Serialize>(body: &T) -> Answer {
    Ok(Response::from_json(body)?)
}

/// A numeric query parameter: `default` when absent, a 400 naming it when it is not a number.
fn number(req: &Request, name: &str, default: i64) -> Result<i64, ActorError> {
    match query_param(req, name) {
        None => Ok(default),
        Some(v) => v.parse().map_err(|_| ActorError::BadRequest(format!("{name} must be a whole number"))),
    }
}

/// Whether `req` is the admin route that reads the cost meter (`AdminRoute::Meter`), which the
/// meter does not count as a request.
pub(super) fn reads_the_meter(req: &Request) -> bool {
    let route = crate::runtime::header(req, crate::routes::ROUTE_HEADER);
    crate::wire::classify(crate::routes::Verb::parse(req.method().as_ref()), &req.path(), route.as_deref())
        == crate::wire::ActorRequest::Routed(crate::wire::Routed::Admin(AdminRoute::Meter))
}

impl TeamActor {
    /// Serves an admin route.
    pub(super) async fn admin(&self, req: &Request, route: AdminRoute, config: &Config) -> Answer {
        match route {
            AdminRoute::Stats => {
                let now = clock::now_ms();
                let mut stats = store::admin::stats(&self.sql, now, self.last_sweep.borrow().clone())?;
                stats.pacing = self.pacer.borrow().busy(now).into_iter().map(Into::into).collect();
                json_answer(&stats)
            }
            AdminRoute::Outbox => self.list(req),
            AdminRoute::Audit => json_answer(&json!({ "audit": store::admin::audit(&self.sql, MAX_PAGE)? })),
            AdminRoute::Row { id } => json_answer(&store::admin::row_with_attempts(&self.sql, id)?.ok_or(ActorError::NoSuchRow)?),
            AdminRoute::Redrive { id } => self.redrive(id, config).await,
            AdminRoute::Discard { id } => self.discard(id),
            AdminRoute::Scheduled => self.scheduled(req),
            AdminRoute::Cancel { id } => self.cancel(id),
            AdminRoute::Sweep => {
                let test_now = TestHooks::read(req, config).now_ms;
                // A test clock (test builds, `ALLOW_TEST_CLOCK=1`; always `None` in production):
                // the schedules due by then fire in this sweep (`slackline-sim advance`).
                #[cfg(feature = "testkit")]
                if let Some(at) = test_now {
                    scheduled::due_by(&self.state.storage(), &self.sql, at, clock::now_ms())?;
                }
                let report = self.sweep(config, Trigger::Admin, test_now).await?;
                self.wake_by_directory(report.housekeeping_at).await?;
                json_answer(&report)
            }
            AdminRoute::BulkRedrive => self.bulk_redrive(req, config).await,
            AdminRoute::State => self.state_page(req, config),
            #[cfg(feature = "testkit")]
            AdminRoute::Seed if config.allow_bench_seed => self.seed(req),
            #[cfg(feature = "testkit")]
            AdminRoute::Meter if config.allow_test_clock => json_answer(&crate::platform::meter::snapshot()),
            // Test scaffolding: absent from a production build (slackline's `testkit` feature).
            AdminRoute::Seed | AdminRoute::Meter => Err(ActorError::NotFound),
        }
    }

    /// `GET /admin/outbox?status=&limit=&before=`: a page of rows, newest first.
    fn list(&self, req: &Request) -> Answer {
        let status = query_param(req, "status").unwrap_or_else(|| "pending".into());
        let status = Status::parse(&status).ok_or_else(|| ActorError::BadRequest("status must be pending, parked or done".into()))?;
        let limit = number(req, "limit", 50)?.clamp(1, MAX_PAGE);
        let before = number(req, "before", i64::from(i32::MAX) * 1024)?;
        json_answer(&store::admin::list_rows(&self.sql, status, before, limit)?)
    }

    /// `GET …/state?prefix=&after=&limit=`: a page of the team's state, secret values redacted.
    fn state_page(&self, req: &Request, config: &Config) -> Answer {
        let limit = number(req, "limit", 50)?.clamp(1, MAX_PAGE) as u32;
        let (prefix, after) = (query_param(req, "prefix").unwrap_or_default(), query_param(req, "after"));
        let rows = state::page(&self.sql, &prefix, after.as_deref(), limit)?;
        let rows = rows.into_iter().map(|e| (e.key, e.value, e.updated_at, e.bytes)).collect();
        let app = HookedApp::of(&*self.app, config);
        json_answer(&StatePage::of(rows, limit, |key| app.is_secret_state(key)))
    }

    /// Bulk redrive by reason and time window. A dry run (the default) only counts; to act, pass
    /// `dry_run=false` and `expect=<the dry run's count>` (409 if the count changed since).
    async fn bulk_redrive(&self, req: &Request, config: &Config) -> Answer {
        let (since, until) = (number(req, "since", 0)?, number(req, "until", i64::from(i32::MAX) * 1_000_000)?);
        let filter = store::admin::ParkedFilter { reason: query_param(req, "reason").filter(|r| !r.is_empty()), since, until };
        let matching = store::admin::count_parked(&self.sql, &filter)?;
        if query_param(req, "dry_run").as_deref() != Some("false") {
            return json_answer(&json!({ "dry_run": true, "matching": matching, "cap": BULK_REDRIVE_CAP }));
        }
        if query_param(req, "expect").and_then(|e| e.parse::<i64>().ok()) != Some(matching) {
            return Err(ActorError::CountChanged { matching });
        }
        let now = clock::now_ms();
        let spacing = config.redrive_spacing_ms;
        let redriven = store::admin::bulk_redrive(&self.state.storage(), &self.sql, filter, BULK_REDRIVE_CAP, spacing, config.retry.max_attempts, now)?;
        if redriven > 0 {
            self.arm_by(now).await?;
        }
        log::emit(AdminLine { action: "bulk_redrive".into(), team: self.team_key(), redriven });
        json_answer(&json!({ "redriven": redriven, "remaining": matching - redriven, "spacing_ms": spacing }))
    }

    /// Benchmarks only (`ALLOW_BENCH_SEED=1`): `?receipts=N&done=M&from=K`.
    #[cfg(feature = "testkit")]
    fn seed(&self, req: &Request) -> Answer {
        let (receipts, done) = (number(req, "receipts", 0)?.clamp(0, 200_000), number(req, "done", 0)?.clamp(0, 200_000));
        store::admin::seed(&self.sql, receipts, done, number(req, "from", 0)?, clock::now_ms())?;
        json_answer(&json!({ "seeded_receipts": receipts, "seeded_done": done }))
    }

    /// Sends a parked row back to pending, due now.
    async fn redrive(&self, id: RowId, config: &Config) -> Answer {
        let now = clock::now_ms();
        match store::admin::redrive(&self.state.storage(), &self.sql, id, config.retry.max_attempts, now)? {
            Operated::Applied => {
                self.arm_by(now).await?;
                json_answer(&json!({ "redriven": id }))
            }
            Operated::NotParked => Err(ActorError::NotParked),
        }
    }

    /// `GET …/scheduled?limit=`: the pending scheduled rows, soonest due first.
    fn scheduled(&self, req: &Request) -> Answer {
        let limit = number(req, "limit", 50)?.clamp(1, MAX_PAGE);
        let rows = store::admin::scheduled(&self.sql, limit)?;
        json_answer(&ScheduledPage { scheduled: rows.iter().filter_map(ScheduledRow::of).collect() })
    }

    /// Cancels a pending scheduled row (as `cx.cancel` would): never performed, unless its attempt
    /// is in flight (409 `in_flight`: that occurrence fires). Audited.
    fn cancel(&self, id: RowId) -> Answer {
        match scheduled::cancel_audited(&self.state.storage(), &self.sql, id, clock::now_ms())? {
            Some(Cancel::Cancelled) => json_answer(&json!({ "cancelled": id })),
            Some(Cancel::InFlight) => Err(ActorError::InFlight),
            None => Err(ActorError::NotScheduled),
        }
    }

    /// Deletes a parked row (an audit record keeps it).
    fn discard(&self, id: RowId) -> Answer {
        match store::admin::discard(&self.state.storage(), &self.sql, id, clock::now_ms())? {
            Operated::Applied => json_answer(&json!({ "discarded": id })),
            Operated::NotParked => Err(ActorError::NotParked),
        }
    }
}
