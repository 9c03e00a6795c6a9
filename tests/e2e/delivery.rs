//! Alarm-driven delivery, end to end in workerd with the fake Slack: exactly one post when Slack is
//! healthy, retries with backoff, `Retry-After` and the team-wide hold, parking, leases taken over
//! and late completions fenced, the LLM chain, the alarm re-arming itself through failures, and
//! the admin API's redrive and discard.

use crate::support;

use serde_json::Value;
use slackline::internal::meter::{statement_key, Meter};
use std::sync::OnceLock;
use std::time::Duration;
use support::slack::{envelope, mention};
use support::{eventually, shared, unique, Client, FakeSlack, Reply, Runtime, Settings};

const WAIT: Duration = Duration::from_secs(30);

/// A runtime with a fast retry schedule (200 ms), 4 attempts, and a lease (1.5 s) shorter than
/// the attempt timeout (10 s), so tests can watch retries and lease take-overs quickly.
fn fast() -> &'static (FakeSlack, Runtime) {
    static FAST: OnceLock<(FakeSlack, Runtime)> = OnceLock::new();
    FAST.get_or_init(|| {
        let fake = FakeSlack::start();
        let settings =
            Settings::new("fast", &fake).var("RETRY_SCHEDULE_MS", "200").var("MAX_ATTEMPTS", "4").var("LEASE_MS", "1500").var("ATTEMPT_TIMEOUT_MS", "10000");
        let runtime = Runtime::start(settings);
        (fake, runtime)
    })
}

/// Sends a mention in a fresh team and channel; returns (team, channel).
fn mention_in_new_team(c: &Client) -> (String, String) {
    let (team, channel) = (unique("T"), unique("C"));
    let a = c.event(&envelope(&team, &unique("Ev"), mention(&channel, "1.5", "deliver me")));
    assert_eq!(a.status, 200, "{}", a.body);
    (team, channel)
}

fn only_row(c: &Client, team: &str, status: &str) -> Value {
    eventually(&format!("one {status} row for {team}"), WAIT, || {
        let rows = c.rows(team, status);
        (rows.len() == 1).then(|| rows[0].clone())
    })
}

#[test]
fn a_mention_is_delivered_exactly_once_when_slack_is_healthy() {
    let s = shared();
    let c = s.client();
    let (team, channel) = mention_in_new_team(&c);
    let row = only_row(&c, &team, "done");
    assert_eq!(row["attempts"], 1);
    let calls = s.fake.calls("chat.postMessage", &channel);
    assert_eq!(calls.len(), 1, "{calls:?}");
    let history = c.row(&team, row["id"].as_i64().unwrap())["attempts_log"].clone();
    assert_eq!(history.as_array().unwrap().len(), 1);
    assert_eq!(history[0]["outcome"], "success");
}

#[test]
fn a_5xx_then_ok_is_one_post_after_two_attempts() {
    let s = shared();
    let channel_probe = unique("C");
    let c = s.client();
    let team = unique("T");
    s.fake.script("chat.postMessage", &channel_probe, vec![Reply::Status(500)]);
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), mention(&channel_probe, "2.5", "flaky"))).status, 200);
    let row = only_row(&c, &team, "done");
    assert_eq!(row["attempts"], 2);
    let calls = s.fake.calls("chat.postMessage", &channel_probe);
    assert_eq!(calls.len(), 2);
    // The retry waited for the schedule's first step (1 s, minus at most 20 % jitter).
    assert!(calls[1].at - calls[0].at >= Duration::from_millis(800), "{:?}", calls[1].at - calls[0].at);
}

#[test]
fn channel_not_found_parks_after_one_attempt_with_that_reason() {
    let s = shared();
    let c = s.client();
    let (team, channel) = (unique("T"), unique("C"));
    s.fake.script("chat.postMessage", &channel, vec![Reply::Error("channel_not_found")]);
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), mention(&channel, "3.5", "gone"))).status, 200);
    let row = only_row(&c, &team, "parked");
    assert_eq!(row["reason"], "channel_not_found");
    assert_eq!(row["last_error"], "channel_not_found");
    assert_eq!(row["attempts"], 1);
    assert!(row["payload"].as_str().unwrap().contains(&channel), "a parked row keeps its payload");
    assert!(row["first_attempt_at"].as_i64().is_some() && row["last_attempt_at"].as_i64().is_some());
    assert_eq!(s.fake.calls("chat.postMessage", &channel).len(), 1);
}

