//! One typed [`Config`], built from the Worker's environment once per isolate (`runtime::env`
//! caches it: an isolate's bindings never change). The runtime
//! adapter (`runtime::env`) is the only code that reads `Env`; it hands a [`Vars`] reader (a
//! lookup by name) to [`Config::from_vars`], which is pure and tested here. An app reads its own
//! settings from the same reader, once, when it is built ([`crate::app::MakeApp`]).
//!
//! A malformed value (a number that is not one, a URL without a scheme) is an error naming the
//! variable: the Worker then refuses every route with 500 and logs that line, rather than run
//! with a half-understood configuration. A missing `SLACK_SIGNING_SECRET` is not an error here:
//! the Slack routes refuse (500, one clear log line) while `/healthz` reports it.

use crate::crypto::TokenCipher;
use crate::oauth::{DEFAULT_AUTHORIZE_URL, DEFAULT_BOT_SCOPES};
use crate::outbox::retry::{RetryPolicy, DEFAULT_MAX_ATTEMPTS, DEFAULT_SCHEDULE_MS};
use crate::slack::signature::SigningSecret;
use crate::slack::tiers::RateLimits;

/// How long a Workflow step may take before its guard fails it (`STEP_DEADLINE_MS`): 15 minutes
/// (`crate::kinds::step`).
pub const DEFAULT_STEP_DEADLINE_MS: i64 = 15 * 60 * 1000;

