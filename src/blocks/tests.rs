//! Each block and view builder against Slack's own examples (docs.slack.dev/reference/block-kit/
//! blocks/…, docs.slack.dev/reference/views/modal-views; as slackapi/python-slack-sdk's tests
//! copy them), compared whole; and the typed ids end to end, through the listener API and the
//! test kit.

use super::*;
use crate::blocks::kind::{Choice, Choices, Date, Kind, Text};
use crate::prelude::{Listeners, ViewIn};
use crate::testing::{action, handle, view_submission};
use serde_json::{json, Value};

fn value(block: impl Into<Block>) -> Value {
    Value::from(block.into())
}

fn plain_options(values: &[(&str, &str)]) -> Vec<Opt> {
    values.iter().map(|(value, text)| Opt::new(*value, *text)).collect()
}

#[test]
fn sections_are_slacks_documented_sections() {
    let text = "A message *with some bold text* and _some italicized text_.";
    assert_eq!(value(Block::section(text)), json!({ "type": "section", "text": { "type": "mrkdwn", "text": text } }));
    let fields: [TextObject; 2] = [mrkdwn("High").into(), plain("String").emoji(true).into()];
    assert_eq!(
        value(Block::section(text).fields(fields)),
        json!({
            "type": "section", "text": { "text": text, "type": "mrkdwn" },
            "fields": [{ "type": "mrkdwn", "text": "High" }, { "type": "plain_text", "emoji": true, "text": "String" }],
        })
    );
    let day = Date::new(1990, 4, 28).expect("a day");
    let picker = Element::datepicker().action(ActionId::new("datepicker123")).initial(day).placeholder("Select a date");
    assert_eq!(
        value(Block::section("*Sally* has requested you set the deadline for the Nano launch project").accessory(picker)),
        json!({
            "type": "section", "text": { "text": "*Sally* has requested you set the deadline for the Nano launch project", "type": "mrkdwn" },
            "accessory": { "type": "datepicker", "action_id": "datepicker123", "initial_date": "1990-04-28", "placeholder": { "type": "plain_text", "text": "Select a date" } },
        })
    );
}

#[test]
fn the_simple_blocks_are_slacks_documented_ones() {
    assert_eq!(value(Block::divider()), json!({ "type": "divider" }));
    assert_eq!(
        value(Block::header("Budget Performance").block_id("budget-header")),
        json!({ "type": "header", "block_id": "budget-header", "text": { "type": "plain_text", "text": "Budget Performance" } })
    );
    assert_eq!(
        value(Block::image("http://placekitten.com/500/500", "An incredibly cute kitten.").title("Please enjoy this photo of a kitten").block_id("image4")),
        json!({
            "type": "image", "title": { "type": "plain_text", "text": "Please enjoy this photo of a kitten" }, "block_id": "image4",
            "image_url": "http://placekitten.com/500/500", "alt_text": "An incredibly cute kitten.",
        })
    );
    let pin = Element::image("https://image.freepik.com/free-photo/red-drawing-pin_1156-445.jpg", "images");
    assert_eq!(
        value(Block::context([ContextElement::from(pin), "Location: **Dogpatch**".into()])),
        json!({
            "type": "context",
            "elements": [
                { "type": "image", "image_url": "https://image.freepik.com/free-photo/red-drawing-pin_1156-445.jpg", "alt_text": "images" },
                { "type": "mrkdwn", "text": "Location: **Dogpatch**" },
            ],
        })
    );
    assert_eq!(
        value(Block::rich_text("Hello there, I am a basic rich text block!")),
        json!({ "type": "rich_text", "elements": [{ "type": "rich_text_section", "elements": [{ "type": "text", "text": "Hello there, I am a basic rich text block!" }] }] })
    );
}

#[test]
fn an_actions_block_is_slacks_documented_one() {
    let witches = plain_options(&[("matilda", "Matilda"), ("glinda", "Glinda"), ("grannyWeatherwax", "Granny Weatherwax"), ("hermione", "Hermione")]);
    let select = Element::static_select(witches).placeholder("Which witch is the witchiest witch?").action(ActionId::new("select_2"));
    let cancel = Element::button(ActionId::new("button_1"), "Cancel").value("cancel");
    let option = |value: &str, text: &str| json!({ "text": { "type": "plain_text", "text": text }, "value": value });
    assert_eq!(
        value(Block::actions([Element::from(select), cancel.into()]).block_id("actions1")),
        json!({
            "type": "actions", "block_id": "actions1",
            "elements": [
                {
                    "type": "static_select", "placeholder": { "type": "plain_text", "text": "Which witch is the witchiest witch?" }, "action_id": "select_2",
                    "options": [option("matilda", "Matilda"), option("glinda", "Glinda"), option("grannyWeatherwax", "Granny Weatherwax"), option("hermione", "Hermione")],
                },
                { "type": "button", "text": { "type": "plain_text", "text": "Cancel" }, "value": "cancel", "action_id": "button_1" },
            ],
        })
    );
}

