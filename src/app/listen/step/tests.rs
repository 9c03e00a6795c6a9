use super::StepIn;
use crate::app::listen::Listeners;
use crate::testing::{action, function_executed, Team};
use serde_json::json;

fn app() -> Listeners {
    Listeners::new()
        .function("create_ticket", |step: &StepIn, cx| {
            let title = step.input("title").ok_or("the step needs a title")?;
            cx.complete(json!({ "ticket_id": format!("TCK-{}", title.len()) }));
            cx.fail("a second ending adds nothing");
            Ok(())
        })
        .function("approve", |_, cx| {
            cx.say("C1", "Approve?");
            Ok(())
        })
        .action("approve_yes", |_, cx| {
            cx.complete(json!({ "approved": true }));
            Ok(())
        })
}

#[test]
fn a_step_completes_with_its_outputs_under_one_key_per_execution() {
    let done = Team::new().handle(&app(), &function_executed("create_ticket", "Fx1", json!({"title": "Printer"})));
    let queued = done.queued();
    assert_eq!(queued.len(), 2, "{queued:?}");
    assert_eq!(
        (queued[0].method.as_str(), &queued[0].args),
        ("functions.completeSuccess", &json!({"function_execution_id": "Fx1", "outputs": {"ticket_id": "TCK-7"}}))
    );
    assert_eq!(queued[0].key, "step:Fx1:end");
    assert_eq!(queued[1].key, queued[0].key, "a second ending shares the key: the outbox keeps the first");
}

#[test]
fn another_steps_execution_goes_to_its_own_listener_and_a_bad_input_fails_the_handler() {
    let done = Team::new().handle(&app(), &function_executed("approve", "Fx2", json!({})));
    assert_eq!(done.calls()[0].0, "chat.postMessage");
    let failed = Team::new().handle(&app(), &function_executed("create_ticket", "Fx3", json!({})));
    assert!(failed.failed.as_deref().is_some_and(|e| e.contains("needs a title")), "{:?}", failed.failed);
}

#[test]
fn a_button_the_step_posted_completes_that_execution_and_elsewhere_complete_is_a_misuse() {
    let mut press = action("approve_yes", "yes");
    if let crate::slack::envelope::Dispatch::Interaction(i) = &mut press {
        i.raw["function_data"] = json!({"execution_id": "Fx9", "function": {"callback_id": "approve"}});
    }
    let done = Team::new().handle(&app(), &press);
    assert_eq!(done.queued()[0].key, "step:Fx9:end");
    assert_eq!(done.queued()[0].args["outputs"], json!({"approved": true}));
    let elsewhere = Team::new().handle(&app(), &action("approve_yes", "yes"));
    assert!(elsewhere.failed.as_deref().is_some_and(|e| e.contains("not a Workflow step")), "{:?}", elsewhere.failed);
}
