//! What a listener receives: the request, typed for its kind, with the raw JSON Slack sent always
//! at hand (`raw`), so no field Slack sends is out of reach.
//!
//! Typed payloads of the common events ([`ReactionEvent`], [`AppHomeOpened`], [`MemberChannel`],
//! [`ChannelEvent`], [`TeamJoin`], [`LinkShared`], [`MessageChanged`], [`MessageDeleted`]) come
//! from [`EventIn::parse`]; any other type is read from [`EventIn::raw`] the same way.

use crate::blocks::kind::Kind;
use crate::blocks::Field;
use crate::slack::envelope::{BlockAction, EventEnvelope, Interaction, Message};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

/// An Events API event, for `event(type, …)` listeners.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct EventIn<'a> {
    /// The envelope (event id, team, our bot's user id).
    pub envelope: &'a EventEnvelope,
    /// The inner event as Slack sent it.
    pub raw: &'a Value,
}

impl EventIn<'_> {
    /// The event's `type` (`reaction_added`, …).
    pub fn event_type(&self) -> &str {
        self.raw.get("type").and_then(Value::as_str).unwrap_or_default()
    }

    /// The event as a typed payload (one of this module's, or your own `Deserialize` struct).
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, String> {
        serde_json::from_value(self.raw.clone()).map_err(|e| format!("{} is not the payload expected: {e}", self.event_type()))
    }
}

/// A message (`message`, `app_mention`), for `mention(…)` and `message(pattern, …)` listeners.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct MessageIn<'a> {
    /// Its fields.
    pub message: &'a Message,
    /// The envelope.
    pub envelope: &'a EventEnvelope,
    /// The event as Slack sent it.
    pub raw: &'a Value,
    /// A `Pattern::regex` listener's captures (the whole match first); empty otherwise.
    pub matches: &'a [String],
}

impl MessageIn<'_> {
    /// The thread it belongs to (its own `ts` when it starts none): where a reply goes.
    pub fn thread(&self) -> &str {
        self.message.thread_ts.as_deref().unwrap_or(&self.message.ts)
    }

    /// The text without `<@U…>` mentions, trimmed: the human's words.
    pub fn words(&self) -> String {
        crate::app::strip_mentions(&self.message.text)
    }
}

/// A `block_actions` payload's action, for `action(…)` listeners.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ActionIn<'a> {
    /// The action that matched.
    pub action: &'a BlockAction,
    /// The whole interaction (user, channel, message `ts`, `response_url`).
    pub interaction: &'a Interaction,
}

impl ActionIn<'_> {
    /// The `trigger_id` (to open a modal; it lives 3 seconds).
    pub fn trigger_id(&self) -> Option<&str> {
        self.interaction.raw.get("trigger_id").and_then(Value::as_str)
    }
}

/// A `view_submission` or `view_closed` payload, for `view_submission(…)` / `view_closed(…)`.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ViewIn<'a> {
    /// The interaction.
    pub interaction: &'a Interaction,
    /// The view (`callback_id`, `state.values`, `private_metadata`, `id`, `hash`).
    pub view: &'a Value,
}

impl ViewIn<'_> {
    /// The view's `callback_id`.
    pub fn callback_id(&self) -> &str {
        self.view.get("callback_id").and_then(Value::as_str).unwrap_or_default()
    }

    /// The submitted value of the input `field`, typed by its kind: a text input's text, a
    /// select's picked option's value (`Option<String>`), checkboxes' values
    /// (`Option<Vec<String>>`), a date (`Option<kind::Date>`), … (see
    /// [`kind`](crate::blocks::kind)). `None` when it was left empty (or the view has no such
    /// input).
    pub fn get<K: Kind>(&self, field: Field<K>) -> Option<K::Value> {
        K::read(self.input(field.block_id(), field.action_id().as_str())?)
    }

    /// The state of the input `action_id` in block `block_id`.
    fn input(&self, block_id: &str, action_id: &str) -> Option<&Value> {
        self.view.get("state")?.get("values")?.get(block_id)?.get(action_id)
    }

    /// The submitted value of the input `action_id` in block `block_id` (plain text, a selected
    /// option's value, a date, …), if any, untyped ([`ViewIn::get`] reads a typed field).
    pub fn value(&self, block_id: &str, action_id: &str) -> Option<&str> {
        let input = self.input(block_id, action_id)?;
        ["value", "selected_date", "selected_time", "selected_user", "selected_channel", "selected_conversation"]
            .iter()
            .find_map(|k| input.get(*k).and_then(Value::as_str))
            .or_else(|| input.pointer("/selected_option/value").and_then(Value::as_str))
    }

    /// The view's `private_metadata`.
    pub fn private_metadata(&self) -> &str {
        self.view.get("private_metadata").and_then(Value::as_str).unwrap_or_default()
    }
}

