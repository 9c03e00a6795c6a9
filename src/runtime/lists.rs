//! Performs a List's outbox jobs for the sweep: a record's sync (`items.create`, `items.update` or
//! `items.delete`, as [`crate::lists::sync::plan`] decides) and one page of a reconciliation pass
//! (`items.list`). It reads what it needs, makes at most one Slack call, and returns the verdict
//! for the outbox plus a [`Pending`] write that the sweep stores in the completion's unit (only
//! if the claim still holds).
//!
//! The one write made *before* a call is the create marker ([`store::lists::mark_create_sent`]),
//! fenced by the claim and committed before the request leaves (the output gate holds outgoing
//! requests until writes are durable): a later attempt that finds it knows an earlier create's
//! end was lost, and never sends a second create blindly.

use super::clock;
use super::credential::Credential;
use super::http::{self, Answer, Failure};
use super::pacing::Gate;
use super::store::lists::{self as store, ListsWrite};
use crate::config::Config;
use crate::lists::api::ListJob;
use crate::lists::create::{judge_create, CreateAttempt, CreateVerdict};
use crate::lists::reconcile::{read_page, Pass};
use crate::lists::sync::{after_call, after_create, plan, Plan, RecordWrite};
use crate::slack::classify::Verdict;
use serde_json::{json, Value};
use worker::SqlStorage;

/// What a list job's end will write, once the outbox transition is known.
#[derive(Debug, Clone)]
pub enum Pending {
    /// Nothing (a stale job).
    Nothing,
    /// A record settled without a call.
    Settled {
        /// The List.
        list_id: String,
        /// The record.
        record_id: String,
        /// What to write.
        write: RecordWrite,
    },
    /// A create was attempted.
    Create {
        /// The List.
        list_id: String,
        /// The record.
        record_id: String,
        /// The version sent.
        version: i64,
        /// What its end means.
        verdict: CreateVerdict,
    },
    /// An update or delete was attempted.
    Call {
        /// The List.
        list_id: String,
        /// The record.
        record_id: String,
        /// The version sent.
        version: i64,
        /// Which call.
        plan: Plan,
    },
    /// No call could be made (the team has no usable token).
    Unsent {
        /// The List.
        list_id: String,
        /// The record.
        record_id: String,
    },
    /// A page was read.
    Page(ListsWrite),
    /// A page could not be read.
    PageFailed {
        /// The List.
        list_id: String,
        /// The pass.
        run: i64,
    },
}

impl Pending {
    /// The write, given the attempt's verdict and whether the outbox parked the row.
    pub fn write(self, verdict: &Verdict, parked: bool) -> Option<ListsWrite> {
        let record = |list_id: String, record_id: String, write: RecordWrite| Some(ListsWrite::Record { list_id, record_id, write });
        match self {
            Pending::Nothing => None,
            Pending::Settled { list_id, record_id, write } => record(list_id, record_id, write),
            Pending::Create { list_id, record_id, version, verdict: created } => record(list_id, record_id, after_create(&created, version, parked)),
            Pending::Call { list_id, record_id, version, plan } => record(list_id, record_id, after_call(&plan, version, verdict.code(), parked)),
            Pending::Unsent { list_id, record_id } => match (parked, verdict.code()) {
                (true, Some(code)) => record(list_id, record_id, RecordWrite::Failed { error: code.to_string() }),
                _ => None,
            },
            Pending::Page(write) => Some(write),
            Pending::PageFailed { list_id, run } => parked.then(|| ListsWrite::RunFailed { list_id, run, error: verdict.code().unwrap_or("failed").to_string() }),
        }
    }
}

/// A performed list job.
pub struct ListPerformed {
    /// For the outbox.
    pub verdict: Verdict,
    /// Slack's HTTP status, when it answered.
    pub http_status: Option<i64>,
    /// When a Slack call left, if one did (the list's pacing counts from it).
    pub sent_at: Option<i64>,
    /// What the completion writes.
    pub pending: Pending,
}

impl ListPerformed {
    fn settled(verdict: Verdict, pending: Pending) -> ListPerformed {
        ListPerformed { verdict, http_status: None, sent_at: None, pending }
    }
}

/// The claimed outbox row a job came from (for the create marker's fence).
pub struct Claim<'a> {
    /// The outbox row.
    pub row_id: i64,
    /// The sweep's claim token.
    pub token: &'a str,
}

