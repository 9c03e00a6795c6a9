//! [`Element`]: any block element, and the constructors of each (`Element::button`,
//! `Element::static_select`, `Element::datepicker`, …), which return the element's own builder
//! (`Button`, `Select<Choice>`, `Datepicker`, …); every builder converts `Into<Element>`.
//!
//! [`InputElement<K>`] says which elements an input block of kind `K` takes: a `Field<Choice>`
//! takes a `static_select`, an `external_select` or `radio_buttons`, and nothing else compiles.
//! An input block sets its element's `action_id` to its `Field`'s (`Element::set_action_id`), so
//! the two can never disagree.

use super::button::{Button, ImageElement, Overflow};
use super::ids::ActionId;
use super::inputs::{Checkboxes, Datepicker, PlainTextInput, RadioButtons, Timepicker};
use super::kind::{Channel, Channels, Choice, Choices, Conversation, Conversations, Date, Text, Time, User, Users};
use super::select::Select;
use super::text::{Opt, PlainText};
use serde::Serialize;
use serde_json::Value;

/// A block element, as Slack's JSON.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum Element {
    /// A `button`.
    Button(Button),
    /// An `overflow` menu.
    Overflow(Overflow),
    /// An `image`.
    Image(ImageElement),
    /// A select or multi-select menu (its kind erased: it is placed).
    Select(Select<()>),
    /// A `plain_text_input`.
    PlainTextInput(PlainTextInput),
    /// A `datepicker`.
    Datepicker(Datepicker),
    /// A `timepicker`.
    Timepicker(Timepicker),
    /// `checkboxes`.
    Checkboxes(Checkboxes),
    /// `radio_buttons`.
    RadioButtons(RadioButtons),
    /// Any element as raw JSON ([`Element::raw`]).
    Raw(Value),
}

/// An element an input block of kind `K` takes (see [`kind`](super::kind)).
pub trait InputElement<K>: Into<Element> {}

impl InputElement<Text> for PlainTextInput {}
impl InputElement<Date> for Datepicker {}
impl InputElement<Time> for Timepicker {}
impl InputElement<Choices> for Checkboxes {}
impl InputElement<Choice> for RadioButtons {}
impl<K> InputElement<K> for Select<K> {}

/// An element as raw JSON: taken anywhere, by an input block of any kind (it is yours to match).
#[derive(Debug, Clone, PartialEq)]
pub struct RawElement(pub Value);

impl<K> InputElement<K> for RawElement {}

impl From<RawElement> for Element {
    fn from(raw: RawElement) -> Element {
        Element::Raw(raw.0)
    }
}

impl<K> From<Select<K>> for Element {
    fn from(select: Select<K>) -> Element {
        Element::Select(select.erase())
    }
}

/// `From` for each element builder that is one variant.
macro_rules! element_from {
    ($($variant:ident),*) => {
        $(impl From<$variant> for Element {
            fn from(element: $variant) -> Element {
                Element::$variant(element)
            }
        })*
    };
}

element_from!(Button, Overflow, PlainTextInput, Datepicker, Timepicker, Checkboxes, RadioButtons);

impl From<ImageElement> for Element {
    fn from(image: ImageElement) -> Element {
        Element::Image(image)
    }
}

impl Element {
    /// Sets its `action_id` (an input block's, from its `Field`). An image has none; a raw
    /// element that is not an object is left as it is.
    pub(super) fn set_action_id(&mut self, action: ActionId) {
        let id = Some(action.as_str().to_string());
        match self {
            Element::Button(e) => e.action_id = id,
            Element::Overflow(e) => e.action_id = id,
            Element::Select(e) => e.action_id = id,
            Element::PlainTextInput(e) => e.action_id = id,
            Element::Datepicker(e) => e.action_id = id,
            Element::Timepicker(e) => e.action_id = id,
            Element::Checkboxes(e) => e.action_id = id,
            Element::RadioButtons(e) => e.action_id = id,
            Element::Raw(Value::Object(e)) => {
                e.insert("action_id".into(), action.as_str().into());
            }
            Element::Image(_) | Element::Raw(_) => {}
        }
    }

    /// Any element as raw JSON (`{"type": "rich_text_input", …}`): what the builders lack.
    pub fn raw(element: Value) -> RawElement {
        RawElement(element)
    }

    /// A `button` labelled `text`, its clicks for the listener of `action`.
    pub fn button(action: ActionId, text: impl Into<PlainText>) -> Button {
        Button::new(action, text)
    }

    /// A `button` labelled `text` that opens `url`.
    pub fn link_button(text: impl Into<PlainText>, url: impl Into<String>) -> Button {
        Button::link(text, url)
    }

    /// An `overflow` menu of up to five `options`.
    pub fn overflow(action: ActionId, options: impl IntoIterator<Item = Opt>) -> Overflow {
        Overflow::new(action, options)
    }

    /// An `image` at `url`, described by `alt_text`.
    pub fn image(url: impl Into<String>, alt_text: impl Into<String>) -> ImageElement {
        ImageElement::new(url, alt_text)
    }

    /// A `plain_text_input` (a [`Text`] field).
    pub fn plain_text_input() -> PlainTextInput {
        PlainTextInput::new()
    }

    /// A `datepicker` (a [`Date`] field).
    pub fn datepicker() -> Datepicker {
        Datepicker::new()
    }

    /// A `timepicker` (a [`Time`] field).
    pub fn timepicker() -> Timepicker {
        Timepicker::new()
    }

    /// `checkboxes` of up to ten `options` (a [`Choices`] field).
    pub fn checkboxes(options: impl IntoIterator<Item = Opt>) -> Checkboxes {
        Checkboxes::new(options)
    }

    /// `radio_buttons` of up to ten `options` (a [`Choice`] field).
    pub fn radio_buttons(options: impl IntoIterator<Item = Opt>) -> RadioButtons {
        RadioButtons::new(options)
    }

    /// A `static_select` of up to 100 `options` (a [`Choice`] field).
    pub fn static_select(options: impl IntoIterator<Item = Opt>) -> Select<Choice> {
        Select::menu("static_select").with_options(options)
    }

    /// An `external_select`, its options asked of the app's `options` listener (a [`Choice`]).
    pub fn external_select() -> Select<Choice> {
        Select::menu("external_select")
    }

    /// A `users_select` (a [`User`] field).
    pub fn users_select() -> Select<User> {
        Select::menu("users_select")
    }

    /// A `conversations_select` (a [`Conversation`] field).
    pub fn conversations_select() -> Select<Conversation> {
        Select::menu("conversations_select")
    }

    /// A `channels_select`: public channels (a [`Channel`] field).
    pub fn channels_select() -> Select<Channel> {
        Select::menu("channels_select")
    }

    /// A `multi_static_select` of up to 100 `options` (a [`Choices`] field).
    pub fn multi_static_select(options: impl IntoIterator<Item = Opt>) -> Select<Choices> {
        Select::menu("multi_static_select").with_options(options)
    }

    /// A `multi_external_select` (a [`Choices`] field).
    pub fn multi_external_select() -> Select<Choices> {
        Select::menu("multi_external_select")
    }

    /// A `multi_users_select` (a [`Users`] field).
    pub fn multi_users_select() -> Select<Users> {
        Select::menu("multi_users_select")
    }

    /// A `multi_conversations_select` (a [`Conversations`] field).
    pub fn multi_conversations_select() -> Select<Conversations> {
        Select::menu("multi_conversations_select")
    }

    /// A `multi_channels_select` (a [`Channels`] field).
    pub fn multi_channels_select() -> Select<Channels> {
        Select::menu("multi_channels_select")
    }
}
