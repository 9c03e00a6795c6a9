//! Driving any bot, not only the shipped one: the pieces `message`, `command --name`,
//! `click --action-id` and `submit --field` build their payloads from — pure functions of the
//! calls the fake Slack recorded, so the simulator sends what Slack would send *to this bot*.
//!
//! - **A click on a posted message** (`--last-post`, or `--channel`/`--ts` of a post the fake
//!   saw): Slack sends the button's own `block_id` and `value`, as the bot posted them, so they are
//!   read from the newest `chat.postMessage` / `chat.update` holding an element of that
//!   `action_id` ([`button_in_posts`]); `--value` / `--block-id` override them.
//! - **A modal's submission** (`--field BLOCK.ACTION=VALUE`): Slack's `state.values` entry has a
//!   shape per element type (a select's `selected_option`, a date picker's `selected_date`,
//!   checkboxes' `selected_options`, …), so the element is looked up in the newest view of that
//!   `callback_id` the bot opened, pushed or updated ([`opened_view`]), and the value shaped by its
//!   type ([`state_value`]); the submission carries that view's blocks and `private_metadata`, as
//!   Slack's does.
//!
//! Invariant: nothing here guesses silently. An element that is not in the view, an option the
//! select does not offer, or a post without the button is an error naming what is missing.

use crate::client::SimCall;
use serde_json::{json, Map, Value};
use slackline::internal::slack::method;

/// A view the app opened, pushed or updated, as the fake recorded its call's `view` argument
/// (an object in a JSON body, JSON text in a form body).
fn view_of(call: &SimCall) -> Option<Value> {
    let view = call.args.get("view").or_else(|| call.json.as_ref()?.get("view"))?;
    match view {
        Value::String(text) => serde_json::from_str(text).ok(),
        Value::Object(_) => Some(view.clone()),
        _ => None,
    }
}

/// The newest view with `callback_id` the app opened, pushed or updated, in `calls`.
pub fn opened_view(calls: &[SimCall], callback_id: &str) -> Option<Value> {
    let views = [method::VIEWS_OPEN, method::VIEWS_PUSH, method::VIEWS_UPDATE];
    calls.iter().rev().filter(|c| views.contains(&c.method.as_str())).filter_map(view_of).find(|v| v["callback_id"] == callback_id)
}

/// The input element `action_id` of block `block_id` in `view` (an input block's `element`, or
/// an element of an actions block or a section's accessory).
fn element_in<'v>(view: &'v Value, block_id: &str, action_id: &str) -> Option<&'v Value> {
    let block = view["blocks"].as_array()?.iter().find(|b| b["block_id"] == block_id)?;
    let mut candidates = [&block["element"], &block["accessory"]].into_iter().chain(block["elements"].as_array().into_iter().flatten());
    candidates.find(|e| e["action_id"] == action_id)
}

/// An option of a select, checkboxes or radio buttons whose `value` is `value` (option groups
/// included), as Slack echoes it back.
fn option_of(element: &Value, value: &str) -> Result<Value, String> {
    let direct = element["options"].as_array().into_iter().flatten();
    let grouped = element["option_groups"].as_array().into_iter().flatten().flat_map(|g| g["options"].as_array().into_iter().flatten());
    let offered: Vec<&Value> = direct.chain(grouped).collect();
    if offered.is_empty() {
        // An external select: the options came from the app; Slack echoes what was picked.
        return Ok(json!({"text": {"type": "plain_text", "text": value}, "value": value}));
    }
    let found = offered.iter().find(|o| o["value"] == value).map(|o| (*o).clone());
    found.ok_or_else(|| {
        let values: Vec<&str> = offered.iter().filter_map(|o| o["value"].as_str()).collect();
        format!("{value:?} is not one of the element's options {values:?}")
    })
}

/// The comma-separated items of a multi-value field.
fn items(value: &str) -> Vec<&str> {
    value.split(',').map(str::trim).filter(|v| !v.is_empty()).collect()
}

/// The `state.values` entry Slack sends for `element` holding `value` (a multi-value element:
/// values separated by commas).
pub fn state_value(element: &Value, value: &str) -> Result<Value, String> {
    let kind = element["type"].as_str().unwrap_or("plain_text_input");
    let many = |key: &str| json!({ "type": kind, key: items(value) });
    Ok(match kind {
        "static_select" | "external_select" | "radio_buttons" => json!({"type": kind, "selected_option": option_of(element, value)?}),
        "multi_static_select" | "multi_external_select" | "checkboxes" => {
            let picked: Result<Vec<Value>, String> = items(value).into_iter().map(|v| option_of(element, v)).collect();
            json!({"type": kind, "selected_options": picked?})
        }
        "users_select" => json!({"type": kind, "selected_user": value}),
        "multi_users_select" => many("selected_users"),
        "conversations_select" => json!({"type": kind, "selected_conversation": value}),
        "multi_conversations_select" => many("selected_conversations"),
        "channels_select" => json!({"type": kind, "selected_channel": value}),
        "multi_channels_select" => many("selected_channels"),
        "datepicker" => json!({"type": kind, "selected_date": date(value)?}),
        "timepicker" => json!({"type": kind, "selected_time": value}),
        "datetimepicker" => json!({"type": kind, "selected_date_time": value.parse::<i64>().map_err(|_| format!("{value:?} is not a unix time"))?}),
        "number_input" => {
            value.parse::<f64>().map_err(|_| format!("{value:?} is not a number"))?;
            json!({"type": kind, "value": value})
        }
        _ => json!({"type": kind, "value": value}),
    })
}

