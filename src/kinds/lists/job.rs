//! A Slack List's jobs (`Action::Lists`): a record's sync (`items.create`, `items.update` or
//! `items.delete`, as [`super::sync::plan`] decides) and the pages of a reconciliation pass
//! (`items.list`). A sync reads what it needs, makes at most one Slack call (paced by its method's
//! budget), and ends with its [`ListsEnd`] (stored with the completion, only if the claim still
//! holds) and the List's pacing hold (`LISTS_PACE_MS` from the call's start). A page job reads
//! pages one after the other, `LISTS_PACE_MS` apart, for as long as [`page_budget_ms`] allows:
//! each but its last is applied by the job in a unit fenced by the claim, the last by the
//! completion.
//!
//! The one write made *before* a call is the create marker ([`store::mark_create_sent`]), fenced
//! by the claim and committed before the request leaves (the output gate holds outgoing requests
//! until writes are durable): a later attempt that finds it knows an earlier create's end was
//! lost, and never sends a second create blindly. A create the pacer keeps back writes no marker.

use super::api::{target, ListJob};
use super::create::{judge_create, CreateAttempt, CreateVerdict};
use super::end::{ListsEnd, ListsWrite};
use super::reconcile::{next, read_page, Next, Pass};
use super::store::{self, Queueing, RunCursor};
use super::sync::{plan, Plan, RecordWrite};
use super::FieldError;
use crate::config::Config;
use crate::kinds::completion::{AfterWrite, JobOutcome};
use crate::kinds::job::Job;
use crate::outbox::reasons;
use crate::platform::clock;
use crate::platform::http::{self, Answer, Failure};
use crate::slack::classify::{Verdict, RATE_LIMIT_ERRORS};
use crate::slack::method;
use serde_json::{json, Value};

/// How a List job ended, before it becomes the row's outcome.
struct Ended {
    verdict: Verdict,
    http_status: Option<i64>,
    /// When its Slack call left, if one did (the List's pacing counts from it).
    sent_at: Option<i64>,
    end: ListsEnd,
}

impl Ended {
    fn settled(verdict: Verdict, end: ListsEnd) -> Ended {
        Ended { verdict, http_status: None, sent_at: None, end }
    }

    fn outcome(self, job: &Job<'_>, list_id: &str) -> JobOutcome {
        let mut outcome = JobOutcome { verdict: self.verdict, http_status: self.http_status, writes: vec![AfterWrite::Lists(self.end)], answer: None };
        if let Some(sent) = self.sent_at {
            outcome.writes.push(AfterWrite::Hold { lane: target(list_id), until: sent + job.config.lists_pace_ms });
        }
        outcome
    }
}

/// Runs one List job.
pub async fn run(job: &Job<'_>, list_id: &str, list_job: &ListJob) -> JobOutcome {
    let ended = match list_job {
        ListJob::Sync { record_id } => sync(job, list_id, record_id).await,
        ListJob::Reconcile { run } => page(job, list_id, *run).await,
        ListJob::Put { record_id, fields } => put(job, list_id, record_id, fields),
    };
    ended.unwrap_or_else(|e| Ended::settled(Verdict::storage(e), ListsEnd::Nothing)).outcome(job, list_id)
}

/// A handler's record: checked against the List's column map now, stored with the completion.
/// A List nobody mapped parks the row as `not_configured`, fields the map refuses as
/// `invalid_fields` (stable reasons: the stats group by them, a bulk redrive names them).
fn put(job: &Job<'_>, list_id: &str, record_id: &str, fields: &str) -> worker::Result<Ended> {
    let refused = |code: &str| Ok(Ended::settled(Verdict::Permanent { code: code.into() }, ListsEnd::Nothing));
    let Some(map) = store::column_map(job.sql, list_id)? else { return refused(reasons::NOT_CONFIGURED) };
    let checked = serde_json::from_str::<Value>(fields).map_err(|_| FieldError::NotAnObject).and_then(|f| map.cells(record_id, &f));
    if checked.is_err() {
        return refused("invalid_fields");
    }
    let write = ListsWrite::Put { list_id: list_id.into(), record_id: record_id.into(), fields: fields.into() };
    Ok(Ended::settled(Verdict::Success, ListsEnd::Put(write)))
}

