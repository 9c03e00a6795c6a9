//! The streamed answer against a model of Slack's stream methods (their errors, the stream's
//! lifetime, `streaming_state_conflict`, 429s, `msg_too_long`), driven on a virtual clock, with
//! crashes at every call ([`fake`]). What every run must leave: the model's whole text, once, in
//! order, across the answer's messages, every task it reported with its final status, and no
//! message still streaming. [`tasks`] holds the answers with tool calls.

mod fake;
mod tasks;

use super::stream::{Answer, Call, End, Policy, Step, EMPTY_ANSWER};
use fake::{attempt, continuing, ended, say, words, Model, Run, Script, Slack};

#[test]
fn an_answer_streams_into_one_message_and_closes_with_the_feedback_buttons() {
    let full = words(400);
    let (mut slack, mut clock) = (Slack::default(), 1_000_000);
    let mut answer = Answer::new(Policy::default());
    // Four characters every 5 ms: the buffer fills to 256 before a second passes.
    assert_eq!(ended(attempt(&mut answer, &mut slack, &mut clock, &continuing(&full, 4, 5), None)), End::Done);
    assert_eq!((slack.msgs.len(), slack.shown(), slack.streaming()), (1, full.clone(), 0));
    assert!(slack.msgs[0].feedback);
    let appends = slack.calls.iter().filter(|c| matches!(c, Call::Append { .. })).count();
    // Buffered: ~256 characters a call, not one call per token.
    assert!(appends <= full.len() / 256 + 2, "{appends} appends for {} chars", full.len());
    assert!(matches!(slack.calls.last(), Some(Call::Stop { last: true, .. })));
}

#[test]
fn a_slow_model_is_flushed_by_time() {
    let full = words(5);
    let (mut slack, mut clock) = (Slack::default(), 0);
    let mut answer = Answer::new(Policy::default());
    ended(attempt(&mut answer, &mut slack, &mut clock, &continuing(&full, 3, 400), None));
    let starts_and_appends: Vec<_> = slack.calls.iter().filter(|c| matches!(c, Call::Start { .. } | Call::Append { .. })).collect();
    assert!(starts_and_appends.len() >= 3, "text reaches Slack about once a second: {starts_and_appends:?}");
    assert_eq!(slack.shown(), full);
}

#[test]
fn no_call_carries_more_than_the_markdown_cap() {
    let full = "é".repeat(30_000);
    let (mut slack, mut clock) = (Slack::default(), 0);
    let mut answer = Answer::new(Policy::default());
    ended(attempt(&mut answer, &mut slack, &mut clock, &continuing(&full, 30_000, 10), None));
    for c in &slack.calls {
        assert!(c.text().len() <= 12_000, "{} bytes", c.text().len());
    }
    assert_eq!(slack.shown(), full);
}

#[test]
fn a_long_answer_rolls_over_to_new_messages_before_slack_closes_the_stream() {
    let full = words(3_000);
    let (mut slack, mut clock) = (Slack { lifetime_ms: Some(300_000), ..Slack::default() }, 0);
    let mut answer = Answer::new(Policy::default());
    // 3,000 words at one a 200 ms: ten minutes.
    assert_eq!(ended(attempt(&mut answer, &mut slack, &mut clock, &continuing(&full, 8, 200), None)), End::Done);
    assert!(slack.msgs.len() >= 3, "{} messages", slack.msgs.len());
    assert_eq!((slack.shown(), slack.streaming()), (full, 0));
    assert!(!slack.calls.iter().any(|c| matches!(c, Call::Update { .. })), "no stream was closed under it");
    assert_eq!(slack.msgs.iter().filter(|m| m.feedback).count(), 1);
}

#[test]
fn a_stream_slack_closed_is_finalized_with_an_update_and_continued() {
    let full = words(600);
    let policy = Policy { rollover_ms: i64::MAX, ..Policy::default() };
    let (mut slack, mut clock) = (Slack { lifetime_ms: Some(5_000), ..Slack::default() }, 0);
    let mut answer = Answer::new(policy);
    assert_eq!(ended(attempt(&mut answer, &mut slack, &mut clock, &continuing(&full, 4, 50), None)), End::Done);
    assert!(slack.calls.iter().any(|c| matches!(c, Call::Update { .. })));
    assert!(slack.msgs.len() >= 2);
    assert_eq!((slack.shown(), slack.streaming()), (full, 0));
}

