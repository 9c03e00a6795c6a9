//! Whose call the fake recorded: a script run's own, another run's, or one that cannot be told.
//! One fake Slack (`make sim`) serves every run made against it, and a call slackline makes for a
//! run may come late, during the next run (a run that failed, then ran again): an `expect` takes
//! only what was sent for its own run.
//!
//! The rule is general, not per method: **a call is the run's when its request (its path and
//! arguments: a word of their texts, [`request_words`]) holds one of the run's ids**:
//! - the ids its steps minted ([`crate::client::collecting`]): its team, every fresh channel,
//!   message `ts`, event id, `trigger_id`, `response_url` hook, view id, Workflow execution id
//!   ([`crate::client::fresh_id`], `fresh_ts`, `fresh_trigger_id`): a thread reply carries
//!   the message's `ts` as `thread_ts`, an answer to a command its `response_url`, a `views.open`
//!   its `trigger_id`, a step's ending its execution id;
//! - the ids a step used that it did not mint: the message a click landed on;
//! - the ids the fake answered the run's own calls with ([`RunIds::learn`]): a post's `ts` (its
//!   `chat.update` carries it), an opened view's id (its `views.update` carries it).
//!
//! A call holding none of them is **another run's** when it holds an id the simulator minted
//! (each carries a check: [`crate::client::minted_ids_in`]): another run's channel, hook or
//! trigger; or when its message `ts` (`thread_ts`, `ts`, `message_ts`, `timestamp`) is one no
//! step of the run minted or named and the fake never answered anyone with: a message another
//! run's user wrote (a reply in its thread, a reaction to it). It is never the run's. A call
//! holding neither (only ids the flow named — a `--channel C0DESK`, a channel the bot is
//! configured with, a user, the `ts` of a bot's post — and text) **cannot be told**: another
//! run's would look the same. An `expect` takes it (the flows of bots that post in one
//! configured channel need it) and its report line says so.
//!
//! Ids the flow names (`--channel`, `--team`, `--user`, `--ts`) are not the run's: another run
//! may name the same. Combined with the run's fresh ids they still are (a reply in `C0DESK`'s
//! thread of the run's message carries the run's `ts`).

use crate::client::{minted_ids_in, SimCall};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

/// Whose a recorded call is, to one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// It holds one of the run's ids.
    Run,
    /// It holds none of the run's ids but one the simulator minted for another run.
    Other,
    /// It holds no id the simulator minted: it may be the run's, or another's.
    Unknown,
}

/// The shortest id learned from an answer: anything shorter could be part of other text.
const SHORTEST_LEARNED: usize = 8;

/// The arguments that name a message by its `ts`.
const MESSAGE_TS_FIELDS: [&str; 4] = ["thread_ts", "ts", "message_ts", "timestamp"];

/// The ids a run owns, and the message `ts`s that are no run's own.
#[derive(Debug, Clone, Default)]
pub struct RunIds {
    ids: BTreeSet<String>,
    /// The `ts`s the run's steps named (`--ts`, `--thread`): another run may name them too.
    named: BTreeSet<String>,
    /// The `ts`s the fake answered anyone with (the bot's posts).
    answered: BTreeSet<String>,
    /// The words of each call read so far, by its place in the fake's record (a run reads one
    /// fake): a script reads its calls again at every poll.
    words: RefCell<HashMap<(usize, u64), Rc<Words>>>,
}

/// The words of a request that may be ids, and whether one is an id the simulator minted.
#[derive(Debug)]
struct Words {
    words: Vec<String>,
    minted: bool,
}

impl RunIds {
    /// Adds ids the run minted or used.
    pub fn add(&mut self, ids: impl IntoIterator<Item = String>) {
        self.ids.extend(ids);
    }

    /// Notes the message `ts`s in a step's words (`--ts 1700000000.000100`, `--message C1:TS`):
    /// named by the flow, they are not another run's.
    pub fn named_in(&mut self, words: &[String]) {
        for word in words {
            self.named.extend(word.split(|c: char| !(c.is_ascii_digit() || c == '.')).filter(|w| is_ts(w)).map(str::to_string));
        }
    }

