//! The bot token for a delivery, resolved at delivery time (never before the ack): the team's
//! stored installation (refreshed first when it rotates and is close to expiry), else
//! `SLACK_BOT_TOKEN`, else none.
//!
//! Refresh is single-flight per team: a slot in the installation row (`refreshing_until`) is taken
//! with one UPDATE; only its holder calls `oauth.v2.access`, and the new pair is stored before it is
//! used. A sweep resolves the token once per batch, so many rows due at once cause one refresh.
//!
//! The resolved credential is kept in the actor's memory ([`Cache`]) for at most [`CACHE_MS`],
//! and never past the time its token becomes due for refresh, so a sweep of one row reads no
//! installation. The actor is the single writer of its installation: every write to it (an
//! install, an uninstall, a refresh, which stores what it returns) goes through this actor, which
//! forgets the cached credential on an install or an uninstall. An instance that is evicted
//! loses the cache, which only costs one read.

use super::http;
use super::installation;
use crate::config::Config;
use crate::logs::{TokenRefreshFailedLine, TokenRefreshedLine};
use crate::oauth::{parse_refresh, refresh_due, refresh_due_at, AccessError};
use crate::outbox::reasons;
use crate::slack::classify::Verdict;
use crate::slack::method;
use std::cell::RefCell;
use std::rc::Rc;
use worker::SqlStorage;

/// How long the refresh slot is held at most: 30 s.
const REFRESH_SLOT_MS: i64 = 30_000;

/// How long a resolved credential is reused at most: 60 s.
pub const CACHE_MS: i64 = 60_000;

/// The team's credential as last resolved, with the time until which it may be reused.
#[derive(Default)]
pub struct Cache(RefCell<Option<(Rc<Credential>, i64)>>);

impl Cache {
    /// Drops the cached credential: the installation was just written (install, uninstall).
    pub fn forget(&self) {
        self.0.borrow_mut().take();
    }

    fn get(&self, now: i64) -> Option<Rc<Credential>> {
        self.0.borrow().as_ref().filter(|(_, until)| now < *until).map(|(credential, _)| credential.clone())
    }
}

/// The team's credential for one batch: the cached one while it is fresh, else resolved (and
/// cached when it may be reused).
pub async fn resolve_cached(cache: &Cache, sql: &SqlStorage, config: &Config, now: i64) -> worker::Result<Rc<Credential>> {
    if let Some(credential) = cache.get(now) {
        return Ok(credential);
    }
    let (credential, reusable_until) = resolve(sql, config, now).await?;
    let credential = Rc::new(credential);
    *cache.0.borrow_mut() = reusable_until.map(|until| (credential.clone(), until.min(now + CACHE_MS)));
    Ok(credential)
}

/// What deliveries of Slack Web API calls can use right now.
#[derive(Debug, Clone)]
pub enum Credential {
    /// A bot token.
    Token(String),
    /// No way to call Slack: every Slack call is judged with this verdict (park or retry).
    Unusable(Verdict),
}

/// Resolves the team's credential for one batch, with the time until which it may be reused
/// (`None`: not at all, e.g. a fallback while a refresh failed).
async fn resolve(sql: &SqlStorage, config: &Config, now: i64) -> worker::Result<(Credential, Option<i64>)> {
    let settled = Some(now + CACHE_MS);
    if installation::uninstalled(sql)? {
        return Ok((Credential::Unusable(Verdict::Permanent { code: reasons::UNINSTALLED.into() }), settled));
    }
    let Some(stored) = installation::installation(sql)? else {
        let credential = match &config.bot_token {
            Some(token) => Credential::Token(token.expose().to_string()),
            None => Credential::Unusable(Verdict::Permanent { code: reasons::NOT_INSTALLED.into() }),
        };
        return Ok((credential, settled));
    };
    let bot_token = match config.cipher.open(&stored.bot_token) {
        Ok(token) => token,
        Err(_) => return Ok((Credential::Unusable(Verdict::Permanent { code: "token_unreadable".into() }), settled)),
    };
    let refresh_token = stored.refresh_token.as_deref().and_then(|r| config.cipher.open(r).ok());
    if refresh_token.is_none() {
        return Ok((Credential::Token(bot_token), settled));
    }
    if !refresh_due(stored.token_expires_at, now) {
        return Ok((Credential::Token(bot_token), refresh_due_at(stored.token_expires_at).or(settled)));
    }
    let current = Current { bot_token, refresh_token, expires_at: stored.token_expires_at };
    refresh(sql, config, &current, now).await
}

/// The token pair in use, opened.
struct Current {
    bot_token: String,
    refresh_token: Option<String>,
    expires_at: Option<i64>,
}

/// Refreshes (single-flight) or, when that is not possible now, falls back to the current token
/// while it is still valid.
async fn refresh(sql: &SqlStorage, config: &Config, current: &Current, now: i64) -> worker::Result<(Credential, Option<i64>)> {
    let still_valid = current.expires_at.is_some_and(|at| at > now);
    let fallback = |verdict: Verdict| if still_valid { Credential::Token(current.bot_token.clone()) } else { Credential::Unusable(verdict) };
    let (Some(client_id), Some(client_secret), Some(refresh_token)) = (&config.client_id, &config.client_secret, &current.refresh_token) else {
        return Ok((fallback(Verdict::Permanent { code: reasons::NOT_CONFIGURED.into() }), None));
    };
    if !installation::begin_refresh(sql, now, now + REFRESH_SLOT_MS)? {
        return Ok((fallback(Verdict::Transient { code: "token_refreshing".into(), retry_after_ms: Some(1_000) }), None));
    }
    let fields = [
        ("client_id", client_id.as_str()),
        ("client_secret", client_secret.expose()),
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh_token.as_str()),
    ];
    let answer = http::post_form(&config.slack_method_url(method::OAUTH_V2_ACCESS), &fields, config.attempt_timeout_ms).await;
    let parsed = match &answer {
        Ok(a) if (200..300).contains(&a.status) => parse_refresh(&a.json, now).map_err(|e| match e {
            AccessError::Slack(code) => Verdict::Permanent { code },
            AccessError::Missing(_) => Verdict::transient("bad_response"),
        }),
        Ok(a) => Err(Verdict::transient(format!("http_{}", a.status))),
        Err(_) => Err(Verdict::transient("token_refresh_failed")),
    };
    match parsed {
        Ok((bot, refresh, expires_at)) => {
            let (bot_sealed, refresh_sealed) =
                (config.cipher.seal(&bot, crate::platform::clock::random_bytes()), config.cipher.seal(&refresh, crate::platform::clock::random_bytes()));
            installation::store_refresh(sql, bot_sealed, refresh_sealed, expires_at, now)?;
            crate::platform::log::emit(TokenRefreshedLine { expires_at });
            Ok((Credential::Token(bot), refresh_due_at(Some(expires_at))))
        }
        Err(verdict) => {
            installation::end_refresh(sql)?;
            crate::platform::log::error(TokenRefreshFailedLine { verdict: format!("{verdict:?}") });
            Ok((fallback(verdict), None))
        }
    }
}
