//! The test bench of the streamed answer: a model of Slack's stream methods ([`Slack`]: the
//! stream's lifetime, `streaming_state_conflict`, 429s, the user's stop, refusals, a cumulative
//! limit that answers `msg_too_long`), a model that speaks on a virtual clock ([`Model`], from a
//! [`Script`]: text, and tool calls at set places in it), and one attempt's driver ([`attempt`]),
//! which can crash at any call, before or after Slack applied it.

use super::super::calls;
use super::super::chunks::{apply, tasks_of, text_of, Task};
use super::super::stream::{Answer, Call, Checkpoint, End, Reply, Step};
use crate::slack::classify::classify_web_api;
use serde_json::{json, Value};
use std::collections::VecDeque;

/// Slack's refusal `code` of `call`, as the adapter hands it to the machine: Slack's HTTP answer,
/// judged by the classifier and made a reply by `calls::reply` — the real path, never a hand-made
/// `Reply::Refused` the classifier would not make.
fn refusal(call: &Call, code: &str) -> Reply {
    calls::reply(&calls::TEST_TARGET, call, &classify_web_api(200, None, &json!({"ok": false, "error": code})), &Value::Null)
}

/// One message as the fake Slack keeps it.
#[derive(Debug, Clone)]
pub struct Msg {
    pub ts: String,
    pub text: String,
    /// Its tasks, each as last set (a task update changes a shown task in place).
    pub tasks: Vec<Task>,
    pub streaming: bool,
    pub opened_at: i64,
    pub feedback: bool,
    /// The task updates it took.
    pub chunks: usize,
}

/// Slack's stream methods, as documented and as users report them.
#[derive(Default)]
pub struct Slack {
    pub msgs: Vec<Msg>,
    /// Streams close on their own this long after they open (Slack: about 5 minutes).
    pub lifetime_ms: Option<i64>,
    /// `chat.startStream` refused (a surface that cannot stream).
    pub no_streaming: bool,
    /// Answer the n-th call (0-based) with a 429 when this says so.
    pub limited: Option<fn(usize) -> bool>,
    /// The user presses stop once this many appends have landed.
    pub user_stops_after: Option<usize>,
    /// A message takes at most this many task updates: more is `msg_too_long`, which closes its
    /// stream (as seen in the wild: the stop then answers `message_not_in_streaming_state`)
    /// unless `too_long_keeps_streaming`.
    pub max_chunks: Option<usize>,
    pub too_long_keeps_streaming: bool,
    pub appends: usize,
    pub calls: Vec<Call>,
}

impl Slack {
    fn msg(&mut self, ts: &str) -> &mut Msg {
        self.msgs.iter_mut().find(|m| m.ts == ts).expect("a known ts")
    }

    fn open(&mut self, text: &str, tasks: &[Task], streaming: bool, now: i64) -> Reply {
        let ts = format!("{}.{:06}", now / 1000, self.msgs.len());
        let mut shown = Vec::new();
        apply(&mut shown, tasks);
        self.msgs.push(Msg { ts: ts.clone(), text: text.into(), tasks: shown, streaming, opened_at: now, feedback: false, chunks: tasks.len() });
        Reply::Ok { ts: Some(ts) }
    }

    /// Whether `n` more task updates overflow a message that took `had`.
    /// Why message `ts` takes no more (an append or the stop, with `n` structured chunks): it no
    /// longer streams, or `n` more would pass the chunk limit (`msg_too_long`, as Slack answers).
    fn refuses_more(&mut self, call: &Call, ts: &str, n: usize) -> Option<Reply> {
        let (streaming, had) = (self.msg(ts).streaming, self.msg(ts).chunks);
        if !streaming {
            return Some(refusal(call, "message_not_in_streaming_state"));
        }
        self.too_many(had, n).then(|| self.too_long(call, ts))
    }

    fn too_many(&self, had: usize, n: usize) -> bool {
        n > 0 && self.max_chunks.is_some_and(|max| had + n > max)
    }

