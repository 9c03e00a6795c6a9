//! The desk's behaviour, natively (`slackline::testing`): what each request queues, acks and
//! writes.

use super::*;
use serde_json::{json, Value};
use slackline::testing::{
    action, command, entity_details_requested, function_executed, handle, interaction, link_shared, link_shared_in_composer, view_submission, Handled, Team,
    Values,
};
use ticket::{Priority, PRIORITY, TITLE};

const DESK: &str = "C0DESK";

fn desk() -> Listeners {
    app(&Vars::of(&[(CHANNEL_VAR, DESK)]))
}

fn submission(title: &str, priority: &str) -> Dispatch {
    view_submission(MODAL, Values::new().with(TITLE, title.into()).with(PRIORITY, priority.into()))
}

/// A team with the ticket `TCK-1` submitted, its post remembered as Slack answered it (`C0DESK`,
/// `9.1`, as the unit's `remember` would store it).
fn one_ticket() -> Team {
    let team = Team::new();
    team.handle(&desk(), &submission("Printer on fire", "high"));
    team.remember(&post_key("TCK-1"), DESK, "9.1");
    team
}

/// A click on `button` of the ticket `id`'s post by `user`, with its own `trigger_id`.
fn click(button: ActionId, id: &str, user: &str, trigger: &str) -> Dispatch {
    interaction(json!({
        "type": "block_actions", "trigger_id": trigger, "user": { "id": user, "team_id": "T1" },
        "container": { "type": "message", "channel_id": DESK, "message_ts": "9.1" }, "channel": { "id": DESK }, "message": { "ts": "9.1" },
        "actions": [{ "type": "button", "action_id": button.as_str(), "block_id": "b", "value": id }],
    }))
}

fn calls_of(done: &Handled, method: &str) -> Vec<Value> {
    done.calls().into_iter().filter(|(m, _)| m == method).map(|(_, args)| args).collect()
}

fn buttons(blocks: &Value) -> Vec<String> {
    let actions = blocks.as_array().unwrap().iter().find(|b| b["type"] == "actions");
    actions.map(|a| a["elements"].as_array().unwrap().iter().map(|e| e["action_id"].as_str().unwrap().to_string()).collect()).unwrap_or_default()
}

#[test]
fn the_command_opens_the_modal_filled_with_its_text() {
    let done = handle(&desk(), &command(COMMAND, "  Printer on fire "));
    assert_eq!(done.ack, None, "no ack body: an empty 200");
    let (method, args) = &done.calls()[0];
    assert_eq!(method, "views.open");
    assert!(args["trigger_id"].as_str().is_some_and(|t| t.starts_with("trig.")), "{args}");
    let view = &args["view"];
    assert_eq!(view["callback_id"], MODAL);
    let blocks: Vec<&str> = view["blocks"].as_array().unwrap().iter().filter_map(|b| b["block_id"].as_str()).collect();
    assert_eq!(blocks, [TITLE.block_id(), PRIORITY.block_id()]);
    assert_eq!(view["blocks"][0]["element"]["initial_value"], "Printer on fire");
    assert_eq!(view["blocks"][1]["element"]["initial_option"]["value"], "normal");
    let empty = handle(&desk(), &command(COMMAND, ""));
    assert!(empty.calls()[0].1["view"]["blocks"][0]["element"].get("initial_value").is_none(), "nothing typed: an empty title");
}

#[test]
fn a_submission_without_a_title_is_refused_in_the_modal_and_records_nothing() {
    let team = Team::new();
    for title in ["", "   "] {
        let done = team.handle(&desk(), &submission(title, "high"));
        assert_eq!(done.ack, Some(json!({ "response_action": "errors", "errors": { "ticket_title": "Say what the ticket is about" } })));
        assert!(done.effects.is_empty() && done.state_writes().is_empty(), "{:?}", done.effects);
    }
    let too_long = team.handle(&desk(), &submission(&"x".repeat(151), "low"));
    assert_eq!(too_long.ack.unwrap()["errors"], json!({ "ticket_title": "Keep the title under 150 characters" }));
    assert_eq!(team.value(LAST_NUMBER_KEY), None, "no number given out");
}

