//! [`Block`]: any layout block, the constructors of each (`Block::section`, `Block::input`, …),
//! and [`Blocks`], a message's list of them as the helpers take it (`.blocks(…)` on a post): typed
//! blocks, or raw JSON as before.

use super::elements::{Element, InputElement};
use super::ids::Field;
use super::input::Input;
use super::kind::Text;
use super::layout::{Actions, Context, ContextElement, Divider, Header, ImageBlock, RichText, Section};
use super::limits::{self, Surface, Violation};
use super::text::{PlainText, TextObject};
use serde::Serialize;
use serde_json::Value;

/// A layout block, as Slack's JSON.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum Block {
    /// A `section`.
    Section(Section),
    /// An `actions` block.
    Actions(Actions),
    /// A `context` block.
    Context(Context),
    /// A `header`.
    Header(Header),
    /// A `divider`.
    Divider(Divider),
    /// An `image` block.
    Image(ImageBlock),
    /// A `rich_text` block.
    RichText(RichText),
    /// An `input` block.
    Input(Input),
    /// Any block as raw JSON ([`Block::raw`]).
    Raw(Value),
}

/// `From` each block builder.
macro_rules! block_from {
    ($($builder:ident => $variant:ident),*) => {
        $(impl From<$builder> for Block {
            fn from(block: $builder) -> Block {
                Block::$variant(block)
            }
        })*
    };
}

block_from!(Section => Section, Actions => Actions, Context => Context, Header => Header, Divider => Divider, ImageBlock => Image, RichText => RichText, Input => Input);

impl Block {
    /// A `section` of `text` (a `&str` is `mrkdwn`; [`plain`](super::plain) for plain text).
    pub fn section(text: impl Into<TextObject>) -> Section {
        Section::new(Some(text.into()))
    }

    /// A `section` of `fields` only (up to ten, in two columns).
    pub fn section_fields(fields: impl IntoIterator<Item = impl Into<TextObject>>) -> Section {
        Section::new(None).fields(fields)
    }

    /// An `actions` block of `elements` (up to 25: buttons, menus, pickers).
    pub fn actions(elements: impl IntoIterator<Item = impl Into<Element>>) -> Actions {
        Actions::new(elements.into_iter().map(Into::into).collect())
    }

    /// A `context` block of `elements` (up to ten: text, a `&str` being `mrkdwn`, or images).
    pub fn context(elements: impl IntoIterator<Item = impl Into<ContextElement>>) -> Context {
        Context::new(elements.into_iter().map(Into::into).collect())
    }

    /// A `header` of plain `text` (up to 150 characters).
    pub fn header(text: impl Into<PlainText>) -> Header {
        Header::new(text.into())
    }

    /// A `divider`.
    pub fn divider() -> Divider {
        Divider::default()
    }

    /// An `image` block: the picture at `url`, described by `alt_text`.
    pub fn image(url: impl Into<String>, alt_text: impl Into<String>) -> ImageBlock {
        ImageBlock::new(url.into(), alt_text.into())
    }

    /// A `rich_text` block: a paragraph of `text` (more with `.paragraph(…)`).
    pub fn rich_text(text: impl Into<String>) -> RichText {
        RichText::new(text.into())
    }

    /// The `input` of `field`, labelled `label`, gathered with `element`, which must submit the
    /// field's kind (a `Field<kind::Choice>` takes a `static_select`, not a `datepicker`).
    pub fn input<K>(field: Field<K>, label: impl Into<PlainText>, element: impl InputElement<K>) -> Input {
        Input::new(field, label, element)
    }

    /// The `input` of a text `field`: a one-line `plain_text_input` labelled `label`.
    pub fn text_input(field: Field<Text>, label: impl Into<PlainText>) -> Input {
        Input::new(field, label, Element::plain_text_input())
    }

    /// Any block as raw JSON, as Slack documents it: what the builders lack.
    pub fn raw(block: Value) -> Block {
        Block::Raw(block)
    }
}

/// `value` as JSON. Serializing these types cannot fail (string keys, no maps of other keys, no
/// non-finite floats); `null` stands for the impossible.
pub(super) fn json(value: &(impl Serialize + ?Sized)) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

impl From<Block> for Value {
    fn from(block: Block) -> Value {
        json(&block)
    }
}

/// A message's blocks, as a helper's `.blocks(…)` takes them: typed ([`Block`]s, or anything
/// that is one), or a JSON array as before (`json!([…])`).
#[derive(Debug, Clone, PartialEq)]
pub struct Blocks(Value);

impl Blocks {
    /// Each broken Slack limit of these blocks in a message (at most 50 blocks, …), with its
    /// path (`blocks[2].text: 3,012 characters, Slack takes 3,000`): empty when Slack takes them.
    pub fn validate(&self) -> Result<(), Vec<Violation>> {
        limits::result(limits::check_blocks(&self.0, Surface::Message))
    }
}

impl From<Value> for Blocks {
    fn from(blocks: Value) -> Blocks {
        Blocks(blocks)
    }
}

impl From<Vec<Block>> for Blocks {
    fn from(blocks: Vec<Block>) -> Blocks {
        Blocks(json(&blocks))
    }
}

impl<const N: usize> From<[Block; N]> for Blocks {
    fn from(blocks: [Block; N]) -> Blocks {
        Blocks(json(&blocks[..]))
    }
}

impl<B: Into<Block>> FromIterator<B> for Blocks {
    fn from_iter<I: IntoIterator<Item = B>>(blocks: I) -> Blocks {
        Blocks::from(blocks.into_iter().map(Into::into).collect::<Vec<Block>>())
    }
}

impl From<Blocks> for Value {
    fn from(blocks: Blocks) -> Value {
        blocks.0
    }
}
