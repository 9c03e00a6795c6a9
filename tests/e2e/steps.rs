//! Workflow Builder custom steps, end to end: the tally's step (`tally_step`, in the shared
//! runtime, whose `STEP_DEADLINE_MS` is 3 s) against the fake Slack, which keeps each execution's
//! first ending and refuses any later one (`execution_not_in_running_state`), as Slack does.
//!
//! What each test checks is what the workflow sees: the step ends once, with the handler's outputs
//! or a readable error, whatever happened to the event or the handler.

use crate::support::slack::envelope;
use crate::support::{eventually, shared, unique, Reply};
use serde_json::{json, Value};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(30);

/// A workflow reaching the tally's step: execution `execution`, with `mode` as an input (and the
/// tally's marker, which sends it to the tally in the test runtimes).
fn step_event(team: &str, execution: &str, mode: &str) -> Value {
    let event = json!({
        "type": "function_executed",
        "function": {"id": "Fn1", "callback_id": "tally_step", "title": "Tally step"},
        "inputs": {"mode": mode, "note": "slackline-tally"},
        "function_execution_id": execution,
        "workflow_execution_id": unique("Wx"),
        "bot_access_token": format!("xwfp-{execution}"),
        "event_ts": "1700000000.000100"
    });
    envelope(team, &unique("Ev"), event)
}

/// Waits until `team`'s rows have all ended (the guard included, due 3 s after the event), one
/// of them done.
fn settled(team: &str) {
    settled_with(team, "done");
}

/// Waits until `team` has no pending row left and one `status` row (`done`, or `parked`: an
/// ending Slack refused).
fn settled_with(team: &str, status: &str) {
    let c = shared().runtime.client();
    eventually(&format!("{team}'s rows ended"), WAIT, || (c.rows(team, "pending").is_empty() && !c.rows(team, status).is_empty()).then_some(()));
}

/// The calls that ended (or tried to end) `execution` at the fake.
fn endings(execution: &str) -> usize {
    let fake = &shared().fake;
    fake.calls("functions.completeSuccess", execution).len() + fake.calls("functions.completeError", execution).len()
}

#[test]
fn a_step_delivered_four_ways_completes_once_with_its_outputs_and_its_guard_sends_nothing() {
    let (team, execution) = (unique("T"), unique("Fx"));
    let first = step_event(&team, &execution, "complete");
    let c = shared().runtime.client();
    assert_eq!(c.event(&first).status, 200);
    for retry in ["1", "2"] {
        assert_eq!(c.event_delivery(&first.to_string(), Some(retry), &[]).status, 200);
    }
    let mut fresh = first.clone();
    fresh["event_id"] = json!(unique("Ev"));
    assert_eq!(c.event(&fresh).status, 200, "the same execution under a new event id");
    let (method, args) = eventually("the step ended", WAIT, || shared().fake.step_end(&execution));
    assert_eq!((method.as_str(), &args["outputs"]["mode"]), ("functions.completeSuccess", &json!("complete")));
    let ending = &shared().fake.calls("functions.completeSuccess", &execution)[0];
    assert_eq!(ending.token(), Some(format!("xwfp-{execution}").as_str()), "sent with the execution's own token");
    settled(&team);
    assert_eq!(endings(&execution), 1, "one ending; the guard found the step ended and sent nothing");
    assert!(c.rows(&team, "parked").is_empty());
    // The ending dropped the guard while it waited: never claimed, no wake at its deadline, no
    // row left to prune; the ending's own row is kept, done.
    let guard_key = format!("step:{execution}:guard");
    for status in ["pending", "done", "parked"] {
        assert!(c.rows(&team, status).iter().all(|r| r["idem_key"] != guard_key), "the guard is gone, not {status}");
    }
    assert!(c.rows(&team, "done").iter().any(|r| r["idem_key"] == format!("step:{execution}:end")), "the ending's row, done");
}

