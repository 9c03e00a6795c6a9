//! What an answer from Slack (or a `response_url`, or the LLM endpoint) means for the outbox row
//! that caused it: one table, one module.
//!
//! - **success**: `ok:true`, and the errors that say the goal is already met (`already_reacted`);
//! - **transient**: network errors, timeouts, HTTP 5xx, and Slack's own "try again" errors;
//! - **rate limited**: HTTP 429 or `ratelimited`: not a failed attempt; the row waits for
//!   `Retry-After` (its deadline still applies) and the call's lane is held until then;
//! - **paced**: never sent, because the call's rate budget was spent (`crate::outbox::pace`);
//! - **permanent**: errors that the same request will hit again (`channel_not_found`,
//!   `invalid_auth`, ...): the row is parked at once with the error as its reason.
//!
//! An error we have never seen is transient: it is retried until the attempts run out, then parked
//! as `attempts_exhausted` with the error kept as `last_error`.

/// How one attempt ended, as far as the outbox is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The effect happened (or had already happened).
    Success,
    /// Worth another attempt later.
    Transient {
        /// Slack's error code, `http_<status>`, `network` or `timeout`.
        code: String,
        /// `Retry-After`, in milliseconds, when the answer carried one.
        retry_after_ms: Option<i64>,
    },
    /// Slack refused for rate (HTTP 429, `ratelimited`): not a failed attempt. The row waits and
    /// its lane is held for the whole team until `Retry-After` has passed.
    RateLimited {
        /// `Retry-After`, in milliseconds, when the answer carried one.
        retry_after_ms: Option<i64>,
    },
    /// Not sent: the call's rate budget is spent until `until` (epoch ms), reserved for it.
    Paced {
        /// The call's reserved slot.
        until: i64,
    },
    /// The same request will fail the same way: park it.
    Permanent {
        /// Slack's error code or `http_<status>`: becomes the parked row's reason.
        code: String,
    },
}

impl Verdict {
    /// The error code of a failed attempt (`None` for a success).
    pub fn code(&self) -> Option<&str> {
        match self {
            Verdict::Success | Verdict::Paced { .. } => None,
            Verdict::RateLimited { .. } => Some(RATELIMITED),
            Verdict::Transient { code, .. } | Verdict::Permanent { code } => Some(code),
        }
    }

    /// A transient failure with this code and no `Retry-After`.
    pub fn transient(code: impl Into<String>) -> Verdict {
        Verdict::Transient { code: code.into(), retry_after_ms: None }
    }

    /// A transient failure of the actor's own storage (a read or write the attempt needed),
    /// recorded as `storage: {error}`: the row is tried again, as after a 5xx.
    pub fn storage(error: impl std::fmt::Display) -> Verdict {
        Verdict::transient(format!("storage: {error}"))
    }
}

/// The code a rate-limited attempt is recorded with.
pub const RATELIMITED: &str = "ratelimited";

/// Slack `error` values that mean "too many calls": the same as an HTTP 429.
pub const RATE_LIMIT_ERRORS: &[&str] = &["ratelimited", "rate_limited"];

impl Verdict {
    /// Whether the call was refused for rate (it waits; no attempt is spent).
    pub fn is_rate_limited(&self) -> bool {
        matches!(self, Verdict::RateLimited { .. })
    }
}

/// Slack `error` values that mean the goal is already met.
pub const SUCCESS_ERRORS: &[&str] = &["already_reacted", "already_pinned", "no_reaction", "not_pinned"];

/// Slack `error` values worth retrying. Unknown errors are retried too; these are listed so the
/// table documents them and the tests pin them.
pub const TRANSIENT_ERRORS: &[&str] = &["internal_error", "fatal_error", "service_unavailable", "request_timeout", "team_added_to_org", "token_expired"];

