//! Scheduled effects end to end, through `examples/triage`: a valid incident schedules "still
//! open" `TRIAGE_REMIND_MINUTES` (30) later, and its Acknowledge click cancels it (`cx.schedule`,
//! `cx.cancel`). Time is the test clock: a submission signed and stamped (`x-slackline-test-now`)
//! 30 minutes minus a few seconds ago has its reminder fall due a few seconds from now, by the
//! runtime's real clock and alarm. The recurring schedule runs through `examples/digest`
//! (`/digest` every `DIGEST_EVERY_MINUTES`, `/digest stop`), whose firings run its listener
//! (`tests/e2e/fire.rs` has more of those).

use crate::support::slack::{now_ms, post_signed_at};
use crate::support::{eventually, unique, Call, Client, FakeSlack, Reply, Runtime, Settings};
use serde_json::Value;
use slackline_sim::cli::triage;
use slackline_sim::client::{button_click, fresh_trigger_id};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(60);
/// The bot's default reminder delay.
const REMIND_MS: i64 = 30 * 60 * 1000;

/// The triage bot in a runtime of its own (the channel is unique to it).
struct Triage {
    fake: FakeSlack,
    runtime: Runtime,
    channel: String,
}

/// The bot in a runtime of its own, printing delivery lines for failures only (the default): a
/// scheduled row's line is printed on success too.
fn start() -> Triage {
    let fake = FakeSlack::start();
    let channel = unique("C");
    let runtime = Runtime::start(Settings::example("triage", &fake).var("TRIAGE_CHANNEL", &channel).var("LOG_DELIVERIES", "failures"));
    Triage { fake, runtime, channel }
}

/// The runtime the tests here share (those that do not restart it or slow its Slack down).
fn triage() -> &'static Triage {
    static TRIAGE: OnceLock<Triage> = OnceLock::new();
    TRIAGE.get_or_init(start)
}

