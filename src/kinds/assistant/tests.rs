//! The streamed answer against a model of Slack's stream methods (their errors, the stream's
//! lifetime, `streaming_state_conflict`, 429s), driven on a virtual clock, with crashes at every
//! call. What every run must leave: the model's whole text, once, in order, across the answer's
//! messages, and no message still streaming.

use super::stream::{Answer, Call, Checkpoint, End, Policy, Reply, Step, EMPTY_ANSWER};

/// One message as the fake Slack keeps it.
#[derive(Debug, Clone)]
struct Msg {
    ts: String,
    text: String,
    streaming: bool,
    opened_at: i64,
    feedback: bool,
}

/// Slack's stream methods, as documented and as users report them.
#[derive(Default)]
struct Slack {
    msgs: Vec<Msg>,
    /// Streams close on their own this long after they open (Slack: about 5 minutes).
    lifetime_ms: Option<i64>,
    /// `chat.startStream` refused (a surface that cannot stream).
    no_streaming: bool,
    /// Answer the n-th call (0-based) with a 429 when this says so.
    limited: Option<fn(usize) -> bool>,
    /// The user presses stop once this many appends have landed.
    user_stops_after: Option<usize>,
    appends: usize,
    calls: Vec<Call>,
}

impl Slack {
    fn msg(&mut self, ts: &str) -> &mut Msg {
        self.msgs.iter_mut().find(|m| m.ts == ts).expect("a known ts")
    }

    fn open(&mut self, text: &str, streaming: bool, now: i64) -> Reply {
        let ts = format!("{}.{:06}", now / 1000, self.msgs.len());
        self.msgs.push(Msg { ts: ts.clone(), text: text.into(), streaming, opened_at: now, feedback: false });
        Reply::Ok { ts: Some(ts) }
    }

    fn apply(&mut self, call: &Call, now: i64) -> Reply {
        let n = self.calls.len();
        self.calls.push(call.clone());
        if self.limited.is_some_and(|f| f(n)) {
            return Reply::RateLimited { retry_after_ms: 1_000 };
        }
        if let Some(life) = self.lifetime_ms {
            for m in self.msgs.iter_mut().filter(|m| m.streaming && now - m.opened_at > life) {
                m.streaming = false;
            }
        }
        let refused = |code: &str| Reply::Refused(code.into());
        match call {
            Call::Start { .. } if self.no_streaming => refused("method_not_supported_for_channel_type"),
            Call::Start { text } => self.open(text, true, now),
            Call::Post { text } => self.open(text, false, now),
            Call::Append { ts, text } => {
                if self.user_stops_after.is_some_and(|k| self.appends >= k) {
                    self.msg(ts).streaming = false;
                    return refused("stopped_by_user");
                }
                let m = self.msg(ts);
                if !m.streaming {
                    return refused("message_not_in_streaming_state");
                }
                m.text.push_str(text);
                self.appends += 1;
                Reply::Ok { ts: None }
            }
            Call::Stop { ts, last } => {
                let m = self.msg(ts);
                if !m.streaming {
                    return refused("message_not_in_streaming_state");
                }
                m.streaming = false;
                m.feedback = *last;
                Reply::Ok { ts: None }
            }
            Call::Update { ts, text } => {
                let m = self.msg(ts);
                if m.streaming {
                    return refused("streaming_state_conflict");
                }
                m.text = text.clone();
                Reply::Ok { ts: None }
            }
            Call::Find { since } => Reply::Ok { ts: self.msgs.iter().rev().find(|m| m.opened_at >= *since).map(|m| m.ts.clone()) },
        }
    }

    /// The answer as a reader sees it: every message's text, in order.
    fn shown(&self) -> String {
        self.msgs.iter().map(|m| m.text.as_str()).collect()
    }

    fn streaming(&self) -> usize {
        self.msgs.iter().filter(|m| m.streaming).count()
    }
}

/// A model that says `text` in pieces of `piece` characters, one every `every_ms`; a
/// continuation says the rest after what was delivered.
struct Model {
    pieces: std::collections::VecDeque<String>,
    every_ms: i64,
    fail_after: Option<usize>,
    said: usize,
}

impl Model {
    fn saying(text: &str, piece: usize, every_ms: i64) -> Model {
        let chars: Vec<char> = text.chars().collect();
        let pieces = chars.chunks(piece).map(|c| c.iter().collect()).collect();
        Model { pieces, every_ms, fail_after: None, said: 0 }
    }
}

/// How a run of one attempt stopped.
enum Run {
    Ended(End),
    /// Crashed at a call: the checkpoint written before it.
    Crashed(Checkpoint),
}

/// One attempt: drives `answer` until it ends, or crashes at the `crash_at`-th call (after Slack
/// applied it when `landed`). `start_model` makes the model at the first read, from what the
/// answer continues.
fn attempt(answer: &mut Answer, slack: &mut Slack, clock: &mut i64, start_model: &dyn Fn(Option<&str>) -> Model, crash_at: Option<(usize, bool)>) -> Run {
    let mut model: Option<Model> = None;
    let mut calls = 0;
    for _ in 0..200_000 {
        match answer.next(*clock) {
            Step::Finished(end) => return Run::Ended(end),
            Step::Wait(t) => *clock = t.max(*clock + 1),
            Step::Call(call) => {
                let cp = answer.checkpoint().clone();
                if let Some((k, landed)) = crash_at.filter(|(k, _)| *k == calls) {
                    let _ = k;
                    if landed {
                        slack.apply(&call, *clock);
                    }
                    return Run::Crashed(cp);
                }
                calls += 1;
                let reply = slack.apply(&call, *clock);
                *clock += 20;
                answer.replied(reply, *clock);
            }
            Step::Read(until) => {
                let m = model.get_or_insert_with(|| start_model(answer.continues_from()));
                let next_at = *clock + m.every_ms;
                match until {
                    Some(u) if u < next_at => *clock = u.max(*clock),
                    _ => {
                        *clock = next_at;
                        if m.fail_after.is_some_and(|k| m.said >= k) {
                            answer.model_failed("llm_stream_broke");
                        } else if let Some(p) = m.pieces.pop_front() {
                            m.said += 1;
                            answer.text(&p, *clock);
                        } else {
                            answer.model_done();
                        }
                    }
                }
            }
        }
    }
    panic!("the answer never ended");
}