#[test]
fn where_streaming_is_refused_the_answer_is_posted_and_updated_at_a_bounded_rate() {
    let full = words(500);
    let (mut slack, mut clock) = (Slack { no_streaming: true, ..Slack::default() }, 0);
    let mut answer = Answer::new(Policy::default());
    assert_eq!(ended(attempt(&mut answer, &mut slack, &mut clock, &continuing(&full, 4, 20), None)), End::Done);
    assert_eq!((slack.shown(), slack.streaming()), (full, 0));
    assert_eq!(slack.calls.iter().filter(|c| matches!(c, Call::Post { .. })).count(), 1);
    let updates = slack.calls.iter().filter(|c| matches!(c, Call::Update { .. })).count();
    // At most one update every 1.5 s of the answer, and the last.
    let most = usize::try_from(clock / 1_500 + 2).unwrap();
    assert!((2..=most).contains(&updates), "{updates} updates in {clock} ms");
}

#[test]
fn a_429_storm_on_appends_loses_no_text() {
    let full = words(800);
    let storm: fn(usize) -> bool = |n| n % 3 != 0;
    let (mut slack, mut clock) = (Slack { limited: Some(storm), ..Slack::default() }, 0);
    let mut answer = Answer::new(Policy::default());
    assert_eq!(ended(attempt(&mut answer, &mut slack, &mut clock, &continuing(&full, 4, 20), None)), End::Done);
    assert_eq!((slack.shown(), slack.streaming(), slack.msgs.len()), (full, 0, 1));
}

#[test]
fn stopped_by_user_ends_the_answer_and_nothing_more_is_sent() {
    let full = words(800);
    let (mut slack, mut clock) = (Slack { user_stops_after: Some(3), ..Slack::default() }, 0);
    let mut answer = Answer::new(Policy::default());
    assert_eq!(ended(attempt(&mut answer, &mut slack, &mut clock, &continuing(&full, 4, 20), None)), End::StoppedByUser);
    assert!(matches!(slack.calls.last(), Some(Call::Append { .. })), "the refused append was the last call");
    assert_eq!(answer.next(clock), Step::Finished(End::StoppedByUser));
}

#[test]
fn a_model_that_says_nothing_gets_one_post_saying_so() {
    let (mut slack, mut clock) = (Slack::default(), 0);
    let mut answer = Answer::new(Policy::default());
    assert_eq!(ended(attempt(&mut answer, &mut slack, &mut clock, &continuing("", 4, 20), None)), End::Done);
    assert_eq!(slack.shown(), EMPTY_ANSWER);
}

#[test]
fn a_model_that_breaks_mid_answer_closes_the_message_and_the_retry_continues_it() {
    let full = words(300);
    let (mut slack, mut clock) = (Slack::default(), 0);
    let mut answer = Answer::new(Policy::default());
    let breaking = |from: Option<&str>| Model { fail_after: Some(100), ..continuing(&full, 4, 20)(from) };
    let End::Retry(why) = ended(attempt(&mut answer, &mut slack, &mut clock, &breaking, None)) else { panic!("not a retry") };
    assert_eq!((why.as_str(), slack.streaming()), ("llm_stream_broke", 0));
    let mut again = Answer::resume(answer.checkpoint().clone(), Policy::default());
    assert_eq!(ended(attempt(&mut again, &mut slack, &mut clock, &continuing(&full, 4, 20), None)), End::Done);
    assert_eq!((slack.shown(), slack.streaming(), slack.msgs.len()), (full, 0, 2));
}

/// Crashes at every call of an answer, before and after Slack applied it, and resumes from the
/// checkpoint written before the call: one coherent answer each time (`check` looks at what the
/// fake Slack shows, with where it crashed).
pub(super) fn crash_everywhere(slack_of: fn() -> Slack, script: &Script, check: &dyn Fn(&Slack, &str)) {
    let model = |from: Option<&str>| script.model(from, 4, 20);
    let calls = {
        let (mut slack, mut clock) = (slack_of(), 0);
        ended(attempt(&mut Answer::new(Policy::default()), &mut slack, &mut clock, &model, None));
        slack.calls.len()
    };
    for k in 0..calls {
        for landed in [false, true] {
            let (mut slack, mut clock) = (slack_of(), 0);
            let Run::Crashed(cp) = attempt(&mut Answer::new(Policy::default()), &mut slack, &mut clock, &model, Some((k, landed))) else {
                panic!("no call {k}")
            };
            clock += 60_000; // the lease runs out; another attempt claims the row
            let mut resumed = Answer::resume(cp, Policy::default());
            let end = ended(attempt(&mut resumed, &mut slack, &mut clock, &model, None));
            let at = format!("crash at call {k} (landed: {landed})");
            assert_eq!(end, End::Done, "{at}");
            assert_eq!(slack.streaming(), 0, "{at}: a message left streaming");
            assert_eq!(slack.shown(), script.text, "{at}: {:?}", slack.msgs);
            check(&slack, &at);
        }
    }
}

/// [`crash_everywhere`] on an answer of `n` words without tools.
fn crash_everywhere_in_text(slack_of: fn() -> Slack, n: usize) {
    crash_everywhere(slack_of, &Script::text(&words(n)), &|_, _| {});
}