#[test]
fn valid_submissions_become_the_next_tickets_posted_in_the_desk_channel_with_take_and_close() {
    let team = Team::new();
    let done = team.handle(&desk(), &submission(" Printer <on> fire ", "high"));
    assert_eq!(done.ack, None, "the modal closes");
    let post = &done.queued()[0];
    assert_eq!((post.method.as_str(), post.args["channel"].as_str()), ("chat.postMessage", Some(DESK)));
    assert_eq!(post.args["text"], "TCK-1 (High): Printer &lt;on&gt; fire");
    assert_eq!(post.remember.as_deref(), Some(post_key("TCK-1").as_str()), "the post remembered for the buttons");
    assert_eq!(buttons(&post.args["blocks"]), [TAKE.as_str(), CLOSE.as_str()]);
    assert_eq!(post.args["blocks"][2]["elements"][0]["value"], "TCK-1", "each button carries the ticket's id");
    assert_eq!(
        team.value(&ticket_key("TCK-1")),
        Some(json!({ "id": "TCK-1", "title": "Printer <on> fire", "priority": "high", "reporter": "U1", "status": "open", "taker": null, "closer": null }))
    );
    let second = team.handle(&desk(), &submission("Badge reader", "low"));
    assert_eq!(second.calls()[0].1["text"], "TCK-2 (Low): Badge reader");
    assert_eq!(team.value(LAST_NUMBER_KEY), Some(json!(2)));
}

#[test]
fn without_a_desk_channel_a_submission_fails_and_is_kept_for_a_redrive() {
    let done = handle(&app(&Vars::of(&[])), &submission("Printer on fire", "normal"));
    assert!(done.failed.as_deref().is_some_and(|why| why.contains(CHANNEL_VAR)), "{:?}", done.failed);
}

#[test]
fn take_records_the_taker_updates_the_post_and_dms_them_once() {
    let team = one_ticket();
    let done = team.handle(&desk(), &click(TAKE, "TCK-1", "U7", "trig.t1"));
    let stored = team.value(&ticket_key("TCK-1")).unwrap();
    assert_eq!((stored["status"].as_str(), stored["taker"].as_str()), (Some("taken"), Some("U7")));
    let update = &calls_of(&done, "chat.update")[0];
    assert_eq!((update["channel"].as_str(), update["ts"].as_str()), (Some(DESK), Some("9.1")), "the remembered post");
    assert_eq!(buttons(&update["blocks"]), [CLOSE.as_str()], "Take is gone");
    assert!(update.to_string().contains("Taken by <@U7>"), "{update}");
    let dm = &calls_of(&done, "chat.postMessage")[0];
    assert_eq!(dm["channel"], "U7", "a post to a user id: their DM with the app");
    assert!(dm["text"].as_str().unwrap().starts_with("You took <https://tickets.slackline.example/TCK-1|TCK-1>"), "{dm}");

    let retry = team.handle(&desk(), &click(TAKE, "TCK-1", "U7", "trig.t1"));
    let another = team.handle(&desk(), &click(TAKE, "TCK-1", "U8", "trig.t2"));
    assert!(retry.effects.is_empty() && another.effects.is_empty(), "taken already: nothing");
    assert_eq!(team.value(&ticket_key("TCK-1")).unwrap()["taker"], "U7");
}

#[test]
fn close_closes_the_ticket_and_leaves_its_post_without_buttons() {
    let team = one_ticket();
    team.handle(&desk(), &click(TAKE, "TCK-1", "U7", "trig.t1"));
    let done = team.handle(&desk(), &click(CLOSE, "TCK-1", "U8", "trig.c1"));
    let stored = team.value(&ticket_key("TCK-1")).unwrap();
    assert_eq!((stored["status"].as_str(), stored["closer"].as_str()), (Some("closed"), Some("U8")));
    let update = &calls_of(&done, "chat.update")[0];
    assert!(buttons(&update["blocks"]).is_empty(), "no buttons once closed: {update}");
    assert!(calls_of(&done, "chat.postMessage").is_empty(), "no DM for a close");
    assert!(team.handle(&desk(), &click(CLOSE, "TCK-1", "U8", "trig.c2")).effects.is_empty(), "closed already");
    assert!(team.handle(&desk(), &click(TAKE, "TCK-1", "U9", "trig.t3")).effects.is_empty(), "a closed ticket is not taken");
}

