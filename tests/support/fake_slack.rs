//! A fake of the third parties, on 127.0.0.1: Slack's Web API (`/api/{method}`), an
//! OpenAI-compatible LLM (`/llm/v1/chat/completions`, recorded as method `llm`) and `response_url`
//! targets (`/response/{id}`, recorded as method `response_url`).
//!
//! It records every call (method, headers, body, arrival time) and answers per method from a
//! script, like the real thing: `{"ok":true,...}`, `{"ok":false,"error":X}`, HTTP 429 with
//! `Retry-After`, HTTP 5xx, or a delay (longer than the client's timeout, if asked). A scripted
//! rule applies only to calls whose body contains its needle (a unique channel, say), so tests
//! sharing the fake do not disturb each other. Unscripted calls get a success.

use serde_json::{json, Value};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One recorded call.
#[derive(Debug, Clone)]
pub struct Call {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub json: Option<Value>,
    pub at: Instant,
}

impl Call {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// A top-level string field of the JSON body.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.json.as_ref()?.get(name)?.as_str()
    }
}

/// A scripted answer.
#[derive(Debug, Clone)]
pub enum Reply {
    /// 200 `{"ok": true, ...}` (for the LLM: a completion with this text in `content`).
    Ok,
    /// 200 `{"ok": false, "error": code}`.
    Error(&'static str),
    /// 429 with `Retry-After: secs` and `{"ok": false, "error": "ratelimited"}`.
    RateLimited(u64),
    /// This HTTP status with a short body.
    Status(u16),
    /// Wait, then answer.
    Delay(Duration, Box<Reply>),
    /// For the LLM: a completion whose content is this text.
    Completion(String),
    /// 200 with exactly this JSON body (e.g. an `oauth.v2.access` answer).
    Json(Value),
}

/// Chooses a reply for each call (for chaos tests): never runs out.
pub type Chooser = Box<dyn FnMut(&Call) -> Reply + Send>;

struct Rule {
    method: String,
    needle: String,
    replies: VecDeque<Reply>,
    chooser: Option<Chooser>,
}

#[derive(Default)]
struct State {
    calls: Vec<Call>,
    rules: Vec<Rule>,
}

/// The fake server. Lives as long as the test binary (its thread is detached).
pub struct FakeSlack {
    port: u16,
    state: Arc<Mutex<State>>,
}

impl FakeSlack {
    pub fn start() -> FakeSlack {
        let server = tiny_http::Server::http("127.0.0.1:0").expect("bind the fake Slack");
        let port = server.server_addr().to_ip().unwrap().port();
        let state = Arc::new(Mutex::new(State::default()));
        let shared = state.clone();
        std::thread::spawn(move || {
            for request in server.incoming_requests() {
                let state = shared.clone();
                std::thread::spawn(move || handle(request, &state));
            }
        });
        FakeSlack { port, state }
    }

    /// The base URL for `SLACK_API_URL`.
    pub fn api_url(&self) -> String {
        format!("http://127.0.0.1:{}/api", self.port)
    }

    /// The URL for `LLM_API_URL`.
    pub fn llm_url(&self) -> String {
        format!("http://127.0.0.1:{}/llm/v1/chat/completions", self.port)
    }

    /// A fresh `response_url` on this fake.
    pub fn response_url(&self, id: &str) -> String {
        format!("http://127.0.0.1:{}/response/{id}", self.port)
    }

    /// Answers the next calls of `method` whose body contains `needle` with `replies`, in order;
    /// after them, calls get the default success again.
    pub fn script(&self, method: &str, needle: &str, replies: Vec<Reply>) {
        let rule = Rule { method: method.into(), needle: needle.into(), replies: replies.into(), chooser: None };
        self.state.lock().unwrap().rules.push(rule);
    }

    /// Answers every call of `method` whose body contains `needle` with `chooser`'s reply.
    pub fn script_with(&self, method: &str, needle: &str, chooser: Chooser) {
        let rule = Rule { method: method.into(), needle: needle.into(), replies: VecDeque::new(), chooser: Some(chooser) };
        self.state.lock().unwrap().rules.push(rule);
    }

