//! Assistant threads and streamed LLM answers, end to end: the shipped bot in workerd with an LLM
//! configured answers a user's message in an assistant thread by streaming the model's answer
//! into the thread (`chat.startStream` / `appendStream` / `stopStream`), from a fake model server
//! that streams tokens at a set rate (`slackline_sim::llm`) to a fake Slack whose streams behave
//! like Slack's (a lifetime, `streaming_state_conflict`, `stopped_by_user`).
//!
//! The agent's DM (`agent_view`) is served the same way: a top-level message is answered in the
//! thread it starts, a reply in that thread, and opening the DM pins prompts to its Messages tab.
//!
//! What each test checks is what the user sees: the thread's messages, their text, and that none
//! is left streaming. Every answer must read as the model's one answer (its messages' texts, in
//! order, are exactly the model's text), however it was interrupted.
//!
//! Answers with structure — the model's tool calls as tasks, a plan, `msg_too_long` — are in
//! [`structured`].

mod structured;

use crate::support::slack::{envelope, now_secs};
use crate::support::{eventually, unique, Client, FakeSlack, Reply, Runtime, Settings};
use serde_json::{json, Value};
use slackline_sim::fake::FakeStream;
use slackline_sim::llm::{FakeLlm, LlmSettings};
use std::sync::OnceLock;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(60);
/// The shared runtime's roll-over: long enough for the short answers, short enough for a test.
const ROLLOVER_MS: &str = "3000";

struct Assistant {
    fake: FakeSlack,
    llm: FakeLlm,
    rt: Runtime,
}

/// The bot with a (fake) LLM, shared by the tests that do not kill it or change its fake's
/// settings. Answers are 40 words at 200 a second unless a prompt asks otherwise.
fn assistant() -> &'static Assistant {
    static A: OnceLock<Assistant> = OnceLock::new();
    A.get_or_init(|| {
        let fake = FakeSlack::start();
        let llm = FakeLlm::start(LlmSettings { tokens: 40, tokens_per_second: 200, ..LlmSettings::default() });
        let rt = Runtime::start(Settings::new("assistant", &fake).var("LLM_API_URL", &llm.url()).var("STREAM_ROLLOVER_MS", ROLLOVER_MS));
        Assistant { fake, llm, rt }
    })
}

/// A user's message in their assistant thread (a DM, in the thread `thread_ts`).
fn thread_message(channel: &str, thread_ts: &str, ts: &str, text: &str) -> Value {
    json!({"type": "message", "channel_type": "im", "channel": channel, "user": "U1", "text": text, "ts": ts, "thread_ts": thread_ts, "event_ts": ts})
}

/// One conversation: a fresh team, DM channel and thread.
struct Conversation {
    team: String,
    channel: String,
    thread_ts: String,
}

impl Conversation {
    fn new() -> Conversation {
        Conversation { team: unique("T"), channel: unique("D"), thread_ts: format!("{}.000100", now_secs()) }
    }

