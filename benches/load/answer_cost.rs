//! `BENCH_ONLY=answer_cost make bench` (issue 36, goal 6): what one streamed answer costs,
//! slackline against a plain-JavaScript relay (`benches/apps/stream-floor`: no Durable Object,
//! nothing stored, the same buffering and Slack calls).
//!
//! Both are served bare under the same wrangler and workerd, beside one fake Slack and one fake
//! model (`slackline_sim::llm`) streaming [`TOKENS`] tokens at [`RATE`] a second. Each round
//! runs one answer on each side at once (each side's workerd is its own process, so each reading
//! is its own): slackline's from a signed user message in an agent DM of a team whose actor is
//! already up to the stop of its stream with the feedback buttons, the floor's from a POST to its
//! answer. Per answer, per side: the worker CPU (user + system of the workerd that runs the Worker,
//! from before the message to [`SETTLE`] after the stop, less that process's idle CPU measured
//! over [`IDLE`] beforehand for as long), the Slack calls by method; slackline's rows written (the
//! cost meter, `slackline::internal::meter`, before and after) and its Durable Object's active time (the
//! answer row's `finished_at - first_attempt_at`: from its first claim to its completion).
//! Then the same text in 20-token events ([`CHUNK`]): the CPU difference divided by the events
//! saved is each side's cost per event of the model's stream. Figures, not pass/fail.

use super::harness::{BenchSettings, Readings};
use super::support::slack::{envelope, now_secs};
use super::support::{eventually, unique, FakeSlack, Runtime, Settings};
use super::{median, send_signed};
use serde_json::json;
use slackline::internal::meter::Meter;
use slackline_sim::llm::{FakeLlm, LlmSettings};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Tokens in the answer.
const TOKENS: usize = 2_000;
/// The model's speed, tokens a second.
const RATE: usize = 50;
/// Tokens per event in the variant with fewer events.
const CHUNK: usize = 20;
/// How long each side's idle CPU is read.
const IDLE: Duration = Duration::from_secs(10);
/// How long after the stop each reading waits (the completion, the re-arm).
const SETTLE: Duration = Duration::from_secs(1);

/// One answer, as measured.
#[derive(Default)]
struct Answer {
    /// Worker CPU, ms, the idle CPU for as long subtracted.
    cpu_ms: f64,
    /// Its idle share, subtracted from it (ms).
    idle_ms: f64,
    /// The Slack calls, by method.
    calls: BTreeMap<String, usize>,
    /// The characters streamed.
    chars: usize,
    /// From the message to the stop.
    wall: Duration,
    /// slackline: what its meter counted.
    meter: Option<Meter>,
    /// slackline: the answer row's attempt (claim → completion), ms.
    active_ms: Option<i64>,
}

fn worker_cpu(rt: &Runtime) -> f64 {
    rt.cpu_by_process().iter().find(|(kind, _)| *kind == "worker").map_or(0.0, |(_, s)| *s)
}

/// Each runtime's idle worker CPU, ms a second, read over [`IDLE`] at once.
fn idle_rates(rts: &[&Runtime]) -> Vec<f64> {
    let before: Vec<f64> = rts.iter().map(|rt| worker_cpu(rt)).collect();
    let started = Instant::now();
    std::thread::sleep(IDLE);
    let secs = started.elapsed().as_secs_f64();
    rts.iter().zip(before).map(|(rt, b)| (worker_cpu(rt) - b) * 1000.0 / secs).collect()
}

fn calls_in(fake: &FakeSlack, channel: &str) -> BTreeMap<String, usize> {
    let mut by_method = BTreeMap::new();
    for c in fake.calls_after(0).into_iter().filter(|c| c.field("channel").or(c.field("channel_id")) == Some(channel)) {
        *by_method.entry(c.method.clone()).or_default() += 1;
    }
    by_method
}

fn prompt(tokens: usize, chunk: usize) -> String {
    format!("{} [llm tokens={tokens} rate={RATE} chunk={chunk}]", unique("answer "))
}

fn meter(rt: &Runtime, team: &str) -> Meter {
    let answer = rt.client().admin_get(&format!("/admin/teams/{team}/meter"));
    assert_eq!(answer.status, 200, "slackline's meter: {}", answer.body);
    serde_json::from_str(&answer.body).expect("a meter")
}

/// The longest first claim → completion among the team's outbox rows (the streamed answer's:
/// `finished_at - first_attempt_at`), ms.
fn longest_attempt(rt: &Runtime, team: &str) -> Option<i64> {
    let page = rt.client().admin_get(&format!("/admin/teams/{team}/outbox?status=done&limit=200")).json();
    page["rows"].as_array()?.iter().filter_map(|r| Some(r["finished_at"].as_i64()? - r["first_attempt_at"].as_i64()?)).max()
}

