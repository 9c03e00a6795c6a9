//! Multi-workspace installs, end to end in workerd with the fake Slack: the OAuth v2 flow, tokens
//! per installation (workspaces and an org-wide install), refused states, single-flight token
//! rotation, uninstall and reinstall, and tokens encrypted at rest.

use crate::support;

use serde_json::{json, Value};
use std::time::Duration;
use support::slack::{envelope, mention, Answer};
use support::{eventually, shared, unique, Client, FakeSlack, Reply, CLIENT_ID, CLIENT_SECRET};

const WAIT: Duration = Duration::from_secs(30);

/// What `/slack/install` handed the browser.
struct Started {
    state: String,
    nonce: String,
    location: String,
}

fn start_install(c: &Client) -> Started {
    let a = c.get("/slack/install");
    assert_eq!(a.status, 302, "{}", a.body);
    let location = a.header("location").unwrap().to_string();
    let query = location.split_once('?').unwrap().1;
    let state = form_urlencoded::parse(query.as_bytes()).find(|(k, _)| k == "state").unwrap().1.into_owned();
    let cookie = a.header("set-cookie").unwrap();
    for attribute in ["Secure", "HttpOnly", "SameSite=Lax"] {
        assert!(cookie.contains(attribute), "{cookie}");
    }
    let nonce = cookie.split(';').next().unwrap().split_once('=').unwrap().1.to_string();
    Started { state, nonce, location }
}

pub(crate) fn access(team: &str, token: &str, extra: Value) -> Value {
    let mut v = json!({
        "ok": true, "access_token": token, "token_type": "bot", "scope": "app_mentions:read,chat:write",
        "bot_user_id": "UBOT", "app_id": "A1", "team": {"id": team, "name": format!("Team {team}")},
        "enterprise": null, "is_enterprise_install": false, "authed_user": {"id": "UINSTALLER"}
    });
    v.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    v
}

fn finish_install(c: &Client, fake: &FakeSlack, started: &Started, answer: Value) -> Answer {
    let code = unique("code");
    fake.script("oauth.v2.access", &format!("code={code}"), vec![Reply::Json(answer)]);
    let path = format!("/slack/oauth_redirect?code={code}&state={}", started.state);
    c.get_with(&path, &[("cookie", &format!("slackline_oauth_state={}", started.nonce))])
}

pub(crate) fn install(c: &Client, fake: &FakeSlack, answer: Value) -> Answer {
    let started = start_install(c);
    let a = finish_install(c, fake, &started, answer);
    assert_eq!(a.status, 200, "{}", a.body);
    a
}

fn installation(c: &Client, team: &str) -> Value {
    c.stats(team)["installation"].clone()
}

#[test]
fn the_full_flow_installs_a_team_and_its_replies_use_its_token() {
    let (s, team, channel) = (shared(), unique("T"), unique("C"));
    let c = s.client();
    let started = start_install(&c);
    assert!(started.location.starts_with("https://slack.com/oauth/v2/authorize?"));
    assert!(started.location.contains(&format!("client_id={CLIENT_ID}")));
    assert!(started.location.contains("scope=app_mentions%3Aread%2Cchat%3Awrite"));
    assert!(started.location.contains("redirect_uri=http%3A%2F%2F127.0.0.1"));
    let token = format!("xoxb-{team}");
    let page = finish_install(&c, &s.fake, &started, access(&team, &token, json!({})));
    assert_eq!(page.status, 200);
    assert!(page.body.contains(&format!("Team {team}")), "{}", page.body);
    let exchange = s.fake.calls("oauth.v2.access", "code=");
    let mine: Vec<_> = exchange.iter().filter(|c| c.body.contains(&format!("client_secret={CLIENT_SECRET}")) && c.body.contains("code=code")).collect();
    assert!(!mine.is_empty());

    let stored = installation(&c, &team);
    assert_eq!(stored["team_id"], team);
    assert_eq!(stored["bot_user_id"], "UBOT");
    assert_eq!(stored["installer_user_id"], "UINSTALLER");
    assert!(!c.stats(&team).to_string().contains(&token), "no token in admin output");

    assert_eq!(c.event(&envelope(&team, &unique("Ev"), mention(&channel, "1.1", "hello"))).status, 200);
    let post = s.fake.wait_calls("chat.postMessage", &channel, 1, WAIT)[0].clone();
    assert_eq!(post.header("authorization"), Some(format!("Bearer {token}").as_str()));
    let teams = c.admin_get("/admin/teams").json();
    assert!(teams["teams"].as_array().unwrap().iter().any(|t| t["team_key"] == team && t["source"] == "oauth"));
}