/// Slack `error` values that the same request will hit again.
pub const PERMANENT_ERRORS: &[&str] = &[
    "channel_not_found",
    "not_in_channel",
    "is_archived",
    "msg_too_long",
    "no_text",
    "too_many_attachments",
    "invalid_blocks",
    "invalid_auth",
    "not_authed",
    "account_inactive",
    "token_revoked",
    "missing_scope",
    "no_permission",
    "invalid_arguments",
    "invalid_arg_name",
    "invalid_charset",
    "invalid_form_data",
    "invalid_post_type",
    "missing_post_type",
    "restricted_action",
    "restricted_action_read_only_channel",
    "restricted_action_thread_only_channel",
    "restricted_action_non_threadable_channel",
    "as_user_not_supported",
    "ekm_access_denied",
    "not_allowed_token_type",
    "cant_update_message",
    "edit_window_closed",
    "message_not_found",
    "not_reactable",
    "invalid_name",
    "too_many_emoji",
    "too_many_reactions",
    "bad_timestamp",
    "no_item_specified",
    "unknown_method",
    "expired_trigger_id",
    "exchanged_trigger_id",
    "invalid_trigger_id",
    "method_deprecated",
    "deprecated_endpoint",
    // Reads of users (`users.info`, whose answer a result listener acts on): the user is not
    // there, or not visible to this app, however often it asks.
    "user_not_found",
    "user_not_visible",
    // Streamed messages (`chat.*Stream`, and `chat.update` of a streaming message): the same
    // call again cannot succeed; the stream's state machine decides what comes instead.
    "stopped_by_user",
    "message_not_in_streaming_state",
    "streaming_state_conflict",
    "streaming_mode_mismatch",
    "method_not_supported_for_channel_type",
    "feature_not_enabled",
    "cannot_provide_both_markdown_text_and_chunks",
    // Unfurls (`chat.unfurl`): the message, the link or the arguments Slack cannot use; the same
    // call finds them so again (`crate::kinds::unfurl`).
    "cannot_unfurl_url",
    "cannot_unfurl_message",
    "cannot_find_message",
    "cannot_find_channel",
    "cannot_find_service",
    "cannot_parse_attachment",
    "cannot_prompt",
    "cannot_auth_user",
    "invalid_unfurl_id",
    "invalid_source",
    "invalid_unfurls_format",
    "invalid_metadata_format",
    "error_processing_metadata",
    "missing_channel",
    "missing_ts",
    "missing_unfurls",
    "missing_unfurl_id",
    "missing_source",
    // Workflow steps (`functions.completeSuccess` / `completeError`): the step has ended, Slack
    // does not know the execution, or it refuses the outputs (`crate::kinds::step::end`).
    "execution_not_in_running_state",
    "function_execution_not_found",
    "parameter_validation_failed",
    "invalid_outputs",
    // Lists (`slackLists.items.*`): the row is not there (`crate::kinds::lists::sync::GONE`).
    "record_not_found",
    "row_not_found",
    // A Work Object's flexpane (`entity.presentDetails`).
    "entity_metadata_does_not_match_trigger",
    "invalid_metadata",
    "missing_interactivity_url",
    "user_auth_url_missing",
];

/// Classifies a Slack `error` code from an `ok:false` answer.
pub fn classify_slack_error(code: &str) -> Verdict {
    if SUCCESS_ERRORS.contains(&code) {
        Verdict::Success
    } else if RATE_LIMIT_ERRORS.contains(&code) {
        Verdict::RateLimited { retry_after_ms: None }
    } else if PERMANENT_ERRORS.contains(&code) {
        Verdict::Permanent { code: code.to_string() }
    } else {
        // TRANSIENT_ERRORS, and anything we have never seen (retried until attempts run out).
        Verdict::transient(code)
    }
}

/// Parses `Retry-After` (Slack sends whole seconds) into milliseconds.
pub fn parse_retry_after(header: Option<&str>) -> Option<i64> {
    let secs: i64 = header?.trim().parse().ok()?;
    (0..=86_400).contains(&secs).then_some(secs * 1000)
}

/// Classifies the HTTP layer of an answer; `None` means "2xx: look at the body".
pub fn classify_http(status: u16, retry_after: Option<&str>) -> Option<Verdict> {
    match status {
        200..=299 => None,
        429 => Some(Verdict::RateLimited { retry_after_ms: parse_retry_after(retry_after) }),
        408 | 500..=599 => Some(Verdict::Transient { code: format!("http_{status}"), retry_after_ms: parse_retry_after(retry_after) }),
        _ => Some(Verdict::Permanent { code: format!("http_{status}") }),
    }
}

/// Classifies a complete Slack Web API answer: status, `Retry-After` and the JSON body's
/// `ok` / `error`.
pub fn classify_web_api(status: u16, retry_after: Option<&str>, body: &serde_json::Value) -> Verdict {
    if let Some(v) = classify_http(status, retry_after) {
        return v;
    }
    match body.get("ok").and_then(serde_json::Value::as_bool) {
        Some(true) => Verdict::Success,
        Some(false) => {
            let code = body.get("error").and_then(serde_json::Value::as_str).unwrap_or("unknown_error");
            classify_slack_error(code)
        }
        None => Verdict::transient("bad_response"),
    }
}

/// A network failure (connection refused, reset, DNS): transient.
pub fn network_error() -> Verdict {
    Verdict::transient("network")
}

