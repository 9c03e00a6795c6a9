//! A handler that fails never loses its event: the request is recorded (receipt, 200) and kept as a
//! parked `handler_failed` row with the handler's error; Slack's retry adds nothing; a redrive runs
//! the (fixed) handler again and its effects are delivered. The failure is made by the test hook
//! `x-slackline-test-handler-fails` (`ALLOW_TEST_CLOCK` only), on the shipped app; a handler that
//! panics is made by `TEST_PANIC_MARKER` (src/runtime/test_hooks.rs), and caught
//! (src/app/guard.rs) without resetting the Wasm instance.

use crate::support::slack::{envelope, mention, Client};
use crate::support::{eventually, shared, unique, FakeSlack, Runtime, Settings};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(30);

#[test]
fn a_failed_handler_is_recorded_parked_with_its_error_and_redriven_once_fixed() {
    let s = shared();
    let c = s.client();
    let (team, channel) = (unique("T"), unique("C"));
    let body = envelope(&team, &unique("Ev"), mention(&channel, "7.1", "please fail")).to_string();
    let send = |retry: Option<&str>| c.event_delivery(&body, retry, &[("x-slackline-test-handler-fails", "boom: index out of bounds")]);
    let first = send(None);
    assert_eq!(first.status, 200, "{}", first.body);
    // Slack's retries of the same event add nothing.
    assert_eq!(send(Some("1")).status, 200);
    assert_eq!(c.receipts(&team), 1);
    let parked = c.rows(&team, "parked");
    assert_eq!(parked.len(), 1, "{parked:?}");
    let row = &parked[0];
    assert_eq!((row["reason"].as_str(), row["last_error"].as_str()), (Some("handler_failed"), Some("boom: index out of bounds")));
    assert_eq!(row["effect"], "handler");
    assert!(row["payload"].as_str().unwrap().contains("please fail"), "the request is kept: {row}");
    assert!(c.rows(&team, "pending").is_empty() && s.fake.calls("chat.postMessage", &channel).is_empty(), "nothing was performed");
    let line = eventually("the request line's alert", WAIT, || {
        s.runtime.log_lines().into_iter().find(|l| l["kind"] == "request" && l["team"] == team.as_str() && l["alert"] == "handler_failed")
    });
    assert_eq!(line["reason"], "handler_failed");
    let page = c.get_with(&format!("/admin/teams/{team}"), &[("authorization", &format!("Bearer {}", crate::support::ADMIN_TOKEN))]);
    assert!(page.body.contains("handler_failed") && page.body.contains("runs again when redriven"), "the dead-letter page shows it: {}", page.body);

    // "Fixed" (the hook is only on the original request): the redrive runs the handler again.
    let redrive = c.admin_post(&format!("/admin/teams/{team}/outbox/{}/redrive", row["id"]));
    assert_eq!(redrive.status, 200, "{}", redrive.body);
    let posts = s.fake.wait_calls("chat.postMessage", &channel, 1, WAIT);
    assert_eq!(posts[0].field("thread_ts"), Some("7.1"));
    assert!(posts[0].field("text").unwrap().contains("please fail"));
    let done = eventually("the handler row and its reply done", WAIT, || {
        let done = c.rows(&team, "done");
        (done.len() == 2).then_some(done)
    });
    assert!(done.iter().any(|r| r["idem_key"] == format!("msg:{channel}:7.1:reply").as_str()), "the reply has the key the handler gives it: {done:?}");
    // The row is done: a second redrive is refused, so nothing is queued or posted again.
    assert_eq!(c.admin_post(&format!("/admin/teams/{team}/outbox/{}/redrive", row["id"])).status, 409);
    assert!(c.rows(&team, "pending").is_empty());
    assert_eq!(s.fake.calls("chat.postMessage", &channel).len(), 1, "posted once");
}

