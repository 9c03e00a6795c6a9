//! The bot's behaviour, natively (`slackline::testing`): what each request queues and acks.

use super::*;
use incident::{Incident, Severity, Status, SEVERITY, TITLE};
use serde_json::{json, Value};
use slackline::testing::{action, command, event, handle, interaction, view_submission, Handled, Queued, Schedule, Team, Values};

fn triage() -> Listeners {
    app(&Vars::of(&[(CHANNEL_VAR, "CINCIDENTS")]))
}

/// A submission's `state.values`: the title typed, the severity picked (if any).
fn values(title: &str, severity: Option<&str>) -> Values {
    let values = Values::new().with(TITLE, title.into());
    match severity {
        Some(s) => values.with(SEVERITY, s.into()),
        None => values,
    }
}

fn submit(app: &Listeners, title: &str, severity: Option<&str>) -> Handled {
    handle(app, &view_submission(MODAL, values(title, severity)))
}

#[test]
fn the_command_opens_the_modal_with_its_trigger_and_acks_with_an_empty_200() {
    let done = handle(&triage(), &command(COMMAND, ""));
    assert_eq!(done.ack, None, "no ack body: an empty 200");
    let calls = done.calls();
    assert_eq!(calls.len(), 1);
    let (method, args) = &calls[0];
    assert_eq!(method, "views.open");
    assert!(args["trigger_id"].as_str().is_some_and(|t| t.starts_with("trig.")), "{args}");
    assert_eq!(args["view"]["callback_id"], MODAL);
    let blocks: Vec<&str> = args["view"]["blocks"].as_array().unwrap().iter().filter_map(|b| b["block_id"].as_str()).collect();
    assert_eq!(blocks, [TITLE.block_id(), SEVERITY.block_id()]);
    assert_eq!(done.queued()[0].deadline_ms, Some(3_000), "a trigger_id lives 3 s");
}

#[test]
fn a_blank_title_is_refused_in_the_modal_and_queues_nothing() {
    for title in ["", "   "] {
        let done = submit(&triage(), title, Some("sev1"));
        assert_eq!(done.ack, Some(json!({ "response_action": "errors", "errors": { "title": "Say what is wrong" } })));
        assert!(done.effects.is_empty(), "{:?}", done.effects);
        assert_eq!(done.failed, None);
    }
}

#[test]
fn every_bad_field_is_named_at_once() {
    let done = submit(&triage(), " ", None);
    assert_eq!(done.ack.unwrap()["errors"], json!({ "title": "Say what is wrong", "severity": "Pick a severity" }));
    let too_long = submit(&triage(), &"x".repeat(151), Some("sev2"));
    assert_eq!(too_long.ack.unwrap()["errors"], json!({ "title": "Keep it under 150 characters" }));
    assert!(too_long.effects.is_empty());
}

#[test]
fn a_valid_submission_is_announced_in_the_triage_channel_with_an_acknowledge_button() {
    let done = submit(&triage(), "  Checkout <fails> & times out ", Some("sev1"));
    assert_eq!(done.ack, None, "the modal closes");
    let calls = done.calls();
    assert_eq!(calls.len(), 1, "the announcement now, the reminder later");
    let (method, args) = &calls[0];
    assert_eq!((method.as_str(), args["channel"].as_str()), ("chat.postMessage", Some("CINCIDENTS")));
    assert_eq!(args["text"], "Incident (SEV1): Checkout &lt;fails&gt; &amp; times out, reported by <@U1>");
    let button = &args["blocks"][2]["elements"][0];
    assert_eq!((button["action_id"].as_str(), button["text"]["text"].as_str()), (Some(ACKNOWLEDGE.as_str()), Some("Acknowledge")));
    assert!(args.get("thread_ts").is_none(), "a message of its own in the channel");
}

#[test]
fn without_a_triage_channel_the_submission_fails_and_is_kept_for_a_redrive() {
    let done = submit(&app(&Vars::of(&[])), "Checkout fails", Some("sev2"));
    assert!(done.failed.as_deref().is_some_and(|why| why.contains(CHANNEL_VAR)), "{:?}", done.failed);
    assert_eq!(done.ack, None);
}

