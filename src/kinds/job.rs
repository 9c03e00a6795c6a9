//! One claimed row's job: its context (storage, settings, the bot token, the pacer's gate, the
//! row, the claim) and the two ways it reaches the outside — a Slack Web API call (paced, judged
//! by `classify_web_api`, network failures logged) and a POST to another endpoint. Every kind's
//! job takes a [`Job`] and ends with one [`JobOutcome`]; the registry's `perform` picks the job
//! by the row's action. No room: the contract between the sweep and every room's job (wasm32).
//!
//! A job that runs the app (a redrive, a schedule's firing) asks [`Handlers`], which the sweep
//! implements with the team actor's app: the kinds never name the app's types.

use crate::config::Config;
use crate::kinds::answer::Answered;
use crate::kinds::completion::{AfterWrite, JobOutcome};
use crate::kinds::post::read_back::{self, Poster, ReadBacks};
use crate::kinds::schedule::Fired;
use crate::outbox::ClaimToken;
use crate::platform::credential::Credential;
use crate::platform::http::{self, Answer, Failure, SlackCall};
use crate::platform::pacing::Gate;
use crate::platform::rows::ClaimedRow;
use crate::slack::classify::{self, Verdict};
use crate::slack::envelope::Dispatch;
use serde_json::Value;
use worker::{SqlStorage, Storage};

/// The app, as a row's job runs it: its decision stored with the row's fenced completion.
pub trait Handlers {
    /// Runs the app's handler again on `dispatch`, a request it failed on.
    fn redrive(&self, job: &Job<'_>, dispatch: &Dispatch) -> JobOutcome;
    /// Runs the app's `on_schedule` listener of `fired`.
    fn fire(&self, job: &Job<'_>, fired: &Fired) -> JobOutcome;
    /// Runs the app's result listener on an effect's kept end (a redrive of a parked listener).
    fn answered(&self, job: &Job<'_>, answered: &Answered) -> JobOutcome;
}

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
    /// The app (a redriven `handler_failed` row runs its handler again; a firing its listener).
    pub app: &'a dyn Handlers,
    /// The sweep's read-backs of uncertain posts (one read per channel or thread).
    pub reads: &'a ReadBacks,
}

impl Job<'_> {
    /// The bot token, or the outcome every Slack call has when the team has none usable.
    pub fn bearer(&self) -> Result<&str, JobOutcome> {
        match self.credential {
            Credential::Token(token) => Ok(token),
            Credential::Unusable(verdict) => Err(JobOutcome::verdict(verdict.clone())),
        }
    }

    /// Posts a message (`chat.postMessage`) with the row's key in its metadata; if the row's
    /// previous attempt's outcome is unknown, reads the place back first ([`read_back`]).
    pub async fn post_message(&self, token: &str, args: &Value) -> SlackCall {
        let poster = Poster { reads: self.reads, config: self.config, gate: self.gate, row: self.row, started: self.started };
        read_back::post_message(&poster, token, args).await
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
        let writes = call.uncertain_since.map(AfterWrite::Uncertain).into_iter().collect();
        JobOutcome { verdict: call.verdict, http_status: call.http_status, writes, answer: None }.answered(call.json)
    }
}
