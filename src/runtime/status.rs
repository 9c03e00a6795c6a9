//! Performs a status message's job for the sweep (`PUT /api/teams/{team}/status/{name}`): from
//! what is stored, post it (`chat.postMessage`), update it to the newest version
//! (`chat.update`), or do nothing when Slack already shows the newest. Jobs of one status message
//! run one at a time (the claim's serial rule), and each sends the newest state, so an older
//! state is never sent after a newer one.

use super::http;
use super::pacing::Gate;
use super::store::notify::{self as store, PostWrite};
use crate::config::Config;
use crate::notify::{status_call, StatusCall};
use crate::slack::classify::Verdict;
use serde_json::json;
use worker::SqlStorage;

/// What a status job did.
pub struct StatusDone {
    /// For the outbox.
    pub verdict: Verdict,
    /// Slack's HTTP status, if it answered.
    pub http_status: Option<i64>,
    /// What the completion keeps.
    pub post: Option<PostWrite>,
}

impl StatusDone {
    fn settled(verdict: Verdict) -> StatusDone {
        StatusDone { verdict, http_status: None, post: None }
    }
}

/// Brings status message `name` up to its newest version.
pub async fn perform(sql: &SqlStorage, config: &Config, gate: &Gate<'_>, token: &str, name: &str) -> StatusDone {
    let row = match store::status_row(sql, name) {
        Ok(Some(row)) => row,
        Ok(None) => return StatusDone::settled(Verdict::Success),
        Err(e) => return StatusDone::settled(Verdict::transient(format!("storage: {e}"))),
    };
    let blocks = store::blocks_of(&row).ok().flatten();
    let posted = row.ts.clone().zip(row.post_channel.clone());
    let (method, mut args) = match status_call(row.version, row.posted_version, posted) {
        StatusCall::Nothing => return StatusDone::settled(Verdict::Success),
        StatusCall::Post => ("chat.postMessage", json!({ "channel": row.channel, "text": row.text })),
        StatusCall::Update { ts, channel } => ("chat.update", json!({ "channel": channel, "ts": ts, "text": row.text })),
    };
    if let Some(blocks) = blocks {
        args["blocks"] = blocks;
    }
    let http::SlackCall { verdict, http_status, json: body } = http::call_slack(config, gate, token, method, &args).await;
    let post = (verdict == Verdict::Success).then(|| {
        let first = (method == "chat.postMessage").then(|| body["ts"].as_str().map(str::to_string).zip(body["channel"].as_str().map(str::to_string))).flatten();
        PostWrite::Status { name: name.to_string(), posted: first, version: row.version }
    });
    StatusDone { verdict, http_status, post }
}