#[test]
fn an_acknowledge_click_is_answered_in_the_announcements_thread() {
    let done = handle(&triage(), &action(ACKNOWLEDGE, "ix:V1"));
    let (method, args) = &done.calls()[0];
    assert_eq!(method, "chat.postMessage");
    assert_eq!((args["channel"].as_str(), args["text"].as_str()), (Some("C1"), Some("<@U1> acknowledged this incident")));
    assert!(args["thread_ts"].is_string(), "{args}");
}

#[test]
fn severities_round_trip_through_the_select() {
    for s in Severity::ALL {
        assert_eq!(Severity::parse(s.value()), Some(s));
    }
    assert_eq!(Severity::parse("sev9"), None);
    let options = &Value::from(incident::modal())["blocks"][1]["element"]["options"];
    assert_eq!(options.as_array().map(Vec::len), Some(3));
}

/// The scheduled reminder a submission queued (a Web API post), and its schedule.
fn reminder(done: &Handled) -> (Queued, Schedule) {
    let scheduled = done.queued().into_iter().find_map(|q| q.schedule.clone().map(|s| (q, s)));
    let (post, schedule) = scheduled.expect("a reminder is scheduled");
    assert_eq!(post.method, "chat.postMessage", "the reminder is a post: {post:?}");
    (post, schedule)
}

#[test]
fn a_valid_submission_schedules_a_reminder_in_the_announcements_thread_after_the_default_thirty_minutes() {
    let done = submit(&triage(), "Checkout fails", Some("sev1"));
    let (post, schedule) = reminder(&done);
    let button = &done.calls()[0].1["blocks"][2]["elements"][0];
    let id = button["value"].as_str().unwrap();
    assert_eq!(schedule.key, reminder_key(id), "the button carries what cancels the reminder");
    let announcement = &done.queued()[0];
    assert_eq!((announcement.method.as_str(), announcement.schedule.as_ref()), ("chat.postMessage", None), "the announcement first");
    assert_eq!(
        (post.in_thread_of.as_deref(), announcement.remember.as_deref()),
        (Some(post_key(id).as_str()), Some(post_key(id).as_str())),
        "in the thread of what the announcement remembers"
    );
    assert_eq!(schedule.when, When::after(30 * MINUTE_MS));
    assert_eq!(
        (post.args["channel"].as_str(), post.args["text"].as_str()),
        (Some("CINCIDENTS"), Some("Incident still open, nobody acknowledged it: Checkout fails"))
    );
    let again = submit(&triage(), "Checkout fails", Some("sev1"));
    assert_ne!(reminder(&again).1.key, schedule.key, "another submission, another incident");
}

#[test]
fn the_reminder_delay_is_the_deployments_setting_and_a_bad_one_fails_the_submission() {
    let five = app(&Vars::of(&[(CHANNEL_VAR, "C1"), (REMIND_VAR, "5")]));
    assert_eq!(reminder(&submit(&five, "x", Some("sev2"))).1.when, When::after(5 * MINUTE_MS));
    let bad = app(&Vars::of(&[(CHANNEL_VAR, "C1"), (REMIND_VAR, "soon")]));
    let done = submit(&bad, "x", Some("sev2"));
    assert!(done.failed.as_deref().is_some_and(|why| why.contains(REMIND_VAR)), "{:?}", done.failed);
}

#[test]
fn an_acknowledge_click_cancels_the_incidents_reminder() {
    let done = handle(&triage(), &action(ACKNOWLEDGE, "ix:V1"));
    assert_eq!(done.queued()[1].cancels, Some(reminder_key("ix:V1")));
}

/// A team with one submitted incident, whose announcement Slack answered with `C9`/`9.1` (as the
/// unit's `remember` would store it): the team and the incident's id.
fn reported() -> (Team, String) {
    let team = Team::new();
    let done = team.handle(&triage(), &view_submission(MODAL, values("Checkout fails", Some("sev1"))));
    let id = done.calls()[0].1["blocks"][2]["elements"][0]["value"].as_str().unwrap().to_string();
    team.remember(&post_key(&id), "C9", "9.1");
    (team, id)
}

