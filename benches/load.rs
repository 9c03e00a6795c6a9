//! `make bench`: slackline against the runtime's floor, on this machine, on 127.0.0.1 only.
//!
//! One run starts, under the same wrangler and workerd: slackline (with benchmark seeding allowed),
//! a hello-world Worker (the floor) and the floor printing slackline's log lines. They are served
//! by `scripts/serve.mjs` (wrangler's own API with the dev-only tooling off: inspector, local
//! explorer, local observability); at the end the floor and slackline are measured once more under
//! plain `wrangler dev` with its defaults. A load generator sends signed Slack requests with unique
//! event ids, bounded in count and time, and prints the figures as a Markdown table (copied into
//! docs/benchmarks.md). These are figures, not pass/fail tests.

#[path = "load/alarm.rs"]
mod alarm;
#[path = "load/answer_cost.rs"]
mod answer_cost;
#[path = "load/assistant.rs"]
mod assistant;
#[path = "load/ceiling.rs"]
mod ceiling;
#[path = "load/cost.rs"]
mod cost;
#[path = "load/dispatch.rs"]
mod dispatch;
#[path = "load/entry.rs"]
mod entry;
// The bench uses only part of the test harness.
#[path = "load/grid.rs"]
mod grid;
#[path = "load/harness.rs"]
mod harness;
#[path = "load/overload.rs"]
mod overload;
#[path = "load/pacing.rs"]
mod pacing;
#[path = "load/releases.rs"]
mod releases;
#[path = "load/schedule.rs"]
mod schedule;
#[path = "load/startup.rs"]
mod startup;
#[path = "load/state.rs"]
mod state;
#[path = "../tests/e2e/support/mod.rs"]
#[allow(dead_code, unused_imports)]
mod support;
#[path = "load/views.rs"]
mod views;

use harness::{BenchSettings, Readings};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use support::slack::{envelope, mention, now_secs, sign};
use support::{unique, FakeSlack, Runtime, Settings};

const CLIENTS: usize = 16;

/// One request's result.
#[derive(Clone)]
struct Sample {
    latency: Duration,
    status: u16,
    acked_at: Instant,
    channel: String,
    ts: String,
}

struct Run {
    samples: Vec<Sample>,
    wall: Duration,
}

impl Run {
    fn latencies(&self) -> Vec<Duration> {
        let mut l: Vec<Duration> = self.samples.iter().map(|s| s.latency).collect();
        l.sort();
        l
    }
    fn non_2xx(&self) -> usize {
        self.samples.iter().filter(|s| !(200..300).contains(&s.status)).count()
    }
    fn rps(&self) -> f64 {
        self.samples.len() as f64 / self.wall.as_secs_f64()
    }
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// The median of `values` (the mean of the middle two of an even count).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => 0.0,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1000.0)
}

/// What the load generator sends.
#[derive(Clone, Copy)]
enum Kind {
    /// An `app_mention`: a receipt, one outbox row, one reply delivered.
    Mention,
    /// A `reaction_added` the app ignores: a receipt only (the ack path without deliveries).
    Ignored,
    /// A notify API post (`POST /api/teams/{team}/messages`, a fresh `Idempotency-Key`).
    Notify,
    /// A signed `url_verification`: answered by the front door alone (verify, parse; no actor).
    Challenge,
}

/// Posts one notify API message (a fresh `Idempotency-Key`) and times its answer.
fn send_notify(agent: &ureq::Agent, base: &str, team: &str, channel: &str, ts: String) -> Sample {
    let body = serde_json::json!({"channel": channel, "text": format!("notify {ts}")}).to_string();
    let sent = Instant::now();
    let status = match agent
        .post(&format!("{base}/api/teams/{team}/messages"))
        .set("authorization", &format!("Bearer {}", support::API_TOKEN))
        .set("idempotency-key", &unique("bench-"))
        .set("content-type", "application/json")
        .send_string(&body)
    {
        Ok(r) => r.status(),
        Err(ureq::Error::Status(code, _)) => code,
        Err(_) => 0,
    };
    let acked_at = Instant::now();
    Sample { latency: acked_at - sent, status, acked_at, channel: channel.to_string(), ts }
}

/// Sends one signed event (posted at `ts` in `channel`, unique event id) and times its answer.
fn send(agent: &ureq::Agent, url: &str, team: &str, channel: &str, ts: String, kind: Kind) -> Sample {
    let event = match kind {
        Kind::Mention => mention(channel, &ts, "bench"),
        Kind::Ignored | Kind::Notify | Kind::Challenge => serde_json::json!({"type": "reaction_added", "user": "U1", "reaction": "eyes", "event_ts": ts}),
    };
    let body = match kind {
        Kind::Challenge => serde_json::json!({"token": "bench", "challenge": ts, "type": "url_verification"}),
        _ => envelope(team, &unique("Ev"), event),
    };
    send_signed(agent, url, &body.to_string().into_bytes(), channel, ts)
}

/// Posts one signed Events API body (about the message posted at `ts` in `channel`) and times
/// its answer.
fn send_signed(agent: &ureq::Agent, url: &str, body: &[u8], channel: &str, ts: String) -> Sample {
    let stamp = now_secs().to_string();
    let sent = Instant::now();
    let status = match agent
        .post(url)
        .set("content-type", "application/json")
        .set("x-slack-request-timestamp", &stamp)
        .set("x-slack-signature", &sign(&stamp, body))
        .send_bytes(body)
    {
        Ok(r) => r.status(),
        Err(ureq::Error::Status(code, _)) => code,
        Err(_) => 0,
    };
    let acked_at = Instant::now();
    Sample { latency: acked_at - sent, status, acked_at, channel: channel.to_string(), ts }
}

/// Sends `n` signed events from `clients` threads; `team_of(i)` picks each event's team.
fn load(base: &str, n: usize, clients: usize, team_of: &(dyn Fn(usize) -> String + Sync), path: &str) -> Run {
    load_kind(base, n, clients, team_of, path, Kind::Mention)
}

fn load_kind(base: &str, n: usize, clients: usize, team_of: &(dyn Fn(usize) -> String + Sync), path: &str, kind: Kind) -> Run {
    load_in(base, n, clients, team_of, path, kind, Channels::PerClient)
}

/// Which channel each event of a load is posted in.
#[derive(Clone, Copy)]
enum Channels {
    /// One per client: each client's events all in its own (16 channels at 16 clients).
    PerClient,
    /// A fresh one for every event (issue 57's harness: 2,000 mentions over 2,000 channels).
    PerEvent,
}