#[test]
fn a_429_waits_for_retry_after_holds_its_channel_and_spends_no_attempt() {
    let s = shared();
    let c = s.client();
    let (team, limited, other) = (unique("T"), unique("C"), unique("C"));
    s.fake.script("chat.postMessage", &limited, vec![Reply::RateLimited(2)]);
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), mention(&limited, "4.5", "limited"))).status, 200);
    let first = s.fake.wait_calls("chat.postMessage", &limited, 1, WAIT)[0].clone();
    let lane = format!("chat.postMessage:{limited}");
    eventually("the channel's hold is stored", WAIT, || c.stats(&team)["holds"].as_array().unwrap().iter().any(|h| h["target"] == lane.as_str()).then_some(()));
    // Another post in the held channel waits for the hold; one in another channel goes on.
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), mention(&limited, "4.6", "held"))).status, 200);
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), mention(&other, "4.7", "free"))).status, 200);
    let free = s.fake.wait_calls("chat.postMessage", &other, 1, WAIT)[0].clone();
    let calls = s.fake.wait_calls("chat.postMessage", &limited, 3, WAIT);
    assert!(free.at - first.at < Duration::from_secs(2), "another channel is not held: {:?}", free.at - first.at);
    for later in &calls[1..] {
        assert!(later.at - first.at >= Duration::from_secs(2), "a post in the held channel left after {:?}", later.at - first.at);
    }
    let done = eventually("all three delivered", WAIT, || {
        let done = c.rows(&team, "done");
        (done.len() == 3).then_some(done)
    });
    assert!(done.iter().all(|r| r["attempts"] == 1), "a 429 is not a failed attempt: {done:?}");
    let refused = done.iter().find(|r| r["payload"].as_str().unwrap().contains("limited")).unwrap();
    let history = c.row(&team, refused["id"].as_i64().unwrap())["attempts_log"].clone();
    let outcomes: Vec<&str> = history.as_array().unwrap().iter().map(|a| a["outcome"].as_str().unwrap()).collect();
    assert_eq!(outcomes, vec!["rate_limited", "success"], "{history}");
    assert_eq!(history[0]["http_status"], 429);
}

#[test]
fn the_alarm_keeps_firing_through_failures_until_delivery() {
    let (fake, rt) = fast();
    let c = rt.client();
    let channel = unique("C");
    let team = unique("T");
    fake.script("chat.postMessage", &channel, vec![Reply::Status(503), Reply::Status(502), Reply::Error("internal_error")]);
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), mention(&channel, "5.5", "persist"))).status, 200);
    let row = only_row(&c, &team, "done");
    assert_eq!(row["attempts"], 4);
    assert_eq!(fake.calls("chat.postMessage", &channel).len(), 4);
}

#[test]
fn transient_failures_that_never_end_park_as_attempts_exhausted() {
    let (fake, rt) = fast();
    let c = rt.client();
    let (team, channel) = (unique("T"), unique("C"));
    fake.script("chat.postMessage", &channel, vec![Reply::Status(500); 10]);
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), mention(&channel, "6.5", "doomed"))).status, 200);
    let row = only_row(&c, &team, "parked");
    assert_eq!(row["reason"], "attempts_exhausted");
    assert_eq!(row["last_error"], "http_500");
    assert_eq!(row["last_status"], 500);
    assert_eq!(row["attempts"], 4);
    assert_eq!(fake.calls("chat.postMessage", &channel).len(), 4, "never more attempts than the policy");
}