    pub fn apply(&mut self, call: &Call, now: i64) -> Reply {
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
        let refused = |code: &str| refusal(call, code);
        match call {
            Call::Start { .. } if self.no_streaming => refused("method_not_supported_for_channel_type"),
            Call::Start { chunks } if self.too_many(0, tasks_of(chunks).len()) => refused("msg_too_long"),
            Call::Start { chunks } => self.open(&text_of(chunks), &tasks_of(chunks), true, now),
            Call::Post { text, tasks } => self.open(text, tasks, false, now),
            Call::Append { ts, chunks } => {
                if self.user_stops_after.is_some_and(|k| self.appends >= k) {
                    self.msg(ts).streaming = false;
                    return refused("stopped_by_user");
                }
                let tasks = tasks_of(chunks);
                if let Some(refusal) = self.refuses_more(call, ts, tasks.len()) {
                    return refusal;
                }
                let m = self.msg(ts);
                m.text.push_str(&text_of(chunks));
                apply(&mut m.tasks, &tasks);
                m.chunks += tasks.len();
                self.appends += 1;
                Reply::Ok { ts: None }
            }
            Call::Stop { ts, last, tasks } => {
                if let Some(refusal) = self.refuses_more(call, ts, tasks.len()) {
                    return refusal;
                }
                let m = self.msg(ts);
                m.streaming = false;
                m.feedback = *last;
                apply(&mut m.tasks, tasks);
                m.chunks += tasks.len();
                Reply::Ok { ts: None }
            }
            Call::Update { ts, text, tasks } => {
                let m = self.msg(ts);
                if m.streaming {
                    return refused("streaming_state_conflict");
                }
                m.text = text.clone();
                if !tasks.is_empty() {
                    m.tasks = tasks.clone();
                }
                Reply::Ok { ts: None }
            }
            Call::Find { since } => Reply::Ok { ts: self.msgs.iter().rev().find(|m| m.opened_at >= *since).map(|m| m.ts.clone()) },
        }
    }

    /// `msg_too_long` for the message `ts`, closing its stream (unless told otherwise).
    fn too_long(&mut self, call: &Call, ts: &str) -> Reply {
        let keeps = self.too_long_keeps_streaming;
        self.msg(ts).streaming &= keeps;
        refusal(call, "msg_too_long")
    }

    /// The answer as a reader sees it: every message's text, in order.
    pub fn shown(&self) -> String {
        self.msgs.iter().map(|m| m.text.as_str()).collect()
    }

    pub fn streaming(&self) -> usize {
        self.msgs.iter().filter(|m| m.streaming).count()
    }

    /// The messages showing the task `id`, in order, with its status in each.
    pub fn task_shown(&self, id: &str) -> Vec<Task> {
        self.msgs.iter().filter_map(|m| m.tasks.iter().find(|t| t.id == id).cloned()).collect()
    }

    /// Every task id shown, in the order they first appear.
    pub fn task_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = Vec::new();
        for t in self.msgs.iter().flat_map(|m| &m.tasks) {
            if !ids.contains(&t.id) {
                ids.push(t.id.clone());
            }
        }
        ids
    }
}

/// What a model says next.
#[derive(Debug, Clone)]
pub enum Said {
    Text(String),
    /// A tool call: its id and the tool's name.
    Tool(String, String),
}

/// A model that says its pieces one every `every_ms`; it breaks after `fail_after` of them.
pub struct Model {
    pub pieces: VecDeque<Said>,
    pub every_ms: i64,
    pub fail_after: Option<usize>,
    pub said: usize,
}

impl Model {
    /// Says `text` in pieces of `piece` characters.
    pub fn saying(text: &str, piece: usize, every_ms: i64) -> Model {
        Script::text(text).model(None, piece, every_ms)
    }
}

/// A model's whole answer: its text, and the tool calls it makes at set places in it.
#[derive(Debug, Clone)]
pub struct Script {
    pub text: String,
    /// (byte offset in `text`, call id, tool name), in order.
    pub tools: Vec<(usize, String, String)>,
}

