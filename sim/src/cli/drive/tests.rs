use super::*;

fn call(method: &str, json: Value, answer: Value) -> SimCall {
    SimCall {
        index: 0,
        method: method.into(),
        path: format!("/api/{method}"),
        json: Some(json),
        args: Map::new(),
        at_ms: 0,
        rate_limited: false,
        answer: Some(answer),
    }
}

fn modal() -> Value {
    json!({
        "type": "modal", "callback_id": "ticket", "private_metadata": "C0DESK",
        "blocks": [
            {"type": "input", "block_id": "title", "element": {"type": "plain_text_input", "action_id": "title_input"}},
            {"type": "input", "block_id": "priority", "element": {"type": "static_select", "action_id": "pick", "options": [
                {"text": {"type": "plain_text", "text": "High"}, "value": "high"},
                {"text": {"type": "plain_text", "text": "Low"}, "value": "low"}
            ]}},
            {"type": "input", "block_id": "due", "element": {"type": "datepicker", "action_id": "date"}},
            {"type": "input", "block_id": "tags", "element": {"type": "checkboxes", "action_id": "boxes", "options": [
                {"text": {"type": "plain_text", "text": "Bug"}, "value": "bug"},
                {"text": {"type": "plain_text", "text": "Urgent"}, "value": "urgent"}
            ]}},
            {"type": "input", "block_id": "who", "element": {"type": "users_select", "action_id": "user"}}
        ]
    })
}

fn field(block: &str, action: &str, value: &str) -> (String, String, String) {
    (block.into(), action.into(), value.into())
}

#[test]
fn each_field_takes_the_shape_slack_sends_for_its_element() {
    let values = typed_values(
        &modal(),
        &[
            field("title", "title_input", "Printer on fire"),
            field("priority", "pick", "high"),
            field("due", "date", "2026-12-24"),
            field("tags", "boxes", "bug, urgent"),
            field("who", "user", "U7"),
        ],
    )
    .unwrap();
    assert_eq!(values["title"]["title_input"], json!({"type": "plain_text_input", "value": "Printer on fire"}));
    assert_eq!(
        values["priority"]["pick"],
        json!({"type": "static_select", "selected_option": {"text": {"type": "plain_text", "text": "High"}, "value": "high"}})
    );
    assert_eq!(values["due"]["date"], json!({"type": "datepicker", "selected_date": "2026-12-24"}));
    assert_eq!(
        values["tags"]["boxes"]["selected_options"].as_array().map(|o| o.iter().map(|o| o["value"].clone()).collect::<Vec<_>>()),
        Some(vec![json!("bug"), json!("urgent")])
    );
    assert_eq!(values["who"]["user"], json!({"type": "users_select", "selected_user": "U7"}));
}

#[test]
fn what_the_view_does_not_offer_is_an_error_naming_it() {
    let unknown = typed_values(&modal(), &[field("priority", "pick", "urgent")]).unwrap_err();
    assert!(unknown.contains("\"urgent\" is not one of the element's options [\"high\", \"low\"]"), "{unknown}");
    let missing = typed_values(&modal(), &[field("title", "typo", "x")]).unwrap_err();
    assert!(missing.contains("no element title.typo") && missing.contains("\"priority\""), "{missing}");
    assert!(typed_values(&modal(), &[field("due", "date", "24/12/2026")]).unwrap_err().contains("YYYY-MM-DD"));
}

#[test]
fn an_external_select_echoes_the_value_picked() {
    let external = json!({"type": "external_select", "action_id": "find"});
    assert_eq!(state_value(&external, "T-9").unwrap()["selected_option"]["value"], "T-9");
}

#[test]
fn the_newest_view_of_the_callback_id_is_found_in_json_or_form_bodies() {
    let mut older = modal();
    older["private_metadata"] = json!("old");
    let form = SimCall {
        json: None,
        args: [("view".to_string(), json!(modal().to_string()))].into_iter().collect(),
        ..call(method::VIEWS_UPDATE, Value::Null, json!({"ok": true}))
    };
    let calls = [
        call(method::VIEWS_OPEN, json!({"view": older}), json!({"ok": true})),
        form,
        call(method::VIEWS_OPEN, json!({"view": {"callback_id": "other"}}), json!({"ok": true})),
    ];
    assert_eq!(opened_view(&calls, "ticket").map(|v| v["private_metadata"].clone()), Some(json!("C0DESK")));
    assert_eq!(opened_view(&calls, "nope"), None);
}

#[test]
fn a_click_finds_the_newest_message_holding_the_button_with_its_block_and_value() {
    let post = |ts: &str, value: &str| {
        call(
            method::POST_MESSAGE,
            json!({"channel": "C1", "blocks": [{"type": "actions", "block_id": "ticket_actions", "elements": [{"type": "button", "action_id": "take", "value": value}]}]}),
            json!({"ok": true, "channel": "C1", "ts": ts}),
        )
    };
    let refused =
        call(method::POST_MESSAGE, json!({"channel": "C1", "blocks": [{"type": "actions", "elements": [{"action_id": "take"}]}]}), json!({"ok": false}));
    let calls = [post("1.1", "TCK-1"), post("2.2", "TCK-2"), refused];
    let newest = button_in_posts(&calls, "take", None, None).unwrap();
    assert_eq!(newest, Button { channel: "C1".into(), ts: "2.2".into(), block_id: "ticket_actions".into(), value: "TCK-2".into() });
    assert_eq!(button_in_posts(&calls, "take", Some("C1"), Some("1.1")).map(|b| b.value), Some("TCK-1".into()));
    assert_eq!(button_in_posts(&calls, "close", None, None), None);
    assert_eq!(button_in_posts(&calls, "take", Some("C2"), None), None);
    let accessory = call(
        method::POST_MESSAGE,
        json!({"blocks": [{"type": "section", "block_id": "b1", "accessory": {"type": "button", "action_id": "hi"}}]}),
        json!({"ok": true, "channel": "C3", "ts": "3.3"}),
    );
    assert_eq!(
        button_in_posts(&[accessory], "hi", None, None).map(|b| (b.ts, b.block_id, b.value)),
        Some(("3.3".into(), "b1".into(), String::new())),
        "a section's accessory too"
    );
}

#[test]
fn a_channel_message_is_typed_by_its_channel_and_may_reply_in_a_thread() {
    let m = channel_message("C1", "5.5", "U2", "TCK-3 is done", Some("4.4"));
    assert_eq!((m["channel_type"].as_str(), m["thread_ts"].as_str(), m["user"].as_str()), (Some("channel"), Some("4.4"), Some("U2")));
    assert_eq!(channel_message("D1", "5.5", "U2", "hi", None)["channel_type"], "im");
    assert!(channel_message("C1", "5.5", "U2", "hi", None).get("thread_ts").is_none());
}
