//! Schedules that run code end to end, through `examples/digest`: `/ticket open|close` keeps a
//! channel's open tickets in the team's state, and `/digest` schedules a firing
//! (`cx.schedule(key, when).run()`) whose `on_schedule` listener posts the tickets open *when it
//! runs*, inside the team actor. Each test starts a runtime of its own (its settings differ, or
//! it kills the runtime); teams and channels are unique. Time is the runtime's real clock and
//! alarm; a request stamped in the past (`x-slackline-test-now`) makes its first occurrence due
//! then.

use crate::support::slack::{now_ms, post_signed_at};
use crate::support::{eventually, unique, Call, Client, FakeSlack, Runtime, Settings};
use serde_json::Value;
use slackline_sim::client::fresh_trigger_id;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(60);
const MINUTE: i64 = 60_000;

/// A slash command `name` with `text` in `channel` of `team`, signed and stamped at `at` (the
/// test clock), with this `trigger_id` (the same one again is Slack's redelivery).
fn command_at(c: &Client, team: &str, channel: &str, name: &str, text: &str, trigger: &str, at: i64) -> u16 {
    let response_url = format!("https://hooks.slack.test/commands/{trigger}");
    let fields = [
        ("command", name),
        ("text", text),
        ("team_id", team),
        ("channel_id", channel),
        ("user_id", "U1"),
        ("response_url", &response_url),
        ("trigger_id", trigger),
    ];
    post_signed_at(c, "/slack/commands", &form_urlencoded::Serializer::new(String::new()).extend_pairs(fields).finish(), at)
}

/// The same, now, with a fresh `trigger_id`.
fn command(c: &Client, team: &str, channel: &str, name: &str, text: &str) -> u16 {
    command_at(c, team, channel, name, text, &fresh_trigger_id(), now_ms())
}

/// The text of each post in `channel`, in order.
fn posts(fake: &FakeSlack, channel: &str) -> Vec<String> {
    let text = |c: &Call| serde_json::from_str::<Value>(&c.body).ok().and_then(|b| b["text"].as_str().map(str::to_string)).unwrap_or_default();
    fake.calls("chat.postMessage", channel).iter().map(text).collect()
}

/// The delivery lines of the firings of `key`, in order.
fn firing_lines(rt: &Runtime, key: &str) -> Vec<Value> {
    rt.log_lines().into_iter().filter(|l| l["kind"] == "delivery" && l["schedule"].as_str() == Some(key)).collect()
}

/// The digest bot in a runtime of its own, with `vars`.
fn digest(fake: &FakeSlack, vars: &[(&str, &str)]) -> Runtime {
    let settings = vars.iter().fold(Settings::example("digest", fake).var("LOG_DELIVERIES", "failures"), |s, (k, v)| s.var(k, v));
    Runtime::start(settings)
}

#[test]
fn a_firing_posts_the_tickets_open_when_it_runs_and_runs_once_despite_a_redelivered_command() {
    let fake = FakeSlack::start();
    let rt = digest(&fake, &[("DIGEST_EVERY_MINUTES", "1")]);
    let c = rt.client();
    let (team, channel) = (unique("T"), unique("C"));
    assert_eq!(command(&c, &team, &channel, "/ticket", "open printer on fire"), 200);
    // As if `/digest` ran 45 s ago: the first firing is due at once, the second 15 s from now.
    let (trigger, at) = (fresh_trigger_id(), now_ms() - 45_000);
    assert_eq!(command_at(&c, &team, &channel, "/digest", "", &trigger, at), 200);
    assert_eq!(command_at(&c, &team, &channel, "/digest", "", &trigger, at), 200, "Slack's redelivery of the same command");
    let first = eventually("the first digest", WAIT, || posts(&fake, &channel).first().cloned());
    assert_eq!(first, "1 open ticket: printer on fire");
    assert_eq!(command(&c, &team, &channel, "/ticket", "close printer on fire"), 200);
    assert_eq!(command(&c, &team, &channel, "/ticket", "open VPN down"), 200);
    let both = eventually("the second digest", WAIT, || Some(posts(&fake, &channel)).filter(|p| p.len() >= 2));
    assert_eq!(both[1], "1 open ticket: VPN down", "computed when it fired, from the state of then");
    let key = format!("digest:{channel}");
    let lines = eventually("two firings' lines", WAIT, || Some(firing_lines(&rt, &key)).filter(|l| l.len() >= 2));
    let first_due = at / 1000 * 1000;
    assert_eq!((lines[0]["due_at"].as_i64(), lines[0]["effect"].as_str()), (Some(first_due), Some("fire")));
    assert_eq!(lines[1]["due_at"].as_i64(), Some(first_due + MINUTE));
    assert!(lines[1]["waited_ms"].as_i64().unwrap() < 20_000, "the second at its time: {}", lines[1]);
    // The posts are the firings' effects, keyed by each firing; one pending occurrence, not two.
    let keys: Vec<String> = c.all_rows(&team).iter().filter_map(|r| r["idem_key"].as_str().filter(|k| k.starts_with("fire:")).map(str::to_string)).collect();
    assert_eq!(keys.len(), 2, "{keys:?}");
    assert!(keys.contains(&format!("fire:{key}@{first_due}:say")), "{keys:?}");
    assert_eq!(c.scheduled(&team).len(), 1);
    assert_eq!(posts(&fake, &channel).len(), 2, "once per firing");
}