    /// The user asks `prompt`; returns the envelope as sent.
    fn ask(&self, rt: &Runtime, prompt: &str) -> Value {
        // A ts of its own for every message (two asks within a second are two messages).
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(200);
        let ts = format!("{}.{:06}", now_secs(), NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        let body = envelope(&self.team, &unique("Ev"), thread_message(&self.channel, &self.thread_ts, &ts, prompt));
        assert_eq!(rt.client().event(&body).status, 200);
        body
    }
}

/// Waits until the answer in `channel` is finished: a stream closed with the feedback buttons,
/// and none still streaming. Returns the thread's streams, oldest first.
fn finished(fake: &FakeSlack, channel: &str) -> Vec<FakeStream> {
    eventually(&format!("a finished answer in {channel}"), WAIT, || {
        let streams = fake.streams_in(channel);
        (streams.iter().any(|s| s.blocks) && streams.iter().all(|s| !s.streaming)).then_some(streams)
    })
}

/// Waits until `team` has a done row and none pending: its answer's row ended.
fn rows_settled(c: &Client, team: &str) {
    eventually(&format!("{team}'s answer row done"), WAIT, || (!c.rows(team, "done").is_empty() && c.rows(team, "pending").is_empty()).then_some(()));
}

fn text_of(streams: &[FakeStream]) -> String {
    streams.iter().map(|s| s.text.as_str()).collect()
}

#[test]
fn a_message_in_an_assistant_thread_gets_one_streamed_answer_however_often_it_arrives() {
    let a = assistant();
    let conv = Conversation::new();
    let prompt = unique("what-changed-");
    let first = conv.ask(&a.rt, &prompt);
    let c = a.rt.client();
    for retry in ["1", "2", "3"] {
        assert_eq!(c.event_delivery(&first.to_string(), Some(retry), &[]).status, 200);
    }
    let mut fresh_id = first.clone();
    fresh_id["event_id"] = json!(unique("Ev"));
    assert_eq!(c.event(&fresh_id).status, 200, "the same message under a new event id");

    let streams = finished(&a.fake, &conv.channel);
    assert_eq!(streams.len(), 1, "{streams:?}");
    assert_eq!(text_of(&streams), FakeLlm::answer_to(&prompt, 40));
    assert_eq!(streams[0].thread_ts, conv.thread_ts);
    let start = &a.fake.calls("chat.startStream", &conv.channel)[0];
    assert_eq!((start.field("recipient_user_id"), start.field("recipient_team_id")), (Some("U1"), Some(conv.team.as_str())));
    let status = a.fake.wait_calls("assistant.threads.setStatus", &conv.channel, 1, WAIT);
    assert_eq!((status.len(), status[0].field("thread_ts")), (1, Some(conv.thread_ts.as_str())));
    let asked = a.llm.requests().iter().filter(|r| r.to_string().contains(&prompt)).count();
    assert_eq!(asked, 1, "the model is asked once");
    let appends = a.fake.calls("chat.appendStream", &conv.channel).len();
    assert!(appends < 40, "buffered, not one call per token: {appends} appends");
    eventually("the row done", WAIT, || {
        (c.rows(&conv.team, "done").iter().any(|r| r["payload"].as_str().unwrap_or("").contains("stream_answer"))).then_some(())
    });
}

/// A user's message in the agent's DM (`agent_view`): top-level (no `thread_ts`: the root of its
/// own thread), or a reply in the thread `thread_ts`.
fn agent_message(channel: &str, ts: &str, thread_ts: Option<&str>, text: &str) -> Value {
    let mut message = json!({"type": "message", "channel_type": "im", "channel": channel, "user": "U1", "text": text, "ts": ts, "event_ts": ts});
    if let Some(thread_ts) = thread_ts {
        message["thread_ts"] = json!(thread_ts);
    }
    message
}

/// How often the model was asked `prompt`.
fn asked(llm: &FakeLlm, prompt: &str) -> usize {
    llm.requests().iter().filter(|r| r.to_string().contains(prompt)).count()
}

#[test]
fn an_agent_dm_message_is_answered_once_in_its_own_thread_and_a_reply_there_continues_it() {
    let a = assistant();
    let c = a.rt.client();
    let (team, channel) = (unique("T"), unique("D"));
    let root = format!("{}.000100", now_secs());
    let first = unique("agent-first-");
    let message = envelope(&team, &unique("Ev"), agent_message(&channel, &root, None, &first));
    assert_eq!(c.event(&message).status, 200);
    assert_eq!(c.event_delivery(&message.to_string(), Some("1"), &[]).status, 200, "Slack's retry");
    let mut fresh_id = message.clone();
    fresh_id["event_id"] = json!(unique("Ev"));
    assert_eq!(c.event(&fresh_id).status, 200, "the same message under a new event id");

    let streams = finished(&a.fake, &channel);
    assert_eq!(streams.len(), 1, "one answer however often the message came: {streams:?}");
    assert_eq!((streams[0].thread_ts.as_str(), streams[0].text.as_str()), (root.as_str(), FakeLlm::answer_to(&first, 40).as_str()));
    let starts = a.fake.calls("chat.startStream", &channel);
    assert_eq!((starts.len(), starts[0].field("thread_ts")), (1, Some(root.as_str())), "the stream opens in the thread the message starts");
    assert_eq!(asked(&a.llm, &first), 1, "the model is asked once");

    let follow_up = unique("agent-reply-");
    let reply_ts = format!("{}.000200", now_secs());
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), agent_message(&channel, &reply_ts, Some(&root), &follow_up))).status, 200);
    let streams = eventually("the reply's answer finished too", WAIT, || {
        let streams = a.fake.streams_in(&channel);
        (streams.iter().filter(|s| s.blocks).count() == 2 && streams.iter().all(|s| !s.streaming)).then_some(streams)
    });
    assert_eq!(streams.len(), 2, "{streams:?}");
    assert!(streams.iter().all(|s| s.thread_ts == root), "both answers in the one thread: {streams:?}");
    assert_eq!(streams[1].text, FakeLlm::answer_to(&follow_up, 40));
    assert_eq!(asked(&a.llm, &follow_up), 1);
    let statuses = a.fake.wait_calls("assistant.threads.setStatus", &channel, 2, WAIT);
    assert!(statuses.iter().all(|s| s.field("thread_ts") == Some(root.as_str())), "the status shows on the thread's root");
    eventually("both answers' rows done", WAIT, || {
        let done = c.rows(&team, "done").iter().filter(|r| r["payload"].as_str().unwrap_or("").contains("stream_answer")).count();
        (done == 2 && c.rows(&team, "pending").is_empty()).then_some(())
    });
    assert_eq!(a.fake.calls("chat.startStream", &channel).len(), 2, "nothing more for the duplicates");
}

