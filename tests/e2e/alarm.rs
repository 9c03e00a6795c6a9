//! The alarm invariant in workerd: while a row is due, the team's stored alarm is set at or before
//! its due time, whatever the interleaving (issue 33). One test forces the interleaving that
//! stranded acked rows — the alarm an ingest set fires, sweeps and re-arms the housekeeping wake
//! before the ingest's `setAlarm` await has returned (`x-slackline-test-arm-hold-ms`) — and shows
//! the next event delivered at once; another breaks the invariant on purpose
//! (`x-slackline-test-skip-arm`) and shows the safety net finding, re-arming and counting it.

use crate::support;

use std::time::{Duration, Instant};
use support::slack::{envelope, mention};
use support::{eventually, shared, unique};

/// Far less than the housekeeping wake a stranded row would wait for (a day).
const PROMPTLY: Duration = Duration::from_secs(15);

#[test]
fn an_event_after_an_alarm_fired_inside_the_ingests_await_is_delivered_at_once() {
    let s = shared();
    let c = s.client();
    let (team, channel) = (unique("T"), unique("C"));
    let first = envelope(&team, &unique("Ev"), mention(&channel, "1.5", "first"));
    // The ingest's continuation after setAlarm is held until the alarm it set has fired, swept
    // and re-armed (at most 1.5 s, inside the ack budget).
    let a = c.event_delivery(&first.to_string(), None, &[("x-slackline-test-arm-hold-ms", "1500")]);
    let acked = Instant::now();
    assert_eq!(a.status, 200, "{}", a.body);
    let posted = s.fake.calls("chat.postMessage", &channel);
    assert_eq!(posted.len(), 1, "the first reply went out while its ingest was held: the interleaving was forced");
    assert!(posted[0].at < acked);

    let second = c.event(&envelope(&team, &unique("Ev"), mention(&channel, "2.5", "second")));
    assert_eq!(second.status, 200, "{}", second.body);
    s.fake.wait_calls("chat.postMessage", &channel, 2, PROMPTLY);
    let stats = eventually("nothing pending", PROMPTLY, || Some(c.stats(&team)).filter(|s| s["pending"] == 0));
    assert!(stats["alarm_missing"].is_null(), "delivered by its own alarm, not by the safety net: {stats}");
}

#[test]
fn rows_left_without_an_alarm_are_found_by_the_next_request_rearmed_and_counted() {
    let s = shared();
    let c = s.client();
    let (team, channel) = (unique("T"), unique("C"));
    let event = envelope(&team, &unique("Ev"), mention(&channel, "3.5", "stranded"));
    let a = c.event_delivery(&event.to_string(), None, &[("x-slackline-test-skip-arm", "1")]);
    assert_eq!(a.status, 200, "{}", a.body);
    // Nothing may touch this team's actor until the net's grace (5 s) has passed: its row waits
    // with no alarm, so the fake sees no reply however long it waits.
    let stranded_since = Instant::now();
    std::thread::sleep(Duration::from_millis(5_500));
    assert!(s.fake.calls("chat.postMessage", &channel).is_empty(), "no alarm was set: nothing swept the row");

    let stats = c.stats(&team);
    let found = &stats["alarm_missing"];
    assert_eq!(found["count"], 1, "{stats}");
    assert!(found["last_at"].as_i64().unwrap() - found["last_due_at"].as_i64().unwrap() >= 5_000, "{found}");
    s.fake.wait_calls("chat.postMessage", &channel, 1, PROMPTLY);
    assert!(stranded_since.elapsed() < PROMPTLY + Duration::from_secs(6));
    let line = eventually("the alarm_missing line", PROMPTLY, || {
        s.runtime.log_lines().into_iter().find(|l| l["kind"] == "alarm_missing" && l["team"] == team.as_str())
    });
    assert_eq!(line["alert"], "alarm_missing");
    assert!(line["waited_ms"].as_i64().unwrap() >= 5_000, "{line}");
    assert_eq!(c.stats(&team)["alarm_missing"]["count"], 1, "found once: the re-armed alarm swept the row");
}
