//! The layout blocks that show things: [`Section`], [`Actions`], [`Context`], [`Header`],
//! [`Divider`], [`ImageBlock`] and [`RichText`] (the input block, which gathers a value, is in
//! `input.rs`). Each serializes to its Slack JSON, `type` tag included; an optional field left
//! unset is left out.

use super::button::ImageElement;
use super::elements::Element;
use super::text::{Mrkdwn, PlainText, TextObject};
use serde::Serialize;

/// `.block_id(…)` for each block below.
macro_rules! block_id {
    ($($block:ident),*) => {
        $(impl $block {
            /// With its `block_id`: unique in its message or view, 1 to 255 characters.
            pub fn block_id(mut self, id: impl Into<String>) -> $block {
                self.block_id = Some(id.into());
                self
            }
        })*
    };
}

block_id!(Section, Actions, Context, Header, Divider, ImageBlock, RichText);

/// A `section`: text, and/or up to ten fields in two columns, and an element beside it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename = "section")]
pub struct Section {
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<TextObject>,
    #[serde(skip_serializing_if = "Option::is_none")]
    block_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fields: Option<Vec<TextObject>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    accessory: Option<Element>,
}

impl Section {
    pub(super) fn new(text: Option<TextObject>) -> Section {
        Section { text, block_id: None, fields: None, accessory: None }
    }

    /// With `fields` (up to ten), shown in two columns under its text.
    pub fn fields(mut self, fields: impl IntoIterator<Item = impl Into<TextObject>>) -> Section {
        self.fields.get_or_insert_with(Vec::new).extend(fields.into_iter().map(Into::into));
        self
    }

    /// With `element` beside its text (a button, a menu, a date picker, an image, …).
    pub fn accessory(mut self, element: impl Into<Element>) -> Section {
        self.accessory = Some(element.into());
        self
    }
}

/// An `actions` block: a row of up to 25 interactive elements.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename = "actions")]
pub struct Actions {
    #[serde(skip_serializing_if = "Option::is_none")]
    block_id: Option<String>,
    elements: Vec<Element>,
}

impl Actions {
    pub(super) fn new(elements: Vec<Element>) -> Actions {
        Actions { block_id: None, elements }
    }
}

/// What a context block shows: text or a small image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ContextElement {
    /// Text.
    Text(TextObject),
    /// An image.
    Image(ImageElement),
}

/// `From` each kind of text (a `&str` is `mrkdwn`) and an image.
macro_rules! context_from {
    ($($from:ty => $variant:ident),*) => {
        $(impl From<$from> for ContextElement {
            fn from(element: $from) -> ContextElement {
                ContextElement::$variant(element.into())
            }
        })*
    };
}

context_from!(&str => Text, String => Text, &String => Text, TextObject => Text, PlainText => Text, Mrkdwn => Text, ImageElement => Image);

/// A `context` block: a line of small text and images (up to ten).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename = "context")]
pub struct Context {
    #[serde(skip_serializing_if = "Option::is_none")]
    block_id: Option<String>,
    elements: Vec<ContextElement>,
}

impl Context {
    pub(super) fn new(elements: Vec<ContextElement>) -> Context {
        Context { block_id: None, elements }
    }
}

/// A `header`: a line of large bold plain text (up to 150 characters).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename = "header")]
pub struct Header {
    text: PlainText,
    #[serde(skip_serializing_if = "Option::is_none")]
    block_id: Option<String>,
}

impl Header {
    pub(super) fn new(text: PlainText) -> Header {
        Header { text, block_id: None }
    }
}

/// A `divider`: a rule between blocks.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename = "divider")]
pub struct Divider {
    #[serde(skip_serializing_if = "Option::is_none")]
    block_id: Option<String>,
}

/// An `image` block: a picture on a line of its own, with an optional title.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename = "image")]
pub struct ImageBlock {
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<PlainText>,
    #[serde(skip_serializing_if = "Option::is_none")]
    block_id: Option<String>,
    image_url: String,
    alt_text: String,
}

impl ImageBlock {
    pub(super) fn new(url: String, alt_text: String) -> ImageBlock {
        ImageBlock { title: None, block_id: None, image_url: url, alt_text }
    }

    /// With `title` above it.
    pub fn title(mut self, title: impl Into<PlainText>) -> ImageBlock {
        self.title = Some(title.into());
        self
    }
}

/// A `rich_text` block of paragraphs (`rich_text_section`s) of plain text: what Slack itself
/// writes for a message typed in its composer. Other rich text (lists, quotes, styles,
/// mentions): `Block::raw`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename = "rich_text")]
pub struct RichText {
    #[serde(skip_serializing_if = "Option::is_none")]
    block_id: Option<String>,
    elements: Vec<RichTextSection>,
}

/// A `rich_text_section`: one paragraph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename = "rich_text_section")]
struct RichTextSection {
    elements: Vec<RichTextRun>,
}

/// A run of text in a paragraph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename = "text")]
struct RichTextRun {
    text: String,
}

impl RichText {
    pub(super) fn new(text: String) -> RichText {
        RichText { block_id: None, elements: Vec::new() }.paragraph(text)
    }

    /// With another paragraph of `text` after the others.
    pub fn paragraph(mut self, text: impl Into<String>) -> RichText {
        self.elements.push(RichTextSection { elements: vec![RichTextRun { text: text.into() }] });
        self
    }
}
