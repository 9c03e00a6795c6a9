//! Answers with tool calls: each shown as a task (`in_progress` when the model calls it,
//! `complete` when it moves on, `error` when it fails), through the same buffer, flushes, roll-overs
//! and checkpoints as the text — and `msg_too_long`, which moves the rest of the answer to a new
//! message. What every run must leave: the text exact, every task once per message and last shown
//! with its final status, in the order the model called them.

use super::super::chunks::{tasks_of, Chunk, Task, TaskStatus};
use super::super::stream::{Answer, Call, End, Policy};
use super::crash_everywhere;
use super::fake::{attempt, ended, say, words, Model, Said, Script, Slack};

/// Drives a fresh answer to `script` (4 characters every 20 ms) against `slack` to its end.
fn run(slack: &mut Slack, script: &Script) -> End {
    let mut clock = 0;
    ended(attempt(&mut Answer::new(Policy::default()), slack, &mut clock, &|from| script.model(from, 4, 20), None))
}

/// Every task the script calls is shown, in order, each last with `status`; where `once`, in one
/// message only.
fn tasks_end(slack: &Slack, script: &Script, status: TaskStatus, once: bool, at: &str) {
    assert_eq!(slack.task_ids(), script.ids(), "{at}: the tasks, in the order called");
    for id in script.ids() {
        let shown = slack.task_shown(&id);
        assert_eq!(shown.last().map(|t| t.status), Some(status), "{at}: {id} as last shown: {shown:?}");
        if once {
            assert_eq!(shown.len(), 1, "{at}: {id} shown in one message: {shown:?}");
        }
    }
}

/// The task updates of the calls made, in order.
fn updates(slack: &Slack) -> Vec<Task> {
    slack
        .calls
        .iter()
        .flat_map(|c| match c {
            Call::Start { chunks } | Call::Append { chunks, .. } => tasks_of(chunks),
            Call::Stop { tasks, .. } => tasks.clone(),
            _ => Vec::new(),
        })
        .collect()
}

#[test]
fn a_tool_call_shows_in_progress_at_once_and_complete_when_the_model_moves_on() {
    let script = Script::with_tools(120, 3);
    let mut slack = Slack::default();
    assert_eq!(run(&mut slack, &script), End::Done);
    assert_eq!((slack.shown(), slack.streaming(), slack.msgs.len()), (script.text.clone(), 0, 1));
    tasks_end(&slack, &script, TaskStatus::Complete, true, "streamed");
    let sent: Vec<(String, TaskStatus)> = updates(&slack).into_iter().map(|t| (t.id, t.status)).collect();
    for id in script.ids() {
        let of_it: Vec<TaskStatus> = sent.iter().filter(|(i, _)| *i == id).map(|(_, s)| *s).collect();
        assert_eq!(of_it, [TaskStatus::InProgress, TaskStatus::Complete], "{id}: in progress, then complete, each once");
    }
    // A tool call is flushed at once: the call that carries it ends with it.
    let first = slack.calls.iter().find_map(|c| if let Call::Start { chunks } = c { Some(chunks.clone()) } else { None }).unwrap();
    assert!(matches!(first.as_slice(), [Chunk::Task(t)] if t.status == TaskStatus::InProgress), "{first:?}");
    assert!(slack.msgs[0].feedback);
}

#[test]
fn text_alone_sends_no_task_and_a_model_that_only_calls_tools_needs_no_empty_answer() {
    let mut slack = Slack::default();
    assert_eq!(run(&mut slack, &Script::text(&words(50))), End::Done);
    assert!(updates(&slack).is_empty());
    let only_tools = Script { text: String::new(), tools: vec![(0, "c1".into(), "search".into()), (0, "c2".into(), "fetch".into())] };
    let mut slack = Slack::default();
    assert_eq!(run(&mut slack, &only_tools), End::Done);
    assert_eq!((slack.shown(), slack.msgs.len()), (String::new(), 1), "the tasks are the answer: no \"(no answer)\" post");
    tasks_end(&slack, &only_tools, TaskStatus::Complete, true, "tools only");
}