/// Performs one list job.
#[allow(clippy::too_many_arguments)]
pub async fn perform(sql: &SqlStorage, config: &Config, credential: &Credential, gate: &Gate<'_>, claim: Claim<'_>, list_id: &str, job: &ListJob, started: i64) -> ListPerformed {
    let result = match job {
        ListJob::Sync { record_id } => sync(sql, config, credential, gate, claim, list_id, record_id, started).await,
        ListJob::Reconcile { run } => page(sql, config, credential, gate, list_id, *run, started).await,
    };
    result.unwrap_or_else(|e| ListPerformed::settled(Verdict::transient(format!("storage: {e}")), Pending::Nothing))
}

#[allow(clippy::too_many_arguments)]
async fn sync(sql: &SqlStorage, config: &Config, credential: &Credential, gate: &Gate<'_>, claim: Claim<'_>, list_id: &str, record_id: &str, now: i64) -> worker::Result<ListPerformed> {
    let Some(input) = store::sync_input(sql, list_id, record_id)? else {
        return Ok(ListPerformed::settled(Verdict::Success, Pending::Nothing));
    };
    let (list, record) = (list_id.to_string(), record_id.to_string());
    let version = input.record.version;
    let planned = plan(&input.record, input.map.recreate_missing);
    if let Plan::Settle(write) = planned {
        return Ok(ListPerformed::settled(Verdict::Success, Pending::Settled { list_id: list, record_id: record, write }));
    }
    let token = match credential {
        Credential::Token(token) => token.as_str(),
        Credential::Unusable(verdict) => return Ok(ListPerformed::settled(verdict.clone(), Pending::Unsent { list_id: list, record_id: record })),
    };
    let cells = match input.map.cells(record_id, &input.fields) {
        Ok(cells) => cells,
        Err(e) => {
            // The column map changed since the record was stored: Slack would refuse it too.
            let write = RecordWrite::Failed { error: e.message() };
            return Ok(ListPerformed::settled(Verdict::Permanent { code: "invalid_fields".into() }, Pending::Settled { list_id: list, record_id: record, write }));
        }
    };
    let timeout = config.attempt_timeout_ms;
    match planned {
        Plan::Create => {
            let args = json!({ "list_id": list_id, "initial_fields": cells });
            // Paced before the create marker: a create kept back was never sent.
            if let Err(paced) = gate.admit("slackLists.items.create", &args) {
                return Ok(ListPerformed::settled(paced, Pending::Nothing));
            }
            if !store::mark_create_sent(sql, list_id, record_id, version, claim.row_id, claim.token, now)? {
                // Our claim was taken over (the completion will be fenced) or a create is noted.
                return Ok(ListPerformed::settled(Verdict::transient("claim_lost"), Pending::Nothing));
            }
            let sent_at = clock::now_ms();
            let answer = http::post_json(&config.slack_method_url("slackLists.items.create"), Some(token), &args, timeout).await;
            let attempt = match &answer {
                Ok(a) => CreateAttempt::Answered { status: a.status, retry_after: a.retry_after.as_deref(), body: &a.json },
                Err(Failure::Timeout | Failure::Network(_)) => CreateAttempt::Lost,
            };
            let judged = judge_create(&attempt);
            let verdict = create_verdict(&judged, answer.as_ref().ok());
            let http_status = answer.as_ref().ok().map(|a| a.status as i64);
            Ok(ListPerformed { verdict, http_status, sent_at: Some(sent_at), pending: Pending::Create { list_id: list, record_id: record, version, verdict: judged } })
        }
        Plan::Update { ref row_id } => {
            let cells: Vec<Value> = cells.into_iter().map(|mut c| {
                c["row_id"] = json!(row_id);
                c
            }).collect();
            let args = json!({ "list_id": list_id, "cells": cells });
            Ok(call(config, gate, token, "slackLists.items.update", &args, Pending::Call { list_id: list, record_id: record, version, plan: planned.clone() }).await)
        }
        Plan::Delete { ref row_id } => {
            let args = json!({ "list_id": list_id, "id": row_id });
            let mut performed = call(config, gate, token, "slackLists.items.delete", &args, Pending::Call { list_id: list, record_id: record, version, plan: planned.clone() }).await;
            if matches!(performed.verdict.code(), Some("record_not_found" | "row_not_found")) {
                performed.verdict = Verdict::Success; // already gone: the delete's goal holds
            }
            Ok(performed)
        }
        Plan::Settle(_) => unreachable!("settled above"),
    }
}

