//! The team actor's half of the records API (`/api/teams/{team}/lists/…`, authenticated and
//! forwarded by `runtime::api` as `/lists/…`): column maps, records, reconciliation passes.
//!
//! Every write is one unit with the outbox row it needs (a record and its sync; a pass and its
//! first page), then the alarm is armed: no Slack call is ever made before the answer. Every
//! failure is an [`ApiError`], mapped to HTTP once.

use super::TeamActor;
use crate::config::Config;
use crate::lists::api::{RecordsPage, ListView, MAX_RECORDS_PAGE};
use crate::lists::sync::SyncState;
use crate::lists::{ColumnMap, FieldError};
use crate::logs::{ErrorLine, LogLine};
use crate::runtime::store::lists::{self as store, Queueing, RecordChange};
use crate::runtime::{clock, header, json_response, log, query_param};
use serde::Serialize;
use serde_json::{json, Value};
use worker::{Method, Request, Response};

/// Everything a records API request can fail with.
#[derive(Debug)]
pub enum ApiError {
    /// No such route.
    NotFound,
    /// The list has no column map yet.
    UnknownList,
    /// No record with that id.
    NoSuchRecord,
    /// The body is not JSON (the parser's message).
    BadJson(String),
    /// A field or the column map is not acceptable.
    Invalid(FieldError),
    /// A bad query parameter (the message names it).
    BadRequest(String),
    /// Storage failed (logged; retry).
    Storage(worker::Error),
}

impl From<worker::Error> for ApiError {
    fn from(e: worker::Error) -> Self {
        ApiError::Storage(e)
    }
}

impl ApiError {
    /// The one place that maps records API errors to HTTP: `{ok: false, error, message, field?}`.
    pub fn into_response(self) -> Response {
        let (status, error, message, field) = match &self {
            ApiError::NotFound => (404, "not_found", "not found".to_string(), None),
            ApiError::UnknownList => (404, "unknown_list", "this list has no column map: PUT /api/teams/{team}/lists/{list_id} first".into(), None),
            ApiError::NoSuchRecord => (404, "no_such_record", "no record with that id".into(), None),
            ApiError::BadJson(why) => (400, "bad_json", format!("the body is not JSON: {why}"), None),
            ApiError::Invalid(e) => (422, invalid_code(e), e.message(), e.field().map(str::to_string)),
            ApiError::BadRequest(why) => (400, "bad_request", why.clone(), None),
            ApiError::Storage(e) => {
                log::error(LogLine::AdminError(ErrorLine::new(e)));
                (500, "storage_error", "storage error; retry".into(), None)
            }
        };
        let mut body = json!({ "ok": false, "error": error, "message": message });
        if let Some(field) = field {
            body["field"] = json!(field);
        }
        json_response(status, &body)
    }
}

fn invalid_code(e: &FieldError) -> &'static str {
    match e {
        FieldError::BadMap(_) => "bad_column_map",
        FieldError::UnknownField(_) => "unknown_field",
        FieldError::WrongType { .. } => "wrong_type",
        FieldError::NotAnObject => "not_an_object",
    }
}

type Answer = Result<Response, ApiError>;

fn answer<T: Serialize>(status: u16, body: &T) -> Answer {
    Ok(Response::from_json(body)?.with_status(status))
}

fn parse_body<T: serde::de::DeserializeOwned>(body: &str) -> Result<T, ApiError> {
    serde_json::from_str(body).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => ApiError::Invalid(FieldError::BadMap(e.to_string())),
        _ => ApiError::BadJson(e.to_string()),
    })
}

/// A record change's answer: the record (with its sync state) and whether anything changed.
fn change_answer(change: RecordChange) -> Answer {
    let (view, changed) = match change {
        RecordChange::Changed(view) => (view, true),
        RecordChange::Unchanged(view) => (view, false),
        RecordChange::NoSuchRecord => return Err(ApiError::NoSuchRecord),
    };
    let mut body = serde_json::to_value(&view).map_err(|e| worker::Error::RustError(e.to_string()))?;
    body["changed"] = json!(changed);
    answer(200, &body)
}

impl TeamActor {
    /// Serves `/lists/{list_id}/{route…}`.
    pub(super) async fn lists(&self, mut req: Request, list_id: &str, route: &[&str], config: &Config) -> Response {
        if self.team_key().is_none() {
            if let Some(team) = header(&req, super::TEAM_HEADER) {
                if crate::runtime::store::remember_team_key(&self.sql, &team).is_ok() {
                    *self.team.borrow_mut() = Some(team);
                }
            }
        }
        let body = match req.method() {
            Method::Put => req.text().await.unwrap_or_default(),
            _ => String::new(),
        };
        self.lists_route(&req, &body, list_id, route, config).await.unwrap_or_else(ApiError::into_response)
    }

