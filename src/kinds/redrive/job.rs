//! A redriven `handler_failed` row (`Action::Handle`): the app's handler runs again on the request
//! it failed on (kept in the row), now that an operator says it is fixed. What it decides is
//! stored with this row's completion (`runtime::sweep::app_run`: follow-ups under the request's
//! receipt, its state change once per fact, only if the claim held); if it fails again, the row
//! parks again as `handler_failed`. The ack's body is moot by now: Slack had its 200.

use crate::kinds::completion::JobOutcome;
use crate::kinds::job::Job;
use crate::outbox::reasons;
use crate::slack::classify::Verdict;
use crate::slack::envelope::Dispatch;
use serde_json::Value;

/// Runs the handler on the kept request.
pub fn run(job: &Job<'_>, dispatch: &Value) -> JobOutcome {
    // Read as a team actor reads the wire (`crate::wire`): a kept request's event is parsed again.
    let Ok(dispatch) = Dispatch::from_wire(&dispatch.to_string()) else {
        return JobOutcome::verdict(Verdict::Permanent { code: reasons::BAD_PAYLOAD.into() });
    };
    job.app.redrive(job, &dispatch)
}