#[test]
fn a_crash_at_any_call_leaves_one_coherent_answer_and_nothing_streaming() {
    crash_everywhere_in_text(Slack::default, 300);
}

#[test]
fn a_crash_at_any_call_of_the_fallback_leaves_one_coherent_answer() {
    crash_everywhere_in_text(|| Slack { no_streaming: true, ..Slack::default() }, 300);
}

#[test]
fn a_crash_at_any_call_with_429s_leaves_one_coherent_answer() {
    crash_everywhere_in_text(|| Slack { limited: Some(|n| n % 4 == 1), ..Slack::default() }, 200);
}

#[test]
fn a_crash_at_any_call_while_slack_closes_streams_under_it_leaves_one_coherent_answer() {
    crash_everywhere_in_text(|| Slack { lifetime_ms: Some(3_000), ..Slack::default() }, 300);
}

/// One attempt in which the user presses Stop once `stop_after` calls have been made (between
/// calls, as the job checks): the calls made after it, and the end.
fn attempt_stopped_after(answer: &mut Answer, slack: &mut Slack, clock: &mut i64, model: &mut Model, stop_after: usize) -> (Vec<Call>, End) {
    let (mut made, mut after) = (0, Vec::new());
    for _ in 0..200_000 {
        if made == stop_after && !answer.stopped_by_user() {
            answer.stop();
        }
        match answer.next(*clock) {
            Step::Finished(end) => return (after, end),
            Step::Wait(t) => *clock = t.max(*clock + 1),
            Step::Call(call) => {
                if answer.stopped_by_user() {
                    after.push(call.clone());
                }
                made += 1;
                let reply = slack.apply(&call, *clock);
                *clock += 20;
                answer.replied(reply, *clock);
            }
            Step::Read(_) => {
                *clock += model.every_ms;
                say(answer, model, *clock);
            }
        }
    }
    panic!("the answer never ended");
}

#[test]
fn a_stop_mid_stream_closes_the_stream_with_the_text_shown_so_far_and_sends_nothing_more() {
    let full = words(800);
    for stop_after in 1..6 {
        let (mut slack, mut clock) = (Slack::default(), 0);
        let mut answer = Answer::new(Policy::default());
        let mut model = Model::saying(&full, 4, 20);
        let (after, end) = attempt_stopped_after(&mut answer, &mut slack, &mut clock, &mut model, stop_after);
        assert_eq!(end, End::StoppedByUser, "after {stop_after} calls");
        assert!(matches!(after.as_slice(), [Call::Stop { last: true, .. }]), "one stopStream and nothing else: {after:?}");
        assert_eq!(slack.streaming(), 0, "nothing left streaming");
        assert!(full.starts_with(&slack.shown()) && !slack.shown().is_empty(), "the text shown so far, no more");
        assert!(slack.shown().len() < full.len(), "the model's rest was never sent");
        assert_eq!(answer.next(clock), Step::Finished(End::StoppedByUser), "and it stays ended");
    }
}

#[test]
fn a_stop_before_the_answer_started_makes_no_call() {
    let (mut slack, mut clock) = (Slack::default(), 0);
    let mut answer = Answer::new(Policy::default());
    let mut model = Model::saying(&words(50), 4, 20);
    let (after, end) = attempt_stopped_after(&mut answer, &mut slack, &mut clock, &mut model, 0);
    assert_eq!((after, end), (vec![], End::StoppedByUser));
    assert!(slack.calls.is_empty(), "{:?}", slack.calls);
}

#[test]
fn a_stop_honoured_after_a_crash_at_any_call_leaves_one_coherent_partial_answer() {
    let full = words(300);
    for crash in 0..12 {
        for landed in [false, true] {
            let (mut slack, mut clock) = (Slack::default(), 0);
            let mut first = Answer::new(Policy::default());
            let Run::Crashed(cp) = attempt(&mut first, &mut slack, &mut clock, &continuing(&full, 4, 20), Some((crash, landed))) else { continue };
            // The stop was recorded while the attempt was dead; the next attempt reads it first.
            let mut resumed = Answer::resume(cp, Policy::default());
            let mut model = Model::saying("never asked for", 4, 20);
            let (after, end) = attempt_stopped_after(&mut resumed, &mut slack, &mut clock, &mut model, 0);
            assert_eq!(end, End::StoppedByUser, "crash at {crash} (landed: {landed})");
            assert!(after.iter().all(|c| matches!(c, Call::Stop { .. } | Call::Update { .. } | Call::Find { .. })), "only closing calls: {after:?}");
            assert_eq!(slack.streaming(), 0, "crash at {crash} (landed: {landed}): nothing left streaming");
            assert!(full.starts_with(&slack.shown()), "crash at {crash} (landed: {landed}): a prefix of the answer, once: {:?}", slack.shown());
        }
    }
}
