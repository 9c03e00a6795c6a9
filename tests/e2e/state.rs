//! App state in the atomic unit, end to end on the shared runtime: the tally
//! (`slackline::internal::app::tally`, served beside the echo bot for requests that name it) counts votes
//! in the team's state. A vote fed every duplicate shape Slack produces counts once; a handler
//! that fails (an `Err`, a panic, a value over the limit) leaves no state change; a remembered
//! `ts` is what a later button press updates; secret values never leave the actor.

use crate::support;

use serde_json::{json, Value};
use std::time::Duration;
use support::slack::{envelope, mention, message_copy};
use support::{eventually, shared, unique, Client};

const WAIT: Duration = Duration::from_secs(30);

/// The team's state under `prefix`, from the admin API: key → value.
fn state(c: &Client, team: &str, prefix: &str) -> Vec<(String, Value)> {
    let a = c.admin_get(&format!("/admin/teams/{team}/state?prefix={prefix}&limit=200"));
    assert_eq!(a.status, 200, "{}", a.body);
    let entries = a.json()["entries"].as_array().cloned().unwrap_or_default();
    entries.into_iter().map(|e| (e["key"].as_str().unwrap_or_default().to_string(), e["value"].clone())).collect()
}

fn value(c: &Client, team: &str, key: &str) -> Option<Value> {
    state(c, team, key).into_iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

#[test]
fn a_vote_fed_every_duplicate_shape_counts_once() {
    let s = shared();
    let c = s.client();
    let (team, channel) = (unique("T"), unique("C"));
    let text = "slackline-tally vote";
    let first = envelope(&team, &unique("Ev"), mention(&channel, "5.1", text)).to_string();
    assert_eq!(c.event_delivery(&first, None, &[]).status, 200);
    for n in ["1", "2", "3"] {
        assert_eq!(c.event_delivery(&first, Some(n), &[]).status, 200, "Slack's retry {n}");
    }
    std::thread::scope(|scope| {
        let copies: Vec<_> = (0..5).map(|_| scope.spawn(|| s.client().event_delivery(&first, None, &[]).status)).collect();
        for copy in copies {
            assert_eq!(copy.join().unwrap(), 200, "a concurrent copy");
        }
    });
    let fresh = envelope(&team, &unique("Ev"), mention(&channel, "5.1", text));
    assert_eq!(c.event(&fresh).status, 200, "the same mention under a fresh event_id");
    let as_message = envelope(&team, &unique("Ev"), message_copy(&channel, "5.1", text));
    assert_eq!(c.event(&as_message).status, 200, "the message event of the same post");

    assert_eq!(c.receipts(&team), 3, "three receipts: the event, its fresh id, its message copy");
    assert_eq!(value(&c, &team, &format!("votes:{channel}:5.1")), Some(json!(1)), "the post counts one vote");
    assert_eq!(value(&c, &team, "votes:total"), Some(json!(1)));

    let another = envelope(&team, &unique("Ev"), mention(&channel, "5.2", text));
    assert_eq!(c.event(&another).status, 200);
    assert_eq!(value(&c, &team, "votes:total"), Some(json!(2)), "another post is another vote");
}

#[test]
fn a_handler_that_fails_leaves_no_state_change() {
    let c = shared().client();
    let (team, channel) = (unique("T"), unique("C"));
    let cases = [("fail", "the tally was told to fail"), ("panic", "panicked: the tally was told to panic"), ("big", "at most 65536")];
    for (i, (word, _)) in cases.iter().enumerate() {
        let e = envelope(&team, &unique("Ev"), mention(&channel, &format!("6.{i}"), &format!("slackline-tally {word}")));
        assert_eq!(c.event(&e).status, 200, "{word}: recorded and acknowledged");
    }
    let parked = eventually("three handler_failed rows", WAIT, || {
        let rows = c.rows(&team, "parked");
        (rows.len() == 3).then_some(rows)
    });
    for (word, why) in cases {
        let found = parked.iter().any(|r| r["reason"] == "handler_failed" && r["last_error"].as_str().is_some_and(|e| e.contains(why)));
        assert!(found, "{word}: parked with its error ({why}): {parked:?}");
    }
    assert_eq!(state(&c, &team, "votes:"), vec![], "no vote of a failed handler was written, not even the ones before its failure");
}

#[test]
fn a_redriven_handler_s_state_change_is_stored_with_its_completion_once() {
    let c = shared().client();
    let (team, channel) = (unique("T"), unique("C"));
    let body = envelope(&team, &unique("Ev"), mention(&channel, "6.9", "slackline-tally vote")).to_string();
    let failed = c.event_delivery(&body, None, &[("x-slackline-test-handler-fails", "broken for now")]);
    assert_eq!(failed.status, 200);
    let parked = eventually("the handler_failed row", WAIT, || c.rows(&team, "parked").into_iter().next());
    assert_eq!(value(&c, &team, "votes:total"), None, "a failed handler counted nothing");
    assert_eq!(c.admin_post(&format!("/admin/teams/{team}/outbox/{}/redrive", parked["id"])).status, 200);
    eventually("the redriven row done", WAIT, || c.rows(&team, "done").into_iter().next());
    assert_eq!(value(&c, &team, &format!("votes:{channel}:6.9")), Some(json!(1)), "the redrive's vote is stored with its completion");
    assert_eq!(c.event_delivery(&body, Some("1"), &[]).status, 200, "a late retry of the event");
    let again = envelope(&team, &unique("Ev"), mention(&channel, "6.9", "slackline-tally vote"));
    assert_eq!(c.event(&again).status, 200, "the same post under a fresh event_id");
    assert_eq!(value(&c, &team, "votes:total"), Some(json!(1)), "the post's fact was applied once, by the redrive");
}

#[test]
fn a_remembered_ts_is_what_a_later_button_press_updates() {
    let s = shared();
    let c = s.client();
    let (team, channel) = (unique("T"), unique("C"));
    let e = envelope(&team, &unique("Ev"), mention(&channel, "7.1", "slackline-tally post"));
    assert_eq!(c.event(&e).status, 200);
    let posted = s.fake.wait_calls("chat.postMessage", &channel, 1, WAIT);
    assert_eq!(posted[0].field("text"), Some("tally"));
    let key = format!("post:{channel}:7.1");
    let remembered = eventually("the post's answer remembered", WAIT, || value(&c, &team, &key));
    let ts = remembered["ts"].as_str().expect("a ts").to_string();
    assert_eq!(remembered["channel"], json!(channel));
    assert!(!ts.is_empty() && ts != "7.1", "Slack's ts of our post, not the mention's: {ts}");

    let click = json!({
        "type": "block_actions", "trigger_id": unique("trig."), "team": {"id": team}, "user": {"id": "U1", "team_id": team},
        "container": {"type": "message", "channel_id": channel, "message_ts": "7.1"}, "channel": {"id": channel},
        "actions": [{"action_id": slackline::internal::app::tally::UPDATE_ACTION, "value": key, "type": "button"}],
    });
    assert_eq!(c.interaction(&click).status, 200);
    let updated = s.fake.wait_calls("chat.update", &channel, 1, WAIT);
    assert_eq!(updated[0].field("ts"), Some(ts.as_str()), "chat.update of the remembered ts");
    assert_eq!(updated[0].field("text"), Some("tally (updated)"));
}

#[test]
fn a_secret_value_is_redacted_in_the_admin_api_and_page() {
    let c = shared().client();
    let (team, channel) = (unique("T"), unique("C"));
    let e = envelope(&team, &unique("Ev"), mention(&channel, "8.1", "slackline-tally secret"));
    assert_eq!(c.event(&e).status, 200);
    let api = c.admin_get(&format!("/admin/teams/{team}/state"));
    assert_eq!(api.status, 200, "{}", api.body);
    let entry = &api.json()["entries"][0];
    assert_eq!((entry["key"].as_str(), entry["value"].as_str(), entry["redacted"].as_bool()), (Some("secret:8.1"), Some("[redacted]"), Some(true)));
    let page = c.admin_get(&format!("/admin/teams/{team}"));
    assert_eq!(page.status, 200);
    assert!(page.body.contains("secret:8.1") && page.body.contains("[redacted]"), "the page lists the key");
    assert!(!api.body.contains("hunter2") && !page.body.contains("hunter2"), "the value never leaves the actor");
}

#[test]
fn the_state_api_pages_in_key_order() {
    let c = shared().client();
    let (team, channel) = (unique("T"), unique("C"));
    for i in 0..3 {
        let e = envelope(&team, &unique("Ev"), mention(&channel, &format!("9.{i}"), "slackline-tally vote"));
        assert_eq!(c.event(&e).status, 200);
    }
    let first = c.admin_get(&format!("/admin/teams/{team}/state?prefix=votes:{channel}&limit=2")).json();
    let keys: Vec<&str> = first["entries"].as_array().unwrap().iter().filter_map(|e| e["key"].as_str()).collect();
    assert_eq!(keys, vec![format!("votes:{channel}:9.0"), format!("votes:{channel}:9.1")]);
    let after = first["next_after"].as_str().expect("a full page points at the next");
    let next = c.admin_get(&format!("/admin/teams/{team}/state?prefix=votes:{channel}&limit=2&after={after}")).json();
    assert_eq!(next["entries"][0]["key"], json!(format!("votes:{channel}:9.2")));
    assert_eq!(next["next_after"], Value::Null);
}