#[test]
fn a_model_that_fails_in_a_tool_call_ends_the_task_in_error_and_the_retry_continues() {
    let script = Script::with_tools(100, 2);
    let mut model = script.model(None, 4, 20);
    // Fail right after the second tool call.
    let second = model.pieces.iter().position(|p| matches!(p, Said::Tool(id, _) if id == "call_1")).unwrap();
    model.fail_after = Some(second + 1);
    let (mut slack, mut clock) = (Slack::default(), 0);
    let mut answer = Answer::new(Policy::default());
    let failing = std::cell::RefCell::new(Some(model));
    let End::Retry(_) = ended(attempt(&mut answer, &mut slack, &mut clock, &|_| failing.borrow_mut().take().unwrap(), None)) else { panic!("a retry") };
    assert_eq!(slack.task_shown("call_1").last().map(|t| t.status), Some(TaskStatus::Error), "{:?}", slack.msgs);
    assert_eq!(slack.task_shown("call_0").last().map(|t| t.status), Some(TaskStatus::Complete));
    assert_eq!(slack.streaming(), 0);
    let mut again = Answer::resume(answer.checkpoint().clone(), Policy::default());
    assert_eq!(ended(attempt(&mut again, &mut slack, &mut clock, &|from| script.model(from, 4, 20), None)), End::Done);
    assert_eq!(slack.shown(), script.text);
    assert_eq!(slack.task_ids(), script.ids(), "the continuation does not show a task again");
}

#[test]
fn a_user_stop_ends_the_open_task_in_error() {
    let script = Script::with_tools(400, 1);
    let (mut slack, mut clock) = (Slack::default(), 0);
    let mut answer = Answer::new(Policy::default());
    let mut model: Model = script.model(None, 4, 20);
    // The task's start lands, then the user stops before the model moves on.
    while slack.calls.is_empty() {
        match answer.next(clock) {
            super::super::stream::Step::Call(call) => {
                let reply = slack.apply(&call, clock);
                answer.replied(reply, clock);
            }
            super::super::stream::Step::Read(_) => say(&mut answer, &mut model, clock),
            other => panic!("{other:?}"),
        }
        clock += 20;
    }
    answer.stop();
    assert_eq!(ended(attempt(&mut answer, &mut slack, &mut clock, &|_| unreachable!("no read after a stop"), None)), End::StoppedByUser);
    assert_eq!(slack.task_shown("call_0").last().map(|t| t.status), Some(TaskStatus::Error));
    assert_eq!(slack.streaming(), 0);
}

#[test]
fn a_roll_over_ends_the_tasks_of_the_message_it_closes_and_shows_none_twice() {
    // Ten minutes of answer, a tool call every ~40 s.
    let script = Script { text: words(3_000), ..Script::with_tools(3_000, 15) };
    let mut slack = Slack { lifetime_ms: Some(300_000), ..Slack::default() };
    let mut clock = 0;
    let model = |from: Option<&str>| script.model(from, 8, 200);
    assert_eq!(ended(attempt(&mut Answer::new(Policy::default()), &mut slack, &mut clock, &model, None)), End::Done);
    assert!(slack.msgs.len() >= 3, "{} messages", slack.msgs.len());
    assert_eq!((slack.shown(), slack.streaming()), (script.text.clone(), 0));
    tasks_end(&slack, &script, TaskStatus::Complete, true, "rolled over");
}