/// A handler that panics (here: on a marker text, `TEST_PANIC_MARKER`, as a bug on one input
/// would) in the middle of a 200-mention load over 10 teams: the marked event and each of
/// Slack's retries get a 200, the event is recorded once and parked as `handler_failed` with the
/// panic's message and location, the Wasm instance is never reset, every other mention is
/// answered exactly once and no team's deliveries stall; after a redeploy without the bug, a
/// redrive answers the marked one too.
#[test]
fn a_handler_that_panics_mid_load_parks_its_event_and_disturbs_nothing_else() {
    const MARKER: &str = "PANIC-ON-THIS";
    let fake = FakeSlack::start();
    let mut rt = Runtime::start(Settings::new("panics", &fake).var("TEST_PANIC_MARKER", MARKER));
    let base = rt.base_url();
    let teams: Vec<String> = (0..10).map(|_| unique("T")).collect();
    let (marked_team, marked_channel) = (teams[3].clone(), unique("C"));
    let marked = envelope(&marked_team, &unique("Ev"), mention(&marked_channel, "9.1", &format!("hello {MARKER}"))).to_string();
    let mentions: Vec<(String, String)> = (0..200).map(|i| (teams[i % teams.len()].clone(), unique("C"))).collect();

    let (statuses, marked_statuses) = std::thread::scope(|scope| {
        let chunks: Vec<_> = mentions
            .chunks(25)
            .map(|chunk| {
                let base = base.clone();
                scope.spawn(move || {
                    let c = Client::new(&base);
                    chunk.iter().map(|(team, channel)| c.event(&envelope(team, &unique("Ev"), mention(channel, "1.1", "hello"))).status).collect::<Vec<_>>()
                })
            })
            .collect();
        // The marked event and Slack's three retries of it, while the load runs.
        let c = Client::new(&base);
        let marked_statuses: Vec<u16> = [None, Some("1"), Some("2"), Some("3")].into_iter().map(|retry| c.event_delivery(&marked, retry, &[]).status).collect();
        let statuses: Vec<u16> = chunks.into_iter().flat_map(|h| h.join().expect("a load thread")).collect();
        (statuses, marked_statuses)
    });
    assert!(statuses.iter().all(|s| *s == 200), "every mention acked: {statuses:?}");
    assert_eq!(marked_statuses, vec![200; 4], "the panicking event and its retries are answered 200");

    let c = rt.client();
    for (team, channel) in &mentions {
        let posts = fake.wait_calls("chat.postMessage", channel, 1, WAIT);
        assert_eq!(posts.len(), 1, "answered once in {channel} ({team})");
    }
    for team in &teams {
        eventually("the team's rows all ended", WAIT, || c.rows(team, "pending").is_empty().then_some(()));
    }
    for (_, channel) in &mentions {
        assert_eq!(fake.calls("chat.postMessage", channel).len(), 1, "never twice in {channel}");
    }
    assert_eq!(c.receipts(&marked_team), 1 + mentions.iter().filter(|(t, _)| *t == marked_team).count() as i64, "recorded once, its retries added nothing");
    let parked = c.rows(&marked_team, "parked");
    assert_eq!(parked.len(), 1, "{parked:?}");
    let row = &parked[0];
    assert_eq!(row["reason"], "handler_failed");
    let why = row["last_error"].as_str().unwrap_or_default();
    assert!(why.starts_with("panicked: TEST_PANIC_MARKER") && why.contains("src/runtime/test_hooks.rs:"), "the panic's message and location: {why}");
    assert!(fake.calls("chat.postMessage", &marked_channel).is_empty(), "nothing performed for the panicking event");
    assert!(!rt.log_text().contains("Reinitializing Wasm application"), "the instance was never reset");

    // The fix is deployed (the marker no longer panics); the redrive answers the event, once.
    rt.redeploy(|s| s.without("TEST_PANIC_MARKER"));
    let c = rt.client();
    assert_eq!(c.admin_post(&format!("/admin/teams/{marked_team}/outbox/{}/redrive", row["id"])).status, 200);
    let answer = fake.wait_calls("chat.postMessage", &marked_channel, 1, WAIT);
    assert_eq!(answer[0].field("thread_ts"), Some("9.1"));
    eventually("the redriven row done", WAIT, || c.rows(&marked_team, "parked").is_empty().then_some(()));
    assert_eq!(fake.calls("chat.postMessage", &marked_channel).len(), 1, "answered once");
}