    /// Every call so far, of any method.
    pub fn all_calls(&self) -> Vec<Call> {
        self.state.lock().unwrap().calls.clone()
    }

    /// Every call so far of `method` whose body contains `needle`.
    pub fn calls(&self, method: &str, needle: &str) -> Vec<Call> {
        let state = self.state.lock().unwrap();
        state.calls.iter().filter(|c| c.method == method && c.body.contains(needle)).cloned().collect()
    }

    /// Waits until at least `count` such calls arrived, and returns them.
    pub fn wait_calls(&self, method: &str, needle: &str, count: usize, timeout: Duration) -> Vec<Call> {
        super::eventually(&format!("{count} {method} call(s) containing {needle}"), timeout, || {
            let calls = self.calls(method, needle);
            (calls.len() >= count).then_some(calls)
        })
    }
}

fn method_of(path: &str) -> String {
    let path = path.split('?').next().unwrap_or(path);
    if let Some(method) = path.strip_prefix("/api/") {
        method.to_string()
    } else if path.starts_with("/llm/") {
        "llm".into()
    } else if path.starts_with("/response/") {
        "response_url".into()
    } else {
        path.into()
    }
}

fn record(request: &mut tiny_http::Request) -> Call {
    let mut body = String::new();
    let _ = request.as_reader().read_to_string(&mut body);
    Call {
        method: method_of(request.url()),
        path: request.url().to_string(),
        headers: request.headers().iter().map(|h| (h.field.to_string(), h.value.to_string())).collect(),
        json: serde_json::from_str(&body).ok(),
        body,
        at: Instant::now(),
    }
}

fn next_reply(state: &Mutex<State>, call: &Call) -> Reply {
    let mut state = state.lock().unwrap();
    state.calls.push(call.clone());
    let rule = state.rules.iter_mut().find(|r| {
        r.method == call.method && call.body.contains(&r.needle) && (r.chooser.is_some() || !r.replies.is_empty())
    });
    match rule {
        Some(Rule { chooser: Some(choose), .. }) => choose(call),
        Some(rule) => rule.replies.pop_front().unwrap_or(Reply::Ok),
        None => Reply::Ok,
    }
}

static TS: AtomicU64 = AtomicU64::new(1);

fn respond(request: tiny_http::Request, call: &Call, reply: Reply) {
    let (status, body, retry_after) = match reply {
        Reply::Delay(wait, then) => {
            std::thread::sleep(wait);
            return respond(request, call, *then);
        }
        Reply::Ok if call.method == "llm" => (200, completion(&format!("LLM answer to: {}", prompt_of(call))), None),
        Reply::Completion(text) => (200, completion(&text), None),
        Reply::Json(body) => (200, body, None),
        Reply::Ok if call.method == "response_url" => (200, json!("ok"), None),
        Reply::Ok => {
            let ts = format!("1700000000.{:06}", TS.fetch_add(1, Ordering::Relaxed));
            (200, json!({"ok": true, "channel": call.field("channel"), "ts": ts}), None)
        }
        Reply::Error(code) => (200, json!({"ok": false, "error": code}), None),
        Reply::RateLimited(secs) => (429, json!({"ok": false, "error": "ratelimited"}), Some(secs)),
        Reply::Status(code) => (code, json!({"ok": false, "error": format!("http {code}")}), None),
    };
    let mut response = tiny_http::Response::from_string(body.to_string())
        .with_status_code(status)
        .with_header("content-type: application/json".parse::<tiny_http::Header>().unwrap());
    if let Some(secs) = retry_after {
        response = response.with_header(format!("retry-after: {secs}").parse::<tiny_http::Header>().unwrap());
    }
    let _ = request.respond(response);
}

fn prompt_of(call: &Call) -> String {
    call.json.as_ref().and_then(|j| j.pointer("/messages/1/content")).and_then(Value::as_str).unwrap_or("").to_string()
}

fn completion(text: &str) -> Value {
    json!({"id": "cmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]})
}

fn handle(mut request: tiny_http::Request, state: &Mutex<State>) {
    let call = record(&mut request);
    let reply = next_reply(state, &call);
    respond(request, &call, reply);
}
