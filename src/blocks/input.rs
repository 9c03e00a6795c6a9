//! [`Input`]: the block that gathers a value in a modal (or a Home tab), built from its
//! [`Field`]: the block's `block_id` and its element's `action_id` are the field's, and the
//! element must be one that submits the field's kind ([`InputElement`]) — so what the view asks
//! for is what `ViewIn::get(field)` reads back, by construction.

use super::elements::{Element, InputElement};
use super::ids::Field;
use super::text::PlainText;
use serde::Serialize;

/// An `input` block: a label, an element, and an optional hint.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename = "input")]
pub struct Input {
    block_id: String,
    label: PlainText,
    element: Element,
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<PlainText>,
    #[serde(skip_serializing_if = "Option::is_none")]
    optional: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dispatch_action: Option<bool>,
}

impl Input {
    /// The input of `field`, labelled `label`, gathered with `element` (its `action_id` becomes
    /// the field's).
    pub fn new<K>(field: Field<K>, label: impl Into<PlainText>, element: impl InputElement<K>) -> Input {
        let mut element = element.into();
        element.set_action_id(field.action_id());
        Input { block_id: field.block_id().to_string(), label: label.into(), element, hint: None, optional: None, dispatch_action: None }
    }

    /// With `hint` under the element, in grey.
    pub fn hint(mut self, hint: impl Into<PlainText>) -> Input {
        self.hint = Some(hint.into());
        self
    }

    /// May be left empty (`true`; Slack's default is `false`: the modal asks for it).
    pub fn optional(mut self, optional: bool) -> Input {
        self.optional = Some(optional);
        self
    }

    /// Its element's use also sends a `block_actions` at once (`true`), not only on submit: an
    /// `.action(field, …)` listener gets it.
    pub fn dispatch_action(mut self, dispatch: bool) -> Input {
        self.dispatch_action = Some(dispatch);
        self
    }
}
