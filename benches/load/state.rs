//! `BENCH_ONLY=state make bench`: the cost of app state in the unit. The ack p50 / p99 of a
//! mention whose handler reads 3 keys and writes 1 (the tally's `bench`, `slackline::internal::app::tally`:
//! its new key also costs the key-count read of the limit check) against its stateless twin (the
//! tally's `plain`: the same reply, no state), in interleaved rounds so that both see the same
//! machine. Both go through the tally's test-only path (`ALLOW_TEST_CLOCK=1`), so the difference
//! is the state alone. Figures, not pass/fail.

use super::harness::BenchSettings;
use super::support::slack::{envelope, mention, now_secs, sign};
use super::support::{unique, FakeSlack, Runtime, Settings};
use super::{ms, pct};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The concurrent clients.
const CLIENTS: usize = 8;
/// The teams the mentions rotate over.
const TEAMS: usize = 8;
/// Rounds of each mode, alternating.
const ROUNDS: usize = 6;

/// Sends `n` mentions with `word` from [`CLIENTS`] threads; returns each ack's latency (200s only)
/// and how many were not 200.
fn round(rt: &Runtime, teams: &[String], word: &str, n: usize) -> (Vec<Duration>, usize) {
    let (url, next, all, bad) = (format!("{}/slack/events", rt.base_url()), AtomicUsize::new(0), Mutex::new(Vec::with_capacity(n)), AtomicUsize::new(0));
    std::thread::scope(|scope| {
        for _ in 0..CLIENTS {
            scope.spawn(|| {
                let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(30)).build();
                let mut mine = Vec::new();
                while next.fetch_add(1, Ordering::Relaxed) < n {
                    let (team, channel, ts) = (&teams[mine.len() % teams.len()], unique("C"), format!("{}.{}", now_secs(), mine.len()));
                    let body = envelope(team, &unique("Ev"), mention(&channel, &ts, &format!("slackline-tally {word}"))).to_string().into_bytes();
                    let stamp = now_secs().to_string();
                    let sent = Instant::now();
                    let answer = agent
                        .post(&url)
                        .set("content-type", "application/json")
                        .set("x-slack-request-timestamp", &stamp)
                        .set("x-slack-signature", &sign(&stamp, &body))
                        .send_bytes(&body);
                    match answer {
                        Ok(r) if r.status() == 200 => mine.push(sent.elapsed()),
                        _ => {
                            bad.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                all.lock().unwrap().extend(mine);
            });
        }
    });
    (all.into_inner().unwrap(), bad.into_inner())
}

/// The figures, as Markdown table rows.
pub fn figures(scale: &dyn Fn(usize) -> usize) -> String {
    let fake = FakeSlack::start();
    let rt = Runtime::start(Settings::new("bench-state", &fake).var("LOG_DELIVERIES", "failures").bare());
    let teams: Vec<String> = (0..TEAMS).map(|_| unique("T")).collect();
    for word in ["plain", "bench"] {
        round(&rt, &teams, word, 80); // first requests compile and start each team's actor: not counted
    }
    let per_round = scale(400).max(20);
    let (mut plain, mut stateful, mut bad) = (Vec::new(), Vec::new(), 0);
    for _ in 0..ROUNDS {
        for (word, into) in [("plain", &mut plain), ("bench", &mut stateful)] {
            let (latencies, failed) = round(&rt, &teams, word, per_round);
            into.extend(latencies);
            bad += failed;
        }
    }
    plain.sort();
    stateful.sort();
    let p = |d: &[Duration]| format!("{} / {} ms", ms(pct(d, 0.5)), ms(pct(d, 0.99)));
    [
        format!(
            "| 5 | mention ack p50 / p99, no state ({} acks, {CLIENTS} clients, {TEAMS} teams, {ROUNDS} interleaved rounds) | {} |",
            plain.len(),
            p(&plain)
        ),
        format!("| 5 | mention ack p50 / p99, 3 state reads + 1 write in the unit ({} acks) | {} |", stateful.len(), p(&stateful)),
        format!("| 5 | non-200 acks | {bad} |"),
    ]
    .join("\n")
}
