//! Everything a request to the team actor can fail with — its admin routes, the records and
//! notify APIs, the ingest unit, an install — as one [`ActorError`], mapped to HTTP in one place
//! ([`ActorError::into_response`]) with the one error body of `crate::routes::error_body`.

use crate::kinds::lists::FieldError;
use crate::kinds::notify::Invalid;
use crate::logs::{ErrorLine, LogLine};
use crate::platform::log;
use crate::routes::error_body;
use crate::runtime::json_response;
use crate::sql::migrate::Refused;
use crate::wire;
use serde_json::json;
use worker::Response;

/// The error code of [`ActorError::Late`], which the front door recognises.
pub const TOO_LATE: &str = "too_late";

/// Why the team actor refused or failed a request.
#[derive(Debug)]
pub enum ActorError {
    /// No such route.
    NotFound,
    /// A parameter that is not what the route takes (the message names it).
    BadRequest(String),
    /// No outbox row with that id.
    NoSuchRow,
    /// The row exists but is not parked (only parked rows are redriven or discarded).
    NotParked,
    /// The admin cancel of a row that is not a pending scheduled row (409).
    NotScheduled,
    /// The admin cancel of a scheduled row whose attempt is in flight: that occurrence fires (409).
    InFlight,
    /// A bulk redrive's `expect` is not the number of rows matching now.
    CountChanged {
        /// How many match now.
        matching: i64,
    },
    /// The list has no column map yet.
    UnknownList,
    /// No record with that id.
    NoSuchRecord,
    /// No notify message with that id.
    NoSuchMessage,
    /// No status message with that name.
    NoSuchStatus,
    /// The body is not JSON (the parser's message).
    BadJson(String),
    /// A List's field or column map is not acceptable.
    Invalid(FieldError),
    /// A notify body is not acceptable (names its field).
    InvalidBody(Invalid),
    /// `POST /messages` without an `Idempotency-Key`.
    MissingIdempotencyKey,
    /// The `Idempotency-Key` was used with another body.
    IdempotencyMismatch,
    /// The deployment's configuration could not be read (logged).
    Config(String),
    /// The database is not at the code's schema version and must not be written: a migration
    /// failed, or it is newer than the code (logged once, when the actor woke).
    Schema(Refused),
    /// The request reached the actor after the front door's deadline: nothing was written (the
    /// front door has answered 500 already, and Slack retries).
    Late {
        /// How far past the deadline.
        by_ms: i64,
    },
    /// A request this release cannot read, though a front door sent it: the two are different
    /// releases during a deploy (`crate::wire`). Nothing was written; 503 with `Retry-After`.
    Mismatch(String),
    /// Storage or the runtime failed (logged; a retry is safe).
    Storage(worker::Error),
}

impl From<worker::Error> for ActorError {
    fn from(e: worker::Error) -> Self {
        ActorError::Storage(e)
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

impl ActorError {
    /// The one place that maps the actor's errors to HTTP.
    pub fn into_response(self) -> Response {
        let (status, code, message, field): (u16, &str, String, Option<String>) = match &self {
            ActorError::NotFound => (404, "not_found", "not found".into(), None),
            ActorError::BadRequest(why) => (400, "bad_request", why.clone(), None),
            ActorError::NoSuchRow => (404, "no_such_row", "no outbox row with that id".into(), None),
            ActorError::NotParked => (409, "not_parked", "no parked row with that id".into(), None),
            ActorError::NotScheduled => (409, "not_scheduled", "no pending scheduled row with that id (fired, cancelled, or never scheduled)".into(), None),
            ActorError::InFlight => (409, "in_flight", "its attempt is in flight: this occurrence fires (a recurring schedule stops after it)".into(), None),
            ActorError::CountChanged { .. } => (409, "count_changed", "expect must equal the dry run's count".into(), None),
            ActorError::UnknownList => (404, "unknown_list", "this list has no column map: PUT /api/teams/{team}/lists/{list_id} first".into(), None),
            ActorError::NoSuchRecord => (404, "no_such_record", "no record with that id".into(), None),
            ActorError::NoSuchMessage => (404, "no_such_message", "no message with that id".into(), None),
            ActorError::NoSuchStatus => (404, "no_such_status", "no status message with that name".into(), None),
            ActorError::BadJson(why) => (400, "bad_json", format!("the body is not JSON: {why}"), None),
            ActorError::Invalid(e) => (422, invalid_code(e), e.message(), e.field().map(str::to_string)),
            ActorError::InvalidBody(e) => (422, "invalid_body", e.message.clone(), Some(e.field.clone())),
            ActorError::MissingIdempotencyKey => (400, "missing_idempotency_key", "an Idempotency-Key header is required".into(), None),
            ActorError::IdempotencyMismatch => (422, "idempotency_key_mismatch", "this Idempotency-Key was used with a different body".into(), None),
            ActorError::Config(e) => {
                log::error(LogLine::ConfigError(ErrorLine::new(e)));
                (500, "not_configured", format!("configuration error: {e}"), None)
            }
            ActorError::Late { by_ms } => (503, TOO_LATE, format!("reached {by_ms} ms after the front door's deadline; nothing recorded"), None),
            ActorError::Schema(refused) => (500, refused.code(), refused.message(), None),
            ActorError::Mismatch(what) => {
                log::error(LogLine::AdminError(ErrorLine::new(format!("{}: this release cannot read {what}", wire::MISMATCH))));
                (503, wire::MISMATCH, format!("this release of the team actor cannot read {what}: a deploy is under way; retry"), None)
            }
            ActorError::Storage(e) => {
                log::error(LogLine::AdminError(ErrorLine::new(e)));
                (500, "storage_error", "storage error; retry".into(), None)
            }
        };
        let mut body = error_body(code, &message, field.as_deref());
        if let ActorError::CountChanged { matching } = self {
            body["matching"] = json!(matching);
        }
        let mut response = json_response(status, &body);
        if code == wire::MISMATCH {
            let _ = response.headers_mut().set("retry-after", &wire::RETRY_AFTER_S.to_string());
        }
        response
    }
}