#[test]
fn opening_the_agent_dm_pins_the_prompts_to_its_messages_tab() {
    let a = assistant();
    let (team, channel) = (unique("T"), unique("D"));
    let opened = json!({"type": "app_home_opened", "user": "U1", "channel": channel, "tab": "messages", "event_ts": format!("{}.000300", now_secs())});
    assert_eq!(a.rt.client().event(&envelope(&team, &unique("Ev"), opened)).status, 200);
    let prompts = a.fake.wait_calls("assistant.threads.setSuggestedPrompts", &channel, 1, WAIT);
    assert_eq!((prompts.len(), prompts[0].field("channel_id"), prompts[0].field("thread_ts")), (1, Some(channel.as_str()), None), "the tab's, no thread");
}

#[test]
fn a_long_answer_rolls_over_into_new_messages_before_slack_closes_the_stream() {
    let a = assistant();
    let conv = Conversation::new();
    // 300 words at 60 a second: 5 s, against a 3 s roll-over.
    let prompt = format!("{} [llm tokens=300 rate=60]", unique("long-"));
    conv.ask(&a.rt, &prompt);
    let streams = finished(&a.fake, &conv.channel);
    assert!(streams.len() >= 2, "{} messages", streams.len());
    assert_eq!(text_of(&streams), FakeLlm::answer_to(&prompt, 300));
    assert_eq!(streams.iter().filter(|s| s.blocks).count(), 1, "the feedback buttons once, under the last message");
    assert!(streams.last().unwrap().blocks);
}

#[test]
fn a_user_who_presses_stop_ends_the_answer_and_nothing_more_is_sent() {
    let a = assistant();
    let conv = Conversation::new();
    let prompt = format!("{} [llm tokens=400 rate=40]", unique("stop-"));
    conv.ask(&a.rt, &prompt);
    let ts = a.fake.wait_calls("chat.appendStream", &conv.channel, 1, WAIT)[0].field("ts").unwrap().to_string();
    assert!(a.fake.stop_stream_as_user(&conv.channel, &ts));
    let c = a.rt.client();
    rows_settled(&c, &conv.team);
    let appends_at_end = a.fake.calls("chat.appendStream", &conv.channel).len();
    std::thread::sleep(Duration::from_secs(2)); // the model goes on for 8 s more: nothing of it may reach Slack
    assert_eq!(a.fake.calls("chat.appendStream", &conv.channel).len(), appends_at_end);
    assert!(a.fake.calls("chat.stopStream", &conv.channel).is_empty(), "a stopped stream is not stopped again");
    assert_eq!(a.fake.streams_in(&conv.channel).len(), 1);
    assert!(c.rows(&conv.team, "parked").is_empty(), "a stop is not a failure");
}

/// The user presses Stop in the agent view: Slack's `agent_session_stopped` for the thread.
fn session_stopped(conv: &Conversation, streaming_ts: &[&str]) -> Value {
    let event =
        json!({"type": "agent_session_stopped", "channel": conv.channel, "thread_ts": conv.thread_ts, "streaming_message_ts": streaming_ts, "user": "U1"});
    envelope(&conv.team, &unique("Ev"), event)
}

