//! Everything Slack POSTs to us, parsed once into one enum, [`Inbound`].
//!
//! Three wire formats arrive here: Events API bodies (JSON), slash commands (form-encoded), and
//! interactivity (form-encoded with one JSON `payload` field). Each parser returns an [`Inbound`]
//! or a [`ParseError`]; the front door answers 400 for the error (the signature was already
//! checked, so the body is Slack's but not one we understand).
//!
//! Invariants:
//! - an *unknown* envelope or event type is a value ([`Inbound::Unknown`], [`Event::Other`]), not an
//!   error: Slack must get a 200 for it, or it spends retries and counts toward auto-disable;
//! - the team key is decided here, once: `authorizations[0]` (its enterprise id for an org-wide
//!   install, else its team id), the envelope's `team_id` only as a fallback;
//! - every variant that reaches a team actor carries its operation key: the `event_id` for events,
//!   the `trigger_id` for commands and interactions.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// One request from Slack, after its signature was verified. (`Dispatch` is much larger than the
/// other variants; an `Inbound` lives for one request, once, so boxing it would buy nothing.)
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum Inbound {
    /// Slack checks the endpoint: answer with the challenge.
    UrlVerification {
        /// Echoed back verbatim.
        challenge: String,
    },
    /// `ssl_check=1`: Slack checks the certificate; 200, nothing dispatched.
    SslCheck,
    /// Slack tells us it is dropping events for a team (over 30,000 per hour). Logged, 200.
    AppRateLimited {
        /// The team that is being limited.
        team_id: String,
        /// The minute (epoch seconds) the limit started.
        minute_rate_limited: i64,
    },
    /// Work for a team actor.
    Dispatch(Dispatch),
    /// An envelope type we do not know: acknowledged (200) and ignored.
    Unknown {
        /// The envelope's `type`.
        kind: String,
    },
}

/// The part of a request that a team actor records and acts on. Serialized from the front door to
/// the actor, so it is also the actor's wire format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Dispatch {
    /// An Events API `event_callback`.
    Event(EventEnvelope),
    /// A slash command.
    Command(SlashCommand),
    /// A block action, view submission, shortcut, ...
    Interaction(Interaction),
}

impl Dispatch {
    /// The installation this belongs to: the actor's name.
    pub fn team_key(&self) -> &str {
        match self {
            Dispatch::Event(e) => &e.team_key,
            Dispatch::Command(c) => &c.team_key,
            Dispatch::Interaction(i) => &i.team_key,
        }
    }

    /// The receipt key: Slack's `event_id`, or the `trigger_id` of a command or interaction.
    pub fn op_key(&self) -> &str {
        match self {
            Dispatch::Event(e) => &e.event_id,
            Dispatch::Command(c) => &c.trigger_id,
            Dispatch::Interaction(i) => &i.op_key,
        }
    }

    /// The type Slack gave it, for logs: the inner event's type (`app_mention`, ...), the slash
    /// command (`/slackline`), or the interaction's payload type (`block_actions`, ...).
    pub fn type_name(&self) -> &str {
        match self {
            Dispatch::Event(e) => e.event.type_name(),
            Dispatch::Command(c) => &c.command,
            Dispatch::Interaction(i) => &i.payload_type,
        }
    }

    /// True for `app_uninstalled`, or `tokens_revoked` naming a bot: the team's bot token is gone
    /// (the ingest unit deletes the installation and parks every pending row).
    pub fn uninstalls(&self) -> bool {
        match self {
            Dispatch::Event(e) => match &e.event {
                Event::AppUninstalled => true,
                Event::TokensRevoked { bot, .. } => !bot.is_empty(),
                _ => false,
            },
            _ => false,
        }
    }

    /// The dispatch as a team actor reads it from the front door (`crate::wire`): the JSON of any
    /// release's front door, its unknown fields ignored, and each event parsed again from the
    /// inner event as Slack sent it (`raw`), so that this release's understanding of the event
    /// wins over the sender's (an older front door's `Other` for a type this release knows, a
    /// newer one's variant this release does not). An unknown `kind` is an error: the caller
    /// answers it as a release mismatch (retryable), never as an ack.
    pub fn from_wire(text: &str) -> Result<Dispatch, serde_json::Error> {
        let mut dispatch: Dispatch = serde_json::from_str(text)?;
        if let Dispatch::Event(envelope) = &mut dispatch {
            if let Ok(event) = parse_event(&envelope.raw) {
                envelope.event = event;
            }
        }
        Ok(dispatch)
    }