#[test]
fn a_click_on_an_unknown_ticket_does_nothing() {
    let done = handle(&desk(), &action(TAKE, "TCK-404"));
    assert!(done.effects.is_empty() && done.failed.is_none(), "{done:?}");
}

/// The manifest's declaration of the step.
fn declared_step() -> Value {
    let manifest: Value = serde_json::from_str(include_str!("../manifest.json")).unwrap();
    manifest["functions"][STEP].clone()
}

#[test]
fn the_step_creates_a_ticket_and_completes_with_exactly_the_outputs_the_manifest_declares() {
    let declared = declared_step();
    let inputs = json!({ "title": "Badge reader broken", "priority": "high", "reporter": "U5" });
    for (name, spec) in declared["input_parameters"].as_object().unwrap() {
        assert!(inputs.get(name).is_some(), "the test gives every declared input, {name} ({spec})");
    }
    let team = Team::new();
    let done = team.handle(&desk(), &function_executed(STEP, "Fx1", inputs));
    let post = &calls_of(&done, "chat.postMessage")[0];
    assert_eq!((post["channel"].as_str(), post["text"].as_str()), (Some(DESK), Some("TCK-1 (High): Badge reader broken")));
    let ending = done.queued().into_iter().find(|q| q.method.starts_with("functions.")).expect("the step ends");
    assert_eq!(ending.method, "functions.completeSuccess");
    let outputs = ending.args["outputs"].as_object().unwrap();
    let specs = declared["output_parameters"].as_object().unwrap();
    assert!(outputs.keys().all(|k| specs.contains_key(k)), "only declared outputs: {outputs:?}");
    for (name, spec) in specs {
        assert!(!spec["is_required"].as_bool().unwrap_or(false) || outputs.contains_key(name), "the required output {name}");
        assert!(spec["type"] != "string" || outputs[name].is_string(), "{name} is text");
    }
    assert_eq!(Value::Object(outputs.clone()), json!({ "ticket_id": "TCK-1", "ticket_url": "https://tickets.slackline.example/TCK-1" }));
    assert_eq!(team.value(&ticket_key("TCK-1")).unwrap()["reporter"], "U5");
    assert_eq!(team.value(&step_key("Fx1")), Some(json!("TCK-1")));
}

#[test]
fn the_same_execution_under_a_fresh_event_id_makes_no_second_ticket_and_ends_with_the_same_key() {
    let team = Team::new();
    let inputs = json!({ "title": "Badge reader broken" });
    let first = team.handle(&desk(), &function_executed(STEP, "Fx1", inputs.clone()));
    let again = team.handle(&desk(), &function_executed(STEP, "Fx1", inputs));
    assert!(calls_of(&again, "chat.postMessage").is_empty(), "no second post");
    assert!(again.state_writes().is_empty(), "no second ticket");
    let ending = |done: &Handled| done.queued().into_iter().find(|q| q.method == "functions.completeSuccess").expect("an ending");
    assert_eq!(ending(&again).key, ending(&first).key, "one ending per execution: slackline sends it once");
    assert_eq!(ending(&again).args["outputs"]["ticket_id"], "TCK-1");
    assert_eq!(team.value(LAST_NUMBER_KEY), Some(json!(1)));
}

