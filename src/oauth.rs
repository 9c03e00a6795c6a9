//! The OAuth v2 install flow, pure: the signed `state`, the authorize URL, the parsing of
//! `oauth.v2.access` answers into an [`Installation`], the refresh rule, and the small HTML pages.
//!
//! The `state` is `{nonce}.{expires_ms}.{mac}` with `mac` = hex(HMAC-SHA256(client secret,
//! `slackline-oauth-state:{nonce}.{expires_ms}`)). It is bound to the browser by a cookie holding
//! the same nonce, expires after [`STATE_TTL_MS`], and is single-use (the adapter records consumed
//! nonces). A state that fails any check stores nothing.

use crate::html::escape;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::Sha256;

/// How long an install link stays valid: 10 minutes.
pub const STATE_TTL_MS: i64 = 10 * 60 * 1000;
/// Refresh a rotating token when it has less than this left: 2 hours (Slack's tokens last 12).
pub const REFRESH_MARGIN_MS: i64 = 2 * 60 * 60 * 1000;
/// The cookie that binds a state to the browser that started the install.
pub const STATE_COOKIE: &str = "slackline_oauth_state";
/// Default bot scopes (`SLACK_BOT_SCOPES`). The `*:history` scopes let a post whose previous
/// attempt's outcome is unknown be read back before it is sent again (`crate::kinds::post`):
/// without them that read is refused (`missing_scope`) and the post is sent anyway.
/// `assistant:write` is an agent's (`agent_view`): the Messages tab's prompts, a thread's status.
pub const DEFAULT_BOT_SCOPES: &str =
    "app_mentions:read,chat:write,im:history,commands,lists:read,lists:write,channels:history,groups:history,mpim:history,assistant:write";
/// The bot scopes a Slack app manifest asks for (`oauth_config.scopes.bot`), comma-separated as
/// the authorize URL takes them. Refused, in words: a manifest that is not JSON, or that asks for
/// no bot scope (an install would then get a token that can do nothing).
pub fn manifest_bot_scopes(manifest: &str) -> Result<String, String> {
    let manifest: serde_json::Value = serde_json::from_str(manifest).map_err(|e| format!("it is not JSON ({e})"))?;
    let scopes = manifest.pointer("/oauth_config/scopes/bot").and_then(serde_json::Value::as_array).ok_or("it has no oauth_config.scopes.bot list")?;
    let scopes: Vec<&str> = scopes
        .iter()
        .map(|s| s.as_str().filter(|s| !s.is_empty()).ok_or("oauth_config.scopes.bot holds something that is not a scope name"))
        .collect::<Result<_, _>>()?;
    match scopes.is_empty() {
        true => Err("its oauth_config.scopes.bot list is empty".into()),
        false => Ok(scopes.join(",")),
    }
}

/// Slack's authorize page (`SLACK_AUTHORIZE_URL` overrides it).
pub const DEFAULT_AUTHORIZE_URL: &str = "https://slack.com/oauth/v2/authorize";

/// Why a returning `state` was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateError {
    /// No `state`, or not in our format.
    Malformed,
    /// The MAC does not match: forged or altered.
    Tampered,
    /// Older than [`STATE_TTL_MS`].
    Expired,
    /// The browser has no cookie, or a cookie for another install.
    NotThisBrowser,
}

impl StateError {
    /// What the error page says.
    pub fn explain(self) -> &'static str {
        match self {
            StateError::Malformed | StateError::Tampered => "The install link was not valid. Start again from the install page.",
            StateError::Expired => "The install link expired (links last 10 minutes). Start again from the install page.",
            StateError::NotThisBrowser => {
                "This install was started in another browser (or cookies are blocked). Start again from the install page in this browser."
            }
        }
    }
}

fn state_mac(secret: &str, nonce: &str, expires_ms: i64) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC accepts keys of any length");
    mac.update(format!("slackline-oauth-state:{nonce}.{expires_ms}").as_bytes());
    mac
}

