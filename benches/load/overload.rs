//! `BENCH_ONLY=overload make bench`: how many events a second one team actor acknowledges with
//! deliveries on, and what happens past that point.
//!
//! 1. **Steps.** An open-loop offered rate into one team (each request leaves at its slot, on a
//!    thread of its own, however slow the earlier answers are: Slack does not wait for us), stepped
//!    up; for each step the answers' statuses and latencies. The saturation point is the last step
//!    whose ack p99 stays inside `ACK_BUDGET_MS` with every answer a 200.
//! 2. **Twice that rate** for 30 s (3 s with `BENCH_QUICK=1`): how the answers split between 200
//!    and 500, the slowest answer (it must be inside the budget: Slack gives up at 3 s), and whether
//!    every event that got a 200 is delivered (its reply found at the fake Slack). Events answered
//!    500 may have been recorded anyway (the actor finished after the front door gave up): those
//!    are counted too, since Slack's retry of them is then a duplicate and adds nothing.
//!
//! 3. **The floor at that rate**: the hello-world Worker offered the same load, to tell the
//!    machine's limit from slackline's.
//!
//! Figures, not pass/fail (`tests/e2e/overload.rs` asserts the same invariants, briefly).

use super::harness::BenchSettings;
use super::support::slack::{envelope, mention};
use super::support::{unique, FakeSlack, Runtime, Settings};
use super::{ms, pct, send_signed, Run, Sample};
use serde_json::Value;
use std::collections::HashSet;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The ack budget the runtime runs with (the default).
const BUDGET: Duration = Duration::from_millis(2_000);
/// Slack's own timeout: an answer later than this is a failed delivery to Slack.
const SLACK_TIMEOUT: Duration = Duration::from_secs(3);
/// The channels the mentions rotate over (replies are not paced here: `SLACK_RATE_LIMITS=off`).
const CHANNELS: usize = 16;

/// Offers `per_second` mentions into `team` for `seconds` (see [`offer_bodies`]).
pub fn offer(base: &str, team: &str, per_second: f64, seconds: f64) -> Run {
    offer_bodies(base, per_second, seconds, &|_, channel, ts| envelope(team, &unique("Ev"), mention(channel, ts, "bench")))
}

/// Offers `per_second` signed Events API bodies for `seconds`, open loop: each request is sent at
/// its slot from a thread of its own; `body(i, channel, ts)` is the `i`-th, a mention posted at
/// `ts` in `channel`. The client waits up to 10 s, so answers past Slack's 3 s are seen (and
/// counted) rather than cut off.
pub fn offer_bodies(base: &str, per_second: f64, seconds: f64, body: &(dyn Fn(usize, &str, &str) -> Value + Sync)) -> Run {
    let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(10)).max_idle_connections(256).max_idle_connections_per_host(256).build();
    let channels: Vec<String> = (0..CHANNELS).map(|_| unique("C")).collect();
    let n = (per_second * seconds) as usize;
    let url = format!("{base}/slack/events");
    let samples = Mutex::new(Vec::with_capacity(n));
    let started = Instant::now();
    std::thread::scope(|scope| {
        for i in 0..n {
            let slot = started + Duration::from_secs_f64(i as f64 / per_second);
            if let Some(wait) = slot.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
            let (agent, url, channel, samples) = (&agent, &url, &channels[i % CHANNELS], &samples);
            let ts = format!("{}.{i:06}", 1_400_000_000 + i);
            let bytes = body(i, channel, &ts).to_string().into_bytes();
            std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn_scoped(scope, move || {
                    let sample = send_signed(agent, url, &bytes, channel, ts);
                    samples.lock().unwrap().push(sample);
                })
                .expect("a load thread");
        }
    });
    Run { samples: samples.into_inner().unwrap(), wall: started.elapsed() }
}

/// One load's answers, summed up.
pub struct Answers {
    pub sent: usize,
    pub ok: usize,
    pub refused: usize,
    /// Any other status, or no answer within the client's 10 s (status 0).
    pub other: usize,
    pub p50: Duration,
    pub p99: Duration,
    pub max: Duration,
    /// Answers later than the ack budget, and later than Slack's 3 s.
    pub over_budget: usize,
    pub over_slack: usize,
}

impl Answers {
    pub fn of(run: &Run) -> Answers {
        let l = run.latencies();
        let count = |f: &dyn Fn(&Sample) -> bool| run.samples.iter().filter(|s| f(s)).count();
        Answers {
            sent: run.samples.len(),
            ok: count(&|s| s.status == 200),
            refused: count(&|s| s.status == 500),
            other: count(&|s| s.status != 200 && s.status != 500),
            p50: pct(&l, 0.5),
            p99: pct(&l, 0.99),
            max: l.last().copied().unwrap_or_default(),
            over_budget: count(&|s| s.latency > BUDGET),
            over_slack: count(&|s| s.latency > SLACK_TIMEOUT),
        }
    }

    /// Inside the budget at p99 with every answer a 200.
    pub fn healthy(&self) -> bool {
        self.p99 <= BUDGET && self.ok == self.sent
    }

    pub fn cells(&self) -> String {
        format!(
            "{} sent: {} × 200, {} × 500, {} other; ack p50 / p99 / max {} / {} / {} ms; {} over the 2 s budget, {} over Slack's 3 s",
            self.sent,
            self.ok,
            self.refused,
            self.other,
            ms(self.p50),
            ms(self.p99),
            ms(self.max),
            self.over_budget,
            self.over_slack
        )
    }
}

