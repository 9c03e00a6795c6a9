//! A team actor pushed past what it can answer within the ack budget (`ACK_BUDGET_MS`, 1 s here):
//! a runtime of its own, a few seconds of load into one team while a share of the requests find
//! the actor slow (the test hook `x-slackline-test-actor-delay-ms`, from under the budget to twice
//! it). Every answer must be a 200 after the commit or a 500 within the budget — never a 200 for
//! something not recorded, never an answer after Slack's 3 s — and every event that got a 200 must
//! be delivered. The slow requests answered 500 must have recorded nothing, so Slack's retry of
//! each is new and gets its one reply. (Locally two things stop them: workerd cancels the actor's
//! handler when the front door aborts the call, and the actor's deadline check refuses what it
//! reaches too late. This test passes with either alone; `ingest::Deadline`'s own tests cover the
//! check, which is what holds where an abandoned call is not cancelled.)
//! `BENCH_ONLY=overload make bench` measures the same at the saturation point (docs/benchmarks.md).

use crate::support::slack::{envelope, mention, now_secs, sign};
use crate::support::{eventually, unique, FakeSlack, Runtime, Settings};
use serde_json::Value;
use std::collections::HashSet;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The runtime's ack budget.
const BUDGET: Duration = Duration::from_millis(1_000);
/// Slack's timeout: no answer may come later.
const SLACK_TIMEOUT: Duration = Duration::from_secs(3);
/// The actor's delays the slow requests ask for, in turn (0 = not slowed).
const DELAYS_MS: [u64; 6] = [0, 0, 300, 0, 1_300, 2_000];
/// Closed-loop senders, and how long they send.
const SENDERS: usize = 8;
const LOAD: Duration = Duration::from_secs(4);

/// One request and its answer.
struct Sent {
    event_id: String,
    ts: String,
    delay_ms: u64,
    status: u16,
    took: Duration,
    body: Vec<u8>,
}

fn post(agent: &ureq::Agent, base: &str, body: &[u8], extra: &[(&str, String)]) -> (u16, Duration) {
    let stamp = now_secs().to_string();
    let mut req = agent
        .post(&format!("{base}/slack/events"))
        .set("content-type", "application/json")
        .set("x-slack-request-timestamp", &stamp)
        .set("x-slack-signature", &sign(&stamp, body));
    for (k, v) in extra {
        req = req.set(k, v);
    }
    let started = Instant::now();
    let status = match req.send_bytes(body) {
        Ok(r) => r.status(),
        Err(ureq::Error::Status(code, _)) => code,
        Err(_) => 0,
    };
    (status, started.elapsed())
}

/// `SENDERS` threads send mentions into `team` for `LOAD`, each its next as soon as the last was
/// answered; every request asks for the next delay of [`DELAYS_MS`].
fn load(base: &str, team: &str, channel: &str) -> Vec<Sent> {
    let all = Mutex::new(Vec::new());
    let started = Instant::now();
    std::thread::scope(|scope| {
        for sender in 0..SENDERS {
            let all = &all;
            scope.spawn(move || {
                let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(10)).build();
                let mut i = 0;
                while started.elapsed() < LOAD {
                    let (event_id, ts) = (unique("Ev"), format!("{}.{sender:02}{i:05}", 1_300_000_000 + i));
                    let body = envelope(team, &event_id, mention(channel, &ts, "overload")).to_string().into_bytes();
                    let delay_ms = DELAYS_MS[(sender + i) % DELAYS_MS.len()];
                    let extra = [("x-slackline-test-actor-delay-ms", delay_ms.to_string())];
                    let (status, took) = post(&agent, base, &body, if delay_ms > 0 { &extra } else { &[] });
                    all.lock().unwrap().push(Sent { event_id, ts, delay_ms, status, took, body });
                    i += 1;
                }
            });
        }
    });
    all.into_inner().unwrap()
}

/// The `thread_ts` of every reply the fake received in `channel`.
fn replied(fake: &FakeSlack, channel: &str) -> Vec<String> {
    fake.calls("chat.postMessage", channel).iter().filter_map(|c| c.field("thread_ts").map(str::to_string)).collect()
}

/// The front door's request lines for `team`, by event id.
fn request_lines(rt: &Runtime, team: &str) -> Vec<Value> {
    rt.log_lines().into_iter().filter(|l| l["kind"] == "request" && l["team"] == team).collect()
}

