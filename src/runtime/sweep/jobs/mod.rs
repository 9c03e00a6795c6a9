//! The jobs the sweep performs, one file per kind of effect. Each takes the claimed row's
//! [`Job`] (its context: storage, settings, the bot token, the pacer's gate) and ends with one
//! [`JobOutcome`]: the verdict, Slack's HTTP status, and what the completion stores with it
//! (`AfterWrite`s). Every Slack Web API call goes through [`Job::call_slack`] (paced, judged by
//! `classify_web_api`, network failures logged); the other endpoints through [`Job::post`].
//!
//! Adding a kind of effect: one `Action` variant, one file here, one arm in [`perform`], and at
//! most one `AfterWrite` variant.

mod handle;
mod lists;
mod llm;
mod notify;
mod respond_url;
mod slack_api;
mod status;
mod stream;

use super::credential::Credential;
use crate::app::App;
use crate::config::Config;
use crate::effect::Action;
use crate::outbox::completion::JobOutcome;
use crate::outbox::ClaimToken;
use crate::platform::http::{self, Answer, Failure, SlackCall};
use crate::platform::pacing::Gate;
use crate::runtime::store::outbox::ClaimedRow;
use crate::slack::classify::{self, Verdict};
use serde_json::Value;
use worker::{SqlStorage, Storage};

/// One claimed row's job, and what it may use.
pub struct Job<'a> {
    /// The actor's storage (for `transactionSync`: a streamed answer's fenced checkpoints).
    pub storage: &'a Storage,
    /// The actor's SQL handle.
    pub sql: &'a SqlStorage,
    /// Settings.
    pub config: &'a Config,
    /// The team's bot token for this batch.
    pub credential: &'a Credential,
    /// The pacer, for this row's Slack calls.
    pub gate: &'a Gate<'a>,
    /// The row.
    pub row: &'a ClaimedRow,
    /// The sweep's claim token (the fence of writes made before a call).
    pub claim_token: &'a ClaimToken,
    /// When the attempt started.
    pub started: i64,
    /// The app (a redriven `handler_failed` row runs its handler again).
    pub app: &'a dyn App,
}

impl Job<'_> {
    /// The bot token, or the outcome every Slack call has when the team has none usable.
    pub fn bearer(&self) -> Result<&str, JobOutcome> {
        match self.credential {
            Credential::Token(token) => Ok(token),
            Credential::Unusable(verdict) => Err(JobOutcome::verdict(verdict.clone())),
        }
    }

    /// Calls Slack's `method` with the bot token, once the pacer lets it through.
    pub async fn call_slack(&self, token: &str, method: &str, args: &Value) -> SlackCall {
        http::call_slack(self.config, self.gate, token, method, args).await
    }

    /// POSTs JSON to a non-Slack endpoint (a `response_url`, the LLM) and judges the answer with
    /// `classify`; a network failure is logged and transient, a timeout transient.
    pub async fn post(&self, url: &str, bearer: Option<&str>, body: &Value, classify: impl Fn(&Answer) -> Verdict) -> (JobOutcome, Option<Value>) {
        match http::post_json(url, bearer, body, self.config.attempt_timeout_ms).await {
            Ok(a) => (JobOutcome { http_status: Some(i64::from(a.status)), ..JobOutcome::verdict(classify(&a)) }, Some(a.json)),
            Err(Failure::Timeout) => (JobOutcome::verdict(classify::timed_out()), None),
            Err(Failure::Network(detail)) => {
                http::log_network(&detail);
                (JobOutcome::verdict(classify::network_error()), None)
            }
        }
    }
}

impl From<SlackCall> for JobOutcome {
    fn from(call: SlackCall) -> JobOutcome {
        JobOutcome { verdict: call.verdict, http_status: call.http_status, writes: Vec::new() }
    }
}

/// Performs the row's action.
pub async fn perform(job: &Job<'_>, action: &Action) -> JobOutcome {
    match action {
        Action::SlackApi { method, args, remember, thread_of } => slack_api::call(job, method, args, remember.as_deref(), thread_of.as_deref()).await,
        Action::Notify { args } => notify::post(job, args).await,
        Action::Status { name } => status::bring_up_to_date(job, name).await,
        Action::RespondUrl { url, body } => respond_url::post(job, url, body).await,
        Action::LlmReply { prompt, then } => llm::answer(job, prompt, then).await,
        Action::StreamAnswer { prompt, channel, thread_ts, recipient_user_id, recipient_team_id } => {
            let to = crate::assistant::calls::Target {
                prompt,
                channel,
                thread_ts,
                recipient_user_id: recipient_user_id.as_deref(),
                recipient_team_id: recipient_team_id.as_deref(),
            };
            stream::answer(job, &to).await
        }
        Action::Lists { list_id, job: list_job } => lists::run(job, list_id, list_job).await,
        Action::Handle { dispatch } => handle::run(job, dispatch),
        // Due now: the scheduled effect itself (its recurrence is the attempt's, `attempt.rs`).
        Action::Scheduled { effect, .. } => Box::pin(perform(job, effect)).await,
        // Applied when recorded, never a row: one here is a bug, kept for an operator.
        Action::CancelSchedule { .. } => JobOutcome::verdict(Verdict::Permanent { code: crate::outbox::reasons::BAD_PAYLOAD.into() }),
    }
}