/// Sends `n` signed events of `kind` from `clients` threads, posted in `channels`.
fn load_in(base: &str, n: usize, clients: usize, team_of: &(dyn Fn(usize) -> String + Sync), path: &str, kind: Kind, channels: Channels) -> Run {
    let next = AtomicUsize::new(0);
    let samples = Mutex::new(Vec::with_capacity(n));
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..clients {
            scope.spawn(|| {
                let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(30)).build();
                let own = unique("C");
                let mut mine = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        break;
                    }
                    let ts = format!("{}.{i:06}", 1_700_000_000 + i);
                    let channel = match channels {
                        Channels::PerClient => own.clone(),
                        Channels::PerEvent => unique("C"),
                    };
                    mine.push(match kind {
                        Kind::Notify => send_notify(&agent, base, &team_of(i), &channel, ts),
                        _ => send(&agent, &format!("{base}{path}"), &team_of(i), &channel, ts, kind),
                    });
                }
                samples.lock().unwrap().extend(mine);
            });
        }
    });
    Run { samples: samples.into_inner().unwrap(), wall: started.elapsed() }
}

/// Sends `n` signed mentions one at a time at `per_second` (open loop: a slot is kept even when
/// an ack was slow), rotating over `teams`: the latency of a reply when the runtime is not saturated.
fn load_paced(base: &str, n: usize, per_second: f64, teams: &[String]) -> Run {
    let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(30)).build();
    let channel = unique("C");
    let started = Instant::now();
    let mut samples = Vec::with_capacity(n);
    for i in 0..n {
        let slot = started + Duration::from_secs_f64(i as f64 / per_second);
        if let Some(wait) = slot.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        let ts = format!("{}.{i:06}", 1_600_000_000 + i);
        samples.push(send(&agent, &format!("{base}/slack/events"), &teams[i % teams.len()], &channel, ts, Kind::Mention));
    }
    Run { samples, wall: started.elapsed() }
}

/// Sends `n` signed mentions into one team at `per_second` in total from `clients` threads (open
/// loop: each thread keeps its slots even when an ack was slow).
fn load_rate(base: &str, n: usize, per_second: f64, clients: usize, team: &str) -> Run {
    let samples = Mutex::new(Vec::with_capacity(n));
    let started = Instant::now();
    std::thread::scope(|scope| {
        for client in 0..clients {
            let samples = &samples;
            scope.spawn(move || {
                let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(30)).build();
                let channel = unique("C");
                let mut mine = Vec::new();
                for i in (client..n).step_by(clients) {
                    let slot = started + Duration::from_secs_f64(i as f64 / per_second);
                    if let Some(wait) = slot.checked_duration_since(Instant::now()) {
                        std::thread::sleep(wait);
                    }
                    let ts = format!("{}.{i:06}", 1_500_000_000 + i);
                    mine.push(send(&agent, &format!("{base}/slack/events"), team, &channel, ts, Kind::Mention));
                }
                samples.lock().unwrap().extend(mine);
            });
        }
    });
    Run { samples: samples.into_inner().unwrap(), wall: started.elapsed() }
}

/// Steady load into one team: `per_second` events for `seconds`, the team's pending backlog polled
/// every 100 ms meanwhile; returns the run, the largest backlog seen and how long the backlog took
/// to drain after the last ack.
fn steady(app: &Runtime, per_second: f64, seconds: usize) -> (Run, i64, Duration) {
    let c = app.client();
    let team = unique("T");
    let stop = std::sync::atomic::AtomicBool::new(false);
    let max_pending = std::sync::atomic::AtomicI64::new(0);
    let run = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !stop.load(Ordering::Relaxed) {
                let pending = c.admin_get(&format!("/admin/teams/{team}/stats")).json()["pending"].as_i64().unwrap_or(0);
                max_pending.fetch_max(pending, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        let run = load_rate(&app.base_url(), (per_second * seconds as f64) as usize, per_second, CLIENTS, &team);
        stop.store(true, Ordering::Relaxed);
        run
    });
    let ended = run.samples.iter().map(|s| s.acked_at).max().unwrap_or_else(Instant::now);
    let drained = support::eventually("the backlog drained", Duration::from_secs(300), || {
        let stats = c.admin_get(&format!("/admin/teams/{team}/stats")).json();
        (stats["pending"].as_i64() == Some(0)).then(|| ended.elapsed())
    });
    (run, max_pending.load(Ordering::Relaxed), drained)
}

/// The peer app (`benches/apps/peer`: slack-cloudflare-workers, acks and posts from `waitUntil`,
/// nothing durable), served by the same wrangler as ours. Its node modules are installed in place
/// (`node_modules/` there is git-ignored) from its own lock file, again whenever the lock file is
/// newer than the install; `None` (and a note) when that install fails.
fn peer(fake: &FakeSlack, root: &str) -> Option<Runtime> {
    let dir = std::path::Path::new(root).join("benches/apps/peer");
    let modified = |file: &str| std::fs::metadata(dir.join(file)).and_then(|m| m.modified()).ok();
    let installed = modified("node_modules/.package-lock.json").is_some_and(|at| Some(at) >= modified("package-lock.json"));
    if !installed {
        eprintln!("installing the peer app's node modules in {} (npm ci)", dir.display());
        let path = format!("{root}/node_modules/.bin:{}", std::env::var("PATH").unwrap_or_default());
        let npm = std::process::Command::new("npm").args(["ci", "--no-audit", "--no-fund", "--loglevel=error"]).current_dir(&dir).env("PATH", path).status();
        if !npm.is_ok_and(|s| s.success()) {
            eprintln!("could not install the peer app in {}: the peer rows are skipped", dir.display());
            return None;
        }
    }
    let settings = Settings::new("bench-peer", fake).config("benches/apps/peer/wrangler.toml").var("MOCK_SLACK", &fake.base_url()).bare();
    Some(Runtime::start(settings))
}

/// Worker CPU per event by stage, from three loads of `n` events at 16 clients over 16 teams:
/// a signed `url_verification` (the front door alone: verify, parse, answer), an event the app
/// ignores (plus the actor hop and the receipt's unit), a mention (plus the outbox row, its
/// sweep, the Slack call and the completion). Each stage is the difference of two loads.
struct Stages {
    /// Worker ms per request of each load: challenge, receipt only, mention.
    worker_ms: [f64; 3],
    /// The receipt-only load's ack latencies (sorted).
    receipt_only: Vec<Duration>,
}

impl Stages {
    fn measure(rt: &Runtime, fake: &FakeSlack, n: usize, path: &'static str) -> Stages {
        let mut receipt_only = Vec::new();
        let mut worker_ms = [0.0; 3];
        for (i, kind) in [Kind::Challenge, Kind::Ignored, Kind::Mention].into_iter().enumerate() {
            let mut stage = Contender::new("stage", rt, path, kind, matches!(kind, Kind::Mention));
            stage.chunk(fake, n);
            worker_ms[i] = stage.worker_ms();
            if matches!(kind, Kind::Ignored) {
                receipt_only = stage.latencies();
            }
        }
        Stages { worker_ms, receipt_only }
    }

