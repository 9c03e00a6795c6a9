//! `BENCH_ONLY=cost make bench`: what an event costs on Cloudflare, counted by the runtimes' own
//! meters, not timed. slackline's (`slackline::internal::meter`, read at `GET /admin/teams/{team}/meter`,
//! test runtimes only) and the design floor's (`GET /__meter`) sum, in isolate memory, each SQL
//! cursor's `rowsRead` / `rowsWritten` per statement text, and count `setAlarm` calls, actor
//! requests and alarm invocations. Each scenario is one fresh team:
//!
//! - **burst**: [`BURST`] `app_mention`s from [`CLIENTS`] clients, each delivered (the issue's
//!   shape: a busy team, whose sweeps take many rows at once);
//! - **ignored**: [`BURST`] `reaction_added` events, which the app records no effect for;
//! - **quiet**: [`QUIET`] mentions one at a time, each delivered before the next is sent (a
//!   quiet team: every event pays for its own alarm, sweep and re-arm);
//! - **notify**: [`BURST`] notify API posts (`POST /api/teams/{team}/messages`, each with a
//!   fresh `Idempotency-Key`), each delivered (slackline only: the design floor has no API);
//! - **List sync**: [`BURST`] records put into one Slack List (`PUT …/records/{id}`), each
//!   created at the fake's Lists; and [`QUIET`] records one at a time, each created before the
//!   next is put (a quiet List);
//! - **reconciliation**: one pass (`POST …/reconcile`) over [`RECONCILED`] rows at the fake
//!   (1 in 20 of them linked records), per page read;
//! - **command**: [`BURST`] slash commands, each answered at its `response_url` (the fake's);
//! - **click**: [`BURST`] clicks on the shipped app's "Mark resolved" button, each a
//!   `chat.update`;
//! - **LLM reply**: [`BURST`] mentions to the shipped app with an LLM (the fake model, its own
//!   runtime): each a completion, then its post (two effects, chained);
//! - **step**: [`BURST`] `function_executed` events for the tally's Workflow step (the test
//!   app), each completed (`functions.completeSuccess`), and its guard row, due
//!   `STEP_DEADLINE_MS` (3 s here) after the event, run;
//! - **unfurl**: [`BURST`] `link_shared` events with a tally ticket's link, each unfurled as a
//!   Work Object (`chat.unfurl`);
//! - **reminder**: [`BURST`] incidents submitted to `examples/triage` (its own runtime), each
//!   announced and its reminder scheduled, the submission stamped 30 minutes back
//!   (`x-slackline-test-now`) so that the reminder fires at once: two posts and a firing.
//!
//! Each scenario's life ends with the pruning: slackline's admin sweep with its test clock 25 h
//! ahead (`x-slackline-test-now`: receipts, done rows and their history are past their 24 h
//! retention), repeated until it deletes nothing; the design floor's `POST /__prune` with the
//! same clock. The per-event rows-written figure is deterministic for what is per event
//! (statements that run once per event); what runs once per sweep or per alarm depends on how
//! the events fell into sweeps, so its share is printed beside the runs. Figures, not pass/fail.

use super::harness::{BenchSettings, Readings};
use super::schedule::{Planned, REMINDER};
use super::support::slack::{envelope, mention, now_ms, now_secs, sign};
use super::support::{unique, Client, FakeSlack, Runtime, Settings, ADMIN_TOKEN};
use slackline::internal::app::tally::TICKETS_DOMAIN;
use slackline::internal::app::RESOLVE_ACTION_ID;
use slackline::internal::meter::Meter;
use slackline_sim::client::{button_click, fresh_trigger_id, function_executed, link_shared};
use slackline_sim::llm::{FakeLlm, LlmSettings};
use std::time::{Duration, Instant};

/// Events in a burst (and in the ignored scenario).
const BURST: usize = 500;
/// Events sent one at a time.
const QUIET: usize = 50;
/// Concurrent clients of a burst.
const CLIENTS: usize = 4;
/// Rows at the fake's List a reconciliation pass reads.
const RECONCILED: usize = 2_000;
/// How far ahead the pruning's clock is: past the 24 h retentions.
const PRUNE_AHEAD_MS: i64 = 25 * 3600 * 1000;