#[test]
fn a_stop_pressed_in_the_agent_view_ends_the_answer_with_the_text_so_far_once_however_often_it_arrives() {
    let a = assistant();
    let conv = Conversation::new();
    let prompt = format!("{} [llm tokens=400 rate=40]", unique("agent-stop-"));
    conv.ask(&a.rt, &prompt);
    let ts = a.fake.wait_calls("chat.appendStream", &conv.channel, 1, WAIT)[0].field("ts").unwrap().to_string();
    let c = a.rt.client();
    let stop = session_stopped(&conv, &[&ts]);
    // Acked only once the stop is recorded: from here no call starts but the one closing the
    // answer (an append already in flight may still land).
    assert_eq!(c.event(&stop).status, 200);
    let appends_at_ack = a.fake.calls("chat.appendStream", &conv.channel).len();
    assert_eq!(c.event_delivery(&stop.to_string(), Some("1"), &[]).status, 200, "Slack's retry");
    let mut again = stop.clone();
    again["event_id"] = json!(unique("Ev"));
    assert_eq!(c.event(&again).status, 200, "a second press");
    rows_settled(&c, &conv.team);
    let streams = a.fake.streams_in(&conv.channel);
    assert_eq!(streams.len(), 1, "{streams:?}");
    assert!(!streams[0].streaming, "the stream is closed");
    assert_eq!(a.fake.calls("chat.stopStream", &conv.channel).len(), 1, "closed once, however often the stop arrived");
    let appends = a.fake.calls("chat.appendStream", &conv.channel).len();
    assert!(appends <= appends_at_ack + 1, "{appends} appends, {appends_at_ack} when the stop was acked");
    let full = FakeLlm::answer_to(&prompt, 400);
    assert!(full.starts_with(&streams[0].text) && streams[0].text.len() < full.len(), "the text shown so far, no more: {:?}", streams[0].text);
    assert!(c.rows(&conv.team, "parked").is_empty(), "a stop is not a failure");
    // The row ended: nothing more can be sent.
    assert_eq!(a.fake.calls("chat.appendStream", &conv.channel).len(), appends);
}

#[test]
fn a_stop_recorded_before_the_answer_opened_its_message_means_it_never_opens() {
    let a = assistant();
    let conv = Conversation::new();
    // Slack holds the first chat.startStream back for 3 s: the answer waits with its text.
    a.fake.script("chat.startStream", &conv.channel, vec![Reply::RateLimited(3)]);
    let prompt = format!("{} [llm tokens=40 rate=200]", unique("early-stop-"));
    conv.ask(&a.rt, &prompt);
    a.fake.wait_calls("chat.startStream", &conv.channel, 1, WAIT);
    let c = a.rt.client();
    assert_eq!(c.event(&session_stopped(&conv, &[])).status, 200);
    rows_settled(&c, &conv.team);
    assert_eq!(a.fake.calls("chat.startStream", &conv.channel).len(), 1, "only the held-back call");
    assert!(a.fake.streams_in(&conv.channel).is_empty(), "no message was opened");
    assert!(a.fake.calls("chat.postMessage", &conv.channel).is_empty());
    // A later message in the same thread gets its answer: the stop held for the answer before it.
    let next = format!("{} [llm tokens=40 rate=200]", unique("after-stop-"));
    conv.ask(&a.rt, &next);
    let streams = finished(&a.fake, &conv.channel);
    assert_eq!(text_of(&streams), FakeLlm::answer_to(&next, 40));
}