#[test]
fn msg_too_long_moves_the_rest_to_a_new_message_without_losing_or_repeating_a_chunk() {
    // A message takes 5 task updates; 8 tools need 16.
    let script = Script::with_tools(200, 8);
    let mut slack = Slack { max_chunks: Some(5), ..Slack::default() };
    assert_eq!(run(&mut slack, &script), End::Done);
    assert_eq!((slack.shown(), slack.streaming()), (script.text.clone(), 0));
    assert!(slack.msgs.len() >= 3, "{} messages", slack.msgs.len());
    assert!(slack.msgs.iter().all(|m| m.chunks <= 5), "{:?}", slack.msgs.iter().map(|m| m.chunks).collect::<Vec<_>>());
    tasks_end(&slack, &script, TaskStatus::Complete, false, "too long");
    // The stop after msg_too_long found the stream closed, and was not made again.
    let refused_stops = slack.calls.windows(2).filter(|w| matches!(w, [Call::Append { .. }, Call::Stop { tasks, .. }] if tasks.is_empty())).count();
    assert!(refused_stops >= 2, "each full message stopped bare: {:?}", slack.calls);
    assert_eq!(slack.msgs.iter().filter(|m| m.feedback).count(), 1);
}

#[test]
fn msg_too_long_on_a_stop_or_a_first_call_drops_its_updates_or_halves_them() {
    // Slack keeps the stream open after msg_too_long here: the bare stop lands.
    let script = Script::with_tools(60, 6);
    let mut slack = Slack { max_chunks: Some(2), too_long_keeps_streaming: true, ..Slack::default() };
    assert_eq!(run(&mut slack, &script), End::Done);
    assert_eq!((slack.shown(), slack.streaming()), (script.text.clone(), 0));
    tasks_end(&slack, &script, TaskStatus::Complete, false, "kept streaming");
    // Held back 1 s, the first call gathers several updates: Slack refuses it whole, and it goes
    // again with fewer.
    let mut slack = Slack { max_chunks: Some(2), limited: Some(|n| n == 0), ..Slack::default() };
    let crowded = Script { text: words(40), tools: (0..4).map(|i| (0, format!("c{i}"), format!("t{i}"))).collect() };
    assert_eq!(run(&mut slack, &crowded), End::Done);
    assert_eq!(slack.shown(), crowded.text);
    assert!(slack.msgs.iter().all(|m| m.chunks <= 2));
    tasks_end(&slack, &crowded, TaskStatus::Complete, false, "halved");
}

#[test]
fn where_streaming_is_refused_the_posted_answer_shows_its_tasks_ended() {
    let script = Script::with_tools(300, 3);
    let mut slack = Slack { no_streaming: true, ..Slack::default() };
    assert_eq!(run(&mut slack, &script), End::Done);
    assert_eq!((slack.shown(), slack.msgs.len()), (script.text.clone(), 1));
    tasks_end(&slack, &script, TaskStatus::Complete, true, "posted");
}

/// The crash property on answers with tool calls: each task once (where Slack never closed a
/// message under the answer), last shown complete, in order; the text exact.
fn crash_everywhere_with_tools(slack_of: fn() -> Slack, once: bool) {
    let script = Script::with_tools(200, 5);
    crash_everywhere(slack_of, &script, &|slack, at| tasks_end(slack, &script, TaskStatus::Complete, once, at));
}

#[test]
fn a_crash_at_any_call_of_an_answer_with_tasks_shows_each_task_once_ended() {
    crash_everywhere_with_tools(Slack::default, true);
}

#[test]
fn a_crash_at_any_call_of_a_posted_answer_with_tasks_shows_each_task_once_ended() {
    crash_everywhere_with_tools(|| Slack { no_streaming: true, ..Slack::default() }, true);
}

#[test]
fn a_crash_at_any_call_with_429s_and_tasks_leaves_one_coherent_answer() {
    crash_everywhere_with_tools(|| Slack { limited: Some(|n| n % 4 == 1), ..Slack::default() }, true);
}

#[test]
fn a_crash_at_any_call_while_slack_closes_streams_with_tasks_leaves_one_coherent_answer() {
    crash_everywhere_with_tools(|| Slack { lifetime_ms: Some(3_000), ..Slack::default() }, false);
}

#[test]
fn a_crash_at_any_call_while_messages_overflow_leaves_one_coherent_answer() {
    crash_everywhere_with_tools(|| Slack { max_chunks: Some(4), ..Slack::default() }, false);
}