/// A global (`shortcut`) or message (`message_action`) shortcut, for `shortcut(…)` listeners.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ShortcutIn<'a> {
    /// The interaction.
    pub interaction: &'a Interaction,
}

impl ShortcutIn<'_> {
    /// The shortcut's `callback_id`.
    pub fn callback_id(&self) -> &str {
        self.interaction.raw.get("callback_id").and_then(Value::as_str).unwrap_or_default()
    }

    /// The message a message shortcut was used on, if it was one.
    pub fn message(&self) -> Option<&Value> {
        self.interaction.raw.get("message")
    }

    /// The `trigger_id` (to open a modal; it lives 3 seconds).
    pub fn trigger_id(&self) -> Option<&str> {
        self.interaction.raw.get("trigger_id").and_then(Value::as_str)
    }
}

/// A `block_suggestion` (an external select asking for options), for `options(…)` listeners.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct OptionsIn<'a> {
    /// The interaction.
    pub interaction: &'a Interaction,
}

impl OptionsIn<'_> {
    /// The select's `action_id`.
    pub fn action_id(&self) -> &str {
        self.interaction.raw.get("action_id").and_then(Value::as_str).unwrap_or_default()
    }

    /// What the user has typed so far.
    pub fn query(&self) -> &str {
        self.interaction.raw.get("value").and_then(Value::as_str).unwrap_or_default()
    }
}

/// The message or file a reaction is on.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct ReactionItem {
    /// `message` or `file`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The message's channel.
    #[serde(default)]
    pub channel: Option<String>,
    /// The message's `ts`.
    #[serde(default)]
    pub ts: Option<String>,
}

/// `reaction_added` / `reaction_removed`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct ReactionEvent {
    /// Who reacted.
    pub user: String,
    /// The emoji's name, without colons.
    pub reaction: String,
    /// What it is on.
    pub item: ReactionItem,
    /// The item's author, when Slack says.
    #[serde(default)]
    pub item_user: Option<String>,
    /// When (Slack's `event_ts`).
    pub event_ts: String,
}

/// `app_home_opened`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct AppHomeOpened {
    /// Who opened it.
    pub user: String,
    /// The app's DM channel with them.
    pub channel: String,
    /// `home` or `messages`.
    pub tab: String,
}

/// `member_joined_channel` / `member_left_channel`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct MemberChannel {
    /// The member.
    pub user: String,
    /// The channel.
    pub channel: String,
    /// Who added them, for a join by invitation.
    #[serde(default)]
    pub inviter: Option<String>,
}

/// The channel of `channel_created` / `channel_rename`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct ChannelInfo {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
}

/// `channel_created`, `channel_rename` (with `channel` an object), `channel_archive` (with
/// `channel` an id: read it from `raw`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct ChannelEvent {
    /// The channel.
    pub channel: ChannelInfo,
}

/// `team_join`: a new member; `user` is Slack's user object.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct TeamJoin {
    /// The user object (`id`, `name`, `profile`, …).
    pub user: Value,
}

/// `link_shared` and its links: the unfurls room's types (`crate::kinds::unfurl`), which the
/// `link_shared` / `unfurl` listeners hand over typed.
pub use crate::kinds::unfurl::{LinkShared, SharedLink};

/// A `message` event of subtype `message_changed`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct MessageChanged {
    /// The channel.
    pub channel: String,
    /// The message as it is now (`ts`, `text`, `user`, `edited`).
    pub message: Value,
    /// The message as it was.
    #[serde(default)]
    pub previous_message: Option<Value>,
}

/// A `message` event of subtype `message_deleted`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct MessageDeleted {
    /// The channel.
    pub channel: String,
    /// The deleted message's `ts`.
    pub deleted_ts: String,
    /// The message as it was.
    #[serde(default)]
    pub previous_message: Option<Value>,
}