/// Default Slack Web API base URL (`SLACK_API_URL`).
pub const DEFAULT_SLACK_API_URL: &str = "https://slack.com/api";
/// How long the front door waits for the team actor before answering 500 (`ACK_BUDGET_MS`): 2 s,
/// inside Slack's 3 s.
pub const DEFAULT_ACK_BUDGET_MS: i64 = 2_000;
/// A streamed answer's message rolls over to a new one after this long (`STREAM_ROLLOVER_MS`):
/// 4.5 minutes, before Slack's own ~5-minute limit closes the stream.
pub const DEFAULT_STREAM_ROLLOVER_MS: i64 = 270_000;
/// A claim's lease (`LEASE_MS`): 60 s. After it, another sweep may claim the row again.
pub const DEFAULT_LEASE_MS: i64 = 60_000;
/// One delivery attempt's timeout (`ATTEMPT_TIMEOUT_MS`): 15 s, well under the lease.
pub const DEFAULT_ATTEMPT_TIMEOUT_MS: i64 = 15_000;
/// Rows claimed per batch (`BATCH_SIZE`): 10.
pub const DEFAULT_BATCH_SIZE: i64 = 10;
/// Rows performed at once within a batch (`DELIVERY_CONCURRENCY`): 5 (Workers allow 6 open
/// connections per invocation).
pub const DEFAULT_DELIVERY_CONCURRENCY: i64 = 5;
/// The most attempts a sweep may run at once (`DELIVERY_CONCURRENCY` is refused above it): a new
/// actor instance relies on it to tell a dead instance's rows that may be at Slack from those that
/// never left (`sql::outbox::UNTOUCHED_DEAD_CLAIMS`).
pub const MAX_DELIVERY_CONCURRENCY: i64 = 6;
/// Wall time after which a sweep stops claiming and re-arms (`SWEEP_BUDGET_MS`): 20 s.
pub const DEFAULT_SWEEP_BUDGET_MS: i64 = 20_000;
/// Receipts are kept this long (`RECEIPT_RETENTION_HOURS`): 24 h, far beyond Slack's retries.
pub const DEFAULT_RECEIPT_RETENTION_HOURS: i64 = 24;
/// Delivered rows are kept this long (`DONE_RETENTION_HOURS`): 24 h. Parked rows are never pruned.
pub const DEFAULT_DONE_RETENTION_HOURS: i64 = 24;
/// Rows deleted per table per sweep by housekeeping: 10,000 (a prune bucket's worth at
/// about 3 events a second; more take another sweep a minute later).
pub const PRUNE_BATCH: i64 = 10_000;
/// Housekeeping waits until receipts and delivered rows have been past their retention this
/// long (1 h), so that one prune (one scan: no index orders them by age, `sql::lean`) deletes
/// an hour's worth; they are kept between their retention and an hour more.
pub const PRUNE_BUCKET_MS: i64 = 3_600_000;
/// The largest body the front door reads: 1 MiB (larger → 413, before any hashing).
pub const MAX_BODY_BYTES: usize = 1024 * 1024;
/// A sweep line carries `alert: pending_too_old` when the oldest pending row is older than this
/// (`ALERT_PENDING_AGE_MS`): 10 minutes.
pub const DEFAULT_ALERT_PENDING_AGE_MS: i64 = 10 * 60 * 1000;
/// A delivery line carries `alert: target_failing` after this many failures in a row of one Slack
/// method or endpoint (`ALERT_FAILURE_STREAK`), and again after each further multiple: 5.
pub const DEFAULT_ALERT_FAILURE_STREAK: i64 = 5;
/// Bulk redrive spreads rows this far apart (`REDRIVE_SPACING_MS`): 100 ms, at most 10 per second.
pub const DEFAULT_REDRIVE_SPACING_MS: i64 = 100;
/// The most rows one bulk redrive request moves: 500.
pub const BULK_REDRIVE_CAP: i64 = 500;
/// How often each List is reconciled (`LISTS_RECONCILE_MINUTES`): 60 minutes.
pub const DEFAULT_LISTS_RECONCILE_MINUTES: i64 = 60;
/// The least time between two Slack calls for one List (`LISTS_PACE_MS`): 1.2 s, i.e. 50 a minute,
/// Slack's Tier 3 for `slackLists.items.create`.
pub const DEFAULT_LISTS_PACE_MS: i64 = 1_200;
/// Rows asked for per `slackLists.items.list` page (`LISTS_PAGE_SIZE`): 100.
pub const DEFAULT_LISTS_PAGE_SIZE: i64 = 100;
/// Messages asked for per read-back page (`READBACK_PAGE_SIZE`): 100. Slack's 2025 limit for
/// commercially distributed non-Marketplace apps answers at most 15 (`crate::kinds::post`).
pub const DEFAULT_READBACK_PAGE_SIZE: i64 = 100;
/// Pages one read-back may take before it falls back to sending (`READBACK_MAX_PAGES`): 5.
pub const DEFAULT_READBACK_MAX_PAGES: i64 = 5;
/// How long a post whose outcome is unknown may wait for the read budget, from when its outcome
/// became unknown, before it falls back to sending (`READBACK_MAX_WAIT_MS`; never past the row's
/// deadline): 10 minutes.
pub const DEFAULT_READBACK_MAX_WAIT_MS: i64 = 600_000;
/// How long the notify API keeps an `Idempotency-Key` and its answer (`IDEMPOTENCY_TTL_HOURS`):
/// 24 h.
pub const DEFAULT_IDEMPOTENCY_TTL_HOURS: i64 = 24;
/// Default model name for the LLM endpoint (`LLM_MODEL`).
pub const DEFAULT_LLM_MODEL: &str = "gpt-4o-mini";

/// How a post whose previous attempt's outcome is unknown is read back (`crate::kinds::post`);
/// its reads per minute are `SLACK_RATE_LIMITS`' (`conversations.history`, `conversations.replies`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadBackConfig {
    /// Messages per page (`READBACK_PAGE_SIZE`, 1 to 999).
    pub page_size: u32,
    /// Pages per read (`READBACK_MAX_PAGES`, 1 to 100).
    pub max_pages: u32,
    /// The longest wait for the read budget (`READBACK_MAX_WAIT_MS`).
    pub max_wait_ms: i64,
}

/// Which delivery attempts print a `kind: delivery` line (`LOG_DELIVERIES`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogDeliveries {
    /// Every attempt, successes included (`all`).
    All,
    /// Only attempts that did not succeed: retries, 429s, parks, fenced completions (`failures`,
    /// the default: a success, or a row kept back for its rate budget, is already counted by its
    /// sweep's line).
    Failures,
}

