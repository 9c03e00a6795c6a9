//! A session row's job (`Action::Session`): brings the thread's session to its newest intent
//! (`super::session`: which status to send, and when the row is settled). Each call is
//! `agents.sessions.setStatus`, paced at its tier; Slack's verdict ends the attempt as any call's
//! does (a 429 or a failure retries the row, which then plans again from what is newest).

use super::session::{set_status, settled, to_send, SessionCall, SessionStatus};
use super::store;
use crate::kinds::completion::JobOutcome;
use crate::kinds::job::Job;
use crate::slack::classify::Verdict;

/// How many times one attempt sends before it leaves the rest to a retry: a newer intent noted
/// during each call (several in a row is a busy thread, not an error).
const MAX_SENDS: usize = 3;

/// Sends the thread's newest session status until a read after the call finds nothing newer.
pub(crate) async fn bring_up_to_date(job: &Job<'_>, call: &SessionCall<'_>, status: SessionStatus) -> JobOutcome {
    let token = match job.bearer() {
        Ok(token) => token,
        Err(refused) => return refused,
    };
    let mine = job.row.id.0;
    let mut newest = match store::newest(job.sql, call.channel, call.thread_ts) {
        Ok(newest) => newest,
        Err(e) => return JobOutcome::storage(e),
    };
    for _ in 0..MAX_SENDS {
        let (method, args) = set_status(call, to_send(mine, status, newest.as_ref()));
        let answer = job.call_slack(token, method, &args).await;
        if answer.verdict != Verdict::Success {
            return JobOutcome::from(answer);
        }
        let after = match store::newest(job.sql, call.channel, call.thread_ts) {
            Ok(after) => after,
            Err(e) => return JobOutcome::storage(e),
        };
        if settled(newest.as_ref(), after.as_ref()) {
            return JobOutcome::from(answer);
        }
        newest = after;
    }
    JobOutcome::verdict(Verdict::transient("session_busy"))
}
