//! The team actor's half of the records API (`/api/teams/{team}/lists/…`, authenticated, parsed
//! once into an [`ApiRoute`] and forwarded by `runtime::api`): column maps, records,
//! reconciliation passes.
//!
//! Every write is one unit with the outbox row it needs (a record and its sync; a pass and its
//! first page), then the alarm is armed: no Slack call is ever made before the answer. Every
//! failure is an [`ActorError`], mapped to HTTP once.

use super::error::ActorError;
use super::TeamActor;
use crate::config::Config;
use crate::kinds::lists::api::{ListView, RecordsPage, MAX_RECORDS_PAGE};
use crate::kinds::lists::store::{self as store, Queueing, RecordChange};
use crate::kinds::lists::sync::SyncState;
use crate::kinds::lists::{ColumnMap, FieldError};
use crate::platform::clock;
use crate::routes::ApiRoute;
use crate::runtime::query_param;
use serde::Serialize;
use serde_json::{json, Value};
use worker::{Request, Response};

type Answer = Result<Response, ActorError>;

fn answer<T: Serialize>(status: u16, body: &T) -> Answer {
    Ok(Response::from_json(body)?.with_status(status))
}

fn parse_body<T: serde::de::DeserializeOwned>(body: &str) -> Result<T, ActorError> {
    serde_json::from_str(body).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => ActorError::Invalid(FieldError::BadMap(e.to_string())),
        _ => ActorError::BadJson(e.to_string()),
    })
}

/// A record change's answer: the record (with its sync state) and whether anything changed.
fn change_answer(change: RecordChange) -> Answer {
    let (view, changed) = match change {
        RecordChange::Changed(view) => (view, true),
        RecordChange::Unchanged(view) => (view, false),
        RecordChange::NoSuchRecord => return Err(ActorError::NoSuchRecord),
    };
    let mut body = serde_json::to_value(&view).map_err(|e| worker::Error::RustError(e.to_string()))?;
    body["changed"] = json!(changed);
    answer(200, &body)
}

impl TeamActor {
    /// Serves a records API route; `body` is the request's (empty for a read).
    pub(super) async fn lists(&self, req: &Request, body: &str, route: ApiRoute, config: &Config) -> Answer {
        let q = Queueing::of(config, clock::now_ms());
        match route {
            ApiRoute::PutColumnMap { list_id } => self.put_list(body, &list_id, q).await,
            ApiRoute::GetColumnMap { list_id } => self.get_list(&list_id),
            ApiRoute::PutRecord { list_id, record_id } => self.put_record(body, &list_id, &record_id, q).await,
            ApiRoute::GetRecord { list_id, record_id } => answer(200, &store::record(&self.sql, &list_id, &record_id)?.ok_or(ActorError::NoSuchRecord)?),
            ApiRoute::DeleteRecord { list_id, record_id } => self.delete_record(&list_id, &record_id, q).await,
            ApiRoute::Records { list_id } => self.records(req, &list_id),
            ApiRoute::Reconcile { list_id } => self.reconcile(&list_id, q).await,
            ApiRoute::Reconciles { list_id } => answer(200, &json!({ "runs": store::runs(&self.sql, &list_id, 20)? })),
            _ => Err(ActorError::NotFound), // the notify routes are `notify`'s
        }
    }

    async fn put_list(&self, body: &str, list_id: &str, q: Queueing) -> Answer {
        let map: ColumnMap = parse_body(body)?;
        map.validate().map_err(ActorError::Invalid)?;
        let created = store::put_list(&self.state.storage(), &self.sql, list_id, &map, q)?;
        if created {
            // Armed to now, never later: a later time could replace an earlier alarm that a
            // previous instance set. The sweep re-arms for the first pass's due time.
            self.arm_by(q.now).await?;
        }
        self.get_list(list_id)
    }

    fn get_list(&self, list_id: &str) -> Answer {
        let column_map = store::column_map(&self.sql, list_id)?.ok_or(ActorError::UnknownList)?;
        let last_reconcile = store::runs(&self.sql, list_id, 1)?.into_iter().next();
        let view = ListView { list_id: list_id.to_string(), column_map, records: store::record_states(&self.sql, list_id)?, last_reconcile };
        answer(200, &view)
    }

    async fn put_record(&self, body: &str, list_id: &str, record_id: &str, q: Queueing) -> Answer {
        let map = store::column_map(&self.sql, list_id)?.ok_or(ActorError::UnknownList)?;
        let fields: Value = serde_json::from_str(body).map_err(|e| ActorError::BadJson(e.to_string()))?;
        map.cells(record_id, &fields).map_err(ActorError::Invalid)?;
        // serde_json's maps are sorted by key: the text is canonical, so equal fields compare equal.
        let canonical = fields.to_string();
        let change = store::put_record(&self.state.storage(), &self.sql, list_id, record_id, canonical, q)?;
        if matches!(change, RecordChange::Changed(_)) {
            self.wake().await.map_err(ActorError::Storage)?;
        }
        change_answer(change)
    }

    async fn delete_record(&self, list_id: &str, record_id: &str, q: Queueing) -> Answer {
        store::column_map(&self.sql, list_id)?.ok_or(ActorError::UnknownList)?;
        let change = store::delete_record(&self.state.storage(), &self.sql, list_id, record_id, q)?;
        if matches!(change, RecordChange::Changed(_)) {
            self.wake().await.map_err(ActorError::Storage)?;
        }
        change_answer(change)
    }

    /// `GET …/records?state=&after=&limit=`: records by id.
    fn records(&self, req: &Request, list_id: &str) -> Answer {
        store::column_map(&self.sql, list_id)?.ok_or(ActorError::UnknownList)?;
        let state = match query_param(req, "state") {
            None => None,
            Some(s) => Some(
                SyncState::parse(&s)
                    .ok_or_else(|| ActorError::BadRequest("state must be pending, synced, create_uncertain, failed, missing or deleted".into()))?,
            ),
        };
        let limit = match query_param(req, "limit") {
            None => 50,
            Some(v) => v.parse::<i64>().map_err(|_| ActorError::BadRequest("limit must be a whole number".into()))?.clamp(1, MAX_RECORDS_PAGE),
        };
        let after = query_param(req, "after").unwrap_or_default();
        let records = store::records_page(&self.sql, list_id, state, &after, limit)?;
        let next_after = (records.len() as i64 == limit).then(|| records.last().map(|r| r.record_id.clone())).flatten();
        answer(200, &RecordsPage { records, next_after })
    }

    /// `POST …/reconcile`: a pass now (the queued one brought forward, or the running one).
    async fn reconcile(&self, list_id: &str, q: Queueing) -> Answer {
        store::column_map(&self.sql, list_id)?.ok_or(ActorError::UnknownList)?;
        let run = store::reconcile_now(&self.state.storage(), &self.sql, list_id, q)?;
        self.wake().await.map_err(ActorError::Storage)?;
        answer(202, &run)
    }
}
