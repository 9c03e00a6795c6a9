//! Two releases side by side, as during a deploy (docs/operations.md): the front door of one build
//! with the actors of another, two Workers in one workerd, the actor classes bound by
//! `script_name` (`support::runtime::Pair`). The builds: this tree's, the previous release's
//! (`tests/fixtures/releases/7014e39`, its actors read routes from a header only), an older one's
//! (`c4ce726`, whose front door and actors know routes only as the path), and this tree
//! playing the next release (`TEST_WIRE_NEXT=1`: a newer wire version, fields this release never
//! wrote, an event in a shape it does not know, a route it does not have). Each pair, both ways:
//! Slack's events are acked and answered, the notify, status and Lists APIs and the admin API
//! answer as in one release — never a 404 for a route both releases have — and what one side
//! cannot read is a 503 that a retry heals. Across a switch of releases under traffic, every
//! acknowledged event and every accepted notify message is delivered.

use crate::support;

use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::runtime::{earlier_release, this_release, Pair, Side};
use support::slack::{envelope, mention, Answer};
use support::{eventually, unique, Client, FakeSlack, Runtime, Settings};

const WAIT: Duration = Duration::from_secs(30);
/// The release before this one (the newest release fixture).
const PREVIOUS: &str = "7014e39";
/// A release from before the route header (c4ce726: its front door sends a route as the path,
/// its actors read only that): a deploy that skips releases meets it.
const PATH_ERA: &str = "c4ce726";

fn previous() -> Side {
    Side::of(earlier_release(PREVIOUS))
}

fn path_era() -> Side {
    Side::of(earlier_release(PATH_ERA))
}

fn this() -> Side {
    Side::of(this_release())
}

fn next() -> Side {
    Side::of(this_release()).var("TEST_WIRE_NEXT", "1")
}

fn pair(name: &str, fake: &FakeSlack, front: Side, actors: Side) -> Runtime {
    Runtime::start(Settings::new(name, fake).pair(Pair { front, actors }))
}

/// A mention is acked and answered in its thread.
fn a_mention_is_answered(c: &Client, fake: &FakeSlack) {
    let (team, channel) = (unique("T"), unique("C"));
    let acked = c.event(&envelope(&team, &unique("Ev"), mention(&channel, "100.1", "hello across releases")));
    assert_eq!(acked.status, 200, "{}", acked.body);
    let replies = fake.wait_calls("chat.postMessage", &channel, 1, WAIT);
    assert_eq!(replies[0].field("thread_ts"), Some("100.1"));
}

/// Which routes both releases of a pair have.
#[derive(Clone, Copy, PartialEq)]
enum Routes {
    /// Every route this release has.
    All,
    /// Those of c4ce726, which had no scheduled effects (`GET …/scheduled`).
    BeforeSchedules,
}

/// Every API and admin route both releases have answers as it does in one release.
fn the_apis_answer(c: &Client, fake: &FakeSlack, both_have: Routes) {
    let (team, channel) = (unique("T"), unique("C"));
    let key = unique("k-");
    let posted = c.api_with(
        "POST",
        &format!("/api/teams/{team}/messages"),
        &[("idempotency-key", &key)],
        Some(&json!({"channel": channel, "text": "deployed"}).to_string()),
    );
    assert_eq!(posted.status, 202, "notify POST: {}", posted.body);
    let id = posted.json()["id"].as_i64().expect("a message id");
    fake.wait_calls("chat.postMessage", &channel, 1, WAIT);
    let message = eventually("the message done", WAIT, || {
        let a = c.api("GET", &format!("/api/teams/{team}/messages/{id}"), None);
        assert_eq!(a.status, 200, "GET message: {}", a.body);
        Some(a.json()).filter(|m| m["status"] == "done")
    });
    assert_eq!(message["key"].as_str(), Some(key.as_str()));
    let status = c.api("PUT", &format!("/api/teams/{team}/status/deploy"), Some(&json!({"channel": channel, "text": "deploying", "version": 1})));
    assert!(status.status < 300, "PUT status: {} {}", status.status, status.body);
    assert_eq!(c.api("GET", &format!("/api/teams/{team}/status/deploy"), None).status, 200, "GET status");
    let list = unique("F");
    let map = json!({"key_column": "ColK", "columns": {"title": {"column_id": "ColT", "type": "text"}}});
    let put = c.api("PUT", &format!("/api/teams/{team}/lists/{list}"), Some(&map));
    assert_eq!(put.status, 200, "PUT column map: {}", put.body);
    assert_eq!(c.api("GET", &format!("/api/teams/{team}/lists/{list}"), None).status, 200, "GET column map");
    let stats = c.admin_get(&format!("/admin/teams/{team}/stats"));
    assert_eq!(stats.status, 200, "admin stats: {}", stats.body);
    assert_eq!(stats.json()["team"].as_str(), Some(team.as_str()));
    assert_eq!(c.admin_get(&format!("/admin/teams/{team}/outbox?status=done")).status, 200, "admin outbox");
    assert_eq!(c.admin_get(&format!("/admin/teams/{team}/outbox/{}", i64::MAX)).status, 404, "a row that does not exist is still a 404");
    if both_have == Routes::All {
        assert_eq!(c.admin_get(&format!("/admin/teams/{team}/scheduled")).status, 200, "admin scheduled");
    }
}

