//! The team actor's half of the notify API (forwarded by `runtime::api`): `POST /messages` with an
//! idempotency key, `GET /messages/{id}`, and versioned status messages (`PUT`/`GET
//! /status/{name}`). Every write is one unit with its outbox row; the alarm is armed after it.
//!
//! Recording a message is one synchronous transaction (no await between reading the key and
//! claiming it), so a second request with the same key can never find it "being recorded": it
//! finds it stored (and is answered from it) or absent. The 409 that Stripe's semantics reserve
//! for that case is therefore never sent.

use super::{TeamActor, IDEMPOTENCY_KEY, TEST_ACTOR_DELAY, TEST_NOW};
use crate::config::Config;
use crate::notify::{body_hash, parse_message, parse_status};
use crate::runtime::store::notify::{self as store, KeyOutcome, KeyTerms, StoredAnswer};
use crate::runtime::{clock, header, json_response};
use serde_json::json;
use worker::{Headers, Method, Request, Response, Result};

fn stored(answer: StoredAnswer, replayed: bool) -> Result<Response> {
    let headers = Headers::new();
    headers.set("content-type", "application/json")?;
    if replayed {
        headers.set("idempotent-replayed", "true")?;
    }
    Ok(Response::ok(answer.body)?.with_status(answer.status).with_headers(headers))
}

fn error(status: u16, error: &str, message: &str) -> Result<Response> {
    Ok(json_response(status, &json!({ "ok": false, "error": error, "message": message })))
}

impl TeamActor {
    /// Serves `/messages…` and `/status/…`.
    pub(super) async fn notify(&self, mut req: Request, route: &[&str], config: &Config) -> Result<Response> {
        let delay = header(&req, TEST_ACTOR_DELAY).and_then(|d| d.parse::<u64>().ok());
        if let (true, Some(ms)) = (config.allow_test_clock, delay) {
            worker::Delay::from(std::time::Duration::from_millis(ms)).await;
        }
        let test_now = config.allow_test_clock.then(|| header(&req, TEST_NOW).and_then(|v| v.parse::<i64>().ok())).flatten();
        let now = test_now.unwrap_or_else(clock::now_ms);
        match (req.method(), route) {
            (Method::Post, ["messages"]) => {
                let body = req.text().await?;
                self.post_message(&req, &body, config, now).await
            }
            (Method::Get, ["messages", id]) => match store::message(&self.sql, id.parse().unwrap_or(-1))? {
                Some(view) => Response::from_json(&view),
                None => error(404, "no_such_message", "no message with that id"),
            },
            (Method::Put, ["status", name]) => {
                let body = req.text().await?;
                let update = match parse_status(&body) {
                    Ok(update) => update,
                    Err(invalid) => return Ok(json_response(422, &invalid.body())),
                };
                let view = store::put_status(&self.state.storage(), &self.sql, name, update, config.retry.max_attempts, clock::now_ms())?;
                if !view.stale {
                    self.wake().await?;
                }
                Response::from_json(&view)
            }
            (Method::Get, ["status", name]) => match store::status(&self.sql, name)? {
                Some(view) => Response::from_json(&view),
                None => error(404, "no_such_status", "no status message with that name"),
            },
            _ => error(404, "not_found", "not found"),
        }
    }

    async fn post_message(&self, req: &Request, body: &str, config: &Config, now: i64) -> Result<Response> {
        let Some(key) = header(req, IDEMPOTENCY_KEY) else {
            return error(400, "missing_idempotency_key", "an Idempotency-Key header is required");
        };
        let message = parse_message(body).map(|m| m.args);
        let queued = message.is_ok();
        let terms = KeyTerms { ttl_ms: config.idempotency_ttl_ms, max_attempts: config.retry.max_attempts, now, queued_at: clock::now_ms() };
        match store::record_message(&self.state.storage(), &self.sql, &key, &body_hash(body), message, terms)? {
            KeyOutcome::First(answer) => {
                if queued {
                    self.wake().await?;
                }
                stored(answer, false)
            }
            KeyOutcome::Replayed(answer) => stored(answer, true),
            KeyOutcome::Mismatch => error(422, "idempotency_key_mismatch", "this Idempotency-Key was used with a different body"),
        }
    }
}
