//! The one contract between a job and its completion, pure: every kind of job (a Slack call, a
//! notify message, a status message, a `response_url` post, an LLM call, a List's sync or page)
//! ends with a [`JobOutcome`] — the verdict, Slack's HTTP status, and the [`AfterWrite`]s to
//! store with the fenced completion. The sweep decides the row's transition from the verdict;
//! the store writes the completion and, **only if the claim still held**, every after-write, all
//! in one unit.
//!
//! Adding a kind of effect adds its room's job (`crate::kinds`) and at most one
//! [`AfterWrite`] variant (with the store function that applies it).

use crate::kinds::lists::end::ListsEnd;
use crate::kinds::notify::PostWrite;
use crate::kinds::registry::{Action, Effect};
use crate::slack::classify::Verdict;
use serde_json::Value;

/// An effect ready to insert as an outbox row, with its absolute deadline.
#[derive(Debug, Clone, PartialEq)]
pub struct NewRow {
    /// The effect.
    pub effect: Effect,
    /// Absolute deadline (epoch ms), if any.
    pub deadline_at: Option<i64>,
}

impl NewRow {
    /// A row for `effect` queued at `now` (a scheduled one's `after` counted from `now`).
    pub fn queued_at(effect: Effect, now: i64) -> NewRow {
        NewRow::requested_at(effect, now, now)
    }

    /// A row for `effect` queued at `now` by a request recorded at `requested_at` (the test clock
    /// in tests): a scheduled effect's `after` is counted from `requested_at`, and its deadline
    /// from its due time, never from when it was queued.
    pub fn requested_at(mut effect: Effect, now: i64, requested_at: i64) -> NewRow {
        if let Action::Scheduled { when, scheduled_at, .. } = &mut effect.action {
            *when = when.resolved(requested_at);
            scheduled_at.get_or_insert(requested_at);
        }
        let start = effect.action.due_at().unwrap_or(now);
        let deadline_at = effect.deadline_after_ms.map(|after| start + after);
        NewRow { effect, deadline_at }
    }

    /// When it falls due: its schedule's due time, else when it is queued (`now`).
    pub fn due_at(&self, now: i64) -> i64 {
        self.effect.action.due_at().unwrap_or(now)
    }
}

/// What a completion writes besides the row's own transition, only when the claim still holds.
#[derive(Debug, Clone, PartialEq)]
pub enum AfterWrite {
    /// Queue a follow-up row (an LLM answer's post), under the row's receipt.
    Followup(NewRow),
    /// Keep what Slack answered to a post (a notify message's `ts`, a status message's version).
    SlackResult(PostWrite),
    /// A List job's end (a record's new state, a reconciliation page), resolved with the
    /// transition: a parked row keeps only what a failure keeps.
    Lists(ListsEnd),
    /// A redriven handler's state change (`Action::Handle`), applied once per fact like an
    /// ingest's. Its reads were made when the job ran; a request that changed the same keys
    /// between then and this completion is overwritten (a redrive is an operator's act).
    State(crate::state::StateChange),
    /// Keep part of Slack's answer in the team's state (`EffectRef::remember`): `value` (JSON,
    /// [`crate::state::Posted`]) under `key`, replacing what was there. A new key is refused
    /// (nothing stored, the completion still is) when the team holds
    /// [`MAX_KEYS`](crate::state::MAX_KEYS) already.
    Remember {
        /// The state key.
        key: String,
        /// The value's JSON.
        value: String,
    },
    /// Rewrite the row's action (its payload and label): a result listener that failed leaves
    /// its effect's answer for a redrive (`crate::kinds::answer`).
    Rewrite(Action),
    /// Queue a recurring schedule's next occurrence (`crate::kinds::schedule::next_due`), unless a
    /// cancel reached the occurrence while it was in flight (the store reads the row again).
    Recur(NewRow),
    /// The row's post may already be in Slack, since this time (epoch ms): it timed out after
    /// sending, or a read-back could not rule an earlier attempt out (`crate::kinds::post`). The
    /// retry's completion keeps it on the row (`outbox.uncertain_since`, in the same UPDATE), so
    /// the next attempt reads back first; a retry without it clears it. Nothing else is written.
    Uncertain(i64),
    /// A streamed answer ended (done, or stopped by its user): forget its checkpoint
    /// (`crate::kinds::assistant::stream`). A parked or retried answer keeps it, to resume from.
    ForgetAnswer,
    /// Hold a lane for the whole team until then: a 429's `Retry-After` (the refused call's
    /// lane), or a List's pacing (its target). A hold that has passed is not written.
    Hold {
        /// A Slack method, `chat.postMessage:{channel}`, or a row target.
        lane: String,
        /// Until (epoch ms).
        until: i64,
    },
}

