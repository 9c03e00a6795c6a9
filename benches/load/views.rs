//! `BENCH_ONLY=views make bench`: how soon a modal opens. A `trigger_id` lives 3 seconds, and
//! slackline opens the modal from the outbox, after the ack: the ack → `views.open` time is the
//! price of recording first, and the command → `views.open` time is what a user waits for.
//!
//! The triage bot (`examples/triage`) in its own runtime; 16 clients send signed `/incident`
//! commands (a fresh `trigger_id` each, rotating over several teams) as fast as they are
//! answered. For each, the time its 200 arrived and the time the fake Slack received the
//! `views.open` carrying its `trigger_id`. Rate limits are off (`SLACK_RATE_LIMITS=off`, as in the
//! other loads): this measures slackline, not Slack's Tier 4. Figures, not pass/fail.

use super::harness::BenchSettings;
use super::support::slack::{command_form, now_secs, sign};
use super::support::{unique, FakeSlack, Runtime, Settings};
use super::{ms, pct};
use slackline::sim::client::fresh_trigger_id;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The concurrent clients.
const CLIENTS: usize = 16;
/// The teams the commands rotate over.
const TEAMS: usize = 8;
/// How long a `trigger_id` can open a modal.
const TRIGGER_TTL: Duration = Duration::from_secs(3);

/// One command: when it left, when its answer came, and the answer's status.
struct Sent {
    trigger: String,
    sent: Instant,
    acked: Instant,
    status: u16,
}

/// Posts one signed `/incident` of `team` with a fresh `trigger_id`, and times its answer.
fn send(agent: &ureq::Agent, url: &str, team: &str) -> Sent {
    let trigger = fresh_trigger_id();
    let body = command_form(team, "/incident", "UBENCH", &trigger).into_bytes();
    let stamp = now_secs().to_string();
    let sent = Instant::now();
    let result = agent
        .post(url)
        .set("content-type", "application/x-www-form-urlencoded")
        .set("x-slack-request-timestamp", &stamp)
        .set("x-slack-signature", &sign(&stamp, &body))
        .send_bytes(&body);
    let status = match result {
        Ok(r) => r.status(),
        Err(ureq::Error::Status(code, _)) => code,
        Err(_) => 0,
    };
    Sent { trigger, sent, acked: Instant::now(), status }
}

/// `n` commands from [`CLIENTS`] threads, each sending its next as soon as the last was answered.
fn load(rt: &Runtime, n: usize, teams: &[String]) -> Vec<Sent> {
    let (url, next, all) = (format!("{}/slack/commands", rt.base_url()), AtomicUsize::new(0), Mutex::new(Vec::with_capacity(n)));
    std::thread::scope(|scope| {
        for _ in 0..CLIENTS {
            scope.spawn(|| {
                let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(30)).build();
                let mut mine = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        break;
                    }
                    mine.push(send(&agent, &url, &teams[i % teams.len()]));
                }
                all.lock().unwrap().extend(mine);
            });
        }
    });
    all.into_inner().unwrap()
}

/// When the fake received each acked command's `views.open`, by `trigger_id`: waits until every
/// one came or `deadline` passed, reading the fake's calls incrementally (copying all of them on
/// every poll would compete with the runtime for the cores).
fn opened_at(fake: &FakeSlack, sent: &[Sent], deadline: Duration) -> HashMap<String, Instant> {
    let wanted = sent.iter().filter(|s| s.status == 200).count();
    let until = Instant::now() + deadline;
    let (mut seen, mut arrivals) = (0, HashMap::new());
    loop {
        let calls = fake.calls_after(seen);
        seen += calls.len();
        for c in calls.iter().filter(|c| c.method == "views.open") {
            if let Some(trigger) = c.field("trigger_id") {
                arrivals.entry(trigger.to_string()).or_insert(c.at);
            }
        }
        if sent.iter().filter(|s| arrivals.contains_key(&s.trigger)).count() >= wanted || Instant::now() > until {
            return arrivals;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The sorted times from `from(s)` to its `views.open`, over the commands whose modal opened.
fn spans(sent: &[Sent], opened: &HashMap<String, Instant>, from: impl Fn(&Sent) -> Instant) -> Vec<Duration> {
    let mut d: Vec<Duration> = sent.iter().filter_map(|s| opened.get(&s.trigger).map(|at| at.saturating_duration_since(from(s)))).collect();
    d.sort();
    d
}

/// The figures, as Markdown table rows.
pub fn figures(scale: &dyn Fn(usize) -> usize) -> String {
    let fake = FakeSlack::start();
    let rt = Runtime::start(Settings::example("triage", &fake).var("LOG_DELIVERIES", "failures").var("TRIAGE_CHANNEL", &unique("C")).bare());
    let teams: Vec<String> = (0..TEAMS).map(|_| unique("T")).collect();
    let warm = load(&rt, 160, &teams); // first requests compile and start each team's actor: not counted
    let _ = opened_at(&fake, &warm, Duration::from_secs(60));
    let n = scale(2000);
    let sent = load(&rt, n, &teams);
    let opened = opened_at(&fake, &sent, Duration::from_secs(60));
    let after_ack = spans(&sent, &opened, |s| s.acked);
    let after_command = spans(&sent, &opened, |s| s.sent);
    let mut acks: Vec<Duration> = sent.iter().map(|s| s.acked - s.sent).collect();
    acks.sort();
    let (non_200, late) = (sent.iter().filter(|s| s.status != 200).count(), after_command.iter().filter(|d| **d > TRIGGER_TTL).count());
    let p = |d: &[Duration]| format!("{} / {} ms", ms(pct(d, 0.5)), ms(pct(d, 0.99)));
    [
        format!("| 4 | ack → views.open p50 / p99, {n} commands, {CLIENTS} clients ({TEAMS} teams) | {} |", p(&after_ack)),
        format!("| 4 | command → views.open p50 / p99 (the user's wait for the modal) | {} |", p(&after_command)),
        format!("| 4 | command ack p50 / p99 | {} |", p(&acks)),
        format!(
            "| 4 | views.open received / commands acked; later than the trigger's 3 s; non-200 acks | {} / {}; {late}; {non_200} |",
            after_ack.len(),
            n - non_200
        ),
    ]
    .join("\n")
}
