//! `BENCH_ONLY=pacing make bench`: slackline's pacing against a fake Slack that enforces Slack's
//! published rate limits (`FakeSlack::enforce_tiers`: one post a second per channel with bursts of
//! 3, each method at its tier). Three loads — 300 mentions in one channel, 300 over 30 channels, a
//! 500-row List reconciliation — run twice: with slackline's default budgets, and with pacing off
//! (`SLACK_RATE_LIMITS=off`: slackline learns the limits from 429s only, as it did before pacing).
//! For each: the calls made, how many Slack refused (429), the time to deliver everything, and
//! how many rows were parked. Figures, not pass/fail.

use super::harness::BenchSettings;
use super::support::slack::{envelope, mention};
use super::support::{eventually, fake_slack::text_cell, unique, Client, FakeSlack, Runtime, Settings};
use std::time::{Duration, Instant};

/// One load's figures.
struct Figures {
    calls: usize,
    refused: usize,
    wall: Duration,
    parked: i64,
}

impl Figures {
    fn cells(&self) -> String {
        format!(
            "{} calls, {} answered 429 ({:.1} %); all delivered {:.1} s after the burst; {} parked",
            self.calls,
            self.refused,
            100.0 * self.refused as f64 / self.calls.max(1) as f64,
            self.wall.as_secs_f64(),
            self.parked
        )
    }
}

fn count(c: &Client, team: &str, status: &str) -> i64 {
    let stats = c.stats(team);
    stats["groups"].as_array().unwrap().iter().filter(|g| g["status"] == status).map(|g| g["n"].as_i64().unwrap()).sum()
}

/// Sends the mentions from 8 clients at once, then waits until none of the team's rows is pending.
fn mentions(c: &Client, fake: &FakeSlack, team: &str, channels: &[String], n: usize) -> Figures {
    let started = Instant::now();
    std::thread::scope(|scope| {
        for t in 0..8 {
            let c = c.clone();
            scope.spawn(move || {
                for i in (t..n).step_by(8) {
                    let a = c.event(&envelope(team, &unique("Ev"), mention(&channels[i % channels.len()], &format!("50.{i:04}"), "bench")));
                    assert_eq!(a.status, 200, "{}", a.body);
                }
            });
        }
    });
    eventually("every row delivered or parked", Duration::from_secs(1_800), || (count(c, team, "done") + count(c, team, "parked") >= n as i64).then_some(()));
    let wall = started.elapsed();
    let calls: Vec<_> = channels.iter().flat_map(|ch| fake.calls("chat.postMessage", ch)).collect();
    Figures { calls: calls.len(), refused: calls.iter().filter(|c| c.rate_limited).count(), wall, parked: count(c, team, "parked") }
}

fn reconciliation(c: &Client, fake: &FakeSlack, rows: usize) -> Figures {
    let (team, list) = (unique("T"), unique("F"));
    let base = format!("/api/teams/{team}/lists/{list}");
    let map = serde_json::json!({"key_column": "ColKEY", "columns": {"title": {"column_id": "ColT", "type": "text"}}});
    assert_eq!(c.api("PUT", &base, Some(&map)).status, 200);
    fake.seed_rows(&list, rows, |i| vec![text_cell("ColKEY", &format!("stranger-{i}"))]);
    let started = Instant::now();
    let a = c.api("POST", &format!("{base}/reconcile"), None);
    assert_eq!(a.status, 202, "{}", a.body);
    let id = a.json()["id"].as_i64().unwrap();
    eventually("the pass finished", Duration::from_secs(1_800), || {
        let runs = c.api("GET", &format!("{base}/reconcile"), None).json();
        runs["runs"].as_array()?.iter().find(|r| r["id"] == id && !r["finished_at"].is_null()).cloned()
    });
    let calls = fake.calls("slackLists.items.list", &list);
    Figures { calls: calls.len(), refused: calls.iter().filter(|c| c.rate_limited).count(), wall: started.elapsed(), parked: count(c, &team, "parked") }
}

/// The three loads against one runtime (`rate_limits`: `None` for the defaults).
fn run(name: &str, rate_limits: Option<&str>, scale: &dyn Fn(usize) -> usize) -> Vec<String> {
    let fake = FakeSlack::start();
    fake.enforce_tiers();
    let settings = Settings::new(name, &fake).without("LISTS_PACE_MS").var("LOG_DELIVERIES", "failures").bare();
    let settings = match rate_limits {
        Some(value) => settings.var("SLACK_RATE_LIMITS", value),
        None => settings.without("SLACK_RATE_LIMITS"),
    };
    let rt = Runtime::start(settings);
    let c = rt.client();
    let n = scale(300);
    let one = [unique("C")];
    let thirty: Vec<String> = (0..30).map(|_| unique("C")).collect();
    let label = rate_limits.map_or("paced (default budgets)".to_string(), |v| format!("SLACK_RATE_LIMITS={v}"));
    vec![
        format!("| 8 | {label}: {n} mentions in one channel | {} |", mentions(&c, &fake, &unique("T"), &one, n).cells()),
        format!("| 8 | {label}: {n} mentions over 30 channels | {} |", mentions(&c, &fake, &unique("T"), &thirty, n).cells()),
        format!("| 8 | {label}: a {}-row List reconciliation (items.list, Tier 2) | {} |", scale(500), reconciliation(&c, &fake, scale(500)).cells()),
    ]
}

/// The figures, as Markdown table rows.
pub fn figures(scale: &dyn Fn(usize) -> usize) -> String {
    let mut rows = run("bench-paced", None, scale);
    rows.extend(run("bench-unpaced", Some("off"), scale));
    rows.join("\n")
}