/// A click on `action_id` of the incident `id`'s announcement by `user`, with its `trigger_id`.
fn click(action_id: ActionId, id: &str, user: &str, trigger: &str) -> Dispatch {
    interaction(json!({
        "type": "block_actions", "trigger_id": trigger, "user": { "id": user, "team_id": "T1" },
        "container": { "type": "message", "channel_id": "C9", "message_ts": "9.1" }, "channel": { "id": "C9" }, "message": { "ts": "9.1" },
        "actions": [{ "type": "button", "action_id": action_id.as_str(), "block_id": "b", "value": id }],
    }))
}

fn updates(done: &Handled) -> Vec<Value> {
    done.calls().into_iter().filter(|(m, _)| m == "chat.update").map(|(_, a)| a).collect()
}

#[test]
fn a_valid_submission_stores_the_incident_remembers_its_announcement_and_offers_acknowledge_and_resolve() {
    let team = Team::new();
    let done = team.handle(&triage(), &view_submission(MODAL, values("Checkout fails", Some("sev1"))));
    let id = done.calls()[0].1["blocks"][2]["elements"][0]["value"].as_str().unwrap().to_string();
    let stored = team.value(&incident_key(&id)).expect("the incident is stored");
    assert_eq!(stored, json!({ "title": "Checkout fails", "severity": "sev1", "reporter": "U1", "status": "open", "assignee": null }));
    let calls = done.calls();
    let buttons: Vec<&str> = calls[0].1["blocks"][2]["elements"].as_array().unwrap().iter().filter_map(|b| b["action_id"].as_str()).collect();
    assert_eq!(buttons, [ACKNOWLEDGE.as_str(), RESOLVE.as_str()]);
    let announcement = &done.queued()[0];
    assert_eq!((announcement.method.as_str(), announcement.remember.as_deref()), ("chat.postMessage", Some(post_key(&id).as_str())), "the announcement first");
}

#[test]
fn resolve_updates_the_stored_incident_and_the_remembered_announcement_and_cancels_the_reminder() {
    let (team, id) = reported();
    let done = team.handle(&triage(), &click(RESOLVE, &id, "U7", "trig.r1"));
    assert_eq!(team.value(&incident_key(&id)).unwrap()["status"], "resolved");
    let update = &updates(&done)[0];
    assert_eq!((update["channel"].as_str(), update["ts"].as_str()), (Some("C9"), Some("9.1")));
    assert!(update["blocks"].as_array().unwrap().iter().all(|b| b["type"] != "actions"), "no buttons once resolved: {update}");
    assert!(done.cancelled().contains(&reminder_key(&id)), "{:?}", done.cancelled());
}

#[test]
fn a_double_click_or_a_retry_changes_the_incident_and_its_announcement_once() {
    let (team, id) = reported();
    let first = team.handle(&triage(), &click(RESOLVE, &id, "U7", "trig.r1"));
    let retry = team.handle(&triage(), &click(RESOLVE, &id, "U7", "trig.r1"));
    let second = team.handle(&triage(), &click(RESOLVE, &id, "U8", "trig.r2"));
    assert_eq!(updates(&first).len(), 1);
    assert!(retry.effects.is_empty() && retry.state_writes().is_empty(), "a retry finds it resolved: {:?}", retry.effects);
    assert!(second.effects.is_empty(), "already resolved: {:?}", second.effects);
}

#[test]
fn acknowledge_assigns_the_clicker_keeps_resolve_and_a_second_acknowledge_does_nothing() {
    let (team, id) = reported();
    let done = team.handle(&triage(), &click(ACKNOWLEDGE, &id, "U7", "trig.a1"));
    let stored = team.value(&incident_key(&id)).unwrap();
    assert_eq!((stored["status"].as_str(), stored["assignee"].as_str()), (Some("acknowledged"), Some("U7")));
    let buttons = &updates(&done)[0]["blocks"][2]["elements"];
    assert_eq!(buttons.as_array().map(Vec::len), Some(1));
    assert_eq!(buttons[0]["action_id"], RESOLVE.as_str());
    assert!(team.handle(&triage(), &click(ACKNOWLEDGE, &id, "U8", "trig.a2")).effects.is_empty());
}

