//! Each element builder against Slack's own examples: the JSON literals are the examples of
//! Slack's Block Kit reference (docs.slack.dev/reference/block-kit/block-elements/…, as
//! slackapi/python-slack-sdk's tests copy them), compared whole.

use super::*;
use crate::blocks::kind::{Date, Time};
use serde_json::{json, Value};

const BUTTON: ActionId = ActionId::new("button");
const TEXT1234: ActionId = ActionId::new("text1234");
const THIS: ActionId = ActionId::new("this_is_an_action_id");

fn value(element: impl Into<Element>) -> Value {
    serde_json::to_value(element.into()).expect("an element is JSON")
}

fn chess() -> Confirm {
    Confirm::new("Are you sure?", mrkdwn("Wouldn't you prefer a good game of _chess_?"), "Do it", "Stop, I've changed my mind!")
}

fn text_options(n: usize) -> Vec<Opt> {
    (0..n).map(|i| Opt::new(format!("value-{i}"), "*this is plain_text text*")).collect()
}

fn text_options_json(n: usize) -> Vec<Value> {
    (0..n).map(|i| json!({ "text": { "type": "plain_text", "text": "*this is plain_text text*" }, "value": format!("value-{i}") })).collect()
}

#[test]
fn buttons_are_slacks_documented_buttons() {
    assert_eq!(
        value(Element::button(BUTTON, "Click Me").value("click_me_123")),
        json!({ "type": "button", "text": { "type": "plain_text", "text": "Click Me" }, "value": "click_me_123", "action_id": "button" })
    );
    assert_eq!(
        value(Element::button(BUTTON, "Save").primary().value("click_me_123")),
        json!({ "type": "button", "text": { "type": "plain_text", "text": "Save" }, "style": "primary", "value": "click_me_123", "action_id": "button" })
    );
    assert_eq!(
        value(Element::link_button("Link Button", "https://docs.slack.dev/block-kit/")),
        json!({ "type": "button", "text": { "type": "plain_text", "text": "Link Button" }, "url": "https://docs.slack.dev/block-kit/" })
    );
    assert_eq!(
        value(Element::button(BUTTON, "Save").primary().value("click_me_123").accessibility_label("This label will be read out by screen readers")),
        json!({
            "type": "button", "text": { "type": "plain_text", "text": "Save" }, "style": "primary", "value": "click_me_123", "action_id": "button",
            "accessibility_label": "This label will be read out by screen readers",
        })
    );
}

#[test]
fn a_button_with_a_confirm_and_danger_carries_both() {
    let confirmed = value(Element::button(BUTTON, "Delete").danger().confirm(chess().danger()));
    assert_eq!(confirmed["style"], "danger");
    assert_eq!(
        confirmed["confirm"],
        json!({
            "title": { "type": "plain_text", "text": "Are you sure?" },
            "text": { "type": "mrkdwn", "text": "Wouldn't you prefer a good game of _chess_?" },
            "confirm": { "type": "plain_text", "text": "Do it" },
            "deny": { "type": "plain_text", "text": "Stop, I've changed my mind!" },
            "style": "danger",
        })
    );
}

#[test]
fn checkboxes_and_radio_buttons_are_slacks_documented_ones() {
    let (one, two) = (Opt::new("A1", "Checkbox 1"), Opt::new("A2", "Checkbox 2"));
    assert_eq!(
        value(Element::checkboxes([one.clone(), two]).action(THIS).initial([one])),
        json!({
            "type": "checkboxes", "action_id": "this_is_an_action_id",
            "initial_options": [{ "value": "A1", "text": { "type": "plain_text", "text": "Checkbox 1" } }],
            "options": [
                { "value": "A1", "text": { "type": "plain_text", "text": "Checkbox 1" } },
                { "value": "A2", "text": { "type": "plain_text", "text": "Checkbox 2" } },
            ],
        })
    );
    let (one, two) = (Opt::new("A1", "Radio 1"), Opt::new("A2", "Radio 2"));
    assert_eq!(
        value(Element::radio_buttons([one.clone(), two]).action(THIS).initial(one)),
        json!({
            "type": "radio_buttons", "action_id": "this_is_an_action_id",
            "initial_option": { "value": "A1", "text": { "type": "plain_text", "text": "Radio 1" } },
            "options": [
                { "value": "A1", "text": { "type": "plain_text", "text": "Radio 1" } },
                { "value": "A2", "text": { "type": "plain_text", "text": "Radio 2" } },
            ],
        })
    );
}

