//! The team actor's request path: `POST /ingest` (the atomic unit of a receipt, the app's effects
//! as outbox rows, and an uninstall's revocation), `POST /installation` (from the OAuth flow) and
//! `POST /rate-limited` (Slack's `app_rate_limited` notice, counted for the stats).
//!
//! Invariant: the answer to `/ingest` leaves only after the unit is durable, and the alarm is set
//! with no await between it and the unit, so a row is never queued without a sweep to deliver it.
//! A request reached after the front door's deadline (`ingest::Deadline`: it waited in this
//! actor's queue past the ack budget, and the front door has answered 500) writes nothing and
//! answers `too_late` (503).

use super::error::ActorError;
use super::TeamActor;
use crate::app::{self, Decision, HandlerOutput};
use crate::config::Config;
use crate::ingest::{Admission, Deadline, IngestOutcome, Receipt};
use crate::kinds::perform;
use crate::logs::{Alert, UninstallLine};
use crate::oauth::Installation;
use crate::outbox::reasons;
use crate::platform::state::SqlState;
use crate::platform::{clock, log};
use crate::runtime::store::{self, ingest::Ingest, ingest::NewRow};
use crate::runtime::test_hooks::{HookedApp, TestHooks};
use crate::runtime::{directory, header, request_json};
use crate::slack::envelope::Dispatch;
use crate::slack::rate_limited::{Noted, RateLimitedNotice};
use serde_json::json;
use std::rc::Rc;
use worker::{Request, Response};

impl TeamActor {
    /// `POST /ingest`: the atomic unit, then the alarm, then the answer (sent once the writes are
    /// durable: the output gate holds it).
    pub(super) async fn ingest(&self, mut req: Request, config: &Config) -> Result<Response, ActorError> {
        let hooks = TestHooks::read(&req, config);
        hooks.delay().await;
        // Checked first: a request the front door has given up on costs nothing more.
        if let Admission::Late { by_ms } = Deadline::admit(Deadline::parse(header(&req, Deadline::HEADER).as_deref()), clock::now_ms()) {
            return Err(ActorError::Late { by_ms });
        }
        // Any release's front door (`crate::wire`): a dispatch this release cannot read is a
        // release mismatch (503; the front door answers Slack 500, and Slack retries).
        let dispatch = Dispatch::from_wire(&req.text().await?).map_err(|e| ActorError::Mismatch(format!("an ingest body ({e})")))?;
        // The handler reads the team's state synchronously; with no await from here to the unit,
        // nothing else writes in between.
        // `cx.now()`: the request's time (the test clock when a test set it).
        let ctx = app::Context::of(config).with_state(Rc::new(SqlState { sql: self.sql.clone() })).at(hooks.now_ms.unwrap_or_else(clock::now_ms));
        let output = match hooks.handler_fails {
            Some(why) => HandlerOutput::of(Decision::Failed(why)),
            None => app::decide(&HookedApp::of(&*self.app, config), &dispatch, &ctx),
        };
        let now = clock::now_ms();
        // A failed handler's request is recorded with its receipt and kept, parked as
        // `handler_failed`, for a redrive to run the handler again: the event is never lost, and
        // Slack gets its 200 (a retry would only fail the same way).
        let (effects, ignored, failed) = match output.decision {
            Decision::Enqueue(effects) => (effects, None, None),
            Decision::Ignore(reason) => (Vec::new(), Some(reason), None),
            Decision::Failed(why) => {
                let kept = serde_json::to_value(&dispatch).map_err(|e| ActorError::Storage(worker::Error::RustError(e.to_string())))?;
                (Vec::new(), Some(reasons::HANDLER_FAILED), Some((why, kept)))
            }
        };
        let uninstall = dispatch.uninstalls();
        let claimed_until = now + crate::runtime::sweep::pre_claim_ms(config);
        let ingest = Ingest {
            team_key: dispatch.team_key().to_string(),
            op_key: dispatch.op_key().to_string(),
            kind: dispatch.kind().to_string(),
            // A schedule's `after` counts from the request's time: the test clock when a test set it.
            rows: effects.into_iter().map(|e| NewRow::requested_at(e, now, hooks.now_ms.unwrap_or(now))).collect(),
            uninstall,
            max_attempts: config.retry.max_attempts,
            team_key_stored: self.team.borrow().is_some(),
            failed: failed.clone(),
            claim: Some((self.pre_claims.token(config).clone(), claimed_until)),
            at_ingest: perform::at_ingest(&dispatch, config, now, failed.as_ref().map(|(why, _)| why.as_str())),
            // Only a run whose effects stand carries one (`app::decide`).
            state: output.state,
        };
        let recorded = store::ingest::record(&self.state.storage(), &self.sql, ingest, now, &self.known)?;
        self.pre_claims.inserted(&recorded.claimed, now, claimed_until);
        if uninstall {
            self.credentials.forget();
        }
        if recorded.receipt.queued() > 0 && !hooks.skip_arm {
            // Issued right after the unit, with no await between: committed with it.
            self.wake().await?;
            self.hold_until_swept(hooks.arm_hold_ms).await;
        }
        self.team.borrow_mut().get_or_insert_with(|| dispatch.team_key().to_string());
        self.note_in_directory(dispatch.team_key(), recorded.first_seen, uninstall && recorded.receipt != Receipt::Duplicate);
        if recorded.parked > 0 {
            log::emit(UninstallLine { team: dispatch.team_key().to_string(), parked: recorded.parked, alert: Alert::TeamUninstalled });
        }
        let ignored = if uninstall { Some("uninstalled") } else { ignored };
        let outcome = IngestOutcome { receipt: recorded.receipt, ignored: ignored.map(str::to_string), ack: output.ack };
        Ok(crate::runtime::next_release::ingest_answer(config, &outcome)?)
    }

    /// `POST /rate-limited`: one of Slack's `app_rate_limited` notices, kept for the stats (the
    /// front door has logged it with its alert). Answers whether it was a minute not counted yet.
    pub(super) async fn rate_limited(&self, mut req: Request) -> Result<Response, ActorError> {
        let notice: RateLimitedNotice = request_json(&mut req).await?;
        let noted = store::admin::note_rate_limited(&self.sql, notice.minute_rate_limited, clock::now_ms())?;
        Ok(Response::from_json(&json!({ "new_minute": matches!(noted, Noted::NewMinute(_)) }))?)
    }

    /// Tells the directory about this team, in the background (never on the ack's path).
    fn note_in_directory(&self, team_key: &str, first_seen: bool, uninstalled: bool) {
        for (wanted, path) in [(first_seen, "/seen"), (uninstalled, "/uninstalled")] {
            if wanted {
                let (env, body) = (self.env.clone(), json!({ "team_key": team_key }));
                self.state.wait_until(async move { directory::note(&env, path, body).await });
            }
        }
    }

    /// Stores an installation from the OAuth flow: tokens sealed, an earlier uninstall cleared.
    pub(super) async fn install(&self, mut req: Request, config: &Config) -> Result<Response, ActorError> {
        let installation: Installation = request_json(&mut req).await?;
        let bot = config.cipher.seal(&installation.bot_token, clock::random_bytes());
        let refresh = installation.refresh_token.as_deref().map(|r| config.cipher.seal(r, clock::random_bytes()));
        crate::platform::installation::save_installation(&self.state.storage(), &self.sql, installation, bot, refresh, clock::now_ms())?;
        self.credentials.forget();
        Ok(Response::from_json(&json!({ "stored": true, "encrypted": config.cipher.encrypts() }))?)
    }
}