#[test]
fn this_front_door_with_the_previous_releases_actors() {
    let fake = FakeSlack::start();
    let rt = pair("front-this-actors-prev", &fake, this(), previous());
    let c = rt.client();
    a_mention_is_answered(&c, &fake);
    the_apis_answer(&c, &fake, Routes::All);
}

#[test]
fn the_previous_front_door_with_this_releases_actors() {
    let fake = FakeSlack::start();
    let rt = pair("front-prev-actors-this", &fake, previous(), this());
    let c = rt.client();
    a_mention_is_answered(&c, &fake);
    the_apis_answer(&c, &fake, Routes::All);
}

#[test]
fn this_front_door_with_actors_that_read_routes_from_the_path() {
    let fake = FakeSlack::start();
    let rt = pair("front-this-actors-path-era", &fake, this(), path_era());
    let c = rt.client();
    a_mention_is_answered(&c, &fake);
    the_apis_answer(&c, &fake, Routes::BeforeSchedules);
}

#[test]
fn a_front_door_that_sends_routes_as_the_path_with_this_releases_actors() {
    let fake = FakeSlack::start();
    let rt = pair("front-path-era-actors-this", &fake, path_era(), this());
    let c = rt.client();
    a_mention_is_answered(&c, &fake);
    the_apis_answer(&c, &fake, Routes::BeforeSchedules);
}

#[test]
fn the_next_releases_front_door_with_this_releases_actors() {
    let fake = FakeSlack::start();
    let mut rt = pair("front-next-actors-this", &fake, next(), this());
    let c = rt.client();
    a_mention_is_answered(&c, &fake);
    the_apis_answer(&c, &fake, Routes::All);
    // An event the next release sends in a shape of its own is recorded here as one this release
    // does not act on: acked, one receipt, nothing queued.
    let team = unique("T");
    let stopped = json!({"type": "agent_session_stopped", "channel": "D1", "thread_ts": "5.5", "streaming_message_ts": ["5.6"], "user": "U1"});
    let acked = c.event(&envelope(&team, &unique("Ev"), stopped));
    assert_eq!(acked.status, 200, "{}", acked.body);
    assert_eq!(c.receipts(&team), 1);
    assert_eq!(c.stats(&team)["pending"], 0);
    // A route only the next release has is a release mismatch here: 503, retry later...
    let route = format!("/api/teams/{team}/next-release");
    let refused = c.api("POST", &route, None);
    assert_eq!(refused.status, 503, "{}", refused.body);
    assert_eq!(refused.json()["error"], "release_mismatch");
    assert_eq!(refused.header("retry-after"), Some("5"));
    // ...and the retry after the actors' update is served.
    rt.redeploy(|s| s.pair(Pair { front: next(), actors: next() }));
    let served = rt.client().api("POST", &route, None);
    assert_eq!(served.status, 200, "{}", served.body);
    assert_eq!(served.json()["served_by"], "next_release");
}

#[test]
fn this_front_door_with_the_next_releases_actors() {
    let fake = FakeSlack::start();
    let rt = pair("front-this-actors-next", &fake, this(), next());
    let c = rt.client();
    a_mention_is_answered(&c, &fake);
    the_apis_answer(&c, &fake, Routes::All);
}

