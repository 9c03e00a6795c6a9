//! A fake of the third parties, on 127.0.0.1: Slack's Web API (`/api/{method}`), an
//! OpenAI-compatible LLM (`/llm/v1/chat/completions`, recorded as method `llm`) and `response_url`
//! targets (`/response/{id}`, recorded as method `response_url`).
//!
//! It records every call (method, headers, body, arrival time) and answers per method from a
//! script, like the real thing: `{"ok":true,...}`, `{"ok":false,"error":X}`, HTTP 429 with
//! `Retry-After`, HTTP 5xx, or a delay (longer than the client's timeout, if asked). A scripted
//! rule applies only to calls whose body contains its needle (a unique channel, say), so tests
//! sharing the fake do not disturb each other, and it applies to any method name, known or not.
//!
//! An unscripted call (or [`Reply::Ok`], also after a [`Reply::Delay`]) gets Slack's own answer
//! for its method, as strict as Slack's: a method the fake does not implement
//! ([`super::web::METHODS`], [`super::lists::METHODS`]) answers `unknown_method`, a call without a
//! token (`Authorization: Bearer`, or a `token` form field) `not_authed` (except
//! `oauth.v2.access`), and each method its own answer or refusal ([`super::web`]: `chat.update`
//! keeps the message's `ts`, `reactions.add` twice is `already_reacted`, `views.open` answers a
//! view and refuses an expired `trigger_id`, `chat.unfurl` keeps what a sharing shows, ...).
//! Arguments are read from a JSON body, a form body (`application/x-www-form-urlencoded`, as
//! Slack's SDKs send some methods) and the query string.
//!
//! Stateful methods keep their state here: Slack Lists (`slackLists.items.create`, `.update`,
//! `.delete`, `.list`, in [`super::lists`]), reactions, views and streams ([`super::web`]). A
//! scripted refusal (`Error`, `RateLimited`, `Status`, `Json`, `Reset`) changes nothing, as Slack
//! refused; [`Reply::Applied`] applies the call, then answers with its inner reply (Slack acted,
//! the answer was lost). Tests read and change a List's rows as people in Slack would with
//! [`FakeSlack::list_rows`], [`FakeSlack::add_row`], [`FakeSlack::edit_row`], ...

use super::lists::Lists;
pub use super::lists::{FakeRow, FAKE_BOT_USER};
use super::tiers::Enforcer;
pub use super::web::{knows, FakeSession, FakeStream, FakeTask, FakeUnfurl, UnfurlAt, FAKE_TEAM};
use super::web::{refusal, Web};
use serde_json::{json, Map, Value};
use slackline::internal::slack::method;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// One recorded call.
#[derive(Debug, Clone)]
pub struct Call {
    /// The Slack method (`chat.postMessage`), `llm` or `response_url`.
    pub method: String,
    /// The request path.
    pub path: String,
    /// The request headers.
    pub headers: Vec<(String, String)>,
    /// The body as text.
    pub body: String,
    /// The body, if it is JSON.
    pub json: Option<Value>,
    /// The arguments: the query string's fields, then the body's (a JSON object's, or a form's,
    /// as strings).
    pub args: Map<String, Value>,
    /// When it arrived.
    pub at: Instant,
    /// Answered 429: over the enforced rate tiers ([`FakeSlack::enforce_tiers`]), or scripted
    /// ([`Reply::RateLimited`]).
    pub rate_limited: bool,
    /// The JSON body it was answered with, once answered (`None` until then, and for a reset
    /// connection): a post's `ts`, a view's `id`.
    pub answer: Option<Value>,
}

impl Call {
    /// A request header, by name in any case.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// A top-level string argument (of the JSON body, the form body or the query string).
    pub fn field(&self, name: &str) -> Option<&str> {
        self.args.get(name)?.as_str()
    }

    /// The caller's token, as Slack reads it: `Authorization: Bearer …`, else (when the body is not
    /// JSON) a `token` argument of the form body or the query string; `None` if empty.
    pub fn token(&self) -> Option<&str> {
        let bearer = self.header("authorization").and_then(|h| h.strip_prefix("Bearer ")).map(str::trim);
        let field = || if self.json.is_some() { None } else { self.field("token") };
        bearer.filter(|t| !t.is_empty()).or_else(|| field().filter(|t| !t.trim().is_empty()))
    }