/// Waits until the clock has passed `at` (epoch ms): a wait for a time, not for an outcome.
fn wait_until(at: i64) {
    while now_ms() <= at {
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One incident: its title (unique), its id (the Acknowledge button's value) and when its
/// reminder falls due.
struct Incident {
    team: String,
    title: String,
    id: String,
    due: i64,
}

/// Submits an incident as if at `at` (the test clock, which the signature follows), so that its
/// reminder falls due at `at + 30 min` (at whole seconds: Slack's timestamps are), and waits for
/// its announcement.
fn report_at(t: &Triage, team: &str, at: i64) -> Incident {
    let title = send_report(t, team, at);
    announced(t, team, title, at)
}

/// Sends the submission of a new incident (its title returned) as if at `at`.
fn send_report(t: &Triage, team: &str, at: i64) -> String {
    let title = unique("Checkout fails ");
    send_titled(t, team, &title, at);
    title
}

/// Sends the submission of the incident `title` (by U1, SEV2) as if at `at`.
fn send_titled(t: &Triage, team: &str, title: &str, at: i64) {
    assert_eq!(submit_at(&t.runtime.client(), &triage::incident_submission(team, "U1", title, "sev2"), at), 200);
}

/// The incident once its announcement reached Slack.
fn announced(t: &Triage, team: &str, title: String, at: i64) -> Incident {
    let announced = t.fake.wait_calls("chat.postMessage", &format!("Incident (SEV2): {title}"), 1, WAIT)[0].clone();
    let id = announced.json.clone().expect("a JSON body")["blocks"][2]["elements"][0]["value"].as_str().expect("the button's value").to_string();
    Incident { team: team.to_string(), title, id, due: at / 1000 * 1000 + REMIND_MS }
}

/// POSTs an interaction signed at `at`, with the test clock set to it; returns the status.
fn submit_at(c: &Client, payload: &Value, at: i64) -> u16 {
    let body = form_urlencoded::Serializer::new(String::new()).append_pair("payload", &payload.to_string()).finish();
    post_signed_at(c, "/slack/interactivity", &body, at)
}

/// A click on the incident's Acknowledge button (now).
fn acknowledge(t: &Triage, i: &Incident) -> u16 {
    t.runtime.client().interaction(&button_click(&i.team, &unique("U"), (&t.channel, "9.1"), triage::ACKNOWLEDGE, &i.id)).status
}

/// The reminders Slack received for the incident.
fn reminders(t: &Triage, i: &Incident) -> Vec<Call> {
    t.fake.calls("chat.postMessage", &format!("still open, nobody acknowledged it: {}", i.title))
}

/// The incident's reminder row (any status).
fn reminder_row(c: &Client, i: &Incident) -> Value {
    let key = format!("sched:incident:{}:remind|", i.id);
    let rows = c.all_rows(&i.team);
    rows.into_iter().find(|r| r["idem_key"].as_str().is_some_and(|k| k.starts_with(&key))).unwrap_or_else(|| panic!("no reminder row for {}", i.id))
}

/// The `delivery` lines of the incident's reminder.
fn delivery_lines(rt: &Runtime, i: &Incident) -> Vec<Value> {
    let key = format!("incident:{}:remind", i.id);
    rt.log_lines().into_iter().filter(|l| l["kind"] == "delivery" && l["schedule"].as_str() == Some(key.as_str())).collect()
}

#[test]
fn a_reminder_fires_at_its_due_time_once_and_its_line_shows_how_late() {
    let t = triage();
    let c = t.runtime.client();
    let i = report_at(t, &unique("T"), now_ms() - REMIND_MS + 3_000);
    let listed = c.scheduled(&i.team);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!((listed[0]["key"].as_str(), listed[0]["due_at"].as_i64()), (Some(format!("incident:{}:remind", i.id).as_str()), Some(i.due)));
    assert!(reminders(t, &i).is_empty(), "not before its time");
    let posted = eventually("the reminder posted", WAIT, || reminders(t, &i).first().cloned());
    assert_eq!(posted.field("channel"), Some(t.channel.as_str()));
    eventually("the reminder row done", WAIT, || (reminder_row(&c, &i)["status"] == "done").then_some(()));
    let row = reminder_row(&c, &i);
    assert!(row["first_attempt_at"].as_i64().unwrap() >= i.due, "tried no earlier than due: {row}");
    assert_eq!(row["created_at"].as_i64(), Some(i.due), "it entered the queue at its due time");
    assert_eq!(row["deadline_at"].as_i64(), Some(i.due + REMIND_MS), "the 30-minute deadline counts from the due time");
    let line = eventually("its delivery line (printed on success)", WAIT, || delivery_lines(&t.runtime, &i).into_iter().next());
    assert_eq!((line["outcome"].as_str(), line["due_at"].as_i64()), (Some("success"), Some(i.due)));
    let late = line["waited_ms"].as_i64().unwrap();
    assert!((0..20_000).contains(&late), "waited_ms is the lateness after the due time, not the 30 minutes since scheduling: {late}");
    assert_eq!(reminders(t, &i).len(), 1, "once");
    assert!(c.scheduled(&i.team).is_empty());
}

#[test]
fn a_reminder_goes_in_the_announcements_thread_and_top_level_when_the_announcement_was_never_posted() {
    let t = triage();
    let c = t.runtime.client();
    let at = now_ms() - REMIND_MS + 6_000;
    let threaded = report_at(t, &unique("T"), at);
    // Slack refuses the other incident's announcement for good: it is parked, nothing remembered.
    let (team, title) = (unique("T"), unique("Blocks refused "));
    t.fake.script("chat.postMessage", &format!("Incident (SEV2): {title}"), vec![Reply::Error("invalid_blocks")]);
    send_titled(t, &team, &title, at);
    let orphan = announced(t, &team, title, at);
    let post = eventually("the announcement remembered", WAIT, || c.state_value(&threaded.team, &format!("post:{}", threaded.id)));
    eventually("the other announcement parked", WAIT, || (c.rows(&orphan.team, "parked").len() == 1).then_some(()));
    assert!(now_ms() < threaded.due, "remembered before the reminder fell due");

    let posted = eventually("the reminder posted", WAIT, || reminders(t, &threaded).first().cloned());
    assert_eq!((posted.field("channel"), posted.field("thread_ts")), (post["channel"].as_str(), post["ts"].as_str()), "in the announcement's thread");
    let top = eventually("the other reminder posted", WAIT, || reminders(t, &orphan).first().cloned());
    assert_eq!((top.field("channel"), top.field("thread_ts")), (Some(t.channel.as_str()), None), "no announcement to thread under: top level");
    for i in [&threaded, &orphan] {
        eventually("the reminder row done", WAIT, || (reminder_row(&c, i)["status"] == "done").then_some(()));
        assert_eq!(reminders(t, i).len(), 1, "once");
    }
}

#[test]
fn a_duplicate_delivery_of_the_submission_schedules_nothing_more() {
    let t = triage();
    let c = t.runtime.client();
    let team = unique("T");
    let title = unique("Dup ");
    let payload = triage::incident_submission(&team, "U1", &title, "sev3");
    for _ in 0..3 {
        assert_eq!(c.interaction(&payload).status, 200);
    }
    assert_eq!(c.scheduled(&team).len(), 1, "one reminder");
    assert_eq!(c.all_rows(&team).len(), 2, "one announcement, one reminder");
}

#[test]
fn an_acknowledge_before_the_reminder_is_due_cancels_it_and_it_never_runs() {
    let t = triage();
    let c = t.runtime.client();
    let i = report_at(t, &unique("T"), now_ms() - REMIND_MS + 4_000);
    assert_eq!(acknowledge(t, &i), 200);
    assert!(c.scheduled(&i.team).is_empty(), "nothing scheduled any more");
    let row = reminder_row(&c, &i);
    assert_eq!((row["status"].as_str(), row["reason"].as_str(), row["attempts"].as_i64()), (Some("done"), Some("cancelled"), Some(0)));
    wait_until(i.due + 500);
    // Past its due time, a sweep would claim the row if it were still pending.
    assert_eq!(c.admin_post(&format!("/admin/teams/{}/sweep", i.team)).status, 200);
    assert!(reminders(t, &i).is_empty(), "a cancelled reminder is never posted");
    assert!(c.rows(&i.team, "parked").is_empty(), "a cancel needs no operator decision");
}

#[test]
fn cancelling_a_fired_or_unknown_reminder_changes_nothing() {
    let t = triage();
    let c = t.runtime.client();
    let fired = report_at(t, &unique("T"), now_ms() - REMIND_MS - 1_000);
    eventually("the overdue reminder fires at once", WAIT, || (reminder_row(&c, &fired)["status"] == "done").then_some(()));
    let before = reminder_row(&c, &fired);
    assert_eq!(acknowledge(t, &fired), 200);
    // The announcement, the fired reminder, the acknowledgement's answer and its update of the announcement.
    eventually("the acknowledgement answered", WAIT, || (c.rows(&fired.team, "done").len() == 4).then_some(()));
    assert_eq!(reminder_row(&c, &fired), before, "the fired row is untouched (no reason, same attempts)");
    assert_eq!(reminders(t, &fired).len(), 1);

    let unknown = Incident { team: unique("T"), title: unique("never"), id: "ix:no-such-incident".into(), due: 0 };
    assert_eq!(acknowledge(t, &unknown), 200, "an unknown key: a no-op, not an error");
    eventually("only the answer queued", WAIT, || (c.rows(&unknown.team, "done").len() == 1).then_some(()));
    assert_eq!(c.all_rows(&unknown.team).len(), 1);
    assert!(c.rows(&unknown.team, "parked").is_empty());
}

#[test]
fn the_admin_api_lists_a_scheduled_reminder_with_its_due_time_and_cancels_it() {
    let t = triage();
    let c = t.runtime.client();
    let before = now_ms();
    let i = report_at(t, &unique("T"), before);
    let listed = c.scheduled(&i.team);
    assert_eq!(listed.len(), 1);
    let row = &listed[0];
    let due = row["due_at"].as_i64().unwrap();
    assert!((before / 1000 * 1000 + REMIND_MS..=now_ms() + REMIND_MS).contains(&due), "due 30 minutes after the submission: {row}");
    assert!(row["what"].as_str().is_some_and(|w| w.contains("still open")), "{row}");
    assert_eq!(c.stats(&i.team)["scheduled"], 1, "the stats count it apart");
    let page = c.get_with(&format!("/admin/teams/{}", i.team), &[("authorization", &format!("Bearer {}", crate::support::ADMIN_TOKEN))]);
    let id = row["id"].as_i64().unwrap();
    assert!(page.body.contains(&format!("/admin/teams/{}/outbox/{id}/cancel", i.team)), "the page shows it with a Cancel button");

    let cancelled = c.admin_post(&format!("/admin/teams/{}/outbox/{id}/cancel", i.team));
    assert_eq!((cancelled.status, cancelled.json()["cancelled"].as_i64()), (200, Some(id)), "{}", cancelled.body);
    assert!(c.scheduled(&i.team).is_empty());
    let again = c.admin_post(&format!("/admin/teams/{}/outbox/{id}/cancel", i.team));
    assert_eq!((again.status, again.json()["error"].as_str()), (409, Some("not_scheduled")));
    assert_eq!(reminder_row(&c, &i)["reason"], "cancelled");
    let audit = c.admin_get(&format!("/admin/teams/{}/audit", i.team)).json();
    assert_eq!(audit["audit"][0]["action"], "cancel");
}

#[test]
fn acknowledgements_racing_their_reminders_either_cancel_them_or_let_them_fire_never_both() {
    let race = start();
    // Every post in this channel takes 600 ms at Slack: a firing reminder stays in flight a while.
    race.fake.script_with("chat.postMessage", &race.channel, Box::new(|_| Reply::Delay(Duration::from_millis(600), Box::new(Reply::Ok))));
    let at = now_ms() - REMIND_MS + 15_000;
    let titles: Vec<(String, String)> = (0..16).map(|_| unique("T")).map(|team| (send_report(&race, &team, at), team)).collect();
    let incidents: Vec<Incident> = titles.into_iter().map(|(title, team)| announced(&race, &team, title, at)).collect();
    let due = incidents[0].due;
    assert!(now_ms() < due - 1_500, "announced in time for the race");
    // The clicks land from 1.5 s before the due time to 1.7 s after it, while the 16 reminders fire
    // (5 at a time, 600 ms each).
    let start = Instant::now() + Duration::from_millis((due - 1_500 - now_ms()).max(0) as u64);
    let mut clicked = Vec::new();
    for (n, i) in incidents.iter().enumerate() {
        std::thread::sleep((start + Duration::from_millis(n as u64 * 200)).saturating_duration_since(Instant::now()));
        clicked.push(Instant::now());
        assert_eq!(acknowledge(&race, i), 200);
    }
    let c = race.runtime.client();
    let (mut cancelled, mut fired, mut in_flight) = (0, 0, 0);
    for (i, clicked) in incidents.iter().zip(clicked) {
        let row = eventually("the reminder row ended", WAIT, || Some(reminder_row(&c, i)).filter(|r| r["status"] != "pending"));
        let posts = reminders(&race, i).len();
        match row["reason"].as_str() {
            Some("cancelled") => {
                assert_eq!((posts, row["attempts"].as_i64()), (0, Some(0)), "cancelled, yet posted: {row}");
                cancelled += 1;
            }
            _ => {
                assert_eq!((row["status"].as_str(), posts), (Some("done"), 1), "fired: done and posted once: {row}");
                fired += 1;
                // Clicked while Slack held the post: the cancel found the row in flight.
                let at_slack = reminders(&race, i)[0].at;
                in_flight += usize::from(clicked >= at_slack && clicked < at_slack + Duration::from_millis(600));
            }
        }
    }
    eprintln!("race: {cancelled} reminders cancelled, {fired} fired ({in_flight} of them clicked while the post was at Slack)");
    assert_eq!(cancelled + fired, incidents.len());
}

#[test]
fn a_reminder_that_fell_due_while_the_runtime_was_down_fires_once_after_the_restart_and_logs_its_lateness() {
    let mut t = start();
    let i = report_at(&t, &unique("T"), now_ms() - REMIND_MS + 3_000);
    t.runtime.kill();
    wait_until(i.due + 4_000);
    t.runtime.restart();
    let c = t.runtime.client();
    eventually("the reminder posted after the restart", WAIT, || reminders(&t, &i).first().cloned());
    eventually("the reminder row done", WAIT, || (reminder_row(&c, &i)["status"] == "done").then_some(()));
    let line = eventually("its delivery line", WAIT, || delivery_lines(&t.runtime, &i).into_iter().find(|l| l["outcome"] == "success"));
    let late = line["waited_ms"].as_i64().unwrap();
    assert!(late >= 4_000, "late by the time the runtime was down: {late} ms");
    assert_eq!(reminders(&t, &i).len(), 1, "exactly once");
    assert_eq!(reminder_row(&c, &i)["attempts"].as_i64(), Some(1));
}

/// `/digest` (with `text`) run in `channel` of `team`, as if at `at`.
fn digest_at(c: &Client, team: &str, channel: &str, text: &str, at: i64) -> u16 {
    let trigger = fresh_trigger_id();
    let response_url = format!("https://hooks.slack.test/commands/{trigger}");
    let fields = [
        ("command", "/digest"),
        ("text", text),
        ("team_id", team),
        ("channel_id", channel),
        ("user_id", "U1"),
        ("response_url", &response_url),
        ("trigger_id", &trigger),
    ];
    post_signed_at(c, "/slack/commands", &form_urlencoded::Serializer::new(String::new()).extend_pairs(fields).finish(), at)
}

#[test]
fn a_recurring_digest_skips_the_occurrences_missed_while_down_fires_on_schedule_and_stops_when_cancelled() {
    let fake = FakeSlack::start();
    let rt = Runtime::start(Settings::example("digest", &fake).var("DIGEST_EVERY_MINUTES", "1").var("LOG_DELIVERIES", "failures"));
    let c = rt.client();
    let (team, channel, minute) = (unique("T"), unique("C"), 60_000);
    // As if `/digest` ran ten minutes ago, less two seconds: ten occurrences have fallen due since.
    let at = now_ms() - 10 * minute + 2_000;
    assert_eq!(digest_at(&c, &team, &channel, "", at), 200);
    let key = format!("digest:{channel}");
    let fired = |n: usize| eventually(&format!("{n} digests"), WAIT, || Some(fake.calls("chat.postMessage", &channel)).filter(|p| p.len() >= n));
    fired(1);
    fired(2);
    let lines: Vec<Value> = eventually("two delivery lines", WAIT, || {
        Some(rt.log_lines().into_iter().filter(|l| l["kind"] == "delivery" && l["schedule"].as_str() == Some(key.as_str())).collect::<Vec<_>>())
            .filter(|l| l.len() >= 2)
    });
    let first_due = at / 1000 * 1000;
    assert_eq!(lines[0]["due_at"].as_i64(), Some(first_due));
    assert!(lines[0]["waited_ms"].as_i64().unwrap() > 9 * minute, "the first, overdue, says how late: {}", lines[0]);
    assert_eq!(lines[0]["schedule_missed"].as_i64(), Some(9), "and how many it skipped: {}", lines[0]);
    assert_eq!(lines[1]["due_at"].as_i64(), Some(first_due + 10 * minute), "the nine missed in between are skipped, not fired in a burst");
    assert!(lines[1]["waited_ms"].as_i64().unwrap() < 20_000, "the second at its time: {}", lines[1]);
    assert_eq!(fake.calls("chat.postMessage", &channel).len(), 2);
    let pending = c.scheduled(&team);
    assert_eq!(pending.len(), 1, "the next occurrence waits: {pending:?}");
    assert_eq!((pending[0]["due_at"].as_i64(), pending[0]["every_ms"].as_i64()), (Some(first_due + 11 * minute), Some(minute)));

    assert_eq!(digest_at(&c, &team, &channel, "", now_ms()), 200, "a second /digest while one is scheduled");
    assert_eq!(c.scheduled(&team).len(), 1, "adds nothing: one pending occurrence per key");
    assert_eq!(digest_at(&c, &team, &channel, "stop", now_ms()), 200);
    assert!(c.scheduled(&team).is_empty(), "stopped");
    let next = c.all_rows(&team).into_iter().find(|r| r["id"] == pending[0]["id"]).expect("the next occurrence's row");
    assert_eq!((next["status"].as_str(), next["reason"].as_str()), (Some("done"), Some("cancelled")));
}

#[test]
fn stopping_a_digest_while_its_post_is_at_slack_delivers_that_post_and_cancels_the_next_firing() {
    let fake = FakeSlack::start();
    let rt = Runtime::start(Settings::example("digest", &fake).var("DIGEST_EVERY_MINUTES", "1"));
    let c = rt.client();
    let (team, channel) = (unique("T"), unique("C"));
    // Slack holds every post in this channel for 3 s: the digest's post stays in flight that long.
    fake.script_with("chat.postMessage", &channel, Box::new(|_| Reply::Delay(Duration::from_secs(3), Box::new(Reply::Ok))));
    assert_eq!(digest_at(&c, &team, &channel, "", now_ms()), 200);
    eventually("the digest at Slack", WAIT, || fake.calls("chat.postMessage", &channel).first().cloned());
    let next = c.scheduled(&team);
    assert_eq!(next.len(), 1, "the firing ran and queued the next: {next:?}");
    assert_eq!(digest_at(&c, &team, &channel, "stop", now_ms()), 200);
    let post = eventually("the post in flight ends", WAIT, || {
        c.rows(&team, "done").into_iter().find(|r| r["idem_key"].as_str().is_some_and(|k| k.starts_with("fire:") && k.ends_with(":say")))
    });
    assert_eq!(post["reason"], Value::Null, "the firing's post is delivered: {post}");
    assert_eq!(fake.calls("chat.postMessage", &channel).len(), 1);
    assert!(c.scheduled(&team).is_empty(), "and the next firing is cancelled");
    let ended = c.all_rows(&team).into_iter().find(|r| r["id"] == next[0]["id"]).unwrap();
    assert_eq!((ended["status"].as_str(), ended["reason"].as_str()), (Some("done"), Some("cancelled")));
}
