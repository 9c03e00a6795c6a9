//! The front door's first decision about a Slack request, made from its headers alone, before the
//! body is read: take it on with a [`Deadline`], or shed it at once with a 500.
//!
//! **Why.** Slack's 3 s clock starts when Slack sends the request, not when the Worker starts on
//! it. A request can wait before the Worker runs at all — for an isolate that is busy with the
//! requests before it — and the Worker cannot see that wait. It can read when Slack signed the
//! request, though: `X-Slack-Request-Timestamp`, whole seconds, signed at the send (each delivery,
//! retries included, is signed when it is sent; that is what makes the 5-minute replay window
//! work). So the deadline is the earlier of two:
//! - the arrival plus `ACK_BUDGET_MS` (the budget the operator set), and
//! - the latest moment Slack may still be waiting, less a margin for the answer's trip back:
//!   [`SLACK_TIMEOUT_MS`] − [`ANSWER_MARGIN_MS`] after the signed second.
//!
//! A request with less than [`MIN_WORK_MS`] of that left is **shed**: a 500 before its body is
//! read, hashed or parsed, and nothing recorded. Slack has given up on it or is about to, and its
//! retry is a new request. Shedding costs a fraction of taking a request on, so under overload
//! the queue before the Worker drains instead of growing: the requests that are taken on are the
//! fresh ones, answered before Slack's timeout, and the stale ones are answered at once.
//!
//! **Invariants.** Only a request's age can shed it, never the load of other teams. A request is
//! never shed when its signed second is within `SLACK_TIMEOUT_MS − ANSWER_MARGIN_MS − MIN_WORK_MS
//! − 1 s` of now (1.5 s with the defaults), so nothing is shed on an idle runtime. A retry
//! (`X-Slack-Retry-Num`) is never shed at the door — it may be Slack's last try — and its deadline
//! is the budget's alone. A timestamp that is missing, malformed or beyond the signature's window
//! is not judged here: the signature check refuses it (401).
//!
//! **Assumed.** The Worker's clock and Slack's agree to well under a second (both keep NTP time).

use crate::ingest::Deadline;
use crate::slack::signature::MAX_SKEW_SECS;

/// Slack's own timeout: a delivery not answered by then is counted failed and retried.
pub const SLACK_TIMEOUT_MS: i64 = 3_000;
/// Kept between the deadline and Slack's timeout: the answer's way back, a timer firing late.
pub const ANSWER_MARGIN_MS: i64 = 250;
/// The least time left that is worth starting a request with (reading, verifying, the unit).
pub const MIN_WORK_MS: i64 = 250;

/// A Slack request as the front door first sees it.
#[derive(Debug, Clone, Copy)]
pub struct Arrival {
    /// When the Worker started on it (the front door's clock, epoch ms).
    pub started_ms: i64,
    /// The clock its signature is checked against (the test clock, when allowed), epoch ms.
    pub now_ms: i64,
    /// Its `X-Slack-Request-Timestamp`, when that is a number.
    pub signed_at_secs: Option<i64>,
    /// Whether it carries `X-Slack-Retry-Num`.
    pub retry: bool,
}

/// What the front door does with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    /// Take it on, answering by this deadline.
    Admit(Deadline),
    /// Answer 500 now: Slack's timeout leaves less than [`MIN_WORK_MS`].
    Shed {
        /// How long ago its signed second began.
        age_ms: i64,
    },
}

impl Arrival {
    /// Reads the two headers the decision needs.
    pub fn new(started_ms: i64, now_ms: i64, timestamp: Option<&str>, retry_num: Option<&str>) -> Arrival {
        Arrival { started_ms, now_ms, signed_at_secs: timestamp.and_then(|t| t.trim().parse().ok()), retry: retry_num.is_some() }
    }