#[test]
fn a_step_given_inputs_it_cannot_take_fails_with_a_readable_error_and_creates_nothing() {
    for (inputs, error) in [
        (json!({}), "The ticket was not created: Say what the ticket is about."),
        (json!({ "title": "x", "priority": "urgent" }), "The ticket was not created: Pick a priority: high, normal or low."),
        (json!({ "title": " ", "priority": "soon" }), "The ticket was not created: Say what the ticket is about; Pick a priority: high, normal or low."),
    ] {
        let done = handle(&desk(), &function_executed(STEP, "Fx9", inputs));
        let queued = done.queued();
        assert_eq!(queued.len(), 1, "only the ending: {queued:?}");
        assert_eq!((queued[0].method.as_str(), queued[0].args["error"].as_str()), ("functions.completeError", Some(error)));
        assert!(done.state_writes().is_empty() && done.failed.is_none());
    }
}

#[test]
fn a_known_tickets_link_unfurls_as_its_work_object_and_an_unknown_ones_not_at_all() {
    let team = one_ticket();
    team.handle(&desk(), &click(TAKE, "TCK-1", "U7", "trig.t1"));
    let url = "https://tickets.slackline.example/TCK-1";
    let done = team.handle(&desk(), &link_shared(DESK, &[url, "https://tickets.slackline.example/TCK-99"]));
    let (method, args) = &done.calls()[0];
    assert_eq!(method, "chat.unfurl");
    let entities = args["metadata"]["entities"].as_array().unwrap();
    assert_eq!(entities.len(), 1, "the known ticket only: {entities:?}");
    let task = &entities[0];
    assert_eq!((task["entity_type"].as_str(), task["external_ref"]["id"].as_str()), (Some("slack#/entities/task"), Some("TCK-1")));
    assert_eq!((task["url"].as_str(), task["app_unfurl_url"].as_str()), (Some(url), Some(url)));
    let payload = &task["entity_payload"];
    assert_eq!(payload["attributes"]["title"]["text"], "TCK-1: Printer on fire");
    assert_eq!((payload["fields"]["status"]["value"].as_str(), payload["fields"]["priority"]["value"].as_str()), (Some("Taken"), Some("High")));
    assert_eq!(payload["fields"]["assignee"]["user"]["user_id"], "U7");
    let composer = team.handle(&desk(), &link_shared_in_composer(&[url]));
    assert_eq!(composer.calls()[0].1["source"], "composer", "still in the composer: by its unfurl_id");
    let unknown = team.handle(&desk(), &link_shared(DESK, &["https://tickets.slackline.example/TCK-99", "https://tickets.slackline.example/about"]));
    assert!(unknown.effects.is_empty() && unknown.failed.is_none(), "{unknown:?}");
}

#[test]
fn a_click_on_a_tickets_work_object_presents_it_as_stored_and_an_unknown_one_as_not_found() {
    let team = one_ticket();
    let url = "https://tickets.slackline.example/TCK-1";
    let done = team.handle(&desk(), &entity_details_requested("TCK-1", url));
    let (method, args) = &done.calls()[0];
    assert_eq!(method, "entity.presentDetails");
    assert!(args["trigger_id"].as_str().is_some_and(|t| t.starts_with("trig.")), "{args}");
    assert_eq!(args["metadata"]["external_ref"]["id"], "TCK-1");
    assert_eq!(args["metadata"]["entity_payload"]["fields"]["status"]["value"], "Open");
    assert_eq!(done.queued()[0].deadline_ms, Some(3_000), "the trigger's life");
    let unknown = team.handle(&desk(), &entity_details_requested("TCK-404", "https://tickets.slackline.example/TCK-404"));
    let (_, args) = &unknown.calls()[0];
    assert_eq!(args["error"]["status"], "not_found", "{args}");
    assert!(args.get("metadata").is_none());
}