impl LogDeliveries {
    /// Whether an attempt that ended with `outcome` prints its line.
    pub fn prints(self, outcome: crate::outbox::Outcome) -> bool {
        use crate::outbox::Outcome;
        self == LogDeliveries::All || !matches!(outcome, Outcome::Success | Outcome::Paced)
    }

    /// Whether an attempt of a scheduled row that ended with `outcome` prints its line: a success
    /// too (how late it fired is the line's point, and firings are few), a paced one only with `all`.
    pub fn prints_scheduled(self, outcome: crate::outbox::Outcome) -> bool {
        self.prints(outcome) || outcome == crate::outbox::Outcome::Success
    }
}

/// A secret value: never shown by `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// A secret from configuration; `None` when missing or blank.
    pub fn parse(raw: Option<String>) -> Option<Secret> {
        raw.map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).map(Secret)
    }

    /// The value, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether `given` equals the secret, in time that does not depend on where they differ (both
    /// are hashed first, so the length is not revealed either).
    pub fn matches(&self, given: &str) -> bool {
        use sha2::{Digest, Sha256};
        let (a, b) = (Sha256::digest(self.0.as_bytes()), Sha256::digest(given.as_bytes()));
        a.iter().zip(b.iter()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// An OpenAI-compatible chat-completions endpoint.
#[derive(Debug, Clone)]
pub struct LlmConfig {
    /// The full URL of `.../chat/completions` (`LLM_API_URL`).
    pub url: String,
    /// Sent as `Authorization: Bearer` when set (`LLM_API_KEY`).
    pub api_key: Option<Secret>,
    /// `LLM_MODEL`.
    pub model: String,
}

/// Every setting, typed.
#[derive(Debug, Clone)]
pub struct Config {
    /// `SLACK_SIGNING_SECRET`; `None` makes every Slack route refuse with 500.
    pub signing_secret: Option<SigningSecret>,
    /// `SLACK_API_URL`, without a trailing slash.
    pub slack_api_url: String,
    /// `SLACK_BOT_TOKEN`: the token for teams with no stored installation.
    pub bot_token: Option<Secret>,
    /// `ADMIN_TOKEN`: the admin API is off (404) without it.
    pub admin_token: Option<Secret>,
    /// `API_TOKEN`: the bearer of every `/api/…` route, which are off (404) without it.
    pub api_token: Option<Secret>,
    /// `IDEMPOTENCY_TTL_HOURS`, in ms.
    pub idempotency_ttl_ms: i64,
    /// `LISTS_RECONCILE_MINUTES`, in ms.
    pub lists_reconcile_ms: i64,
    /// `LISTS_PACE_MS`.
    pub lists_pace_ms: i64,
    /// `LISTS_PAGE_SIZE`.
    pub lists_page_size: i64,
    /// `SLACK_RATE_LIMITS`: the budgets Slack calls are paced by (Slack's tiers by default).
    pub rate_limits: RateLimits,
    /// `READBACK_PAGE_SIZE`, `READBACK_MAX_PAGES`, `READBACK_MAX_WAIT_MS`: a post's read-back.
    pub readback: ReadBackConfig,
    /// `SLACK_CLIENT_ID`: the OAuth app's client id.
    pub client_id: Option<String>,
    /// `SLACK_CLIENT_SECRET`: the OAuth app's secret (also the key that signs install states).
    pub client_secret: Option<Secret>,
    /// `SLACK_BOT_SCOPES`: the bot scopes the install link asks for (unset: the bot's manifest's,
    /// when its `worker!` names one, else [`DEFAULT_BOT_SCOPES`]).
    pub bot_scopes: String,
    /// `SLACK_REDIRECT_URI`: where Slack sends the browser back (default: this host's
    /// `/slack/oauth_redirect`).
    pub redirect_uri: Option<String>,
    /// `SLACK_AUTHORIZE_URL`: Slack's authorize page.
    pub authorize_url: String,
    /// `TOKEN_ENCRYPTION_KEY` and `TOKEN_ENCRYPTION_OLD_KEYS`: tokens at rest.
    pub cipher: TokenCipher,
    /// `ACK_BUDGET_MS`.
    pub ack_budget_ms: i64,
    /// `LEASE_MS`.
    pub lease_ms: i64,
    /// `STREAM_ROLLOVER_MS`.
    pub stream_rollover_ms: i64,
    /// `STEP_DEADLINE_MS`: how long a Workflow step may take before its guard fails it
    /// ([`DEFAULT_STEP_DEADLINE_MS`]).
    pub step_deadline_ms: i64,
    /// `ATTEMPT_TIMEOUT_MS`.
    pub attempt_timeout_ms: i64,
    /// `BATCH_SIZE`.
    pub batch_size: i64,
    /// `DELIVERY_CONCURRENCY`.
    pub delivery_concurrency: usize,
    /// `SWEEP_BUDGET_MS`.
    pub sweep_budget_ms: i64,
    /// `MAX_ATTEMPTS` and `RETRY_SCHEDULE_MS` (comma-separated milliseconds).
    pub retry: RetryPolicy,
    /// `RECEIPT_RETENTION_HOURS`, in ms.
    pub receipt_retention_ms: i64,
    /// `DONE_RETENTION_HOURS`, in ms.
    pub done_retention_ms: i64,
    /// Set when `LLM_API_URL` is.
    pub llm: Option<LlmConfig>,
    /// `ALERT_PENDING_AGE_MS`.
    pub alert_pending_age_ms: i64,
    /// `ALERT_FAILURE_STREAK`.
    pub alert_failure_streak: i64,
    /// `REDRIVE_SPACING_MS`.
    pub redrive_spacing_ms: i64,
    /// `LOG_DELIVERIES`: `failures` (default) or `all`.
    pub log_deliveries: LogDeliveries,
    /// `ALLOW_BENCH_SEED=1`: the admin API can bulk-insert synthetic receipts and delivered rows
    /// (`POST /admin/teams/{team}/seed`). For benchmarks only: a build without slackline's
    /// `testkit` feature (every production build) ignores it.
    pub allow_bench_seed: bool,
    /// `ALLOW_TEST_CLOCK=1`: the front door accepts `x-slackline-test-now` (epoch ms) as its clock,
    /// and `x-slackline-test-actor-delay-ms` to slow the team actor down (to exceed the ack budget).
    /// For end-to-end tests only: a build without slackline's `testkit` feature (every production
    /// build) ignores it, with a warning.
    pub allow_test_clock: bool,
    /// `TEST_PANIC_MARKER` (with `ALLOW_TEST_CLOCK=1` only): the app's handlers panic on any request
    /// whose payload contains this text, as a buggy handler would. For end-to-end tests only.
    pub test_panic_marker: Option<String>,
    /// `TEST_WIRE_NEXT=1` (with `ALLOW_TEST_CLOCK=1` only): this build plays the next release on
    /// the wire between the Worker and the actors (`runtime::next_release`), to test two releases
    /// side by side. For end-to-end tests only.
    pub test_wire_next: bool,
    /// Settings that are legal but risky, logged at start of each request that builds a config.
    pub warnings: Vec<String>,
}

/// A setting that could not be understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The variable's name.
    pub var: &'static str,
    /// What is wrong with it (never its value: it may be a secret).
    pub problem: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.var, self.problem)
    }
}

