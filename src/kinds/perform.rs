//! The registry's wasm32 half: [`perform`] picks the job of a claimed row by its [`Action`]. Each
//! job lives in its kind's room, takes the claimed row's [`Job`] (`platform::job`: storage,
//! settings, the bot token, the pacer's gate) and ends with one [`JobOutcome`]: the verdict,
//! Slack's HTTP status, and what the completion stores with it (`AfterWrite`s).
//!
//! Adding a kind of effect: its room, its variant in `super::registry`, and its arm here.

use super::registry::Action;
use super::{assistant, lists, llm, notify, redrive, respond_url, slack_api, step};
use crate::outbox::completion::JobOutcome;
use crate::platform::job::Job;
use crate::slack::classify::Verdict;

/// Performs the row's action.
pub(crate) async fn perform(job: &Job<'_>, action: &Action) -> JobOutcome {
    match action {
        Action::SlackApi { method, args, remember, thread_of } => slack_api::job::call(job, method, args, remember.as_deref(), thread_of.as_deref()).await,
        Action::Notify { args } => notify::post::post(job, args).await,
        Action::Status { name } => notify::status::bring_up_to_date(job, name).await,
        Action::RespondUrl { url, body } => respond_url::job::post(job, url, body).await,
        Action::LlmReply { prompt, then } => llm::job::answer(job, prompt, then).await,
        Action::StreamAnswer { prompt, channel, thread_ts, recipient_user_id, recipient_team_id, task_display_mode, plan_title } => {
            let to = assistant::calls::Target {
                prompt,
                channel,
                thread_ts,
                recipient_user_id: recipient_user_id.as_deref(),
                recipient_team_id: recipient_team_id.as_deref(),
                task_display_mode: *task_display_mode,
                plan_title: plan_title.as_deref(),
            };
            assistant::job::answer(job, &to).await
        }
        Action::Session { channel, thread_ts, status, title, initiator_user_id } => {
            let call = assistant::session::SessionCall { channel, thread_ts, title: title.as_deref(), initiator_user_id: initiator_user_id.as_deref() };
            assistant::session_job::bring_up_to_date(job, &call, *status).await
        }
        Action::StepEnd { execution_id, end } => step::job::end(job, execution_id, end).await,
        Action::StepGuard { execution_id, error } => step::job::end(job, execution_id, &step::StepEnd::Error { error: error.clone() }).await,
        Action::Lists { list_id, job: list_job } => lists::job::run(job, list_id, list_job).await,
        Action::Handle { dispatch } => redrive::job::run(job, dispatch),
        // Due now: the scheduled effect itself (its recurrence is the attempt's, `attempt.rs`).
        Action::Scheduled { effect, .. } => Box::pin(perform(job, effect)).await,
        // Applied when recorded, never a row: one here is a bug, kept for an operator.
        Action::CancelSchedule { .. } => JobOutcome::verdict(Verdict::Permanent { code: crate::outbox::reasons::BAD_PAYLOAD.into() }),
    }
}
