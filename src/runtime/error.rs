//! The Worker's errors: every way a request to the front door can fail, mapped to HTTP in one
//! place ([`FrontDoorError::into_response`]). Its own module so that the front door and the
//! modules it routes to (admin, install) share it while every import points away from the front
//! door.

use crate::routes::error_body;
use crate::slack::envelope::ParseError;
use crate::slack::signature::SignatureError;
use worker::Response;

/// Everything that can go wrong at the front door.
#[derive(Debug)]
pub enum FrontDoorError {
    /// No such route.
    NotFound,
    /// A required setting is missing (its name).
    NotConfigured(&'static str),
    /// The body is over [`crate::config::MAX_BODY_BYTES`].
    TooLarge,
    /// The signature check failed.
    BadSignature(SignatureError),
    /// Signed, but not the content type this route takes.
    WrongContentType,
    /// Signed, but not a body we understand.
    Malformed(ParseError),
    /// The admin API is off (no `ADMIN_TOKEN`).
    AdminOff,
    /// Missing or wrong admin token.
    Unauthorized,
    /// Too many wrong tokens from this client lately (`runtime::guard`).
    LockedOut {
        /// When it may try again.
        retry_after_s: i64,
    },
    /// The notify API needs an `Idempotency-Key` (or it is not 1–255 printable ASCII).
    MissingIdempotencyKey,
    /// A bad admin request (the reason).
    BadRequest(String),
    /// The team actor did not confirm within the budget.
    ActorTimeout,
    /// Shed at the door, unread: by its signed timestamp Slack has stopped waiting for it, or is
    /// about to (`crate::admission`).
    Shed {
        /// How long ago its signed second began.
        age_ms: i64,
    },
    /// The team actor failed (logged, never echoed).
    Internal(String),
}

impl From<worker::Error> for FrontDoorError {
    fn from(e: worker::Error) -> Self {
        FrontDoorError::Internal(e.to_string())
    }
}

impl FrontDoorError {
    /// A short label for the log line.
    pub fn label(&self) -> String {
        match self {
            FrontDoorError::NotFound => "not_found".into(),
            FrontDoorError::NotConfigured(var) => format!("not_configured:{var}"),
            FrontDoorError::TooLarge => "too_large".into(),
            FrontDoorError::BadSignature(e) => e.label().into(),
            FrontDoorError::WrongContentType => "wrong_content_type".into(),
            FrontDoorError::Malformed(e) => format!("malformed: {}", e.reason()),
            FrontDoorError::AdminOff => "admin_off".into(),
            FrontDoorError::Unauthorized => "unauthorized".into(),
            FrontDoorError::LockedOut { .. } => "locked_out".into(),
            FrontDoorError::MissingIdempotencyKey => "missing_idempotency_key".into(),
            FrontDoorError::BadRequest(r) => format!("bad_request: {r}"),
            FrontDoorError::ActorTimeout => "actor_timeout".into(),
            FrontDoorError::Shed { age_ms } => format!("shed: signed {age_ms} ms ago"),
            FrontDoorError::Internal(e) => format!("internal: {e}"),
        }
    }

    /// The one place that maps errors to HTTP, with the one error body
    /// (`crate::routes::error_body`). Internal details are logged, never returned.
    pub fn into_response(self) -> Response {
        let (status, code, message) = match &self {
            FrontDoorError::NotFound | FrontDoorError::AdminOff => (404, "not_found", "not found".to_string()),
            FrontDoorError::NotConfigured(var) => (500, "not_configured", format!("server not configured: {var} is missing")),
            FrontDoorError::TooLarge => (413, "too_large", "body too large".into()),
            FrontDoorError::BadSignature(_) => (401, "invalid_signature", "invalid request signature".into()),
            FrontDoorError::WrongContentType => (415, "unsupported_content_type", "unsupported content type".into()),
            FrontDoorError::Malformed(e) => (400, "malformed", e.reason()),
            FrontDoorError::Unauthorized => (401, "unauthorized", "unauthorized".into()),
            FrontDoorError::LockedOut { .. } => (429, "locked_out", "too many wrong tokens from this client; try again later".into()),
            FrontDoorError::MissingIdempotencyKey => {
                (400, "missing_idempotency_key", "an Idempotency-Key header of 1 to 255 printable ASCII characters is required".into())
            }
            FrontDoorError::BadRequest(r) => (400, "bad_request", r.clone()),
            FrontDoorError::ActorTimeout => (500, "actor_timeout", "not recorded in time; retry".into()),
            FrontDoorError::Shed { .. } => (500, "shed", "arrived too late to be answered in time; retry".into()),
            FrontDoorError::Internal(_) => (500, "internal_error", "internal error; retry".into()),
        };
        let mut response = super::json_response(status, &error_body(code, &message, None));
        if let FrontDoorError::LockedOut { retry_after_s } = self {
            let _ = response.headers_mut().set("retry-after", &retry_after_s.to_string());
        }
        response
    }
}
