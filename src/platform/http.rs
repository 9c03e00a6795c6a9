//! The only module that calls `fetch` (outside the actor calls of `runtime::call_actor`): JSON and
//! form POSTs with a timeout that really cancels the request.

use super::pacing::Gate;
use serde_json::Value;
use worker::wasm_bindgen::{JsCast, JsValue};
use worker::wasm_bindgen_futures::JsFuture;
use worker::web_sys::{Headers, Response, WorkerGlobalScope};

/// What came back.
#[derive(Debug)]
pub struct Answer {
    /// HTTP status.
    pub status: u16,
    /// The `Retry-After` header, if any.
    pub retry_after: Option<String>,
    /// The body, parsed as JSON when it is JSON (else `Value::Null`).
    pub json: Value,
}

/// Why nothing (usable) came back.
#[derive(Debug)]
pub enum Failure {
    /// Connection refused, reset, DNS, a body that could not be read...
    Network(String),
    /// The per-attempt timeout fired first; the request was aborted.
    Timeout,
}

/// A Slack Web API call's end, judged as every Web API answer is (`classify_web_api`).
pub struct SlackCall {
    /// Success, transient or permanent.
    pub verdict: crate::slack::classify::Verdict,
    /// Slack's HTTP status, when it answered.
    pub http_status: Option<i64>,
    /// The answer's JSON (`Value::Null` without one).
    pub json: Value,
    /// For a post (`kinds::post::read_back`): since when its row's outcome is unknown after this call
    /// (it timed out, or a read-back could not rule an earlier attempt out); kept with a retry.
    pub uncertain_since: Option<i64>,
}

/// Calls Slack's `method` with the bot token (the attempt timeout applies) and judges the answer,
/// once `gate` lets it through: a call kept back for its rate budget is not sent (its verdict is
/// `Paced`). A network failure's detail is logged.
pub async fn call_slack(config: &crate::config::Config, gate: &Gate<'_>, token: &str, method: &str, args: &Value) -> SlackCall {
    use crate::slack::classify;
    if let Err(paced) = gate.admit(method, args) {
        return SlackCall { verdict: paced, http_status: None, json: Value::Null, uncertain_since: None };
    }
    match post_json(&config.slack_method_url(method), Some(token), args, config.attempt_timeout_ms).await {
        Ok(a) => {
            let verdict = classify::classify_web_api(a.status, a.retry_after.as_deref(), &a.json);
            SlackCall { verdict, http_status: Some(a.status as i64), json: a.json, uncertain_since: None }
        }
        Err(Failure::Timeout) => SlackCall { verdict: classify::timed_out(), http_status: None, json: Value::Null, uncertain_since: None },
        Err(Failure::Network(detail)) => {
            log_network(&detail);
            SlackCall { verdict: classify::network_error(), http_status: None, json: Value::Null, uncertain_since: None }
        }
    }
}

/// The `network_error` line of a call that got no answer.
pub fn log_network(detail: &str) {
    super::log::emit(crate::logs::LogLine::NetworkError(crate::logs::ErrorLine::new(detail)));
}

/// POSTs `body` as JSON (with a bearer token when given) and waits at most `timeout_ms`.
pub async fn post_json(url: &str, bearer: Option<&str>, body: &Value, timeout_ms: i64) -> Result<Answer, Failure> {
    send(url, bearer, "application/json; charset=utf-8", &body.to_string(), timeout_ms).await
}

/// POSTs form fields (`application/x-www-form-urlencoded`, as `oauth.v2.access` takes them).
pub async fn post_form(url: &str, fields: &[(&str, &str)], timeout_ms: i64) -> Result<Answer, Failure> {
    let body = form_urlencoded::Serializer::new(String::new()).extend_pairs(fields).finish();
    send(url, None, "application/x-www-form-urlencoded", &body, timeout_ms).await
}

/// POSTs `body` through the runtime's `fetch(url, init)` with these headers (a bearer token and an
/// `accept` when given) and `signal`; resolves with the answer's head.
async fn fetch_post(
    url: &str,
    bearer: Option<&str>,
    content_type: &str,
    accept: Option<&str>,
    body: &str,
    signal: &worker::web_sys::AbortSignal,
) -> Result<Response, JsValue> {
    let headers = Headers::new()?;
    headers.set("content-type", content_type)?;
    if let Some(accept) = accept {
        headers.set("accept", accept)?;
    }
    if let Some(token) = bearer {
        headers.set("authorization", &format!("Bearer {token}"))?;
    }
    let init = super::js::request_init("POST", Some(&headers), Some(body), Some(signal));
    let global: WorkerGlobalScope = worker::js_sys::global().unchecked_into();
    JsFuture::from(global.fetch_with_str_and_init(url, &init)).await?.dyn_into()
}

