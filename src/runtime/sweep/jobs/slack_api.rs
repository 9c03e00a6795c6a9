//! A Slack Web API call an app's handler asked for (`Action::SlackApi`): `chat.postMessage`,
//! `chat.update`, `reactions.add`, … with the team's bot token, paced by the method's (or the
//! channel's) rate budget. A call the handler marked `remember(key)` keeps Slack's answer's
//! `{channel, ts}` under that state key with its (fenced) completion.

use super::Job;
use crate::outbox::completion::{remembered, JobOutcome};
use serde_json::Value;

/// Calls `method` with `args`; remembers the answer under `remember`, if given.
pub async fn call(job: &Job<'_>, method: &str, args: &Value, remember: Option<&str>) -> JobOutcome {
    let token = match job.bearer() {
        Ok(token) => token,
        Err(refused) => return refused,
    };
    let call = job.call_slack(token, method, args).await;
    let kept = remember.and_then(|key| remembered(key, &call.verdict, &call.json));
    let outcome = JobOutcome::from(call);
    match kept {
        Some(write) => outcome.with(write),
        None => outcome,
    }
}
