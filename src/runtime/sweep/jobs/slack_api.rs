//! A Slack Web API call an app's handler asked for (`Action::SlackApi`): `chat.postMessage`,
//! `chat.update`, `reactions.add`, … with the team's bot token, paced by the method's (or the
//! channel's) rate budget.

use super::Job;
use crate::outbox::completion::JobOutcome;
use serde_json::Value;

/// Calls `method` with `args`.
pub async fn call(job: &Job<'_>, method: &str, args: &Value) -> JobOutcome {
    let token = match job.bearer() {
        Ok(token) => token,
        Err(refused) => return refused,
    };
    job.call_slack(token, method, args).await.into()
}