/// Slack's way of sending an event: again until a 200 (errors and 5xx included), within a deadline.
fn deliver_like_slack(base: &Mutex<String>, event: &Value) -> bool {
    let deadline = Instant::now() + Duration::from_secs(120);
    while Instant::now() < deadline {
        let c = Client::lenient(&base.lock().unwrap());
        if c.event(event).status == 200 {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

/// A notify client as docs/api.md tells it to behave: the same key again on a 5xx, a 429 or no
/// answer; anything else is the answer. Returns it.
fn notify_like_a_client(base: &Mutex<String>, team: &str, key: &str, body: &str) -> Answer {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let c = Client::lenient(&base.lock().unwrap());
        let a = c.api_with("POST", &format!("/api/teams/{team}/messages"), &[("idempotency-key", key)], Some(body));
        let retry = a.status == 0 || a.status == 429 || a.status >= 500;
        if !retry || Instant::now() > deadline {
            return a;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_deploy_and_its_rollback_under_traffic_lose_nothing_and_answer_no_route_404() {
    let fake = FakeSlack::start();
    // Each switch replaces the runtime; a row in flight at that moment waits out its lease, as in
    // production. A short lease keeps that wait within the test's (the attempt timeout below it).
    let settings = Settings::new("switch", &fake).var("LEASE_MS", "5000").var("ATTEMPT_TIMEOUT_MS", "2000");
    let mut rt = Runtime::start(settings.pair(Pair { front: previous(), actors: previous() }));
    let base = Arc::new(Mutex::new(rt.base_url()));
    let (team, channel) = (unique("T"), unique("C"));
    let stop = Arc::new(AtomicBool::new(false));
    let (acked, accepted, refused) = (Arc::new(Mutex::new(Vec::new())), Arc::new(Mutex::new(Vec::new())), Arc::new(Mutex::new(Vec::new())));
    let count = |acked: &Mutex<Vec<String>>| acked.lock().unwrap().len();
    let events = {
        let (base, stop, acked, team, channel) = (base.clone(), stop.clone(), acked.clone(), team.clone(), channel.clone());
        std::thread::spawn(move || {
            let mut i = 0;
            while !stop.load(Ordering::SeqCst) {
                i += 1;
                let ts = format!("{}.{i:04}", 2000 + i);
                let event = envelope(&team, &unique("Ev"), mention(&channel, &ts, "across the switch"));
                assert!(deliver_like_slack(&base, &event), "event {i} acked within Slack's retries");
                acked.lock().unwrap().push(ts);
            }
        })
    };
    let notifies = {
        let (base, stop, accepted, refused, team) = (base.clone(), stop.clone(), accepted.clone(), refused.clone(), team.clone());
        std::thread::spawn(move || {
            let mut i = 0;
            while !stop.load(Ordering::SeqCst) {
                i += 1;
                let channel = format!("CN{i:05}");
                let a = notify_like_a_client(&base, &team, &format!("switch-{i}"), &json!({"channel": channel, "text": "n"}).to_string());
                match a.status {
                    202 => accepted.lock().unwrap().push(channel),
                    _ => refused.lock().unwrap().push(format!("{} {}", a.status, a.body)),
                }
            }
        })
    };
    let admin = {
        let (base, stop, refused, team) = (base.clone(), stop.clone(), refused.clone(), team.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                let a = Client::lenient(&base.lock().unwrap()).admin_get(&format!("/admin/teams/{team}/stats"));
                if (400..500).contains(&a.status) {
                    refused.lock().unwrap().push(format!("admin stats {} {}", a.status, a.body));
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };
    // The deploy (the Worker first, the actors deferred), then a rollback of the Worker while the
    // actors run the new code (a gradual deployment's other half), then the new release again.
    let steps = [
        ("the previous release", previous(), previous()),
        ("Worker updated", this(), previous()),
        ("actors updated", this(), this()),
        ("Worker rolled back", previous(), this()),
        ("deployed again", this(), this()),
    ];
    for (what, front, actors) in steps.into_iter().skip(1) {
        let before = count(&acked);
        eventually(&format!("traffic before: {what}"), WAIT, || (count(&acked) >= before + 10).then_some(()));
        rt.redeploy(|s| s.pair(Pair { front, actors }));
        *base.lock().unwrap() = rt.base_url();
    }
    let before = count(&acked);
    eventually("traffic after the last step", WAIT, || (count(&acked) >= before + 10).then_some(()));
    stop.store(true, Ordering::SeqCst);
    for t in [events, notifies, admin] {
        t.join().unwrap();
    }
    let refused = refused.lock().unwrap().clone();
    assert!(refused.is_empty(), "answers a client does not retry: {refused:?}");
    let acked = acked.lock().unwrap().clone();
    let answered = |ts: &String| fake.calls("chat.postMessage", &channel).iter().any(|c| c.field("thread_ts") == Some(ts.as_str()));
    eventually("every acked event answered", Duration::from_secs(60), || acked.iter().all(answered).then_some(()));
    let replies = fake.calls("chat.postMessage", &channel).len();
    let accepted = accepted.lock().unwrap().clone();
    for channel in &accepted {
        fake.wait_calls("chat.postMessage", channel, 1, Duration::from_secs(60));
    }
    eprintln!("release switch: {} events acked, {replies} replies; {} notify messages accepted and delivered", acked.len(), accepted.len());
    assert!(acked.len() >= 50 && !accepted.is_empty(), "traffic flowed: {} events, {} messages", acked.len(), accepted.len());
}
