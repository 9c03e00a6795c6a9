//! The two events of unfurls and Work Objects, read as typed values, pure: `link_shared` (links of
//! the app's domains in a message or in the composer) and `entity_details_requested` (a click on
//! a Work Object, asking for its flexpane). Both are `Deserialize`, so `EventIn::parse` reads them
//! too; [`LinkShared::from_event`] adds the one check the type cannot state (a composer's link
//! needs its `unfurl_id`: there is no message to name).

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// Slack's event type of a shared link.
pub const LINK_SHARED: &str = "link_shared";
/// Slack's event type of a click on a Work Object.
pub const ENTITY_DETAILS_REQUESTED: &str = "entity_details_requested";

/// One link of `link_shared`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct SharedLink {
    /// The URL, as the user wrote it.
    pub url: String,
    /// The app's registered domain it matched.
    pub domain: String,
}

impl SharedLink {
    /// Whether the link is of `domain`: Slack's matched domain is it, or the URL's host is it or
    /// one of its subdomains (case-insensitive).
    pub fn in_domain(&self, domain: &str) -> bool {
        let domain = domain.trim_start_matches('.').to_ascii_lowercase();
        let host = host_of(&self.url).to_ascii_lowercase();
        self.domain.eq_ignore_ascii_case(&domain) || host == domain || host.ends_with(&format!(".{domain}"))
    }
}

/// The host of a URL (`https://user@tickets.example.com:8443/T-1?x` → `tickets.example.com`).
fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    host.split(':').next().unwrap_or_default()
}

/// Where a shared link is: in the message composer, before the message exists, or in a posted
/// message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LinkSource {
    /// `composer`: written in the message composer; unfurled by its `unfurl_id`.
    Composer,
    /// `conversations_history`: in a posted message.
    ConversationsHistory,
    /// A source Slack may add later, as it spelled it.
    Other(String),
}

impl LinkSource {
    /// Slack's name for it.
    pub fn as_str(&self) -> &str {
        match self {
            LinkSource::Composer => "composer",
            LinkSource::ConversationsHistory => "conversations_history",
            LinkSource::Other(other) => other,
        }
    }

    /// The source Slack's name stands for.
    pub fn parse(name: &str) -> LinkSource {
        match name {
            "composer" => LinkSource::Composer,
            "conversations_history" => LinkSource::ConversationsHistory,
            other => LinkSource::Other(other.to_string()),
        }
    }
}

impl<'de> Deserialize<'de> for LinkSource {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<LinkSource, D::Error> {
        Ok(LinkSource::parse(&String::deserialize(d)?))
    }
}

/// `link_shared`: links of the app's unfurl domains, in a posted message or in the composer.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct LinkShared {
    /// The conversation (`COMPOSER` for a link still in the composer).
    pub channel: String,
    /// Who shared them.
    pub user: String,
    /// The message's `ts` (for the composer, an id of Slack's: not a message).
    pub message_ts: String,
    /// The thread the message is in, if any.
    #[serde(default)]
    pub thread_ts: Option<String>,
    /// The links, each with its matched domain.
    pub links: Vec<SharedLink>,
    /// Where the links are (absent in events older than 2021).
    #[serde(default)]
    pub source: Option<LinkSource>,
    /// This sharing's id: what `chat.unfurl` names with the `source` (a composer's link has no
    /// other name).
    #[serde(default)]
    pub unfurl_id: Option<String>,
    /// Whether the app's bot user is in the conversation.
    #[serde(default)]
    pub is_bot_user_member: bool,
    /// When (Slack's `event_ts`).
    #[serde(default)]
    pub event_ts: Option<String>,
}

impl LinkShared {
    /// The links a `link_shared` event shares, or why it is not one Slack could be answered for
    /// (a field missing, or a composer's link without its `unfurl_id`).
    pub fn from_event(raw: &Value) -> Result<LinkShared, String> {
        let links: LinkShared = serde_json::from_value(raw.clone()).map_err(|e| format!("{LINK_SHARED} is not the payload expected: {e}"))?;
        if links.in_composer() && links.unfurl_id.is_none() {
            return Err(format!("{LINK_SHARED} from the composer without an unfurl_id"));
        }
        Ok(links)
    }

    /// Whether the links are still in the composer (no message yet).
    pub fn in_composer(&self) -> bool {
        self.source == Some(LinkSource::Composer)
    }

    /// The same sharing with only the links of `domain` ([`SharedLink::in_domain`]), or `None`
    /// when it has none.
    pub fn only_in(&self, domain: &str) -> Option<LinkShared> {
        let links: Vec<SharedLink> = self.links.iter().filter(|l| l.in_domain(domain)).cloned().collect();
        (!links.is_empty()).then(|| LinkShared { links, ..self.clone() })
    }
}

/// Which entity of the app's system a Work Object stands for: its id there (and, when the id is
/// not unique on its own, a type of the app's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ExternalRef {
    /// The entity's id in the app's system.
    pub id: String,
    /// The app's own type for it (Slack's `type`), when the id needs one.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

/// `entity_details_requested`: a user clicked a Work Object (or refreshed its flexpane); the app
/// answers with `entity.presentDetails` and this `trigger_id`, which lives seconds.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct EntityDetailsRequest {
    /// The click's trigger: the flexpane's answer names it.
    pub trigger_id: String,
    /// The entity, as the app's unfurl named it.
    pub external_ref: ExternalRef,
    /// Who clicked.
    #[serde(default)]
    pub user: Option<String>,
    /// The entity's URL (the Work Object's `url`).
    #[serde(default)]
    pub entity_url: Option<String>,
    /// The link that was unfurled, with its domain.
    #[serde(default)]
    pub link: Option<SharedLink>,
    /// The URL as the user posted it (the Work Object's `app_unfurl_url`).
    #[serde(default)]
    pub app_unfurl_url: Option<String>,
    /// The user's locale (`en-US`).
    #[serde(default)]
    pub user_locale: Option<String>,
    /// The conversation of the message the Work Object is in.
    #[serde(default)]
    pub channel: Option<String>,
    /// That message's `ts`.
    #[serde(default)]
    pub message_ts: Option<String>,
    /// Its thread, if any.
    #[serde(default)]
    pub thread_ts: Option<String>,
    /// When (Slack's `event_ts`).
    #[serde(default)]
    pub event_ts: Option<String>,
}

impl EntityDetailsRequest {
    /// The request an `entity_details_requested` event makes, or why it is not one (no
    /// `trigger_id`, no `external_ref.id`).
    pub fn from_event(raw: &Value) -> Result<EntityDetailsRequest, String> {
        let request: EntityDetailsRequest =
            serde_json::from_value(raw.clone()).map_err(|e| format!("{ENTITY_DETAILS_REQUESTED} is not the payload expected: {e}"))?;
        match request.trigger_id.is_empty() {
            true => Err(format!("{ENTITY_DETAILS_REQUESTED} with an empty trigger_id")),
            false => Ok(request),
        }
    }
}
