//! Slack's limits, each broken once and found with its path.

use super::limits::{check_blocks, check_options, check_view, Surface, Violation};
use super::*;
use serde_json::{json, Value};

fn found(violations: Vec<Violation>) -> Vec<String> {
    violations.iter().map(ToString::to_string).collect()
}

fn message(blocks: Vec<Block>) -> Vec<String> {
    found(check_blocks(&Value::from(Blocks::from(blocks)), Surface::Message))
}

const GO: ActionId = ActionId::new("go");

#[test]
fn a_long_section_text_is_found_with_its_path_and_both_numbers() {
    let blocks = vec![Block::divider().into(), Block::divider().into(), Block::section("x".repeat(3012)).into()];
    assert_eq!(message(blocks), ["blocks[2].text: 3,012 characters, Slack takes 3,000"]);
    assert_eq!(message(vec![Block::section("é".repeat(3000)).into()]), Vec::<String>::new(), "characters, not bytes");
}

#[test]
fn section_fields_header_and_text_limits_are_each_found() {
    let blocks = vec![
        Block::section_fields((0..11).map(|i| format!("field {i}"))).into(),
        Block::section_fields(["y".repeat(2001)]).into(),
        Block::header("h".repeat(151)).into(),
        Block::raw(json!({ "type": "section" })),
    ];
    assert_eq!(
        message(blocks),
        [
            "blocks[0].fields: 11 fields, Slack takes 10",
            "blocks[1].fields[0]: 2,001 characters, Slack takes 2,000",
            "blocks[2].text: 151 characters, Slack takes 150",
            "blocks[3]: a section without text or fields: Slack requires one",
        ]
    );
}

#[test]
fn button_limits_are_each_found() {
    let button = Element::button(GO, "b".repeat(76)).value("v".repeat(2001)).url("u".repeat(3001));
    assert_eq!(
        message(vec![Block::actions([button]).into()]),
        [
            "blocks[0].elements[0].text: 76 characters, Slack takes 75",
            "blocks[0].elements[0].value: 2,001 characters, Slack takes 2,000",
            "blocks[0].elements[0].url: 3,001 characters, Slack takes 3,000",
        ]
    );
}

#[test]
fn element_counts_of_actions_and_context_blocks_are_found() {
    let buttons = (0..26).map(|i| Element::button(GO, "b").value(i.to_string()).into()).collect::<Vec<Element>>();
    let found = message(vec![Block::actions(buttons).into(), Block::context((0..11).map(|i| i.to_string())).into()]);
    assert_eq!(found[0], "blocks[0].elements: 26 elements, Slack takes 25");
    assert!(found.contains(&"blocks[1].elements: 11 elements, Slack takes 10".to_string()), "{found:?}");
}

#[test]
fn ids_over_255_characters_and_ids_used_twice_are_found() {
    let long = "i".repeat(256);
    let blocks = vec![
        Block::divider().block_id("same").into(),
        Block::divider().block_id("same").into(),
        Block::divider().block_id(long.clone()).into(),
        Block::raw(json!({ "type": "actions", "elements": [
            { "type": "button", "text": { "type": "plain_text", "text": "a" }, "action_id": "twice" },
            { "type": "button", "text": { "type": "plain_text", "text": "b" }, "action_id": "twice" },
            { "type": "button", "text": { "type": "plain_text", "text": "c" }, "action_id": long },
        ] })),
        Block::actions([Element::button(ActionId::new("twice"), "d")]).into(),
    ];
    assert_eq!(
        message(blocks),
        [
            r#"blocks[1].block_id: "same" is used twice: Slack takes each block_id once in a message or view"#,
            "blocks[2].block_id: 256 characters, Slack takes 255",
            r#"blocks[3].elements[1].action_id: "twice" is used twice: Slack takes each action_id once in a block"#,
            "blocks[3].elements[2].action_id: 256 characters, Slack takes 255",
        ],
        "an action_id once per block: the fourth block's may repeat the third's"
    );
}

