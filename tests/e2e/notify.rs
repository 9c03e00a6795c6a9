//! The notify API, end to end in workerd: `POST …/messages` with Stripe's `Idempotency-Key`
//! semantics (one row for 50 concurrent posts, replays byte for byte, a mismatch refused, a 422
//! stored and replayed, a transient failure not stored, keys expiring), a message posted after a
//! SIGKILL, versioned status messages that end on the newest state, the failed-token lockout, and
//! `GET /admin/teams` paged.

use crate::support;

use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::time::Duration;
use support::slack::{envelope, mention, Answer};
use support::{eventually, shared, unique, Client, FakeSlack, Reply, Runtime, Settings, API_TOKEN};

const WAIT: Duration = Duration::from_secs(30);

fn post(c: &Client, team: &str, key: Option<&str>, body: &str, extra: &[(&str, &str)]) -> Answer {
    let mut headers: Vec<(&str, &str)> = extra.to_vec();
    if let Some(key) = key {
        headers.push(("idempotency-key", key));
    }
    c.api_with("POST", &format!("/api/teams/{team}/messages"), &headers, Some(body))
}

fn message(c: &Client, team: &str, id: i64) -> Value {
    let a = c.api("GET", &format!("/api/teams/{team}/messages/{id}"), None);
    assert_eq!(a.status, 200, "{}", a.body);
    a.json()
}

fn wait_done(c: &Client, team: &str, id: i64) -> Value {
    eventually(&format!("message {id} done"), WAIT, || Some(message(c, team, id)).filter(|m| m["status"] == "done"))
}

#[test]
fn fifty_concurrent_posts_with_one_key_make_one_row_and_one_slack_post() {
    let s = shared();
    let c = s.client();
    let (team, channel, key) = (unique("T"), unique("C"), unique("deploy-"));
    let body = json!({"channel": channel, "text": "deployed v42"}).to_string();
    let answers: Vec<Answer> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..50).map(|_| scope.spawn(|| post(&c, &team, Some(&key), &body, &[]))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(answers.iter().all(|a| a.status == 202), "{:?}", answers.iter().map(|a| a.status).collect::<Vec<_>>());
    let bodies: BTreeSet<&str> = answers.iter().map(|a| a.body.as_str()).collect();
    assert_eq!(bodies.len(), 1, "every answer is the first one, byte for byte");
    let replayed = answers.iter().filter(|a| a.header("idempotent-replayed") == Some("true")).count();
    assert_eq!(replayed, 49);
    let first = answers[0].json();
    assert_eq!((first["status"].as_str(), first["key"].as_str()), (Some("pending"), Some(key.as_str())));
    let id = first["id"].as_i64().unwrap();
    let done = wait_done(&c, &team, id);
    let posts = s.fake.calls("chat.postMessage", &channel);
    assert_eq!(posts.len(), 1, "one Slack post");
    assert_eq!((done["channel"].as_str(), done["key"].as_str()), (Some(channel.as_str()), Some(key.as_str())));
    assert!(done["ts"].as_str().is_some_and(|ts| ts.contains('.')), "Slack's ts is kept: {done}");
    assert_eq!(c.rows(&team, "done").len(), 1, "one outbox row");

    let other = post(&c, &team, Some(&key), &json!({"channel": channel, "text": "deployed v43"}).to_string(), &[]);
    assert_eq!((other.status, other.json()["error"].as_str()), (422, Some("idempotency_key_mismatch")));
    assert_eq!(c.all_rows(&team).len(), 1, "nothing changed");
    let reordered = post(&c, &team, Some(&key), &json!({"text": "deployed v42", "channel": channel}).to_string(), &[]);
    assert_eq!((reordered.status, reordered.header("idempotent-replayed")), (202, Some("true")), "the same body in another key order is the same request");
    assert_eq!(s.fake.calls("chat.postMessage", &channel).len(), 1);
}