const PLAIN: Field<Text> = Field::new("plain", "plain_text_input-action");

#[test]
fn input_blocks_are_slacks_documented_ones_with_their_fields_ids() {
    // Slack's examples leave the ids out (Slack then makes them up); a Field always names both.
    let label = || plain("Label").emoji(true);
    let ids = |mut block: Value| {
        block["block_id"] = json!("plain");
        block["element"]["action_id"] = json!("plain_text_input-action");
        block
    };
    assert_eq!(
        value(Block::input(PLAIN, label(), Element::plain_text_input()).dispatch_action(true)),
        ids(
            json!({ "dispatch_action": true, "type": "input", "element": { "type": "plain_text_input" }, "label": { "type": "plain_text", "text": "Label", "emoji": true } })
        )
    );
    assert_eq!(
        value(Block::input(PLAIN, label(), Element::plain_text_input().multiline(true))),
        ids(
            json!({ "type": "input", "element": { "type": "plain_text_input", "multiline": true }, "label": { "type": "plain_text", "text": "Label", "emoji": true } })
        )
    );
    assert_eq!(
        value(Block::input(PLAIN, label(), Element::plain_text_input()).hint(plain("some hint").emoji(true))),
        ids(json!({
            "type": "input", "element": { "type": "plain_text_input" },
            "label": { "type": "plain_text", "text": "Label", "emoji": true }, "hint": { "type": "plain_text", "text": "some hint", "emoji": true },
        }))
    );
    const PICKED: Field<Choices> = Field::new("plain", "plain_text_input-action");
    let options: Vec<Opt> = (0..3).map(|i| Opt::new(format!("value-{i}"), plain("*this is plain_text text*").emoji(true))).collect();
    let options_json: Vec<Value> = (0..3)
        .map(|i| json!({ "text": { "type": "plain_text", "text": "*this is plain_text text*", "emoji": true }, "value": format!("value-{i}") }))
        .collect();
    assert_eq!(
        value(Block::input(PICKED, label(), Element::checkboxes(options))),
        ids(
            json!({ "type": "input", "element": { "type": "checkboxes", "options": options_json }, "label": { "type": "plain_text", "text": "Label", "emoji": true } })
        )
    );
}

#[test]
fn a_modal_is_slacks_documented_one() {
    const INPUT: Field<Text> = Field::new("input_block", "input1");
    let button = Element::button(ActionId::new("button_abc"), "Click me").value("Button value").danger();
    let input = Block::input(INPUT, "Input label", Element::plain_text_input().placeholder("Type in here").multiline(false)).optional(false);
    let modal = Modal::new("view_identifier_12", "Modal title")
        .block(Block::section("It's Block Kit...but _in a modal_").block_id("section1").accessory(button))
        .block(input)
        .close("Cancel")
        .submit("Save")
        .private_metadata("Shhhhhhhh");
    assert_eq!(modal.validate(), Ok(()));
    assert_eq!(
        Value::from(modal),
        json!({
            "type": "modal",
            "title": { "type": "plain_text", "text": "Modal title" },
            "blocks": [
                {
                    "type": "section", "text": { "type": "mrkdwn", "text": "It's Block Kit...but _in a modal_" }, "block_id": "section1",
                    "accessory": { "type": "button", "text": { "type": "plain_text", "text": "Click me" }, "action_id": "button_abc", "value": "Button value", "style": "danger" },
                },
                {
                    "type": "input", "block_id": "input_block", "label": { "type": "plain_text", "text": "Input label" },
                    "element": { "type": "plain_text_input", "action_id": "input1", "placeholder": { "type": "plain_text", "text": "Type in here" }, "multiline": false },
                    "optional": false,
                },
            ],
            "close": { "type": "plain_text", "text": "Cancel" },
            "submit": { "type": "plain_text", "text": "Save" },
            "private_metadata": "Shhhhhhhh",
            "callback_id": "view_identifier_12",
        })
    );
}

