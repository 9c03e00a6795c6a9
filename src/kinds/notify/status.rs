//! A status message's job (`Action::Status`, from `PUT /api/teams/{team}/status/{name}`): from
//! what is stored, post it (`chat.postMessage`), update it to the newest version
//! (`chat.update`), or do nothing when Slack already shows the newest. Jobs of one status message
//! run one at a time (the claim's serial rule), and each sends the newest state, so an older
//! state is never sent after a newer one.

use super::store;
use super::{status_call, PostWrite, StatusCall};
use crate::kinds::completion::{AfterWrite, JobOutcome};
use crate::kinds::job::Job;
use crate::slack::classify::Verdict;
use crate::slack::method;
use serde_json::json;

/// Brings status message `name` up to its newest version.
pub async fn bring_up_to_date(job: &Job<'_>, name: &str) -> JobOutcome {
    let token = match job.bearer() {
        Ok(token) => token,
        Err(refused) => return refused,
    };
    let row = match store::status_row(job.sql, name) {
        Ok(Some(row)) => row,
        Ok(None) => return JobOutcome::verdict(Verdict::Success),
        Err(e) => return JobOutcome::storage(e),
    };
    let blocks = store::blocks_of(&row).ok().flatten();
    let posted = row.ts.clone().zip(row.post_channel.clone());
    let (method, mut args) = match status_call(row.version, row.posted_version, posted) {
        StatusCall::Nothing => return JobOutcome::verdict(Verdict::Success),
        StatusCall::Post => (method::POST_MESSAGE, json!({ "channel": row.channel, "text": row.text })),
        StatusCall::Update { ts, channel } => (method::UPDATE, json!({ "channel": channel, "ts": ts, "text": row.text })),
    };
    if let Some(blocks) = blocks {
        args["blocks"] = blocks;
    }
    let call = match method {
        method::POST_MESSAGE => job.post_message(token, &args).await,
        _ => job.call_slack(token, method, &args).await,
    };
    let first =
        (method == method::POST_MESSAGE).then(|| call.json["ts"].as_str().map(str::to_string).zip(call.json["channel"].as_str().map(str::to_string))).flatten();
    let succeeded = call.verdict == Verdict::Success;
    let outcome = JobOutcome::from(call);
    if succeeded {
        return outcome.with(AfterWrite::SlackResult(PostWrite::Status { name: name.to_string(), posted: first, version: row.version }));
    }
    outcome
}