/// One answer by slackline, in a fresh agent DM of `team` (its actor already up).
fn slackline_answer(rt: &Runtime, fake: &FakeSlack, team: &str, tokens: usize, chunk: usize, idle_rate: f64) -> Answer {
    let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(30)).build();
    let channel = unique("D");
    let (ts, thread_ts) = (format!("{}.000200", now_secs()), format!("{}.000100", now_secs()));
    let event = json!({"type": "message", "channel_type": "im", "channel": channel, "user": "U1", "text": prompt(tokens, chunk), "ts": ts, "thread_ts": thread_ts, "event_ts": ts});
    let body = envelope(team, &unique("Ev"), event).to_string().into_bytes();
    let metered = meter(rt, team);
    let cpu = worker_cpu(rt);
    let started = Instant::now();
    let sent = send_signed(&agent, &format!("{}/slack/events", rt.base_url()), &body, &channel, ts);
    assert_eq!(sent.status, 200, "the user's message is acked");
    eventually("slackline's answer stopped", Duration::from_secs(300), || fake.streams_in(&channel).iter().any(|s| s.blocks).then_some(()));
    let wall = started.elapsed();
    std::thread::sleep(SETTLE);
    let window = started.elapsed().as_secs_f64();
    let total_ms = (worker_cpu(rt) - cpu) * 1000.0;
    let idle_ms = idle_rate * window;
    let chars = fake.streams_in(&channel).iter().map(|s| s.text.len()).sum();
    Answer {
        cpu_ms: total_ms - idle_ms,
        idle_ms,
        calls: calls_in(fake, &channel),
        chars,
        wall,
        meter: Some(meter(rt, team).since(&metered)),
        active_ms: longest_attempt(rt, team),
    }
}

/// One answer by the relay floor.
fn floor_answer(rt: &Runtime, fake: &FakeSlack, tokens: usize, chunk: usize, idle_rate: f64) -> Answer {
    let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(300)).build();
    let channel = unique("D");
    let body = json!({"channel": channel, "thread_ts": format!("{}.000100", now_secs()), "prompt": prompt(tokens, chunk)}).to_string();
    let cpu = worker_cpu(rt);
    let started = Instant::now();
    let status = match agent.post(&format!("{}/", rt.base_url())).set("content-type", "application/json").send_string(&body) {
        Ok(r) => r.status(),
        Err(ureq::Error::Status(code, _)) => code,
        Err(_) => 0,
    };
    assert_eq!(status, 200, "the floor streamed its answer");
    let wall = started.elapsed();
    std::thread::sleep(SETTLE);
    let window = started.elapsed().as_secs_f64();
    let idle_ms = idle_rate * window;
    let chars = fake.streams_in(&channel).iter().map(|s| s.text.len()).sum();
    Answer { cpu_ms: (worker_cpu(rt) - cpu) * 1000.0 - idle_ms, idle_ms, calls: calls_in(fake, &channel), chars, wall, meter: None, active_ms: None }
}

/// `runs` rounds, each one answer on each side at once.
fn rounds(app: &Runtime, floor: &Runtime, fake: &FakeSlack, team: &str, runs: usize, chunk: usize, idle: &[f64]) -> (Vec<Answer>, Vec<Answer>) {
    let (mut ours, mut floors) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let (a, f) = std::thread::scope(|scope| {
            let a = scope.spawn(|| slackline_answer(app, fake, team, TOKENS, chunk, idle[0]));
            let f = scope.spawn(|| floor_answer(floor, fake, TOKENS, chunk, idle[1]));
            (a.join().unwrap(), f.join().unwrap())
        });
        ours.push(a);
        floors.push(f);
    }
    (ours, floors)
}

/// "median (min–max)" of `f` over `answers`.
fn spread(answers: &[Answer], f: impl Fn(&Answer) -> f64, digits: usize) -> String {
    let xs: Vec<f64> = answers.iter().map(f).collect();
    let (lo, hi) = xs.iter().fold((f64::MAX, f64::MIN), |(lo, hi), x| (lo.min(*x), hi.max(*x)));
    format!("{:.d$} ({:.d$}–{:.d$})", median(xs.clone()), lo, hi, d = digits)
}

fn calls_cell(a: &Answer) -> String {
    let total: usize = a.calls.values().sum();
    let split = a.calls.iter().map(|(m, n)| format!("`{m}` {n}")).collect::<Vec<_>>().join(", ");
    format!("{total}: {split}")
}