#[test]
fn a_calendar_digest_overdue_for_ten_minutes_runs_once_late_logs_the_nine_missed_and_runs_next_on_the_minute() {
    let fake = FakeSlack::start();
    let rt = digest(&fake, &[("DIGEST_CRON", "* * * * *"), ("DIGEST_ZONE", "Europe/Berlin")]);
    let c = rt.client();
    let (team, channel) = (unique("T"), unique("C"));
    // As if `/digest` ran ten minutes ago and the runtime had been down since: its first minute fell due then.
    let at = now_ms() - 10 * MINUTE + 2_000;
    assert_eq!(command_at(&c, &team, &channel, "/digest", "", &fresh_trigger_id(), at), 200);
    eventually("the late digest", WAIT, || posts(&fake, &channel).first().cloned());
    let key = format!("digest:{channel}");
    let line = eventually("its line", WAIT, || firing_lines(&rt, &key).first().cloned());
    let due = line["due_at"].as_i64().unwrap();
    assert_eq!(due, (at / MINUTE + 1) * MINUTE, "the first whole minute after /digest");
    assert!(line["waited_ms"].as_i64().unwrap() > 8 * MINUTE, "late, and says so: {line}");
    let missed = line["schedule_missed"].as_i64().unwrap();
    assert!((8..=9).contains(&missed), "the minutes that fell due while it waited are skipped and counted: {line}");
    let pending = c.scheduled(&team);
    assert_eq!(pending.len(), 1, "{pending:?}");
    let next = pending[0]["due_at"].as_i64().unwrap();
    assert_eq!(next % MINUTE, 0, "on the minute");
    assert!(next > now_ms() - 5_000 && next <= now_ms() + MINUTE, "the next minute from now, not the missed ones: {next}");
    // Not in a burst: any later firing is one of the minutes after now, never a missed one.
    let dues: Vec<i64> = firing_lines(&rt, &key).iter().filter_map(|l| l["due_at"].as_i64()).collect();
    assert!(dues.iter().skip(1).all(|d| *d >= due + 8 * MINUTE), "{dues:?}");
}

#[test]
fn after_the_runtime_was_down_over_its_time_the_firing_runs_once_late_and_logs_the_one_it_missed() {
    let fake = FakeSlack::start();
    let mut rt = digest(&fake, &[("DIGEST_EVERY_MINUTES", "1")]);
    let c = rt.client();
    let (team, channel) = (unique("T"), unique("C"));
    assert_eq!(command(&c, &team, &channel, "/ticket", "open disk full"), 200);
    // Stamped 3 s ahead: the first firing falls due 3 s from now, and the runtime is down by then.
    let at = now_ms() + 3_000;
    assert_eq!(command_at(&c, &team, &channel, "/digest", "", &fresh_trigger_id(), at), 200);
    let due = at / 1000 * 1000;
    rt.kill();
    assert!(posts(&fake, &channel).is_empty(), "killed before it fell due");
    // Down over its time and the next one's.
    while now_ms() <= due + MINUTE + 2_000 {
        std::thread::sleep(Duration::from_millis(200));
    }
    rt.restart();
    let first = eventually("the digest after the restart", WAIT, || posts(&fake, &channel).first().cloned());
    assert_eq!(first, "1 open ticket: disk full");
    let key = format!("digest:{channel}");
    let line = eventually("its line", WAIT, || firing_lines(&rt, &key).first().cloned());
    assert_eq!(line["due_at"].as_i64(), Some(due));
    assert!(line["waited_ms"].as_i64().unwrap() >= MINUTE, "late by the downtime: {line}");
    assert_eq!(line["schedule_missed"].as_i64(), Some(1), "the occurrence a minute later was missed, skipped, and logged: {line}");
    let c = rt.client();
    let pending = eventually("the next occurrence", WAIT, || Some(c.scheduled(&team)).filter(|p| !p.is_empty()));
    assert_eq!(pending[0]["due_at"].as_i64(), Some(due + 2 * MINUTE), "on the interval's grid, after now");
    assert_eq!(posts(&fake, &channel).len(), 1, "once");
}

#[test]
fn a_firing_whose_listener_panics_is_parked_as_handler_failed_and_the_schedule_goes_on() {
    let fake = FakeSlack::start();
    let (team, channel) = (unique("T"), unique("C"));
    let key = format!("digest:{channel}");
    // The listener panics on this schedule's key only (`TEST_PANIC_MARKER`): the command does not
    // contain it (its channel and its name are apart).
    let rt = digest(&fake, &[("DIGEST_EVERY_MINUTES", "1"), ("TEST_PANIC_MARKER", &key)]);
    let c = rt.client();
    assert_eq!(command(&c, &team, &channel, "/digest", ""), 200);
    let parked = eventually("the firing parked", WAIT, || c.rows(&team, "parked").into_iter().next());
    assert_eq!((parked["reason"].as_str(), parked["effect"].as_str()), (Some("handler_failed"), Some("fire")), "{parked}");
    let logged = |t: &str| t.lines().any(|l| l.contains("handler_failed on the firing of schedule") && l.contains("TEST_PANIC_MARKER"));
    eventually("the panic logged with the schedule's key", Duration::from_secs(10), || logged(&rt.log_text()).then_some(()));
    assert!(posts(&fake, &channel).is_empty(), "a failed listener posts nothing");
    let pending = c.scheduled(&team);
    assert_eq!(pending.len(), 1, "the next occurrence is queued all the same: {pending:?}");
    // Kept, not lost: a redrive runs the listener again (here it fails again, and parks again).
    let id = parked["id"].as_i64().unwrap();
    assert_eq!(c.admin_post(&format!("/admin/teams/{team}/outbox/{id}/redrive")).status, 200);
    eventually("parked again", WAIT, || {
        c.rows(&team, "parked").into_iter().find(|r| r["id"] == parked["id"] && r["finished_at"].as_i64() > parked["finished_at"].as_i64())
    });
    assert_eq!(c.scheduled(&team).len(), 1, "and still one next occurrence");
}