#[test]
fn pickers_are_slacks_documented_pickers() {
    let day = Date::new(1990, 4, 28).expect("a day");
    assert_eq!(
        value(Element::datepicker().action(ActionId::new("datepicker123")).initial(day).placeholder("Select a date").confirm(chess())),
        json!({
            "type": "datepicker", "action_id": "datepicker123", "initial_date": "1990-04-28",
            "placeholder": { "type": "plain_text", "text": "Select a date" },
            "confirm": {
                "title": { "type": "plain_text", "text": "Are you sure?" },
                "text": { "type": "mrkdwn", "text": "Wouldn't you prefer a good game of _chess_?" },
                "confirm": { "type": "plain_text", "text": "Do it" },
                "deny": { "type": "plain_text", "text": "Stop, I've changed my mind!" },
            },
        })
    );
    let time = Time::new(11, 40).expect("a time");
    assert_eq!(
        value(Element::timepicker().action(ActionId::new("timepicker123")).initial(time).placeholder("Select a time")),
        json!({ "type": "timepicker", "action_id": "timepicker123", "initial_time": "11:40", "placeholder": { "type": "plain_text", "text": "Select a time" } })
    );
}

#[test]
fn static_menus_are_slacks_documented_ones() {
    assert_eq!(
        value(Element::static_select(text_options(3)).action(TEXT1234).placeholder("Select an item")),
        json!({ "action_id": "text1234", "type": "static_select", "placeholder": { "type": "plain_text", "text": "Select an item" }, "options": text_options_json(3) })
    );
    let groups = [OptGroup::new("Group 1", text_options(3)), OptGroup::new("Group 2", [Opt::new("value-3", "*this is plain_text text*")])];
    let group_two = json!({ "label": { "type": "plain_text", "text": "Group 2" }, "options": [{ "text": { "type": "plain_text", "text": "*this is plain_text text*" }, "value": "value-3" }] });
    assert_eq!(
        value(Element::static_select([]).groups(groups).action(TEXT1234).placeholder("Select an item")),
        json!({
            "action_id": "text1234", "type": "static_select", "placeholder": { "type": "plain_text", "text": "Select an item" },
            "option_groups": [{ "label": { "type": "plain_text", "text": "Group 1" }, "options": text_options_json(3) }, group_two],
        })
    );
    assert_eq!(
        value(Element::multi_static_select(text_options(3)).action(TEXT1234).placeholder("Select items").max_selected_items(1)),
        json!({
            "action_id": "text1234", "type": "multi_static_select", "placeholder": { "type": "plain_text", "text": "Select items" },
            "options": text_options_json(3), "max_selected_items": 1,
        })
    );
}

#[test]
fn external_menus_are_slacks_documented_ones() {
    assert_eq!(
        value(Element::external_select().action(TEXT1234).placeholder("Select an item").min_query_length(3)),
        json!({ "action_id": "text1234", "type": "external_select", "placeholder": { "type": "plain_text", "text": "Select an item" }, "min_query_length": 3 })
    );
    let default = Opt::new("C1234567890", "The default channel");
    assert_eq!(
        value(Element::external_select().action(TEXT1234).placeholder("Select an item").initial(default.clone()).confirm(chess()).min_query_length(3))
            ["initial_option"],
        json!({ "text": { "type": "plain_text", "text": "The default channel" }, "value": "C1234567890" })
    );
    assert_eq!(
        value(Element::multi_external_select().action(TEXT1234).placeholder("Select items").initial([default]).min_query_length(0).max_selected_items(1)),
        json!({
            "action_id": "text1234", "type": "multi_external_select", "placeholder": { "type": "plain_text", "text": "Select items" },
            "initial_options": [{ "text": { "type": "plain_text", "text": "The default channel" }, "value": "C1234567890" }],
            "min_query_length": 0, "max_selected_items": 1,
        })
    );
}