/// How one attempt of a job ended, and what its completion writes.
#[derive(Debug, Clone, PartialEq)]
pub struct JobOutcome {
    /// Success, transient, rate limited, paced or permanent.
    pub verdict: Verdict,
    /// The HTTP status of the answer, when there was one.
    pub http_status: Option<i64>,
    /// What to store with the completion.
    pub writes: Vec<AfterWrite>,
    /// The answer's JSON, when there was one: what a result listener gets when the effect
    /// succeeded (`crate::kinds::answer`).
    pub answer: Option<Value>,
}

impl JobOutcome {
    /// An outcome with this verdict, no HTTP status and nothing else to write.
    pub fn verdict(verdict: Verdict) -> JobOutcome {
        JobOutcome { verdict, http_status: None, writes: Vec::new(), answer: None }
    }

    /// The attempt could not read or write the actor's storage: tried again later
    /// ([`Verdict::storage`]).
    pub fn storage(error: impl std::fmt::Display) -> JobOutcome {
        JobOutcome::verdict(Verdict::storage(error))
    }

    /// The same outcome, also writing `write`.
    pub fn with(mut self, write: AfterWrite) -> JobOutcome {
        self.writes.push(write);
        self
    }

    /// The same outcome, with the answer's JSON (none when it is `null`).
    pub fn answered(mut self, answer: Value) -> JobOutcome {
        self.answer = Some(answer).filter(|a| !a.is_null());
        self
    }

    /// Whether storing it makes rows due at once (a follow-up).
    pub fn queues_rows(&self) -> bool {
        self.writes.iter().any(|w| matches!(w, AfterWrite::Followup(_)))
    }
}

/// The after-write that keeps a Slack call's answer under `key`: its `{channel, ts}`, when the
/// call succeeded and the answer has both (`chat.postMessage`, `chat.update`, …).
pub fn remembered(key: &str, verdict: &Verdict, answer: &Value) -> Option<AfterWrite> {
    if *verdict != Verdict::Success {
        return None;
    }
    let posted = crate::state::Posted { channel: answer["channel"].as_str()?.into(), ts: answer["ts"].as_str()?.into() };
    let value = serde_json::to_string(&posted).ok()?;
    Some(AfterWrite::Remember { key: key.into(), value })
}

/// Whether a completion's claim still held when its transition was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fence {
    /// The claim held: the transition was stored, and so are the after-writes.
    Held,
    /// Another claimer owns the row: nothing of this attempt is stored but its history.
    Lost,
}

/// Whether a long job holding its claim until `held_until` should extend it at `now` (to a full
/// lease, `lease_ms`, from now) before a step that may take up to `next_step_ms`: once less than
/// three quarters of a lease is left, or less than the step may take (up to a whole lease). A job
/// that checks this between its steps (a streamed answer: before every Slack call, where its
/// fence is a read, and before every wait or read of the model) then writes its lease about once
/// a quarter lease instead of once a call, and no call starts on a claim that could run out under
/// it unless the call may take longer than a lease (which extending could not cover either).
pub fn lease_wants_extending(held_until: i64, now: i64, lease_ms: i64, next_step_ms: i64) -> bool {
    let keep = (lease_ms - lease_ms / 4).max(next_step_ms.min(lease_ms));
    held_until - now < keep
}

