//! The fake Slack's link previews (`chat.unfurl`) and Work Object flexpanes
//! (`entity.presentDetails`), as strict as Slack's documented errors, and kept so a test reads
//! back what a sharing shows ([`FakeUnfurl`]) and what a click was answered with.
//!
//! **`chat.unfurl`** names the sharing by `unfurl_id` + `source` (`missing_unfurl_id`,
//! `missing_source`, `invalid_source` unless `composer` or `conversations_history`), else by
//! `channel` + `ts` (`missing_channel`, `missing_ts`). It previews something: `unfurls` (a JSON
//! object of URL → object, or its JSON-encoded text in a form body; else
//! `invalid_unfurls_format`) and/or `metadata` (an object with an `entities` array, else
//! `invalid_metadata_format`, each entity with its `entity_type` (`slack#/entities/…`),
//! `external_ref.id`, `url`, `app_unfurl_url` and `entity_payload.attributes.title.text`, else
//! `error_processing_metadata`); neither is `missing_unfurls`. Called again for the same sharing,
//! Slack replaces its previews rather than adding more: a URL's unfurl and a link's Work Object
//! (by `app_unfurl_url`) are replaced, and the sharing counts the calls ([`FakeUnfurl::times`]).
//! The fake cannot know which messages and sharings Slack has: any `ts` and `unfurl_id` is taken.
//!
//! **`entity.presentDetails`** needs a `trigger_id` the simulator minted
//! (`crate::client::fresh_trigger_id`) within [`super::TRIGGER_TTL_MS`]: any other, or an
//! older one, is `invalid_trigger_id` (the one trigger error Slack documents for this method). It
//! answers with one of `metadata` (an entity: `entity_type`, `external_ref.id`, `url`,
//! `entity_payload.attributes.title.text`, else `invalid_metadata`), `error` (its `status` one of
//! Slack's, else `invalid_arguments`) or `user_auth_required` (with its `user_auth_url`, else
//! `user_auth_url_missing`); none of them is `invalid_arguments`.

use super::{missing, refusal, text, Answer};
use crate::client::trigger_minted_at;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// The `error.status` values a flexpane takes.
const DETAILS_ERROR_STATUSES: [&str; 7] = ["restricted", "internal_error", "not_found", "custom", "custom_partial_view", "timeout", "edit_error"];

/// What a `chat.unfurl` names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum UnfurlAt {
    /// A posted message.
    Message {
        /// Its conversation.
        channel: String,
        /// Its `ts`.
        ts: String,
    },
    /// A sharing by its id (the composer's links).
    Link {
        /// The sharing's `unfurl_id`.
        unfurl_id: String,
        /// Its `source`.
        source: String,
    },
}

/// What a sharing shows, as the fake keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FakeUnfurl {
    /// The classic previews, by URL.
    pub unfurls: Map<String, Value>,
    /// The Work Objects (`metadata.entities`), one per link (`app_unfurl_url`).
    pub entities: Vec<Value>,
    /// How many calls were applied to it.
    pub times: usize,
}

/// The fake's unfurls and flexpanes.
#[derive(Debug, Default)]
pub struct Unfurling {
    /// What each sharing shows.
    shown: HashMap<UnfurlAt, FakeUnfurl>,
    /// The flexpane each trigger was answered with (its call's arguments, the last one's).
    flexpanes: HashMap<String, Value>,
}

impl Unfurling {
    /// `chat.unfurl`: the sharing's previews replaced by the call's (see the module docs).
    pub fn unfurl(&mut self, args: &Map<String, Value>) -> Answer {
        let at = unfurl_at(args)?;
        let unfurls = decoded(args, "unfurls").map(|u| classic(&u)).transpose()?;
        let entities = decoded(args, "metadata").map(|m| work_objects(&m)).transpose()?;
        if unfurls.is_none() && entities.is_none() {
            return Err(refusal("missing_unfurls"));
        }
        let shown = self.shown.entry(at).or_insert_with(|| FakeUnfurl { unfurls: Map::new(), entities: Vec::new(), times: 0 });
        shown.unfurls.extend(unfurls.unwrap_or_default());
        for entity in entities.unwrap_or_default() {
            shown.entities.retain(|e| e["app_unfurl_url"] != entity["app_unfurl_url"]);
            shown.entities.push(entity);
        }
        shown.times += 1;
        Ok(json!({"ok": true}))
    }

