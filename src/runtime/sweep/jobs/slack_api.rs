//! A Slack Web API call an app's handler asked for (`Action::SlackApi`): `chat.postMessage`,
//! `chat.update`, `reactions.add`, … with the team's bot token, paced by the method's (or the
//! channel's) rate budget. A call the handler marked `remember(key)` keeps Slack's answer's
//! `{channel, ts}` under that state key with its (fenced) completion; a post marked
//! `in_thread_of(key)` reads that key now, at each attempt, and goes in the remembered message's
//! thread, or top level if it holds none (`crate::state::thread`). A post carries the row's key in
//! its metadata and is read back first when its previous attempt's outcome is unknown
//! (`Job::post_message`); other methods are called as they are.

use super::Job;
use crate::outbox::completion::{remembered, JobOutcome};
use crate::platform::state as store;
use crate::slack::classify::Verdict;
use crate::slack::method;
use crate::state::thread::threaded;
use serde_json::Value;
use std::borrow::Cow;

/// Calls `method` with `args` (in the thread of what `thread_of` holds, if given); remembers the
/// answer under `remember`, if given.
pub async fn call(job: &Job<'_>, method: &str, args: &Value, remember: Option<&str>, thread_of: Option<&str>) -> JobOutcome {
    let token = match job.bearer() {
        Ok(token) => token,
        Err(refused) => return refused,
    };
    let args = match thread_of {
        None => Cow::Borrowed(args),
        Some(key) => match store::value(job.sql, key) {
            Ok(held) => Cow::Owned(threaded(args, held.as_deref())),
            Err(e) => return JobOutcome::verdict(Verdict::transient(format!("storage: {e}"))),
        },
    };
    let call = match method {
        method::POST_MESSAGE => job.post_message(token, &args).await,
        _ => job.call_slack(token, method, &args).await,
    };
    let kept = remember.and_then(|key| remembered(key, &call.verdict, &call.json));
    let outcome = JobOutcome::from(call);
    match kept {
        Some(write) => outcome.with(write),
        None => outcome,
    }
}