    /// Notes the `ts`s the fake answered `calls` with (any run's, the bot's posts).
    pub fn answered_in(&mut self, calls: &[SimCall]) {
        self.answered.extend(calls.iter().flat_map(answered_ids).filter(|id| is_ts(id)));
    }

    /// Whether `id` is one of the run's.
    pub fn contains(&self, id: &str) -> bool {
        self.ids.contains(id)
    }

    /// Whose `call` is, to this run.
    pub fn owner(&self, call: &SimCall) -> Owner {
        let words = self.words_of(call);
        let holds = |word: &String| self.ids.contains(word) || (word.contains('.') && word.split('.').any(|part| self.ids.contains(part)));
        if words.words.iter().any(holds) {
            return Owner::Run;
        }
        let foreign_ts = |ts: &&str| is_ts(ts) && !self.named.contains(*ts) && !self.answered.contains(*ts);
        if words.minted || MESSAGE_TS_FIELDS.iter().filter_map(|f| call.field(f)).any(|ts| foreign_ts(&ts)) {
            Owner::Other
        } else {
            Owner::Unknown
        }
    }

    /// The words of `call`, read once.
    fn words_of(&self, call: &SimCall) -> Rc<Words> {
        let key = (call.index, call.at_ms);
        if let Some(words) = self.words.borrow().get(&key) {
            return words.clone();
        }
        let words = request_words(call);
        let minted = !minted_ids_in(&words.join(" ")).is_empty();
        let words = Rc::new(Words { words, minted });
        self.words.borrow_mut().insert(key, words.clone());
        words
    }

    /// Learns the ids the fake answered the run's own calls with (a post's `ts`, a view's id),
    /// until there is nothing more to learn (a post's update, once learned, may be answered with
    /// more).
    pub fn learn(&mut self, calls: &[SimCall]) {
        self.answered_in(calls);
        loop {
            let learned: Vec<String> =
                calls.iter().filter(|c| self.owner(c) == Owner::Run).flat_map(answered_ids).filter(|id| !self.ids.contains(id)).collect();
            if learned.is_empty() {
                return;
            }
            self.ids.extend(learned);
        }
    }
}

/// Whether `text` is shaped like a message `ts` (`1796126229.604390`).
fn is_ts(text: &str) -> bool {
    text.split_once('.').is_some_and(|(secs, frac)| secs.len() == 10 && frac.len() == 6 && (secs.bytes().chain(frac.bytes())).all(|b| b.is_ascii_digit()))
}

/// The words of a call's request that may be ids: of its path (a `response_url`'s hook) and of
/// every text in its arguments (the JSON body, the form's fields — JSON text read as JSON —, the
/// query string), split at anything but letters, digits and dots, without a sentence's dots.
pub fn request_words(call: &SimCall) -> Vec<String> {
    let mut words = Vec::new();
    split_words(&call.path, &mut words);
    for value in call.args.values().chain(call.json.iter()) {
        value_words(value, &mut words);
    }
    words
}

fn value_words(value: &Value, words: &mut Vec<String>) {
    match value {
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(json @ (Value::Object(_) | Value::Array(_))) => value_words(&json, words),
            _ => split_words(text, words),
        },
        Value::Array(items) => items.iter().for_each(|v| value_words(v, words)),
        Value::Object(fields) => fields.values().for_each(|v| value_words(v, words)),
        _ => {}
    }
}

fn split_words(text: &str, words: &mut Vec<String>) {
    let split = text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '.')).map(|w| w.trim_matches('.'));
    // Shorter words are no id of a run's (minted ids are longer, and so is every id learned).
    words.extend(split.filter(|w| w.len() >= SHORTEST_LEARNED).map(str::to_string));
}