    /// Whether this is a Web API call (`/api/…`), not an LLM or `response_url` one.
    fn is_web_api(&self) -> bool {
        !matches!(self.method.as_str(), "llm" | "response_url")
    }
}

/// A scripted answer.
#[derive(Debug, Clone)]
pub enum Reply {
    /// The real answer: the method's own (`{"ok": true, ...}`, or Slack's refusal: `unknown_method`,
    /// `not_authed`, `already_reacted`, ...; for the LLM a completion, for a `response_url` `ok`).
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
    /// For a Web API method: apply it for real (a List's row written, a reaction added, a view
    /// opened), then answer with this reply instead (its `Ok` is the real answer). Slack acted, but
    /// the caller may not learn it: `Status(503)`, `Reset`, a long `Delay`. For the LLM and
    /// `response_url`, just this reply.
    Applied(Box<Reply>),
    /// Close the connection without any HTTP answer: the client sees a network error (the socket
    /// is shut down under tiny_http, see `sim::reset`).
    Reset,
}

/// A Lists `rich_text` cell holding plain text, in the shape slackline sends.
pub fn text_cell(column_id: &str, text: &str) -> Value {
    let section = json!({"type": "rich_text_section", "elements": [{"type": "text", "text": text}]});
    json!({"column_id": column_id, "rich_text": [{"type": "rich_text", "elements": [section]}]})
}

/// Chooses a reply for each call (for chaos tests): never runs out.
pub type Chooser = Box<dyn FnMut(&Call) -> Reply + Send>;

struct Rule {
    method: String,
    needle: String,
    replies: VecDeque<Reply>,
    chooser: Option<Chooser>,
}

struct State {
    calls: Vec<Call>,
    rules: Vec<Rule>,
    /// Chooses the reply of a call no rule matches (`slackline-sim serve`'s faults).
    default: Option<Chooser>,
    lists: Lists,
    /// Reactions, views, streams.
    web: Web,
    started: Instant,
    /// Slack's rate tiers, when enforced.
    tiers: Option<Enforcer>,
}

/// The fake server. Lives as long as its process (its thread is detached).
pub struct FakeSlack {
    port: u16,
    state: Arc<Mutex<State>>,
    /// While it lives, [`unstick`] keeps the server's connection threads coming back.
    _alive: Arc<()>,
}

/// How often [`unstick`] opens a connection: 100 ms.
const UNSTICK_EVERY: Duration = Duration::from_millis(100);

/// Works around a lost wakeup in tiny_http 0.12's thread pool, while the fake at `port` lives
/// (`alive`). The pool hands each accepted connection to an idle thread, which serves it until
/// the connection closes; when two connections arrive while one thread is idle, both are queued
/// and only one thread is woken, so the second waits until some thread finishes a whole
/// keep-alive connection. Under the full test suite that was seen as a call answered after
/// 10.5 s and another that never reached the fake within the app's 15 s timeout. A connection
/// opened and closed every [`UNSTICK_EVERY`] makes a thread pass through the queue (a new one,
/// or an idle one woken), and the queue is served in order: a stuck connection waits at most
/// that long.
fn unstick(port: u16, alive: std::sync::Weak<()>) {
    std::thread::spawn(move || {
        let at = std::net::SocketAddr::from(([127, 0, 0, 1], port));
        while alive.upgrade().is_some() {
            if let Ok(poke) = std::net::TcpStream::connect_timeout(&at, Duration::from_secs(1)) {
                super::reset::reset_on_close(&poke);
            }
            std::thread::sleep(UNSTICK_EVERY);
        }
    });
}

impl FakeSlack {
    /// Starts on a free port (panics if none can be bound: for tests).
    pub fn start() -> FakeSlack {
        FakeSlack::start_on(0).expect("bind the fake Slack")
    }

    /// Starts on `port` of 127.0.0.1 (0: a free one).
    pub fn start_on(port: u16) -> std::io::Result<FakeSlack> {
        let server = tiny_http::Server::http(("127.0.0.1", port)).map_err(std::io::Error::other)?;
        let port = server.server_addr().to_ip().map(|a| a.port()).unwrap_or(port);
        let state = Arc::new(Mutex::new(State {
            calls: Vec::new(),
            rules: Vec::new(),
            default: None,
            lists: Lists::default(),
            web: Web::default(),
            started: Instant::now(),
            tiers: None,
        }));
        let shared = state.clone();
        std::thread::spawn(move || {
            for request in server.incoming_requests() {
                let state = shared.clone();
                std::thread::spawn(move || handle(request, &state, port));
            }
        });
        let alive = Arc::new(());
        unstick(port, Arc::downgrade(&alive));
        Ok(FakeSlack { port, state, _alive: alive })
    }