#[test]
fn a_stop_while_the_model_thinks_before_its_first_token_ends_the_models_request_at_once() {
    // A reasoning model takes 20 s before its first token: with its answer's head sent at once
    // (`think`), or held back too (`think_head`). The Stop must not wait for either: the model's
    // request is closed within moments of the ack, long before the model would answer.
    let a = assistant();
    for directive in ["think", "think_head"] {
        let conv = Conversation::new();
        let prompt = format!("{} [llm tokens=40 rate=200 {directive}=20000]", unique("thinking-stop-"));
        conv.ask(&a.rt, &prompt);
        eventually("the model asked", WAIT, || (asked(&a.llm, &prompt) == 1).then_some(()));
        let c = a.rt.client();
        assert_eq!(c.event(&session_stopped(&conv, &[])).status, 200);
        let acked = std::time::Instant::now();
        let closed = eventually(&format!("{directive}: the model's request closed"), Duration::from_secs(15), || a.llm.closed(&prompt));
        let after = closed.saturating_duration_since(acked);
        assert!(after < Duration::from_secs(5), "{directive}: closed {after:?} after the Stop's ack; the model would have answered at 20 s");
        rows_settled(&c, &conv.team);
        assert!(a.fake.streams_in(&conv.channel).is_empty(), "{directive}: no message was opened");
        assert!(c.rows(&conv.team, "parked").is_empty(), "{directive}: a stop is not a failure");
        assert_eq!(asked(&a.llm, &prompt), 1, "{directive}: the model is not asked again");
    }
}

/// The thread's agent session at the fake, once `team`'s rows have all ended.
fn session_when_settled(a: &Assistant, conv: &Conversation) -> slackline_sim::fake::FakeSession {
    finished(&a.fake, &conv.channel);
    let c = a.rt.client();
    eventually(&format!("{}'s rows ended", conv.team), WAIT, || {
        (c.rows(&conv.team, "done").len() >= 2 && c.rows(&conv.team, "pending").is_empty()).then_some(())
    });
    assert!(c.rows(&conv.team, "parked").is_empty(), "nothing parked");
    a.fake.session(&conv.channel, &conv.thread_ts).expect("the thread has a session")
}

#[test]
fn a_processing_status_held_back_past_the_answers_end_does_not_undo_it() {
    // The agent states `processing` and streams its answer; Slack holds the status back (429) until
    // the answer has ended. Sent as it was stated, it would land last and leave the user a Stop
    // button on nothing: the newest intent (the ended answer: active) is what lands last.
    let a = assistant();
    let conv = Conversation::new();
    a.fake.script("agents.sessions.setStatus", &conv.channel, vec![Reply::RateLimited(2)]);
    conv.ask(&a.rt, &format!("slackline-tally session {} [llm tokens=40 rate=200]", unique("held-")));
    let session = session_when_settled(a, &conv);
    assert_eq!(session.status(), "active", "the answer's end wins: {:?}", session.statuses);
    let calls = a.fake.calls("agents.sessions.setStatus", &conv.channel);
    assert!(calls.len() >= 2 && calls[0].rate_limited, "held back, then sent: {} calls", calls.len());
    assert_eq!(calls.last().and_then(|c| c.field("status")), Some("active"));
}

#[test]
fn a_session_suspended_after_its_answer_was_queued_stays_suspended_when_the_answer_ends_later() {
    // The agent streams its answer, then states `suspended` (it waits on a person). The status
    // lands while the answer still streams; the answer's stop must not set the session back.
    let a = assistant();
    let conv = Conversation::new();
    conv.ask(&a.rt, &format!("slackline-tally waits {} [llm tokens=100 rate=50]", unique("waits-")));
    let session = session_when_settled(a, &conv);
    assert_eq!(session.status(), "suspended", "{:?}", session.statuses);
    let stop = a.fake.calls("chat.stopStream", &conv.channel);
    assert_eq!(stop.last().and_then(|c| c.field("session_status")), Some("suspended"), "the stop names the newer status");
}

#[test]
fn a_429_storm_on_appends_is_held_and_retried_without_losing_text() {
    let a = assistant();
    let conv = Conversation::new();
    let prompt = format!("{} [llm tokens=120 rate=60]", unique("storm-"));
    a.fake.script(
        "chat.appendStream",
        &conv.channel,
        vec![Reply::RateLimited(1), Reply::Ok, Reply::RateLimited(1), Reply::RateLimited(1), Reply::Ok, Reply::RateLimited(1)],
    );
    conv.ask(&a.rt, &prompt);
    let streams = finished(&a.fake, &conv.channel);
    assert_eq!(text_of(&streams), FakeLlm::answer_to(&prompt, 120));
    let limited = a.fake.calls("chat.appendStream", &conv.channel).iter().filter(|c| c.rate_limited).count();
    assert_eq!(limited, 4);
}