#[test]
fn user_menus_are_slacks_documented_ones() {
    assert_eq!(
        value(Element::users_select().action(TEXT1234).placeholder("Select an item").initial("U123")),
        json!({ "action_id": "text1234", "type": "users_select", "placeholder": { "type": "plain_text", "text": "Select an item" }, "initial_user": "U123" })
    );
    assert_eq!(
        value(Element::multi_users_select().action(TEXT1234).placeholder("Select users").initial(["U123", "U234"]).max_selected_items(1)),
        json!({
            "action_id": "text1234", "type": "multi_users_select", "placeholder": { "type": "plain_text", "text": "Select users" },
            "initial_users": ["U123", "U234"], "max_selected_items": 1,
        })
    );
}

#[test]
fn conversation_and_channel_menus_are_slacks_documented_ones() {
    let filter = json!({ "include": ["public", "mpim"], "exclude_bot_users": true });
    let one = Element::conversations_select().action(TEXT1234).placeholder("Select an item").initial("C123");
    assert_eq!(
        value(one.response_url_enabled(true).default_to_current_conversation(true).filter(filter.clone())),
        json!({
            "action_id": "text1234", "type": "conversations_select", "placeholder": { "type": "plain_text", "text": "Select an item" },
            "initial_conversation": "C123", "response_url_enabled": true, "default_to_current_conversation": true, "filter": filter,
        })
    );
    let many = Element::multi_conversations_select().action(TEXT1234).placeholder("Select conversations").initial(["C123", "C234"]);
    assert_eq!(
        value(many.max_selected_items(2).default_to_current_conversation(true).filter(filter.clone())),
        json!({
            "action_id": "text1234", "type": "multi_conversations_select", "placeholder": { "type": "plain_text", "text": "Select conversations" },
            "initial_conversations": ["C123", "C234"], "max_selected_items": 2, "default_to_current_conversation": true, "filter": filter,
        })
    );
    assert_eq!(
        value(Element::channels_select().action(TEXT1234).placeholder("Select an item").response_url_enabled(true).initial("C123")),
        json!({
            "action_id": "text1234", "type": "channels_select", "placeholder": { "type": "plain_text", "text": "Select an item" },
            "response_url_enabled": true, "initial_channel": "C123",
        })
    );
    assert_eq!(
        value(Element::multi_channels_select().action(TEXT1234).placeholder("Select channels").initial(["C123", "C234"]).max_selected_items(2)),
        json!({
            "action_id": "text1234", "type": "multi_channels_select", "placeholder": { "type": "plain_text", "text": "Select channels" },
            "initial_channels": ["C123", "C234"], "max_selected_items": 2,
        })
    );
}

#[test]
fn an_overflow_is_slacks_documented_one_a_link_among_its_options() {
    let mut options = text_options(4);
    options.push(Opt::link("*this is plain_text text*", "https://www.example.com"));
    let mut expected = text_options_json(4);
    expected.push(json!({ "text": { "type": "plain_text", "text": "*this is plain_text text*" }, "url": "https://www.example.com" }));
    assert_eq!(value(Element::overflow(ActionId::new("overflow"), options)), json!({ "type": "overflow", "options": expected, "action_id": "overflow" }));
}

#[test]
fn a_plain_text_input_and_an_image_are_slacks_documented_ones() {
    let input = Element::plain_text_input().action(ActionId::new("plain_input")).placeholder("Enter some plain text");
    assert_eq!(
        value(input.clone()),
        json!({ "type": "plain_text_input", "action_id": "plain_input", "placeholder": { "type": "plain_text", "text": "Enter some plain text" } })
    );
    assert_eq!(
        value(input.initial("TODO").multiline(true).min_length(1).max_length(10)),
        json!({
            "type": "plain_text_input", "action_id": "plain_input", "placeholder": { "type": "plain_text", "text": "Enter some plain text" },
            "initial_value": "TODO", "multiline": true, "min_length": 1, "max_length": 10,
        })
    );
    assert_eq!(
        value(Element::image("http://placekitten.com/700/500", "Multiple cute kittens")),
        json!({ "type": "image", "image_url": "http://placekitten.com/700/500", "alt_text": "Multiple cute kittens" })
    );
}

#[test]
fn a_raw_element_is_kept_as_written() {
    let raw = json!({ "type": "rich_text_input", "action_id": "rich_text_input-action", "focus_on_load": true });
    assert_eq!(value(Element::raw(raw.clone())), raw);
}