    /// The thread (channel, thread ts) whose streamed answer the user stopped: an
    /// `agent_session_stopped`. The ingest unit records it whatever the app decides.
    pub fn stops_answer(&self) -> Option<(&str, &str)> {
        match self {
            Dispatch::Event(EventEnvelope { event: Event::AgentSessionStopped { channel, thread_ts, .. }, .. }) => Some((channel, thread_ts)),
            _ => None,
        }
    }

    /// A short label for logs and the receipt's `kind` column.
    pub fn kind(&self) -> &'static str {
        match self {
            Dispatch::Event(_) => "event",
            Dispatch::Command(_) => "command",
            Dispatch::Interaction(_) => "interaction",
        }
    }
}

/// An Events API `event_callback`, reduced to what the app needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EventEnvelope {
    /// Slack's unique id for this event delivery (stable across Slack's retries).
    pub event_id: String,
    /// The installation (team id, or enterprise id for an org-wide install).
    pub team_key: String,
    /// When the event happened (epoch seconds), 0 when absent.
    pub event_time: i64,
    /// Our bot's user id in this installation, when `authorizations[0]` says it is a bot.
    pub bot_user_id: Option<String>,
    /// The inner event. On the wire (front door to actor), a shape this release does not know — a
    /// newer release's variant — reads as [`Event::Other`] ([`Dispatch::from_wire`]); and a
    /// variant added since wire version 1 is written as `Other` (an older actor reads it as an
    /// event it does not act on; this release's parses it again from `raw`).
    #[serde(deserialize_with = "tolerant_event", serialize_with = "wire_event")]
    pub event: Event,
    /// The inner event as Slack sent it, for listeners of any event type.
    #[serde(default)]
    pub raw: Value,
}

/// The inner event of an `event_callback`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event {
    /// Someone mentioned the bot.
    AppMention(Message),
    /// A message in a channel, group or DM the bot can see.
    Message(Message),
    /// The app was removed from the workspace.
    AppUninstalled,
    /// Tokens were revoked; the lists hold user ids.
    TokensRevoked {
        /// User ids whose bot tokens were revoked.
        bot: Vec<String>,
        /// User ids whose user tokens were revoked.
        oauth: Vec<String>,
    },
    /// The user pressed Stop on the agent's streamed answer (`agent_session_stopped`, 2026): the
    /// answer streaming in that thread must stop (`crate::kinds::assistant`). Travels to a team
    /// actor as `Other` (see [`EventEnvelope::event`]).
    AgentSessionStopped {
        /// The conversation.
        channel: String,
        /// The thread of the session.
        thread_ts: String,
        /// The streaming messages the stop was pressed on.
        #[serde(default)]
        streaming_message_ts: Vec<String>,
        /// Who pressed it.
        #[serde(default)]
        user: Option<String>,
    },
    /// Any other event type: acknowledged, recorded, not acted on.
    Other {
        /// The inner event's `type`.
        event_type: String,
    },
}

impl Event {
    /// The inner event's `type`, as Slack spells it.
    pub fn type_name(&self) -> &str {
        match self {
            Event::AppMention(_) => "app_mention",
            Event::Message(_) => "message",
            Event::AppUninstalled => "app_uninstalled",
            Event::TokensRevoked { .. } => "tokens_revoked",
            Event::AgentSessionStopped { .. } => AGENT_SESSION_STOPPED,
            Event::Other { event_type } => event_type,
        }
    }
}

/// The fields of a `message` or `app_mention` event that the app uses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub struct Message {
    /// Channel id (C…, G…, D…).
    pub channel: String,
    /// `channel`, `group`, `im` or `mpim` (absent on `app_mention`).
    pub channel_type: Option<String>,
    /// The author, when a human (or a bot user) wrote it.
    pub user: Option<String>,
    /// Set when a bot (maybe ours) posted it.
    pub bot_id: Option<String>,
    /// `message_changed`, `bot_message`, ...: absent for a plain new message.
    pub subtype: Option<String>,
    /// The text (may be empty).
    pub text: String,
    /// The message's timestamp: its id within the channel.
    pub ts: String,
    /// The parent's `ts` when the message is in a thread.
    pub thread_ts: Option<String>,
}