#[test]
fn where_streaming_is_refused_the_answer_is_posted_and_updated_instead() {
    let a = assistant();
    let conv = Conversation::new();
    let prompt = format!("{} [llm tokens=150 rate=50]", unique("fallback-"));
    a.fake.script("chat.startStream", &conv.channel, vec![Reply::Error("method_not_supported_for_channel_type")]);
    conv.ask(&a.rt, &prompt);
    let full = FakeLlm::answer_to(&prompt, 150);
    let last = eventually("the whole answer in the posted message", WAIT, || {
        let updates = a.fake.calls("chat.update", &conv.channel);
        updates.last().filter(|u| u.field("text") == Some(full.as_str())).cloned()
    });
    let posts = a.fake.calls("chat.postMessage", &conv.channel);
    assert_eq!((posts.len(), posts[0].field("thread_ts")), (1, Some(conv.thread_ts.as_str())), "one post, in the thread");
    let updated: std::collections::HashSet<_> = a.fake.calls("chat.update", &conv.channel).iter().map(|u| u.field("ts").unwrap_or("").to_string()).collect();
    assert_eq!(updated.len(), 1, "every update is of that one post");
    assert!(last.field("ts").is_some());
    assert!(a.fake.streams_in(&conv.channel).is_empty());
}

#[test]
fn a_stream_slack_closes_under_it_is_finished_with_an_update_and_continued() {
    let fake = FakeSlack::start();
    fake.set_stream_lifetime(Duration::from_millis(1_500));
    let llm = FakeLlm::start(LlmSettings { tokens: 200, tokens_per_second: 50, ..LlmSettings::default() });
    let rt = Runtime::start(Settings::new("assistant-lifetime", &fake).var("LLM_API_URL", &llm.url()));
    let conv = Conversation::new();
    let prompt = unique("lifetime-");
    conv.ask(&rt, &prompt);
    // The last stop may find the stream closed too (then there are no feedback buttons): wait for
    // the row instead.
    let c = rt.client();
    rows_settled(&c, &conv.team);
    let streams = fake.streams_in(&conv.channel);
    assert!(streams.iter().all(|s| !s.streaming), "{streams:?}");
    assert!(streams.len() >= 2, "continued in a new message: {streams:?}");
    assert!(!fake.calls("chat.update", &conv.channel).is_empty(), "the closed stream's text set with chat.update");
    assert_eq!(text_of(&streams), FakeLlm::answer_to(&prompt, 200));
}

#[test]
fn a_runtime_killed_mid_answer_leaves_one_finished_answer_and_nothing_streaming() {
    let fake = FakeSlack::start();
    let llm = FakeLlm::start(LlmSettings { tokens: 150, tokens_per_second: 30, ..LlmSettings::default() });
    let settings = Settings::new("assistant-kill", &fake).var("LLM_API_URL", &llm.url()).var("LEASE_MS", "6000").var("ATTEMPT_TIMEOUT_MS", "2000");
    let mut rt = Runtime::start(settings);
    let conv = Conversation::new();
    let prompt = unique("kill-");
    conv.ask(&rt, &prompt);
    a_few_appends(&fake, &conv.channel, 2);
    rt.kill();
    let cut = fake.streams_in(&conv.channel);
    assert!(cut.iter().any(|s| s.streaming), "killed mid-stream: {cut:?}");
    rt.restart();
    let streams = finished(&fake, &conv.channel);
    assert_eq!(text_of(&streams), FakeLlm::answer_to(&prompt, 150), "one coherent answer: {streams:?}");
    assert_eq!(streams.iter().filter(|s| s.blocks).count(), 1);
    let continued = llm
        .requests()
        .iter()
        .filter(|r| r.to_string().contains(&prompt))
        .filter(|r| r["messages"].as_array().is_some_and(|m| m.last().is_some_and(|m| m["role"] == "assistant")))
        .count();
    assert_eq!(continued, 1, "the model was asked to continue after the delivered text");
}

/// Waits until `n` appends reached the fake in `channel`.
fn a_few_appends(fake: &FakeSlack, channel: &str, n: usize) {
    fake.wait_calls("chat.appendStream", channel, n, WAIT);
}