#[test]
fn a_slow_delivery_does_not_hold_back_the_teams_next_reply() {
    let s = shared();
    let c = s.runtime.client();
    let (team, slow, quick) = (unique("T"), unique("C"), unique("C"));
    let stall = Duration::from_secs(4);
    s.fake.script("chat.postMessage", &slow, vec![Reply::Delay(stall, Box::new(Reply::Ok))]);
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), mention(&slow, "8.5", "slow"))).status, 200);
    let slow_call = s.fake.wait_calls("chat.postMessage", &slow, 1, WAIT).remove(0);
    // The sweep is now waiting on Slack's slow answer; the same team's next event must not wait.
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), mention(&quick, "8.6", "quick"))).status, 200);
    let quick_call = s.fake.wait_calls("chat.postMessage", &quick, 1, WAIT).remove(0);
    let after_slow = quick_call.at.duration_since(slow_call.at);
    assert!(after_slow < stall - Duration::from_millis(1500), "the quick reply waited {after_slow:?} behind the slow one");
    eventually("both rows are done", WAIT, || (c.rows(&team, "done").len() == 2).then_some(()));
    assert_eq!(s.fake.calls("chat.postMessage", &slow).len(), 1, "the slow post was not attempted twice");
}

#[test]
fn a_delivery_slower_than_its_lease_is_reclaimed_and_the_late_completion_is_fenced() {
    let (fake, rt) = fast();
    let c = rt.client();
    let (team, channel) = (unique("T"), unique("C"));
    fake.script("chat.postMessage", &channel, vec![Reply::Delay(Duration::from_secs(5), Box::new(Reply::Ok))]);
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), mention(&channel, "7.5", "slow"))).status, 200);
    fake.wait_calls("chat.postMessage", &channel, 1, WAIT);
    // A second claimer (an admin-triggered sweep) can take the row only once the lease expired.
    let report: Value = eventually("a sweep reclaims the expired lease", WAIT, || {
        let r = c.admin_post(&format!("/admin/teams/{team}/sweep")).json();
        (r["claimed"] == 1).then_some(r)
    });
    assert_eq!(report["delivered"], 1);
    assert_eq!(fake.calls("chat.postMessage", &channel).len(), 2, "at-least-once: the slow post and the retry");
    // The first claimer's answer arrives later; its completion must be fenced and counted.
    let fenced = eventually("the late completion is fenced", WAIT, || {
        let counters = c.stats(&team)["counters"].clone();
        counters.as_array().unwrap().iter().find(|k| k["name"] == "fenced").map(|k| k["value"].clone())
    });
    assert_eq!(fenced, 1);
    let row = only_row(&c, &team, "done");
    assert_eq!(row["attempts"], 2);
    let history = c.row(&team, row["id"].as_i64().unwrap())["attempts_log"].clone();
    let outcomes: Vec<&str> = history.as_array().unwrap().iter().map(|a| a["outcome"].as_str().unwrap()).collect();
    assert_eq!(outcomes, vec!["success", "fenced"]);
}

#[test]
fn the_llm_chain_calls_the_model_then_posts_its_answer_in_the_thread() {
    let fake = FakeSlack::start();
    let rt = Runtime::start(Settings::new("llm", &fake).var("LLM_API_URL", &fake.llm_url()).var("LLM_API_KEY", "sk-e2e").var("LLM_MODEL", "tiny-model"));
    let c = rt.client();
    let (team, channel) = (unique("T"), unique("C"));
    let question = unique("question-");
    fake.script("llm", &question, vec![Reply::Status(503), Reply::Completion(format!("The answer to {question} is 42."))]);
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), mention(&channel, "8.5", &question))).status, 200);
    let post = fake.wait_calls("chat.postMessage", &channel, 1, WAIT)[0].clone();
    assert_eq!(post.field("text"), Some(format!("The answer to {question} is 42.").as_str()));
    assert_eq!(post.field("thread_ts"), Some("8.5"));
    let llm_calls = fake.calls("llm", &question);
    assert_eq!(llm_calls.len(), 2, "one 503, then the completion");
    assert_eq!(llm_calls[1].header("authorization"), Some("Bearer sk-e2e"));
    assert_eq!(llm_calls[1].field("model"), Some("tiny-model"));
    assert!(post.at > llm_calls[1].at);
    eventually("both rows done", WAIT, || (c.rows(&team, "done").len() == 2).then_some(()));
    let keys: Vec<String> = c.rows(&team, "done").iter().map(|r| r["idem_key"].as_str().unwrap().to_string()).collect();
    assert!(keys.contains(&format!("msg:{channel}:8.5:reply:post")), "{keys:?}");

    // A question answered at once: the completion row is claimed by the ingest that queued it, and
    // its post by the completion that queued it (`runtime::sweep::adopt`): the sweep's claim, an
    // UPDATE, writes no row for either (it wrote one for the post before).
    let claims_written = || {
        let meter: Meter = serde_json::from_str(&c.admin_get(&format!("/admin/teams/{team}/meter")).body).expect("the meter");
        meter.statements.get(&statement_key(slackline::internal::sql::outbox::CLAIM)).map_or(0, |t| t.rows_written)
    };
    let before = claims_written();
    let second = unique("question-");
    fake.script("llm", &second, vec![Reply::Completion(format!("The answer to {second} is 7."))]);
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), mention(&channel, "8.6", &second))).status, 200);
    eventually("the second answer posted and both its rows done", WAIT, || (c.rows(&team, "done").len() == 4).then_some(()));
    assert_eq!(fake.calls("chat.postMessage", &channel).len(), 2, "one post per question");
    assert_eq!(claims_written() - before, 0, "neither the completion's row nor its post was claimed by an UPDATE");
}