    /// Blocks the calling thread while the server runs (`slackline-sim serve`).
    pub fn serve_forever(&self) {
        loop {
            std::thread::park();
        }
    }

    /// Its port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Its base URL (`/_sim/calls` lists what it recorded).
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Answers every call that no script matches with `chooser`'s reply (faults for a whole run).
    pub fn script_default(&self, chooser: Chooser) {
        self.state.lock().unwrap().default = Some(chooser);
    }

    /// Enforces Slack's rate tiers from now on ([`super::tiers`]): a call over its method's (or
    /// channel's) budget is answered 429 with `Retry-After`, before any script, and does nothing.
    pub fn enforce_tiers(&self) {
        self.state.lock().unwrap().tiers = Some(Enforcer::default());
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

    /// The calls after the first `after` ones (in arrival order): a reader that keeps its place
    /// copies each call once, however many it has seen.
    pub fn calls_after(&self, after: usize) -> Vec<Call> {
        self.state.lock().unwrap().calls.iter().skip(after).cloned().collect()
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

    /// Every row of a List (archived ones too), in insertion order.
    pub fn list_rows(&self, list_id: &str) -> Vec<FakeRow> {
        self.state.lock().unwrap().lists.rows(list_id)
    }

    /// A row made by a person (`by`) in Slack; returns its `Rec…` id.
    pub fn add_row(&self, list_id: &str, fields: Vec<Value>, by: &str) -> String {
        self.state.lock().unwrap().lists.insert(list_id, fields, by)
    }

    /// Archives a row, as a person (or Slack's auto-archive) would.
    pub fn archive_row(&self, list_id: &str, row_id: &str) {
        self.state.lock().unwrap().lists.archive(list_id, row_id)
    }

    /// A person's edit: replaces the cell of `cell`'s `column_id` (or adds it) and sets `updated_by`.
    pub fn edit_row(&self, list_id: &str, row_id: &str, cell: Value, by: &str) {
        self.state.lock().unwrap().lists.edit(list_id, row_id, cell, by)
    }

    /// A row deleted in Slack.
    pub fn remove_row(&self, list_id: &str, row_id: &str) {
        self.state.lock().unwrap().lists.remove(list_id, row_id)
    }

    /// Inserts `n` rows at once (cells from `make(i)`, made by [`FAKE_BOT_USER`]); returns their ids.
    pub fn seed_rows(&self, list_id: &str, n: usize, make: impl Fn(usize) -> Vec<Value>) -> Vec<String> {
        let mut state = self.state.lock().unwrap();
        (0..n).map(|i| state.lists.insert(list_id, make(i), FAKE_BOT_USER)).collect()
    }

    /// Streams close `lifetime` after they start (Slack: about 5 minutes).
    pub fn set_stream_lifetime(&self, lifetime: Duration) {
        self.state.lock().unwrap().web.set_stream_lifetime(lifetime.as_millis() as u64)
    }

    /// Streams take at most `n` task updates (and other structured chunks) over their life: the
    /// call that would pass it is refused `msg_too_long` and the stream closed
    /// (`sim::web::DEFAULT_STREAM_MAX_CHUNKS` unless set).
    pub fn set_stream_max_chunks(&self, n: usize) {
        self.state.lock().unwrap().web.set_stream_max_chunks(n)
    }

    /// The user presses stop on a streaming message; false if the fake has no such stream.
    pub fn stop_stream_as_user(&self, channel: &str, ts: &str) -> bool {
        self.state.lock().unwrap().web.stop_as_user(channel, ts)
    }

    /// Every message the bot posted in `channel` that landed (answered `ok`, also late or with its
    /// answer lost), thread replies too, in the order they landed.
    pub fn posts_in(&self, channel: &str) -> Vec<super::messages::FakeMessage> {
        self.state.lock().unwrap().web.posts_in(channel)
    }

    /// How Workflow step execution `execution_id` ended at the fake (the first ending's method and
    /// arguments; Slack refuses any later one), if it has.
    pub fn step_end(&self, execution_id: &str) -> Option<(String, Value)> {
        self.state.lock().unwrap().web.step_end(execution_id)
    }

    /// What the sharing `at` shows (its previews and Work Objects, and how many `chat.unfurl`
    /// calls were applied to it), if it was unfurled.
    pub fn unfurl(&self, at: &UnfurlAt) -> Option<FakeUnfurl> {
        self.state.lock().unwrap().web.unfurl(at)
    }

    /// The arguments of the `entity.presentDetails` that answered the Work Object click of
    /// `trigger_id` (its flexpane), if one landed.
    pub fn flexpane(&self, trigger_id: &str) -> Option<Value> {
        self.state.lock().unwrap().web.flexpane(trigger_id)
    }

    /// The agent session of `thread` in `channel` (its statuses in the order they landed), if any.
    pub fn session(&self, channel: &str, thread: &str) -> Option<FakeSession> {
        self.state.lock().unwrap().web.session(channel, thread)
    }

    /// The streamed messages in `channel`, oldest first.
    pub fn streams_in(&self, channel: &str) -> Vec<FakeStream> {
        self.state.lock().unwrap().web.streams_in(channel)
    }

    /// The most rows one `slackLists.items.list` page holds, whatever the caller's `limit` (default 100).
    pub fn set_list_page_size(&self, n: usize) {
        self.state.lock().unwrap().lists.set_page_size(n)
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
    let headers: Vec<(String, String)> = request.headers().iter().map(|h| (h.field.to_string(), h.value.to_string())).collect();
    let form = headers.iter().any(|(k, v)| k.eq_ignore_ascii_case("content-type") && v.to_ascii_lowercase().starts_with("application/x-www-form-urlencoded"));
    let json: Option<Value> = if form { None } else { serde_json::from_str(&body).ok() };
    let mut args = Map::new();
    let query = request.url().split_once('?').map_or("", |(_, q)| q);
    let mut add = |text: &str| args.extend(form_urlencoded::parse(text.as_bytes()).map(|(k, v)| (k.into_owned(), Value::String(v.into_owned()))));
    add(query);
    match &json {
        Some(Value::Object(fields)) => args.extend(fields.clone()),
        _ if form => add(&body),
        _ => {}
    }
    Call { method: method_of(request.url()), path: request.url().to_string(), headers, json, args, body, at: Instant::now(), rate_limited: false, answer: None }
}

/// The reply to `call`, and its position in the record.
fn next_reply(state: &Mutex<State>, call: &mut Call) -> (Reply, usize) {
    let mut state = state.lock().unwrap();
    let now_secs = call.at.duration_since(state.started).as_secs_f64();
    let token = call.token().unwrap_or("").to_string();
    let args = Value::Object(call.args.clone());
    let reply = match state.tiers.as_mut().map(|t| t.check(&token, &call.method, Some(&args), now_secs)) {
        Some(Err(retry_after)) => Reply::RateLimited(retry_after),
        _ => scripted_reply(&mut state, call),
    };
    call.rate_limited = matches!(reply, Reply::RateLimited(_));
    state.calls.push(call.clone());
    (reply, state.calls.len() - 1)
}

fn scripted_reply(state: &mut State, call: &Call) -> Reply {
    let rule = state.rules.iter_mut().find(|r| r.method == call.method && call.body.contains(&r.needle) && (r.chooser.is_some() || !r.replies.is_empty()));
    match rule {
        Some(Rule { chooser: Some(choose), .. }) => choose(call),
        Some(rule) => rule.replies.pop_front().unwrap_or(Reply::Ok),
        None => match &mut state.default {
            Some(choose) => choose(call),
            None => Reply::Ok,
        },
    }
}

/// A successful `oauth.v2.access` answer for a simulated workspace.
fn oauth_answer() -> Value {
    json!({
        "ok": true, "access_token": "xoxb-sim-token", "token_type": "bot", "scope": "app_mentions:read,chat:write,im:history,commands",
        "bot_user_id": FAKE_BOT_USER, "app_id": super::web::FAKE_APP_ID, "team": {"id": FAKE_TEAM, "name": "Simulated"}, "enterprise": null,
        "is_enterprise_install": false, "authed_user": {"id": "U1"}
    })
}

/// Answers `call` (the record's `index`th) with `reply`, and records the answer. `applied` is
/// the real answer of a call already applied (by [`Reply::Applied`]), so it is not applied twice.
fn respond(request: tiny_http::Request, (call, index): (&Call, usize), reply: Reply, state: &Mutex<State>, port: u16, applied: Option<Value>) {
    let (status, body, retry_after) = match reply {
        Reply::Delay(wait, then) => {
            std::thread::sleep(wait);
            return respond(request, (call, index), *then, state, port, applied);
        }
        Reply::Applied(then) => {
            let applied = applied.or_else(|| call.is_web_api().then(|| real_answer(state, call)));
            return respond(request, (call, index), *then, state, port, applied);
        }
        Reply::Reset => return super::reset::reset(request, port),
        Reply::Ok if call.method == "llm" => (200, completion(&format!("LLM answer to: {}", prompt_of(call))), None),
        Reply::Ok if call.method == "response_url" => (200, json!("ok"), None),
        Reply::Ok => (200, applied.unwrap_or_else(|| real_answer(state, call)), None),
        Reply::Completion(text) => (200, completion(&text), None),
        Reply::Json(body) => (200, body, None),
        Reply::Error(code) => (200, json!({"ok": false, "error": code}), None),
        Reply::RateLimited(secs) => (429, json!({"ok": false, "error": "ratelimited"}), Some(secs)),
        Reply::Status(code) => (code, json!({"ok": false, "error": format!("http {code}")}), None),
    };
    if let Some(recorded) = state.lock().unwrap().calls.get_mut(index) {
        recorded.answer = Some(body.clone());
    }
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

/// Slack's answer to a Web API call, applied to the fake's state: `unknown_method` for a method
/// the fake does not implement, `not_authed` without a token (`oauth.v2.access` authenticates by
/// its client id and secret instead), else the method's own answer.
fn real_answer(state: &Mutex<State>, call: &Call) -> Value {
    let method = call.method.as_str();
    if !knows(method) {
        return refusal("unknown_method");
    }
    if method == method::OAUTH_V2_ACCESS {
        return oauth_answer();
    }
    if call.token().is_none() {
        return refusal("not_authed");
    }
    let mut state = state.lock().unwrap();
    if super::lists::handles(method) {
        return state.lists.apply(method, Some(&lists_args(call)));
    }
    let now_ms = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
    state.web.apply_as(method, &call.args, call.token().unwrap_or_default(), now_ms)
}

/// A Lists call's arguments; from a form body, its JSON-encoded `initial_fields` and `cells`, and
/// its `limit` and `archived`, decoded as Slack decodes them.
fn lists_args(call: &Call) -> Value {
    let mut args = call.args.clone();
    if call.json.is_none() {
        for key in ["initial_fields", "cells", "limit", "archived"] {
            if let Some(decoded) = args.get(key).and_then(Value::as_str).and_then(|v| serde_json::from_str::<Value>(v).ok()) {
                args.insert(key.into(), decoded);
            }
        }
    }
    Value::Object(args)
}

/// `GET /_sim/calls?after=N`: the recorded calls from position N on, as JSON (not recorded).
fn list_calls(request: tiny_http::Request, state: &Mutex<State>) {
    let after = request.url().split_once("after=").and_then(|(_, n)| n.split('&').next()?.parse::<usize>().ok()).unwrap_or(0);
    let listed: Vec<Value> = {
        let state = state.lock().unwrap();
        let started = state.started;
        state.calls.iter().enumerate().skip(after).map(|(index, c)| {
            json!({"index": index, "method": c.method, "path": c.path, "json": c.json, "args": c.args, "at_ms": c.at.duration_since(started).as_millis() as u64, "rate_limited": c.rate_limited, "answer": c.answer})
        }).collect()
    };
    let response =
        tiny_http::Response::from_string(Value::Array(listed).to_string()).with_header("content-type: application/json".parse::<tiny_http::Header>().unwrap());
    let _ = request.respond(response);
}

fn handle(mut request: tiny_http::Request, state: &Mutex<State>, port: u16) {
    if request.url().starts_with("/_sim/calls") {
        return list_calls(request, state);
    }
    let mut call = record(&mut request);
    let (reply, index) = next_reply(state, &mut call);
    respond(request, (&call, index), reply, state, port, None);
}
