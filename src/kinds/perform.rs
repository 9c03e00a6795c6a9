//! The registry's wasm32 half: [`perform`] picks the job of a claimed row by its [`Action`]. Each
//! job lives in its kind's room, takes the claimed row's [`Job`] (`kinds::job`: storage,
//! settings, the bot token, the pacer's gate) and ends with one [`JobOutcome`]: the verdict,
//! Slack's HTTP status, and what the completion stores with it (`AfterWrite`s).
//!
//! Beside it, the hooks a room may need from the engine, so that the engine names no kind:
//! [`at_ingest`] and [`record_at_ingest`] (what a room records in the ingest unit itself: a Stop,
//! a step's start), [`queued`] (a row just inserted by the ingest unit: a room that orders its
//! rows notes it) and [`housekeep`] (the rooms' own tables pruned with the receipts).
//!
//! Adding a kind of effect: its room, its variant in `super::registry`, and its arm here (and in
//! a hook, if its room keeps a table of its own).

use super::registry::Action;
use super::{assistant, lists, llm, notify, redrive, respond_url, schedule, slack_api, step};
use crate::config::Config;
use crate::kinds::completion::JobOutcome;
use crate::kinds::job::Job;
use crate::slack::classify::Verdict;
use crate::slack::envelope::Dispatch;
use worker::SqlStorage;

/// Performs the row's action.
pub(crate) async fn perform(job: &Job<'_>, action: &Action) -> JobOutcome {
    match action {
        Action::SlackApi { method, args, remember, thread_of } => slack_api::job::call(job, method, args, remember.as_deref(), thread_of.as_deref()).await,
        Action::Notify { args } => notify::post::post(job, args).await,
        Action::Status { name } => notify::status::bring_up_to_date(job, name).await,
        Action::RespondUrl { url, body } => respond_url::job::post(job, url, body).await,
        Action::LlmReply { prompt, then } => llm::job::answer(job, prompt, then).await,
        Action::StreamAnswer { prompt, channel, thread_ts, recipient_user_id, recipient_team_id, task_display_mode, plan_title, closing_blocks } => {
            let to = assistant::calls::Target {
                prompt,
                channel,
                thread_ts,
                recipient_user_id: recipient_user_id.as_deref(),
                recipient_team_id: recipient_team_id.as_deref(),
                task_display_mode: *task_display_mode,
                plan_title: plan_title.as_deref(),
                closing_blocks: closing_blocks.as_deref().unwrap_or_default(),
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
        // Due now: a firing runs the app's listener; any other, the scheduled effect itself (its
        // recurrence is the attempt's, `attempt.rs`).
        Action::Scheduled { key, when, effect, .. } if **effect == Action::Fire => schedule::fire::run(job, key, when.due_at(job.row.created_at)),
        Action::Scheduled { effect, .. } => Box::pin(perform(job, effect)).await,
        // Performed as its effect; its end runs the listener in the completion (`attempt.rs`).
        Action::Then { effect, .. } => Box::pin(perform(job, effect)).await,
        // A listener parked on its kept answer, redriven: the listener runs again, not the effect.
        Action::Answer { answered } => job.app.answered(job, answered),
        // Only ever inside a schedule: alone, it names no schedule.
        Action::Fire => JobOutcome::verdict(Verdict::Permanent { code: crate::outbox::reasons::BAD_PAYLOAD.into() }),
        // Applied when recorded, never a row: one here is a bug, kept for an operator.
        Action::CancelSchedule { .. } => JobOutcome::verdict(Verdict::Permanent { code: crate::outbox::reasons::BAD_PAYLOAD.into() }),
    }
}

/// What a room records in the ingest unit itself, beside the receipt and the rows its effects
/// call for: a fact the engine keeps for the kind, in the same all-or-nothing unit. Picked from
/// the request by [`at_ingest`] and written by [`record_at_ingest`],
/// so that the ingest path names no kind: a room that needs one adds a variant and its two arms.
#[derive(Debug, Clone, PartialEq)]
pub enum AtIngest {
    /// The user pressed Stop on the answer streaming in this thread (`super::assistant`): recorded
    /// for the answers queued so far.
    Stop {
        /// The channel.
        channel: String,
        /// The thread's parent `ts`.
        thread_ts: String,
    },
    /// A Workflow step started (`super::step`): its execution and its guard row.
    Step(crate::kinds::step::Recording),
}

/// What the rooms record in the ingest unit for this request (a Stop, a step's start), given the
/// handler's error if it failed: a failed handler's step is failed by its guard at once.
pub(crate) fn at_ingest(dispatch: &Dispatch, config: &Config, now: i64, handler_failed: Option<&str>) -> Vec<AtIngest> {
    let stop = dispatch.stops_answer().map(|(channel, thread_ts)| AtIngest::Stop { channel: channel.to_string(), thread_ts: thread_ts.to_string() });
    let step = step::store::started(dispatch, config, now, handler_failed).map(AtIngest::Step);
    stop.into_iter().chain(step).collect()
}

/// Writes one of [`at_ingest`]'s records inside the ingest unit (`op_key`, the receipt's).
/// Returns whether it queued a row of its own: `Some(true)` queued, `Some(false)` already queued
/// (a duplicate), `None` when the record queues none.
pub(crate) fn record_at_ingest(sql: &SqlStorage, at: &AtIngest, op_key: &str, max_attempts: u32, now: i64) -> worker::Result<Option<bool>> {
    match at {
        AtIngest::Stop { channel, thread_ts } => assistant::store::record_stop(sql, channel, thread_ts, now).map(|()| None),
        AtIngest::Step(recording) => step::store::record(sql, op_key, recording, max_attempts, now).map(Some),
    }
}

/// A row the ingest unit just inserted (id `row_id`): the rooms that keep an order of their rows
/// note it in the same unit (a session's intent, a streamed answer in a thread with a session:
/// `assistant::session`). Most kinds note nothing.
pub(crate) fn queued(sql: &SqlStorage, action: &Action, row_id: i64, now: i64) -> worker::Result<()> {
    match action {
        Action::Session { channel, thread_ts, status, .. } => assistant::store::note_intent(sql, channel, thread_ts, row_id, *status, now),
        Action::StreamAnswer { channel, thread_ts, .. } => assistant::store::note_answer(sql, channel, thread_ts, row_id, now),
        _ => Ok(()),
    }
}

/// Prunes what the rooms keep of their own beside the outbox (the Stops, the sessions' intents,
/// the steps' executions) once it is older than `cutoff`: housekeeping, with the receipts.
pub(crate) fn housekeep(sql: &SqlStorage, cutoff: i64) -> worker::Result<()> {
    assistant::store::prune_stops(sql, cutoff)?;
    assistant::store::prune_sessions(sql, cutoff)?;
    step::store::prune(sql, cutoff)
}