/// A slash command invocation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SlashCommand {
    /// The installation.
    pub team_key: String,
    /// Unique per invocation: two identical commands are two intentional invocations.
    pub trigger_id: String,
    /// `/something`.
    pub command: String,
    /// What followed the command.
    pub text: String,
    /// Where the answer goes (valid for 30 minutes, up to 5 times).
    pub response_url: String,
    /// Who ran it.
    pub user_id: String,
    /// Where it was run.
    pub channel_id: String,
}

/// An interactivity payload (`block_actions`, `view_submission`, `shortcut`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Interaction {
    /// The installation.
    pub team_key: String,
    /// The receipt key: the `trigger_id`, or a digest of the payload when it has none.
    pub op_key: String,
    /// The payload's `type`.
    pub payload_type: String,
    /// Who acted.
    pub user_id: Option<String>,
    /// The actions of a `block_actions` payload.
    pub actions: Vec<BlockAction>,
    /// The channel of the message the action was on.
    pub channel_id: Option<String>,
    /// The `ts` of the message the action was on.
    pub message_ts: Option<String>,
    /// Where a reply to the interaction can be posted.
    pub response_url: Option<String>,
    /// The payload as Slack sent it (a view's state, a shortcut's message, …).
    #[serde(default)]
    pub raw: Value,
}

/// What an interactivity payload is, by its `type`: the one place that names Slack's interaction
/// kinds. A kind slackline does not know is [`InteractionKind::Other`] (kept and answered like any
/// other, never refused).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum InteractionKind {
    /// `block_actions`: a button, a select, … in a message, a modal or the App Home.
    BlockActions,
    /// `view_submission`: a modal's submit.
    ViewSubmission,
    /// `view_closed`: a modal closed (with `notify_on_close`).
    ViewClosed,
    /// `shortcut`: a global shortcut.
    Shortcut,
    /// `message_action`: a message shortcut.
    MessageAction,
    /// `block_suggestion`: an external select asking for its options.
    BlockSuggestion,
    /// Any other `type`.
    Other,
}

impl InteractionKind {
    /// The kind of a payload `type`.
    pub fn of(payload_type: &str) -> InteractionKind {
        match payload_type {
            "block_actions" => InteractionKind::BlockActions,
            "view_submission" => InteractionKind::ViewSubmission,
            "view_closed" => InteractionKind::ViewClosed,
            "shortcut" => InteractionKind::Shortcut,
            "message_action" => InteractionKind::MessageAction,
            "block_suggestion" => InteractionKind::BlockSuggestion,
            _ => InteractionKind::Other,
        }
    }
}

impl Interaction {
    /// What this payload is.
    pub fn kind(&self) -> InteractionKind {
        InteractionKind::of(&self.payload_type)
    }
}

/// One element of `actions` in a `block_actions` payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BlockAction {
    /// The `action_id` the app gave the element.
    pub action_id: String,
    /// The `block_id` of the block holding it.
    #[serde(default)]
    pub block_id: Option<String>,
    /// The element's value, for buttons.
    pub value: Option<String>,
}

/// Why a signed body could not be understood. Maps to 400 with [`ParseError::reason`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// The body is not UTF-8.
    NotUtf8,
    /// The body is not JSON (or nests too deep).
    BadJson,
    /// A required field is absent or has the wrong type.
    MissingField(&'static str),
    /// The interactivity form has no `payload` field.
    MissingPayload,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason())
    }
}

impl std::error::Error for ParseError {}

impl ParseError {
    /// A short reason for the 400 body and the log line.
    pub fn reason(&self) -> String {
        match self {
            ParseError::NotUtf8 => "body is not valid UTF-8".into(),
            ParseError::BadJson => "body is not valid JSON".into(),
            ParseError::MissingField(f) => format!("missing or invalid field: {f}"),
            ParseError::MissingPayload => "form has no payload field".into(),
        }
    }
}

fn utf8(body: &[u8]) -> Result<&str, ParseError> {
    std::str::from_utf8(body).map_err(|_| ParseError::NotUtf8)
}

fn json(text: &str) -> Result<Value, ParseError> {
    serde_json::from_str(text).map_err(|_| ParseError::BadJson)
}

fn str_at(v: &Value, pointer: &str) -> Option<String> {
    v.pointer(pointer).and_then(Value::as_str).map(str::to_string)
}

fn required(v: &Value, pointer: &str, name: &'static str) -> Result<String, ParseError> {
    str_at(v, pointer).filter(|s| !s.is_empty()).ok_or(ParseError::MissingField(name))
}