/// A new `state` for `nonce` (random hex from the adapter), valid for [`STATE_TTL_MS`].
pub fn issue_state(secret: &str, nonce: &str, now_ms: i64) -> String {
    let expires = now_ms + STATE_TTL_MS;
    let mac = hex::encode(state_mac(secret, nonce, expires).finalize().into_bytes());
    format!("{nonce}.{expires}.{mac}")
}

/// Checks a returning `state` against the browser's cookie; returns its nonce (to consume once).
pub fn check_state(secret: &str, state: Option<&str>, cookie_nonce: Option<&str>, now_ms: i64) -> Result<String, StateError> {
    let mut parts = state.ok_or(StateError::Malformed)?.split('.');
    let (Some(nonce), Some(expires), Some(mac), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return Err(StateError::Malformed);
    };
    let expires: i64 = expires.parse().map_err(|_| StateError::Malformed)?;
    let mac = hex::decode(mac).map_err(|_| StateError::Malformed)?;
    state_mac(secret, nonce, expires).verify_slice(&mac).map_err(|_| StateError::Tampered)?;
    if now_ms > expires {
        return Err(StateError::Expired);
    }
    match cookie_nonce {
        Some(c) if c == nonce => Ok(nonce.to_string()),
        _ => Err(StateError::NotThisBrowser),
    }
}

/// The value of one cookie from a `Cookie` header.
pub fn cookie<'a>(header: Option<&'a str>, name: &str) -> Option<&'a str> {
    header?.split(';').filter_map(|kv| kv.trim().split_once('=')).find(|(k, _)| *k == name).map(|(_, v)| v)
}

/// Slack's authorize URL for this install.
pub fn authorize_url(base: &str, client_id: &str, scopes: &str, redirect_uri: &str, state: &str) -> String {
    let query = form_urlencoded::Serializer::new(String::new())
        .append_pair("client_id", client_id)
        .append_pair("scope", scopes)
        .append_pair("user_scope", "")
        .append_pair("redirect_uri", redirect_uri)
        .append_pair("state", state)
        .finish();
    format!("{base}?{query}")
}

/// One installation of the app: a workspace, or an organization for an org-wide install.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Installation {
    /// The workspace (absent for some org-wide installs).
    pub team_id: Option<String>,
    /// Its name.
    pub team_name: Option<String>,
    /// The organization, for Enterprise Grid.
    pub enterprise_id: Option<String>,
    /// Its name.
    pub enterprise_name: Option<String>,
    /// True for an org-wide install (keyed by the enterprise id).
    pub is_enterprise_install: bool,
    /// The app.
    pub app_id: Option<String>,
    /// The bot's user id.
    pub bot_user_id: Option<String>,
    /// The bot id (from `auth.test`; `oauth.v2.access` does not return it).
    pub bot_id: Option<String>,
    /// Granted bot scopes, comma-separated.
    pub bot_scopes: String,
    /// Who installed it.
    pub installer_user_id: Option<String>,
    /// The bot token (`xoxb-` or, with rotation, `xoxe.xoxb-`).
    pub bot_token: String,
    /// With token rotation: the refresh token.
    pub refresh_token: Option<String>,
    /// With token rotation: when the bot token expires (epoch ms).
    pub token_expires_at: Option<i64>,
}

/// An installation as stored: tokens still sealed. Serialized (for the admin API) without them.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct StoredInstallation {
    /// Workspace id.
    pub team_id: Option<String>,
    /// Workspace name.
    pub team_name: Option<String>,
    /// Organization id.
    pub enterprise_id: Option<String>,
    /// Organization name.
    pub enterprise_name: Option<String>,
    /// 1 for an org-wide install.
    pub is_enterprise_install: i64,
    /// App id.
    pub app_id: Option<String>,
    /// Bot user id.
    pub bot_user_id: Option<String>,
    /// Bot id.
    pub bot_id: Option<String>,
    /// Granted scopes.
    pub bot_scopes: String,
    /// Installer.
    pub installer_user_id: Option<String>,
    /// Sealed bot token.
    #[serde(skip_serializing, default)]
    pub bot_token: String,
    /// Sealed refresh token.
    #[serde(skip_serializing, default)]
    pub refresh_token: Option<String>,
    /// Token expiry (rotation).
    pub token_expires_at: Option<i64>,
    /// First stored.
    pub installed_at: i64,
    /// Last changed.
    pub updated_at: i64,
}

