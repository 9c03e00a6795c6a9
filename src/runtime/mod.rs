//! The adapters between the pure core and the Workers runtime (wasm32 only). Each is thin: it
//! reads or writes the outside world and hands everything else to the core.
//!
//! - [`front_door`]: the Worker's `fetch` (stateless): verify, parse, route, wait for the actor;
//! - [`error`]: the Worker's one error enum, mapped to HTTP in one place;
//! - [`admin`]: the admin API's authentication and forwarding to a team actor;
//! - [`guard`]: the failed-token lockout of `/api/…` and `/admin/…` (per isolate);
//! - [`api`]: the `/api/…` routes' (`API_TOKEN`) authentication and forwarding to a team actor;
//! - [`oauth`]: the install flow (`/slack/install`, `/slack/oauth_redirect`);
//! - [`team`]: the `TeamActor` Durable Object: the atomic ingest unit, the installation, the admin
//!   reads, the alarm;
//! - [`directory`]: the `Directory` Durable Object: the list of teams and consumed OAuth states;
//! - [`sweep`]: the alarm path: the delivery loop, the bot token at delivery time
//!   (`sweep::credential`); the jobs are the kinds' (`crate::kinds`, picked by `kinds::perform`);
//! - [`store`]: the only module that runs SQL;
//!
//! The primitives they stand on (statement execution, row inserts, HTTP, the pacer, time, logs,
//! settings) are [`crate::platform`]'s.

pub mod admin;
pub mod api;
pub mod directory;
pub mod error;
pub mod front_door;
pub mod guard;
pub mod next_release;
pub mod oauth;
pub mod store;
pub mod sweep;
pub mod team;
pub mod test_hooks;

/// The value of one request header, if present and readable.
pub fn header(req: &worker::Request, name: &str) -> Option<String> {
    req.headers().get(name).ok().flatten()
}

/// The value of one query parameter of a request's URL.
pub fn query_param(req: &worker::Request, name: &str) -> Option<String> {
    crate::url_parts::query_param(&req.inner().url(), name)
}

/// A request's query string with its `?` (empty when there is none), to forward to an actor.
pub fn query_suffix(req: &worker::Request) -> String {
    crate::url_parts::query(&req.inner().url()).map(|q| format!("?{q}")).unwrap_or_default()
}

/// An HTML page that no cache keeps (install results and admin pages are per person).
pub fn html_page(status: u16, body: &str) -> worker::Result<worker::Response> {
    let headers = worker::Headers::new();
    headers.set("content-type", "text/html; charset=utf-8")?;
    headers.set("cache-control", "no-store")?;
    Ok(worker::Response::ok(body)?.with_status(status).with_headers(headers))
}

/// A JSON answer with `status`: the one way both error enums (`error::FrontDoorError`,
/// `team::admin::AdminError`) become a response.
pub fn json_response(status: u16, body: &serde_json::Value) -> worker::Response {
    worker::Response::from_json(body)
        .map(|r| r.with_status(status))
        .unwrap_or_else(|_| worker::Response::empty().expect("an empty response").with_status(status))
}

/// Sends one request to the Durable Object named `name` in the namespace `binding` (the only way
/// the Worker and the actors reach an actor), naming this release's wire version. The URL's host
/// is ignored; actors route on its path.
///
/// With `signal`, the call (and the reading of its answer) is aborted when the signal is (e.g.
/// `AbortSignal.timeout`: the front door's ack budget).
///
/// The request is handed to the stub as a URL and a `RequestInit` (`platform::js::request_init`), not
/// built as a `worker::Request` first: that one is constructed in JavaScript and then read back
/// into Wasm (method, URL, headers), work this call never needs.
pub async fn call_actor(env: &worker::Env, binding: &str, name: &str, call: ActorCall<'_>) -> worker::Result<worker::Response> {
    use worker::wasm_bindgen::JsCast;
    let namespace = env.durable_object(binding)?;
    let namespace: &crate::platform::js::Namespace = namespace.as_ref().unchecked_ref();
    let stub = namespace.get_by_name(name)?;
    // Every call names its sender's wire version (`crate::wire`): this release's, unless the
    // caller named one (the tests' next release, `next_release`).
    let headers = call.headers.unwrap_or_default();
    if !headers.has(crate::wire::HEADER)? {
        headers.set(crate::wire::HEADER, crate::wire::VERSION_TEXT)?;
    }
    let init = crate::platform::js::request_init(call.method.as_ref(), Some(&headers.0), call.body.as_deref(), call.signal);
    let response = worker::wasm_bindgen_futures::JsFuture::from(stub.fetch(&format!("https://actor{}", call.path), &init)?).await?;
    Ok(response.dyn_into::<worker::web_sys::Response>()?.into())
}

/// Issues an alarm operation an actor's view has already counted (`crate::outbox::alarm`: the
/// call starts it synchronously, in the order of issue), metered; a failure leaves the stored
/// alarm unknown to the view. The team actor's and the directory's one path to their alarm.
pub async fn issue_alarm(storage: &worker::Storage, view: &crate::outbox::alarm::AlarmView, op: crate::outbox::alarm::AlarmOp) -> worker::Result<()> {
    use crate::outbox::alarm::AlarmOp;
    let done = match op {
        AlarmOp::Set(at_ms) => {
            crate::platform::meter::set_alarm();
            let date = worker::js_sys::Date::new(&worker::wasm_bindgen::JsValue::from_f64(at_ms as f64));
            storage.set_alarm(worker::ScheduledTime::new(date)).await
        }
        AlarmOp::Delete => {
            crate::platform::meter::delete_alarm();
            storage.delete_alarm().await
        }
    };
    if done.is_err() {
        view.failed();
    }
    done
}

/// The Durable Object binding of the team actors (`team::BINDING`; the directory wakes them).
pub const TEAM_BINDING: &str = "TEAM";

/// One request to an actor.
pub struct ActorCall<'a> {
    /// The method.
    pub method: worker::Method,
    /// The actor's path (with its query string).
    pub path: &'a str,
    /// The body, if any.
    pub body: Option<String>,
    /// Extra headers (a typed route, test hooks, the team key).
    pub headers: Option<worker::Headers>,
    /// Aborts the call and the reading of its answer when it fires.
    pub signal: Option<&'a worker::web_sys::AbortSignal>,
}

/// A fetched response's whole body as text, read with the runtime's own `Response.text()` (one
/// promise) rather than chunk by chunk through a stream reader (several promises per body).
pub async fn body_text(response: worker::Response) -> worker::Result<String> {
    let raw: worker::web_sys::Response = response.into();
    let text = worker::wasm_bindgen_futures::JsFuture::from(raw.text()?).await?;
    text.as_string().ok_or_else(|| worker::Error::RustError("response body is not text".into()))
}

/// A fetched response's JSON body (an actor's answer), read with [`body_text`] and parsed in Rust.
pub async fn response_json<T: serde::de::DeserializeOwned>(response: worker::Response) -> worker::Result<T> {
    parse_json(&body_text(response).await?)
}

/// A request's JSON body, parsed in Rust from its text: cheaper than `Request::json`, which
/// builds a JavaScript object graph first and then walks it across the Wasm boundary.
pub async fn request_json<T: serde::de::DeserializeOwned>(req: &mut worker::Request) -> worker::Result<T> {
    parse_json(&req.text().await?)
}

fn parse_json<T: serde::de::DeserializeOwned>(text: &str) -> worker::Result<T> {
    serde_json::from_str(text).map_err(|e| worker::Error::RustError(format!("bad JSON body: {e}")))
}