#[test]
fn a_missing_key_is_400_and_a_bad_body_is_a_422_that_is_stored_and_replayed() {
    let s = shared();
    let c = s.client();
    let team = unique("T");
    assert_eq!(post(&c, &team, None, r#"{"channel":"C1","text":"x"}"#, &[]).status, 400);
    let long = "k".repeat(256);
    assert_eq!(post(&c, &team, Some(&long), r#"{"channel":"C1","text":"x"}"#, &[]).status, 400, "a key over 255 characters");
    let key = unique("bad-");
    let bad = r#"{"channel":"C1","text":"x","colour":"red"}"#;
    let first = post(&c, &team, Some(&key), bad, &[]);
    assert_eq!((first.status, first.json()["field"].as_str()), (422, Some("colour")), "{}", first.body);
    assert_eq!(first.header("idempotent-replayed"), None);
    let again = post(&c, &team, Some(&key), bad, &[]);
    assert_eq!((again.status, again.header("idempotent-replayed"), again.body.as_str()), (422, Some("true"), first.body.as_str()));
    let fixed = post(&c, &team, Some(&key), r#"{"channel":"C1","text":"x"}"#, &[]);
    assert_eq!(fixed.json()["error"], "idempotency_key_mismatch", "the key keeps its first (deterministic) answer");
    assert!(c.all_rows(&team).is_empty(), "nothing was queued");
    let not_json = post(&c, &team, Some(&unique("nj-")), "{oops", &[]);
    assert_eq!((not_json.status, not_json.json()["field"].as_str()), (422, Some("body")));
}

#[test]
fn a_post_not_recorded_within_the_budget_is_not_cached_as_a_failure() {
    let s = shared();
    let c = s.client();
    let (team, channel, key) = (unique("T"), unique("C"), unique("slow-"));
    let body = json!({"channel": channel, "text": "slow"}).to_string();
    let slow = post(&c, &team, Some(&key), &body, &[("x-slackline-test-actor-delay-ms", "2600")]);
    assert_eq!(slow.status, 500, "not confirmed within ACK_BUDGET_MS: {}", slow.body);
    let retry = eventually("the retry answered 202", WAIT, || Some(post(&c, &team, Some(&key), &body, &[])).filter(|a| a.status == 202));
    let id = retry.json()["id"].as_i64().unwrap();
    wait_done(&c, &team, id);
    assert_eq!(s.fake.calls("chat.postMessage", &channel).len(), 1, "posted once");
    assert_eq!(c.all_rows(&team).len(), 1);
}

#[test]
fn an_expired_key_is_gone_and_the_same_request_makes_a_new_message() {
    let s = shared();
    let c = s.client();
    let (team, channel, key) = (unique("T"), unique("C"), unique("ttl-"));
    let body = json!({"channel": channel, "text": "daily report"}).to_string();
    let first = post(&c, &team, Some(&key), &body, &[]);
    assert_eq!(first.status, 202);
    let later = (support::slack::now_secs() + 25 * 3600) * 1000;
    let second = post(&c, &team, Some(&key), &body, &[("x-slackline-test-now", &later.to_string())]);
    assert_eq!((second.status, second.header("idempotent-replayed")), (202, None), "{}", second.body);
    assert_ne!(second.json()["id"], first.json()["id"], "a new row");
    s.fake.wait_calls("chat.postMessage", &channel, 2, WAIT);
}

#[test]
fn status_versions_in_any_order_end_on_the_newest_with_one_post() {
    let s = shared();
    let c = s.client();
    let (team, channel, name) = (unique("T"), unique("C"), unique("deploy-"));
    let slow = || Reply::Delay(Duration::from_millis(150), Box::new(Reply::Ok));
    s.fake.script("chat.postMessage", &channel, vec![slow()]);
    s.fake.script("chat.update", &channel, (0..20).map(|_| slow()).collect());
    let mut versions: Vec<i64> = (1..=20).collect();
    // A fixed shuffle with 20 neither first nor last.
    versions.sort_by_key(|v| (v * 7919) % 23);
    let status_path = format!("/api/teams/{team}/status/{name}");
    let answers: Vec<Value> = std::thread::scope(|scope| {
        let handles: Vec<_> = versions
            .chunks(5)
            .map(|chunk| {
                let (c, path, channel) = (c.clone(), status_path.clone(), channel.clone());
                let chunk = chunk.to_vec();
                scope.spawn(move || {
                    chunk
                        .into_iter()
                        .map(|v| {
                            let a = c.api("PUT", &path, Some(&json!({"channel": channel, "text": format!("deploy at v{v}"), "version": v})));
                            assert_eq!(a.status, 200, "{}", a.body);
                            a.json()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    assert!(answers.iter().any(|a| a["stale"] == true), "some PUTs arrived after a newer version");
    let done = eventually("Slack shows version 20", WAIT, || Some(c.api("GET", &status_path, None).json()).filter(|v| v["posted_version"] == 20));
    assert_eq!(done["version"], 20);
    let posts = s.fake.calls("chat.postMessage", &channel);
    assert_eq!(posts.len(), 1, "one message per status name");
    let updates = s.fake.calls("chat.update", &channel);
    let last = updates.last().map(|u| u.field("text").unwrap().to_string()).unwrap_or_else(|| posts[0].field("text").unwrap().to_string());
    assert_eq!(last, "deploy at v20", "the last state Slack received is the newest");
    for u in &updates {
        assert_eq!(u.field("ts"), done["ts"].as_str(), "updates edit the posted message");
    }
    let stale = c.api("PUT", &status_path, Some(&json!({"channel": channel, "text": "deploy at v5", "version": 5}))).json();
    assert_eq!((stale["stale"].as_bool(), stale["version"].as_i64()), (Some(true), Some(20)));
    let calls = s.fake.calls("chat.update", &channel).len() + s.fake.calls("chat.postMessage", &channel).len();
    assert_eq!(c.rows(&team, "pending").len(), 0, "a stale PUT queues nothing");
    assert_eq!(calls, posts.len() + updates.len());
}

#[test]
fn ten_wrong_tokens_in_a_minute_lock_a_client_out_and_not_another() {
    let s = shared();
    let c = s.client();
    let (bad_ip, good_ip) = (unique("ip-"), unique("ip-"));
    let path = format!("/api/teams/{}/status/none", unique("T"));
    let as_ip = |ip: &str, token: &str| c.api_as_from("GET", &path, Some(token), ip);
    for i in 0..10 {
        assert_eq!(as_ip(&bad_ip, "wrong").status, 401, "attempt {i}");
    }
    let locked = as_ip(&bad_ip, "wrong");
    assert_eq!(locked.status, 429, "{}", locked.body);
    let wait: i64 = locked.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&wait), "Retry-After {wait}");
    assert_eq!(as_ip(&bad_ip, API_TOKEN).status, 429, "locked whatever the token");
    assert_eq!(as_ip(&good_ip, API_TOKEN).status, 404, "another client gets in (no such status: past the token check)");
    // The admin login form counts too.
    let login_ip = unique("ip-");
    for _ in 0..10 {
        let a = c.post_raw("/admin/login", &[("content-type", "application/x-www-form-urlencoded"), ("x-slackline-test-client-ip", &login_ip)], b"token=nope");
        assert_eq!(a.status, 401);
    }
    let a = c.post_raw("/admin/login", &[("content-type", "application/x-www-form-urlencoded"), ("x-slackline-test-client-ip", &login_ip)], b"token=nope");
    assert_eq!(a.status, 429);
}

#[test]
fn the_teams_listing_is_paged_by_key() {
    let s = shared();
    let c = s.client();
    let prefix = unique("TP");
    let ours: Vec<String> = (0..3).map(|i| format!("{prefix}{i}")).collect();
    for team in &ours {
        assert_eq!(c.event(&envelope(team, &unique("Ev"), mention(&unique("C"), "1.1", "hi"))).status, 200);
    }
    let listed = eventually("our teams in the directory", WAIT, || {
        let (mut all, mut after) = (Vec::new(), String::new());
        loop {
            let page = c.admin_get(&format!("/admin/teams?limit=2&after={after}")).json();
            let teams: Vec<String> = page["teams"].as_array()?.iter().map(|t| t["team_key"].as_str().unwrap().to_string()).collect();
            assert!(teams.len() <= 2);
            all.extend(teams);
            match page["next_after"].as_str() {
                Some(next) => after = next.to_string(),
                None => break,
            }
        }
        ours.iter().all(|t| all.contains(t)).then_some(all)
    });
    let unique_keys: BTreeSet<&String> = listed.iter().collect();
    assert_eq!(unique_keys.len(), listed.len(), "no team twice across pages");
    assert!(listed.windows(2).all(|w| w[0] < w[1]), "ordered by key");
    assert_eq!(c.admin_get("/admin/teams?limit=0").status, 400);
}

/// The runtime is killed after the 202 and before the delivery (Slack's first answer was a 429,
/// so the row waits; the kill may come before that attempt's completion is stored, and then its
/// claim's lease, 2 s here, runs out): the message is posted after the restart, once, and a retry
/// with the same key gets the stored answer.
#[test]
fn a_message_acknowledged_before_a_kill_is_posted_after_the_restart_and_a_retry_is_replayed() {
    let fake = FakeSlack::start();
    let mut rt = Runtime::start(Settings::new("notify-kill", &fake).var("LEASE_MS", "2000").var("ATTEMPT_TIMEOUT_MS", "1000"));
    let c = rt.client();
    let (team, channel, key) = (unique("T"), unique("C"), unique("kill-"));
    fake.script("chat.postMessage", &channel, vec![Reply::RateLimited(4)]);
    let body = json!({"channel": channel, "text": "survives"}).to_string();
    let first = post(&c, &team, Some(&key), &body, &[]);
    assert_eq!(first.status, 202);
    fake.wait_calls("chat.postMessage", &channel, 1, WAIT);
    rt.kill();
    rt.restart();
    let c = rt.client();
    let id = first.json()["id"].as_i64().unwrap();
    let done = wait_done(&c, &team, id);
    assert!(done["ts"].is_string());
    let retry = post(&c, &team, Some(&key), &body, &[]);
    assert_eq!((retry.status, retry.header("idempotent-replayed"), retry.body.as_str()), (202, Some("true"), first.body.as_str()));
    assert_eq!(fake.calls("chat.postMessage", &channel).len(), 2, "the refused attempt and the post");
    assert_eq!(c.all_rows(&team).len(), 1);
}

#[test]
fn messages_in_flight_at_a_kill_are_found_by_one_read_of_their_channel_and_posted_once() {
    let fake = FakeSlack::start();
    let mut rt = Runtime::start(Settings::new("notify-readback", &fake).var("LEASE_MS", "2500").var("ATTEMPT_TIMEOUT_MS", "2000"));
    let c = rt.client();
    let (team, channel) = (unique("T"), unique("C"));
    // Slack takes each post and answers a second later: the runtime dies before it hears back.
    fake.script_with("chat.postMessage", &channel, Box::new(|_| Reply::Delay(Duration::from_secs(1), Box::new(Reply::Ok))));
    let ids: Vec<i64> = (0..5)
        .map(|i| {
            let a = post(&c, &team, Some(&unique("rb-")), &json!({"channel": channel, "text": format!("message {i}")}).to_string(), &[]);
            assert_eq!(a.status, 202, "{}", a.body);
            a.json()["id"].as_i64().unwrap()
        })
        .collect();
    let in_flight = || fake.calls("chat.postMessage", &channel).iter().filter(|call| call.answer.is_none()).count();
    eventually("posts in flight", WAIT, || (in_flight() >= 3).then_some(()));
    rt.kill();
    rt.restart();
    let c = rt.client();
    let done: Vec<Value> = ids.iter().map(|id| wait_done(&c, &team, *id)).collect();
    let posts = fake.posts_in(&channel);
    assert_eq!(posts.len(), 5, "each message posted once: {posts:?}");
    let posted: BTreeSet<&str> = posts.iter().map(|p| p.ts.as_str()).collect();
    assert!(done.iter().all(|m| posted.contains(m["ts"].as_str().unwrap_or(""))), "each message keeps its post's ts: {done:?}");
    let found = rt.log_lines().iter().filter(|l| l["kind"] == "read_back" && l["outcome"] == "found").count();
    let reads = fake.calls("conversations.history", &channel);
    assert!(found >= 3, "the posts in flight were found, not sent again ({found})");
    assert!(reads.len() < found, "one read of the channel answers its uncertain rows together: {} reads for {found} found", reads.len());
    assert!(reads.iter().all(|r| r.args.get("include_all_metadata") == Some(&json!(true))));
}
