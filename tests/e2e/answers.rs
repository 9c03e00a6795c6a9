//! An effect's answer back to the app (`.then(name, &data)`, `.on_result(name, …)`), end to end
//! on the shared runtime: the tally's `whois` looks the user up with `users.info` and its result
//! listener tells the channel the user's time zone, or why the lookup failed. The listener runs
//! once per effect whatever the retries; its failure parks the effect's row with the answer kept,
//! and a redrive runs the listener again, never the call.

use crate::support;

use serde_json::json;
use std::time::Duration;
use support::slack::{envelope, mention};
use support::{eventually, shared, unique, Reply};

const WAIT: Duration = Duration::from_secs(30);

/// Sends a `whois` (or `whois-bug`) mention from `user` in `channel` of `team`.
fn ask(team: &str, channel: &str, user: &str, word: &str) {
    let mut event = mention(channel, "7.1", &format!("slackline-tally {word}"));
    event["user"] = json!(user);
    assert_eq!(shared().client().event(&envelope(team, &unique("Ev"), event)).status, 200);
}

/// The texts the bot posted in `channel`.
fn said(channel: &str) -> Vec<String> {
    shared().fake.posts_in(channel).into_iter().map(|m| m.text).collect()
}

#[test]
fn the_result_listener_gets_slacks_answer_and_posts_from_it() {
    let s = shared();
    let (team, channel, user) = (unique("T"), unique("C"), unique("U"));
    s.fake.script("users.info", &user, vec![Reply::Json(json!({ "ok": true, "user": { "id": user, "tz": "Asia/Kathmandu" } }))]);
    ask(&team, &channel, &user, "whois");
    let told = eventually("the listener's post", WAIT, || said(&channel).into_iter().find(|t| t.contains("is on")));
    assert_eq!(told, format!("{user} is on Asia/Kathmandu"));
    let c = s.client();
    let rows = eventually("both rows done", WAIT, || Some(c.rows(&team, "done")).filter(|r| r.len() == 2));
    assert!(rows.iter().any(|r| r["idem_key"].as_str().is_some_and(|k| k.starts_with("answer:"))), "the listener's post is keyed by the answer: {rows:?}");
}

#[test]
fn after_500s_the_lookup_succeeds_and_the_listener_runs_once() {
    let s = shared();
    let (team, channel, user) = (unique("T"), unique("C"), unique("U"));
    let answer = json!({ "ok": true, "user": { "id": user, "tz": "Europe/Paris" } });
    s.fake.script("users.info", &user, vec![Reply::Status(500), Reply::Status(503), Reply::Json(answer)]);
    ask(&team, &channel, &user, "whois");
    eventually("the listener's post", WAIT, || said(&channel).into_iter().find(|t| t.contains("is on")));
    assert_eq!(s.fake.calls("users.info", &user).len(), 3, "two failures, one success");
    eventually("every row settled", WAIT, || Some(()).filter(|_| s.client().rows(&team, "pending").is_empty()));
    assert_eq!(said(&channel), [format!("{user} is on Europe/Paris")], "the listener ran once, on the answer");
}

#[test]
fn a_lookup_slack_refuses_reaches_the_listener_as_its_failure_and_a_redriven_lookup_reaches_it_again() {
    let s = shared();
    let (team, channel, user) = (unique("T"), unique("C"), unique("U"));
    s.fake.script("users.info", &user, vec![Reply::Error("user_not_found")]);
    ask(&team, &channel, &user, "whois");
    let told = eventually("the listener's post", WAIT, || said(&channel).into_iter().find(|t| t.contains("no lookup")));
    assert_eq!(told, format!("no lookup of {user}: user_not_found after 1 attempt(s)"));
    let c = s.client();
    let parked = c.rows(&team, "parked");
    let lookup = parked
        .iter()
        .find(|r| r["effect"] == "slack_api" && r["last_error"] == "user_not_found")
        .unwrap_or_else(|| panic!("the lookup itself is parked, as before: {parked:?}"));
    // The operator fixes what was wrong and redrives the lookup: it ends again, and the listener's
    // new decision is its own (not taken for the first end's).
    s.fake.script("users.info", &user, vec![Reply::Json(json!({ "ok": true, "user": { "id": user, "tz": "Africa/Cairo" } }))]);
    assert_eq!(c.admin_post(&format!("/admin/teams/{team}/outbox/{}/redrive", lookup["id"])).status, 200);
    let told = eventually("the listener's post after the redrive", WAIT, || said(&channel).into_iter().find(|t| t.contains("is on")));
    assert_eq!(told, format!("{user} is on Africa/Cairo"));
    assert_eq!(said(&channel).len(), 2, "one post per end of the lookup");
}

#[test]
fn a_failing_listener_parks_the_row_with_the_answer_kept_and_a_redrive_runs_only_the_listener() {
    let s = shared();
    let c = s.client();
    let (team, channel, user) = (unique("T"), unique("C"), unique("U"));
    s.fake.script("users.info", &user, vec![Reply::Json(json!({ "ok": true, "user": { "id": user, "tz": "America/Halifax" } }))]);
    ask(&team, &channel, &user, "whois-bug");
    let parked = eventually("the row parked", WAIT, || c.rows(&team, "parked").into_iter().next());
    assert_eq!((parked["reason"].as_str(), parked["effect"].as_str()), (Some("handler_failed"), Some("answer")), "{parked}");
    assert_eq!(s.fake.calls("users.info", &user).len(), 1);
    let id = parked["id"].as_i64().unwrap();
    assert_eq!(c.admin_post(&format!("/admin/teams/{team}/outbox/{id}/redrive")).status, 200);
    let again = eventually("parked again", WAIT, || {
        Some(c.row(&team, id)).filter(|r| r["attempts_log"].as_array().is_some_and(|a| a.len() >= 2) && r["status"] == "parked")
    });
    assert_eq!(again["reason"], "handler_failed", "the listener fails the same way: {again}");
    assert_eq!(s.fake.calls("users.info", &user).len(), 1, "a redrive runs the listener on the kept answer, never the lookup again");
    assert!(said(&channel).is_empty());
}