/// Parses a body posted to `/slack/events`.
pub fn parse_events_body(body: &[u8]) -> Result<Inbound, ParseError> {
    let v = json(utf8(body)?)?;
    if !v.is_object() {
        return Err(ParseError::BadJson);
    }
    let kind = required(&v, "/type", "type")?;
    match kind.as_str() {
        "url_verification" => Ok(Inbound::UrlVerification { challenge: required(&v, "/challenge", "challenge")? }),
        "app_rate_limited" => Ok(Inbound::AppRateLimited {
            team_id: str_at(&v, "/team_id").unwrap_or_default(),
            minute_rate_limited: v.get("minute_rate_limited").and_then(Value::as_i64).unwrap_or(0),
        }),
        "event_callback" => parse_event_callback(&v).map(|e| Inbound::Dispatch(Dispatch::Event(e))),
        _ => Ok(Inbound::Unknown { kind }),
    }
}

/// The installation an Events API envelope belongs to (see the module docs for the rule).
fn event_team_key(v: &Value) -> Result<String, ParseError> {
    let auth = v.pointer("/authorizations/0");
    let from_auth = auth.and_then(|a| {
        let enterprise_install = a.get("is_enterprise_install").and_then(Value::as_bool) == Some(true);
        let field = if enterprise_install { "/enterprise_id" } else { "/team_id" };
        str_at(a, field).filter(|s| !s.is_empty())
    });
    from_auth.or_else(|| str_at(v, "/team_id").filter(|s| !s.is_empty())).ok_or(ParseError::MissingField("authorizations[0].team_id or team_id"))
}

fn parse_event_callback(v: &Value) -> Result<EventEnvelope, ParseError> {
    let auth = v.pointer("/authorizations/0");
    let bot_user_id = auth.filter(|a| a.get("is_bot").and_then(Value::as_bool) == Some(true)).and_then(|a| str_at(a, "/user_id"));
    Ok(EventEnvelope {
        event_id: required(v, "/event_id", "event_id")?,
        team_key: event_team_key(v)?,
        event_time: v.get("event_time").and_then(Value::as_i64).unwrap_or(0),
        bot_user_id,
        event: parse_event(v.get("event").ok_or(ParseError::MissingField("event"))?)?,
        raw: v.get("event").cloned().unwrap_or(Value::Null),
    })
}

fn parse_event(e: &Value) -> Result<Event, ParseError> {
    let event_type = required(e, "/type", "event.type")?;
    Ok(match event_type.as_str() {
        "app_mention" => Event::AppMention(parse_message(e)?),
        "message" => Event::Message(parse_message(e)?),
        "app_uninstalled" => Event::AppUninstalled,
        "tokens_revoked" => Event::TokensRevoked { bot: string_list(e.pointer("/tokens/bot")), oauth: string_list(e.pointer("/tokens/oauth")) },
        AGENT_SESSION_STOPPED => Event::AgentSessionStopped {
            channel: required(e, "/channel", "event.channel")?,
            thread_ts: required(e, "/thread_ts", "event.thread_ts")?,
            streaming_message_ts: string_list(e.get("streaming_message_ts")),
            user: str_at(e, "/user"),
        },
        _ => Event::Other { event_type },
    })
}

/// The inner event type of [`Event::AgentSessionStopped`].
pub const AGENT_SESSION_STOPPED: &str = "agent_session_stopped";

/// An event as the wire writes it: the variants of wire version 1 as themselves, any later one as
/// [`Event::Other`] (see [`EventEnvelope::event`]).
fn wire_event<S: serde::Serializer>(event: &Event, s: S) -> Result<S::Ok, S::Error> {
    match event {
        Event::AgentSessionStopped { .. } => Event::Other { event_type: event.type_name().to_string() }.serialize(s),
        _ => event.serialize(s),
    }
}

/// An event as the wire carries it: a variant this release knows, else [`Event::Other`] with the
/// shape's `type` (see [`Dispatch::from_wire`]).
fn tolerant_event<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Event, D::Error> {
    let value = Value::deserialize(d)?;
    Ok(Event::deserialize(&value).unwrap_or_else(|_| Event::Other { event_type: value.get("type").and_then(Value::as_str).unwrap_or("unknown").to_string() }))
}

fn string_list(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array).map(|items| items.iter().filter_map(Value::as_str).map(str::to_string).collect()).unwrap_or_default()
}

