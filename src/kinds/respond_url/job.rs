//! A message POSTed to a `response_url` (`Action::RespondUrl`: a slash command's or a click's
//! answer). Slack's `response_url` answers plain HTTP: any 2xx is a success.

use crate::kinds::completion::JobOutcome;
use crate::kinds::job::Job;
use crate::slack::classify::{self, Verdict};
use serde_json::Value;

/// Posts `body` to `url`.
pub async fn post(job: &Job<'_>, url: &str, body: &Value) -> JobOutcome {
    job.post(url, None, body, |a| classify::classify_http(a.status, a.retry_after.as_deref()).unwrap_or(Verdict::Success)).await.0
}
