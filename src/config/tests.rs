use super::*;

fn config(pairs: &[(&str, &str)]) -> Result<Config, ConfigError> {
    Config::from_vars(&Vars::of(pairs))
}

#[test]
fn defaults_apply_when_nothing_is_set() {
    let c = config(&[]).unwrap();
    assert!(c.signing_secret.is_none());
    assert_eq!(c.slack_api_url, DEFAULT_SLACK_API_URL);
    assert_eq!(c.ack_budget_ms, 2_000);
    assert_eq!(c.lease_ms, 60_000);
    assert_eq!(c.attempt_timeout_ms, 15_000);
    assert_eq!(c.retry, RetryPolicy::default());
    assert_eq!(c.receipt_retention_ms, 24 * 3_600_000);
    assert!(c.llm.is_none());
    assert!(c.api_token.is_none());
    assert_eq!(c.idempotency_ttl_ms, 24 * 3_600_000);
    assert_eq!((c.lists_reconcile_ms, c.lists_pace_ms, c.lists_page_size), (3_600_000, 1_200, 100));
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

#[test]
fn delivery_lines_are_failures_only_unless_asked() {
    use crate::outbox::Outcome;
    let default = config(&[]).unwrap().log_deliveries;
    assert!(!default.prints(Outcome::Success) && default.prints(Outcome::Retry) && default.prints(Outcome::Parked) && default.prints(Outcome::Fenced));
    assert!(default.prints(Outcome::RateLimited) && !default.prints(Outcome::Paced), "a 429 prints, a paced row is the sweep's count");
    let all = config(&[("LOG_DELIVERIES", "all")]).unwrap().log_deliveries;
    assert!(all.prints(Outcome::Success) && all.prints(Outcome::Paced));
    assert_eq!(config(&[("LOG_DELIVERIES", "some")]).unwrap_err().var, "LOG_DELIVERIES");
}

#[test]
fn slack_calls_are_paced_by_slacks_tiers_unless_told_otherwise() {
    use crate::slack::tiers::RateLimits;
    assert_eq!(config(&[]).unwrap().rate_limits, RateLimits::default());
    assert_eq!(config(&[("SLACK_RATE_LIMITS", "off")]).unwrap().rate_limits, RateLimits::off());
    let c = config(&[("SLACK_RATE_LIMITS", "chat.update=tier2")]).unwrap();
    assert_eq!(c.rate_limits.buckets("chat.update", &serde_json::json!({}))[0].budget.interval_ms, 3_000);
    let err = config(&[("SLACK_RATE_LIMITS", "chat.update=lots")]).unwrap_err();
    assert_eq!(err.var, "SLACK_RATE_LIMITS");
    assert!(err.problem.contains("chat.update=lots"), "{err}");
}

#[test]
fn a_number_that_is_not_one_names_its_variable() {
    let err = config(&[("ACK_BUDGET_MS", "fast")]).unwrap_err();
    assert_eq!(err.var, "ACK_BUDGET_MS");
}

#[test]
fn out_of_range_numbers_are_refused() {
    assert_eq!(config(&[("BATCH_SIZE", "0")]).unwrap_err().var, "BATCH_SIZE");
    assert_eq!(config(&[("DELIVERY_CONCURRENCY", "7")]).unwrap_err().var, "DELIVERY_CONCURRENCY");
}

#[test]
fn urls_need_a_scheme_and_lose_their_trailing_slash() {
    assert_eq!(config(&[("SLACK_API_URL", "slack.com/api")]).unwrap_err().var, "SLACK_API_URL");
    let c = config(&[("SLACK_API_URL", "http://127.0.0.1:9/api/")]).unwrap();
    assert_eq!(c.slack_method_url("chat.postMessage"), "http://127.0.0.1:9/api/chat.postMessage");
}

#[test]
fn the_retry_schedule_and_attempts_can_be_changed() {
    let c = config(&[("RETRY_SCHEDULE_MS", "100, 200"), ("MAX_ATTEMPTS", "4")]).unwrap();
    assert_eq!(c.retry, RetryPolicy::new(vec![100, 200], 4).unwrap());
    assert_eq!(config(&[("RETRY_SCHEDULE_MS", "1,x")]).unwrap_err().var, "RETRY_SCHEDULE_MS");
}

#[test]
fn an_llm_is_configured_by_its_url() {
    let c = config(&[("LLM_API_URL", "http://127.0.0.1:9/v1/chat/completions"), ("LLM_API_KEY", "k")]).unwrap();
    let llm = c.llm.unwrap();
    assert_eq!(llm.model, DEFAULT_LLM_MODEL);
    assert_eq!(llm.api_key.unwrap().expose(), "k");
}

#[test]
fn a_lease_shorter_than_a_slow_batch_is_warned_about() {
    let c = config(&[("LEASE_MS", "1000"), ("ATTEMPT_TIMEOUT_MS", "5000")]).unwrap();
    assert_eq!(c.warnings.len(), 1);
    assert!(c.warnings[0].contains("LEASE_MS"));
}

#[test]
fn a_bad_encryption_key_names_its_variable() {
    assert_eq!(config(&[("TOKEN_ENCRYPTION_KEY", "k1:short")]).unwrap_err().var, "TOKEN_ENCRYPTION_KEY");
    let key = "k1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    assert!(config(&[("TOKEN_ENCRYPTION_KEY", key)]).unwrap().cipher.encrypts());
}

#[test]
fn a_secret_matches_only_itself() {
    let s = Secret::parse(Some("admin-token".into())).unwrap();
    assert!(s.matches("admin-token"));
    assert!(!s.matches("admin-tokeN"));
    assert!(!s.matches("admin-token "));
    assert!(!s.matches(""));
}

#[test]
fn secrets_are_redacted_in_debug_output() {
    let c = config(&[("SLACK_BOT_TOKEN", "xoxb-secret"), ("SLACK_SIGNING_SECRET", "sssh")]).unwrap();
    let shown = format!("{c:?}");
    assert!(!shown.contains("xoxb-secret") && !shown.contains("sssh"), "{shown}");
}

#[test]
fn the_bot_scopes_come_from_the_var_else_the_bots_manifest_else_the_defaults() {
    let manifest = r#"{"oauth_config": {"scopes": {"bot": ["app_mentions:read", "chat:write", "commands"]}}}"#;
    let with = |pairs: &[(&str, &str)]| Config::from_vars(&Vars::of(pairs).with_manifest(Some(manifest)));
    assert_eq!(with(&[]).unwrap().bot_scopes, "app_mentions:read,chat:write,commands", "written once, in the manifest");
    assert_eq!(with(&[("SLACK_BOT_SCOPES", "chat:write")]).unwrap().bot_scopes, "chat:write", "the operator's var wins");
    assert_eq!(config(&[]).unwrap().bot_scopes, crate::oauth::DEFAULT_BOT_SCOPES, "a bot that names no manifest");
}

#[test]
fn a_manifest_without_bot_scopes_is_a_config_error_that_says_so() {
    for (manifest, says) in [
        ("not json", "it is not JSON"),
        (r#"{"oauth_config": {}}"#, "it has no oauth_config.scopes.bot list"),
        (r#"{"oauth_config": {"scopes": {"bot": []}}}"#, "its oauth_config.scopes.bot list is empty"),
        (r#"{"oauth_config": {"scopes": {"bot": ["chat:write", 7]}}}"#, "holds something that is not a scope name"),
    ] {
        let error = Config::from_vars(&Vars::of(&[]).with_manifest(Some(manifest))).expect_err("refused");
        assert_eq!(error.var, "SLACK_BOT_SCOPES");
        assert!(error.problem.contains(says), "{manifest}: {}", error.problem);
    }
}