fn parse_message(e: &Value) -> Result<Message, ParseError> {
    Ok(Message {
        channel: required(e, "/channel", "event.channel")?,
        channel_type: str_at(e, "/channel_type"),
        user: str_at(e, "/user"),
        bot_id: str_at(e, "/bot_id"),
        subtype: str_at(e, "/subtype"),
        text: str_at(e, "/text").unwrap_or_default(),
        ts: required(e, "/ts", "event.ts")?,
        thread_ts: str_at(e, "/thread_ts"),
    })
}

/// The fields of an `application/x-www-form-urlencoded` body (the last value wins on repeats).
fn form_fields(body: &[u8]) -> Result<std::collections::HashMap<String, String>, ParseError> {
    utf8(body)?;
    Ok(form_urlencoded::parse(body).into_owned().collect())
}

fn is_ssl_check(fields: &std::collections::HashMap<String, String>) -> bool {
    fields.get("ssl_check").map(String::as_str) == Some("1")
}

/// Parses a body posted to `/slack/commands`.
pub fn parse_command_form(body: &[u8]) -> Result<Inbound, ParseError> {
    let mut f = form_fields(body)?;
    if is_ssl_check(&f) {
        return Ok(Inbound::SslCheck);
    }
    let mut take = |name: &'static str| f.remove(name).filter(|s| !s.is_empty()).ok_or(ParseError::MissingField(name));
    let (command, trigger_id, response_url, user_id) = (take("command")?, take("trigger_id")?, take("response_url")?, take("user_id")?);
    let channel_id = take("channel_id").unwrap_or_default();
    let enterprise_install = f.get("is_enterprise_install").map(String::as_str) == Some("true");
    let team_key = match (enterprise_install, f.remove("enterprise_id"), f.remove("team_id")) {
        (true, Some(e), _) if !e.is_empty() => e,
        (_, _, Some(t)) if !t.is_empty() => t,
        _ => return Err(ParseError::MissingField("team_id")),
    };
    let text = f.remove("text").unwrap_or_default();
    Ok(Inbound::Dispatch(Dispatch::Command(SlashCommand { team_key, trigger_id, command, text, response_url, user_id, channel_id })))
}

/// Parses a body posted to `/slack/interactivity`.
pub fn parse_interaction_form(body: &[u8]) -> Result<Inbound, ParseError> {
    let f = form_fields(body)?;
    if is_ssl_check(&f) {
        return Ok(Inbound::SslCheck);
    }
    let payload = f.get("payload").ok_or(ParseError::MissingPayload)?;
    let v = json(payload)?;
    if !v.is_object() {
        return Err(ParseError::BadJson);
    }
    let op_key = str_at(&v, "/trigger_id").filter(|s| !s.is_empty()).unwrap_or_else(|| format!("payload:{}", hex::encode(Sha256::digest(payload.as_bytes()))));
    Ok(Inbound::Dispatch(Dispatch::Interaction(Interaction {
        team_key: interaction_team_key(&v)?,
        op_key,
        payload_type: required(&v, "/type", "payload.type")?,
        user_id: str_at(&v, "/user/id"),
        actions: block_actions(&v),
        channel_id: str_at(&v, "/container/channel_id").or_else(|| str_at(&v, "/channel/id")),
        message_ts: str_at(&v, "/container/message_ts").or_else(|| str_at(&v, "/message/ts")),
        response_url: str_at(&v, "/response_url"),
        raw: v,
    })))
}

/// Org-wide installs are keyed by enterprise id; otherwise the installed team, the acting team,
/// then the user's team (`team` is null for some org-wide payloads).
fn interaction_team_key(v: &Value) -> Result<String, ParseError> {
    let enterprise_install = v.get("is_enterprise_install").and_then(Value::as_bool) == Some(true);
    let candidates: &[&str] =
        if enterprise_install { &["/enterprise/id", "/team/id", "/user/team_id"] } else { &["/view/app_installed_team_id", "/team/id", "/user/team_id"] };
    candidates.iter().find_map(|p| str_at(v, p).filter(|s| !s.is_empty())).ok_or(ParseError::MissingField("team.id"))
}

fn block_actions(v: &Value) -> Vec<BlockAction> {
    let Some(items) = v.get("actions").and_then(Value::as_array) else { return Vec::new() };
    items
        .iter()
        .filter_map(|a| Some(BlockAction { action_id: str_at(a, "/action_id")?, block_id: str_at(a, "/block_id"), value: str_at(a, "/value") }))
        .collect()
}

#[cfg(test)]
mod tests;
