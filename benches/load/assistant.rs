//! `BENCH_ONLY=assistant make bench`: how soon an assistant thread shows life, and what a
//! streamed answer costs.
//!
//! The shipped bot with a fake model server (`slackline_sim::llm`) that streams 50 tokens a
//! second. 16 conversations at once (one per team, as 16 users of 16 workspaces), in rounds: each
//! user's message is acked, then the bot's `assistant.threads.setStatus` and its first streamed
//! text (`chat.startStream`) reach the fake Slack. Then one 2,000-token answer alone: the Slack
//! calls it took, by method, and the worker's CPU (the workerd process that runs the Worker and
//! its Durable Objects) over the answer. And a Stop: 16 long answers streaming at once, each
//! stopped by its user (`agent_session_stopped`): from the stop's ack to the answer's last
//! append and to its `chat.stopStream`. Slack's rate tiers are off, as in the other loads (one
//! conversation per team stays far inside them anyway). Figures, not pass/fail.

use super::harness::{BenchSettings, Readings};
use super::support::slack::{envelope, now_secs};
use super::support::{eventually, unique, FakeSlack, Runtime, Settings};
use super::{ms, pct, send_signed};
use serde_json::json;
use slackline_sim::llm::{FakeLlm, LlmSettings};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Conversations at once.
const CONVERSATIONS: usize = 16;
/// The model's speed.
const TOKENS_PER_SECOND: u32 = 50;

/// One user's message: its conversation (team, channel, thread) and when its ack came.
struct Asked {
    team: String,
    channel: String,
    thread_ts: String,
    acked: Instant,
}

/// Sends one user's message in a fresh assistant thread of a fresh team.
fn ask(agent: &ureq::Agent, url: &str, prompt: &str) -> Asked {
    let (team, channel) = (unique("T"), unique("D"));
    let (ts, thread_ts) = (format!("{}.000200", now_secs()), format!("{}.000100", now_secs()));
    let event =
        json!({"type": "message", "channel_type": "im", "channel": channel, "user": "U1", "text": prompt, "ts": ts, "thread_ts": thread_ts, "event_ts": ts});
    let body = envelope(&team, &unique("Ev"), event).to_string().into_bytes();
    let sent = send_signed(agent, url, &body, &channel, ts);
    assert_eq!(sent.status, 200, "a user's message is acked");
    Asked { team, channel, thread_ts, acked: sent.acked_at }
}

/// The user of `asked` presses Stop in the agent view (`agent_session_stopped`); when its ack came.
fn stop(agent: &ureq::Agent, url: &str, asked: &Asked) -> Instant {
    let event = json!({"type": "agent_session_stopped", "channel": asked.channel, "thread_ts": asked.thread_ts, "user": "U1"});
    let body = envelope(&asked.team, &unique("Ev"), event).to_string().into_bytes();
    let sent = send_signed(agent, url, &body, &asked.channel, format!("{}.000300", now_secs()));
    assert_eq!(sent.status, 200, "a stop is acked");
    sent.acked_at
}

/// Stop → the conversation's last `chat.appendStream` (zero when none came after the ack) and
/// stop → its `chat.stopStream`, for each conversation stopped at `acked`.
fn after_stop(fake: &FakeSlack, stopped: &[(&Asked, Instant)]) -> (Vec<Duration>, Vec<Duration>) {
    let calls = fake.calls_after(0);
    let in_channel =
        |a: &Asked, method: &str| calls.iter().filter(|c| c.method == method && c.field("channel") == Some(a.channel.as_str())).map(|c| c.at).max();
    let (mut last_append, mut closed) = (Vec::new(), Vec::new());
    for (a, acked) in stopped {
        last_append.push(in_channel(a, "chat.appendStream").map_or(Duration::ZERO, |at| at.saturating_duration_since(*acked)));
        closed.push(in_channel(a, "chat.stopStream").expect("each stopped answer is closed").saturating_duration_since(*acked));
    }
    last_append.sort();
    closed.sort();
    (last_append, closed)
}

/// When the fake first received `method` for each channel.
fn first_calls(fake: &FakeSlack, method: &str) -> BTreeMap<String, Instant> {
    let mut first = BTreeMap::new();
    for c in fake.calls_after(0).into_iter().filter(|c| c.method == method) {
        if let Some(channel) = c.field("channel").or(c.field("channel_id")) {
            first.entry(channel.to_string()).or_insert(c.at);
        }
    }
    first
}

/// Times from each ack to the first `method` call of its conversation, sorted.
fn spans(asked: &[Asked], first: &BTreeMap<String, Instant>) -> Vec<Duration> {
    let mut d: Vec<Duration> = asked.iter().filter_map(|a| first.get(&a.channel).map(|at| at.saturating_duration_since(a.acked))).collect();
    d.sort();
    d
}