async fn sync(job: &Job<'_>, list_id: &str, record_id: &str) -> worker::Result<Ended> {
    let Some(input) = store::sync_input(job.sql, list_id, record_id)? else {
        return Ok(Ended::settled(Verdict::Success, ListsEnd::Nothing));
    };
    let (list, record) = (list_id.to_string(), record_id.to_string());
    let version = input.record.version;
    let planned = plan(&input.record, input.map.recreate_missing);
    if let Plan::Settle(write) = planned {
        return Ok(Ended::settled(Verdict::Success, ListsEnd::Settled { list_id: list, record_id: record, write }));
    }
    let token = match job.bearer() {
        Ok(token) => token,
        Err(refused) => return Ok(Ended::settled(refused.verdict, ListsEnd::Unsent { list_id: list, record_id: record })),
    };
    let cells = match input.map.cells(record_id, &input.fields) {
        Ok(cells) => cells,
        Err(e) => {
            // The column map changed since the record was stored: Slack would refuse it too.
            let write = RecordWrite::Failed { error: e.message() };
            return Ok(Ended::settled(Verdict::Permanent { code: "invalid_fields".into() }, ListsEnd::Settled { list_id: list, record_id: record, write }));
        }
    };
    let (method, args) = match &planned {
        Plan::Create => return create(job, list_id, record_id, version, cells, token).await,
        Plan::Update { row_id } => {
            let cells: Vec<Value> = cells
                .into_iter()
                .map(|mut c| {
                    c["row_id"] = json!(row_id);
                    c
                })
                .collect();
            (method::SLACK_LISTS_ITEMS_UPDATE, json!({ "list_id": list_id, "cells": cells }))
        }
        Plan::Delete { row_id } => (method::SLACK_LISTS_ITEMS_DELETE, json!({ "list_id": list_id, "id": row_id })),
        Plan::Settle(_) => return Err(worker::Error::RustError("a settled plan reached the call".into())),
    };
    let end = ListsEnd::Call { list_id: list, record_id: record, version, plan: planned.clone() };
    let mut ended = call(job, token, method, &args, end).await.0;
    if matches!(planned, Plan::Delete { .. }) && ended.verdict.code().is_some_and(|code| super::sync::GONE.contains(&code)) {
        ended.verdict = Verdict::Success; // already gone: the delete's goal holds
    }
    Ok(ended)
}

/// A create: paced first, then the create marker, then the call; its end is judged by
/// [`judge_create`] (only a refusal before Slack acted is retried as a create).
async fn create(job: &Job<'_>, list_id: &str, record_id: &str, version: i64, cells: Vec<Value>, token: &str) -> worker::Result<Ended> {
    let args = json!({ "list_id": list_id, "initial_fields": cells });
    if let Err(paced) = job.gate.admit(method::SLACK_LISTS_ITEMS_CREATE, &args) {
        return Ok(Ended::settled(paced, ListsEnd::Nothing));
    }
    if !store::mark_create_sent(job.sql, list_id, record_id, version, job.row.id, job.claim_token, job.started)? {
        // Our claim was taken over (the completion will be fenced) or a create is noted.
        return Ok(Ended::settled(Verdict::transient("claim_lost"), ListsEnd::Nothing));
    }
    let sent_at = clock::now_ms();
    let answer = http::post_json(&job.config.slack_method_url(method::SLACK_LISTS_ITEMS_CREATE), Some(token), &args, job.config.attempt_timeout_ms).await;
    let attempt = match &answer {
        Ok(a) => CreateAttempt::Answered { status: a.status, retry_after: a.retry_after.as_deref(), body: &a.json },
        Err(Failure::Timeout | Failure::Network(_)) => CreateAttempt::Lost,
    };
    let judged = judge_create(&attempt);
    let verdict = create_verdict(&judged, answer.as_ref().ok());
    let http_status = answer.as_ref().ok().map(|a| i64::from(a.status));
    let end = ListsEnd::Create { list_id: list_id.to_string(), record_id: record_id.to_string(), version, verdict: judged };
    Ok(Ended { verdict, http_status, sent_at: Some(sent_at), end })
}

/// The outbox's verdict on a create: only a refusal before Slack acted is retried; an unknown
/// outcome parks the row as `create_uncertain` (reconciliation settles it).
fn create_verdict(judged: &CreateVerdict, answer: Option<&Answer>) -> Verdict {
    match judged {
        CreateVerdict::Created { .. } => Verdict::Success,
        CreateVerdict::RetryCreate { retry_after_ms } => {
            let status = answer.map(|a| a.status);
            let code = answer.and_then(|a| a.json.get("error")).and_then(Value::as_str).map(str::to_string);
            if status == Some(429) || code.as_deref().is_some_and(|c| RATE_LIMIT_ERRORS.contains(&c)) {
                return Verdict::RateLimited { retry_after_ms: *retry_after_ms };
            }
            Verdict::Transient { code: code.unwrap_or_else(|| status.map_or("not_sent".into(), |s| format!("http_{s}"))), retry_after_ms: *retry_after_ms }
        }
        CreateVerdict::Uncertain { .. } => Verdict::Permanent { code: "create_uncertain".into() },
        CreateVerdict::Rejected { code } => Verdict::Permanent { code: code.clone() },
    }
}

