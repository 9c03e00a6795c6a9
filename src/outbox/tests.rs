use super::*;

fn row(attempts: u32) -> Attempted {
    Attempted { attempts, max_attempts: 3, deadline_at: None }
}

fn transient(retry_after_ms: Option<i64>) -> Verdict {
    Verdict::Transient { code: "x".into(), retry_after_ms }
}

#[test]
fn success_is_done() {
    assert_eq!(after_attempt(&RetryPolicy::default(), &row(1), &Verdict::Success, 0, 0.5), Transition::Done);
}

#[test]
fn a_permanent_error_parks_at_once_with_that_reason() {
    let v = Verdict::Permanent { code: "channel_not_found".into() };
    assert_eq!(after_attempt(&RetryPolicy::default(), &row(1), &v, 0, 0.5), Transition::Park { reason: "channel_not_found".into() });
}

#[test]
fn a_transient_error_retries_by_the_schedule() {
    let t = after_attempt(&RetryPolicy::default(), &row(1), &transient(None), 10_000, 0.5);
    assert_eq!(t, Transition::Retry { at: 11_000 });
    let t = after_attempt(&RetryPolicy::default(), &row(1), &transient(Some(7_000)), 10_000, 0.5);
    assert_eq!(t, Transition::Retry { at: 17_000 }, "a 503's Retry-After is honoured too");
}

#[test]
fn a_429_waits_exactly_for_retry_after_and_spends_no_attempt() {
    let limited = Verdict::RateLimited { retry_after_ms: Some(2_000) };
    let t = after_attempt(&RetryPolicy::default(), &row(1), &limited, 10_000, 0.9);
    assert_eq!(t, Transition::Wait { at: 12_000, cause: WaitCause::RateLimited });
    assert_eq!(Outcome::of(&t), Outcome::RateLimited);
}

#[test]
fn a_429_on_the_last_attempt_still_waits_and_a_storm_never_exhausts_a_row() {
    let limited = Verdict::RateLimited { retry_after_ms: Some(1_000) };
    // The claim counts each attempt and the wait gives it back, so a row whose every answer is
    // a 429 stays at its first attempt; even at its last one, a 429 does not park it.
    for attempts in [1, 3, 100] {
        let t = after_attempt(&RetryPolicy::default(), &row(attempts), &limited, 0, 0.5);
        assert_eq!(t, Transition::Wait { at: 1_000, cause: WaitCause::RateLimited }, "attempt {attempts}");
    }
    let without = after_attempt(&RetryPolicy::default(), &row(2), &Verdict::RateLimited { retry_after_ms: None }, 0, 0.5);
    assert_eq!(without, Transition::Wait { at: 5_000, cause: WaitCause::RateLimited }, "no Retry-After: the schedule's step");
}

#[test]
fn a_wait_past_the_deadline_parks_as_expired() {
    let r = Attempted { deadline_at: Some(10_500), ..row(1) };
    let limited = Verdict::RateLimited { retry_after_ms: Some(1_000) };
    assert_eq!(after_attempt(&RetryPolicy::default(), &r, &limited, 10_000, 0.5), Transition::Park { reason: reasons::EXPIRED.into() });
    let paced = Verdict::Paced { until: 10_600 };
    assert_eq!(after_attempt(&RetryPolicy::default(), &r, &paced, 10_000, 0.5), Transition::Park { reason: reasons::EXPIRED.into() });
    let in_time = Verdict::Paced { until: 10_400 };
    assert_eq!(after_attempt(&RetryPolicy::default(), &r, &in_time, 10_000, 0.5), Transition::Wait { at: 10_400, cause: WaitCause::Paced });
}

#[test]
fn a_paced_call_waits_for_its_slot_and_was_never_sent() {
    let t = after_attempt(&RetryPolicy::default(), &row(3), &Verdict::Paced { until: 4_000 }, 1_000, 0.5);
    assert_eq!(t, Transition::Wait { at: 4_000, cause: WaitCause::Paced });
    assert_eq!(Outcome::of(&t), Outcome::Paced);
    assert!(!Outcome::Paced.was_sent() && Outcome::RateLimited.was_sent());
}

#[test]
fn the_last_attempt_parks_as_attempts_exhausted() {
    let t = after_attempt(&RetryPolicy::default(), &row(3), &transient(None), 0, 0.5);
    assert_eq!(t, Transition::Park { reason: reasons::ATTEMPTS_EXHAUSTED.into() });
}

