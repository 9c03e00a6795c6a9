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
}

/// Calls Slack's `method` with the bot token (the attempt timeout applies) and judges the answer,
/// once `gate` lets it through: a call kept back for its rate budget is not sent (its verdict is
/// `Paced`). A network failure's detail is logged.
pub async fn call_slack(config: &crate::config::Config, gate: &Gate<'_>, token: &str, method: &str, args: &Value) -> SlackCall {
    use crate::slack::classify;
    if let Err(paced) = gate.admit(method, args) {
        return SlackCall { verdict: paced, http_status: None, json: Value::Null };
    }
    match post_json(&config.slack_method_url(method), Some(token), args, config.attempt_timeout_ms).await {
        Ok(a) => {
            SlackCall { verdict: classify::classify_web_api(a.status, a.retry_after.as_deref(), &a.json), http_status: Some(a.status as i64), json: a.json }
        }
        Err(Failure::Timeout) => SlackCall { verdict: classify::timed_out(), http_status: None, json: Value::Null },
        Err(Failure::Network(detail)) => {
            log_network(&detail);
            SlackCall { verdict: classify::network_error(), http_status: None, json: Value::Null }
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

/// One POST through the runtime's `fetch(url, init)`, with `AbortSignal.timeout`: the runtime's
/// own timer aborts the request and the reading of its body (no Wasm timer, no `select`), and
/// an error with the signal aborted is the timeout.
async fn send(url: &str, bearer: Option<&str>, content_type: &str, body: &str, timeout_ms: i64) -> Result<Answer, Failure> {
    let signal = super::js::timeout_signal(timeout_ms);
    let answer = async {
        let headers = Headers::new()?;
        headers.set("content-type", content_type)?;
        if let Some(token) = bearer {
            headers.set("authorization", &format!("Bearer {token}"))?;
        }
        let init = super::js::request_init("POST", Some(&headers), Some(body), Some(&signal));
        let global: WorkerGlobalScope = worker::js_sys::global().unchecked_into();
        let response: Response = JsFuture::from(global.fetch_with_str_and_init(url, &init)).await?.dyn_into()?;
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
