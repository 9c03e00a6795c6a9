//! The foundation, end to end in workerd: the health check, the whole path from a request to the
//! team actor's SQLite to its alarm to a call on the fake Slack, and the harness's promises (a
//! second runtime beside the first, kill and restart on the same state, no process left behind).

use crate::support;

use serde_json::json;
use std::time::Duration;
use support::slack::{envelope, mention};
use support::{eventually, shared, unique, FakeSlack, Reply, Runtime, Settings, BOT_TOKEN};

#[test]
fn healthz_answers_with_a_small_json_body() {
    let a = shared().client().get("/healthz");
    assert_eq!(a.status, 200);
    assert_eq!(a.json()["ok"], true);
    assert_eq!(a.json()["service"], "slackline");
}

#[test]
fn an_unknown_route_is_404() {
    assert_eq!(shared().client().get("/nope").status, 404);
}

#[test]
fn a_mention_goes_from_the_request_to_the_actors_sqlite_to_the_alarm_to_slack() {
    let s = shared();
    let (team, channel) = (unique("T"), unique("C"));
    let a = s.client().event(&envelope(&team, &unique("Ev"), mention(&channel, "100.1", "ping")));
    assert_eq!(a.status, 200, "{}", a.body);
    // The alarm delivers it: one chat.postMessage with our fallback token, in the thread.
    let calls = s.fake.wait_calls("chat.postMessage", &channel, 1, Duration::from_secs(20));
    assert_eq!(calls[0].header("authorization"), Some(format!("Bearer {BOT_TOKEN}").as_str()));
    assert_eq!(calls[0].field("thread_ts"), Some("100.1"));
    // And the actor's SQLite recorded both the receipt and the delivered row.
    let c = s.client();
    eventually("the row is done", Duration::from_secs(10), || (c.rows(&team, "done").len() == 1).then_some(()));
    assert_eq!(c.receipts(&team), 1);
    assert_eq!(c.stats(&team)["team"], team);
}

fn group_is_gone(pgid: i32) -> bool {
    unsafe { libc::kill(-pgid, 0) != 0 }
}

#[test]
fn a_second_runtime_runs_beside_the_first_and_state_survives_a_kill() {
    let fake = FakeSlack::start();
    // A short lease: a delivery cut off by the kill is claimed again within seconds.
    let settings = Settings::new("restart", &fake).var("LEASE_MS", "3000").var("ATTEMPT_TIMEOUT_MS", "1000").var("BATCH_SIZE", "2");
    let mut own = Runtime::start(settings);
    assert_ne!(own.port, shared().runtime.port);
    assert_eq!(own.client().get("/healthz").status, 200);
    assert_eq!(shared().client().get("/healthz").status, 200);

    // A mention whose delivery keeps failing, so its row is pending when we pull the plug.
    let (team, channel) = (unique("T"), unique("C"));
    fake.script("chat.postMessage", &channel, vec![Reply::Status(503), Reply::Status(503)]);
    let a = own.client().event(&envelope(&team, &unique("Ev"), mention(&channel, "7.7", "survive")));
    assert_eq!(a.status, 200);
    fake.wait_calls("chat.postMessage", &channel, 1, Duration::from_secs(20));

    let pgid = own.process_group().unwrap();
    own.kill();
    assert!(eventually("the killed group is gone", Duration::from_secs(10), || group_is_gone(pgid).then_some(true)));

    own.restart();
    // After the restart, with no new request, the persisted row and alarm deliver it.
    eventually("the row is delivered after the restart", Duration::from_secs(30), || (own.client().rows(&team, "done").len() == 1).then_some(()));
    assert_eq!(own.client().receipts(&team), 1);
}

/// Run only by `a_test_that_panics_leaves_no_runtime_behind`, in a child process.
#[test]
#[ignore = "started by another test in a child process"]
fn child_starts_a_runtime_and_panics() {
    let fake = FakeSlack::start();
    let runtime = Runtime::start(Settings::new("panics", &fake));
    let out = std::env::var("SLACKLINE_PGID_FILE").expect("set by the parent test");
    std::fs::write(out, runtime.process_group().unwrap().to_string()).unwrap();
    std::mem::forget(runtime); // not even Drop runs: only the watchdog can clean up
    panic!("on purpose");
}

#[test]
fn a_test_that_panics_leaves_no_runtime_behind() {
    let pgid_file = std::env::temp_dir().join(format!("{}.pgid", unique("slackline")));
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "foundation::child_starts_a_runtime_and_panics", "--nocapture"])
        .env("SLACKLINE_PGID_FILE", &pgid_file)
        .output()
        .unwrap();
    assert!(!status.status.success(), "the child test should have panicked");
    let pgid: i32 = std::fs::read_to_string(&pgid_file).unwrap().trim().parse().unwrap();
    let gone = eventually("the panicked test's runtime is gone", Duration::from_secs(15), || group_is_gone(pgid).then_some(true));
    assert!(gone);
    let _ = std::fs::remove_file(pgid_file);
}

#[test]
fn the_admin_api_needs_the_token() {
    let c = shared().client();
    let team = unique("T");
    assert_eq!(c.get(&format!("/admin/teams/{team}/stats")).status, 401);
    let wrong = c.post_raw(&format!("/admin/teams/{team}/sweep"), &[("authorization", "Bearer nope")], b"");
    assert_eq!(wrong.status, 401);
    assert_eq!(c.admin_get(&format!("/admin/teams/{team}/stats")).status, 200);
    let _ = json!(null);
}
