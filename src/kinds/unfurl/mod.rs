//! Unfurls and Work Objects, pure: a shared link previewed once, and a Work Object's flexpane
//! answered while its trigger lives.
//!
//! Why: when a user shares a link of one of the app's unfurl domains (at most 5), Slack sends
//! `link_shared` — while the link is still in the composer (`source: composer`: no message yet,
//! only an `unfurl_id`) and once it is posted (`conversations_history`) — and shows whatever the
//! app sends back with `chat.unfurl` (Tier 3): classic previews by URL (`unfurls`) and, since
//! 2025-10, Work Objects (`metadata.entities`: a task, an item, an incident, a file, a content
//! item of the app's system). A click on a Work Object sends `entity_details_requested` with a
//! `trigger_id`, and the app answers with `entity.presentDetails` (the flexpane), bound to that
//! trigger like `views.open`. Both answers are ordinary effects here: an outbox row each, queued
//! with the event's receipt, paced by the method's tier, fenced, retried or parked as Slack's
//! error says (`crate::slack::classify`: `cannot_unfurl_url`, `invalid_unfurl_id`,
//! `cannot_find_message`, … park at once). No job of this room's own: the rows are Web API calls
//! (`Action::SlackApi`), built here.
//!
//! - **Where an unfurl goes** ([`UnfurlTarget::of`]): a composer's links by `unfurl_id` +
//!   `source` (there is no message to name), a posted message's by `channel` + `ts`.
//! - **Once per sharing.** An unfurl's key is built from the sharing ([`link_fact`]: its
//!   `unfurl_id`, else the message), a flexpane's from its trigger ([`details_fact`]): Slack's
//!   retries of the event, or the same sharing under a fresh `event_id`, add nothing. Slack
//!   itself replaces a message's unfurls when called again for the same links, so a retry after
//!   an unknown outcome shows the previews once.
//! - **A flexpane in time, or never.** Its row carries the trigger's life as its deadline (3 s,
//!   `crate::app::listen::cx::TRIGGER_DEADLINE_MS`): one not sent by then is parked `expired`,
//!   never sent with a dead trigger. An unfurl stays useful longer ([`UNFURL_DEADLINE_MS`]).
//!
//! Invariants: an unfurl names exactly one of (`channel`, `ts`) and (`unfurl_id`, `source`); it
//! previews something (`unfurls` or `metadata`, else the handler fails: Slack would refuse it);
//! a flexpane always names its trigger.

pub mod entity;
pub mod events;
#[cfg(test)]
mod tests;

pub use entity::{Details, DetailsError, Entity, EntityType, Unfurls};
pub use events::{EntityDetailsRequest, ExternalRef, LinkShared, LinkSource, SharedLink, ENTITY_DETAILS_REQUESTED, LINK_SHARED};

use crate::slack::method;
use serde_json::{json, Map, Value};

/// An unfurl later than this is worse than none, as a reply is (30 min).
pub const UNFURL_DEADLINE_MS: i64 = 30 * 60 * 1000;

/// What `chat.unfurl` names: the message the links are in, or the links themselves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnfurlTarget {
    /// A posted message: `channel` + `ts`.
    Message {
        /// The conversation.
        channel: String,
        /// The message.
        ts: String,
    },
    /// A sharing by its `unfurl_id` + `source`: a composer's links, before their message exists.
    Link {
        /// The sharing's id.
        unfurl_id: String,
        /// Its source (`composer`).
        source: String,
    },
}

impl UnfurlTarget {
    /// Where the unfurl of `links` goes: by `unfurl_id` for a composer's links
    /// ([`LinkShared::from_event`] checked it is there), else by the message.
    pub fn of(links: &LinkShared) -> UnfurlTarget {
        match (&links.source, &links.unfurl_id) {
            (Some(source @ LinkSource::Composer), Some(unfurl_id)) => UnfurlTarget::Link { unfurl_id: unfurl_id.clone(), source: source.as_str().to_string() },
            _ => UnfurlTarget::Message { channel: links.channel.clone(), ts: links.message_ts.clone() },
        }
    }

    fn args(&self) -> Map<String, Value> {
        let pair = match self {
            UnfurlTarget::Message { channel, ts } => json!({ "channel": channel, "ts": ts }),
            UnfurlTarget::Link { unfurl_id, source } => json!({ "unfurl_id": unfurl_id, "source": source }),
        };
        pair.as_object().cloned().unwrap_or_default()
    }
}

/// The fact a sharing is: its `unfurl_id` (`link:{unfurl_id}`), else its message
/// (`link:{channel}:{message_ts}`).
pub fn link_fact(links: &LinkShared) -> String {
    match &links.unfurl_id {
        Some(id) => format!("link:{id}"),
        None => format!("link:{}:{}", links.channel, links.message_ts),
    }
}

/// The fact a click on a Work Object is: its trigger (`entity:{trigger_id}`).
pub fn details_fact(request: &EntityDetailsRequest) -> String {
    format!("entity:{}", request.trigger_id)
}

/// The `chat.unfurl` call that shows `unfurls` at `target`.
pub fn unfurl_call(target: &UnfurlTarget, unfurls: &Unfurls) -> (&'static str, Value) {
    let mut args = target.args();
    args.extend(unfurls.args());
    (method::UNFURL, Value::Object(args))
}

/// The `entity.presentDetails` call that answers trigger `trigger_id` with `details`.
pub fn details_call(trigger_id: &str, details: &Details) -> (&'static str, Value) {
    let mut args = details.args();
    args.insert("trigger_id".into(), json!(trigger_id));
    (method::ENTITY_PRESENT_DETAILS, Value::Object(args))
}
