//! Every Slack error a kind names, from Slack's HTTP answer through the classifier to the kind's
//! own judge: `200 {"ok": false, "error": code}`, judged by `classify_web_api` (as the adapter
//! judges every Web API answer), then handed to the kind as its job hands it. A kind that names a
//! code the classifier makes into something else fails here — as a step's
//! `execution_not_in_running_state` once did: its judge waited for a refusal, the classifier
//! said "transient", and an ended step was called again and again.
//!
//! A kind that names a Slack error lists it in a constant its judge reads; this file reads the
//! same constants, so a new code is checked as it is added.

use crate::kinds::assistant::calls::{reply, TEST_TARGET};
use crate::kinds::assistant::stream::{Call, Reply, NO_STREAMING, REFUSALS};
use crate::kinds::lists::sync::{after_call, Plan, RecordWrite, GONE};
use crate::kinds::step::end::{judge, Judged, StepEnd, ENDED, OUTPUTS_REFUSED, UNENDABLE};
use crate::slack::classify::{classify_web_api, Verdict};
use serde_json::{json, Value};

/// Slack's answer refusing a call with `code`, judged as the adapter judges it.
fn answered(code: &str) -> Verdict {
    classify_web_api(200, None, &json!({"ok": false, "error": code}))
}

#[test]
fn a_steps_ending_hears_ended_unendable_and_refused_outputs_as_its_judge_expects() {
    let success = StepEnd::Success { outputs: json!({"ticket_id": "TCK-1"}) };
    let failure = StepEnd::Error { error: "no ticket system".into() };
    for code in ENDED {
        assert_eq!(judge(&success, answered(code)), Judged::Ended, "{code}");
        assert_eq!(judge(&failure, answered(code)), Judged::Ended, "{code}");
    }
    for code in UNENDABLE {
        assert_eq!(judge(&success, answered(code)), Judged::Unendable { code: code.to_string() }, "{code}");
    }
    for code in OUTPUTS_REFUSED {
        assert_eq!(judge(&success, answered(code)), Judged::OutputsRefused { code: code.to_string() }, "{code}");
    }
    // Slack's "try again" stays a retry, never an ending.
    assert!(matches!(judge(&success, answered("internal_error")), Judged::NotEnded(Verdict::Transient { .. })));
}

#[test]
fn a_streamed_answers_named_refusals_reach_its_state_machine_as_refusals() {
    let append = Call::Append { ts: "2.0".into(), chunks: Vec::new() };
    for code in REFUSALS.iter().chain(NO_STREAMING) {
        assert_eq!(reply(&TEST_TARGET, &append, &answered(code), &Value::Null), Reply::Refused(code.to_string()), "{code}");
    }
    for code in ["internal_error", "fatal_error", "service_unavailable", "request_timeout"] {
        assert_eq!(reply(&TEST_TARGET, &append, &answered(code), &Value::Null), Reply::Transient(code.to_string()), "{code}: retried, not refused");
    }
}

#[test]
fn a_lists_delete_of_a_row_slack_no_longer_has_is_done_and_an_update_of_it_parks() {
    for code in GONE {
        let verdict = answered(code);
        assert_eq!(verdict, Verdict::Permanent { code: code.to_string() }, "{code}: parked at once, not retried");
        assert_eq!(after_call(&Plan::Delete { row_id: "Rec1".into() }, 3, verdict.code(), false), RecordWrite::Gone, "{code}");
        assert_eq!(after_call(&Plan::Update { row_id: "Rec1".into() }, 3, verdict.code(), true), RecordWrite::Failed { error: code.to_string() }, "{code}");
    }
}