/// The ids in the fake's answer to `call` that later calls name: a message's `ts` (a post's, an
/// ephemeral's `message_ts`, a stream's) and a view's id.
fn answered_ids(call: &SimCall) -> Vec<String> {
    let Some(answer) = call.answer.as_ref().filter(|a| a["ok"] == true) else { return Vec::new() };
    [&answer["ts"], &answer["message_ts"], &answer["view"]["id"]]
        .into_iter()
        .filter_map(Value::as_str)
        .filter(|id| id.len() >= SHORTEST_LEARNED)
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::{fresh_id, fresh_trigger_id, fresh_ts};
    use serde_json::json;

    /// A call of `method` to `path` with the JSON arguments `args`, answered `answer`: the next
    /// in the fake's record.
    fn call(method: &str, path: &str, args: Value, answer: Option<Value>) -> SimCall {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let index = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let Value::Object(map) = args.clone() else { panic!("an object: {args}") };
        SimCall { index, method: method.into(), path: path.into(), json: Some(args), args: map, at_ms: 0, rate_limited: false, answer }
    }

    fn post(args: Value) -> SimCall {
        call("chat.postMessage", "/api/chat.postMessage", args, None)
    }

    /// A run that sent a message `ts` in its fresh channel, a command with a hook and a trigger;
    /// and another run that did the same.
    struct Two {
        run: RunIds,
        channel: String,
        ts: String,
        hook: String,
        trigger: String,
        theirs: (String, String, String, String),
    }

    fn two_runs() -> Two {
        let mint = || (fresh_id("C"), fresh_ts(), fresh_id("hook"), fresh_trigger_id());
        let ((channel, ts, hook, trigger), theirs) = (mint(), mint());
        let mut run = RunIds::default();
        run.add([channel.clone(), ts.clone(), hook.clone(), trigger.clone(), fresh_id("T")]);
        Two { run, channel, ts, hook, trigger, theirs }
    }

    #[test]
    fn a_call_holding_one_of_the_runs_ids_is_the_runs_whatever_else_it_holds() {
        let Two { run, channel, ts, hook, trigger, theirs } = two_runs();
        assert_eq!(run.owner(&post(json!({"channel": channel, "text": "1 answered, 1 did not"}))), Owner::Run);
        assert_eq!(
            run.owner(&post(json!({"channel": "C0DESK", "thread_ts": ts, "text": "a reply"}))),
            Owner::Run,
            "in a channel the flow named, in the run's thread"
        );
        assert_eq!(run.owner(&call("response_url", &format!("/response/{hook}"), json!({"text": "ok"}), None)), Owner::Run);
        assert_eq!(run.owner(&call("views.open", "/api/views.open", json!({"trigger_id": trigger, "view": {}}), None)), Owner::Run);
        let form = call("views.open", "/api/views.open", json!({}), None);
        let form = SimCall { json: None, args: json!({"trigger_id": trigger, "view": "{}"}).as_object().unwrap().clone(), ..form };
        assert_eq!(run.owner(&form), Owner::Run, "a form body's arguments too");
        let both = post(json!({"channel": channel, "text": format!("see <#{}>", theirs.0)}));
        assert_eq!(run.owner(&both), Owner::Run, "the run's channel, naming another");
        // In text, after a line break or before a full stop; in a form's JSON text.
        assert_eq!(run.owner(&post(json!({"channel": "C0DESK", "text": format!("Opened in\n{channel}.")}))), Owner::Run);
        let blocks = json!([{"type": "section", "text": {"type": "mrkdwn", "text": format!("from <#{channel}|desk>")}}]).to_string();
        let form = call("chat.postMessage", "/api/chat.postMessage", json!({}), None);
        let form = SimCall { json: None, args: json!({"channel": "C0DESK", "blocks": blocks}).as_object().unwrap().clone(), ..form };
        assert_eq!(run.owner(&form), Owner::Run);
        let words = request_words(&form);
        assert!(words.contains(&channel) && words.iter().all(|w| w.len() >= SHORTEST_LEARNED), "the blocks' text read as JSON: {words:?}");
    }

    #[test]
    fn a_call_holding_only_another_runs_ids_is_never_the_runs() {
        let Two { run, theirs: (channel, ts, hook, trigger), .. } = two_runs();
        assert_eq!(run.owner(&post(json!({"channel": channel, "thread_ts": ts, "text": "1 answered, 1 did not"}))), Owner::Other);
        assert_eq!(run.owner(&call("response_url", &format!("/response/{hook}"), json!({"text": "ok"}), None)), Owner::Other);
        assert_eq!(run.owner(&call("views.open", "/api/views.open", json!({"trigger_id": trigger}), None)), Owner::Other);
        // In a channel both runs named: the other run's message ts, which the fake never answered.
        assert_eq!(run.owner(&post(json!({"channel": "C0POLL", "thread_ts": ts, "text": "1 answered, 1 did not"}))), Owner::Other);
        let reaction = call("reactions.add", "/api/reactions.add", json!({"channel": "C0POLL", "timestamp": ts, "name": "wave"}), None);
        assert_eq!(run.owner(&reaction), Owner::Other);
    }

    #[test]
    fn a_call_holding_no_minted_id_cannot_be_told_unless_a_ts_is_the_flows_or_a_bot_posts() {
        let Two { mut run, .. } = two_runs();
        assert_eq!(run.owner(&post(json!({"channel": "C0DESK", "text": "TCK-1 (High): Printer on fire"}))), Owner::Unknown);
        assert_eq!(run.owner(&call("llm", "/llm/v1/chat/completions", json!({"messages": [{"role": "user", "content": "hi"}]}), None)), Owner::Unknown);
        // Ts the flow named (`--ts`, `--message C:TS`), and a bot's post's ts the fake answered
        // (any run's post).
        let (named, in_message, posted) = ("1700000000.000100", "1700000000.000200", "1796126229.604390");
        let update = |ts: &str| call("chat.update", "/api/chat.update", json!({"channel": "C0DESK", "ts": ts, "text": "Closed"}), None);
        for ts in [named, in_message, posted] {
            assert_eq!(run.owner(&update(ts)), Owner::Other, "a ts of no post and not the flow's: a message another run's user wrote");
        }
        run.named_in(&["react".into(), "--ts".into(), named.into(), "--message".into(), format!("C1:{in_message}")]);
        run.answered_in(&[call("chat.postMessage", "/api/chat.postMessage", json!({"channel": "C0DESK"}), Some(json!({"ok": true, "ts": posted})))]);
        for ts in [named, in_message, posted] {
            assert_eq!(run.owner(&update(ts)), Owner::Unknown, "{ts}");
        }
    }

    #[test]
    fn the_run_learns_what_the_fake_answered_its_own_calls_and_only_those() {
        let Two { mut run, channel, ts, trigger, .. } = two_runs();
        let (posted, view, theirs_posted) = ("1796126229.604390", "V1A2B3C0001", "1796126230.000001");
        let calls = [
            // The run's post in a channel the flow named (in its message's thread): the fake's ts.
            call(
                "chat.postMessage",
                "/api/chat.postMessage",
                json!({"channel": "C0DESK", "thread_ts": ts}),
                Some(json!({"ok": true, "channel": "C0DESK", "ts": posted})),
            ),
            call("views.open", "/api/views.open", json!({"trigger_id": trigger}), Some(json!({"ok": true, "view": {"id": view}}))),
            // Not the run's: its answer is not learned.
            call("chat.postMessage", "/api/chat.postMessage", json!({"channel": "C0DESK"}), Some(json!({"ok": true, "ts": theirs_posted}))),
            // A refusal names nothing.
            call("chat.postMessage", "/api/chat.postMessage", json!({"channel": channel}), Some(json!({"ok": false, "ts": "1796126231.000001"}))),
        ];
        let update = |ts: &str| call("chat.update", "/api/chat.update", json!({"channel": "C0DESK", "ts": ts, "text": "Closed"}), None);
        let views_update = call("views.update", "/api/views.update", json!({"view_id": view, "view": {}}), None);
        assert_eq!((run.owner(&update(posted)), run.owner(&views_update)), (Owner::Other, Owner::Unknown), "before learning");
        run.learn(&calls);
        assert_eq!((run.owner(&update(posted)), run.owner(&views_update)), (Owner::Run, Owner::Run));
        assert_eq!(run.owner(&update(theirs_posted)), Owner::Unknown, "another's post: answered by the fake, not the run's");
        assert!(!run.contains("1796126231.000001"));
    }
}
