//! An LLM's answer (`Action::LlmReply`): an OpenAI-compatible chat completion, whose answer
//! becomes a follow-up row (a threaded post, or a `response_url` message) queued in the same unit
//! as this row's fenced completion, under this row's key (`{key}:post`).

use super::{content, request};
use crate::kinds::completion::{AfterWrite, JobOutcome, NewRow};
use crate::kinds::job::Job;
use crate::kinds::registry::Followup;
use crate::outbox::reasons;
use crate::slack::classify::{self, Verdict};

/// Asks the model and queues the answer's delivery.
pub async fn answer(job: &Job<'_>, prompt: &str, then: &Followup) -> JobOutcome {
    let Some(llm) = job.config.llm.as_ref() else {
        return JobOutcome::verdict(Verdict::Permanent { code: reasons::NOT_CONFIGURED.into() });
    };
    let body = request(&llm.model, prompt);
    let (outcome, json) = job
        .post(&llm.url, llm.api_key.as_ref().map(|k| k.expose()), &body, |a| match classify::classify_http(a.status, a.retry_after.as_deref()) {
            Some(v) => v,
            None if content(&a.json).is_some() => Verdict::Success,
            None => Verdict::transient("bad_response"),
        })
        .await;
    match json.as_ref().and_then(content).filter(|_| outcome.verdict == Verdict::Success) {
        Some(text) => {
            let row = job.row;
            let effect = then.effect(&row.idem_key, &text, None);
            outcome.with(AfterWrite::Followup(NewRow { effect, deadline_at: row.deadline_at }))
        }
        None => outcome,
    }
}
