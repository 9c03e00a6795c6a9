//! Where a request comes from ([`Origin`]): the fact its effects are keyed by, and the channel,
//! message, thread, `response_url`, `trigger_id` and user the helpers answer "here" with.
//!
//! Invariant: the origin is a function of the request alone, never of the listener that takes
//! it, so one [`Cx`](super::Cx) serves the whole run of a request: its middleware, then the
//! listener's handler.

use super::cx::Origin;
use crate::slack::envelope::{Dispatch, Event, EventEnvelope, Interaction, Message, SlashCommand};
use serde_json::Value;

/// The origin of any request.
pub fn of(request: &Dispatch) -> Origin {
    match request {
        Dispatch::Event(envelope) => match &envelope.event {
            Event::AppMention(m) | Event::Message(m) => message_origin(m),
            _ => super::unfurl::origin_of(envelope).unwrap_or_else(|| event_origin(envelope)),
        },
        Dispatch::Command(c) => command_origin(c),
        Dispatch::Interaction(i) => interaction_origin(i),
    }
}

/// A message: keyed by its channel and `ts`; a reply goes in its thread.
fn message_origin(m: &Message) -> Origin {
    Origin {
        fact: format!("msg:{}:{}", m.channel, m.ts),
        channel: Some(m.channel.clone()),
        ts: Some(m.ts.clone()),
        thread_ts: Some(m.thread_ts.clone().unwrap_or_else(|| m.ts.clone())),
        user: m.user.clone(),
        ..Origin::default()
    }
}

fn str_at(v: &Value, pointer: &str) -> Option<String> {
    v.pointer(pointer).and_then(Value::as_str).map(str::to_string)
}

/// An event that is not a message: keyed by its `event_id`; "here" is its item or channel.
fn event_origin(envelope: &EventEnvelope) -> Origin {
    let raw = &envelope.raw;
    let channel = str_at(raw, "/item/channel").or_else(|| str_at(raw, "/channel")).or_else(|| str_at(raw, "/channel/id"));
    let ts = str_at(raw, "/item/ts").or_else(|| str_at(raw, "/message_ts")).or_else(|| str_at(raw, "/ts"));
    let step_execution = str_at(raw, "/function_execution_id");
    Origin { fact: format!("ev:{}", envelope.event_id), channel, thread_ts: ts.clone(), ts, user: str_at(raw, "/user"), step_execution, ..Origin::default() }
}

/// A slash command: keyed by its `trigger_id`; "here" is the channel it was run in.
fn command_origin(command: &SlashCommand) -> Origin {
    Origin {
        fact: format!("cmd:{}", command.trigger_id),
        channel: Some(command.channel_id.clone()).filter(|c| !c.is_empty()),
        response_url: Some(command.response_url.clone()),
        trigger_id: Some(command.trigger_id.clone()),
        user: Some(command.user_id.clone()),
        ..Origin::default()
    }
}

/// An interaction: keyed by its `trigger_id` (or its digest); "here" is the message it was on.
fn interaction_origin(i: &Interaction) -> Origin {
    let raw = &i.raw;
    Origin {
        fact: format!("ix:{}", i.op_key),
        channel: i.channel_id.clone(),
        ts: i.message_ts.clone(),
        thread_ts: str_at(raw, "/message/thread_ts").or_else(|| i.message_ts.clone()),
        response_url: i.response_url.clone().or_else(|| str_at(raw, "/response_urls/0/response_url")),
        trigger_id: str_at(raw, "/trigger_id"),
        user: i.user_id.clone(),
        step_execution: str_at(raw, "/function_data/execution_id"),
        unfurl: None,
    }
}