    /// `entity.presentDetails`: a fresh trigger of the simulator's, answered with an entity, an
    /// error, or a request to authenticate.
    pub fn present(&mut self, args: &Map<String, Value>, now_ms: u64) -> Answer {
        let trigger = text(args, "trigger_id").ok_or_else(|| missing("trigger_id"))?;
        let fresh = trigger_minted_at(trigger).is_some_and(|minted| now_ms.saturating_sub(minted) <= super::TRIGGER_TTL_MS);
        if !fresh {
            return Err(refusal("invalid_trigger_id"));
        }
        match (decoded(args, "metadata"), decoded(args, "error"), auth_required(args)) {
            (Some(metadata), None, false) if !is_work_object(&metadata, false) => return Err(refusal("invalid_metadata")),
            (Some(_), None, false) => {}
            (None, Some(error), false) => details_error(&error)?,
            (None, None, true) if text(args, "user_auth_url").is_none() => return Err(refusal("user_auth_url_missing")),
            (None, None, true) => {}
            _ => return Err(refusal("invalid_arguments")),
        }
        self.flexpanes.insert(trigger.to_string(), Value::Object(args.clone()));
        Ok(json!({"ok": true}))
    }

    /// What the sharing `at` shows, if it was unfurled.
    pub fn shown(&self, at: &UnfurlAt) -> Option<FakeUnfurl> {
        self.shown.get(at).cloned()
    }

    /// The arguments the flexpane of `trigger_id` was answered with, if it was.
    pub fn flexpane(&self, trigger_id: &str) -> Option<Value> {
        self.flexpanes.get(trigger_id).cloned()
    }
}

/// The sharing a call names: by `unfurl_id` + `source` when it gives either, else by message.
fn unfurl_at(args: &Map<String, Value>) -> Result<UnfurlAt, Value> {
    if args.contains_key("unfurl_id") || args.contains_key("source") {
        let unfurl_id = text(args, "unfurl_id").ok_or_else(|| refusal("missing_unfurl_id"))?;
        let source = text(args, "source").ok_or_else(|| refusal("missing_source"))?;
        if !matches!(source, "composer" | "conversations_history") {
            return Err(refusal("invalid_source"));
        }
        return Ok(UnfurlAt::Link { unfurl_id: unfurl_id.into(), source: source.into() });
    }
    let channel = text(args, "channel").ok_or_else(|| refusal("missing_channel"))?;
    let ts = text(args, "ts").ok_or_else(|| refusal("missing_ts"))?;
    Ok(UnfurlAt::Message { channel: channel.into(), ts: ts.into() })
}

/// An argument as JSON: an object given as is, or the JSON-encoded text of a form body (a text
/// that is not JSON is kept as text, for the checks to refuse).
fn decoded(args: &Map<String, Value>, name: &str) -> Option<Value> {
    match args.get(name)? {
        Value::Null => None,
        Value::String(encoded) => Some(serde_json::from_str(encoded).unwrap_or_else(|_| Value::String(encoded.clone()))),
        given => Some(given.clone()),
    }
}

/// `unfurls`: URL → an object each.
fn classic(unfurls: &Value) -> Result<Map<String, Value>, Value> {
    match unfurls.as_object() {
        Some(by_url) if by_url.values().all(Value::is_object) => Ok(by_url.clone()),
        _ => Err(refusal("invalid_unfurls_format")),
    }
}

/// `metadata.entities`: Work Objects, each with its link (`app_unfurl_url`).
fn work_objects(metadata: &Value) -> Result<Vec<Value>, Value> {
    let entities = metadata.get("entities").and_then(Value::as_array).ok_or_else(|| refusal("invalid_metadata_format"))?;
    match entities.iter().all(|e| is_work_object(e, true)) {
        true => Ok(entities.clone()),
        false => Err(refusal("error_processing_metadata")),
    }
}

/// Whether `e` is a Work Object Slack can show: its type, reference, URL and title (and, in an
/// unfurl, the link it previews).
fn is_work_object(e: &Value, in_unfurl: bool) -> bool {
    let filled = |pointer: &str| e.pointer(pointer).and_then(Value::as_str).is_some_and(|s| !s.is_empty());
    let typed = e["entity_type"].as_str().is_some_and(|t| t.starts_with("slack#/entities/"));
    let whole = typed && filled("/external_ref/id") && filled("/url") && filled("/entity_payload/attributes/title/text");
    whole && (!in_unfurl || filled("/app_unfurl_url"))
}

/// A flexpane's `error`: one of Slack's statuses.
fn details_error(error: &Value) -> Result<(), Value> {
    match error["status"].as_str() {
        Some(status) if DETAILS_ERROR_STATUSES.contains(&status) => Ok(()),
        _ => Err(refusal("invalid_arguments")),
    }
}

/// `user_auth_required`: `true`, or `1`/`true` in a form body.
fn auth_required(args: &Map<String, Value>) -> bool {
    match args.get("user_auth_required") {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s == "1" || s == "true",
        Some(Value::Number(n)) => n.as_i64() == Some(1),
        _ => false,
    }
}