#[test]
fn a_parked_row_can_be_redriven_to_delivery_or_discarded_with_an_audit() {
    let s = shared();
    let c = s.client();
    let (team, a, b) = (unique("T"), unique("C"), unique("C"));
    s.fake.script("chat.postMessage", &a, vec![Reply::Error("not_in_channel")]);
    s.fake.script("chat.postMessage", &b, vec![Reply::Error("is_archived")]);
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), mention(&a, "9.1", "redrive"))).status, 200);
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), mention(&b, "9.2", "discard"))).status, 200);
    let parked = eventually("two parked rows", WAIT, || {
        let rows = c.rows(&team, "parked");
        (rows.len() == 2).then_some(rows)
    });
    let id_of = |channel: &str| parked.iter().find(|r| r["payload"].as_str().unwrap().contains(channel)).unwrap()["id"].as_i64().unwrap();
    let (ra, rb) = (id_of(&a), id_of(&b));

    assert_eq!(c.admin_post(&format!("/admin/teams/{team}/outbox/{ra}/redrive")).status, 200);
    s.fake.wait_calls("chat.postMessage", &a, 2, WAIT);
    eventually("the redriven row is delivered", WAIT, || (c.rows(&team, "done").len() == 1).then_some(()));
    assert_eq!(c.admin_post(&format!("/admin/teams/{team}/outbox/{ra}/redrive")).status, 409, "only parked rows");

    assert_eq!(c.admin_delete(&format!("/admin/teams/{team}/outbox/{rb}")).status, 200);
    assert_eq!(c.admin_delete(&format!("/admin/teams/{team}/outbox/{rb}")).status, 409);
    assert!(c.rows(&team, "parked").is_empty());
    assert_eq!(c.admin_get(&format!("/admin/teams/{team}/outbox/{rb}")).status, 404);
    let audit = c.admin_get(&format!("/admin/teams/{team}/audit")).json()["audit"].clone();
    let actions: Vec<(&str, i64)> = audit.as_array().unwrap().iter().map(|a| (a["action"].as_str().unwrap(), a["row_id"].as_i64().unwrap())).collect();
    assert_eq!(actions, vec![("discard", rb), ("redrive", ra)]);
    assert!(audit[0]["detail"].as_str().unwrap().contains(&b), "the discarded row's payload is kept in the audit record");
}

#[test]
fn without_any_token_a_slack_call_is_parked_as_not_installed() {
    let fake = FakeSlack::start();
    let rt = Runtime::start(Settings::new("notoken", &fake).without("SLACK_BOT_TOKEN"));
    let c = rt.client();
    let (team, channel) = mention_in_new_team(&c);
    let row = only_row(&c, &team, "parked");
    assert_eq!(row["reason"], "not_installed");
    assert!(fake.calls("chat.postMessage", &channel).is_empty());
}