/// A `YYYY-MM-DD` date, checked.
fn date(value: &str) -> Result<&str, String> {
    let parts: Vec<&str> = value.split('-').collect();
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    match parts.as_slice() {
        [y, m, d] if digits(y, 4) && digits(m, 2) && digits(d, 2) => Ok(value),
        _ => Err(format!("{value:?} is not a date (YYYY-MM-DD)")),
    }
}

/// `view`'s `state.values` for `fields` (`(block_id, action_id, value)`), each shaped by its
/// element's type; an element the view does not have is an error naming the blocks it has.
pub fn typed_values(view: &Value, fields: &[(String, String, String)]) -> Result<Value, String> {
    let mut values = Map::new();
    for (block, action, value) in fields {
        let element = element_in(view, block, action).ok_or_else(|| {
            let blocks: Vec<&str> = view["blocks"].as_array().into_iter().flatten().filter_map(|b| b["block_id"].as_str()).collect();
            format!("the modal {} has no element {block}.{action} (its blocks: {blocks:?})", view["callback_id"])
        })?;
        let entry = state_value(element, value).map_err(|why| format!("--field {block}.{action}: {why}"))?;
        let actions = values.entry(block.clone()).or_insert_with(|| Value::Object(Map::new()));
        actions[action.as_str()] = entry;
    }
    Ok(Value::Object(values))
}

/// A button of `action_id` in a message the app posted or updated: where it is and what Slack
/// would send with a click on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Button {
    /// The message's channel.
    pub channel: String,
    /// The message's `ts`.
    pub ts: String,
    /// The button's block.
    pub block_id: String,
    /// The button's value (empty if it has none).
    pub value: String,
}

/// The newest message the app posted (`chat.postMessage`, answered with its `ts`) or updated
/// (`chat.update`) holding an element of `action_id`, in `channel` (any, without one) and with
/// `ts` (any, without one).
pub fn button_in_posts(calls: &[SimCall], action_id: &str, channel: Option<&str>, ts: Option<&str>) -> Option<Button> {
    calls.iter().rev().filter(|c| c.method == method::POST_MESSAGE || c.method == method::UPDATE).find_map(|c| {
        let (posted_channel, posted_ts) = where_posted(c)?;
        if channel.is_some_and(|want| want != posted_channel) || ts.is_some_and(|want| want != posted_ts) {
            return None;
        }
        let blocks = blocks_of(c)?;
        let (block, element) = blocks.iter().find_map(|b| {
            let mut elements = b["elements"].as_array().into_iter().flatten().chain(b.get("accessory"));
            elements.find(|e| e["action_id"] == action_id).map(|e| (b, e))
        })?;
        Some(Button {
            channel: posted_channel,
            ts: posted_ts,
            block_id: block["block_id"].as_str().unwrap_or("sim_block").to_string(),
            value: element["value"].as_str().unwrap_or_default().to_string(),
        })
    })
}

/// Where a post or an update landed: its channel and `ts` (a post's from Slack's answer).
fn where_posted(call: &SimCall) -> Option<(String, String)> {
    let answer = call.answer.as_ref().filter(|a| a["ok"] == true)?;
    let channel = answer["channel"].as_str().or_else(|| call.field("channel"))?;
    let ts = answer["ts"].as_str().or_else(|| call.field("ts"))?;
    Some((channel.to_string(), ts.to_string()))
}

/// A call's `blocks` (an array in a JSON body, JSON text in a form body).
fn blocks_of(call: &SimCall) -> Option<Vec<Value>> {
    let blocks = call.args.get("blocks").or_else(|| call.json.as_ref()?.get("blocks"))?;
    match blocks {
        Value::String(text) => serde_json::from_str(text).ok(),
        Value::Array(items) => Some(items.clone()),
        _ => None,
    }
}

/// A message `user` wrote in `channel` (a reply in `thread_ts`, with one), as an Events API
/// `message` event.
pub fn channel_message(channel: &str, ts: &str, user: &str, text: &str, thread_ts: Option<&str>) -> Value {
    let channel_type = match channel.chars().next() {
        Some('D') => "im",
        Some('G') => "group",
        _ => "channel",
    };
    let mut event = json!({"type": "message", "channel": channel, "channel_type": channel_type, "user": user, "text": text, "ts": ts, "event_ts": ts});
    if let Some(thread) = thread_ts {
        event["thread_ts"] = json!(thread);
    }
    event
}

#[cfg(test)]
mod tests;