/// One POST through the runtime's `fetch(url, init)`, with `AbortSignal.timeout`: the runtime's
/// own timer aborts the request and the reading of its body (no Wasm timer, no `select`), and
/// an error with the signal aborted is the timeout.
async fn send(url: &str, bearer: Option<&str>, content_type: &str, body: &str, timeout_ms: i64) -> Result<Answer, Failure> {
    let signal = super::js::timeout_signal(timeout_ms);
    let answer = async {
        let response = fetch_post(url, bearer, content_type, None, body, &signal).await?;
        let status = response.status();
        let retry_after = response.headers().get("retry-after")?;
        let text = JsFuture::from(response.text()?).await?.as_string().unwrap_or_default();
        Ok::<_, JsValue>(Answer { status, retry_after, json: serde_json::from_str(&text).unwrap_or(Value::Null) })
    };
    match answer.await {
        Ok(answer) => Ok(answer),
        Err(_) if signal.aborted() => Err(Failure::Timeout),
        Err(e) => Err(Failure::Network(worker::Error::from(e).to_string())),
    }
}

/// A response whose body is read as it arrives (a model's server-sent events).
pub struct BodyStream {
    body: worker::ByteStream,
    /// Aborts the request when the stream is dropped: an attempt that ends (or is fenced) stops
    /// reading the model.
    abort: worker::web_sys::AbortController,
    /// The timer that bounds the current wait, and when it fires: kept across reads, so a stream
    /// of small chunks arms one timer per deadline, not one per chunk.
    timer: Option<(i64, worker::Delay)>,
}

impl Drop for BodyStream {
    fn drop(&mut self) {
        self.abort.abort();
    }
}

/// The next piece of a [`BodyStream`].
#[derive(Debug)]
pub enum Piece {
    /// Bytes.
    Bytes(Vec<u8>),
    /// The body ended.
    End,
    /// Nothing arrived within the wait.
    Idle,
    /// The connection broke.
    Broken(String),
}

impl BodyStream {
    /// Waits for the next bytes until `deadline` at the latest (epoch ms; `now` is the clock).
    /// A timer armed for an earlier read is kept while it fires no later than `deadline`: it may
    /// then end this wait early with [`Piece::Idle`], which callers take as "look at the clock".
    pub async fn next(&mut self, deadline: i64, now: i64) -> Piece {
        use futures::future::{select, Either};
        use futures::StreamExt;
        let keep = matches!(self.timer, Some((fires, _)) if fires <= deadline && fires > now);
        if !keep {
            let wait = std::time::Duration::from_millis((deadline - now).max(1) as u64);
            self.timer = Some((deadline, worker::Delay::from(wait)));
        }
        let (_, timer) = self.timer.as_mut().expect("armed above");
        match select(self.body.next(), timer).await {
            Either::Left((Some(Ok(bytes)), _)) => Piece::Bytes(bytes),
            Either::Left((Some(Err(e)), _)) => Piece::Broken(e.to_string()),
            Either::Left((None, _)) => Piece::End,
            Either::Right(_) => {
                self.timer = None;
                Piece::Idle
            }
        }
    }
}

/// POSTs `body` as JSON and, on a 2xx, hands back the body to read as it streams; any other
/// status is read whole, as [`post_json`] would. Waiting for the answer's head is bounded by
/// `timeout_ms`; reading the body is bounded by the caller's waits.
///
/// Dropping the returned future before it resolves aborts the request (a Stop while the model had
/// not begun answering), as dropping the [`BodyStream`] does once it has.
pub async fn post_streaming(url: &str, bearer: Option<&str>, body: &Value, timeout_ms: i64) -> Result<Result<BodyStream, Answer>, Failure> {
    let abort = AbortOnDrop(Some(worker::web_sys::AbortController::new().map_err(|e| Failure::Network(format!("{e:?}")))?));
    let signal = abort.controller().signal();
    let body = body.to_string();
    let started = fetch_post(url, bearer, "application/json; charset=utf-8", Some("text/event-stream"), &body, &signal);
    use futures::future::{select, Either};
    let head = select(Box::pin(started), worker::Delay::from(std::time::Duration::from_millis(timeout_ms.max(1) as u64))).await;
    let response = match head {
        Either::Left((Ok(response), _)) => response,
        Either::Left((Err(e), _)) => return Err(Failure::Network(worker::Error::from(e).to_string())),
        // Dropping `abort` on the way out aborts the request.
        Either::Right(_) => return Err(Failure::Timeout),
    };
    let status = response.status();
    if !(200..300).contains(&status) {
        let retry_after = response.headers().get("retry-after").ok().flatten();
        let text = match response.text() {
            Ok(promise) => JsFuture::from(promise).await.ok().and_then(|t| t.as_string()).unwrap_or_default(),
            Err(_) => String::new(),
        };
        return Ok(Err(Answer { status, retry_after, json: serde_json::from_str(&text).unwrap_or(Value::Null) }));
    }
    let mut response = worker::Response::from(response);
    let body = response.stream().map_err(|e| Failure::Network(e.to_string()))?;
    Ok(Ok(BodyStream { body, abort: abort.disarm(), timer: None }))
}

/// Aborts its request when dropped, unless disarmed: a request whose future is dropped before
/// its answer's head came is not left open.
struct AbortOnDrop(Option<worker::web_sys::AbortController>);

impl AbortOnDrop {
    fn controller(&self) -> &worker::web_sys::AbortController {
        self.0.as_ref().expect("armed until disarmed")
    }

    /// The controller, no longer aborted on drop (the caller owns the request now).
    fn disarm(mut self) -> worker::web_sys::AbortController {
        self.0.take().expect("armed until disarmed")
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(abort) = self.0.take() {
            abort.abort();
        }
    }
}
