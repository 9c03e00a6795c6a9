use super::*;
use serde_json::json;

const SECRET: &str = "client-secret";

#[test]
fn an_issued_state_checks_with_its_cookie() {
    let state = issue_state(SECRET, "abc123", 1_000);
    assert_eq!(check_state(SECRET, Some(&state), Some("abc123"), 2_000), Ok("abc123".into()));
}

#[test]
fn a_tampered_state_is_refused() {
    let state = issue_state(SECRET, "abc123", 1_000);
    let forged = state.replacen("abc123", "abc124", 1);
    assert_eq!(check_state(SECRET, Some(&forged), Some("abc124"), 2_000), Err(StateError::Tampered));
    assert_eq!(check_state("other-secret", Some(&state), Some("abc123"), 2_000), Err(StateError::Tampered));
}

#[test]
fn an_expired_state_is_refused() {
    let state = issue_state(SECRET, "n", 1_000);
    assert_eq!(check_state(SECRET, Some(&state), Some("n"), 1_000 + STATE_TTL_MS + 1), Err(StateError::Expired));
    assert!(check_state(SECRET, Some(&state), Some("n"), 1_000 + STATE_TTL_MS).is_ok());
}

#[test]
fn a_state_without_its_cookie_is_refused() {
    let state = issue_state(SECRET, "n", 0);
    assert_eq!(check_state(SECRET, Some(&state), None, 1), Err(StateError::NotThisBrowser));
    assert_eq!(check_state(SECRET, Some(&state), Some("other"), 1), Err(StateError::NotThisBrowser));
}

#[test]
fn malformed_states_are_refused() {
    for bad in ["", "a.b", "a.b.c.d", "n.notanumber.00", "n.5.zz"] {
        assert_eq!(check_state(SECRET, Some(bad), Some("n"), 0), Err(StateError::Malformed), "{bad}");
    }
    assert_eq!(check_state(SECRET, None, Some("n"), 0), Err(StateError::Malformed));
}

#[test]
fn cookies_are_found_by_name() {
    let header = Some("a=1; slackline_oauth_state=xyz; b=2");
    assert_eq!(cookie(header, STATE_COOKIE), Some("xyz"));
    assert_eq!(cookie(header, "c"), None);
    assert_eq!(cookie(None, "a"), None);
}

#[test]
fn the_authorize_url_carries_every_parameter_encoded() {
    let url = authorize_url(DEFAULT_AUTHORIZE_URL, "123.456", "chat:write,commands", "https://x.dev/slack/oauth_redirect", "s.1.f");
    assert!(url.starts_with("https://slack.com/oauth/v2/authorize?client_id=123.456&scope=chat%3Awrite%2Ccommands"));
    assert!(url.contains("redirect_uri=https%3A%2F%2Fx.dev%2Fslack%2Foauth_redirect"));
    assert!(url.ends_with("state=s.1.f"));
}

fn access(extra: serde_json::Value) -> serde_json::Value {
    let mut v = json!({
        "ok": true, "access_token": "xoxb-1", "token_type": "bot", "scope": "chat:write", "bot_user_id": "UB1",
        "app_id": "A1", "team": {"id": "T1", "name": "One"}, "enterprise": null, "is_enterprise_install": false,
        "authed_user": {"id": "U1"}
    });
    v.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    v
}

#[test]
fn a_workspace_install_is_keyed_by_its_team() {
    let i = parse_access(&access(json!({})), 0).unwrap();
    assert_eq!(i.team_key(), Some("T1"));
    assert_eq!(i.bot_token, "xoxb-1");
    assert_eq!(i.installer_user_id.as_deref(), Some("U1"));
    assert!(i.refresh_token.is_none() && !refresh_due(i.token_expires_at, 0));
}

#[test]
fn an_org_wide_install_is_keyed_by_its_enterprise() {
    let i = parse_access(&access(json!({"team": null, "enterprise": {"id": "E1", "name": "Org"}, "is_enterprise_install": true})), 0).unwrap();
    assert_eq!(i.team_key(), Some("E1"));
}

#[test]
fn a_rotating_token_records_its_expiry_and_asks_for_refresh_in_time() {
    let i = parse_access(&access(json!({"refresh_token": "xoxe-1", "expires_in": 43200})), 1_000).unwrap();
    assert_eq!(i.token_expires_at, Some(1_000 + 43_200_000));
    assert!(i.refresh_token.is_some());
    assert!(!refresh_due(i.token_expires_at, 1_000));
    assert!(refresh_due(i.token_expires_at, 1_000 + 43_200_000 - REFRESH_MARGIN_MS + 1));
}

#[test]
fn a_failed_exchange_says_why() {
    assert_eq!(parse_access(&json!({"ok": false, "error": "invalid_code"}), 0), Err(AccessError::Slack("invalid_code".into())));
    assert_eq!(parse_access(&access(json!({"access_token": null})), 0), Err(AccessError::Missing("access_token")));
}

#[test]
fn a_refresh_answer_gives_the_new_pair_and_expiry() {
    let v = json!({"ok": true, "access_token": "xoxe.xoxb-2", "refresh_token": "xoxe-2", "expires_in": 60});
    assert_eq!(parse_refresh(&v, 10), Ok(("xoxe.xoxb-2".into(), "xoxe-2".into(), 60_010)));
}

#[test]
fn pages_escape_what_they_show() {
    let html = page("Oops <b>", "it's \"bad\" & <script>");
    assert!(html.contains("Oops &lt;b&gt;"));
    assert!(html.contains("it&#39;s &quot;bad&quot; &amp; &lt;script&gt;"));
}