#[test]
fn a_reinstall_with_a_new_token_is_used_by_the_next_reply_at_once() {
    // The actor keeps the resolved token in memory between sweeps: an install must replace it.
    let (s, team, channel) = (shared(), unique("T"), unique("C"));
    let c = s.client();
    for (i, token) in ["xoxb-first", "xoxb-second"].into_iter().enumerate() {
        install(&c, &s.fake, access(&team, token, json!({})));
        assert_eq!(c.event(&envelope(&team, &unique("Ev"), mention(&channel, &format!("7.{i}"), "hello"))).status, 200);
        let posts = s.fake.wait_calls("chat.postMessage", &channel, i + 1, WAIT);
        assert_eq!(posts[i].header("authorization"), Some(format!("Bearer {token}").as_str()), "reply {i}");
    }
}

#[test]
fn two_workspaces_and_an_org_wide_install_each_reply_with_their_own_token() {
    let s = shared();
    let c = s.client();
    let (t1, t2, org, org_member) = (unique("T"), unique("T"), unique("E"), unique("T"));
    install(&c, &s.fake, access(&t1, "xoxb-one", json!({})));
    install(&c, &s.fake, access(&t2, "xoxb-two", json!({})));
    install(&c, &s.fake, access(&org_member, "xoxb-org", json!({"team": null, "enterprise": {"id": org, "name": "Org"}, "is_enterprise_install": true})));
    assert_eq!(installation(&c, &org)["enterprise_id"], org);

    let (c1, c2, c3) = (unique("C"), unique("C"), unique("C"));
    c.event(&envelope(&t1, &unique("Ev"), mention(&c1, "1.1", "one")));
    c.event(&envelope(&t2, &unique("Ev"), mention(&c2, "1.1", "two")));
    let mut org_event = envelope(&org_member, &unique("Ev"), mention(&c3, "1.1", "org"));
    org_event["authorizations"] = json!([{"enterprise_id": org, "team_id": org_member, "user_id": "UBOT", "is_bot": true, "is_enterprise_install": true}]);
    c.event(&org_event);
    for (channel, token) in [(&c1, "xoxb-one"), (&c2, "xoxb-two"), (&c3, "xoxb-org")] {
        let post = s.fake.wait_calls("chat.postMessage", channel, 1, WAIT)[0].clone();
        assert_eq!(post.header("authorization"), Some(format!("Bearer {token}").as_str()), "{channel}");
    }
}

#[test]
fn tampered_expired_reused_and_cookieless_states_are_refused_and_store_nothing() {
    let s = shared();
    let c = s.client();
    let team = unique("T");
    let answer = || access(&team, "xoxb-never", json!({}));

    let started = start_install(&c);
    let tampered = Started { state: started.state.replacen('.', "0.", 1), ..start_install(&c) };
    let refused = finish_install(&c, &s.fake, &tampered, answer());
    assert_eq!(refused.status, 400);
    assert!(refused.body.contains("not valid"), "{}", refused.body);

    let cookieless = c.get(&format!("/slack/oauth_redirect?code=x&state={}", started.state));
    assert_eq!(cookieless.status, 400);
    assert!(cookieless.body.contains("another browser"), "{}", cookieless.body);

    let later = (support::slack::now_secs() + 601) * 1000;
    let expired = c.get_with(
        &format!("/slack/oauth_redirect?code=x&state={}", started.state),
        &[("cookie", &format!("slackline_oauth_state={}", started.nonce)), ("x-slackline-test-now", &later.to_string())],
    );
    assert_eq!(expired.status, 400);
    assert!(expired.body.contains("expired"), "{}", expired.body);

    let denied = c.get("/slack/oauth_redirect?error=access_denied&state=x");
    assert_eq!(denied.status, 400);
    assert!(denied.body.contains("cancelled"));

    assert!(installation(&c, &team).is_null(), "nothing stored by refused states");

    let used = start_install(&c);
    assert_eq!(finish_install(&c, &s.fake, &used, answer()).status, 200);
    let again = finish_install(&c, &s.fake, &used, access(&team, "xoxb-second", json!({})));
    assert_eq!(again.status, 400);
    assert!(again.body.contains("already used"), "{}", again.body);
    assert!(!again.body.contains("panicked") && !again.body.contains("Error:"));
}

#[test]
fn a_failed_code_exchange_shows_a_clear_page() {
    let s = shared();
    let c = s.client();
    let started = start_install(&c);
    let a = finish_install(&c, &s.fake, &started, json!({"ok": false, "error": "invalid_code"}));
    assert_eq!(a.status, 502);
    assert!(a.body.contains("<h1>Installation failed</h1>"), "{}", a.body);
}

/// Holds `chat.postMessage` in a fresh channel of `team` with a 429, so the rows queued there
/// pile up, due at once when it ends; returns the channel.
fn hold_posts(c: &Client, fake: &FakeSlack, team: &str, secs: u64) -> String {
    let channel = unique("C");
    fake.script("chat.postMessage", &channel, vec![Reply::RateLimited(secs)]);
    c.event(&envelope(team, &unique("Ev"), mention(&channel, "0.1", "hold")));
    fake.wait_calls("chat.postMessage", &channel, 1, WAIT);
    eventually("the hold is stored", WAIT, || (!c.stats(team)["holds"].as_array().unwrap().is_empty()).then_some(()));
    channel
}

