//! The job of a handler's Web API call (wasm32): see the room's docs (`super`).

use crate::kinds::completion::{remembered, JobOutcome};
use crate::kinds::job::Job;
use crate::platform::state as store;
use crate::slack::method;
use crate::state::thread::threaded;
use serde_json::Value;
use std::borrow::Cow;

/// Calls `method` with `args` (in the thread of what `thread_of` holds, if given); remembers the
/// answer under `remember`, if given.
pub(crate) async fn call(job: &Job<'_>, method: &str, args: &Value, remember: Option<&str>, thread_of: Option<&str>) -> JobOutcome {
    let token = match job.bearer() {
        Ok(token) => token,
        Err(refused) => return refused,
    };
    let args = match thread_of {
        None => Cow::Borrowed(args),
        Some(key) => match store::value(job.sql, key) {
            Ok(held) => Cow::Owned(threaded(args, held.as_deref())),
            Err(e) => return JobOutcome::storage(e),
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