    /// "front; +hop and receipt; +delivery (total)".
    fn cells(&self) -> String {
        let [front, receipt, mention] = self.worker_ms;
        format!("{front:.2}; +{:.2}; +{:.2} (total {mention:.2})", receipt - front, mention - receipt)
    }
}

/// The stages table row for one runtime.
fn stages(rt: &Runtime, fake: &FakeSlack, n: usize, path: &'static str) -> String {
    format!("| 6 | worker ms per event by stage: front door (verify, parse, answer); + actor hop and receipt unit; + outbox row, sweep, Slack call, completion | {} |", Stages::measure(rt, fake, n, path).cells())
}

/// Log lines and bytes per event and worker CPU per event, for `n` mentions (replies awaited) into
/// 16 fresh teams of `rt`.
fn log_cost(rt: &Runtime, fake: &FakeSlack, n: usize) -> String {
    let mut load = Contender::new("log cost", rt, "/slack/events", Kind::Mention, true);
    let (lines, bytes) = rt.json_log_totals();
    load.chunk(fake, n);
    let (lines_after, bytes_after) = rt.json_log_totals();
    let per = |x: usize| x as f64 / n as f64;
    format!("{:.2} lines, {:.0} bytes, worker {:.2} ms", per(lines_after - lines), per(bytes_after - bytes), load.worker_ms())
}

/// Rounds of the interleaved comparison.
const ROUNDS: usize = 4;

/// One runtime and load of the interleaved comparison, with what its rounds measured.
struct Contender<'a> {
    name: &'static str,
    rt: &'a Runtime,
    path: &'static str,
    kind: Kind,
    /// Its replies are awaited (ack-to-delivery) and their CPU counted.
    delivers: bool,
    teams: Vec<String>,
    /// The channels its events are posted in (one per client unless [`Contender::channel_per_event`]).
    channels: Channels,
    samples: Vec<Sample>,
    deliveries: Vec<Duration>,
    wall: Duration,
    /// CPU seconds by process kind (worker, proxy, node, other).
    cpu: [f64; 4],
    events: usize,
}

impl<'a> Contender<'a> {
    fn new(name: &'static str, rt: &'a Runtime, path: &'static str, kind: Kind, delivers: bool) -> Contender<'a> {
        let teams = (0..CLIENTS).map(|_| unique("T")).collect();
        Contender {
            name,
            rt,
            path,
            kind,
            delivers,
            teams,
            channels: Channels::PerClient,
            samples: Vec::new(),
            deliveries: Vec::new(),
            wall: Duration::ZERO,
            cpu: [0.0; 4],
            events: 0,
        }
    }

    /// The same contender with each event posted in a channel of its own.
    fn channel_per_event(self) -> Contender<'a> {
        Contender { channels: Channels::PerEvent, ..self }
    }

    /// The same contender with every event in team `team`: one actor.
    fn one_team(self, team: &str) -> Contender<'a> {
        Contender { teams: vec![team.to_string(); CLIENTS], ..self }
    }

    /// `n` events not counted: the first requests compile and start each team's actor.
    fn warm(&mut self, fake: &FakeSlack, n: usize) {
        self.chunk(fake, n);
        *self = Contender { channels: self.channels, ..Contender::new(self.name, self.rt, self.path, self.kind, self.delivers) };
    }

    /// One chunk of `n` events (and, when it delivers, until its replies arrived).
    fn chunk(&mut self, fake: &FakeSlack, n: usize) {
        let before = self.rt.cpu_by_process();
        let teams = &self.teams;
        let run = load_in(&self.rt.base_url(), n, CLIENTS, &|i| teams[i % CLIENTS].clone(), self.path, self.kind, self.channels);
        if self.delivers {
            self.deliveries.extend(delivery_latencies(fake, &run, Duration::from_secs(120)).0);
        }
        for (total, (after, before)) in self.cpu.iter_mut().zip(self.rt.cpu_by_process().iter().zip(&before)) {
            *total += after.1 - before.1;
        }
        self.events += run.samples.len();
        self.wall += run.wall;
        self.samples.extend(run.samples);
    }

    fn latencies(&self) -> Vec<Duration> {
        let mut l: Vec<Duration> = self.samples.iter().map(|s| s.latency).collect();
        l.sort();
        l
    }

    fn sorted_deliveries(&self) -> Vec<Duration> {
        let mut d = self.deliveries.clone();
        d.sort();
        d
    }

    fn acked(&self) -> usize {
        self.samples.iter().filter(|s| s.status == 200).count()
    }

    /// Its samples as one run (for [`latency_row`]).
    fn run(&self) -> Run {
        Run { samples: self.samples.clone(), wall: self.wall }
    }

    /// Worker CPU, ms per event.
    fn worker_ms(&self) -> f64 {
        self.cpu[0] * 1000.0 / self.events.max(1) as f64
    }

    /// "worker a, proxy b, node c" in ms per event.
    fn cpu_split(&self) -> String {
        let names = ["worker", "proxy", "node"];
        names.iter().zip(self.cpu).map(|(name, secs)| format!("{name} {:.2}", secs * 1000.0 / self.events.max(1) as f64)).collect::<Vec<_>>().join(", ")
    }
}

/// `n` events for each contender, in `rounds` chunks, each round starting with another one.
fn interleave(contenders: &mut [Contender], fake: &FakeSlack, n: usize, rounds: usize) {
    for (_, k) in rotation(contenders.len(), rounds) {
        contenders[k].chunk(fake, n / rounds);
    }
}

/// The turns of `rounds` interleaved rounds of `count` contenders, as (round, contender): each
/// round starts with the next one, so that the machine's drift weighs on all alike.
fn rotation(count: usize, rounds: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..rounds).flat_map(move |round| (0..count).map(move |k| (round, (round + k) % count)))
}

