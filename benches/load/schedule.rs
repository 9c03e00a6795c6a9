//! `BENCH_ONLY=schedule make bench`: 10,000 scheduled reminders across 100 teams falling due in
//! the same minute — do they all fire, and how late?
//!
//! The triage bot (`examples/triage`) in its own runtime: 16 clients submit valid incidents (100
//! teams, 100 each), each stamped with the test clock (`x-slackline-test-now`, the signature
//! following it) so that its 30-minute reminder falls due at a chosen second of one minute that
//! starts after the load has ended. Each reminder's lateness is the time from its due time to the
//! fake Slack receiving its "still open" post (matched by the incident's unique title). Rate
//! limits are off (`SLACK_RATE_LIMITS=off`, as in the other loads): with Slack's own, a team's 100
//! reminders in one channel take 100 seconds by design. Figures, not pass/fail.

use super::harness::BenchSettings;
use super::support::slack::sign;
use super::support::{unique, FakeSlack, Runtime, Settings};
use super::{ms, pct};
use serde_json::json;
use slackline_sim::client::view_submission;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The concurrent clients.
const CLIENTS: usize = 16;
/// The teams the incidents spread over.
const TEAMS: usize = 100;
/// The bot's reminder delay (its default).
const REMIND_MS: i64 = 30 * 60 * 1000;
/// The text before the title in a reminder.
pub(super) const REMINDER: &str = "Incident still open, nobody acknowledged it: ";

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as i64
}

/// One incident: its title, the team and when its reminder falls due (epoch ms).
pub(super) struct Planned {
    pub(super) title: String,
    pub(super) team: String,
    pub(super) due: i64,
}

/// Submits `p` as if 30 minutes before its due time; returns the answer's status.
pub(super) fn submit(agent: &ureq::Agent, url: &str, p: &Planned) -> u16 {
    let mut payload = view_submission(&p.team, "incident", &[("title".into(), "title_input".into(), p.title.clone())]);
    payload["view"]["state"]["values"]["severity"] = json!({"severity_select": {"type": "static_select", "selected_option": {"value": "sev2"}}});
    let body = form_urlencoded::Serializer::new(String::new()).append_pair("payload", &payload.to_string()).finish();
    let at = p.due - REMIND_MS;
    let ts = (at / 1000).to_string();
    let result = agent
        .post(url)
        .set("content-type", "application/x-www-form-urlencoded")
        .set("x-slack-request-timestamp", &ts)
        .set("x-slack-signature", &sign(&ts, body.as_bytes()))
        .set("x-slackline-test-now", &(at / 1000 * 1000).to_string())
        .send_bytes(body.as_bytes());
    match result {
        Ok(r) => r.status(),
        Err(ureq::Error::Status(code, _)) => code,
        Err(_) => 0,
    }
}

/// Submits every planned incident from [`CLIENTS`] threads; returns how many were not answered 200.
fn load(rt: &Runtime, planned: &[Planned]) -> usize {
    let (url, next, failed) = (format!("{}/slack/interactivity", rt.base_url()), AtomicUsize::new(0), AtomicUsize::new(0));
    std::thread::scope(|scope| {
        for _ in 0..CLIENTS {
            scope.spawn(|| {
                let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(30)).build();
                while let Some(p) = planned.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if submit(&agent, &url, p) != 200 {
                        failed.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    failed.into_inner()
}

/// When the fake received each reminder (epoch ms, by title): until all came or `deadline` passed,
/// reading the fake's calls incrementally.
fn fired_at(fake: &FakeSlack, wanted: usize, deadline: Duration) -> HashMap<String, i64> {
    let (base_instant, base_epoch) = (Instant::now(), now_ms());
    let epoch = |at: Instant| base_epoch + (at.checked_duration_since(base_instant).map_or(0, |d| d.as_millis() as i64));
    let until = Instant::now() + deadline;
    let (mut seen, mut fired) = (0, HashMap::new());
    loop {
        let calls = fake.calls_after(seen);
        seen += calls.len();
        for c in calls.iter().filter(|c| c.method == "chat.postMessage") {
            if let Some(title) = c.field("text").and_then(|t| t.strip_prefix(REMINDER)) {
                fired.entry(title.to_string()).or_insert(epoch(c.at));
            }
        }
        if fired.len() >= wanted || Instant::now() > until {
            return fired;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The figures, as Markdown table rows.
pub fn figures(scale: &dyn Fn(usize) -> usize) -> String {
    let fake = FakeSlack::start();
    let rt = Runtime::start(Settings::example("triage", &fake).var("LOG_DELIVERIES", "failures").var("TRIAGE_CHANNEL", &unique("C")).bare());
    let n = scale(10_000);
    let teams: Vec<String> = (0..TEAMS).map(|_| unique("T")).collect();
    // The minute starts after the load (measured here at about 30 ms an incident on a busy
    // machine, with room to spare). Due times are whole seconds (the test clock, like Slack's
    // timestamps, has a second's precision), spread over its 60 seconds.
    let minute = (now_ms() + 30_000 + n as i64 * 45) / 1000 * 1000;
    let planned: Vec<Planned> =
        (0..n).map(|i| Planned { title: unique("Bench "), team: teams[i % TEAMS].clone(), due: minute + (i as i64 * 37 % 60) * 1000 }).collect();
    let started = Instant::now();
    let failed = load(&rt, &planned);
    let loaded = started.elapsed();
    let early = now_ms() > minute;
    let fired = fired_at(&fake, n - failed, Duration::from_millis((minute + 60_000 - now_ms()).max(0) as u64) + Duration::from_secs(300));
    let mut late: Vec<Duration> = planned.iter().filter_map(|p| fired.get(&p.title).map(|at| Duration::from_millis((at - p.due).max(0) as u64))).collect();
    late.sort();
    let last = planned.iter().filter_map(|p| fired.get(&p.title)).max().map_or(0, |at| at - (minute + 60_000));
    let duplicates = fake.calls_after(0).iter().filter(|c| c.field("text").is_some_and(|t| t.starts_with(REMINDER))).count() - fired.len();
    [
        format!(
            "| 8 | {n} reminders across {TEAMS} teams due in one minute: fired / scheduled (submissions not 200; load {:.1} s{}) | {} / {} ({failed}) |",
            loaded.as_secs_f64(),
            if early { ", ran into the minute" } else { "" },
            fired.len(),
            n - failed
        ),
        format!("| 8 | lateness after the due time p50 / p99 / max | {} / {} / {} ms |", ms(pct(&late, 0.5)), ms(pct(&late, 0.99)), ms(pct(&late, 1.0))),
        format!("| 8 | last reminder after the minute's end; duplicate posts (at-least-once) | {last} ms; {duplicates} |"),
    ]
    .join("\n")
}
