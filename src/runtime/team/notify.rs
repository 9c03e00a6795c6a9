//! The team actor's half of the notify API (parsed once into an [`ApiRoute`] and forwarded by
//! `runtime::api`): `POST /messages` with an idempotency key, `GET /messages/{id}`, and versioned
//! status messages (`PUT`/`GET /status/{name}`). Every write is one unit with its outbox row; the
//! alarm is armed after it.
//!
//! Recording a message is one synchronous transaction (no await between reading the key and
//! claiming it), so a second request with the same key can never find it "being recorded": it
//! finds it stored (and is answered from it) or absent. The 409 that Stripe's semantics reserve
//! for that case is therefore never sent.

use super::error::ActorError;
use super::{TeamActor, IDEMPOTENCY_KEY};
use crate::config::Config;
use crate::kinds::notify::store::{self as store, KeyOutcome, KeyTerms, StoredAnswer};
use crate::kinds::notify::{body_hash, parse_message, parse_status};
use crate::platform::clock;
use crate::routes::ApiRoute;
use crate::runtime::header;
use crate::runtime::test_hooks::TestHooks;
use worker::{Headers, Request, Response};

type Answer = Result<Response, ActorError>;

fn stored(answer: StoredAnswer, replayed: bool) -> Answer {
    let headers = Headers::new();
    headers.set("content-type", "application/json")?;
    if replayed {
        headers.set("idempotent-replayed", "true")?;
    }
    Ok(Response::ok(answer.body)?.with_status(answer.status).with_headers(headers))
}

impl TeamActor {
    /// Serves a notify route; `body` is the request's (empty for a read).
    pub(super) async fn notify(&self, req: &Request, body: &str, route: ApiRoute, config: &Config) -> Answer {
        let hooks = TestHooks::read(req, config);
        hooks.delay().await;
        let now = hooks.now_ms.unwrap_or_else(clock::now_ms);
        match route {
            ApiRoute::PostMessage => self.post_message(req, body, config, now).await,
            ApiRoute::GetMessage { id } => Ok(Response::from_json(&store::message(&self.sql, id)?.ok_or(ActorError::NoSuchMessage)?)?),
            ApiRoute::PutStatus { name } => {
                let update = parse_status(body).map_err(ActorError::InvalidBody)?;
                let view = store::put_status(&self.state.storage(), &self.sql, &name, update, config.retry.max_attempts, clock::now_ms())?;
                if !view.stale {
                    self.wake().await?;
                }
                Ok(Response::from_json(&view)?)
            }
            ApiRoute::GetStatus { name } => Ok(Response::from_json(&store::status(&self.sql, &name)?.ok_or(ActorError::NoSuchStatus)?)?),
            _ => Err(ActorError::NotFound), // the records routes are `lists`'
        }
    }

    async fn post_message(&self, req: &Request, body: &str, config: &Config, now: i64) -> Answer {
        let key = header(req, IDEMPOTENCY_KEY).ok_or(ActorError::MissingIdempotencyKey)?;
        let message = parse_message(body).map(|m| m.args);
        let queued = message.is_ok();
        let terms = KeyTerms { ttl_ms: config.idempotency_ttl_ms, max_attempts: config.retry.max_attempts, now, queued_at: clock::now_ms() };
        let until = terms.queued_at + crate::runtime::sweep::pre_claim_ms(config);
        let claim = Some((self.pre_claims.token(config).as_str().to_string(), until));
        let recorded = store::record_message(&self.state.storage(), &self.sql, &key, &body_hash(body), message, terms, claim, &self.known)?;
        self.pre_claims.inserted(recorded.claimed.as_slice(), terms.queued_at, until);
        match recorded.outcome {
            KeyOutcome::First(answer) => {
                if queued {
                    self.wake().await?;
                }
                stored(answer, false)
            }
            KeyOutcome::Replayed(answer) => stored(answer, true),
            KeyOutcome::Mismatch => Err(ActorError::IdempotencyMismatch),
        }
    }
}