/// Prices (USD), Cloudflare's published Workers and Durable Objects pricing (issue 25).
const PER_MILLION_ROWS_WRITTEN: f64 = 1.00;
const PER_MILLION_ROWS_READ: f64 = 0.001;
const PER_MILLION_DO_REQUESTS: f64 = 0.15;
const PER_MILLION_WORKER_REQUESTS: f64 = 0.30;
const PER_MILLION_CPU_MS: f64 = 0.02;

/// One runtime under measurement: how to read its meter, prune it and send it events.
struct Contender<'a> {
    name: &'static str,
    rt: &'a Runtime,
    events_path: &'static str,
}

impl Contender<'_> {
    /// slackline's build (the shipped app, with an LLM, or an example bot), not the design floor.
    fn slackline(&self) -> bool {
        self.name != "design floor"
    }

    fn meter(&self, team: &str) -> Meter {
        let client = Client::new(&self.rt.base_url());
        let answer = if self.slackline() { client.admin_get(&format!("/admin/teams/{team}/meter")) } else { client.get(&format!("/__meter?team={team}")) };
        assert_eq!(answer.status, 200, "{}'s meter: {}", self.name, answer.body);
        serde_json::from_str(&answer.body).expect("a meter")
    }

    /// Waits until the meter stops moving (the sweeps and their re-arm are over).
    fn settle(&self, team: &str) -> Meter {
        let mut last = self.meter(team);
        loop {
            std::thread::sleep(Duration::from_millis(700));
            let now = self.meter(team);
            if now == last {
                return now;
            }
            last = now;
        }
    }

    /// Prunes with the clock [`PRUNE_AHEAD_MS`] ahead until a pass deletes nothing.
    fn prune(&self, team: &str) {
        let client = Client::new(&self.rt.base_url());
        let at = (now_secs() * 1000 + PRUNE_AHEAD_MS).to_string();
        for _ in 0..20 {
            let before = self.settle(team);
            let answer = if self.slackline() {
                let bearer = format!("Bearer {ADMIN_TOKEN}");
                client.post_raw(&format!("/admin/teams/{team}/sweep"), &[("authorization", &bearer), ("x-slackline-test-now", &at)], b"")
            } else {
                client.post_raw(&format!("/__prune?team={team}&now={at}"), &[], b"")
            };
            assert_eq!(answer.status, 200, "{}'s prune: {}", self.name, answer.body);
            let deleted: u64 =
                self.settle(team).since(&before).statements.iter().filter(|(sql, _)| sql.starts_with("DELETE")).map(|(_, t)| t.rows_written).sum();
            if deleted == 0 {
                return;
            }
        }
    }

    /// Sends event `i` of `scenario` for `team` in `channel`; returns the answer's status.
    fn send(&self, agent: &ureq::Agent, fake: &FakeSlack, scenario: Scenario, team: &str, channel: &str, i: usize) -> u16 {
        let ts = format!("{}.{i:06}", now_secs());
        let form = |pairs: &[(&str, &str)]| form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish().into_bytes();
        let (path, content_type, body) = match scenario {
            Scenario::Notify => return super::send_notify(agent, &self.rt.base_url(), team, channel, ts).status,
            Scenario::Reminder => {
                let url = format!("{}/slack/interactivity", self.rt.base_url());
                return super::schedule::submit(agent, &url, &Planned { title: format!("{channel} {i}"), team: team.into(), due: now_ms() });
            }
            Scenario::Command => {
                let (text, hook, trigger) = (format!("{channel} {i}"), fake.response_url(&format!("{channel}-{i}")), fresh_trigger_id());
                let fields = [
                    ("command", "/cost"),
                    ("text", &text),
                    ("team_id", team),
                    ("channel_id", channel),
                    ("user_id", "U1"),
                    ("response_url", &hook),
                    ("trigger_id", &trigger),
                ];
                ("/slack/commands", "application/x-www-form-urlencoded", form(&fields))
            }
            Scenario::Click => {
                let click = button_click(team, "U1", (channel, &ts), RESOLVE_ACTION_ID, "resolve").to_string();
                ("/slack/interactivity", "application/x-www-form-urlencoded", form(&[("payload", &click)]))
            }
            Scenario::Step => {
                let inputs = serde_json::json!({"mode": "complete", "note": "slackline-tally"});
                let step = function_executed("tally_step", &format!("{channel}-{i}"), &inputs);
                (self.events_path, "application/json", envelope(team, &unique("Ev"), step).to_string().into_bytes())
            }
            Scenario::Unfurl => {
                let link = format!("https://{TICKETS_DOMAIN}/{channel}-{i}");
                let sharing = link_shared(channel, &ts, &[link], "conversations_history", &unique("Ux"));
                (self.events_path, "application/json", envelope(team, &unique("Ev"), sharing).to_string().into_bytes())
            }
            Scenario::Ignored => {
                let reaction = serde_json::json!({"type": "reaction_added", "user": "U1", "reaction": "eyes", "event_ts": ts});
                (self.events_path, "application/json", envelope(team, &unique("Ev"), reaction).to_string().into_bytes())
            }
            _ => (self.events_path, "application/json", envelope(team, &unique("Ev"), mention(channel, &ts, "cost")).to_string().into_bytes()),
        };
        let stamp = now_secs().to_string();
        let answer = agent
            .post(&format!("{}{path}", self.rt.base_url()))
            .set("content-type", content_type)
            .set("x-slack-request-timestamp", &stamp)
            .set("x-slack-signature", &sign(&stamp, &body))
            .send_bytes(&body);
        match answer {
            Ok(r) => r.status(),
            Err(ureq::Error::Status(code, _)) => code,
            Err(_) => 0,
        }
    }
}