/// One Slack call judged like any Web API call; also returns the answer's JSON. A call kept back
/// for its rate budget was not sent: it writes nothing and paces nothing.
async fn call(job: &Job<'_>, token: &str, method: &str, args: &Value, end: ListsEnd) -> (Ended, Value) {
    let sent_at = clock::now_ms();
    let call = job.call_slack(token, method, args).await;
    if matches!(call.verdict, Verdict::Paced { .. }) {
        return (Ended::settled(call.verdict, ListsEnd::Nothing), Value::Null);
    }
    (Ended { verdict: call.verdict, http_status: call.http_status, sent_at: Some(sent_at), end }, call.json)
}

/// A pass's pages, read under one claim: each page but the job's last is applied at once, in its
/// own unit fenced by the claim ([`store::apply_page_in_job`]); the last — the pass's end, or the
/// page after which the job's time is up ([`page_budget_ms`]) — is the completion's, which queues
/// the next page's row. One row per job instead of one per page (each row costs its insert, its
/// claim and its completion in rows written). A job that stops early (a failed call, a lost claim)
/// leaves the pass at its last applied page: the next attempt goes on from its stored cursor.
async fn page(job: &Job<'_>, list_id: &str, run: i64) -> worker::Result<Ended> {
    let failed = || ListsEnd::PageFailed { list_id: list_id.to_string(), run };
    let Some(mut at) = store::run_cursor(job.sql, run)?.filter(|c| !c.finished) else {
        return Ok(Ended::settled(Verdict::Success, ListsEnd::Nothing));
    };
    let Some(map) = store::column_map(job.sql, list_id)? else {
        return Ok(Ended::settled(Verdict::Permanent { code: "list_not_configured".into() }, failed()));
    };
    let token = match job.bearer() {
        Ok(token) => token,
        Err(refused) => return Ok(Ended::settled(refused.verdict, failed())),
    };
    let bot_user = match store::bot_user(job.sql)? {
        Some(user) => Some(user),
        None => ask_bot_user(job, token).await,
    };
    let until = job.started + page_budget_ms(job.config);
    loop {
        let mut args = json!({ "list_id": list_id, "limit": job.config.lists_page_size });
        if let Some(cursor) = &at.cursor {
            args["cursor"] = json!(cursor);
        }
        if at.pass == Pass::Archived {
            args["archived"] = json!(true);
        }
        let (mut ended, body) = call(job, token, method::SLACK_LISTS_ITEMS_LIST, &args, failed()).await;
        if let Verdict::Paced { until: due } = ended.verdict {
            // `items.list`'s budget (Tier 2) lets the call go at `due`, its slot kept: wait for it
            // here if the job has the time, rather than end and be claimed again.
            if due < until {
                sleep_until(due).await;
                continue;
            }
        }
        if ended.verdict != Verdict::Success {
            return Ok(ended);
        }
        let Some(page) = read_page(&body, &map.key_column) else {
            ended.verdict = Verdict::transient("bad_response");
            return Ok(ended);
        };
        let after = next(at.pass, page.next_cursor.clone());
        let write = ListsWrite::Page {
            list_id: list_id.to_string(),
            run,
            pass: at.pass,
            page,
            started: job.started,
            bot_user: bot_user.clone(),
            recreate_missing: map.recreate_missing,
        };
        let ready_at = ended.sent_at.unwrap_or(job.started) + job.config.lists_pace_ms;
        let Next::Page { pass, cursor } = after else {
            ended.end = ListsEnd::Page(write);
            return Ok(ended);
        };
        if ready_at >= until {
            ended.end = ListsEnd::Page(write);
            return Ok(ended);
        }
        let q = Queueing::of(job.config, clock::now_ms());
        if !store::apply_page_in_job(job.storage, job.sql, write, job.row.id, job.claim_token, q)? {
            return Ok(Ended::settled(Verdict::transient("claim_lost"), ListsEnd::Nothing));
        }
        at = RunCursor { pass, cursor, finished: false };
        sleep_until(ready_at).await;
    }
}

/// Waits until `at` (epoch ms); returns at once if it has passed.
async fn sleep_until(at: i64) {
    let wait = at - clock::now_ms();
    if wait > 0 {
        worker::Delay::from(std::time::Duration::from_millis(wait as u64)).await;
    }
}

/// How long one page job reads pages: the sweep's budget, and never more than half the claim's
/// lease (its pages are fenced by the claim, which another sweep may take once it runs out).
fn page_budget_ms(config: &Config) -> i64 {
    config.sweep_budget_ms.min(config.lease_ms / 2)
}

/// Our bot's user id from `auth.test`, remembered; `None` if Slack does not say (then no row is
/// judged human-edited).
async fn ask_bot_user(job: &Job<'_>, token: &str) -> Option<String> {
    let answer = http::post_json(&job.config.slack_method_url(method::AUTH_TEST), Some(token), &json!({}), job.config.attempt_timeout_ms).await.ok()?;
    let user = answer.json.get("user_id").and_then(Value::as_str)?.to_string();
    store::remember_bot_user(job.sql, &user).ok()?;
    Some(user)
}