impl Installation {
    /// The actor name for this installation: the enterprise id for an org-wide install.
    pub fn team_key(&self) -> Option<&str> {
        if self.is_enterprise_install {
            self.enterprise_id.as_deref()
        } else {
            self.team_id.as_deref()
        }
    }
}

/// Whether a rotating token expiring at `expires_at` is within [`REFRESH_MARGIN_MS`] of expiry.
pub fn refresh_due(expires_at: Option<i64>, now_ms: i64) -> bool {
    expires_at.is_some_and(|at| at - now_ms < REFRESH_MARGIN_MS)
}

/// When a rotating token expiring at `expires_at` becomes due for refresh ([`refresh_due`]).
pub fn refresh_due_at(expires_at: Option<i64>) -> Option<i64> {
    expires_at.map(|at| at - REFRESH_MARGIN_MS)
}

/// Why an `oauth.v2.access` answer is not an installation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccessError {
    /// `ok: false` with this error (e.g. `invalid_code`, `invalid_refresh_token`).
    Slack(String),
    /// A field we need is missing.
    Missing(&'static str),
}

fn s(v: &Value, pointer: &str) -> Option<String> {
    v.pointer(pointer).and_then(Value::as_str).filter(|x| !x.is_empty()).map(str::to_string)
}

fn slack_ok(v: &Value) -> Result<(), AccessError> {
    if v.get("ok").and_then(Value::as_bool) == Some(true) {
        Ok(())
    } else {
        Err(AccessError::Slack(s(v, "/error").unwrap_or_else(|| "bad_response".into())))
    }
}

/// Parses the answer to the code exchange.
pub fn parse_access(v: &Value, now_ms: i64) -> Result<Installation, AccessError> {
    slack_ok(v)?;
    let installation = Installation {
        team_id: s(v, "/team/id"),
        team_name: s(v, "/team/name"),
        enterprise_id: s(v, "/enterprise/id"),
        enterprise_name: s(v, "/enterprise/name"),
        is_enterprise_install: v.get("is_enterprise_install").and_then(Value::as_bool).unwrap_or(false),
        app_id: s(v, "/app_id"),
        bot_user_id: s(v, "/bot_user_id"),
        bot_id: None,
        bot_scopes: s(v, "/scope").unwrap_or_default(),
        installer_user_id: s(v, "/authed_user/id"),
        bot_token: s(v, "/access_token").ok_or(AccessError::Missing("access_token"))?,
        refresh_token: s(v, "/refresh_token"),
        token_expires_at: v.get("expires_in").and_then(Value::as_i64).map(|secs| now_ms + secs * 1000),
    };
    installation.team_key().ok_or(AccessError::Missing("team.id or enterprise.id"))?;
    Ok(installation)
}

/// A refreshed token: (access token, refresh token, expires at).
pub fn parse_refresh(v: &Value, now_ms: i64) -> Result<(String, String, i64), AccessError> {
    slack_ok(v)?;
    Ok((
        s(v, "/access_token").ok_or(AccessError::Missing("access_token"))?,
        s(v, "/refresh_token").ok_or(AccessError::Missing("refresh_token"))?,
        now_ms + v.get("expires_in").and_then(Value::as_i64).ok_or(AccessError::Missing("expires_in"))? * 1000,
    ))
}

/// A small, self-contained HTML page (title and one paragraph, both escaped).
pub fn page(title: &str, message: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\
<title>{t}</title><style>body{{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1d1c1d}}</style>\
</head><body><h1>{t}</h1><p>{m}</p></body></html>",
        t = escape(title),
        m = escape(message)
    )
}

#[cfg(test)]
mod tests;