/// The figures, as Markdown: the comparison, the per-event split, slackline's statements.
pub fn figures() -> String {
    let fake = FakeSlack::start();
    let llm = FakeLlm::start(LlmSettings { tokens: 20, tokens_per_second: RATE as u32, ..LlmSettings::default() });
    let app = Runtime::start(Settings::new("bench-answer-cost", &fake).var("LLM_API_URL", &llm.url()).var("LOG_DELIVERIES", "failures").bare());
    let floor =
        Runtime::start(Settings::new("bench-stream-floor", &fake).config("benches/apps/stream-floor/wrangler.toml").var("LLM_API_URL", &llm.url()).bare());
    let team = unique("T");
    // Warm-up, not counted: both sides' code paths, slackline's team actor up.
    for _ in 0..2 {
        let _ = slackline_answer(&app, &fake, &team, 40, 1, 0.0);
        let _ = floor_answer(&floor, &fake, 40, 1, 0.0);
    }
    let idle = idle_rates(&[&app, &floor]);
    let runs = std::env::var("ANSWER_RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(5);
    let (ours, floors) = rounds(&app, &floor, &fake, &team, runs, 1, &idle);
    let (ours_chunked, floors_chunked) = rounds(&app, &floor, &fake, &team, runs.div_ceil(2).max(2), CHUNK, &idle);

    let cpu = |a: &Answer| a.cpu_ms;
    let (ours_cpu, floor_cpu) = (median(ours.iter().map(cpu).collect()), median(floors.iter().map(cpu).collect()));
    let events_saved = (TOKENS - TOKENS / CHUNK) as f64;
    let per_event =
        |full: &[Answer], chunked: &[Answer]| (median(full.iter().map(cpu).collect()) - median(chunked.iter().map(cpu).collect())) / events_saved * 1000.0;
    let rows = |a: &Answer| a.meter.as_ref().map_or(0.0, |m| m.billed_rows_written() as f64);
    let statements = |a: &Answer| a.meter.as_ref().map_or(0.0, |m| m.totals().runs as f64);
    let mut out = vec![
        format!("idle worker CPU: slackline {:.2} ms/s, floor {:.2} ms/s (over {} s, after the warm-up)\n", idle[0], idle[1], IDLE.as_secs()),
        "| # | measure (median (min–max) of the runs) | slackline | relay floor |".into(),
        "| --- | --- | --- | --- |".into(),
        format!("| C1 | answers ({TOKENS} tokens at {RATE}/s, one token an event) | {} | {} |", ours.len(), floors.len()),
        format!(
            "| C1 | characters streamed; message → stop, s | {}; {} | {}; {} |",
            ours[0].chars,
            spread(&ours, |a| a.wall.as_secs_f64(), 1),
            floors[0].chars,
            spread(&floors, |a| a.wall.as_secs_f64(), 1)
        ),
        format!("| C1 | Slack calls (first run) | {} | {} |", calls_cell(&ours[0]), calls_cell(&floors[0])),
        format!("| C1 | worker CPU per answer, ms, idle subtracted | {} | {} |", spread(&ours, cpu, 0), spread(&floors, cpu, 0)),
        format!("| C1 | idle share subtracted, ms | {} | {} |", spread(&ours, |a| a.idle_ms, 0), spread(&floors, |a| a.idle_ms, 0)),
        format!("| C1 | ratio slackline / floor (medians; target ≤ 2) | {:.1}× | 1× |", ours_cpu / floor_cpu),
        format!("| C2 | rows written per answer (billed: statements + alarms) | {} | 0 |", spread(&ours, rows, 0)),
        format!("| C2 | SQL statements per answer | {} | 0 |", spread(&ours, statements, 0)),
        format!(
            "| C2 | Durable Object active per answer: the answer row's attempt, claim → completion, ms | {} | no DO |",
            spread(&ours, |a| a.active_ms.expect("the answer row, listed done, carries its first attempt and its finish") as f64, 0)
        ),
        format!(
            "| C3 | worker CPU, the same text in {CHUNK}-token events ({} events), ms | {} | {} |",
            TOKENS / CHUNK,
            spread(&ours_chunked, cpu, 0),
            spread(&floors_chunked, cpu, 0)
        ),
        format!("| C3 | Slack calls, {CHUNK}-token events (first run) | {} | {} |", calls_cell(&ours_chunked[0]), calls_cell(&floors_chunked[0])),
        format!(
            "| C3 | CPU per model event (difference of medians ÷ {events_saved:.0} events), µs | {:.0} | {:.0} |",
            per_event(&ours, &ours_chunked),
            per_event(&floors, &floors_chunked)
        ),
        format!("| C3 | rows written per answer, {CHUNK}-token events | {} | 0 |", spread(&ours_chunked, rows, 0)),
        String::new(),
        "slackline's statements for one answer (its first run): runs, rows read, rows written\n".into(),
        "| statement | runs | rows read | rows written |".into(),
        "| --- | --- | --- | --- |".into(),
    ];
    if let Some(m) = &ours[0].meter {
        let mut by_cost: Vec<_> = m.statements.iter().collect();
        by_cost.sort_by_key(|(_, t)| std::cmp::Reverse((t.rows_written, t.runs)));
        for (sql, t) in by_cost {
            let short: String = sql.chars().take(110).collect();
            out.push(format!("| `{short}` | {} | {} | {} |", t.runs, t.rows_read, t.rows_written));
        }
        out.push(format!("| setAlarm / deleteAlarm; actor requests; alarms | {} / {} | {} | {} |", m.set_alarms, m.delete_alarms, m.requests, m.alarms));
    }
    out.join("\n")
}
