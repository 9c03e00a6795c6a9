//! What a `slackLists.items.create` attempt's end means. The call has no idempotency key, so a
//! create is repeated only when Slack certainly did not act on it; when the outcome is unknown the
//! record waits as `create_uncertain` until a reconciliation pass has looked for its row by the
//! mirrored key.
//!
//! | how the attempt ended | verdict |
//! | --- | --- |
//! | `ok: true` with `item.id` | [`CreateVerdict::Created`]: store the row id with the completion |
//! | HTTP 429, or `ok: false` with `ratelimited`, `token_expired`, `team_added_to_org` | [`CreateVerdict::RetryCreate`] after `Retry-After` (Slack refused it before acting) |
//! | the connection was refused (nothing was sent) | [`CreateVerdict::RetryCreate`] |
//! | timeout, connection reset, lease expired mid-call, HTTP 5xx/408, `internal_error`, `fatal_error`, `service_unavailable`, `request_timeout`, `ok: true` without an id, an unreadable answer | [`CreateVerdict::Uncertain`]: no further create until reconciliation |
//! | any other `ok: false` (`invalid_arguments`, `list_not_found`, `invalid_column_id`, an error never seen before, ...) or another HTTP 4xx | [`CreateVerdict::Rejected`]: parked with Slack's error (Slack said it failed: no row was made) |

use crate::slack::classify::parse_retry_after;
use serde_json::Value;

/// How a create attempt ended, as the adapter saw it.
#[derive(Debug, Clone, PartialEq)]
pub enum CreateAttempt<'a> {
    /// Slack answered.
    Answered {
        /// HTTP status.
        status: u16,
        /// The `Retry-After` header.
        retry_after: Option<&'a str>,
        /// The body (`Value::Null` when it was not JSON).
        body: &'a Value,
    },
    /// The request never left (connection refused): Slack cannot have acted.
    NotSent,
    /// Sent, but the answer was lost (timeout, reset, the runtime stopped): Slack may have acted.
    Lost,
}

/// What to do with the record after a create attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CreateVerdict {
    /// The row exists: its id.
    Created {
        /// `Rec…`.
        row_id: String,
    },
    /// Slack certainly did not act: another create may be sent.
    RetryCreate {
        /// Slack's `Retry-After`, if it gave one.
        retry_after_ms: Option<i64>,
    },
    /// Slack may have created the row: no create until reconciliation has looked for it.
    Uncertain {
        /// Why (`timeout`, `http_503`, `internal_error`, ...).
        reason: String,
    },
    /// Slack refused it for good.
    Rejected {
        /// Slack's error.
        code: String,
    },
}

/// `ok: false` errors that mean Slack refused the call before acting on it (rate or credentials).
const REFUSED_BEFORE_ACTING: &[&str] = &["ratelimited", "rate_limited", "token_expired", "team_added_to_org"];
/// `ok: false` errors after which Slack may still have acted.
const MAYBE_ACTED: &[&str] = &["internal_error", "fatal_error", "service_unavailable", "request_timeout"];

/// The verdict on one create attempt (the table above).
pub fn judge_create(attempt: &CreateAttempt) -> CreateVerdict {
    let (status, retry_after, body) = match attempt {
        CreateAttempt::NotSent => return CreateVerdict::RetryCreate { retry_after_ms: None },
        CreateAttempt::Lost => return CreateVerdict::Uncertain { reason: "answer_lost".into() },
        CreateAttempt::Answered { status, retry_after, body } => (*status, *retry_after, *body),
    };
    match status {
        429 => return CreateVerdict::RetryCreate { retry_after_ms: parse_retry_after(retry_after) },
        408 | 500..=599 => return CreateVerdict::Uncertain { reason: format!("http_{status}") },
        200..=299 => {}
        _ => return CreateVerdict::Rejected { code: format!("http_{status}") },
    }
    match (body.get("ok").and_then(Value::as_bool), body.get("error").and_then(Value::as_str)) {
        (Some(true), _) => match body.pointer("/item/id").and_then(Value::as_str).filter(|id| id.starts_with("Rec")) {
            Some(id) => CreateVerdict::Created { row_id: id.to_string() },
            None => CreateVerdict::Uncertain { reason: "no_item_id".into() },
        },
        (Some(false), Some(code)) if REFUSED_BEFORE_ACTING.contains(&code) => CreateVerdict::RetryCreate { retry_after_ms: parse_retry_after(retry_after) },
        (Some(false), Some(code)) if MAYBE_ACTED.contains(&code) => CreateVerdict::Uncertain { reason: code.to_string() },
        // Slack answered that the call failed: it created nothing.
        (Some(false), code) => CreateVerdict::Rejected { code: code.unwrap_or("unknown_error").to_string() },
        (None, _) => CreateVerdict::Uncertain { reason: "bad_response".into() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answered(status: u16, retry_after: Option<&str>, body: Value) -> CreateVerdict {
        judge_create(&CreateAttempt::Answered { status, retry_after, body: &body })
    }

    #[test]
    fn only_a_definite_refusal_before_slack_acted_allows_another_create() {
        assert_eq!(answered(429, Some("7"), Value::Null), CreateVerdict::RetryCreate { retry_after_ms: Some(7_000) });
        assert_eq!(answered(200, None, json!({"ok": false, "error": "ratelimited"})), CreateVerdict::RetryCreate { retry_after_ms: None });
        assert_eq!(judge_create(&CreateAttempt::NotSent), CreateVerdict::RetryCreate { retry_after_ms: None });
    }

    #[test]
    fn an_unknown_outcome_is_uncertain_never_a_retry() {
        let uncertain = |v: CreateVerdict| matches!(v, CreateVerdict::Uncertain { .. });
        assert!(uncertain(judge_create(&CreateAttempt::Lost)));
        assert!(uncertain(answered(503, None, Value::Null)));
        assert!(uncertain(answered(408, None, Value::Null)));
        for code in ["internal_error", "fatal_error", "service_unavailable", "request_timeout"] {
            assert!(uncertain(answered(200, None, json!({"ok": false, "error": code}))), "{code}");
        }
        assert!(uncertain(answered(200, None, json!({"ok": true}))), "ok without an item id");
        assert!(uncertain(answered(200, None, Value::Null)), "an unreadable answer");
    }

    #[test]
    fn a_created_row_gives_its_id_and_a_refusal_its_error() {
        assert_eq!(answered(200, None, json!({"ok": true, "item": {"id": "Rec0123"}})), CreateVerdict::Created { row_id: "Rec0123".into() });
        assert_eq!(answered(200, None, json!({"ok": false, "error": "invalid_arguments"})), CreateVerdict::Rejected { code: "invalid_arguments".into() });
        assert_eq!(answered(200, None, json!({"ok": false, "error": "list_not_found"})), CreateVerdict::Rejected { code: "list_not_found".into() });
    }
}
