//! `BENCH_ONLY=views make bench`: how soon a modal opens; `BENCH_ONLY=flexpane make bench`: how
//! soon a Work Object's flexpane is answered. Both answer with a `trigger_id` that lives 3
//! seconds, and slackline makes the call from the outbox, after the ack: the ack → call time is
//! the price of recording first, and the request → call time is what a user waits for.
//!
//! Views: the triage bot (`examples/triage`) in its own runtime; 16 clients send signed
//! `/incident` commands (a fresh `trigger_id` each, rotating over several teams) as fast as they
//! are answered, and each is timed to the `views.open` carrying its `trigger_id`. Flexpane: the
//! ticket desk (`examples/tickets`) the same way, with `entity_details_requested` events (a click
//! on a ticket's Work Object) timed to its `entity.presentDetails`. Rate limits are off
//! (`SLACK_RATE_LIMITS=off`, as in the other loads): this measures slackline, not Slack's tiers.
//! Figures, not pass/fail.

use super::harness::BenchSettings;
use super::support::slack::{command_form, now_secs, sign};
use super::support::{unique, FakeSlack, Runtime, Settings};
use super::{ms, pct};
use slackline_sim::client::{entity_details_requested, envelope, fresh_trigger_id};
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

/// What a workload sends and what answers it: the bot, its route, the request for a team and a
/// `trigger_id` (content type, body), and the Web API method that carries the trigger.
struct Workload {
    name: &'static str,
    route: &'static str,
    what: &'static str,
    method: &'static str,
    request: fn(team: &str, trigger: &str) -> (&'static str, Vec<u8>),
}

/// `/incident` commands, answered with a modal.
const VIEWS: Workload = Workload { name: "triage", route: "/slack/commands", what: "commands", method: "views.open", request: incident };
/// Clicks on a ticket's Work Object, answered with its flexpane.
const FLEXPANE: Workload = Workload { name: "tickets", route: "/slack/events", what: "clicks", method: "entity.presentDetails", request: entity_click };

fn incident(team: &str, trigger: &str) -> (&'static str, Vec<u8>) {
    ("application/x-www-form-urlencoded", command_form(team, "/incident", "UBENCH", trigger).into_bytes())
}

fn entity_click(team: &str, trigger: &str) -> (&'static str, Vec<u8>) {
    let url = "https://tickets.slackline.example/TCK-1";
    let event = entity_details_requested("TCK-1", url, "C0DESK", "1700000000.000100", trigger);
    ("application/json", envelope(team, &unique("Ev"), event).to_string().into_bytes())
}

/// One request: when it left, when its answer came, and the answer's status.
struct Sent {
    trigger: String,
    sent: Instant,
    acked: Instant,
    status: u16,
}

/// Posts one signed request of `team` with a fresh `trigger_id`, and times its answer.
fn send(work: &Workload, agent: &ureq::Agent, url: &str, team: &str) -> Sent {
    let trigger = fresh_trigger_id();
    let (content_type, body) = (work.request)(team, &trigger);
    let stamp = now_secs().to_string();
    let sent = Instant::now();
    let result = agent
        .post(url)
        .set("content-type", content_type)
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

/// `n` requests from [`CLIENTS`] threads, each sending its next as soon as the last was answered.
fn load(work: &Workload, rt: &Runtime, n: usize, teams: &[String]) -> Vec<Sent> {
    let (url, next, all) = (format!("{}{}", rt.base_url(), work.route), AtomicUsize::new(0), Mutex::new(Vec::with_capacity(n)));
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
                    mine.push(send(work, &agent, &url, &teams[i % teams.len()]));
                }
                all.lock().unwrap().extend(mine);
            });
        }
    });
    all.into_inner().unwrap()
}

/// When the fake received each acked request's call of `method`, by `trigger_id`: waits until
/// every one came or `deadline` passed, reading the fake's calls incrementally (copying all of
/// them on every poll would compete with the runtime for the cores).
fn opened_at(fake: &FakeSlack, method: &str, sent: &[Sent], deadline: Duration) -> HashMap<String, Instant> {
    let wanted = sent.iter().filter(|s| s.status == 200).count();
    let until = Instant::now() + deadline;
    let (mut seen, mut arrivals) = (0, HashMap::new());
    loop {
        let calls = fake.calls_after(seen);
        seen += calls.len();
        for c in calls.iter().filter(|c| c.method == method) {
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

/// The sorted times from `from(s)` to its call, over the requests whose call came.
fn spans(sent: &[Sent], opened: &HashMap<String, Instant>, from: impl Fn(&Sent) -> Instant) -> Vec<Duration> {
    let mut d: Vec<Duration> = sent.iter().filter_map(|s| opened.get(&s.trigger).map(|at| at.saturating_duration_since(from(s)))).collect();
    d.sort();
    d
}

/// The modal's figures, as Markdown table rows.
pub fn figures(scale: &dyn Fn(usize) -> usize) -> String {
    let fake = FakeSlack::start();
    let rt = Runtime::start(Settings::example("triage", &fake).var("LOG_DELIVERIES", "failures").var("TRIAGE_CHANNEL", &unique("C")).bare());
    measure(&VIEWS, &fake, &rt, scale)
}

/// The flexpane's figures, as Markdown table rows.
pub fn flexpane_figures(scale: &dyn Fn(usize) -> usize) -> String {
    let fake = FakeSlack::start();
    let rt = Runtime::start(Settings::example("tickets", &fake).var("LOG_DELIVERIES", "failures").var("TICKETS_CHANNEL", "C0DESK").bare());
    measure(&FLEXPANE, &fake, &rt, scale)
}

fn measure(work: &Workload, fake: &FakeSlack, rt: &Runtime, scale: &dyn Fn(usize) -> usize) -> String {
    let teams: Vec<String> = (0..TEAMS).map(|_| unique("T")).collect();
    let warm = load(work, rt, 160, &teams); // first requests compile and start each team's actor: not counted
    let _ = opened_at(fake, work.method, &warm, Duration::from_secs(60));
    let n = scale(2000);
    let sent = load(work, rt, n, &teams);
    let opened = opened_at(fake, work.method, &sent, Duration::from_secs(60));
    let after_ack = spans(&sent, &opened, |s| s.acked);
    let after_request = spans(&sent, &opened, |s| s.sent);
    let mut acks: Vec<Duration> = sent.iter().map(|s| s.acked - s.sent).collect();
    acks.sort();
    let (non_200, late) = (sent.iter().filter(|s| s.status != 200).count(), after_request.iter().filter(|d| **d > TRIGGER_TTL).count());
    let p = |d: &[Duration]| format!("{} / {} ms", ms(pct(d, 0.5)), ms(pct(d, 0.99)));
    let (bot, what, method) = (work.name, work.what, work.method);
    [
        format!("| 4 | ack → {method} p50 / p99, {n} {what}, {CLIENTS} clients ({TEAMS} teams), examples/{bot} | {} |", p(&after_ack)),
        format!("| 4 | request → {method} p50 / p99 (the user's wait) | {} |", p(&after_request)),
        format!("| 4 | ack p50 / p99 | {} |", p(&acks)),
        format!(
            "| 4 | {method} received / {what} acked; later than the trigger's 3 s; non-200 acks | {} / {}; {late}; {non_200} |",
            after_ack.len(),
            n - non_200
        ),
    ]
    .join("\n")
}