/// What one scenario cost: before and after the pruning, and the worker's CPU.
struct Life {
    events: usize,
    delivered: usize,
    served: Meter,
    pruned: Meter,
    cpu_ms: f64,
}

impl Life {
    fn whole(&self) -> Meter {
        let mut all = self.served.clone();
        for (sql, t) in &self.pruned.statements {
            let into = all.statements.entry(sql.clone()).or_default();
            into.runs += t.runs;
            into.rows_read += t.rows_read;
            into.rows_written += t.rows_written;
        }
        all
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Scenario {
    Burst,
    Ignored,
    Quiet,
    Notify,
    ListSync,
    ListQuiet,
    Reconcile,
    Command,
    Click,
    LlmReply,
    Reminder,
    Step,
    Unfurl,
}

impl Scenario {
    fn label(self) -> &'static str {
        match self {
            Scenario::Burst => "app_mention delivered, burst",
            Scenario::Ignored => "ignored event, burst",
            Scenario::Quiet => "app_mention delivered, one at a time",
            Scenario::Notify => "notify POST delivered, burst",
            Scenario::ListSync => "List record synced (created), burst",
            Scenario::ListQuiet => "List record synced (created), one at a time",
            Scenario::Reconcile => "reconciliation, per page",
            Scenario::Command => "slash command answered at its `response_url`, burst",
            Scenario::Click => "button click: `chat.update`, burst",
            Scenario::LlmReply => "app_mention answered by the LLM (2 effects: completion, post), burst",
            Scenario::Reminder => "triage incident: announced, reminder scheduled and fired (2 posts, 1 firing), burst",
            Scenario::Step => "Workflow step completed (its ending and its guard), burst",
            Scenario::Unfurl => "link unfurled as a Work Object, burst",
        }
    }

    /// The status a sent event is answered with.
    fn accepted(self) -> u16 {
        if self == Scenario::Notify {
            202
        } else {
            200
        }
    }

    /// How many of the scenario's effects in `channel` the fake has received: its post, its
    /// `response_url` answer, its update or its reminder (none for an ignored event).
    fn delivered(self, fake: &FakeSlack, channel: &str) -> usize {
        match self {
            Scenario::Command => fake.calls("response_url", channel).len(),
            Scenario::Click => fake.calls("chat.update", channel).len(),
            Scenario::Reminder => fake.calls("chat.postMessage", &format!("{REMINDER}{channel}")).len(),
            Scenario::Step => fake.calls("functions.completeSuccess", channel).len(),
            Scenario::Unfurl => fake.calls("chat.unfurl", channel).len(),
            _ => posts(fake, channel),
        }
    }
}

fn posts(fake: &FakeSlack, channel: &str) -> usize {
    fake.calls("chat.postMessage", channel).len()
}

/// The column map of the List scenarios.
fn column_map() -> serde_json::Value {
    serde_json::json!({"key_column": "ColKEY", "columns": {"title": {"column_id": "ColT", "type": "text"}}})
}

/// A new List of `team` with the column map: a client, the List and its API path.
fn new_list(c: &Contender, team: &str) -> (Client, String, String) {
    let (client, list) = (Client::new(&c.rt.base_url()), unique("F"));
    let base = format!("/api/teams/{team}/lists/{list}");
    assert_eq!(client.api("PUT", &base, Some(&column_map())).status, 200);
    (client, list, base)
}

/// Puts `n` records into a new List of `team` (`CLIENTS` at a time) and waits until the fake
/// created each; returns the List.
fn sync_records(c: &Contender, fake: &FakeSlack, team: &str, n: usize) -> String {
    let (client, list, base) = new_list(c, team);
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..CLIENTS {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let record = serde_json::json!({"title": format!("record {i}")});
                assert_eq!(client.api("PUT", &format!("{base}/records/r{i}"), Some(&record)).status, 200);
            });
        }
    });
    let until = Instant::now() + Duration::from_secs(300);
    while fake.calls("slackLists.items.create", &list).len() < n && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(200));
    }
    list
}

