//! Block Kit's composition objects: text ([`PlainText`], [`Mrkdwn`], either as a
//! [`TextObject`]), options ([`Opt`], [`OptGroup`]) and the confirmation dialog ([`Confirm`]).
//!
//! Where Slack takes only `plain_text` (a header, a button, a label, a select's options, a
//! modal's title) the builders take `impl Into<PlainText>`, so a `&str` is plain text there;
//! where it takes either (a section's text and fields, a context's text) they take
//! `impl Into<TextObject>`, and a `&str` is `mrkdwn` (as in Slack's own examples): wrap it in
//! [`plain`] for plain text.

use serde::Serialize;

/// A `plain_text` text object: `{"type": "plain_text", "text": …}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename = "plain_text")]
pub struct PlainText {
    text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    emoji: Option<bool>,
}

impl PlainText {
    /// With `emoji` set: whether `:colon:` emoji are shown as emoji (Slack's default: yes).
    pub fn emoji(mut self, emoji: bool) -> PlainText {
        self.emoji = Some(emoji);
        self
    }
}

/// `text` as a `plain_text` text object.
pub fn plain(text: impl Into<String>) -> PlainText {
    PlainText { text: text.into(), emoji: None }
}

/// `text` as a `mrkdwn` text object (`*bold*`, `<@U123>`, links).
pub fn mrkdwn(text: impl Into<String>) -> Mrkdwn {
    Mrkdwn { text: text.into(), verbatim: None }
}

impl From<&str> for PlainText {
    fn from(text: &str) -> PlainText {
        plain(text)
    }
}

impl From<String> for PlainText {
    fn from(text: String) -> PlainText {
        plain(text)
    }
}

impl From<&String> for PlainText {
    fn from(text: &String) -> PlainText {
        plain(text.as_str())
    }
}

/// A `mrkdwn` text object: `{"type": "mrkdwn", "text": …}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename = "mrkdwn")]
pub struct Mrkdwn {
    text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    verbatim: Option<bool>,
}

impl Mrkdwn {
    /// With `verbatim` set: `true` leaves URLs, channel names and mentions as written (no links).
    pub fn verbatim(mut self, verbatim: bool) -> Mrkdwn {
        self.verbatim = Some(verbatim);
        self
    }
}

/// A text object of either type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum TextObject {
    /// `plain_text`.
    Plain(PlainText),
    /// `mrkdwn`.
    Mrkdwn(Mrkdwn),
}

impl From<PlainText> for TextObject {
    fn from(text: PlainText) -> TextObject {
        TextObject::Plain(text)
    }
}

impl From<Mrkdwn> for TextObject {
    fn from(text: Mrkdwn) -> TextObject {
        TextObject::Mrkdwn(text)
    }
}

/// A `&str` where either type is taken is `mrkdwn`.
impl From<&str> for TextObject {
    fn from(text: &str) -> TextObject {
        TextObject::Mrkdwn(mrkdwn(text))
    }
}

impl From<String> for TextObject {
    fn from(text: String) -> TextObject {
        TextObject::Mrkdwn(mrkdwn(text))
    }
}

impl From<&String> for TextObject {
    fn from(text: &String) -> TextObject {
        TextObject::Mrkdwn(mrkdwn(text.as_str()))
    }
}

/// An option object (`Opt`, since `Option` is Rust's): what a select, a multi-select, checkboxes,
/// radio buttons or an overflow menu offers. Its `value` is what the app gets when it is chosen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Opt {
    text: TextObject,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<TextObject>,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<String>,
}

impl Opt {
    /// The option `value`, shown as `text` (plain text: the only kind a menu takes; checkboxes
    /// and radio buttons also take `mrkdwn`, with [`Opt::rich`]).
    pub fn new(value: impl Into<String>, text: impl Into<PlainText>) -> Opt {
        Opt { text: TextObject::Plain(text.into()), value: Some(value.into()), description: None, url: None }
    }

    /// The option `value`, shown as `text` of either type (checkboxes, radio buttons).
    pub fn rich(value: impl Into<String>, text: impl Into<TextObject>) -> Opt {
        Opt { text: text.into(), value: Some(value.into()), description: None, url: None }
    }

    /// An overflow menu's link: `text` that opens `url` (no value).
    pub fn link(text: impl Into<PlainText>, url: impl Into<String>) -> Opt {
        Opt { text: TextObject::Plain(text.into()), value: None, description: None, url: Some(url.into()) }
    }

    /// With a line of `description` under it (checkboxes, radio buttons).
    pub fn description(mut self, description: impl Into<TextObject>) -> Opt {
        self.description = Some(description.into());
        self
    }
}

/// A labelled group of options, for a select's `option_groups`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OptGroup {
    label: PlainText,
    options: Vec<Opt>,
}

impl OptGroup {
    /// `options` under `label`.
    pub fn new(label: impl Into<PlainText>, options: impl IntoIterator<Item = Opt>) -> OptGroup {
        OptGroup { label: label.into(), options: options.into_iter().collect() }
    }
}

/// A confirmation dialog shown before a button's or a menu's action goes through.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Confirm {
    title: PlainText,
    text: TextObject,
    confirm: PlainText,
    deny: PlainText,
    #[serde(skip_serializing_if = "Option::is_none")]
    style: Option<&'static str>,
}

impl Confirm {
    /// A dialog titled `title` asking `text`, with its two buttons' labels.
    pub fn new(title: impl Into<PlainText>, text: impl Into<TextObject>, confirm: impl Into<PlainText>, deny: impl Into<PlainText>) -> Confirm {
        Confirm { title: title.into(), text: text.into(), confirm: confirm.into(), deny: deny.into(), style: None }
    }

    /// Its confirm button red (`danger`), for what cannot be undone.
    pub fn danger(mut self) -> Confirm {
        self.style = Some("danger");
        self
    }

    /// Its confirm button green (`primary`).
    pub fn primary(mut self) -> Confirm {
        self.style = Some("primary");
        self
    }
}
