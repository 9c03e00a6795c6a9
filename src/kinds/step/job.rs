//! The jobs of a step's ending and of its guard (wasm32): both end the execution with its own
//! token, unless it has ended already (see the room's docs, `super`).

use super::store::{self, Execution};
use super::{call, judge, Judged, StepEnd};
use crate::outbox::completion::JobOutcome;
use crate::outbox::reasons;
use crate::platform::clock;
use crate::platform::job::Job;
use crate::slack::classify::Verdict;

/// Ends execution `execution_id` with `end`; a step that has ended is left as it is.
pub(crate) async fn end(job: &Job<'_>, execution_id: &str, end: &StepEnd) -> JobOutcome {
    let sealed = match store::execution(job.sql, execution_id) {
        Ok(Execution::Running { sealed_token }) => sealed_token,
        // Ended by the other of the pair (the app's ending, or the guard): nothing to send.
        Ok(Execution::Ended) => return JobOutcome::verdict(Verdict::Success),
        Ok(Execution::Unknown) => return JobOutcome::verdict(Verdict::Permanent { code: reasons::STEP_UNKNOWN.into() }),
        Err(e) => return JobOutcome::storage(e),
    };
    let token = match job.config.cipher.open(&sealed) {
        Ok(token) => token,
        Err(_) => return JobOutcome::verdict(Verdict::Permanent { code: reasons::TOKEN_UNREADABLE.into() }),
    };
    let (method, args) = call(execution_id, end);
    let answer = job.call_slack(&token, method, &args).await;
    match judge(answer.verdict.clone()) {
        Judged::Ended => match store::ended(job.sql, execution_id, &job.row.idem_key, clock::now_ms()) {
            Ok(()) => JobOutcome { verdict: Verdict::Success, ..JobOutcome::from(answer) },
            Err(e) => JobOutcome::storage(e),
        },
        Judged::NotEnded(_) => JobOutcome::from(answer),
    }
}