/// Puts `n` records into a new List of `team` one at a time, each created at the fake (and the
/// team's meter still) before the next is put: a quiet List, each record waking the actor on its
/// own. Returns the List.
fn sync_records_quietly(c: &Contender, fake: &FakeSlack, team: &str, n: usize) -> String {
    let (client, list, base) = new_list(c, team);
    for i in 0..n {
        let record = serde_json::json!({"title": format!("record {i}")});
        assert_eq!(client.api("PUT", &format!("{base}/records/r{i}"), Some(&record)).status, 200);
        let until = Instant::now() + Duration::from_secs(30);
        while fake.calls("slackLists.items.create", &list).len() <= i && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        c.settle(team);
    }
    list
}

/// Runs one reconciliation pass over `rows` rows of a List (1 in 20 linked records) and returns
/// its pages; the meter's `before` is taken once the linked records are synced.
fn reconcile(c: &Contender, fake: &FakeSlack, team: &str, rows: usize) -> (Meter, usize) {
    let list = sync_records(c, fake, team, rows / 20);
    fake.seed_rows(&list, rows - rows / 20, |i| vec![super::support::fake_slack::text_cell("ColKEY", &format!("stranger-{i}"))]);
    let before = c.settle(team);
    let (client, base) = (Client::new(&c.rt.base_url()), format!("/api/teams/{team}/lists/{list}/reconcile"));
    let started = client.api("POST", &base, None);
    assert_eq!(started.status, 202, "{}", started.body);
    let id = started.json()["id"].as_i64();
    let pass = super::support::eventually("the pass finished", Duration::from_secs(600), || {
        let runs = client.api("GET", &base, None).json();
        runs["runs"].as_array()?.iter().find(|r| r["id"].as_i64() == id && !r["finished_at"].is_null()).cloned()
    });
    (before, pass["report"]["pages"].as_u64().unwrap_or(1).max(1) as usize)
}

