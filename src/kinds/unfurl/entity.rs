//! What an app answers with, pure: a Work Object ([`Entity`]), the previews of a sharing's links
//! ([`Unfurls`]: classic attachments or blocks, and Work Objects) and a flexpane ([`Details`]).
//!
//! A Work Object is Slack's JSON (docs.slack.dev/messaging/work-objects): `entity_type` (one of
//! Slack's, `slack#/entities/task`, …), `external_ref` (the entity's id in the app's system), `url`
//! (the entity's), and `entity_payload` (`attributes.title.text`, then `fields`, `custom_fields`,
//! `display_order`, `actions`, by entity type). [`Entity`] types what every entity needs and
//! takes the rest as JSON ([`Entity::field`], [`Entity::attribute`], [`Entity::payload`]); a whole
//! entity can be given as JSON too ([`Unfurls::entity_json`], [`Details::Raw`]).

use super::events::ExternalRef;
use serde_json::{json, Map, Value};

/// Slack's Work Object entity types.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EntityType {
    /// `slack#/entities/task`.
    Task,
    /// `slack#/entities/item`.
    Item,
    /// `slack#/entities/incident`.
    Incident,
    /// `slack#/entities/file`.
    File,
    /// `slack#/entities/content_item`.
    ContentItem,
    /// Another type, as Slack names it (`slack#/entities/…`).
    Named(String),
}

impl EntityType {
    /// Slack's name for it.
    pub fn as_str(&self) -> &str {
        match self {
            EntityType::Task => "slack#/entities/task",
            EntityType::Item => "slack#/entities/item",
            EntityType::Incident => "slack#/entities/incident",
            EntityType::File => "slack#/entities/file",
            EntityType::ContentItem => "slack#/entities/content_item",
            EntityType::Named(name) => name,
        }
    }
}

/// A Work Object: an entity of the app's system as Slack shows it, in an unfurl or a flexpane.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Entity {
    /// Its type.
    pub entity_type: EntityType,
    /// Its id in the app's system.
    pub external_ref: ExternalRef,
    /// Its URL in the app's system.
    pub url: String,
    /// Its title (`entity_payload.attributes.title.text`).
    pub title: String,
    /// The rest of `entity_payload`, as Slack takes it (`fields`, `custom_fields`,
    /// `display_order`, `actions`, more `attributes`); the title above wins over one set here.
    pub payload: Map<String, Value>,
}

impl Entity {
    /// An entity of `entity_type`: `id` in the app's system, at `url`, titled `title`.
    pub fn new(entity_type: EntityType, id: &str, url: &str, title: &str) -> Entity {
        let external_ref = ExternalRef { id: id.to_string(), kind: None };
        Entity { entity_type, external_ref, url: url.to_string(), title: title.to_string(), payload: Map::new() }
    }

    /// A task (`slack#/entities/task`).
    pub fn task(id: &str, url: &str, title: &str) -> Entity {
        Entity::new(EntityType::Task, id, url, title)
    }

    /// An item (`slack#/entities/item`).
    pub fn item(id: &str, url: &str, title: &str) -> Entity {
        Entity::new(EntityType::Item, id, url, title)
    }

    /// An incident (`slack#/entities/incident`).
    pub fn incident(id: &str, url: &str, title: &str) -> Entity {
        Entity::new(EntityType::Incident, id, url, title)
    }

    /// A file (`slack#/entities/file`).
    pub fn file(id: &str, url: &str, title: &str) -> Entity {
        Entity::new(EntityType::File, id, url, title)
    }

    /// A content item (`slack#/entities/content_item`).
    pub fn content_item(id: &str, url: &str, title: &str) -> Entity {
        Entity::new(EntityType::ContentItem, id, url, title)
    }

    /// The app's own type for its id (`external_ref.type`), when the id is not unique alone.
    pub fn ref_type(mut self, kind: &str) -> Entity {
        self.external_ref.kind = Some(kind.to_string());
        self
    }

    /// One of `entity_payload.fields` (`status`, `assignee`, `due_date`, … by entity type), as
    /// Slack's JSON: `.field("status", json!({"value": "open"}))`.
    pub fn field(self, name: &str, value: Value) -> Entity {
        self.nested("fields", name, value)
    }

    /// One of `entity_payload.attributes` besides the title (`display_type`, `product_name`, …).
    pub fn attribute(self, name: &str, value: Value) -> Entity {
        self.nested("attributes", name, value)
    }

    /// Any key of `entity_payload`, as is (`custom_fields`, `display_order`, `actions`).
    pub fn payload(mut self, key: &str, value: Value) -> Entity {
        self.payload.insert(key.to_string(), value);
        self
    }

    fn nested(mut self, key: &str, name: &str, value: Value) -> Entity {
        let slot = self.payload.entry(key.to_string()).or_insert_with(|| json!({}));
        if !slot.is_object() {
            *slot = json!({});
        }
        slot[name] = value;
        self
    }