impl std::error::Error for ConfigError {}

/// The deployment's settings as text, by name: the vars of `wrangler.toml` `[vars]`, `.dev.vars`
/// and `wrangler secret`. [`Config`] is read from it, and so may an app be (the settings of its
/// own, such as a channel to post in: see [`crate::app::MakeApp`]). A value is trimmed; a blank
/// one is missing.
pub struct Vars<'a> {
    lookup: Box<Lookup<'a>>,
    /// The bot's Slack app manifest, when its `worker!` names one: where the bot scopes come
    /// from unless `SLACK_BOT_SCOPES` overrides them.
    manifest: Option<&'static str>,
}

/// A setting's raw value by name.
type Lookup<'a> = dyn Fn(&str) -> Option<String> + 'a;

impl<'a> Vars<'a> {
    /// Settings from a lookup (the Worker's `Env`, in `runtime::env`).
    pub fn new(lookup: impl Fn(&str) -> Option<String> + 'a) -> Vars<'a> {
        Vars { lookup: Box::new(lookup), manifest: None }
    }

    /// The same settings, with the bot's manifest (`worker!(app, manifest = "manifest.json")`).
    #[cfg(any(test, target_arch = "wasm32"))]
    pub(crate) fn with_manifest(mut self, manifest: Option<&'static str>) -> Vars<'a> {
        self.manifest = manifest;
        self
    }

    /// The bot scopes an install asks for: `SLACK_BOT_SCOPES` if set, else the manifest's
    /// `oauth_config.scopes.bot` (written once, where Slack reads them too), else the defaults.
    fn bot_scopes(&self) -> Result<String, ConfigError> {
        match (self.get("SLACK_BOT_SCOPES"), self.manifest) {
            (Some(scopes), _) => Ok(scopes),
            (None, Some(manifest)) => crate::oauth::manifest_bot_scopes(manifest)
                .map_err(|problem| ConfigError { var: "SLACK_BOT_SCOPES", problem: format!("is unset, and the bot's manifest gives none: {problem}") }),
            (None, None) => Ok(DEFAULT_BOT_SCOPES.into()),
        }
    }

    /// Settings from `(name, value)` pairs: an app's native tests.
    pub fn of(pairs: &[(&str, &str)]) -> Vars<'static> {
        let map: std::collections::HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Vars::new(move |name| map.get(name).cloned())
    }

    /// The value of `name`, trimmed; `None` when it is missing or blank.
    pub fn get(&self, name: &str) -> Option<String> {
        (self.lookup)(name).map(|v| v.trim().to_string()).filter(|v| !v.is_empty())
    }

    fn int(&self, var: &'static str, default: i64, min: i64, max: i64) -> Result<i64, ConfigError> {
        let Some(raw) = self.get(var) else { return Ok(default) };
        let value: i64 = raw.parse().map_err(|_| ConfigError { var, problem: "is not a whole number".into() })?;
        if !(min..=max).contains(&value) {
            return Err(ConfigError { var, problem: format!("must be between {min} and {max}") });
        }
        Ok(value)
    }

    fn url(&self, var: &'static str) -> Result<Option<String>, ConfigError> {
        let Some(raw) = self.get(var) else { return Ok(None) };
        if !(raw.starts_with("https://") || raw.starts_with("http://")) {
            return Err(ConfigError { var, problem: "must start with https:// or http://".into() });
        }
        Ok(Some(raw.trim_end_matches('/').to_string()))
    }

    fn schedule(&self) -> Result<Vec<i64>, ConfigError> {
        let var = "RETRY_SCHEDULE_MS";
        let Some(raw) = self.get(var) else { return Ok(DEFAULT_SCHEDULE_MS.to_vec()) };
        let steps: Result<Vec<i64>, _> = raw.split(',').map(|s| s.trim().parse::<i64>()).collect();
        match steps {
            Ok(steps) if !steps.is_empty() && steps.iter().all(|s| (1..=86_400_000).contains(s)) => Ok(steps),
            _ => Err(ConfigError { var, problem: "must be a comma-separated list of delays in ms (1..86400000)".into() }),
        }
    }
}

/// The test settings a production build (without the `testkit` feature) ignores, one warning each.
fn without_testkit(v: &Vars) -> Vec<String> {
    if cfg!(feature = "testkit") {
        return Vec::new();
    }
    ["ALLOW_TEST_CLOCK", "ALLOW_BENCH_SEED", "TEST_PANIC_MARKER", "TEST_WIRE_NEXT"]
        .into_iter()
        .filter(|var| v.get(var).is_some())
        .map(|var| format!("{var} is set, but this build has no test scaffolding (slackline's testkit feature): ignored"))
        .collect()
}

impl Config {
    /// Builds the configuration from the deployment's settings (the Worker's `Env`, or
    /// [`Vars::of`] in tests).
    pub fn from_vars(v: &Vars) -> Result<Config, ConfigError> {
        let hour_ms = 3_600_000;
        // The test scaffolding exists only in a build with the `testkit` feature (the tests').
        let allow_test_clock = cfg!(feature = "testkit") && v.get("ALLOW_TEST_CLOCK").as_deref() == Some("1");
        let config = Config {
            signing_secret: SigningSecret::parse(v.get("SLACK_SIGNING_SECRET")),
            slack_api_url: v.url("SLACK_API_URL")?.unwrap_or_else(|| DEFAULT_SLACK_API_URL.into()),
            bot_token: Secret::parse(v.get("SLACK_BOT_TOKEN")),
            admin_token: Secret::parse(v.get("ADMIN_TOKEN")),
            api_token: Secret::parse(v.get("API_TOKEN")),
            idempotency_ttl_ms: v.int("IDEMPOTENCY_TTL_HOURS", DEFAULT_IDEMPOTENCY_TTL_HOURS, 1, 24 * 30)? * 3_600_000,
            lists_reconcile_ms: v.int("LISTS_RECONCILE_MINUTES", DEFAULT_LISTS_RECONCILE_MINUTES, 1, 7 * 24 * 60)? * 60_000,
            lists_pace_ms: v.int("LISTS_PACE_MS", DEFAULT_LISTS_PACE_MS, 0, 60_000)?,
            lists_page_size: v.int("LISTS_PAGE_SIZE", DEFAULT_LISTS_PAGE_SIZE, 1, 1_000)?,
            rate_limits: RateLimits::parse(v.get("SLACK_RATE_LIMITS").as_deref()).map_err(|e| ConfigError { var: "SLACK_RATE_LIMITS", problem: e.0 })?,
            readback: ReadBackConfig {
                page_size: v.int("READBACK_PAGE_SIZE", DEFAULT_READBACK_PAGE_SIZE, 1, 999)? as u32,
                max_pages: v.int("READBACK_MAX_PAGES", DEFAULT_READBACK_MAX_PAGES, 1, 100)? as u32,
                max_wait_ms: v.int("READBACK_MAX_WAIT_MS", DEFAULT_READBACK_MAX_WAIT_MS, 0, 7 * 86_400_000)?,
            },
            client_id: v.get("SLACK_CLIENT_ID"),
            client_secret: Secret::parse(v.get("SLACK_CLIENT_SECRET")),
            bot_scopes: v.bot_scopes()?,
            redirect_uri: v.url("SLACK_REDIRECT_URI")?,
            authorize_url: v.url("SLACK_AUTHORIZE_URL")?.unwrap_or_else(|| DEFAULT_AUTHORIZE_URL.into()),
            cipher: TokenCipher::from_settings(v.get("TOKEN_ENCRYPTION_KEY").as_deref(), v.get("TOKEN_ENCRYPTION_OLD_KEYS").as_deref()).map_err(|_| {
                ConfigError { var: "TOKEN_ENCRYPTION_KEY", problem: "must be <key id>:<64 hex digits> (old keys: a comma-separated list of the same)".into() }
            })?,
            ack_budget_ms: v.int("ACK_BUDGET_MS", DEFAULT_ACK_BUDGET_MS, 100, 10_000)?,
            lease_ms: v.int("LEASE_MS", DEFAULT_LEASE_MS, 100, 3_600_000)?,
            stream_rollover_ms: v.int("STREAM_ROLLOVER_MS", DEFAULT_STREAM_ROLLOVER_MS, 1_000, 290_000)?,
            step_deadline_ms: v.int("STEP_DEADLINE_MS", DEFAULT_STEP_DEADLINE_MS, 1_000, 86_400_000)?,
            attempt_timeout_ms: v.int("ATTEMPT_TIMEOUT_MS", DEFAULT_ATTEMPT_TIMEOUT_MS, 100, 600_000)?,
            batch_size: v.int("BATCH_SIZE", DEFAULT_BATCH_SIZE, 1, 90)?,
            delivery_concurrency: v.int("DELIVERY_CONCURRENCY", DEFAULT_DELIVERY_CONCURRENCY, 1, MAX_DELIVERY_CONCURRENCY)? as usize,
            sweep_budget_ms: v.int("SWEEP_BUDGET_MS", DEFAULT_SWEEP_BUDGET_MS, 100, 600_000)?,
            retry: RetryPolicy::new(v.schedule()?, v.int("MAX_ATTEMPTS", DEFAULT_MAX_ATTEMPTS as i64, 1, 100)? as u32)
                .map_err(|e| ConfigError { var: "RETRY_SCHEDULE_MS", problem: e.to_string() })?,
            receipt_retention_ms: v.int("RECEIPT_RETENTION_HOURS", DEFAULT_RECEIPT_RETENTION_HOURS, 1, 24 * 90)? * hour_ms,
            done_retention_ms: v.int("DONE_RETENTION_HOURS", DEFAULT_DONE_RETENTION_HOURS, 1, 24 * 90)? * hour_ms,
            llm: v.url("LLM_API_URL")?.map(|url| LlmConfig {
                url,
                api_key: Secret::parse(v.get("LLM_API_KEY")),
                model: v.get("LLM_MODEL").unwrap_or_else(|| DEFAULT_LLM_MODEL.into()),
            }),
            alert_pending_age_ms: v.int("ALERT_PENDING_AGE_MS", DEFAULT_ALERT_PENDING_AGE_MS, 1_000, 7 * 86_400_000)?,
            alert_failure_streak: v.int("ALERT_FAILURE_STREAK", DEFAULT_ALERT_FAILURE_STREAK, 1, 1_000)?,
            redrive_spacing_ms: v.int("REDRIVE_SPACING_MS", DEFAULT_REDRIVE_SPACING_MS, 0, 60_000)?,
            log_deliveries: match v.get("LOG_DELIVERIES").as_deref() {
                None | Some("failures") => LogDeliveries::Failures,
                Some("all") => LogDeliveries::All,
                Some(_) => return Err(ConfigError { var: "LOG_DELIVERIES", problem: "must be all or failures".into() }),
            },
            allow_test_clock,
            test_panic_marker: v.get("TEST_PANIC_MARKER").filter(|_| allow_test_clock),
            test_wire_next: allow_test_clock && v.get("TEST_WIRE_NEXT").as_deref() == Some("1"),
            allow_bench_seed: cfg!(feature = "testkit") && v.get("ALLOW_BENCH_SEED").as_deref() == Some("1"),
            warnings: without_testkit(v),
        };
        Ok(config.with_warnings())
    }

    fn with_warnings(mut self) -> Config {
        let waves = (self.batch_size as usize).div_ceil(self.delivery_concurrency) as i64;
        if self.lease_ms <= waves * self.attempt_timeout_ms {
            self.warnings.push(format!(
                "LEASE_MS ({}) is not above ATTEMPT_TIMEOUT_MS x batch waves ({}): a slow delivery can be claimed again and performed twice",
                self.lease_ms,
                waves * self.attempt_timeout_ms
            ));
        }
        if self.allow_test_clock {
            self.warnings.push("ALLOW_TEST_CLOCK is on: requests may choose the clock; never use it in production".into());
        }
        self
    }

    /// The URL of one Slack Web API method.
    pub fn slack_method_url(&self, method: &str) -> String {
        format!("{}/{}", self.slack_api_url, method)
    }
}

#[cfg(test)]
mod tests;