fn run(c: &Contender, fake: &FakeSlack, scenario: Scenario, scale: &dyn Fn(usize) -> usize) -> Life {
    let (team, channel) = (unique("T"), unique("C"));
    if scenario == Scenario::Reconcile {
        let (before, pages) = reconcile(c, fake, &team, scale(RECONCILED).max(200));
        let served = c.settle(&team);
        // The pass's own reads (`GET …/reconcile`) are counted as requests: they are the bench's.
        return Life { events: pages, delivered: 0, served: served.since(&before), pruned: Meter::default(), cpu_ms: 0.0 };
    }
    let n = match scenario {
        Scenario::Quiet | Scenario::ListQuiet => scale(QUIET).max(5),
        _ => scale(BURST).max(20),
    };
    let before = c.settle(&team);
    let cpu_before = worker_cpu(c.rt);
    let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(30)).build();
    match scenario {
        Scenario::ListSync | Scenario::ListQuiet => {
            let list = match scenario {
                Scenario::ListSync => sync_records(c, fake, &team, n),
                _ => sync_records_quietly(c, fake, &team, n),
            };
            let served = c.settle(&team);
            let cpu_ms = (worker_cpu(c.rt) - cpu_before) * 1000.0;
            c.prune(&team);
            let pruned = c.settle(&team);
            let delivered = fake.calls("slackLists.items.create", &list).len();
            return Life { events: n, delivered, served: served.since(&before), pruned: pruned.since(&served), cpu_ms };
        }
        Scenario::Quiet => {
            for i in 0..n {
                assert_eq!(c.send(&agent, fake, scenario, &team, &channel, i), 200);
                let until = Instant::now() + Duration::from_secs(30);
                while posts(fake, &channel) <= i && Instant::now() < until {
                    std::thread::sleep(Duration::from_millis(20));
                }
                c.settle(&team);
            }
        }
        _ => {
            let next = std::sync::atomic::AtomicUsize::new(0);
            std::thread::scope(|s| {
                for _ in 0..CLIENTS {
                    s.spawn(|| {
                        let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(30)).build();
                        loop {
                            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            if i >= n {
                                break;
                            }
                            assert_eq!(c.send(&agent, fake, scenario, &team, &channel, i), scenario.accepted(), "{}", scenario.label());
                        }
                    });
                }
            });
            let until = Instant::now() + Duration::from_secs(120);
            while scenario != Scenario::Ignored && scenario.delivered(fake, &channel) < n && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(100));
            }
            // A step's guard falls due `STEP_DEADLINE_MS` after its event: its life ends with it.
            while scenario == Scenario::Step && completions(&c.meter(&team).since(&before)) < 2 * n as u64 && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(200));
            }
        }
    }
    let served = c.settle(&team);
    let cpu_ms = (worker_cpu(c.rt) - cpu_before) * 1000.0;
    c.prune(&team);
    let pruned = c.settle(&team);
    Life { events: n, delivered: scenario.delivered(fake, &channel), served: served.since(&before), pruned: pruned.since(&served), cpu_ms }
}

/// How many rows the meter saw completed as done (each effect's completion, a step's guard's).
fn completions(m: &Meter) -> u64 {
    m.statements.iter().filter(|(sql, _)| sql.starts_with("UPDATE outbox SET status = 'done'")).map(|(_, t)| t.runs).sum()
}

fn worker_cpu(rt: &Runtime) -> f64 {
    rt.cpu_by_process().iter().filter(|(kind, _)| *kind == "worker").map(|(_, s)| s).sum()
}

/// USD per million events: rows written and read, the actor's requests and alarms, the Worker
/// request and its CPU.
fn dollars(m: &Meter, per: f64, cpu_ms: f64) -> f64 {
    let t = m.totals();
    (m.billed_rows_written() as f64 * PER_MILLION_ROWS_WRITTEN
        + t.rows_read as f64 * PER_MILLION_ROWS_READ
        + (m.requests + m.alarms) as f64 * PER_MILLION_DO_REQUESTS)
        / per
        + PER_MILLION_WORKER_REQUESTS
        + cpu_ms * PER_MILLION_CPU_MS
}

fn summary(name: &str, scenario: Scenario, life: &Life) -> String {
    let per = life.events as f64;
    let whole = life.whole();
    let f = |x: u64| format!("{:.2}", x as f64 / per);
    let writes = |m: &Meter| f(m.billed_rows_written());
    let cpu = life.cpu_ms / per;
    format!(
        "| {name}, {} ({} {}, {} delivered) | **{}** ({} + {} pruning) | {} | {} | {} | {} | {} | {cpu:.2} | ${:.2} (rows written ${:.2}) |",
        scenario.label(),
        life.events,
        if scenario == Scenario::Reconcile { "pages" } else { "events" },
        life.delivered,
        writes(&whole),
        writes(&life.served),
        writes(&life.pruned),
        f(whole.totals().rows_read),
        f(whole.totals().runs),
        f(whole.set_alarms + whole.delete_alarms),
        f(life.served.requests),
        f(life.served.alarms),
        dollars(&whole, per, cpu),
        whole.billed_rows_written() as f64 / per * PER_MILLION_ROWS_WRITTEN,
    )
}

