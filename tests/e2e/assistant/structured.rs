//! Structured streams, end to end: the fake model calls tools as it answers (`[llm tools=…]`,
//! OpenAI's streamed `tool_calls`), and the user sees each call as a task in the answer's message
//! (`task_update` chunks: in progress, then complete), the text exact; a plan shows under its
//! title; and an answer whose message Slack refuses more of (`msg_too_long`, the fake's chunk
//! limit set low) goes on in a new message in the thread, its text exact and every task ended;
//! the app's closing blocks show once, under the answer's last message.

use super::{assistant, finished, rows_settled, text_of, Conversation};
use crate::support::{FakeSlack, Runtime, Settings};
use slackline_sim::fake::FakeStream;
use slackline_sim::llm::{FakeLlm, LlmSettings};

/// The ids of the tasks the model calls for `prompt`, in order.
fn calls(prompt: &str, tokens: usize) -> Vec<String> {
    FakeLlm::tool_calls(prompt, tokens).into_iter().map(|(id, ..)| id).collect()
}

/// Every task of the answer, each with its status as last shown, in the order first shown.
fn tasks_of(streams: &[FakeStream]) -> Vec<(String, String)> {
    let mut tasks: Vec<(String, String)> = Vec::new();
    for task in streams.iter().flat_map(|s| &s.tasks) {
        match tasks.iter_mut().find(|(id, _)| *id == task.id) {
            Some(seen) => seen.1 = task.status.clone(),
            None => tasks.push((task.id.clone(), task.status.clone())),
        }
    }
    tasks
}

#[test]
fn a_tool_calling_answer_shows_each_call_as_a_task_that_completes_and_its_text_exact() {
    let a = assistant();
    let conv = Conversation::new();
    let prompt = format!("{} [llm tokens=60 rate=200 tools=search,lookup,summarize]", crate::support::unique("tools-"));
    conv.ask(&a.rt, &prompt);
    let streams = finished(&a.fake, &conv.channel);
    assert_eq!(streams.len(), 1, "{streams:?}");
    assert_eq!(text_of(&streams), FakeLlm::answer_to(&prompt, 60));
    let expected: Vec<(String, String)> = calls(&prompt, 60).into_iter().map(|id| (id, "complete".to_string())).collect();
    assert_eq!(tasks_of(&streams), expected, "each call once, complete");
    assert_eq!(streams[0].tasks.iter().map(|t| t.title.as_str()).collect::<Vec<_>>(), ["search", "lookup", "summarize"]);
    assert_eq!(streams[0].task_display_mode, "timeline");
    // Each task went in progress first, as its own call to Slack.
    let sent: Vec<serde_json::Value> = ["chat.startStream", "chat.appendStream"]
        .iter()
        .flat_map(|m| a.fake.calls(m, &conv.channel))
        .flat_map(|c| c.args.get("chunks").and_then(|v| v.as_array().cloned()).unwrap_or_default())
        .collect();
    for id in calls(&prompt, 60) {
        let statuses: Vec<&str> = sent.iter().filter(|c| c["id"] == id.as_str()).filter_map(|c| c["status"].as_str()).collect();
        assert_eq!(statuses.first(), Some(&"in_progress"), "{id}: {statuses:?}");
    }
}

#[test]
fn a_plan_answer_starts_its_message_in_plan_mode_under_its_title() {
    let a = assistant();
    let conv = Conversation::new();
    let prompt = format!("slackline-tally plan {} [llm tokens=40 rate=200 tools=search]", crate::support::unique("plan-"));
    conv.ask(&a.rt, &prompt);
    let streams = finished(&a.fake, &conv.channel);
    assert_eq!(text_of(&streams), FakeLlm::answer_to(&prompt, 40));
    assert_eq!((streams[0].task_display_mode.as_str(), streams[0].plan_title.as_deref()), ("plan", Some(slackline::internal::app::tally::PLAN_TITLE)));
    assert_eq!(tasks_of(&streams), [(calls(&prompt, 40)[0].clone(), "complete".to_string())]);
}

#[test]
fn an_answer_with_closing_blocks_shows_them_once_under_its_exact_text() {
    let a = assistant();
    let conv = Conversation::new();
    let prompt = format!("slackline-tally closing {} [llm tokens=40 rate=200 tools=search]", crate::support::unique("closing-"));
    conv.ask(&a.rt, &prompt);
    let streams = finished(&a.fake, &conv.channel);
    assert_eq!(text_of(&streams), FakeLlm::answer_to(&prompt, 40));
    let shown: Vec<_> = streams.iter().flat_map(|s| s.block_chunks.clone()).collect();
    assert_eq!(shown, slackline::internal::app::tally::closing_blocks(), "once, in the answer's last message: {streams:?}");
    assert!(streams.last().is_some_and(|s| s.blocks && !s.block_chunks.is_empty()), "with the feedback buttons: {streams:?}");
}

#[test]
fn an_answer_whose_appends_hit_msg_too_long_goes_on_in_a_new_message_with_its_text_exact() {
    let fake = FakeSlack::start();
    // A message takes 4 task updates; five tool calls need 10.
    fake.set_stream_max_chunks(4);
    let llm = FakeLlm::start(LlmSettings { tokens: 80, tokens_per_second: 100, ..LlmSettings::default() });
    let rt = Runtime::start(Settings::new("assistant-too-long", &fake).var("LLM_API_URL", &llm.url()));
    let conv = Conversation::new();
    let prompt = format!("{} [llm tools=a,b,c,d,e]", crate::support::unique("too-long-"));
    conv.ask(&rt, &prompt);
    rows_settled(&rt.client(), &conv.team);
    let streams = fake.streams_in(&conv.channel);
    assert!(streams.len() >= 2, "went on in a new message: {streams:?}");
    assert!(streams.iter().all(|s| !s.streaming && s.thread_ts == conv.thread_ts), "{streams:?}");
    assert_eq!(text_of(&streams), FakeLlm::answer_to(&prompt, 80), "no text lost or repeated: {streams:?}");
    let expected: Vec<(String, String)> = calls(&prompt, 80).into_iter().map(|id| (id, "complete".to_string())).collect();
    assert_eq!(tasks_of(&streams), expected, "every task ended, in order: {streams:?}");
    assert!(streams.iter().all(|s| s.chunks <= 4));
    let refused = fake.calls("chat.appendStream", &conv.channel).iter().filter(|c| c.answer.as_ref().is_some_and(|a| a["error"] == "msg_too_long")).count();
    assert!(refused >= 1, "an append was refused msg_too_long");
    assert_eq!(streams.iter().filter(|s| s.blocks).count(), 1, "the feedback buttons once, under the last message");
    assert!(rt.client().rows(&conv.team, "parked").is_empty());
}