    /// The entity as Slack's JSON (a flexpane's `metadata`; an unfurl adds `app_unfurl_url`).
    pub fn to_json(&self) -> Value {
        let mut payload = self.payload.clone();
        let attributes = payload.entry("attributes").or_insert_with(|| json!({}));
        if !attributes.is_object() {
            *attributes = json!({});
        }
        attributes["title"] = json!({ "text": self.title });
        json!({
            "entity_type": self.entity_type.as_str(),
            "external_ref": self.external_ref,
            "url": self.url,
            "entity_payload": payload,
        })
    }
}

/// The previews of a sharing's links, by URL: classic ones (an attachment, or blocks) in
/// `chat.unfurl`'s `unfurls`, Work Objects in its `metadata.entities`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Unfurls {
    unfurls: Map<String, Value>,
    entities: Vec<Value>,
}

impl Unfurls {
    /// No preview yet.
    pub fn new() -> Unfurls {
        Unfurls::default()
    }

    /// The link `url` previewed as these Block Kit `blocks`.
    pub fn blocks(self, url: &str, blocks: Value) -> Unfurls {
        self.attachment(url, json!({ "blocks": blocks }))
    }

    /// The link `url` previewed as `attachment`, as Slack takes it (a legacy attachment, or
    /// `{blocks, preview, …}`).
    pub fn attachment(mut self, url: &str, attachment: Value) -> Unfurls {
        self.unfurls.insert(url.to_string(), attachment);
        self
    }

    /// The link `url` shown as a Work Object (its `app_unfurl_url`: the link as posted).
    pub fn entity(mut self, url: &str, entity: Entity) -> Unfurls {
        let mut json = entity.to_json();
        json["app_unfurl_url"] = json!(url);
        self.entities.push(json);
        self
    }

    /// A Work Object given whole, as Slack's JSON (with its own `app_unfurl_url`).
    pub fn entity_json(mut self, entity: Value) -> Unfurls {
        self.entities.push(entity);
        self
    }

    /// Whether it previews nothing.
    pub fn is_empty(&self) -> bool {
        self.unfurls.is_empty() && self.entities.is_empty()
    }

    /// `chat.unfurl`'s `unfurls` and `metadata` (each only when it holds something: Slack takes
    /// either or both).
    pub fn args(&self) -> Map<String, Value> {
        let mut args = Map::new();
        if !self.unfurls.is_empty() {
            args.insert("unfurls".into(), Value::Object(self.unfurls.clone()));
        }
        if !self.entities.is_empty() {
            args.insert("metadata".into(), json!({ "entities": self.entities }));
        }
        args
    }
}

/// Why a flexpane shows no entity: `entity.presentDetails`' `error.status`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DetailsError {
    /// `restricted`: the user may not see it.
    Restricted,
    /// `not_found`: it is gone.
    NotFound,
    /// `internal_error`: the app failed.
    InternalError,
    /// `timeout`: the app's system did not answer.
    Timeout,
    /// `custom`, with a title and a message of the app's.
    Custom {
        /// The title.
        title: String,
        /// The message.
        message: String,
    },
}

impl std::fmt::Display for DetailsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DetailsError::Restricted => f.write_str("restricted: the user may not see the entity"),
            DetailsError::NotFound => f.write_str("not_found: the entity is gone"),
            DetailsError::InternalError => f.write_str("internal_error: the app failed to present the entity"),
            DetailsError::Timeout => f.write_str("timeout: the app's system did not answer"),
            DetailsError::Custom { title, message } => write!(f, "{title}: {message}"),
        }
    }
}

impl std::error::Error for DetailsError {}

impl DetailsError {
    fn to_json(&self) -> Value {
        match self {
            DetailsError::Restricted => json!({ "status": "restricted" }),
            DetailsError::NotFound => json!({ "status": "not_found" }),
            DetailsError::InternalError => json!({ "status": "internal_error" }),
            DetailsError::Timeout => json!({ "status": "timeout" }),
            DetailsError::Custom { title, message } => json!({ "status": "custom", "custom_title": title, "custom_message": message }),
        }
    }
}

/// What a flexpane shows: an entity, an error, or `entity.presentDetails`' arguments as given.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Details {
    /// The entity (`metadata`).
    Entity(Entity),
    /// Why there is none (`error`).
    Error(DetailsError),
    /// The arguments as Slack takes them (`metadata`, `error`, `user_auth_required`,
    /// `user_auth_url`); the `trigger_id` is added.
    Raw(Value),
}

impl From<Entity> for Details {
    fn from(entity: Entity) -> Details {
        Details::Entity(entity)
    }
}

impl From<DetailsError> for Details {
    fn from(error: DetailsError) -> Details {
        Details::Error(error)
    }
}

impl Details {
    /// `entity.presentDetails`' arguments but the `trigger_id`.
    pub fn args(&self) -> Map<String, Value> {
        let mut args = Map::new();
        match self {
            Details::Entity(entity) => {
                args.insert("metadata".into(), entity.to_json());
            }
            Details::Error(error) => {
                args.insert("error".into(), error.to_json());
            }
            Details::Raw(Value::Object(given)) => args.extend(given.clone()),
            Details::Raw(_) => {}
        }
        args
    }
}