#[test]
fn a_home_tab_and_a_message_s_blocks_are_their_blocks_in_order() {
    let home = Home::new([Block::header("Open incidents")]).block(Block::divider()).callback_id("home");
    assert_eq!(
        Value::from(home),
        json!({ "type": "home", "callback_id": "home", "blocks": [{ "type": "header", "text": { "type": "plain_text", "text": "Open incidents" } }, { "type": "divider" }] })
    );
    let raw = json!({ "type": "section", "text": { "type": "plain_text", "text": "as written" } });
    let blocks: Blocks = [Block::divider().into(), Block::raw(raw.clone())].into();
    assert_eq!(Value::from(blocks), json!([{ "type": "divider" }, raw]));
    assert_eq!(Value::from(Blocks::from(json!([{ "type": "divider" }]))), json!([{ "type": "divider" }]), "raw JSON, as before");
}

const TITLE: Field<Text> = Field::new("ticket_title", "title");
const PRIORITY: Field<Choice> = Field::new("ticket_priority", "priority");
const LABELS: Field<Choices> = Field::new("ticket_labels", "labels");
const DUE: Field<Date> = Field::new("ticket_due", "due");
const APPROVE: ActionId = ActionId::new("approve");

fn ticket() -> Modal {
    let priorities = plain_options(&[("high", "High"), ("low", "Low")]);
    Modal::new("ticket", "New ticket")
        .submit("Create")
        .block(Block::text_input(TITLE, "Title"))
        .block(Block::input(PRIORITY, "Priority", Element::static_select(priorities)))
        .block(Block::input(LABELS, "Labels", Element::checkboxes(plain_options(&[("bug", "Bug"), ("ui", "UI")]))).optional(true))
        .block(Block::input(DUE, "Due", Element::datepicker()).optional(true))
}

/// What the submission's handler read of each field.
fn read(v: &ViewIn) -> String {
    format!("{:?} {:?} {:?} {:?}", v.get(TITLE), v.get(PRIORITY), v.get(LABELS), v.get(DUE).map(|d| d.to_string()))
}

#[test]
fn a_field_names_the_same_input_in_the_view_the_submission_and_the_errors() {
    let view = Value::from(ticket());
    assert_eq!((view["blocks"][1]["block_id"].as_str(), view["blocks"][1]["element"]["action_id"].as_str()), (Some("ticket_priority"), Some("priority")));
    let app = Listeners::new().view_submission("ticket", |v, cx| {
        cx.say("C1", &read(v));
        if v.get(TITLE).is_none_or(|t| t.trim().is_empty()) {
            cx.ack_errors(FieldErrors::new().on(TITLE, "Say what it is about"));
        }
        Ok(())
    });
    let values = json!({
        "ticket_title": { "title": Text::state(&"Checkout fails".into()) },
        "ticket_priority": { "priority": Choice::state(&"high".into()) },
        "ticket_labels": { "labels": Choices::state(&vec!["bug".into(), "ui".into()]) },
        "ticket_due": { "due": { "type": "datepicker", "selected_date": "2026-12-24" } },
    });
    let done = handle(&app, &view_submission("ticket", values));
    assert_eq!(done.calls()[0].1["text"], r#"Some("Checkout fails") Some("high") Some(["bug", "ui"]) Some("2026-12-24")"#);
    let blank = handle(&app, &view_submission("ticket", json!({ "ticket_title": { "title": { "value": null } } })));
    assert_eq!(blank.ack, Some(json!({ "response_action": "errors", "errors": { "ticket_title": "Say what it is about" } })));
}

#[test]
fn an_action_id_registers_the_listener_of_the_button_built_with_it() {
    let message: Blocks = [Block::actions([Element::button(APPROVE, "Approve").value("42")]).into()].into();
    assert_eq!(Value::from(message)[0]["elements"][0]["action_id"], "approve");
    let app = Listeners::new().action(APPROVE, |a, cx| {
        cx.reply(&format!("approved {}", a.action.value.as_deref().unwrap_or_default()));
        Ok(())
    });
    assert_eq!(handle(&app, &action("approve", "42")).calls()[0].1["text"], "approved 42");
    assert!(handle(&app, &action("approved", "42")).effects.is_empty(), "another id: no listener");
}