/// Ack-to-delivery: for each acked event, the fake's arrival time of its reply minus the ack time.
fn delivery_latencies(fake: &FakeSlack, run: &Run, deadline: Duration) -> (Vec<Duration>, usize) {
    let wanted = run.samples.iter().filter(|s| s.status == 200).count();
    let until = Instant::now() + deadline;
    // The fake's calls are read incrementally: copying all of them on every poll would compete
    // with the runtime for the two cores while it delivers.
    let (mut seen, mut arrivals) = (0, std::collections::HashMap::new());
    loop {
        let calls = fake.calls_after(seen);
        seen += calls.len();
        note_replies(&calls, &mut arrivals);
        let mut l: Vec<Duration> = run
            .samples
            .iter()
            .filter(|s| s.status == 200)
            .filter_map(|s| arrivals.get(&(s.channel.clone(), s.ts.clone())).map(|at| at.saturating_duration_since(s.acked_at)))
            .collect();
        if l.len() >= wanted || Instant::now() > until {
            l.sort();
            return (l, wanted);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Notes when each reply (a `chat.postMessage` in a thread: its channel and `thread_ts`) first
/// reached the fake, of `calls`.
fn note_replies(calls: &[support::Call], arrivals: &mut std::collections::HashMap<(String, String), Instant>) {
    for c in calls.iter().filter(|c| c.method == "chat.postMessage") {
        if let (Some(ch), Some(ts)) = (c.field("channel"), c.field("thread_ts")) {
            arrivals.entry((ch.to_string(), ts.to_string())).or_insert(c.at);
        }
    }
}

/// One row of latency figures.
fn latency_row(label: &str, run: &Run) -> String {
    let l = run.latencies();
    format!("| 1 | {label} | {} / {} / {} ms, {:.0} req/s, {} non-2xx |", ms(pct(&l, 0.5)), ms(pct(&l, 0.9)), ms(pct(&l, 0.99)), run.rps(), run.non_2xx())
}

/// CPU seconds per process kind used between two readings of [`Readings::cpu_by_process`].
fn cpu_split(before: &[(&'static str, f64)], after: &[(&'static str, f64)], events: usize) -> String {
    after
        .iter()
        .zip(before)
        .filter(|((_, a), (_, b))| a - b > 0.005)
        .map(|((kind, a), (_, b))| format!("{kind} {:.2}", (a - b) * 1000.0 / events as f64))
        .collect::<Vec<_>>()
        .join(", ")
}

fn gzip_size(path: &str) -> u64 {
    let out = std::process::Command::new("sh").arg("-c").arg(format!("gzip -9 -c {path} | wc -c")).output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap_or(0)
}

/// One reconciliation pass over a List of `rows` rows (100 per page, both passes): 1 in 20 rows
/// linked to a record created through the API, the rest orphans (each row costs the same two
/// lookups; a linked one one more write). Pacing is off in the bench runtime (`LISTS_PACE_MS=0`):
/// this measures slackline, not Slack's tier.
fn reconcile_figures(app: &Runtime, fake: &FakeSlack, rows: usize) -> String {
    let c = app.client();
    let (team, list) = (unique("T"), unique("F"));
    let base = format!("/api/teams/{team}/lists/{list}");
    let map = serde_json::json!({"key_column": "ColKEY", "columns": {"title": {"column_id": "ColT", "type": "text"}}});
    assert_eq!(c.api("PUT", &base, Some(&map)).status, 200);
    let linked = rows / 20;
    for i in 0..linked {
        assert_eq!(c.api("PUT", &format!("{base}/records/r{i}"), Some(&serde_json::json!({"title": format!("record {i}")}))).status, 200);
    }
    support::eventually("the records synced", Duration::from_secs(600), || {
        let pending = c.api("GET", &format!("{base}/records?state=pending&limit=1"), None).json();
        pending["records"].as_array().is_some_and(|r| r.is_empty()).then_some(())
    });
    fake.seed_rows(&list, rows - linked, |i| vec![support::fake_slack::text_cell("ColKEY", &format!("stranger-{i}"))]);
    let started = Instant::now();
    let a = c.api("POST", &format!("{base}/reconcile"), None);
    assert_eq!(a.status, 202, "{}", a.body);
    let id = a.json()["id"].as_i64().unwrap();
    let pass = support::eventually("the pass finished", Duration::from_secs(600), || {
        let runs = c.api("GET", &format!("{base}/reconcile"), None).json();
        runs["runs"].as_array()?.iter().find(|r| r["id"] == id && !r["finished_at"].is_null()).cloned()
    });
    let wall = started.elapsed();
    let report = &pass["report"];
    let inside = pass["finished_at"].as_i64().unwrap_or(0) - pass["started_at"].as_i64().unwrap_or(0);
    format!(
        "| 7 | reconciliation: {} rows ({} linked), {} pages, both passes | {:.1} s wall ({:.0} rows/s); {} ms first page to last ({:.0} rows/s) |",
        report["rows"],
        report["seen"],
        report["pages"],
        wall.as_secs_f64(),
        rows as f64 / wall.as_secs_f64(),
        inside,
        rows as f64 * 1000.0 / inside.max(1) as f64
    )
}

/// Row 5, growth: the ack p50 of an actor holding 1,000,000 receipts and 100,000 delivered rows
/// (seeded through the admin API's bench seed) against an empty one, in interleaved rounds.
fn growth_figure(app: &Runtime, scale: &dyn Fn(usize) -> usize) -> String {
    let (big, empty) = (unique("T"), unique("T"));
    let c = app.client();
    let (receipts, done) = (scale(1_000_000), scale(100_000));
    let seed_started = Instant::now();
    for chunk in 0..(receipts / 100_000).max(1) {
        let d = if chunk == 0 { done } else { 0 };
        let a = c.admin_post(&format!("/admin/teams/{big}/seed?receipts={}&done={d}&from={}", receipts.min(100_000), chunk * 100_000));
        assert_eq!(a.status, 200, "{}", a.body);
    }
    let seeded = c.stats(&big);
    // Interleaved rounds (empty first, then big first, ...) so that drift in the machine's speed
    // during the run weighs on both sides alike.
    let (rounds, g) = (4, scale(2000) / 4);
    let (mut empty_l, mut big_l) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        for actor in if round % 2 == 0 { [&empty, &big] } else { [&big, &empty] } {
            let run = load(&app.base_url(), g, CLIENTS, &|_| actor.clone(), "/slack/events");
            if actor == &empty {
                empty_l.extend(run.latencies())
            } else {
                big_l.extend(run.latencies())
            }
        }
    }
    empty_l.sort();
    big_l.sort();
    let (e50, b50) = (pct(&empty_l, 0.5), pct(&big_l, 0.5));
    format!(
        "| 5 | growth: ack p50, empty actor vs {} receipts + {} done rows (seeded in {:.0} s) | {} ms vs {} ms: ratio {:.2} |",
        seeded["receipts"],
        done,
        seed_started.elapsed().as_secs_f64(),
        ms(e50),
        ms(b50),
        b50.as_secs_f64() / e50.as_secs_f64()
    )
}

/// Goal 3 of issue 25, the speed against the limit of this architecture: `runs` independent
/// interleaved runs (fresh teams each) of the floor, slackline (deliveries on) and the design
/// floor, `n` events each in `ROUNDS` rounds; per run the ack p50 of each, slackline ÷ design
/// floor, and the worker CPU per acknowledged-and-delivered event of both; then the spread.
fn speed_figures(app: &Runtime, fake: &FakeSlack, n: usize, runs: usize) -> String {
    let floor = Runtime::start(Settings::new("bench-floor", fake).config("benches/apps/floor/wrangler.toml").bare());
    let design = design_floor_as_deployed(fake);
    // Fresh teams each time: a run never shares an actor with the warm-up or another run.
    let contenders = || {
        [
            Contender::new("floor", &floor, "/", Kind::Mention, false),
            Contender::new("slackline", app, "/slack/events", Kind::Mention, true),
            Contender::new("design floor", &design, "/", Kind::Mention, true),
        ]
    };
    for c in contenders().iter_mut() {
        c.warm(fake, 400);
    }
    let p50 = |c: &Contender| pct(&c.latencies(), 0.5).as_secs_f64() * 1000.0;
    let mut out = String::from("| run | floor ack p50 | slackline ack p50 | design floor ack p50 | slackline ÷ design floor, ack p50 | worker CPU ms per acked-and-delivered event: slackline / design floor | CPU ratio |\n| --- | --- | --- | --- | --- | --- | --- |\n");
    let (mut acks, mut cpus) = (Vec::new(), Vec::new());
    for run in 1..=runs {
        let mut run_contenders = contenders();
        interleave(&mut run_contenders, fake, n, ROUNDS);
        let [f, a, d] = &run_contenders;
        let (ack, cpu) = (p50(a) / p50(d), a.worker_ms() / d.worker_ms());
        acks.push(ack);
        cpus.push(cpu);
        out += &format!(
            "| {run} | {:.2} ms | {:.2} ms | {:.2} ms | {ack:.2}x | {:.2} / {:.2} | {cpu:.2}x |\n",
            p50(f),
            p50(a),
            p50(d),
            a.worker_ms(),
            d.worker_ms()
        );
        eprintln!("speed run {run} of {runs}: ack {ack:.2}x, CPU {cpu:.2}x; load average {}", load_average());
    }
    let spread = |v: &[f64]| format!("{:.2}–{:.2}x", v.iter().cloned().fold(f64::MAX, f64::min), v.iter().cloned().fold(f64::MIN, f64::max));
    out += &format!("| all {runs} | | | | {} | | {} |", spread(&acks), spread(&cpus));
    out
}

/// slackline as deployed (no test hooks, so no cost meter; delivery lines for failures only), for
/// the runs that compare it with the design floor.
fn slackline_as_deployed(fake: &FakeSlack) -> Runtime {
    Runtime::start(deployed(fake))
}

/// The settings of [`slackline_as_deployed`]: this build's bundle unless `script` is replaced (an
/// earlier release's, `benches/load/releases.rs`).
fn deployed(fake: &FakeSlack) -> Settings {
    Settings::new("bench-speed", fake).var("LOG_DELIVERIES", "failures").var("ALLOW_TEST_CLOCK", "0").bare()
}

/// The design floor as deployed (it meters only in a test deployment, as slackline does).
fn design_floor_as_deployed(fake: &FakeSlack) -> Runtime {
    Runtime::start(design_floor_settings(fake))
}

/// The settings of [`design_floor_as_deployed`].
fn design_floor_settings(fake: &FakeSlack) -> Settings {
    Settings::new("bench-design", fake).config("benches/apps/design-floor/wrangler.toml").var("ALLOW_TEST_CLOCK", "0").bare()
}

/// The machine's load average (1, 5, 15 minutes), as `/proc/loadavg` gives it: how busy the shared
/// cores were around a run.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" ")).unwrap_or_else(|_| "unknown".into())
}

fn main() {
    let quick = std::env::var("BENCH_QUICK").is_ok();
    let scale = |n: usize| if quick { n / 10 } else { n };
    if std::env::var("BENCH_ONLY").as_deref() == Ok("pacing") {
        // `BENCH_ONLY=pacing make bench`: Slack's rate limits, enforced by the fake (about 12 min).
        println!("| # | measure | figure |\n| --- | --- | --- |\n{}", pacing::figures(&scale));
        return;
    }
    if std::env::var("BENCH_ONLY").as_deref() == Ok("alarm") {
        // `BENCH_ONLY=alarm make bench`: many quiet teams, each event arriving as the last sweep
        // ends, the CPUs busy: the worst ack → delivery and any reply stranded (issue 33).
        let before = load_average();
        println!("| # | measure | figure |\n| --- | --- | --- |\n{}", alarm::figures(&scale));
        println!("| — | load average (1, 5, 15 min) before / after | {before} / {} |", load_average());
        return;
    }
    if std::env::var("BENCH_ONLY").as_deref() == Ok("dispatch") {
        // `BENCH_ONLY=dispatch make bench`: the listener API against DefaultApp (and an older
        // build, BENCH_BEFORE), interleaved.
        println!("| # | measure | figure |\n| --- | --- | --- |\n{}", dispatch::figures(&scale));
        return;
    }
    if std::env::var("BENCH_ONLY").as_deref() == Ok("startup") {
        // `BENCH_ONLY=startup make bench`: a fresh isolate to its first answer, for the JS floor,
        // a workers-rs hello world, examples/echo and a template bot, with the bundles' sizes and
        // what their wasm costs V8; the start-up budgets (issue 39, goal 3).
        println!("{}", startup::figures());
        return;
    }
    if std::env::var("BENCH_ONLY").as_deref() == Ok("state") {
        // `BENCH_ONLY=state make bench`: the ack with 3 state reads and 1 write against none.
        println!("| # | measure | figure |\n| --- | --- | --- |\n{}", state::figures(&scale));
        return;
    }
    if std::env::var("BENCH_ONLY").as_deref() == Ok("schedule") {
        // `BENCH_ONLY=schedule make bench`: 10,000 reminders across 100 teams due in one minute.
        println!("| # | measure | figure |\n| --- | --- | --- |\n{}", schedule::figures(&scale));
        return;
    }
    if std::env::var("BENCH_ONLY").as_deref() == Ok("overload") {
        // `BENCH_ONLY=overload make bench`: one team actor's saturation point, then twice it.
        let before = load_average();
        println!("| # | measure | figure |\n| --- | --- | --- |\n{}", overload::figures(&scale));
        println!("| — | load average (1, 5, 15 min) before / after | {before} / {} |", load_average());
        return;
    }
    if std::env::var("BENCH_ONLY").as_deref() == Ok("grid") {
        // `BENCH_ONLY=grid make bench`: an org-wide install's 50 workspaces (one actor) against 50
        // workspaces installed each on its own (50 actors).
        let before = load_average();
        println!("| # | measure | figure |\n| --- | --- | --- |\n{}", grid::figures(&scale));
        println!("| — | load average (1, 5, 15 min) before / after | {before} / {} |", load_average());
        return;
    }
    if std::env::var("BENCH_ONLY").as_deref() == Ok("assistant") {
        // `BENCH_ONLY=assistant make bench`: ack → setStatus / first streamed text, and one long answer's calls and CPU.
        println!("| # | measure | figure |\n| --- | --- | --- |\n{}", assistant::figures(&scale));
        return;
    }
    if std::env::var("BENCH_ONLY").as_deref() == Ok("answer_cost") {
        // `BENCH_ONLY=answer_cost make bench`: one streamed answer's CPU, calls, rows and actor
        // time, slackline against a plain-JavaScript relay (issue 36, goal 6).
        println!("load average (1, 5, 15 min) before: {}\n\n{}", load_average(), answer_cost::figures());
        println!("\nload average (1, 5, 15 min) after: {}", load_average());
        return;
    }
    if std::env::var("BENCH_ONLY").as_deref() == Ok("cost") {
        // `BENCH_ONLY=cost make bench`: rows written and read, statements and alarms per event
        // over its whole life, pruning included, for slackline and the design floor.
        println!("load average (1, 5, 15 min) before: {}\n\n{}", load_average(), cost::figures(&scale));
        return;
    }
    if std::env::var("BENCH_ONLY").as_deref() == Ok("flexpane") {
        // `BENCH_ONLY=flexpane make bench`: ack → entity.presentDetails under 16 clients, the ticket desk.
        println!("| # | measure | figure |\n| --- | --- | --- |\n{}", views::flexpane_figures(&scale));
        return;
    }
    if std::env::var("BENCH_ONLY").as_deref() == Ok("views") {
        // `BENCH_ONLY=views make bench`: ack → views.open under 16 clients, the triage bot.
        println!("| # | measure | figure |\n| --- | --- | --- |\n{}", views::figures(&scale));
        return;
    }
    let fake = FakeSlack::start();
    if std::env::var("BENCH_ONLY").as_deref() == Ok("entry") {
        // `BENCH_ONLY=entry make bench`: the binding's cost per request, and the ack path alone.
        let runs = std::env::var("BENCH_RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(3);
        println!("load average (1, 5, 15 min) before: {}\n\n{}", load_average(), entry::figures(&fake, scale(4000), runs));
        println!("\nload average after: {}", load_average());
        return;
    }
    if std::env::var("BENCH_ONLY").as_deref() == Ok("ceiling") {
        // `BENCH_ONLY=ceiling make bench`: one team actor's CPU per event and its ceiling.
        let rounds = if quick { 1 } else { 3 };
        println!("{}", ceiling::figures(&fake, scale(6000), rounds));
        return;
    }
    if std::env::var("BENCH_ONLY").as_deref() == Ok("releases") {
        // `BENCH_ONLY=releases make bench`: this build, itself again and the previous release
        // (BENCH_PREVIOUS) beside the design floor, interleaved; the moves against the noise.
        println!("load average (1, 5, 15 min) before: {}\n\n{}", load_average(), releases::figures(&fake, quick));
        println!("\nload average after: {}", load_average());
        return;
    }
    if std::env::var("BENCH_ONLY").as_deref() == Ok("speed") {
        // `BENCH_ONLY=speed make bench`: slackline against the design floor, BENCH_RUNS (3) runs,
        // both as deployed: no test hooks, so neither counts its statements (the cost meter).
        let runs = std::env::var("BENCH_RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(3);
        let app = slackline_as_deployed(&fake);
        println!("load average (1, 5, 15 min) before: {}\n\n{}", load_average(), speed_figures(&app, &fake, scale(4000), runs));
        println!("\nload average after: {}", load_average());
        return;
    }
    // The production default for delivery lines (the test runtimes print every success).
    let app = Runtime::start(Settings::new("bench-app", &fake).var("ALLOW_BENCH_SEED", "1").var("LISTS_PACE_MS", "0").var("LOG_DELIVERIES", "failures").bare());
    if std::env::var("BENCH_ONLY").as_deref() == Ok("growth") {
        // `BENCH_ONLY=growth make bench`: the ack with 1 M receipts + 100,000 done rows ÷ empty.
        println!("| # | measure | figure |\n| --- | --- | --- |\n{}", growth_figure(&app, &scale));
        return;
    }
    if std::env::var("BENCH_ONLY").as_deref() == Ok("lists") {
        // `BENCH_ONLY=lists make bench`: the reconciliation figure alone.
        println!("| # | measure | figure |\n| --- | --- | --- |\n{}", reconcile_figures(&app, &fake, scale(10_000)));
        return;
    }
    if std::env::var("BENCH_ONLY").as_deref() == Ok("design") {
        // `BENCH_ONLY=design make bench`: the peer and the design floor, measured like the events load.
        let peer_rt = peer(&fake, env!("CARGO_MANIFEST_DIR"));
        let design = Runtime::start(Settings::new("bench-design", &fake).config("benches/apps/design-floor/wrangler.toml").bare());
        let mut contenders = vec![Contender::new("design floor", &design, "/", Kind::Mention, true)];
        if let Some(p) = &peer_rt {
            contenders.push(Contender::new("peer", p, "/", Kind::Mention, false));
        }
        for c in contenders.iter_mut() {
            c.warm(&fake, 400);
        }
        interleave(&mut contenders, &fake, scale(4000), 1);
        for c in &contenders {
            println!("{}", latency_row(&format!("{} ack", c.name), &c.run()));
            println!("| 6 | {}: ms per event by process | {} |", c.name, c.cpu_split());
        }
        let d = &contenders[0].sorted_deliveries();
        println!("| 2 | design floor ack-to-delivery p50 / p99 ({} delivered) | {} / {} ms |", d.len(), ms(pct(d, 0.5)), ms(pct(d, 0.99)));
        if std::env::var("BENCH_STAGES").is_ok() {
            println!("{}", stages(&design, &fake, scale(4000), "/"));
        }
        return;
    }
    if std::env::var("BENCH_ONLY").as_deref() == Ok("events") {
        // `BENCH_ONLY=events make bench`: the 16-client event load alone (e.g. under `perf record`
        // of the workerd processes, started after the warm-up line).
        let teams: Vec<String> = (0..CLIENTS).map(|_| unique("T")).collect();
        let _ = load(&app.base_url(), 400, CLIENTS, &|i| teams[i % CLIENTS].clone(), "/slack/events");
        eprintln!("warm; loading");
        let before = app.cpu_by_process();
        let run = load(&app.base_url(), scale(4000), CLIENTS, &|i| teams[i % CLIENTS].clone(), "/slack/events");
        let _ = delivery_latencies(&fake, &run, Duration::from_secs(120));
        println!("{}", latency_row("slackline ack", &run));
        println!("| 6 | ms per event by process | {} |", cpu_split(&before, &app.cpu_by_process(), run.samples.len()));
        if std::env::var("BENCH_STAGES").is_ok() {
            println!("{}", stages(&app, &fake, scale(4000), "/slack/events"));
        }
        return;
    }
    let floor = Runtime::start(Settings::new("bench-floor", &fake).config("benches/apps/floor/wrangler.toml").bare());
    let floor_logs = Runtime::start(Settings::new("bench-floor-logs", &fake).config("benches/apps/floor-logs/wrangler.toml").bare());
    let root = env!("CARGO_MANIFEST_DIR");

    println!("| # | measure | figure |\n| --- | --- | --- |");
    // Warm up (first requests compile and instantiate).
    let _ = load(&floor.base_url(), 200, CLIENTS, &|_| "TWARM".into(), "/");
    let _ = load(&floor_logs.base_url(), 200, CLIENTS, &|_| "TWARM".into(), "/");
    let warm_teams: Vec<String> = (0..CLIENTS).map(|_| unique("T")).collect();
    let _ = load(&app.base_url(), 400, CLIENTS, &|i| warm_teams[i % CLIENTS].clone(), "/slack/events");

    // 1 + 2 + 6b: ack latency at 16 clients, ack-to-delivery and CPU per event, for the floor,
    // the peer, slackline (deliveries on, and receipt only) and the design floor, interleaved in
    // rounds (each round in another order) so that the machine's drift weighs on all alike.
    let n = scale(4000);
    let peer_rt = peer(&fake, root);
    let design = Runtime::start(Settings::new("bench-design", &fake).config("benches/apps/design-floor/wrangler.toml").bare());
    if let Some(p) = &peer_rt {
        let _ = load(&p.base_url(), 200, CLIENTS, &|_| "TWARM".into(), "/");
    }
    let _ = load(&design.base_url(), 400, CLIENTS, &|i| warm_teams[i % CLIENTS].clone(), "/");
    let mut contenders = vec![
        Contender::new("floor", &floor, "/", Kind::Mention, false),
        Contender::new("slackline", &app, "/slack/events", Kind::Mention, true),
        Contender::new("receipt only", &app, "/slack/events", Kind::Ignored, false),
        Contender::new("design floor", &design, "/", Kind::Mention, true),
    ];
    if let Some(p) = &peer_rt {
        contenders.insert(1, Contender::new("peer", p, "/", Kind::Mention, false));
    }
    interleave(&mut contenders, &fake, n, ROUNDS);
    let by_name = |name: &str| contenders.iter().find(|c| c.name == name).expect("a contender");
    let (floor_c, app_c, receipt_c, design_c) = (by_name("floor"), by_name("slackline"), by_name("receipt only"), by_name("design floor"));
    let peer_c = contenders.iter().find(|c| c.name == "peer");
    let logs_run = load(&floor_logs.base_url(), n, CLIENTS, &|_| "TFLOOR".into(), "/");
    drop(floor_logs);
    let app_stages = Stages::measure(&app, &fake, n, "/slack/events");
    let design_stages = Stages::measure(&design, &fake, n, "/");
    // Log cost: the same runtime settings with a line per successful delivery too.
    let app_all = Runtime::start(Settings::new("bench-app-log-all", &fake).var("LOG_DELIVERIES", "all").bare());
    let _ = load(&app_all.base_url(), 400, CLIENTS, &|i| warm_teams[i % CLIENTS].clone(), "/slack/events");
    let (logs_default, logs_all) = (log_cost(&app, &fake, n / 2), log_cost(&app_all, &fake, n / 2));
    drop(app_all);
    let p50 = |c: &Contender| pct(&c.latencies(), 0.5).as_secs_f64();
    let ratio = |a: &Contender, b: &Contender| p50(a) / p50(b);
    println!(
        "{}",
        latency_row(
            &format!("floor (hello world) ack p50 / p90 / p99, {n} requests, {CLIENTS} clients, in {ROUNDS} rounds interleaved with the rows below"),
            &floor_c.run()
        )
    );
    println!("{}", latency_row("floor + slackline's JSON log lines (3 per request), p50 / p90 / p99", &logs_run));
    println!("{}", latency_row(&format!("slackline ack p50 / p90 / p99, {n} signed events, {CLIENTS} clients ({CLIENTS} teams)"), &app_c.run()));
    println!(
        "| 1 | ratio slackline / floor, p50 and p99 | {:.2}x / {:.2}x |",
        ratio(app_c, floor_c),
        pct(&app_c.latencies(), 0.99).as_secs_f64() / pct(&floor_c.latencies(), 0.99).as_secs_f64()
    );
    if let Some(peer_c) = peer_c {
        println!(
            "{}",
            latency_row(
                &format!("peer: slack-cloudflare-workers app (acks, posts from waitUntil, nothing durable), {n} signed events, {CLIENTS} clients"),
                &peer_c.run()
            )
        );
        println!(
            "| 1 | ratio slackline / peer, p50 and p99; peer / floor p50 | {:.2}x / {:.2}x; {:.2}x |",
            ratio(app_c, peer_c),
            pct(&app_c.latencies(), 0.99).as_secs_f64() / pct(&peer_c.latencies(), 0.99).as_secs_f64(),
            ratio(peer_c, floor_c)
        );
    }
    println!("{}", latency_row(&format!("slackline, receipt only (an event the app ignores: no outbox row, no delivery), {n} events"), &receipt_c.run()));
    println!("| 1 | ratio receipt only / floor, p50 | {:.2}x |", ratio(receipt_c, floor_c));
    println!("{}", latency_row(&format!("design floor: the design's fixed shape (docs/architecture.md) in plain JavaScript, nothing else (benches/apps/design-floor), {n} signed events, {CLIENTS} clients ({CLIENTS} teams)"), &design_c.run()));
    println!(
        "| 1 | ratio slackline / design floor, p50; design floor / peer, p50; design floor / floor, p50 | {:.2}x; {}; {:.2}x |",
        ratio(app_c, design_c),
        peer_c.map(|p| format!("{:.2}x", ratio(design_c, p))).unwrap_or_else(|| "no peer".into()),
        ratio(design_c, floor_c)
    );
    println!(
        "| 1 | receipt only / floor, p50, from the stage loads: slackline; design floor | {:.2}x; {:.2}x |",
        pct(&app_stages.receipt_only, 0.5).as_secs_f64() / p50(floor_c),
        pct(&design_stages.receipt_only, 0.5).as_secs_f64() / p50(floor_c)
    );
    println!(
        "| 2 | ack-to-delivery p50 / p99: slackline ({} of {}); design floor ({} of {}) | {} / {} ms; {} / {} ms |",
        app_c.deliveries.len(),
        app_c.acked(),
        design_c.deliveries.len(),
        design_c.acked(),
        ms(pct(&app_c.sorted_deliveries(), 0.5)),
        ms(pct(&app_c.sorted_deliveries(), 0.99)),
        ms(pct(&design_c.sorted_deliveries(), 0.5)),
        ms(pct(&design_c.sorted_deliveries(), 0.99))
    );
    println!("| 6 | worker ms per event by stage: front door (verify, parse, answer); + actor hop and receipt unit; + outbox row, sweep, Slack call, completion: slackline / design floor | {} / {} |", app_stages.cells(), design_stages.cells());
    println!(
        "| 6 | ms per acked (and delivered) event by process: {} | {} |",
        contenders.iter().map(|c| c.name).collect::<Vec<_>>().join(" / "),
        contenders.iter().map(|c| c.cpu_split()).collect::<Vec<_>>().join(" / ")
    );
    println!("| 6 | structured log output per delivered event, and worker CPU: LOG_DELIVERIES=failures (the default) / all ({} events each) | {logs_default} / {logs_all} |", n / 2);
    let cpu = app_c.cpu.iter().sum::<f64>();
    // The notify API beside the event ack: same runtime, same clients, the 202 after the commit.
    let notify_teams: Vec<String> = (0..CLIENTS).map(|_| unique("T")).collect();
    let notify_run = load_kind(&app.base_url(), n, CLIENTS, &|i| notify_teams[i % CLIENTS].clone(), "", Kind::Notify);
    println!(
        "{}",
        latency_row(
            &format!("notify API: POST /messages (fresh Idempotency-Key) p50 / p90 / p99, {n} posts, {CLIENTS} clients ({CLIENTS} teams)"),
            &notify_run
        )
    );
    let paced_teams: Vec<String> = (0..CLIENTS).map(|_| unique("T")).collect();
    let paced = load_paced(&app.base_url(), scale(1000), 25.0, &paced_teams);
    let (paced_deliveries, paced_wanted) = delivery_latencies(&fake, &paced, Duration::from_secs(60));
    let pl = paced.latencies();
    println!("| 2 | paced: 25 events/s in total over {CLIENTS} teams, one at a time: ack p50 / p99; ack-to-delivery p50 / p99 ({} of {} delivered) | {} / {} ms; {} / {} ms |", paced_deliveries.len(), paced_wanted, ms(pct(&pl, 0.5)), ms(pct(&pl, 0.99)), ms(pct(&paced_deliveries, 0.5)), ms(pct(&paced_deliveries, 0.99)));
    println!(
        "| 6 | runtime CPU per acked-and-delivered event, slackline (all processes) | {:.2} ms ({:.1} CPU s for {} events) |",
        cpu * 1000.0 / app_c.events as f64,
        cpu,
        app_c.events
    );
    // 3: one team, sustained: acked and delivered per second.
    let one = unique("T");
    let m = scale(3000);
    let t0 = Instant::now();
    let team_run = load(&app.base_url(), m, CLIENTS, &|_| one.clone(), "/slack/events");
    let (team_deliveries, _) = delivery_latencies(&fake, &team_run, Duration::from_secs(180));
    let drained = t0.elapsed();
    println!(
        "| 3 | one team: {} events at {CLIENTS} clients, acked | {:.0} events/s, p50 {} ms, p99 {} ms, {} non-2xx |",
        m,
        team_run.rps(),
        ms(pct(&team_run.latencies(), 0.5)),
        ms(pct(&team_run.latencies(), 0.99)),
        team_run.non_2xx()
    );
    println!(
        "| 3 | one team: all {} delivered after | {:.1} s ({:.0} deliveries/s end to end; Slack's cap is 8.3 events/s per workspace) |",
        team_deliveries.len(),
        drained.as_secs_f64(),
        team_deliveries.len() as f64 / drained.as_secs_f64()
    );
    // Delivery keeps up: a steady 200 events/s into one team for 30 s.
    let (rate, seconds) = (200.0, scale(30).max(3));
    let (steady_run, max_backlog, steady_drain) = steady(&app, rate, seconds);
    let (steady_deliveries, steady_wanted) = delivery_latencies(&fake, &steady_run, Duration::from_secs(120));
    println!(
        "| 3 | steady {rate:.0} events/s into one team for {seconds} s: ack p50 / p99; largest pending backlog; ack-to-delivery p50 / p99 ({} of {}); drained after the last ack | {} / {} ms; {max_backlog} rows; {} / {} ms; {:.2} s |",
        steady_deliveries.len(), steady_wanted, ms(pct(&steady_run.latencies(), 0.5)), ms(pct(&steady_run.latencies(), 0.99)),
        ms(pct(&steady_deliveries, 0.5)), ms(pct(&steady_deliveries, 0.99)), steady_drain.as_secs_f64()
    );

    // 4: many teams at once.
    let k = scale(1000);
    let many: Vec<String> = (0..k).map(|_| unique("T")).collect();
    let many_run = load(&app.base_url(), k, CLIENTS, &|i| many[i].clone(), "/slack/events");
    let _ = delivery_latencies(&fake, &many_run, Duration::from_secs(120));
    println!(
        "| 4 | {} teams, one event each, {CLIENTS} clients | p50 {} ms, p99 {} ms, {} non-2xx; runtime RSS {:.0} MiB |",
        k,
        ms(pct(&many_run.latencies(), 0.5)),
        ms(pct(&many_run.latencies(), 0.99)),
        many_run.non_2xx(),
        app.rss_bytes() as f64 / 1048576.0
    );

    // 5: growth: an actor with 1,000,000 receipts and 100,000 delivered rows vs an empty one.
    println!("{}", growth_figure(&app, &scale));

    // 7: a Slack List's reconciliation pass against the fake's Lists.
    println!("{}", reconcile_figures(&app, &fake, scale(10_000)));

    // 1 again under plain `wrangler dev` (its inspector, local explorer and observability on).
    drop(app);
    drop(floor);
    let floor_cli = Runtime::start(Settings::new("bench-floor-cli", &fake).config("benches/apps/floor/wrangler.toml"));
    let app_cli = Runtime::start(Settings::new("bench-app-cli", &fake));
    let _ = load(&floor_cli.base_url(), 200, CLIENTS, &|_| "TWARM".into(), "/");
    let _ = load(&app_cli.base_url(), 400, CLIENTS, &|i| warm_teams[i % CLIENTS].clone(), "/slack/events");
    let cli_floor_run = load(&floor_cli.base_url(), n, CLIENTS, &|_| "TFLOOR".into(), "/");
    let cli_teams: Vec<String> = (0..CLIENTS).map(|_| unique("T")).collect();
    let cli_app_run = load(&app_cli.base_url(), n, CLIENTS, &|i| cli_teams[i % CLIENTS].clone(), "/slack/events");
    let _ = delivery_latencies(&fake, &cli_app_run, Duration::from_secs(120));
    println!("{}", latency_row("`wrangler dev` defaults: floor", &cli_floor_run));
    println!("{}", latency_row("`wrangler dev` defaults: slackline", &cli_app_run));
    drop((floor_cli, app_cli));

    // 6: bundle size.
    let wasm = format!("{root}/examples/echo/build/index_bg.wasm");
    let js = format!("{root}/examples/echo/build/index.js");
    let raw = std::fs::metadata(&wasm).map(|m| m.len()).unwrap_or(0) + std::fs::metadata(&js).map(|m| m.len()).unwrap_or(0);
    println!(
        "| 6 | bundle (index_bg.wasm + index.js) raw / gzip -9 | {:.0} KiB / {:.0} KiB |",
        raw as f64 / 1024.0,
        (gzip_size(&wasm) + gzip_size(&js)) as f64 / 1024.0
    );

    // 8: what an event costs (rows written and read per event over its life; `BENCH_ONLY=cost`).
    println!("\n{}", cost::figures(&scale));
}