    async fn lists_route(&self, req: &Request, body: &str, list_id: &str, route: &[&str], config: &Config) -> Answer {
        let q = Queueing { max_attempts: config.retry.max_attempts, reconcile_ms: config.lists_reconcile_ms, now: clock::now_ms() };
        match (req.method(), route) {
            (Method::Put, []) => self.put_list(body, list_id, q).await,
            (Method::Get, []) => self.get_list(list_id),
            (Method::Put, ["records", record_id]) => self.put_record(body, list_id, record_id, q).await,
            (Method::Get, ["records", record_id]) => answer(200, &store::record(&self.sql, list_id, record_id)?.ok_or(ApiError::NoSuchRecord)?),
            (Method::Delete, ["records", record_id]) => self.delete_record(list_id, record_id, q).await,
            (Method::Get, ["records"]) => self.records(req, list_id),
            (Method::Post, ["reconcile"]) => self.reconcile(list_id, q).await,
            (Method::Get, ["reconcile"]) => answer(200, &json!({ "runs": store::runs(&self.sql, list_id, 20)? })),
            _ => Err(ApiError::NotFound),
        }
    }

    async fn put_list(&self, body: &str, list_id: &str, q: Queueing) -> Answer {
        let map: ColumnMap = parse_body(body)?;
        map.validate().map_err(ApiError::Invalid)?;
        let created = store::put_list(&self.state.storage(), &self.sql, list_id, &map, q)?;
        if created {
            // Armed to now, never later: a later time could replace an earlier alarm that a
            // previous instance set. The sweep re-arms for the first pass's due time.
            self.arm_by(q.now).await?;
        }
        self.get_list(list_id)
    }

    fn get_list(&self, list_id: &str) -> Answer {
        let column_map = store::column_map(&self.sql, list_id)?.ok_or(ApiError::UnknownList)?;
        let last_reconcile = store::runs(&self.sql, list_id, 1)?.into_iter().next();
        let view = ListView { list_id: list_id.to_string(), column_map, records: store::record_states(&self.sql, list_id)?, last_reconcile };
        answer(200, &view)
    }

    async fn put_record(&self, body: &str, list_id: &str, record_id: &str, q: Queueing) -> Answer {
        let map = store::column_map(&self.sql, list_id)?.ok_or(ApiError::UnknownList)?;
        let fields: Value = serde_json::from_str(body).map_err(|e| ApiError::BadJson(e.to_string()))?;
        map.cells(record_id, &fields).map_err(ApiError::Invalid)?;
        // serde_json's maps are sorted by key: the text is canonical, so equal fields compare equal.
        let canonical = fields.to_string();
        let change = store::put_record(&self.state.storage(), &self.sql, list_id, record_id, canonical, q)?;
        if matches!(change, RecordChange::Changed(_)) {
            self.wake().await.map_err(ApiError::Storage)?;
        }
        change_answer(change)
    }

    async fn delete_record(&self, list_id: &str, record_id: &str, q: Queueing) -> Answer {
        store::column_map(&self.sql, list_id)?.ok_or(ApiError::UnknownList)?;
        let change = store::delete_record(&self.state.storage(), &self.sql, list_id, record_id, q)?;
        if matches!(change, RecordChange::Changed(_)) {
            self.wake().await.map_err(ApiError::Storage)?;
        }
        change_answer(change)
    }

    /// `GET …/records?state=&after=&limit=`: records by id.
    fn records(&self, req: &Request, list_id: &str) -> Answer {
        store::column_map(&self.sql, list_id)?.ok_or(ApiError::UnknownList)?;
        let state = match query_param(req, "state") {
            None => None,
            Some(s) => Some(SyncState::parse(&s).ok_or_else(|| {
                ApiError::BadRequest("state must be pending, synced, create_uncertain, failed, missing or deleted".into())
            })?),
        };
        let limit = match query_param(req, "limit") {
            None => 50,
            Some(v) => v.parse::<i64>().map_err(|_| ApiError::BadRequest("limit must be a whole number".into()))?.clamp(1, MAX_RECORDS_PAGE),
        };
        let after = query_param(req, "after").unwrap_or_default();
        let records = store::records_page(&self.sql, list_id, state, &after, limit)?;
        let next_after = (records.len() as i64 == limit).then(|| records.last().map(|r| r.record_id.clone())).flatten();
        answer(200, &RecordsPage { records, next_after })
    }

    /// `POST …/reconcile`: a pass now (the queued one brought forward, or the running one).
    async fn reconcile(&self, list_id: &str, q: Queueing) -> Answer {
        store::column_map(&self.sql, list_id)?.ok_or(ApiError::UnknownList)?;
        let run = store::reconcile_now(&self.state.storage(), &self.sql, list_id, q)?;
        self.wake().await.map_err(ApiError::Storage)?;
        answer(202, &run)
    }
}
