//! The only module that calls `Fetch`: JSON and form POSTs with a timeout that really cancels the
//! request.

use futures::future::{select, Either};
use serde_json::Value;
use std::time::Duration;
use worker::{AbortController, Delay, Fetch, Headers, Method, Request, RequestInit};

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

/// Calls Slack's `method` with the bot token (the attempt timeout applies) and judges the answer.
pub async fn call_slack(config: &crate::config::Config, token: &str, method: &str, args: &Value) -> SlackCall {
    use crate::slack::classify;
    match post_json(&config.slack_method_url(method), Some(token), args, config.attempt_timeout_ms).await {
        Ok(a) => SlackCall { verdict: classify::classify_web_api(a.status, a.retry_after.as_deref(), &a.json), http_status: Some(a.status as i64), json: a.json },
        Err(Failure::Timeout) => SlackCall { verdict: classify::timed_out(), http_status: None, json: Value::Null },
        Err(Failure::Network(_)) => SlackCall { verdict: classify::network_error(), http_status: None, json: Value::Null },
    }
}

/// POSTs `body` as JSON (with a bearer token when given) and waits at most `timeout_ms`.
pub async fn post_json(url: &str, bearer: Option<&str>, body: &Value, timeout_ms: i64) -> Result<Answer, Failure> {
    let request = build(url, bearer, "application/json; charset=utf-8", body.to_string()).map_err(|e| Failure::Network(e.to_string()))?;
    send(request, timeout_ms).await
}

/// POSTs form fields (`application/x-www-form-urlencoded`, as `oauth.v2.access` takes them).
pub async fn post_form(url: &str, fields: &[(&str, &str)], timeout_ms: i64) -> Result<Answer, Failure> {
    let body = form_urlencoded::Serializer::new(String::new()).extend_pairs(fields).finish();
    let request = build(url, None, "application/x-www-form-urlencoded", body).map_err(|e| Failure::Network(e.to_string()))?;
    send(request, timeout_ms).await
}

async fn send(request: Request, timeout_ms: i64) -> Result<Answer, Failure> {
    let controller = AbortController::default();
    let signal = controller.signal();
    let call = async {
        let fetch = Fetch::Request(request);
        let response = fetch.send_with_signal(&signal).await?;
        let status = response.status_code();
        let retry_after = response.headers().get("retry-after")?;
        let text = super::body_text(response).await?;
        Ok::<_, worker::Error>(Answer { status, retry_after, json: serde_json::from_str(&text).unwrap_or(Value::Null) })
    };
    let timer = Delay::from(Duration::from_millis(timeout_ms.max(1) as u64));
    futures::pin_mut!(call);
    match select(call, timer).await {
        Either::Left((Ok(answer), _)) => Ok(answer),
        Either::Left((Err(e), _)) => Err(Failure::Network(e.to_string())),
        Either::Right(_) => {
            controller.abort();
            Err(Failure::Timeout)
        }
    }
}

fn build(url: &str, bearer: Option<&str>, content_type: &str, body: String) -> worker::Result<Request> {
    let headers = Headers::new();
    headers.set("content-type", content_type)?;
    if let Some(token) = bearer {
        headers.set("authorization", &format!("Bearer {token}"))?;
    }
    let mut init = RequestInit::new();
    init.with_method(Method::Post).with_headers(headers).with_body(Some(body.into()));
    Request::new_with_init(url, &init)
}