#[test]
fn the_allow_list_ignores_other_teams_and_channels_and_lets_the_listed_ones_through() {
    let url = "https://tickets.slackline.example/TCK-1";
    let other_team = app(&Vars::of(&[(CHANNEL_VAR, DESK), ("ALLOWED_TEAMS", "T9")]));
    for request in [command(COMMAND, "x"), submission("Printer", "high"), function_executed(STEP, "Fx1", json!({ "title": "x" })), link_shared(DESK, &[url])] {
        let done = handle(&other_team, &request);
        assert_eq!((done.ignored, done.effects.len(), done.state_writes().len()), (Some("not_allowed:team"), 0, 0));
    }
    let desk_only = app(&Vars::of(&[(CHANNEL_VAR, DESK), ("ALLOWED_TEAMS", "T1"), ("ALLOWED_CHANNELS", DESK)]));
    assert_eq!(handle(&desk_only, &link_shared("C0ELSEWHERE", &[url])).ignored, Some("not_allowed:channel"));
    assert_eq!(handle(&desk_only, &command(COMMAND, "x")).ignored, Some("not_allowed:channel"), "a command run in C1");
    assert_eq!(handle(&desk_only, &submission("Printer", "high")).ignored, None, "a submission is about no channel");
    let step = handle(&desk_only, &function_executed(STEP, "Fx1", json!({ "title": "x" })));
    assert_eq!((step.ignored, step.queued().last().map(|q| q.method.clone())), (None, Some("functions.completeSuccess".into())));
    let broken = app(&Vars::of(&[(CHANNEL_VAR, DESK), ("ALLOWED_CHANNELS", "#help-desk")]));
    assert!(handle(&broken, &command(COMMAND, "x")).failed.is_some_and(|why| why.contains("ALLOWED_CHANNELS")), "it fails closed");
}

#[test]
fn links_name_their_ticket_and_priorities_round_trip() {
    assert_eq!(ticket::id_in("https://tickets.slackline.example/TCK-12"), Some("TCK-12"));
    assert_eq!(ticket::id_in("https://tickets.slackline.example/TCK-12/?tab=log"), Some("TCK-12"));
    for other in ["https://tickets.slackline.example/", "https://tickets.slackline.example/TCK-", "https://tickets.slackline.example/TCK-1x"] {
        assert_eq!(ticket::id_in(other), None, "{other}");
    }
    for p in Priority::ALL {
        assert_eq!(Priority::parse(p.value()), Some(p));
    }
    assert_eq!(Priority::parse(" HIGH "), Some(Priority::High));
}

#[test]
fn the_modal_and_the_post_are_slacks_json_whole() {
    let modal = Value::from(ticket::modal("Printer"));
    let priorities = json!([
        { "text": { "type": "plain_text", "text": "High" }, "value": "high" },
        { "text": { "type": "plain_text", "text": "Normal" }, "value": "normal" },
        { "text": { "type": "plain_text", "text": "Low" }, "value": "low" },
    ]);
    assert_eq!(
        modal,
        json!({
            "type": "modal", "callback_id": "ticket", "title": { "type": "plain_text", "text": "New ticket" },
            "submit": { "type": "plain_text", "text": "Create" }, "close": { "type": "plain_text", "text": "Cancel" },
            "blocks": [
                { "type": "input", "block_id": "ticket_title", "label": { "type": "plain_text", "text": "What is it about?" },
                  "element": { "type": "plain_text_input", "action_id": "title", "initial_value": "Printer", "max_length": 150 } },
                { "type": "input", "block_id": "ticket_priority", "label": { "type": "plain_text", "text": "Priority" },
                  "element": { "type": "static_select", "action_id": "priority", "options": priorities, "initial_option": priorities[1] } },
            ],
        })
    );
    let team = one_ticket();
    let post = team.handle(&desk(), &click(TAKE, "TCK-1", "U7", "trig.t1")).calls().into_iter().find(|(m, _)| m == "chat.update").unwrap().1;
    assert_eq!(
        post["blocks"],
        json!([
            { "type": "section", "text": { "type": "mrkdwn", "text": ":ticket: *<https://tickets.slackline.example/TCK-1|TCK-1>* Printer on fire\nPriority: High" } },
            { "type": "context", "elements": [{ "type": "mrkdwn", "text": "Reported by <@U1> · Taken by <@U7>" }] },
            { "type": "actions", "elements": [{ "type": "button", "action_id": "ticket_close", "text": { "type": "plain_text", "text": "Close" }, "style": "danger", "value": "TCK-1" }] },
        ])
    );
}