impl Script {
    pub fn text(text: &str) -> Script {
        Script { text: text.into(), tools: Vec::new() }
    }

    /// `words` words, with `tools` tool calls spread over them (the first before any text).
    pub fn with_tools(words: usize, tools: usize) -> Script {
        let text = self::words(words);
        let at = |i: usize| text.match_indices("word").nth(i * words / tools.max(1)).map_or(text.len(), |(at, _)| at);
        let tools = (0..tools).map(|i| (at(i), format!("call_{i}"), format!("tool{i}"))).collect();
        Script { text, tools }
    }

    /// The model that says what is left of the script after `from` (what the answer shows): the
    /// rest of the text, with the tool calls from that place on (one at the very place included: a
    /// continuation may report a call again).
    pub fn model(&self, from: Option<&str>, piece: usize, every_ms: i64) -> Model {
        let done = from.unwrap_or("");
        assert!(self.text.starts_with(done), "a continuation follows the delivered text");
        let mut pieces = VecDeque::new();
        let mut at = done.len();
        let tools = self.tools.iter().filter(|(offset, ..)| *offset >= done.len());
        for (offset, id, name) in tools.chain(std::iter::once(&(self.text.len(), String::new(), String::new()))) {
            let chars: Vec<char> = self.text[at..*offset].chars().collect();
            pieces.extend(chars.chunks(piece).map(|c| Said::Text(c.iter().collect())));
            if !id.is_empty() {
                pieces.push_back(Said::Tool(id.clone(), name.clone()));
            }
            at = *offset;
        }
        Model { pieces, every_ms, fail_after: None, said: 0 }
    }

    /// The call ids, in order.
    pub fn ids(&self) -> Vec<String> {
        self.tools.iter().map(|(_, id, _)| id.clone()).collect()
    }
}

/// `n` words (`word0 word1 …`, each followed by a space).
pub fn words(n: usize) -> String {
    (0..n).map(|i| format!("word{i} ")).collect()
}

/// How a run of one attempt stopped.
pub enum Run {
    Ended(End),
    /// Crashed at a call: the checkpoint written before it.
    Crashed(Checkpoint),
}

/// Feeds the model's next piece to the answer.
pub fn say(answer: &mut Answer, model: &mut Model, now: i64) {
    if model.fail_after.is_some_and(|k| model.said >= k) {
        return answer.model_failed("llm_stream_broke");
    }
    match model.pieces.pop_front() {
        Some(Said::Text(p)) => answer.text(&p, now),
        Some(Said::Tool(id, name)) => answer.tool_call(Some(&id), &name),
        None => return answer.model_done(),
    }
    model.said += 1;
}

/// One attempt: drives `answer` until it ends, or crashes at the `crash_at`-th call (after Slack
/// applied it when `landed`). `start_model` makes the model at the first read, from what the
/// answer continues.
pub fn attempt(answer: &mut Answer, slack: &mut Slack, clock: &mut i64, start_model: &dyn Fn(Option<&str>) -> Model, crash_at: Option<(usize, bool)>) -> Run {
    let mut model: Option<Model> = None;
    let mut calls = 0;
    for _ in 0..200_000 {
        match answer.next(*clock) {
            Step::Finished(end) => return Run::Ended(end),
            Step::Wait(t) => *clock = t.max(*clock + 1),
            Step::Call(call) => {
                let cp = answer.checkpoint().clone();
                if let Some((_, landed)) = crash_at.filter(|(k, _)| *k == calls) {
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
                        say(answer, m, *clock);
                    }
                }
            }
        }
    }
    panic!("the answer never ended");
}

/// A model that says what is left of `full` after what the answer already shows.
pub fn continuing(full: &str, piece: usize, every_ms: i64) -> impl Fn(Option<&str>) -> Model + '_ {
    move |from: Option<&str>| Script::text(full).model(from, piece, every_ms)
}

pub fn ended(run: Run) -> End {
    match run {
        Run::Ended(end) => end,
        Run::Crashed(_) => panic!("crashed"),
    }
}