/// The replies the fake Slack received so far, by `(channel, thread_ts)`, read from `seen` on.
fn replies(fake: &FakeSlack, seen: &mut usize, into: &mut HashSet<(String, String)>) {
    let calls = fake.calls_after(*seen);
    *seen += calls.len();
    for c in calls.iter().filter(|c| c.method == "chat.postMessage") {
        if let (Some(ch), Some(ts)) = (c.field("channel"), c.field("thread_ts")) {
            into.insert((ch.to_string(), ts.to_string()));
        }
    }
}

/// What became of a run's events: how many 200'd ones were delivered (waiting up to `deadline`
/// for all of them), and how many 500'd ones were delivered anyway.
pub struct Fate {
    pub acked: usize,
    pub acked_delivered: usize,
    pub refused_delivered: usize,
    pub drained: Duration,
}

pub fn fate(fake: &FakeSlack, run: &Run, deadline: Duration) -> Fate {
    let key = |s: &Sample| (s.channel.clone(), s.ts.clone());
    let acked: Vec<_> = run.samples.iter().filter(|s| s.status == 200).map(key).collect();
    let started = Instant::now();
    let (mut seen, mut got) = (0, HashSet::new());
    loop {
        replies(fake, &mut seen, &mut got);
        let delivered = acked.iter().filter(|k| got.contains(*k)).count();
        if delivered == acked.len() || started.elapsed() > deadline {
            // Give late commits of refused events a moment to show up too.
            std::thread::sleep(Duration::from_secs(2));
            replies(fake, &mut seen, &mut got);
            let refused_delivered = run.samples.iter().filter(|s| s.status != 200 && got.contains(&key(s))).count();
            return Fate { acked: acked.len(), acked_delivered: delivered, refused_delivered, drained: started.elapsed() };
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The front door's own view of a team's requests: the `ack_ms` of its `request` lines (from the
/// Worker's `fetch` starting to its answer), p99 and max. The difference from the client's
/// latency is time spent queued before the Worker ran at all.
pub fn front_door_view(rt: &Runtime, team: &str) -> String {
    let mut l: Vec<Duration> =
        rt.log_lines().iter().filter(|v| v["kind"] == "request" && v["team"] == team).filter_map(|v| v["ack_ms"].as_u64().map(Duration::from_millis)).collect();
    l.sort();
    format!("front door's own ack_ms p99 / max {} / {} ms", ms(pct(&l, 0.99)), ms(l.last().copied().unwrap_or_default()))
}

/// The offered rates of the steps: `OVERLOAD_RATES=100,200` overrides them.
pub fn steps() -> Vec<f64> {
    match std::env::var("OVERLOAD_RATES") {
        Ok(list) => list.split(',').filter_map(|r| r.trim().parse().ok()).collect(),
        Err(_) => vec![50.0, 100.0, 150.0, 200.0, 250.0, 300.0, 350.0, 400.0, 500.0, 600.0, 800.0],
    }
}

/// The figures, as Markdown table rows.
pub fn figures(scale: &dyn Fn(usize) -> usize) -> String {
    let quick = scale(10) < 10;
    let fake = FakeSlack::start();
    let rt = Runtime::start(Settings::new("bench-overload", &fake).var("LOG_DELIVERIES", "failures").bare());
    let base = rt.base_url();
    let _ = offer(&base, &unique("TWARM"), 50.0, 4.0); // warm-up, not counted
    let step_secs = if quick { 2.0 } else { 5.0 };
    let mut rows = Vec::new();
    let mut saturation = None;
    for rate in steps() {
        let team = unique("T");
        let run = offer(&base, &team, rate, step_secs);
        let answers = Answers::of(&run);
        rows.push(format!("| O1 | one team, {rate:.0} events/s offered for {step_secs:.0} s | {}; {} |", answers.cells(), front_door_view(&rt, &team)));
        if !answers.healthy() {
            break;
        }
        saturation = Some(rate);
        // Let the step's deliveries drain so the next step starts from an idle actor.
        let _ = fate(&fake, &run, Duration::from_secs(60));
    }
    let Some(saturation) = saturation else {
        rows.push("| O1 | no step was healthy | — |".into());
        return rows.join("\n");
    };
    let (rate, secs) = (2.0 * saturation, if quick { 3.0 } else { 30.0 });
    rows.push(format!("| O1 | saturation (the last step inside the budget, all 200) | {saturation:.0} events/s |"));
    let team = unique("T");
    let run = offer(&base, &team, rate, secs);
    let answers = Answers::of(&run);
    rows.push(format!("| O2 | one team, 2 × saturation = {rate:.0} events/s for {secs:.0} s | {}; {} |", answers.cells(), front_door_view(&rt, &team)));
    let fate = fate(&fake, &run, Duration::from_secs(300));
    rows.push(format!(
        "| O2 | of those, delivered | {} of {} acknowledged (all within {:.1} s of the load's end); {} of the {} refused were recorded anyway and delivered |",
        fate.acked_delivered,
        fate.acked,
        fate.drained.as_secs_f64(),
        fate.refused_delivered,
        answers.sent - answers.ok
    ));
    drop(rt);
    rows.push(floor_at(&fake, rate, secs));
    rows.join("\n")
}

/// The hello-world floor (`benches/apps/floor`) offered the same rate in the same way: what this
/// machine's HTTP path alone (the load generator, wrangler's proxy, workerd) answers at that rate,
/// with no Worker code to speak of. Where it answers late too, the lateness is the machine's.
fn floor_at(fake: &FakeSlack, rate: f64, secs: f64) -> String {
    let floor = Runtime::start(Settings::new("bench-overload-floor", fake).config("benches/apps/floor/wrangler.toml").bare());
    let _ = offer(&floor.base_url(), "TWARM", 50.0, 2.0); // warm-up, not counted
    let run = offer(&floor.base_url(), "TFLOOR", rate, secs);
    format!("| O3 | the hello-world floor, the same {rate:.0} events/s for {secs:.0} s | {} |", Answers::of(&run).cells())
}