#[test]
fn a_retry_that_would_land_after_the_deadline_parks_as_expired() {
    let r = Attempted { deadline_at: Some(10_500), ..row(1) };
    let t = after_attempt(&RetryPolicy::default(), &r, &transient(None), 10_000, 0.5);
    assert_eq!(t, Transition::Park { reason: reasons::EXPIRED.into() });
}

#[test]
fn a_row_past_its_deadline_is_parked_before_it_is_performed() {
    let r = Attempted { deadline_at: Some(100), ..row(1) };
    assert_eq!(before_attempt(&r, 101), Some(Transition::Park { reason: reasons::EXPIRED.into() }));
    assert_eq!(before_attempt(&r, 100), None);
    assert_eq!(before_attempt(&row(1), i64::MAX), None);
}

#[test]
fn statuses_round_trip() {
    for s in [Status::Pending, Status::Done, Status::Parked] {
        assert_eq!(Status::parse(s.as_str()), Some(s));
    }
    assert_eq!(Status::parse("leased"), None);
}

#[test]
fn outcomes_follow_their_transition_and_keep_their_stored_names() {
    assert_eq!(Outcome::of(&Transition::Done), Outcome::Success);
    assert_eq!(Outcome::of(&Transition::Retry { at: 1 }), Outcome::Retry);
    assert_eq!(Outcome::of(&Transition::Park { reason: "x".into() }), Outcome::Parked);
    for o in [Outcome::Success, Outcome::Retry, Outcome::Parked, Outcome::Fenced, Outcome::RateLimited, Outcome::Paced] {
        assert_eq!(serde_json::to_value(o).unwrap(), o.as_str());
    }
}

#[test]
fn the_failure_streak_counts_only_failures_that_reached_the_target() {
    let cases = [
        (Outcome::Success, None, StreakChange::Reset),
        (Outcome::Success, Some("x"), StreakChange::Reset),
        (Outcome::Retry, Some("ratelimited"), StreakChange::Extend),
        (Outcome::Parked, Some("channel_not_found"), StreakChange::Extend),
        (Outcome::Parked, None, StreakChange::Keep), // expired before it was performed
        (Outcome::Fenced, Some("internal_error"), StreakChange::Keep),
        (Outcome::RateLimited, Some("ratelimited"), StreakChange::Keep),
        (Outcome::Paced, None, StreakChange::Keep),
    ];
    for (outcome, error, change) in cases {
        assert_eq!(outcome.streak_change(error), change, "{outcome:?} {error:?}");
    }
}

#[test]
fn a_streak_alerts_at_each_multiple_of_the_threshold() {
    let alerting: Vec<i64> = (0..=11).filter(|&n| streak_alerts(n, 5)).collect();
    assert_eq!(alerting, vec![5, 10]);
    assert!(!streak_alerts(3, 0), "a zero threshold never divides");
}

#[test]
fn triggers_are_named_in_snake_case() {
    assert_eq!(serde_json::to_value(Trigger::Alarm).unwrap(), "alarm");
    assert_eq!(serde_json::to_value(Trigger::Admin).unwrap(), "admin");
}

#[test]
fn a_long_job_extends_its_lease_only_once_less_than_three_quarters_or_its_next_step_is_left() {
    use crate::kinds::completion::lease_wants_extending;
    let (now, lease, call) = (1_000_000, 60_000, 15_000);
    assert!(!lease_wants_extending(now + lease, now, lease, call), "a full lease");
    assert!(!lease_wants_extending(now + 45_000, now, lease, call), "exactly three quarters");
    assert!(lease_wants_extending(now + 44_999, now, lease, call), "less than three quarters");
    assert!(lease_wants_extending(now - 1, now, lease, call), "already run out (no one took it)");
    assert!(lease_wants_extending(0, now, lease, call), "not yet known");
    // A lease barely above the step: the step must fit in what is left.
    let (short, slow) = (3_000, 2_500);
    assert!(lease_wants_extending(now + 2_400, now, short, slow), "2.4 s left, above three quarters, but the step may take 2.5 s");
    assert!(!lease_wants_extending(now + 2_600, now, short, slow));
    // A step longer than a lease: a full lease is the most extending can give.
    assert!(!lease_wants_extending(now + short, now, short, 30_000));
    assert!(lease_wants_extending(now + short - 1, now, short, 30_000));
}