#[test]
fn an_attempt_that_lost_its_lease_mid_stream_sends_nothing_more() {
    let fake = FakeSlack::start();
    let llm = FakeLlm::start(LlmSettings { tokens: 100, tokens_per_second: 50, ..LlmSettings::default() });
    let settings = Settings::new("assistant-lease", &fake).var("LLM_API_URL", &llm.url()).var("LEASE_MS", "3000").var("ATTEMPT_TIMEOUT_MS", "1000");
    let rt = Runtime::start(settings);
    let (c, conv) = (rt.client(), Conversation::new());
    // The model says 30 words, then hangs: the attempt waits on it past its lease.
    let prompt = format!("{} [llm hang=30]", unique("lease-"));
    conv.ask(&rt, &prompt);
    let first = eventually("the first stream shows text", WAIT, || fake.streams_in(&conv.channel).into_iter().find(|s| !s.text.is_empty()));
    // A second claimer (an admin-triggered sweep) takes the row once the lease ran out, and
    // finishes the answer: it stops the first stream and continues in a new message.
    eventually("a sweep reclaims the expired lease", WAIT, || {
        (c.admin_post(&format!("/admin/teams/{}/sweep", conv.team)).json()["claimed"] == 1).then_some(())
    });
    let streams = finished(&fake, &conv.channel);
    assert_eq!(text_of(&streams), FakeLlm::answer_to(&prompt, 100));
    // Now the stale attempt's model gives up; the attempt must find its claim gone and stop.
    llm.release_hung();
    let fenced = eventually("the stale attempt is fenced", WAIT, || {
        let counters = c.stats(&conv.team)["counters"].clone();
        counters.as_array().unwrap().iter().find(|k| k["name"] == "fenced").map(|k| k["value"].clone())
    });
    assert_eq!(fenced, 1);
    let on_first = |method: &str| fake.calls(method, &conv.channel).iter().filter(|call| call.field("ts") == Some(first.ts.as_str())).count();
    assert_eq!(on_first("chat.stopStream"), 1, "the first stream was stopped once, by the new claimer");
    let appends_then = on_first("chat.appendStream");
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(on_first("chat.appendStream"), appends_then);
    assert_eq!(fake.streams_in(&conv.channel).iter().filter(|s| s.streaming).count(), 0);
}

#[test]
fn an_answer_longer_than_its_lease_keeps_its_row_while_other_sweeps_try_to_take_it() {
    let fake = FakeSlack::start();
    let llm = FakeLlm::start(LlmSettings { tokens: 200, tokens_per_second: 20, ..LlmSettings::default() });
    let settings = Settings::new("assistant-long-lease", &fake).var("LLM_API_URL", &llm.url()).var("LEASE_MS", "3000").var("ATTEMPT_TIMEOUT_MS", "1000");
    let rt = Runtime::start(settings);
    let (c, conv) = (rt.client(), Conversation::new());
    // 200 words at 20 a second: 10 s, against a 3 s lease (and the 6.5 s an ingest's claim of
    // its row lasts: one attempt plus 5.5 s).
    let prompt = unique("long-lease-");
    conv.ask(&rt, &prompt);
    eventually("the model's first words streamed", WAIT, || fake.streams_in(&conv.channel).into_iter().find(|s| !s.text.is_empty()));
    // A sweep every 200 ms while it streams: none may find the row's claim run out.
    let streams = eventually("the answer finished", WAIT, || {
        let claimed = c.admin_post(&format!("/admin/teams/{}/sweep", conv.team)).json()["claimed"].as_i64();
        assert_eq!(claimed, Some(0), "another sweep took the row while its answer was streaming");
        std::thread::sleep(Duration::from_millis(200));
        let streams = fake.streams_in(&conv.channel);
        (!streams.is_empty() && streams.iter().all(|s| !s.streaming)).then_some(streams)
    });
    assert_eq!(streams.len(), 1, "one message, never taken over: {streams:?}");
    assert_eq!(text_of(&streams), FakeLlm::answer_to(&prompt, 200));
    let counters = c.stats(&conv.team)["counters"].clone();
    let fenced = counters.as_array().unwrap().iter().find(|k| k["name"] == "fenced").map(|k| k["value"].clone());
    assert!(fenced.as_ref().is_none_or(|v| *v == 0), "no attempt was fenced: {fenced:?}");
}