fn breakdown(name: &str, scenario: Scenario, life: &Life) -> String {
    let per = life.events as f64;
    let mut lines = vec![format!(
        "\n{name}, {}: per statement, per event (runs / rows written / rows read)\n\n| statement | runs | rows written | rows read |\n| --- | --- | --- | --- |",
        scenario.label()
    )];
    let mut all: Vec<_> = life.whole().statements.into_iter().collect();
    all.sort_by(|a, b| b.1.rows_written.cmp(&a.1.rows_written).then(b.1.runs.cmp(&a.1.runs)));
    for (sql, t) in all {
        let short: String = sql.chars().take(110).collect();
        let short = if short.len() < sql.len() { format!("{short}…") } else { short };
        lines.push(format!(
            "| `{}` | {:.3} | {:.3} | {:.2} |",
            short.replace('|', "\\|"),
            t.runs as f64 / per,
            t.rows_written as f64 / per,
            t.rows_read as f64 / per
        ));
    }
    let whole = life.whole();
    lines.push(format!(
        "| `setAlarm` / `deleteAlarm` | {:.3} / {:.3} | {:.3} | |",
        whole.set_alarms as f64 / per,
        whole.delete_alarms as f64 / per,
        (whole.set_alarms + whole.delete_alarms) as f64 / per
    ));
    lines.join("\n")
}

/// The figures: one summary table, then each statement of slackline's and the design floor's
/// scenarios.
pub fn figures(scale: &dyn Fn(usize) -> usize) -> String {
    let fake = FakeSlack::start();
    let llm = FakeLlm::start(LlmSettings { tokens: 20, tokens_per_second: 1_000, ..LlmSettings::default() });
    // A step's guard is due 3 s after its event (15 minutes by default) so that its life ends
    // within the run; it costs the same rows whenever it runs.
    let app =
        Runtime::start(Settings::new("bench-cost", &fake).var("LOG_DELIVERIES", "failures").var("LISTS_PACE_MS", "0").var("STEP_DEADLINE_MS", "3000").bare());
    let design = Runtime::start(Settings::new("bench-cost-design", &fake).config("benches/apps/design-floor/wrangler.toml").bare());
    let with_llm = Runtime::start(Settings::new("bench-cost-llm", &fake).var("LOG_DELIVERIES", "failures").var("LLM_API_URL", &llm.url()).bare());
    let triage = Runtime::start(Settings::example("triage", &fake).var("LOG_DELIVERIES", "failures").var("TRIAGE_CHANNEL", &unique("C")).bare());
    use Scenario::*;
    let contenders: [(Contender, &[Scenario]); 4] = [
        (
            Contender { name: "slackline", rt: &app, events_path: "/slack/events" },
            &[Burst, Ignored, Quiet, Notify, Command, Click, Step, Unfurl, ListSync, ListQuiet, Reconcile],
        ),
        (Contender { name: "design floor", rt: &design, events_path: "/" }, &[Burst, Ignored, Quiet]),
        (Contender { name: "slackline with an LLM", rt: &with_llm, events_path: "/slack/events" }, &[LlmReply]),
        (Contender { name: "slackline, examples/triage", rt: &triage, events_path: "/slack/events" }, &[Reminder]),
    ];
    let mut out = vec![
        "| contender, scenario | rows written per event (billed, `setAlarm` included): whole life (served + pruning) | rows read | statements | `setAlarm` + `deleteAlarm` | actor requests | alarms | worker CPU ms | USD per million events (of which rows written) |".to_string(),
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |".to_string(),
    ];
    let mut details = Vec::new();
    for (c, scenarios) in &contenders {
        // The first events compile and start the isolate: not counted.
        run(c, &fake, scenarios[0], &|_| 5);
        for &scenario in scenarios.iter() {
            let life = run(c, &fake, scenario, scale);
            out.push(summary(c.name, scenario, &life));
            details.push(breakdown(c.name, scenario, &life));
        }
    }
    out.push(String::new());
    out.extend(details);
    out.join("\n")
}