#[test]
fn twenty_deliveries_due_at_once_with_an_expiring_token_cause_exactly_one_refresh() {
    let s = shared();
    let c = s.client();
    let team = unique("T");
    let channel = hold_posts(&c, &s.fake, &team, 4);
    let refresh = unique("xoxe-refresh-");
    install(&c, &s.fake, access(&team, "xoxe.xoxb-old", json!({"refresh_token": refresh, "expires_in": 60})));
    s.fake.script(
        "oauth.v2.access",
        &refresh,
        vec![Reply::Json(json!({
            "ok": true, "access_token": "xoxe.xoxb-new", "refresh_token": "xoxe-next", "expires_in": 43200, "token_type": "bot"
        }))],
    );
    for i in 0..20 {
        assert_eq!(c.event(&envelope(&team, &unique("Ev"), mention(&channel, &format!("2.{i}"), "many"))).status, 200);
    }
    // The held mention's retry and the 20 new ones, all after the refresh (the 429 came before the install).
    let posts = eventually("21 posts after the hold", WAIT, || {
        let posts: Vec<_> = s.fake.calls("chat.postMessage", &channel).into_iter().filter(|p| !p.rate_limited).collect();
        (posts.len() >= 21).then_some(posts)
    });
    assert!(posts.iter().all(|p| p.header("authorization") == Some("Bearer xoxe.xoxb-new")));
    let refreshes = s.fake.calls("oauth.v2.access", &refresh);
    assert_eq!(refreshes.len(), 1, "exactly one refresh");
    assert!(refreshes[0].body.contains("grant_type=refresh_token"));
    assert!(installation(&c, &team)["token_expires_at"].as_i64().unwrap() > support::slack::now_secs() * 1000 + 40_000_000);
}

#[test]
fn uninstall_parks_pending_rows_stops_deliveries_and_a_reinstall_works_again() {
    let s = shared();
    let c = s.client();
    let team = unique("T");
    install(&c, &s.fake, access(&team, "xoxb-before", json!({})));
    let channel = hold_posts(&c, &s.fake, &team, 30);
    for i in 0..3 {
        c.event(&envelope(&team, &unique("Ev"), mention(&channel, &format!("3.{i}"), "pending")));
    }
    assert_eq!(c.rows(&team, "pending").len(), 4);
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), json!({"type": "app_uninstalled"}))).status, 200);
    let parked = c.rows(&team, "parked");
    assert_eq!(parked.len(), 4);
    assert!(parked.iter().all(|r| r["reason"] == "uninstalled"));
    assert!(installation(&c, &team).is_null(), "tokens deleted");
    assert_eq!(c.stats(&team)["uninstalled"], true);

    // A later event is recorded, and its reply parked at delivery: no call to Slack.
    let after = unique("C");
    c.event(&envelope(&team, &unique("Ev"), mention(&after, "4.1", "after")));
    eventually("the late reply is parked", WAIT, || (c.rows(&team, "parked").len() == 5).then_some(()));
    assert!(s.fake.calls("chat.postMessage", &after).is_empty());
    assert!(s.fake.calls("chat.postMessage", &channel).iter().all(|p| p.rate_limited), "only the refused post of the hold");

    install(&c, &s.fake, access(&team, "xoxb-after", json!({})));
    let row = c.rows(&team, "parked").into_iter().find(|r| r["payload"].as_str().unwrap().contains(&after)).unwrap();
    assert_eq!(c.admin_post(&format!("/admin/teams/{team}/outbox/{}/redrive", row["id"])).status, 200);
    let post = s.fake.wait_calls("chat.postMessage", &after, 1, WAIT)[0].clone();
    assert_eq!(post.header("authorization"), Some("Bearer xoxb-after"));
}

#[test]
fn tokens_are_encrypted_at_rest() {
    let s = shared();
    let c = s.client();
    let team = unique("T");
    let token = format!("xoxb-plaintext-{team}");
    install(&c, &s.fake, access(&team, &token, json!({"refresh_token": format!("xoxe-plain-{team}"), "expires_in": 43200})));
    assert!(!installation(&c, &team).is_null());
    let mut files = vec![s.runtime.state_dir().join("state")];
    let (mut seen, mut found_team) = (0, false);
    while let Some(path) = files.pop() {
        // SQLite's journal files come and go while the runtime runs: one that vanished between
        // the listing and the read held nothing to check.
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).into_iter().flatten().flatten().map(|e| e.path()));
        } else {
            let Ok(bytes) = std::fs::read(&path) else { continue };
            seen += 1;
            let text = String::from_utf8_lossy(&bytes);
            assert!(!text.contains(&token), "plaintext token in {}", path.display());
            assert!(!text.contains(&format!("xoxe-plain-{team}")), "plaintext refresh token in {}", path.display());
            found_team |= text.contains(&team);
        }
    }
    assert!(seen > 0);
    assert!(found_team, "the installation row itself is on disk (so the search above saw it)");
    assert!(!s.runtime.log_text().contains(&token), "no token in the logs");
}