#[test]
fn options_and_placeholders_are_held_to_their_limits() {
    let many = (0..101).map(|i| Opt::new(i.to_string(), "o"));
    let long = Opt::new("v".repeat(151), "t".repeat(76)).description("d".repeat(76));
    let select = Element::static_select(many).action(GO).placeholder("p".repeat(151));
    let blocks = vec![
        Block::actions([select]).into(),
        Block::actions([Element::overflow(GO, (0..6).map(|i| Opt::new(i.to_string(), "o")))]).into(),
        Block::actions([Element::checkboxes((0..11).map(|i| Opt::new(i.to_string(), "o"))).action(GO)]).into(),
        Block::section("s").accessory(Element::radio_buttons([long]).action(GO)).into(),
    ];
    assert_eq!(
        message(blocks),
        [
            "blocks[0].elements[0].placeholder: 151 characters, Slack takes 150",
            "blocks[0].elements[0].options: 101 options, Slack takes 100",
            "blocks[1].elements[0].options: 6 options, Slack takes 5",
            "blocks[2].elements[0].options: 11 options, Slack takes 10",
            "blocks[3].accessory.options[0].text: 76 characters, Slack takes 75",
            "blocks[3].accessory.options[0].value: 151 characters, Slack takes 150",
            "blocks[3].accessory.options[0].description: 76 characters, Slack takes 75",
        ]
    );
}

#[test]
fn a_message_takes_50_blocks_and_a_view_100() {
    let blocks = |n: usize| (0..n).map(|_| Block::divider().into()).collect::<Vec<Block>>();
    assert_eq!(message(blocks(50)), Vec::<String>::new());
    assert_eq!(message(blocks(51)), ["blocks: 51 blocks, Slack takes 50"]);
    assert_eq!(Home::new(blocks(100)).validate(), Ok(()));
    assert_eq!(found(Home::new(blocks(101)).validate().unwrap_err()), ["blocks: 101 blocks, Slack takes 100"]);
}

const NOTE: Field<kind::Text> = Field::new("note", "note");

#[test]
fn a_modal_is_held_to_its_title_buttons_metadata_callback_and_labels() {
    let modal = Modal::new("c".repeat(256), "A title far too long for Slack")
        .close("c".repeat(25))
        .private_metadata("m".repeat(3001))
        .block(Block::text_input(NOTE, "l".repeat(2001)).hint("h".repeat(2001)))
        .block(Block::input(Field::<kind::Text>::new("other", "note"), "Other", Element::plain_text_input().placeholder("p".repeat(151)).max_length(3001)));
    assert_eq!(
        found(modal.validate().unwrap_err()),
        [
            "title: 30 characters, Slack takes 24",
            "close: 25 characters, Slack takes 24",
            "submit: missing: Slack requires it in a modal with input blocks",
            "private_metadata: 3,001 characters, Slack takes 3,000",
            "callback_id: 256 characters, Slack takes 255",
            "blocks[0].label: 2,001 characters, Slack takes 2,000",
            "blocks[0].hint: 2,001 characters, Slack takes 2,000",
            "blocks[1].element.placeholder: 151 characters, Slack takes 150",
            "blocks[1].element.max_length: 3,001, Slack takes up to 3,000",
        ]
    );
}

#[test]
fn raw_views_are_checked_as_typed_ones_are() {
    assert_eq!(found(check_view(&json!({ "type": "modal", "blocks": [] }))), ["title: missing: Slack requires it"]);
    assert_eq!(found(check_view(&json!({ "type": "dialog", "blocks": [] }))), [r#"type: Some("dialog") is not a view Slack opens (modal, home)"#]);
    let confirm = json!({ "title": { "type": "plain_text", "text": "t".repeat(101) }, "text": { "type": "mrkdwn", "text": "x" }, "confirm": { "type": "plain_text", "text": "c".repeat(31) }, "deny": { "type": "plain_text", "text": "no" } });
    let view = json!({ "type": "home", "blocks": [{ "type": "actions", "elements": [{ "type": "button", "text": { "type": "plain_text", "text": "b" }, "confirm": confirm }] }] });
    assert_eq!(
        found(check_view(&view)),
        ["blocks[0].elements[0].confirm.title: 101 characters, Slack takes 100", "blocks[0].elements[0].confirm.confirm: 31 characters, Slack takes 30"]
    );
    assert_eq!(
        found(check_options(&json!([{ "text": { "type": "plain_text", "text": "o" }, "value": "v".repeat(151) }]))),
        ["options[0].value: 151 characters, Slack takes 150"]
    );
}