fn reacted(reaction: &str, user: &str, ts: &str) -> Dispatch {
    event(json!({ "type": "reaction_added", "user": user, "reaction": reaction, "item": { "type": "message", "channel": "C9", "ts": ts }, "event_ts": "9.9" }))
}

#[test]
fn an_eyes_reaction_on_the_announcement_assigns_the_reacting_user_and_updates_it() {
    let (team, id) = reported();
    let done = team.handle(&triage(), &reacted("eyes", "U5", "9.1"));
    assert_eq!(team.value(&incident_key(&id)).unwrap()["assignee"], "U5");
    let update = &updates(&done)[0];
    assert_eq!(update["ts"], "9.1");
    assert!(update["blocks"][1]["elements"][0]["text"].as_str().unwrap().contains("assigned to <@U5>"), "{update}");
    assert!(team.handle(&triage(), &reacted("eyes", "U5", "9.1")).effects.is_empty(), "already theirs");
    assert!(team.handle(&triage(), &reacted("tada", "U6", "9.1")).effects.is_empty(), "another emoji");
    assert!(team.handle(&triage(), &reacted("eyes", "U6", "8.8")).effects.is_empty(), "another message");
}

#[test]
fn the_app_home_lists_the_open_incidents_from_state() {
    let (team, id) = reported();
    team.handle(&triage(), &view_submission(MODAL, values("Search is slow", Some("sev3"))));
    team.handle(&triage(), &click(RESOLVE, &id, "U7", "trig.r1"));
    let done = team.handle(&triage(), &event(json!({ "type": "app_home_opened", "user": "U3", "channel": "D3", "tab": "home" })));
    let (method, args) = &done.calls()[0];
    assert_eq!((method.as_str(), args["user_id"].as_str()), ("views.publish", Some("U3")));
    let listed = args["view"]["blocks"].to_string();
    assert!(listed.contains("Search is slow") && !listed.contains("Checkout fails"), "open only: {listed}");
}

/// The List records a request queued: `(list, record id, fields)`.
fn list_records(done: &Handled) -> Vec<(String, String, Value)> {
    let text = |v: &Value| v.as_str().expect("an id").to_string();
    let records = done.queued().into_iter().filter(|q| q.method == "list_record");
    records.map(|q| (text(&q.args["list_id"]), text(&q.args["record_id"]), q.args["fields"].clone())).collect()
}

#[test]
fn with_a_list_set_an_incident_is_mirrored_when_reported_and_again_when_it_changes() {
    let mirrored = app(&Vars::of(&[(CHANNEL_VAR, "CINCIDENTS"), (LIST_VAR, "FINCIDENTS")]));
    let team = Team::new();
    let done = team.handle(&mirrored, &view_submission(MODAL, values("Checkout fails", Some("sev1"))));
    let id = done.calls()[0].1["blocks"][2]["elements"][0]["value"].as_str().unwrap().to_string();
    let fields = json!({ "title": "Checkout fails", "severity": "sev1", "status": "open", "reporter": "U1" });
    assert_eq!(list_records(&done), [("FINCIDENTS".to_string(), id.clone(), fields)], "no assignee yet: no user cell");
    let acked = team.handle(&mirrored, &click(ACKNOWLEDGE, &id, "U7", "trig.a1"));
    assert_eq!(list_records(&acked)[0].2["status"], "acknowledged");
    assert_eq!(list_records(&acked)[0].2["assignee"], "U7");
    let resolved = team.handle(&mirrored, &click(RESOLVE, &id, "U7", "trig.r1"));
    assert_eq!(list_records(&resolved)[0].2["status"], "resolved");
    let again = team.handle(&mirrored, &click(RESOLVE, &id, "U8", "trig.r2"));
    assert!(list_records(&again).is_empty(), "nothing changed, nothing mirrored");
    assert!(list_records(&submit(&triage(), "No list", Some("sev2"))).is_empty(), "without TRIAGE_LIST nothing is mirrored");
}