/// Waits until every conversation's answer was stopped with its feedback buttons.
fn all_finished(fake: &FakeSlack, asked: &[Asked]) {
    eventually("every answer finished", Duration::from_secs(300), || asked.iter().all(|a| fake.streams_in(&a.channel).iter().any(|s| s.blocks)).then_some(()));
}

/// The figures, as Markdown table rows.
pub fn figures(scale: &dyn Fn(usize) -> usize) -> String {
    let fake = FakeSlack::start();
    let llm = FakeLlm::start(LlmSettings { tokens: 100, tokens_per_second: TOKENS_PER_SECOND, ..LlmSettings::default() });
    let rt = Runtime::start(Settings::new("bench-assistant", &fake).var("LLM_API_URL", &llm.url()).var("LOG_DELIVERIES", "failures").bare());
    let url = format!("{}/slack/events", rt.base_url());
    let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(30)).build();
    let warm: Vec<Asked> = (0..4).map(|i| ask(&agent, &url, &format!("warm {i} [llm tokens=5 rate=500]"))).collect();
    all_finished(&fake, &warm);
    let rounds = scale(40).div_ceil(10).max(1);
    let mut asked = Vec::new();
    for round in 0..rounds {
        let batch: Vec<Asked> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..CONVERSATIONS)
                .map(|i| {
                    scope.spawn({
                        let (agent, url) = (&agent, &url);
                        move || ask(agent, url, &format!("round {round} question {i}"))
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        all_finished(&fake, &batch);
        asked.extend(batch);
    }
    let status = spans(&asked, &first_calls(&fake, "assistant.threads.setStatus"));
    let first_text = spans(&asked, &first_calls(&fake, "chat.startStream"));
    let p = |d: &[Duration]| format!("{} / {} ms", ms(pct(d, 0.5)), ms(pct(d, 0.99)));

    // Stop: 16 long answers at once, each stopped by its user once it has streamed for a while.
    let long_ones: Vec<Asked> = (0..CONVERSATIONS).map(|i| ask(&agent, &url, &format!("stop me {i} [llm tokens=2000 rate={TOKENS_PER_SECOND}]"))).collect();
    for a in &long_ones {
        fake.wait_calls("chat.appendStream", &a.channel, 2, Duration::from_secs(60));
    }
    let stopped: Vec<(&Asked, Instant)> = std::thread::scope(|scope| {
        let handles: Vec<_> = long_ones
            .iter()
            .map(|a| {
                scope.spawn({
                    let (agent, url) = (&agent, &url);
                    move || (a, stop(agent, url, a))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    all_finished(&fake, &long_ones);
    let (last_append, closed) = after_stop(&fake, &stopped);

    let tokens = scale(2_000).max(200);
    let cpu_before = rt.cpu_by_process();
    let started = Instant::now();
    let long = ask(&agent, &url, &format!("a long one [llm tokens={tokens} rate={TOKENS_PER_SECOND}]"));
    all_finished(&fake, std::slice::from_ref(&long));
    let took = started.elapsed();
    let cpu_after = rt.cpu_by_process();
    let worker_cpu_ms = cpu_after.iter().zip(&cpu_before).find(|((kind, _), _)| *kind == "worker").map_or(0.0, |((_, a), (_, b))| (a - b) * 1000.0);
    let mut by_method: BTreeMap<String, usize> = BTreeMap::new();
    for c in fake.calls_after(0).into_iter().filter(|c| c.field("channel").or(c.field("channel_id")) == Some(long.channel.as_str())) {
        *by_method.entry(c.method.clone()).or_default() += 1;
    }
    let calls: usize = by_method.values().sum();
    let split = by_method.iter().map(|(m, n)| format!("{m} {n}")).collect::<Vec<_>>().join(", ");
    let chars = fake.streams_in(&long.channel).iter().map(|s| s.text.len()).sum::<usize>();
    [
        format!("| A1 | ack → assistant.threads.setStatus p50 / p99, {} conversations, {CONVERSATIONS} at once | {} |", asked.len(), p(&status)),
        format!("| A1 | ack → first streamed text (chat.startStream) p50 / p99, the model at {TOKENS_PER_SECOND} tokens/s | {} |", p(&first_text)),
        format!("| A2 | Slack calls for one {tokens}-token answer ({chars} characters, {:.1} s) | {calls}: {split} |", took.as_secs_f64()),
        format!("| A2 | worker CPU for that answer (the workerd running the Worker and its actors) | {worker_cpu_ms:.0} ms |"),
        format!("| A3 | Stop (agent_session_stopped acked) → the answer's last chat.appendStream p50 / p99, {CONVERSATIONS} answers streaming at once (0: none after the ack) | {} |", p(&last_append)),
        format!("| A3 | Stop acked → chat.stopStream p50 / p99, the same {CONVERSATIONS} | {} |", p(&closed)),
    ]
    .join("\n")
}
