//! `BENCH_ONLY=alarm make bench`: the alarm invariant under the load that once broke it (issue
//! 33) — many quiet teams, each event arriving just as the sweep of the one before ends, with both
//! cores kept busy — and the worst ack → delivery latency of an unpaced row.
//!
//! Each team's client sends a mention, waits for its reply to reach the fake Slack, waits a random
//! 0–20 ms (the sweep that posted it is completing and re-arming then) and sends the next. A reply
//! that has not come within [`STALL`] is counted as stranded and ends that team's run (its next
//! events would only wait behind it). Two threads spin on the CPUs meanwhile. Figures, not
//! pass/fail; `alarm_missing` is the safety net's count over all the teams' stats, read at the end
//! (which runs the net once more on every team).

use super::support::slack::{envelope, mention, now_secs, sign};
use super::support::{unique, FakeSlack, Runtime, Settings};
use super::{ms, note_replies, pct};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The teams, one client each (`BENCH_TEAMS`; 24 starves the fake Slack of CPU on 2 cores: its
/// answers then time out, and the worst latency is the attempt timeout's).
fn teams() -> usize {
    std::env::var("BENCH_TEAMS").ok().and_then(|t| t.parse().ok()).unwrap_or(12)
}
/// How long a reply may take before it counts as stranded.
const STALL: Duration = Duration::from_secs(20);

/// When each reply (channel, thread ts) reached the fake, gathered by one reader thread.
#[derive(Default)]
struct Arrivals {
    seen: Mutex<HashMap<(String, String), Instant>>,
    changed: Condvar,
}

impl Arrivals {
    /// Reads the fake's new calls every 2 ms until `done`.
    fn gather(&self, fake: &FakeSlack, done: &AtomicBool) {
        let mut read = 0;
        while !done.load(Ordering::Relaxed) {
            let calls = fake.calls_after(read);
            read += calls.len();
            note_replies(&calls, &mut self.seen.lock().unwrap());
            self.changed.notify_all();
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// When the reply to (channel, ts) arrived, waiting until `until` at most.
    fn wait(&self, key: &(String, String), until: Instant) -> Option<Instant> {
        let mut seen = self.seen.lock().unwrap();
        loop {
            if let Some(at) = seen.get(key) {
                return Some(*at);
            }
            let left = until.checked_duration_since(Instant::now())?;
            seen = self.changed.wait_timeout(seen, left).unwrap().0;
        }
    }
}

/// Sends one signed mention in `channel` at `ts`; the instant of its 200, if it got one.
fn mention_acked(agent: &ureq::Agent, url: &str, team: &str, channel: &str, ts: &str) -> Option<Instant> {
    let body = envelope(team, &unique("Ev"), mention(channel, ts, "alarm bench")).to_string();
    let stamp = now_secs().to_string();
    let sent = agent
        .post(url)
        .set("content-type", "application/json")
        .set("x-slack-request-timestamp", &stamp)
        .set("x-slack-signature", &sign(&stamp, body.as_bytes()))
        .send_string(&body);
    sent.ok().filter(|r| r.status() == 200).map(|_| Instant::now())
}

/// A number in 0..20 from a counter (no randomness crate in the bench): the pause before the next
/// event, spread over the sweep's end.
fn pause(i: usize, team: usize) -> Duration {
    Duration::from_millis(((i * 7 + team * 13) % 20) as u64)
}

/// One reply: its (channel, thread ts), and how long after the ack it reached the fake.
type Latency = ((String, String), Duration);

/// One team's run: latencies of its delivered events, and whether one was stranded.
fn one_team(url: &str, team: &str, n: usize, index: usize, arrivals: &Arrivals) -> (Vec<Latency>, usize, bool) {
    let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(10)).build();
    let channel = unique("C");
    let (mut latencies, mut refused) = (Vec::new(), 0);
    for i in 0..n {
        let ts = format!("{}.{i:04}", 1_700_000_000 + index);
        let Some(acked) = mention_acked(&agent, url, team, &channel, &ts) else {
            refused += 1;
            continue;
        };
        let key = (channel.clone(), ts);
        match arrivals.wait(&key, acked + STALL) {
            Some(at) => latencies.push((key, at.saturating_duration_since(acked))),
            None => return (latencies, refused, true),
        }
        std::thread::sleep(pause(i, index));
    }
    (latencies, refused, false)
}

/// The figures (rows of the bench's Markdown table).
pub fn figures(scale: &dyn Fn(usize) -> usize) -> String {
    let fake = FakeSlack::start();
    let rt = Runtime::start(Settings::new("bench-alarm", &fake).var("LOG_DELIVERIES", "failures"));
    let (url, per_team) = (format!("{}/slack/events", rt.base_url()), scale(40).max(2));
    let teams: Vec<String> = (0..teams()).map(|_| unique("T")).collect();
    let (arrivals, done, spinning) = (Arc::new(Arrivals::default()), AtomicBool::new(false), AtomicBool::new(true));
    let (client, started) = (rt.client(), Instant::now());
    let results = std::thread::scope(|s| {
        s.spawn(|| arrivals.gather(&fake, &done));
        for _ in 0..2 {
            s.spawn(|| {
                let mut x = 0u64;
                while spinning.load(Ordering::Relaxed) {
                    x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                }
            });
        }
        let (url, arrivals) = (&url, &arrivals);
        let runs: Vec<_> = teams.iter().enumerate().map(|(i, team)| s.spawn(move || one_team(url, team, per_team, i, arrivals))).collect();
        let results: Vec<_> = runs.into_iter().map(|r| r.join().unwrap()).collect();
        spinning.store(false, Ordering::Relaxed);
        done.store(true, Ordering::Relaxed);
        results
    });
    let wall = started.elapsed();
    let refused: usize = results.iter().map(|(_, r, _)| r).sum();
    let stranded = results.iter().filter(|(_, _, s)| *s).count();
    let missing: i64 = teams.iter().map(|t| client.stats(t)["alarm_missing"]["count"].as_i64().unwrap_or(0)).sum();
    // Attempts that did not succeed: a reply behind one waited for its retry, not for its alarm.
    let failed: Vec<serde_json::Value> = rt.log_lines().into_iter().filter(|l| l["kind"] == "delivery" && l["outcome"] != "success").collect();
    let retried: Vec<String> =
        failed.iter().filter_map(|l| Some(client.row(l["team"].as_str()?, l["row"].as_i64()?)["payload"].as_str()?.to_string())).collect();
    let first_try = |((channel, ts), _): &&Latency| !retried.iter().any(|p| p.contains(channel.as_str()) && p.contains(ts.as_str()));
    let sorted = |l: Vec<Duration>| {
        let mut l = l;
        l.sort();
        l
    };
    let all = sorted(results.iter().flat_map(|(l, _, _)| l.iter().map(|(_, d)| *d)).collect());
    let latencies = sorted(results.iter().flat_map(|(l, _, _)| l.iter().filter(first_try).map(|(_, d)| *d)).collect());
    let worst = latencies.last().copied().unwrap_or_default();
    let errors: Vec<String> = failed.iter().take(3).map(|l| format!("{} {}", l["outcome"], l["error"])).collect();
    let slow = latencies.iter().filter(|l| **l > Duration::from_secs(1)).count();
    [
        format!(
            "| 1 | events acked and delivered ({} teams, {per_team} each, one at a time, 2 cores spinning; {:.0} s) | {} |",
            teams.len(),
            wall.as_secs_f64(),
            all.len()
        ),
        format!("| 2 | ack → delivery of the {} replies sent at their first attempt: p50 / p99 / worst | {} / {} / {} ms |", latencies.len(), ms(pct(&latencies, 0.5)), ms(pct(&latencies, 0.99)), ms(worst)),
        format!(
            "| 3 | of those, later than 1 s; attempts that did not succeed, with the first three (outcome, error); replies behind them; the worst of all replies | {slow}; {} {errors:?}; {}; {} ms |",
            failed.len(),
            all.len() - latencies.len(),
            ms(all.last().copied().unwrap_or_default())
        ),
        format!("| 4 | replies stranded (none within {} s) | {stranded} |", STALL.as_secs()),
        format!("| 5 | events refused (not 200) | {refused} |"),
        format!("| 6 | `alarm_missing` findings (the safety net, all teams' stats) | {missing} |"),
    ]
    .join("\n")
}
