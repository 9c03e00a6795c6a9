//! The install flow's adapter: `GET /slack/install` and `GET /slack/oauth_redirect`.
//!
//! Install: a random nonce, a signed `state` carrying it (10 minutes), the nonce in a cookie
//! (Secure, HttpOnly, SameSite=Lax), and a redirect to Slack's authorize page.
//! Redirect: the state checked against the cookie, consumed once (in the directory), the code
//! exchanged with `oauth.v2.access` at `SLACK_API_URL`, `auth.test` for the bot id, and the
//! installation stored in the team actor of its team key. Every failure answers a small HTML page
//! that says what went wrong, and stores nothing.

use super::{directory, header, html_page, query_param, team};
use crate::config::Config;
use crate::logs::{InstallLine, InstallOutcome};
use crate::oauth::{self, Installation, StateError, STATE_COOKIE, STATE_TTL_MS};
use crate::platform::{clock, http, log};
use crate::slack::method;
use serde_json::{json, Value};
use worker::{Env, Headers, Method, Request, Response};

fn html(status: u16, title: &str, message: &str) -> worker::Result<Response> {
    html_page(status, &oauth::page(title, message))
}

fn redirect_uri(req: &Request, config: &Config) -> worker::Result<String> {
    if let Some(uri) = &config.redirect_uri {
        return Ok(uri.clone());
    }
    let url = req.inner().url();
    let origin = crate::url_parts::origin(&url).ok_or_else(|| worker::Error::RustError(format!("not an absolute URL: {url}")))?;
    Ok(format!("{origin}/slack/oauth_redirect"))
}

/// `GET /slack/install`.
pub fn install(req: &Request, config: &Config, now: i64) -> worker::Result<Response> {
    let (Some(client_id), Some(secret)) = (&config.client_id, &config.client_secret) else {
        return html(500, "Install is not configured", "This app has no SLACK_CLIENT_ID / SLACK_CLIENT_SECRET yet.");
    };
    let nonce = clock::random_hex();
    let state = oauth::issue_state(secret.expose(), &nonce, now);
    let location = oauth::authorize_url(&config.authorize_url, client_id, &config.bot_scopes, &redirect_uri(req, config)?, &state);
    let headers = Headers::new();
    headers.set("location", &location)?;
    headers.set("set-cookie", &format!("{STATE_COOKIE}={nonce}; Max-Age={}; Path=/slack/; Secure; HttpOnly; SameSite=Lax", STATE_TTL_MS / 1000))?;
    headers.set("cache-control", "no-store")?;
    Ok(Response::empty()?.with_status(302).with_headers(headers))
}

/// `GET /slack/oauth_redirect`.
pub async fn redirect(req: &Request, env: &Env, config: &Config, now: i64) -> worker::Result<Response> {
    if let Some(error) = query_param(req, "error") {
        log::emit(InstallLine { error: Some(error.clone()), ..InstallLine::of(InstallOutcome::Denied) });
        return html(400, "Installation cancelled", &format!("Slack reported: {error}. Nothing was installed."));
    }
    let (Some(client_id), Some(secret)) = (&config.client_id, &config.client_secret) else {
        return html(500, "Install is not configured", "This app has no SLACK_CLIENT_ID / SLACK_CLIENT_SECRET yet.");
    };
    let cookie_header = header(req, "cookie");
    let nonce = match oauth::check_state(secret.expose(), query_param(req, "state").as_deref(), oauth::cookie(cookie_header.as_deref(), STATE_COOKIE), now) {
        Ok(nonce) => nonce,
        Err(e) => return refuse(e),
    };
    if !consume_once(env, &nonce, now + STATE_TTL_MS).await? {
        log::emit(InstallLine { reason: Some("state_reused".into()), ..InstallLine::of(InstallOutcome::Refused) });
        return html(400, "Install link already used", "This install link was already used. Start again from the install page.");
    }
    let Some(code) = query_param(req, "code") else {
        return html(400, "Installation failed", "Slack sent no authorization code. Start again from the install page.");
    };
    let fields =
        [("client_id", client_id.as_str()), ("client_secret", secret.expose()), ("code", code.as_str()), ("redirect_uri", &redirect_uri(req, config)?)];
    let answer = http::post_form(&config.slack_method_url(method::OAUTH_V2_ACCESS), &fields, config.attempt_timeout_ms).await;
    let mut installation = match answer.as_ref().map(|a| oauth::parse_access(&a.json, now)) {
        Ok(Ok(installation)) => installation,
        Ok(Err(e)) => return exchange_failed(&format!("{e:?}")),
        Err(e) => return exchange_failed(&format!("{e:?}")),
    };
    installation.bot_id = bot_id(config, &installation.bot_token).await;
    store(env, &installation).await?;
    let name = installation.team_name.clone().or(installation.enterprise_name.clone()).unwrap_or_else(|| "your workspace".into());
    log::emit(InstallLine {
        team: installation.team_key().map(str::to_string),
        rotating: Some(installation.refresh_token.is_some()),
        ..InstallLine::of(InstallOutcome::Installed)
    });
    let mut response = html(200, "Installed", &format!("slackline is installed in {name}. You can close this page."))?;
    response.headers_mut().set("set-cookie", &format!("{STATE_COOKIE}=; Max-Age=0; Path=/slack/; Secure; HttpOnly; SameSite=Lax"))?;
    Ok(response)
}

fn refuse(e: StateError) -> worker::Result<Response> {
    log::emit(InstallLine { reason: Some(format!("{e:?}")), ..InstallLine::of(InstallOutcome::Refused) });
    html(400, "Installation failed", e.explain())
}

fn exchange_failed(detail: &str) -> worker::Result<Response> {
    log::error(InstallLine { detail: Some(detail.to_string()), ..InstallLine::of(InstallOutcome::ExchangeFailed) });
    html(502, "Installation failed", "Slack did not accept the installation (the code exchange failed). Start again from the install page.")
}

/// Records the state's nonce as used; false when it already was.
async fn consume_once(env: &Env, nonce: &str, expires_at: i64) -> worker::Result<bool> {
    let answer = directory::call(env, Method::Post, "/states/consume", Some(json!({"nonce": nonce, "expires_at": expires_at}))).await?;
    let body: Value = super::response_json(answer).await?;
    Ok(body["fresh"] == json!(true))
}

/// The bot id, from `auth.test` (the exchange does not return it); absent if that call fails.
async fn bot_id(config: &Config, token: &str) -> Option<String> {
    let answer = http::post_json(&config.slack_method_url(method::AUTH_TEST), Some(token), &json!({}), config.attempt_timeout_ms).await.ok()?;
    answer.json.get("bot_id").and_then(Value::as_str).map(str::to_string)
}

/// Stores the installation in its team actor, then notes it in the directory.
async fn store(env: &Env, installation: &Installation) -> worker::Result<()> {
    let key = installation.team_key().ok_or_else(|| worker::Error::RustError("installation without a team key".into()))?;
    let answer = team::call(env, key, Method::Post, "/installation", Some(serde_json::to_string(installation)?), None).await?;
    if answer.status_code() != 200 {
        return Err(worker::Error::RustError(format!("team actor answered {}", answer.status_code())));
    }
    let note = json!({
        "team_key": key, "team_name": installation.team_name, "enterprise_name": installation.enterprise_name,
        "is_enterprise_install": installation.is_enterprise_install,
    });
    directory::note(env, "/installed", note).await;
    Ok(())
}