fn text_of(words: usize) -> String {
    (0..words).map(|i| format!("word{i} ")).collect()
}

/// A model that says what is left of `full` after what the answer already shows.
fn continuing(full: &str, piece: usize, every_ms: i64) -> impl Fn(Option<&str>) -> Model + '_ {
    move |from: Option<&str>| {
        let done = from.unwrap_or("");
        assert!(full.starts_with(done), "a continuation follows the delivered text");
        Model::saying(&full[done.len()..], piece, every_ms)
    }
}

fn ended(run: Run) -> End {
    match run {
        Run::Ended(end) => end,
        Run::Crashed(_) => panic!("crashed"),
    }
}

#[test]
fn an_answer_streams_into_one_message_and_closes_with_the_feedback_buttons() {
    let full = text_of(400);
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
    let full = text_of(5);
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
        if let Call::Start { text } | Call::Append { text, .. } | Call::Post { text } | Call::Update { text, .. } = c {
            assert!(text.len() <= 12_000, "{} bytes", text.len());
        }
    }
    assert_eq!(slack.shown(), full);
}

#[test]
fn a_long_answer_rolls_over_to_new_messages_before_slack_closes_the_stream() {
    let full = text_of(3_000);
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
    let full = text_of(600);
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
    let full = text_of(500);
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
    let full = text_of(800);
    let storm: fn(usize) -> bool = |n| n % 3 != 0;
    let (mut slack, mut clock) = (Slack { limited: Some(storm), ..Slack::default() }, 0);
    let mut answer = Answer::new(Policy::default());
    assert_eq!(ended(attempt(&mut answer, &mut slack, &mut clock, &continuing(&full, 4, 20), None)), End::Done);
    assert_eq!((slack.shown(), slack.streaming(), slack.msgs.len()), (full, 0, 1));
}

#[test]
fn stopped_by_user_ends_the_answer_and_nothing_more_is_sent() {
    let full = text_of(800);
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
    let full = text_of(300);
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
/// checkpoint written before the call: one coherent answer each time.
fn crash_everywhere(slack_of: fn() -> Slack, words: usize) {
    let full = text_of(words);
    let calls = {
        let (mut slack, mut clock) = (slack_of(), 0);
        ended(attempt(&mut Answer::new(Policy::default()), &mut slack, &mut clock, &continuing(&full, 4, 20), None));
        slack.calls.len()
    };
    for k in 0..calls {
        for landed in [false, true] {
            let (mut slack, mut clock) = (slack_of(), 0);
            let Run::Crashed(cp) = attempt(&mut Answer::new(Policy::default()), &mut slack, &mut clock, &continuing(&full, 4, 20), Some((k, landed))) else {
                panic!("no call {k}")
            };
            clock += 60_000; // the lease runs out; another attempt claims the row
            let mut resumed = Answer::resume(cp, Policy::default());
            let end = ended(attempt(&mut resumed, &mut slack, &mut clock, &continuing(&full, 4, 20), None));
            assert_eq!(end, End::Done, "crash at call {k} (landed: {landed})");
            assert_eq!(slack.streaming(), 0, "crash at call {k} (landed: {landed}): a message left streaming");
            assert_eq!(slack.shown(), full, "crash at call {k} (landed: {landed}): {:?}", slack.msgs);
        }
    }
}

#[test]
fn a_crash_at_any_call_leaves_one_coherent_answer_and_nothing_streaming() {
    crash_everywhere(Slack::default, 300);
}

#[test]
fn a_crash_at_any_call_of_the_fallback_leaves_one_coherent_answer() {
    crash_everywhere(|| Slack { no_streaming: true, ..Slack::default() }, 300);
}

#[test]
fn a_crash_at_any_call_with_429s_leaves_one_coherent_answer() {
    crash_everywhere(|| Slack { limited: Some(|n| n % 4 == 1), ..Slack::default() }, 200);
}

#[test]
fn a_crash_at_any_call_while_slack_closes_streams_under_it_leaves_one_coherent_answer() {
    crash_everywhere(|| Slack { lifetime_ms: Some(3_000), ..Slack::default() }, 300);
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
                match model.pieces.pop_front() {
                    Some(p) => answer.text(&p, *clock),
                    None => answer.model_done(),
                }
            }
        }
    }
    panic!("the answer never ended");
}

#[test]
fn a_stop_mid_stream_closes_the_stream_with_the_text_shown_so_far_and_sends_nothing_more() {
    let full = text_of(800);
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
    let mut model = Model::saying(&text_of(50), 4, 20);
    let (after, end) = attempt_stopped_after(&mut answer, &mut slack, &mut clock, &mut model, 0);
    assert_eq!((after, end), (vec![], End::StoppedByUser));
    assert!(slack.calls.is_empty(), "{:?}", slack.calls);
}

#[test]
fn a_stop_honoured_after_a_crash_at_any_call_leaves_one_coherent_partial_answer() {
    let full = text_of(300);
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