/// The outbox's verdict on a create: only a refusal before Slack acted is retried; an unknown
/// outcome parks the row as `create_uncertain` (reconciliation settles it).
fn create_verdict(judged: &CreateVerdict, answer: Option<&Answer>) -> Verdict {
    match judged {
        CreateVerdict::Created { .. } => Verdict::Success,
        CreateVerdict::RetryCreate { retry_after_ms } => {
            let status = answer.map(|a| a.status);
            let code = answer.and_then(|a| a.json.get("error")).and_then(Value::as_str).map(str::to_string);
            if status == Some(429) || code.as_deref().is_some_and(|c| crate::slack::classify::RATE_LIMIT_ERRORS.contains(&c)) {
                return Verdict::RateLimited { retry_after_ms: *retry_after_ms };
            }
            Verdict::Transient { code: code.unwrap_or_else(|| status.map_or("not_sent".into(), |s| format!("http_{s}"))), retry_after_ms: *retry_after_ms }
        }
        CreateVerdict::Uncertain { .. } => Verdict::Permanent { code: "create_uncertain".into() },
        CreateVerdict::Rejected { code } => Verdict::Permanent { code: code.clone() },
    }
}

/// One Slack call judged like any Web API call; also returns the answer's JSON.
/// A call kept back for its rate budget was not sent: it writes nothing and paces nothing.
async fn call_json(config: &Config, gate: &Gate<'_>, token: &str, method: &str, args: &Value, pending: Pending) -> (ListPerformed, Value) {
    let sent_at = clock::now_ms();
    let call = http::call_slack(config, gate, token, method, args).await;
    if matches!(call.verdict, Verdict::Paced { .. }) {
        return (ListPerformed::settled(call.verdict, Pending::Nothing), Value::Null);
    }
    (ListPerformed { verdict: call.verdict, http_status: call.http_status, sent_at: Some(sent_at), pending }, call.json)
}

async fn call(config: &Config, gate: &Gate<'_>, token: &str, method: &str, args: &Value, pending: Pending) -> ListPerformed {
    call_json(config, gate, token, method, args, pending).await.0
}

async fn page(sql: &SqlStorage, config: &Config, credential: &Credential, gate: &Gate<'_>, list_id: &str, run: i64, started: i64) -> worker::Result<ListPerformed> {
    let failed = || Pending::PageFailed { list_id: list_id.to_string(), run };
    let Some(at) = store::run_cursor(sql, run)?.filter(|c| !c.finished) else {
        return Ok(ListPerformed::settled(Verdict::Success, Pending::Nothing));
    };
    let Some(map) = store::column_map(sql, list_id)? else {
        return Ok(ListPerformed::settled(Verdict::Permanent { code: "list_not_configured".into() }, failed()));
    };
    let token = match credential {
        Credential::Token(token) => token.as_str(),
        Credential::Unusable(verdict) => return Ok(ListPerformed::settled(verdict.clone(), failed())),
    };
    let bot_user = match store::bot_user(sql)? {
        Some(user) => Some(user),
        None => ask_bot_user(sql, config, token).await,
    };
    let mut args = json!({ "list_id": list_id, "limit": config.lists_page_size });
    if let Some(cursor) = &at.cursor {
        args["cursor"] = json!(cursor);
    }
    if at.pass == Pass::Archived {
        args["archived"] = json!(true);
    }
    let (mut performed, body) = call_json(config, gate, token, "slackLists.items.list", &args, failed()).await;
    if performed.verdict != Verdict::Success {
        return Ok(performed);
    }
    match read_page(&body, &map.key_column) {
        Some(page) => {
            let write = ListsWrite::Page { list_id: list_id.to_string(), run, pass: at.pass, page, started, bot_user, recreate_missing: map.recreate_missing };
            performed.pending = Pending::Page(write);
        }
        None => performed.verdict = Verdict::transient("bad_response"),
    }
    Ok(performed)
}

/// Our bot's user id from `auth.test`, remembered; `None` if Slack does not say (then no row is
/// judged human-edited).
async fn ask_bot_user(sql: &SqlStorage, config: &Config, token: &str) -> Option<String> {
    let answer = http::post_json(&config.slack_method_url("auth.test"), Some(token), &json!({}), config.attempt_timeout_ms).await.ok()?;
    let user = answer.json.get("user_id").and_then(Value::as_str)?.to_string();
    store::remember_bot_user(sql, &user).ok()?;
    Some(user)
}
