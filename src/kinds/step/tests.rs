use super::*;
use crate::slack::classify::Verdict;

fn event() -> Value {
    json!({
        "type": "function_executed",
        "function": {"id": "Fn1", "callback_id": "create_ticket", "title": "Create ticket"},
        "inputs": {"title": "Printer on fire", "priority": "high"},
        "function_execution_id": "Fx1",
        "workflow_execution_id": "Wx1",
        "bot_access_token": "xwfp-secret",
        "event_ts": "1700000000.000100"
    })
}

#[test]
fn a_function_executed_event_reads_as_the_step_it_starts() {
    let step = StepStarted::from_event(&event()).unwrap();
    assert_eq!((step.callback_id.as_str(), step.execution_id.as_str(), step.token.as_str()), ("create_ticket", "Fx1", "xwfp-secret"));
    assert_eq!(step.workflow_execution_id.as_deref(), Some("Wx1"));
    assert_eq!(step.inputs["title"], "Printer on fire");
    for missing in ["/function_execution_id", "/bot_access_token"] {
        let mut broken = event();
        let (parent, name) = missing.rsplit_once('/').unwrap();
        broken.pointer_mut(if parent.is_empty() { "" } else { parent }).unwrap().as_object_mut().unwrap().remove(name);
        assert!(StepStarted::from_event(&broken).unwrap_err().contains(name), "{missing}");
    }
}

#[test]
fn an_ending_is_complete_success_or_complete_error_for_its_execution() {
    let (m, args) = call("Fx1", &StepEnd::Success { outputs: json!({"ticket_id": "TCK-1"}) });
    assert_eq!((m, args), ("functions.completeSuccess", json!({"function_execution_id": "Fx1", "outputs": {"ticket_id": "TCK-1"}})));
    let (m, args) = call("Fx1", &StepEnd::Error { error: "x".repeat(900) });
    assert_eq!(m, "functions.completeError");
    assert_eq!(args["error"].as_str().unwrap().chars().count(), MAX_ERROR_CHARS);
    assert_ne!(end_key("Fx1"), guard_key("Fx1"));
}

#[test]
fn a_step_that_had_ended_is_ended_by_shape_and_other_refusals_are_not() {
    let success = StepEnd::Success { outputs: json!({}) };
    let failure = StepEnd::Error { error: "x".into() };
    let permanent = |code: &str| Verdict::Permanent { code: code.into() };
    assert_eq!(judge(&success, Verdict::Success), Judged::Ended);
    assert_eq!(judge(&success, permanent("execution_not_in_running_state")), Judged::Ended);
    assert_eq!(judge(&failure, permanent("token_revoked")), Judged::Ended, "the execution's token dies with its step");
    assert_eq!(judge(&success, permanent("function_execution_not_found")), Judged::Unendable { code: "function_execution_not_found".into() });
    assert_eq!(judge(&success, permanent("parameter_validation_failed")), Judged::OutputsRefused { code: "parameter_validation_failed".into() });
    let bad = permanent("parameter_validation_failed");
    assert_eq!(judge(&failure, bad.clone()), Judged::NotEnded(bad), "an error has no outputs to refuse");
    assert_eq!(judge(&success, Verdict::transient("internal_error")), Judged::NotEnded(Verdict::transient("internal_error")));
}

#[test]
fn refused_outputs_fail_the_step_in_words_that_name_slacks_error() {
    assert_eq!(
        outputs_refused("parameter_validation_failed"),
        "The app's step finished, but Slack refused its outputs (parameter_validation_failed): they do not match the step's output parameters."
    );
}

#[test]
fn the_guard_says_why_in_words() {
    assert_eq!(handler_failed("no ticket system"), "The app's step failed: no ticket system");
    assert_eq!(timed_out(DEFAULT_STEP_DEADLINE_MS), "The app did not finish this step within 15 minutes.");
    assert_eq!(timed_out(90_000), "The app did not finish this step within 2 minutes.");
}

#[test]
fn every_execution_is_recorded_with_a_guard_due_at_its_deadline_or_at_once_when_its_handler_failed() {
    let step = StepStarted::from_event(&event()).unwrap();
    let calm = recording(&step, "sealed".into(), 1_000, 60_000, None);
    assert_eq!((calm.deadline_at, calm.guard_due, calm.guard.key.as_str()), (61_000, 61_000, "step:Fx1:guard"));
    assert_eq!(calm.guard.action, Action::StepGuard { execution_id: "Fx1".into(), error: "The app did not finish this step within 1 minutes.".into() });
    let failed = recording(&step, "sealed".into(), 1_000, 60_000, Some("boom"));
    assert_eq!(failed.guard_due, 1_000, "at once");
    assert_eq!(failed.guard.action, Action::StepGuard { execution_id: "Fx1".into(), error: "The app's step failed: boom".into() });
}
