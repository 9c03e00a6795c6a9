//! Receipts past their retention, end to end: the admin sweep's test clock
//! (`x-slackline-test-now`, `ALLOW_TEST_CLOCK=1`) moves the housekeeping a day ahead, and the
//! receipts rotate between their two tables (`slackline::internal::sql::lean`): a receipt still
//! deduplicates a retention after it was recorded, from the previous table, and is gone after two.
//! Delivered rows past their retention are pruned, and the successes they counted stay counted. A
//! team with nothing pending is woken for that housekeeping by the directory, not by its alarm.

use crate::support::slack::{envelope, mention, now_secs};
use crate::support::{eventually, shared, unique, Client, ADMIN_TOKEN};
use serde_json::{json, Value};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const DAY_MS: i64 = 24 * 3600 * 1000;

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as i64
}

/// An event the app records no effect for.
fn reaction(team: &str, event_id: &str) -> Value {
    envelope(team, event_id, json!({"type": "reaction_added", "user": "U1", "reaction": "eyes", "event_ts": now_secs().to_string()}))
}

/// One admin sweep whose housekeeping counts from `at`.
fn sweep_at(c: &Client, team: &str, at: i64) {
    let bearer = format!("Bearer {ADMIN_TOKEN}");
    let answer = c.post_raw(&format!("/admin/teams/{team}/sweep"), &[("authorization", &bearer), ("x-slackline-test-now", &at.to_string())], b"");
    assert_eq!(answer.status, 200, "{}", answer.body);
}

#[test]
fn a_receipt_deduplicates_for_a_retention_after_a_rotation_and_is_gone_after_two() {
    let c = shared().client();
    let (team, first, second) = (unique("T"), unique("Ev"), unique("Ev"));
    assert_eq!(c.event(&reaction(&team, &first)).status, 200);
    let recorded = now_ms(); // the first receipt is at most this old
    std::thread::sleep(Duration::from_millis(1_200));
    assert_eq!(c.event(&reaction(&team, &second)).status, 200);
    assert_eq!(c.receipts(&team), 2);

    // A retention after the first receipt, not yet after the second: the table rotates whole.
    let rotated = recorded + DAY_MS + 600;
    sweep_at(&c, &team, rotated);
    assert_eq!(c.receipts(&team), 2, "both kept, in the previous table");
    assert_eq!(c.event(&reaction(&team, &first)).status, 200);
    assert_eq!(c.receipts(&team), 2, "Slack's retry of the first is still a duplicate");

    // A retention after that rotation: the previous table goes, and nothing newer is left.
    sweep_at(&c, &team, rotated + DAY_MS + 1_000);
    assert_eq!(c.receipts(&team), 0, "gone two retentions after they were recorded");
    assert_eq!(c.event(&reaction(&team, &first)).status, 200);
    assert_eq!(c.receipts(&team), 1, "recorded again: both tables take receipts");
}

/// The stats' `success` counter (0 when absent).
fn successes(c: &Client, team: &str) -> i64 {
    let stats = c.stats(team);
    stats["counters"].as_array().unwrap().iter().find(|k| k["name"] == "success").map_or(0, |k| k["value"].as_i64().unwrap())
}

#[test]
fn delivered_rows_count_as_successes_and_stay_counted_once_pruned() {
    let s = shared();
    let c = s.client();
    let (team, channel) = (unique("T"), unique("C"));
    for i in 0..3 {
        let a = c.event(&envelope(&team, &unique("Ev"), mention(&channel, &format!("1.{i}"), "count me")));
        assert_eq!(a.status, 200, "{}", a.body);
    }
    eventually("three rows delivered", Duration::from_secs(30), || (c.rows(&team, "done").len() == 3).then_some(()));
    assert_eq!(successes(&c, &team), 3, "each delivered row counts itself");
    assert!(c.stats(&team)["last_sweep"]["delivered"].as_i64().is_some_and(|n| n >= 1), "the last sweep is shown from the actor's memory");

    // Two days on, the housekeeping prunes the delivered rows (all but the newest row, which
    // keeps ids from being given again) and keeps their count.
    sweep_at(&c, &team, now_ms() + 2 * DAY_MS);
    assert_eq!(c.rows(&team, "done").len(), 1, "the two older delivered rows were pruned");
    assert_eq!(successes(&c, &team), 3, "pruning moved their successes to the stored count");
    assert_eq!(s.fake.calls("chat.postMessage", &channel).len(), 3);
}

/// The directory's entry for `team` (`GET /admin/teams`, paged), once it lists the team.
fn directory_entry(c: &Client, team: &str) -> Option<Value> {
    let mut after = String::new();
    loop {
        let page = c.admin_get(&format!("/admin/teams?limit=1000&after={after}"));
        assert_eq!(page.status, 200, "{}", page.body);
        let page = page.json();
        if let Some(found) = page["teams"].as_array().unwrap().iter().find(|t| t["team_key"] == team) {
            return Some(found.clone());
        }
        after = page["next_after"].as_str()?.to_string();
    }
}

/// The directory wakes `team` for its housekeeping as if it were `at`, if its wake is due then;
/// returns how many teams it woke (0 or 1).
fn wake_at(c: &Client, team: &str, at: i64) -> i64 {
    let bearer = format!("Bearer {ADMIN_TOKEN}");
    let answer = c.post_raw(&format!("/admin/wakes/due?team={team}"), &[("authorization", &bearer), ("x-slackline-test-now", &at.to_string())], b"");
    assert_eq!(answer.status, 200, "{}", answer.body);
    answer.json()["woken"].as_i64().unwrap()
}

#[test]
fn a_team_with_nothing_pending_is_woken_for_its_housekeeping_by_the_directory_not_its_alarm() {
    let s = shared();
    let c = s.client();
    let (team, channel) = (unique("T"), unique("C"));
    for i in 0..3 {
        let a = c.event(&envelope(&team, &unique("Ev"), mention(&channel, &format!("2.{i}"), "wake me later")));
        assert_eq!(a.status, 200, "{}", a.body);
    }
    eventually("three rows delivered", Duration::from_secs(30), || (c.rows(&team, "done").len() == 3).then_some(()));
    let entry = eventually("the directory holds the team's housekeeping wake", Duration::from_secs(30), || {
        directory_entry(&c, &team).filter(|e| e["housekeeping_at"].is_i64())
    });
    let wake = entry["housekeeping_at"].as_i64().unwrap();
    assert!(wake > now_ms() + DAY_MS / 2, "the wake is the housekeeping's, a retention ahead: {entry}");
    let last = c.stats(&team)["last_sweep"].clone();
    assert!(last["next_alarm_at"].is_null(), "the sweep that delivered set no alarm for the housekeeping: {last}");
    // The directory holds the first time asked for; a later sweep's own (no sooner) asks nothing.
    assert!(last["housekeeping_at"].as_i64().is_some_and(|at| at >= wake), "{last}");

    assert_eq!(wake_at(&c, &team, wake - 1), 0, "not due yet: nothing woken");
    assert_eq!(c.rows(&team, "done").len(), 3);
    // Two days on, the directory's wake runs the housekeeping: the delivered rows are pruned (all
    // but the newest, which keeps ids from being given again), and the wake moves on or goes.
    assert_eq!(wake_at(&c, &team, now_ms() + 2 * DAY_MS), 1);
    assert_eq!(c.rows(&team, "done").len(), 1, "the two older delivered rows were pruned by the directory's wake");
    let after = directory_entry(&c, &team).expect("still listed");
    assert!(after["housekeeping_at"].as_i64().is_none_or(|next| next != wake), "the wake was replaced by the team's answer: {after}");
}