    /// Admit with a deadline, or shed (see the module docs).
    pub fn door(self, budget_ms: i64) -> Door {
        let by_budget = Deadline(self.started_ms + budget_ms);
        let Some(signed_at) = self.signed_at_secs.filter(|_| !self.retry) else {
            return Door::Admit(by_budget);
        };
        let age_ms = (self.now_ms - signed_at.saturating_mul(1000)).max(0);
        if age_ms > MAX_SKEW_SECS * 1000 {
            return Door::Admit(by_budget);
        }
        let slack_left = SLACK_TIMEOUT_MS - ANSWER_MARGIN_MS - age_ms;
        if slack_left < MIN_WORK_MS {
            return Door::Shed { age_ms };
        }
        Door::Admit(Deadline(self.started_ms + slack_left.min(budget_ms)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUDGET: i64 = 2_000;
    /// The front door's clock; the signer's is offset from it to show the two are kept apart.
    const STARTED: i64 = 5_000_000;
    const SIGNER_NOW: i64 = 1_700_000_000_000;

    fn arrival(age_ms: i64, retry: bool) -> Arrival {
        let signed_at = (SIGNER_NOW - age_ms).div_euclid(1000);
        Arrival { started_ms: STARTED, now_ms: SIGNER_NOW, signed_at_secs: Some(signed_at), retry }
    }

    #[test]
    fn a_fresh_request_gets_the_budget_or_slacks_clock_whichever_ends_first() {
        // Signed at the start of the current second: 2.75 s left by Slack's clock, so the budget.
        let start_of_second = Arrival { signed_at_secs: Some(SIGNER_NOW / 1000), ..arrival(0, false) };
        assert_eq!(start_of_second.door(BUDGET), Door::Admit(Deadline(STARTED + BUDGET)));
        // 900 ms into its second: Slack may have sent it 900 ms ago, so 1.85 s are left.
        let late_in_second = Arrival { now_ms: SIGNER_NOW + 900, signed_at_secs: Some(SIGNER_NOW / 1000), ..arrival(0, false) };
        assert_eq!(late_in_second.door(BUDGET), Door::Admit(Deadline(STARTED + 1_850)));
    }

    #[test]
    fn a_small_budget_is_kept() {
        assert_eq!(arrival(0, false).door(500), Door::Admit(Deadline(STARTED + 500)));
    }

    #[test]
    fn nothing_younger_than_a_second_and_a_half_is_shed() {
        for age in (0..=1_500).step_by(10) {
            assert!(matches!(arrival(age, false).door(BUDGET), Door::Admit(_)), "age {age}");
        }
    }

    #[test]
    fn a_request_slack_has_given_up_on_is_shed() {
        for age in (2_510..10_000).step_by(10) {
            assert!(matches!(arrival(age, false).door(BUDGET), Door::Shed { .. }), "age {age}");
        }
        assert!(matches!(arrival(60_000, false).door(BUDGET), Door::Shed { age_ms } if age_ms >= 60_000));
    }

    #[test]
    fn every_admitted_deadline_ends_before_slacks_timeout() {
        for age in (0..3_000).step_by(7) {
            if let Door::Admit(Deadline(d)) = arrival(age, false).door(BUDGET) {
                // By the signer's clock, the deadline is (d - STARTED) after now; Slack sent it `age` ago.
                assert!(age + (d - STARTED) <= SLACK_TIMEOUT_MS - ANSWER_MARGIN_MS, "age {age}");
                assert!(d - STARTED >= MIN_WORK_MS, "age {age}");
            }
        }
    }

    #[test]
    fn a_retry_is_never_shed_and_keeps_the_whole_budget() {
        assert_eq!(arrival(2_900, true).door(BUDGET), Door::Admit(Deadline(STARTED + BUDGET)));
        assert_eq!(arrival(60_000, true).door(BUDGET), Door::Admit(Deadline(STARTED + BUDGET)));
    }

    #[test]
    fn timestamps_the_signature_check_refuses_are_left_to_it() {
        let missing = Arrival { signed_at_secs: None, ..arrival(0, false) };
        assert_eq!(missing.door(BUDGET), Door::Admit(Deadline(STARTED + BUDGET)));
        let replay = arrival((MAX_SKEW_SECS + 1) * 1000, false);
        assert_eq!(replay.door(BUDGET), Door::Admit(Deadline(STARTED + BUDGET)));
        assert_eq!(Arrival::new(STARTED, SIGNER_NOW, Some("soon"), None).door(BUDGET), Door::Admit(Deadline(STARTED + BUDGET)));
    }

    #[test]
    fn a_timestamp_from_the_future_counts_as_fresh() {
        let future = Arrival { signed_at_secs: Some(SIGNER_NOW / 1000 + 30), ..arrival(0, false) };
        assert_eq!(future.door(BUDGET), Door::Admit(Deadline(STARTED + BUDGET)));
    }

    #[test]
    fn the_headers_are_read() {
        let a = Arrival::new(STARTED, SIGNER_NOW, Some(" 1700000000 "), Some("1"));
        assert_eq!((a.signed_at_secs, a.retry), (Some(1_700_000_000), true));
    }
}