/// The after-writes a completion stores: all of them under a held claim, none under a lost one
/// (a fenced completion keeps no follow-up, no remembered answer, no List end).
pub fn to_store(writes: &[AfterWrite], fence: Fence) -> &[AfterWrite] {
    match fence {
        Fence::Held => writes,
        Fence::Lost => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::schedule::{When, DAY_MS};
    use serde_json::json;

    #[test]
    fn an_outcome_collects_its_writes_and_says_when_it_queues_rows() {
        let hold = AfterWrite::Hold { lane: "chat.update".into(), until: 5 };
        let plain = JobOutcome::verdict(Verdict::Success).with(hold.clone());
        assert_eq!(plain.writes, vec![hold]);
        assert!(!plain.queues_rows());
        let effect = Effect { key: "k:post".into(), action: Action::slack_api("chat.postMessage", json!({})), deadline_after_ms: Some(10) };
        let followed = plain.with(AfterWrite::Followup(NewRow::queued_at(effect, 100)));
        assert!(followed.queues_rows());
        let AfterWrite::Followup(row) = &followed.writes[1] else { panic!("a follow-up") };
        assert_eq!(row.deadline_at, Some(110), "the deadline is absolute from the time it is queued");
    }

    fn posted() -> JobOutcome {
        let answer = json!({"ok": true, "channel": "C9", "ts": "1700.000001", "message": {}});
        let remember = remembered("incident:42:post", &Verdict::Success, &answer).expect("a success with channel and ts is remembered");
        JobOutcome::verdict(Verdict::Success).with(remember)
    }

    #[test]
    fn a_held_completion_stores_the_remembered_channel_and_ts() {
        let outcome = posted();
        let stored = to_store(&outcome.writes, Fence::Held);
        let [AfterWrite::Remember { key, value }] = stored else { panic!("one remembered answer, got {stored:?}") };
        assert_eq!(key, "incident:42:post");
        assert_eq!(serde_json::from_str::<serde_json::Value>(value).unwrap(), json!({"channel": "C9", "ts": "1700.000001"}));
    }

    #[test]
    fn a_fenced_completion_stores_nothing() {
        let outcome = posted();
        assert_eq!(outcome.writes.len(), 1);
        assert!(to_store(&outcome.writes, Fence::Lost).is_empty(), "a lost claim keeps no remembered answer");
    }

    #[test]
    fn only_a_successful_answer_with_channel_and_ts_is_remembered() {
        let answer = json!({"ok": true, "channel": "C9", "ts": "1.2"});
        assert!(remembered("k", &Verdict::Transient { code: "timeout".into(), retry_after_ms: None }, &answer).is_none());
        assert!(remembered("k", &Verdict::Success, &json!({"ok": true})).is_none(), "views.open has no ts: nothing to keep");
    }

    fn scheduled(when: When) -> Effect {
        let post = Action::slack_api("chat.postMessage", json!({}));
        Effect {
            key: "sched:k|f".into(),
            action: Action::Scheduled { key: "k".into(), when, scheduled_at: None, effect: Box::new(post) },
            deadline_after_ms: Some(10),
        }
    }

    #[test]
    fn a_scheduled_rows_deadline_counts_from_its_due_time_not_from_when_it_was_queued() {
        let row = NewRow::queued_at(scheduled(When::after(1_000)), 100);
        assert_eq!(row.due_at(100), 1_100);
        assert_eq!(row.deadline_at, Some(1_110));
        let Action::Scheduled { when, scheduled_at, .. } = &row.effect.action else { panic!("scheduled") };
        assert_eq!((*when, *scheduled_at), (When::at(1_100), Some(100)), "stored resolved, with when it was scheduled");
        let plain = NewRow::queued_at(Effect { key: "k".into(), action: Action::Status { name: "s".into() }, deadline_after_ms: None }, 100);
        assert_eq!(plain.due_at(100), 100, "any other row is due when queued");
    }

    #[test]
    fn after_counts_from_the_requests_clock_and_a_resolved_schedule_keeps_its_time() {
        let row = NewRow::requested_at(scheduled(When::after(1_000).every(DAY_MS)), 5_000, 100);
        assert_eq!(row.due_at(5_000), 1_100, "the request (test clock) said 100");
        let again = NewRow::queued_at(row.effect.clone(), 9_000);
        assert_eq!(again.due_at(9_000), 1_100, "an `at` is not moved by a later queueing");
    }
}
