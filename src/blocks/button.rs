//! The elements of a message's actions: [`Button`] and [`Overflow`] (a menu of up to five
//! options behind "…"), and the [`ImageElement`] of a section's accessory or a context.

use super::ids::ActionId;
use super::text::{Confirm, Opt, PlainText};
use serde::Serialize;

/// A `button`: an action (its `action_id` and `value` reach the app) or a link (`url`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename = "button")]
pub struct Button {
    text: PlainText,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) action_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    style: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    confirm: Option<Confirm>,
    #[serde(skip_serializing_if = "Option::is_none")]
    accessibility_label: Option<String>,
}

impl Button {
    /// A button labelled `text` whose click reaches the listener of `action`.
    pub fn new(action: ActionId, text: impl Into<PlainText>) -> Button {
        Button { action_id: Some(action.as_str().to_string()), ..Button::labelled(text.into()) }
    }

    /// A button labelled `text` that opens `url` (Slack still sends a `block_actions`, acked
    /// like any other).
    pub fn link(text: impl Into<PlainText>, url: impl Into<String>) -> Button {
        Button { url: Some(url.into()), ..Button::labelled(text.into()) }
    }

    fn labelled(text: PlainText) -> Button {
        Button { text, action_id: None, url: None, value: None, style: None, confirm: None, accessibility_label: None }
    }

    /// With `value`: what the click carries to the app (an id, say).
    pub fn value(mut self, value: impl Into<String>) -> Button {
        self.value = Some(value.into());
        self
    }

    /// With `url`: the click also opens it.
    pub fn url(mut self, url: impl Into<String>) -> Button {
        self.url = Some(url.into());
        self
    }

    /// Green (`primary`): the one affirmative button of a set.
    pub fn primary(mut self) -> Button {
        self.style = Some("primary");
        self
    }

    /// Red (`danger`): a destructive action.
    pub fn danger(mut self) -> Button {
        self.style = Some("danger");
        self
    }

    /// With a confirmation dialog before the click goes through.
    pub fn confirm(mut self, confirm: Confirm) -> Button {
        self.confirm = Some(confirm);
        self
    }

    /// With what a screen reader says instead of its text.
    pub fn accessibility_label(mut self, label: impl Into<String>) -> Button {
        self.accessibility_label = Some(label.into());
        self
    }
}

/// An `overflow` menu: up to five options (actions, or links) behind "…".
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename = "overflow")]
pub struct Overflow {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) action_id: Option<String>,
    options: Vec<Opt>,
    #[serde(skip_serializing_if = "Option::is_none")]
    confirm: Option<Confirm>,
}

impl Overflow {
    /// The menu `action` with `options`.
    pub fn new(action: ActionId, options: impl IntoIterator<Item = Opt>) -> Overflow {
        Overflow { action_id: Some(action.as_str().to_string()), options: options.into_iter().collect(), confirm: None }
    }

    /// With a confirmation dialog before the choice goes through.
    pub fn confirm(mut self, confirm: Confirm) -> Overflow {
        self.confirm = Some(confirm);
        self
    }
}

/// An `image` element: a small picture, in a section's accessory or a context block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename = "image")]
pub struct ImageElement {
    image_url: String,
    alt_text: String,
}

impl ImageElement {
    /// The picture at `url`, described by `alt_text`.
    pub fn new(url: impl Into<String>, alt_text: impl Into<String>) -> ImageElement {
        ImageElement { image_url: url.into(), alt_text: alt_text.into() }
    }
}