#[test]
fn a_handler_that_fails_fails_the_step_with_its_message_and_keeps_the_request() {
    let (team, execution) = (unique("T"), unique("Fx"));
    assert_eq!(shared().runtime.client().event(&step_event(&team, &execution, "fail")).status, 200);
    let (method, args) = eventually("the step failed", WAIT, || shared().fake.step_end(&execution));
    assert_eq!((method.as_str(), args["error"].as_str()), ("functions.completeError", Some("The app's step failed: the tally step was told to fail")));
    let c = shared().runtime.client();
    let kept = eventually("the request kept", WAIT, || c.rows(&team, "parked").into_iter().find(|r| r["reason"] == "handler_failed"));
    assert_eq!(kept["effect"], "handler", "kept for a redrive");
    assert_eq!(endings(&execution), 1);
}

#[test]
fn a_step_whose_handler_queued_no_ending_is_failed_by_its_guard_at_the_deadline() {
    let (team, execution) = (unique("T"), unique("Fx"));
    assert_eq!(shared().runtime.client().event(&step_event(&team, &execution, "silent")).status, 200);
    let (method, args) = eventually("the guard failed the step", WAIT, || shared().fake.step_end(&execution));
    assert_eq!((method.as_str(), args["error"].as_str()), ("functions.completeError", Some("The app did not finish this step within 1 minutes.")));
    settled(&team);
    assert_eq!(endings(&execution), 1);
}

/// A step the handler completes, whose `completeSuccess` Slack answers with `code` as often as
/// it is asked: its (team, execution), acknowledged.
fn step_slack_refuses_ending(code: &'static str) -> (String, String) {
    let (team, execution) = (unique("T"), unique("Fx"));
    shared().fake.script("functions.completeSuccess", &execution, (0..5).map(|_| Reply::Error(code)).collect());
    assert_eq!(shared().runtime.client().event(&step_event(&team, &execution, "complete")).status, 200);
    (team, execution)
}

#[test]
fn a_step_slack_says_has_ended_is_not_called_again_by_its_ending_or_its_guard() {
    // Slack ended the execution already (its own timeout, another app's ending): it answers
    // `execution_not_in_running_state`, which means ended — not a failure to retry.
    let (team, execution) = step_slack_refuses_ending("execution_not_in_running_state");
    let c = shared().runtime.client();
    settled(&team);
    assert_eq!(shared().fake.calls("functions.completeSuccess", &execution).len(), 1, "asked once; the answer said ended");
    assert!(shared().fake.calls("functions.completeError", &execution).is_empty(), "the guard found the step ended");
    assert!(c.rows(&team, "parked").is_empty(), "ended is not a failure");
    assert!(c.rows(&team, "done").iter().any(|r| r["idem_key"] == format!("step:{execution}:end")));
}

#[test]
fn outputs_slack_refuses_fail_the_step_at_once_in_words_and_park_the_ending() {
    let (team, execution) = step_slack_refuses_ending("parameter_validation_failed");
    let c = shared().runtime.client();
    let (method, args) = eventually("the step failed", WAIT, || shared().fake.step_end(&execution));
    assert_eq!(method, "functions.completeError");
    assert_eq!(
        args["error"].as_str(),
        Some("The app's step finished, but Slack refused its outputs (parameter_validation_failed): they do not match the step's output parameters.")
    );
    settled_with(&team, "parked");
    assert_eq!(shared().fake.calls("functions.completeSuccess", &execution).len(), 1, "the refused outputs are not sent again");
    assert_eq!(shared().fake.calls("functions.completeError", &execution).len(), 1, "failed once; the guard sends nothing");
    let parked = c.rows(&team, "parked");
    assert_eq!(parked.len(), 1, "{parked:?}");
    assert_eq!(parked[0]["reason"], "parameter_validation_failed");
}

#[test]
fn an_execution_slack_does_not_know_parks_its_ending_and_its_guard_sends_nothing() {
    let (team, execution) = step_slack_refuses_ending("function_execution_not_found");
    let c = shared().runtime.client();
    settled_with(&team, "parked");
    assert_eq!(shared().fake.calls("functions.completeSuccess", &execution).len(), 1);
    assert!(shared().fake.calls("functions.completeError", &execution).is_empty(), "nothing can end it: the guard does not try");
    let parked = c.rows(&team, "parked");
    assert_eq!(parked.len(), 1, "{parked:?}");
    assert_eq!(parked[0]["reason"], "function_execution_not_found");
}
