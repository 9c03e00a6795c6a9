//! A redriven `handler_failed` row (`Action::Handle`): the app's handler runs again on the request
//! it failed on (kept in the row), now that an operator says it is fixed. What it decides now is
//! queued with this row's completion (follow-ups under the request's receipt), and so is its state
//! change (once per fact, only if the claim held); if it fails again,
//! the row parks again as `handler_failed`. The ack's body is moot by now: Slack had its 200.

use crate::app::{self, Context, Decision};
use crate::logs::{ErrorLine, LogLine};
use crate::outbox::completion::{AfterWrite, JobOutcome, NewRow};
use crate::outbox::reasons;
use crate::platform::job::Job;
use crate::platform::state::SqlState;
use crate::platform::{clock, log};
use crate::slack::classify::Verdict;
use crate::slack::envelope::Dispatch;
use serde_json::Value;
use std::rc::Rc;

/// Runs the handler on the kept request.
pub fn run(job: &Job<'_>, dispatch: &Value) -> JobOutcome {
    // Read as a team actor reads the wire (`crate::wire`): a kept request's event is parsed again.
    let Ok(dispatch) = Dispatch::from_wire(&dispatch.to_string()) else {
        return JobOutcome::verdict(Verdict::Permanent { code: reasons::BAD_PAYLOAD.into() });
    };
    let ctx = Context::of(job.config).with_state(Rc::new(SqlState { sql: job.sql.clone() }));
    let output = app::decide(job.app, &dispatch, &ctx);
    match output.decision {
        Decision::Enqueue(effects) => {
            let now = clock::now_ms();
            let mut writes: Vec<AfterWrite> = effects.into_iter().map(|e| AfterWrite::Followup(NewRow::queued_at(e, now))).collect();
            writes.extend(output.state.map(AfterWrite::State));
            JobOutcome { writes, ..JobOutcome::verdict(Verdict::Success) }
        }
        Decision::Ignore(_) => JobOutcome::verdict(Verdict::Success),
        Decision::Failed(why) => {
            log::error(LogLine::AdminError(ErrorLine::new(format!("handler_failed again on {}: {why}", dispatch.op_key()))));
            JobOutcome::verdict(Verdict::Permanent { code: reasons::HANDLER_FAILED.into() })
        }
    }
}