/// The per-attempt timeout fired: transient.
pub fn timed_out() -> Verdict {
    Verdict::transient("timeout")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn transient(code: &str) -> Verdict {
        Verdict::transient(code)
    }

    #[test]
    fn a_verdict_names_its_error_code_unless_it_succeeded() {
        assert_eq!(Verdict::Success.code(), None);
        assert_eq!(transient("internal_error").code(), Some("internal_error"));
        assert_eq!(Verdict::RateLimited { retry_after_ms: None }.code(), Some("ratelimited"));
        assert_eq!(Verdict::Paced { until: 5 }.code(), None, "a paced call was never sent");
        assert_eq!(Verdict::Permanent { code: "channel_not_found".into() }.code(), Some("channel_not_found"));
    }

    #[test]
    fn every_success_error_is_a_success() {
        for code in SUCCESS_ERRORS {
            assert_eq!(classify_slack_error(code), Verdict::Success, "{code}");
        }
    }

    #[test]
    fn every_transient_error_is_transient() {
        for code in TRANSIENT_ERRORS {
            assert_eq!(classify_slack_error(code), transient(code), "{code}");
        }
    }

    #[test]
    fn every_permanent_error_is_permanent() {
        for code in PERMANENT_ERRORS {
            assert_eq!(classify_slack_error(code), Verdict::Permanent { code: code.to_string() }, "{code}");
        }
    }

    #[test]
    fn the_lists_do_not_overlap() {
        for code in TRANSIENT_ERRORS.iter().chain(SUCCESS_ERRORS).chain(RATE_LIMIT_ERRORS) {
            assert!(!PERMANENT_ERRORS.contains(code), "{code}");
        }
        for code in TRANSIENT_ERRORS {
            assert!(!SUCCESS_ERRORS.contains(code), "{code}");
        }
    }

    #[test]
    fn an_error_never_seen_is_transient() {
        assert_eq!(classify_slack_error("brand_new_error"), transient("brand_new_error"));
    }

    #[test]
    fn ok_true_is_success() {
        assert_eq!(classify_web_api(200, None, &json!({"ok": true})), Verdict::Success);
    }

    #[test]
    fn ok_false_uses_the_error_table() {
        let v = classify_web_api(200, None, &json!({"ok": false, "error": "channel_not_found"}));
        assert_eq!(v, Verdict::Permanent { code: "channel_not_found".into() });
        let v = classify_web_api(200, None, &json!({"ok": false, "error": "already_reacted"}));
        assert_eq!(v, Verdict::Success);
    }

    #[test]
    fn http_429_is_rate_limited_and_keeps_retry_after() {
        let v = classify_web_api(429, Some("2"), &json!({"ok": false, "error": "ratelimited"}));
        assert_eq!(v, Verdict::RateLimited { retry_after_ms: Some(2000) });
        assert!(v.is_rate_limited());
    }

    #[test]
    fn http_429_without_retry_after_and_a_ratelimited_body_are_rate_limited() {
        assert_eq!(classify_http(429, None).unwrap(), Verdict::RateLimited { retry_after_ms: None });
        for code in RATE_LIMIT_ERRORS {
            assert_eq!(classify_web_api(200, None, &json!({"ok": false, "error": code})), Verdict::RateLimited { retry_after_ms: None }, "{code}");
        }
    }

    #[test]
    fn http_5xx_is_transient_whatever_the_body() {
        for status in [500, 502, 503, 504] {
            assert_eq!(classify_web_api(status, None, &json!(null)), transient(&format!("http_{status}")));
        }
    }

    #[test]
    fn other_http_4xx_is_permanent() {
        assert_eq!(classify_http(404, None), Some(Verdict::Permanent { code: "http_404".into() }));
        assert_eq!(classify_http(400, None), Some(Verdict::Permanent { code: "http_400".into() }));
    }

    #[test]
    fn a_2xx_without_ok_is_a_bad_response_and_transient() {
        assert_eq!(classify_web_api(200, None, &json!({"hello": 1})), transient("bad_response"));
    }

    #[test]
    fn network_errors_and_timeouts_are_transient() {
        assert_eq!(network_error(), transient("network"));
        assert_eq!(timed_out(), transient("timeout"));
    }

    #[test]
    fn retry_after_parses_whole_seconds_only() {
        assert_eq!(parse_retry_after(Some("30")), Some(30_000));
        assert_eq!(parse_retry_after(Some(" 1 ")), Some(1000));
        assert_eq!(parse_retry_after(Some("soon")), None);
        assert_eq!(parse_retry_after(Some("-1")), None);
        assert_eq!(parse_retry_after(None), None);
    }
}
