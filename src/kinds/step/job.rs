//! The jobs of a step's ending and of its guard (wasm32): both end the execution with its own
//! token, unless it has ended already (see the room's docs, `super`).

use super::store::{self, Execution};
use super::{call, judge, outputs_refused, Judged, StepEnd};
use crate::kinds::completion::JobOutcome;
use crate::kinds::job::Job;
use crate::outbox::reasons;
use crate::platform::clock;
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
    match judge(end, answer.verdict.clone()) {
        Judged::Ended => settle(job, execution_id, JobOutcome { verdict: Verdict::Success, ..JobOutcome::from(answer) }),
        Judged::Unendable { code } => settle(job, execution_id, JobOutcome { verdict: Verdict::Permanent { code }, ..JobOutcome::from(answer) }),
        Judged::OutputsRefused { code } => fail_refused(job, execution_id, &token, code).await,
        Judged::NotEnded(_) => JobOutcome::from(answer),
    }
}

/// Slack refused a success's outputs: the step is failed at once with a readable error (not left
/// for its guard's deadline), and the row parks with Slack's error for the operator.
async fn fail_refused(job: &Job<'_>, execution_id: &str, token: &str, code: String) -> JobOutcome {
    let failure = StepEnd::Error { error: outputs_refused(&code) };
    let (method, args) = call(execution_id, &failure);
    let answer = job.call_slack(token, method, &args).await;
    match judge(&failure, answer.verdict.clone()) {
        Judged::Ended | Judged::Unendable { .. } => settle(job, execution_id, JobOutcome { verdict: Verdict::Permanent { code }, ..JobOutcome::from(answer) }),
        Judged::OutputsRefused { .. } | Judged::NotEnded(_) => JobOutcome::from(answer),
    }
}

/// Marks the step ended (nothing more is sent for it) and returns `outcome`.
fn settle(job: &Job<'_>, execution_id: &str, outcome: JobOutcome) -> JobOutcome {
    match store::ended(job.sql, execution_id, &job.row.idem_key, clock::now_ms()) {
        Ok(()) => outcome,
        Err(e) => JobOutcome::storage(e),
    }
}