#[test]
fn past_saturation_every_answer_is_a_200_after_the_commit_or_a_500_within_the_budget_and_no_ack_is_lost() {
    let fake = FakeSlack::start();
    let rt = Runtime::start(Settings::new("overload", &fake).var("ACK_BUDGET_MS", &BUDGET.as_millis().to_string()));
    let (team, channel) = (unique("T"), unique("C"));
    let sent = load(&rt.base_url(), &team, &channel);
    let load_ended = Instant::now();
    assert!(sent.len() > 50, "a few seconds of load: {} requests", sent.len());

    // Every answer: 200 or 500, and before Slack gives up; a 500 comes at the budget, not when
    // the slow actor finishes (2 s after the request reached it).
    for s in &sent {
        assert!(s.status == 200 || s.status == 500, "{} answered {}", s.event_id, s.status);
        assert!(s.took < SLACK_TIMEOUT, "{} answered after {:?}", s.event_id, s.took);
    }
    // Seen from here, a 500 also carries the time wrangler's proxy and this machine's two busy
    // cores add (up to about 0.9 s while both are saturated): it must come before the slowest
    // actor would have answered, so that no 500 waited for it. The budget itself is checked on
    // the front door's own clock, below.
    let slowest_refusal = sent.iter().filter(|s| s.status == 500).map(|s| s.took).max().unwrap_or_default();
    let slowest_actor = Duration::from_millis(DELAYS_MS.into_iter().max().unwrap_or_default());
    assert!(slowest_refusal < slowest_actor, "a 500 that did not wait for the slow actor: {slowest_refusal:?}");
    // The front door's own clock: no answer later than the budget after it started on the request.
    let lines = request_lines(&rt, &team);
    let latest = lines.iter().filter_map(|l| l["ack_ms"].as_i64()).max().unwrap_or(0);
    assert!(latest <= BUDGET.as_millis() as i64 + 250, "the front door answered {latest} ms after it started on a request");
    let too_slow: Vec<_> = sent.iter().filter(|s| s.delay_ms > BUDGET.as_millis() as u64).collect();
    assert!(!too_slow.is_empty() && too_slow.iter().all(|s| s.status == 500), "every request slower than the budget is answered 500");
    assert!(sent.iter().filter(|s| s.delay_ms == 0).any(|s| s.status == 200), "the unslowed requests are recorded");

    // Every acknowledged event is delivered.
    let acked: HashSet<&str> = sent.iter().filter(|s| s.status == 200).map(|s| s.ts.as_str()).collect();
    eventually("every acknowledged event delivered", Duration::from_secs(60), || {
        let got: HashSet<String> = replied(&fake, &channel).into_iter().collect();
        acked.iter().all(|ts| got.contains(*ts)).then_some(())
    });

    // The slow copies reach their units at most 2 s after they arrived (the hook's timer): wait
    // that out, then Slack's retry of every request answered 500 without the delay. Those the actor
    // reached past the deadline recorded nothing, so their retries are new; each event, refused
    // or not, ends with exactly one reply.
    let slow_done = load_ended + Duration::from_millis(DELAYS_MS.iter().copied().max().unwrap_or(0) + 500);
    std::thread::sleep(slow_done.saturating_duration_since(Instant::now()));
    let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(10)).build();
    let refused: Vec<&Sent> = sent.iter().filter(|s| s.status == 500).collect();
    for s in &refused {
        let (status, _) = post(&agent, &rt.base_url(), &s.body, &[("x-slack-retry-num", "1".into()), ("x-slack-retry-reason", "http_error".into())]);
        assert_eq!(status, 200, "the retry of {} is recorded", s.event_id);
    }
    eventually("every event delivered once its retry was recorded", Duration::from_secs(60), || (replied(&fake, &channel).len() >= sent.len()).then_some(()));
    let replies = replied(&fake, &channel);
    let unique_replies: HashSet<&String> = replies.iter().collect();
    assert_eq!(unique_replies.len(), sent.len(), "one reply per event");
    assert_eq!(replies.len(), sent.len(), "no event replied twice");
    // A request line reaches the runtime's log after its answer: awaited, not read at once.
    let retry_line = |lines: &[Value], event_id: &str| lines.iter().find(|l| l["op_key"] == event_id && l["retry_num"] == "1").cloned();
    let lines = eventually("every slow event's retry has its request line", Duration::from_secs(10), || {
        let lines = request_lines(&rt, &team);
        too_slow.iter().all(|s| retry_line(&lines, &s.event_id).is_some()).then_some(lines)
    });
    for s in too_slow {
        let retry = retry_line(&lines, &s.event_id).expect("the retry's request line");
        assert_eq!(retry["verdict"], "new", "{} was slower than the budget and recorded nothing before its retry", s.event_id);
    }
}