/// An incident at `status`, for the Block Kit below.
fn incident_at(status: Status, assignee: Option<&str>) -> Incident {
    Incident { title: "Checkout <fails>".into(), severity: Severity::Sev1, reporter: "U1".into(), status, assignee: assignee.map(str::to_string) }
}

fn button(action_id: ActionId, text: &str, style: &str) -> Value {
    json!({ "type": "button", "action_id": action_id.as_str(), "style": style, "text": { "type": "plain_text", "text": text }, "value": "ix:1" })
}

#[test]
fn the_modal_is_exactly_this_block_kit() {
    let option = |value: &str, text: &str| json!({ "text": { "type": "plain_text", "text": text }, "value": value });
    let sev2 = option("sev2", "SEV2 (degraded)");
    let options = [option("sev1", "SEV1 (customers are down)"), sev2.clone(), option("sev3", "SEV3 (a nuisance)")];
    assert_eq!(
        Value::from(incident::modal()),
        json!({
            "type": "modal", "callback_id": "incident",
            "title": { "type": "plain_text", "text": "Report an incident" },
            "submit": { "type": "plain_text", "text": "Report" },
            "close": { "type": "plain_text", "text": "Cancel" },
            "blocks": [
                {
                    "type": "input", "block_id": "title", "label": { "type": "plain_text", "text": "What is wrong?" },
                    "element": { "type": "plain_text_input", "action_id": "title_input", "max_length": 150 },
                },
                {
                    "type": "input", "block_id": "severity", "label": { "type": "plain_text", "text": "Severity" },
                    "element": { "type": "static_select", "action_id": "severity_select", "options": options, "initial_option": sev2 },
                },
            ],
        })
    );
}

#[test]
fn the_announcement_is_exactly_this_block_kit_at_each_status() {
    let section = json!({ "type": "section", "text": { "type": "mrkdwn", "text": ":rotating_light: *Checkout &lt;fails&gt;*\nSEV1 (customers are down)" } });
    let context = |text: &str| json!({ "type": "context", "elements": [{ "type": "mrkdwn", "text": text }] });
    let (acknowledge, resolve) = (button(ACKNOWLEDGE, "Acknowledge", "primary"), button(RESOLVE, "Resolve", "danger"));
    let open = incident_at(Status::Open, None);
    assert_eq!(
        Value::from(open.blocks("ix:1")),
        json!([section, context("Reported by <@U1> · Open"), { "type": "actions", "elements": [acknowledge, resolve] }])
    );
    let acknowledged = incident_at(Status::Acknowledged, Some("U7"));
    assert_eq!(
        acknowledged.message("ix:1"),
        json!({
            "text": "Incident (SEV1): Checkout &lt;fails&gt;, reported by <@U1>",
            "blocks": [section, context("Reported by <@U1> · Acknowledged · assigned to <@U7>"), { "type": "actions", "elements": [resolve] }],
        })
    );
    let resolved = incident_at(Status::Resolved, Some("U7"));
    assert_eq!(Value::from(resolved.blocks("ix:1")), json!([section, context("Reported by <@U1> · Resolved · assigned to <@U7>")]));
}

#[test]
fn the_app_home_is_exactly_this_block_kit() {
    let header = json!({ "type": "header", "text": { "type": "plain_text", "text": "Open incidents" } });
    let section = |text: &str| json!({ "type": "section", "text": { "type": "mrkdwn", "text": text } });
    assert_eq!(Value::from(incident::home(&[])), json!({ "type": "home", "blocks": [header, section("No open incidents.")] }));
    let listed = section("*Checkout &lt;fails&gt;* (SEV1)\nReported by <@U1> · Open");
    assert_eq!(Value::from(incident::home(&[incident_at(Status::Open, None)])), json!({ "type": "home", "blocks": [header, listed] }));
}
