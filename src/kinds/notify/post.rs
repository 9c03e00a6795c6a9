//! A message another service posted through the notify API (`Action::Notify`): one
//! `chat.postMessage`, whose answer (`channel`, `ts`) the completion keeps for
//! `GET /api/teams/{team}/messages/{id}`. Read back first when its previous attempt's outcome is
//! unknown (`Job::post_message`): a post found there is kept as if just answered.

use super::PostWrite;
use crate::kinds::completion::{AfterWrite, JobOutcome};
use crate::kinds::job::Job;
use crate::slack::classify::Verdict;
use serde_json::Value;

/// Posts the message.
pub async fn post(job: &Job<'_>, args: &Value) -> JobOutcome {
    let token = match job.bearer() {
        Ok(token) => token,
        Err(refused) => return refused,
    };
    let call = job.post_message(token, args).await;
    let posted = (call.verdict == Verdict::Success)
        .then(|| Some(PostWrite::Message { channel: call.json["channel"].as_str()?.into(), ts: call.json["ts"].as_str()?.into() }))
        .flatten();
    let outcome = JobOutcome::from(call);
    match posted {
        Some(post) => outcome.with(AfterWrite::SlackResult(post)),
        None => outcome,
    }
}
