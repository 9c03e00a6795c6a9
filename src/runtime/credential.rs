//! The bot token for a delivery, resolved at delivery time (never before the ack): the team's
//! stored installation (refreshed first when it rotates and is close to expiry), else
//! `SLACK_BOT_TOKEN`, else none.
//!
//! Refresh is single-flight per team: a slot in the installation row (`refreshing_until`) is taken
//! with one UPDATE; only its holder calls `oauth.v2.access`, and the new pair is stored before it is
//! used. A sweep resolves the token once per batch, so many rows due at once cause one refresh.

use super::http;
use super::store;
use crate::config::Config;
use crate::logs::{TokenRefreshFailedLine, TokenRefreshedLine};
use crate::oauth::{parse_refresh, refresh_due, AccessError};
use crate::outbox::reasons;
use crate::slack::classify::Verdict;
use worker::SqlStorage;

/// How long the refresh slot is held at most: 30 s.
const REFRESH_SLOT_MS: i64 = 30_000;

/// What deliveries of Slack Web API calls can use right now.
#[derive(Debug, Clone)]
pub enum Credential {
    /// A bot token.
    Token(String),
    /// No way to call Slack: every Slack call is judged with this verdict (park or retry).
    Unusable(Verdict),
}

/// Resolves the team's credential for one batch.
pub async fn resolve(sql: &SqlStorage, config: &Config, now: i64) -> worker::Result<Credential> {
    if store::uninstalled(sql)? {
        return Ok(Credential::Unusable(Verdict::Permanent { code: reasons::UNINSTALLED.into() }));
    }
    let Some(stored) = store::installation(sql)? else {
        return Ok(match &config.bot_token {
            Some(token) => Credential::Token(token.expose().to_string()),
            None => Credential::Unusable(Verdict::Permanent { code: reasons::NOT_INSTALLED.into() }),
        });
    };
    let bot_token = match config.cipher.open(&stored.bot_token) {
        Ok(token) => token,
        Err(_) => return Ok(Credential::Unusable(Verdict::Permanent { code: "token_unreadable".into() })),
    };
    let refresh_token = stored.refresh_token.as_deref().and_then(|r| config.cipher.open(r).ok());
    if refresh_token.is_none() || !refresh_due(stored.token_expires_at, now) {
        return Ok(Credential::Token(bot_token));
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
async fn refresh(sql: &SqlStorage, config: &Config, current: &Current, now: i64) -> worker::Result<Credential> {
    let still_valid = current.expires_at.is_some_and(|at| at > now);
    let fallback = |verdict: Verdict| if still_valid { Credential::Token(current.bot_token.clone()) } else { Credential::Unusable(verdict) };
    let (Some(client_id), Some(client_secret), Some(refresh_token)) = (&config.client_id, &config.client_secret, &current.refresh_token) else {
        return Ok(fallback(Verdict::Permanent { code: reasons::NOT_CONFIGURED.into() }));
    };
    if !store::begin_refresh(sql, now, now + REFRESH_SLOT_MS)? {
        return Ok(fallback(Verdict::Transient { code: "token_refreshing".into(), retry_after_ms: Some(1_000), hold_target: false }));
    }
    let fields = [
        ("client_id", client_id.as_str()),
        ("client_secret", client_secret.expose()),
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh_token.as_str()),
    ];
    let answer = http::post_form(&config.slack_method_url("oauth.v2.access"), &fields, config.attempt_timeout_ms).await;
    let parsed = match &answer {
        Ok(a) if (200..300).contains(&a.status) => parse_refresh(&a.json, now).map_err(|e| match e {
            AccessError::Slack(code) => Verdict::Permanent { code },
            AccessError::Missing(_) => Verdict::Transient { code: "bad_response".into(), retry_after_ms: None, hold_target: false },
        }),
        Ok(a) => Err(Verdict::Transient { code: format!("http_{}", a.status), retry_after_ms: None, hold_target: false }),
        Err(_) => Err(Verdict::Transient { code: "token_refresh_failed".into(), retry_after_ms: None, hold_target: false }),
    };
    match parsed {
        Ok((bot, refresh, expires_at)) => {
            let (bot_sealed, refresh_sealed) = (config.cipher.seal(&bot, super::clock::random_bytes()), config.cipher.seal(&refresh, super::clock::random_bytes()));
            store::store_refresh(sql, bot_sealed, refresh_sealed, expires_at, now)?;
            super::log::emit(TokenRefreshedLine { expires_at });
            Ok(Credential::Token(bot))
        }
        Err(verdict) => {
            store::end_refresh(sql)?;
            super::log::error(TokenRefreshFailedLine { verdict: format!("{verdict:?}") });
            Ok(fallback(verdict))
        }
    }
}
