//! The ids a view and its handler share, typed: a [`Field`] (an input's `block_id`, its element's
//! `action_id`, and the kind of value it submits) and an [`ActionId`] (a button's or a menu's).
//!
//! **Why.** A modal's input is written twice: once when the view is built (`block_id`,
//! `action_id`), once when the submission is read (`state.values[block_id][action_id]`), and a
//! third time when a field error names it (`errors[block_id]`). As string pairs, a typo in any of
//! them is a `None` at run time, found by a user. As one `const`, used in all three places, a typo
//! is a compile error, and the kind (`Field<kind::Choice>` reads a selected option's value) picks
//! both the elements the input block takes and the type [`ViewIn::get`] returns.
//!
//! **Invariant.** An id is 1 to 255 characters (Slack's limit on `block_id` and `action_id`),
//! checked by the `const fn` constructors: a bad id in a `const` fails the build.
//!
//! [`ViewIn::get`]: crate::app::listen::ViewIn::get

use std::fmt;
use std::marker::PhantomData;

/// Slack's limit on a `block_id` and an `action_id` (characters).
pub const MAX_ID_CHARS: usize = 255;

/// The characters of `s` (its bytes that start one), in a `const fn`.
const fn char_count(s: &str) -> usize {
    let bytes = s.as_bytes();
    let (mut i, mut n) = (0, 0);
    while i < bytes.len() {
        if bytes[i] & 0xC0 != 0x80 {
            n += 1;
        }
        i += 1;
    }
    n
}

/// Whether `id` is a `block_id` / `action_id` Slack takes: 1 to 255 characters.
const fn valid_id(id: &str) -> bool {
    !id.is_empty() && char_count(id) <= MAX_ID_CHARS
}

/// A button's, a menu's or an input's `action_id`, as one constant the view and the listener
/// share: `const APPROVE: ActionId = ActionId::new("approve")`, then
/// `Element::button(APPROVE, "Approve")` and `.action(APPROVE, handler)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ActionId(&'static str);

impl ActionId {
    /// The action id `id`. Panics (in a `const`: fails the build) unless it is 1 to 255
    /// characters.
    pub const fn new(id: &'static str) -> ActionId {
        assert!(valid_id(id), "an action_id is 1 to 255 characters");
        ActionId(id)
    }

    /// The id as Slack sees it.
    pub const fn as_str(self) -> &'static str {
        self.0
    }
}

impl AsRef<str> for ActionId {
    fn as_ref(&self) -> &str {
        self.0
    }
}

impl fmt::Display for ActionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl PartialEq<str> for ActionId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for ActionId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<ActionId> for str {
    fn eq(&self, other: &ActionId) -> bool {
        self == other.0
    }
}

impl PartialEq<ActionId> for String {
    fn eq(&self, other: &ActionId) -> bool {
        self == other.0
    }
}

/// An input of a view: its block's `block_id`, its element's `action_id`, and the kind `K` of
/// value it submits (one of [`kind`](super::kind)). One `const` builds the input block
/// (`Block::input(TITLE, "Title", Element::plain_text_input())`), reads the submission
/// (`view.get(TITLE)`: an `Option<K::Value>`) and names the field in an error
/// (`FieldErrors::new().on(TITLE, "Say what is wrong")`).
pub struct Field<K> {
    block_id: &'static str,
    action_id: ActionId,
    kind: PhantomData<fn() -> K>,
}

impl<K> Field<K> {
    /// The input `action_id` of block `block_id`. Panics (in a `const`: fails the build) unless
    /// each is 1 to 255 characters.
    pub const fn new(block_id: &'static str, action_id: &'static str) -> Field<K> {
        assert!(valid_id(block_id), "a block_id is 1 to 255 characters");
        Field { block_id, action_id: ActionId::new(action_id), kind: PhantomData }
    }

    /// The input block's `block_id` (what a field error is keyed by).
    pub const fn block_id(&self) -> &'static str {
        self.block_id
    }

    /// Its element's `action_id`.
    pub const fn action_id(&self) -> ActionId {
        self.action_id
    }
}

// By hand: a derive would ask `K` (a kind, never a value) to be `Clone`, `Debug`, ….
impl<K> Clone for Field<K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K> Copy for Field<K> {}

impl<K> PartialEq for Field<K> {
    fn eq(&self, other: &Self) -> bool {
        (self.block_id, self.action_id) == (other.block_id, other.action_id)
    }
}

impl<K> Eq for Field<K> {}

impl<K> fmt::Debug for Field<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Field({:?}, {:?})", self.block_id, self.action_id.0)
    }
}

/// A submission's field errors, each keyed by its input's `block_id`: what `cx.ack_errors` shows
/// in the modal (`response_action: errors`), in the order they were added (a second error on
/// one field replaces the first in what Slack gets).
///
/// Built from [`Field`]s (`FieldErrors::new().on(TITLE, "Say what is wrong")`), or from string
/// pairs as before (`&[("title", "Say what is wrong")]`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldErrors(Vec<(String, String)>);

impl FieldErrors {
    /// No errors.
    pub fn new() -> FieldErrors {
        FieldErrors::default()
    }

    /// With `message` on `field`.
    pub fn on<K>(mut self, field: Field<K>, message: impl Into<String>) -> FieldErrors {
        self.add(field, message);
        self
    }

    /// Adds `message` on `field`.
    pub fn add<K>(&mut self, field: Field<K>, message: impl Into<String>) -> &mut FieldErrors {
        self.0.push((field.block_id.to_string(), message.into()));
        self
    }

    /// Whether there is none (the submission is good).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Each `(block_id, message)`, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(block, message)| (block.as_str(), message.as_str()))
    }
}

impl From<&[(&str, &str)]> for FieldErrors {
    fn from(pairs: &[(&str, &str)]) -> FieldErrors {
        FieldErrors(pairs.iter().map(|(block, message)| (block.to_string(), message.to_string())).collect())
    }
}

impl<const N: usize> From<&[(&str, &str); N]> for FieldErrors {
    fn from(pairs: &[(&str, &str); N]) -> FieldErrors {
        FieldErrors::from(&pairs[..])
    }
}

impl From<&Vec<(&str, &str)>> for FieldErrors {
    fn from(pairs: &Vec<(&str, &str)>) -> FieldErrors {
        FieldErrors::from(&pairs[..])
    }
}

impl From<Vec<(&str, &str)>> for FieldErrors {
    fn from(pairs: Vec<(&str, &str)>) -> FieldErrors {
        FieldErrors::from(&pairs[..])
    }
}

impl From<&FieldErrors> for FieldErrors {
    fn from(errors: &FieldErrors) -> FieldErrors {
        errors.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::kind;

    const TITLE: Field<kind::Text> = Field::new("ticket_title", "title");

    #[test]
    fn a_field_keeps_its_block_and_action_ids() {
        assert_eq!((TITLE.block_id(), TITLE.action_id().as_str()), ("ticket_title", "title"));
        assert_eq!(format!("{TITLE:?}"), r#"Field("ticket_title", "title")"#);
    }

    #[test]
    fn an_id_is_counted_in_characters_not_bytes() {
        assert!(valid_id(&"é".repeat(255)), "255 characters, 510 bytes");
        assert!(!valid_id(&"x".repeat(256)));
        assert!(!valid_id(""));
    }

    #[test]
    #[should_panic(expected = "an action_id is 1 to 255 characters")]
    fn an_empty_action_id_is_refused() {
        let empty = String::new();
        let leaked: &'static str = Box::leak(empty.into_boxed_str());
        ActionId::new(leaked);
    }

    #[test]
    fn field_errors_from_fields_and_from_pairs_are_the_same() {
        let typed = FieldErrors::new().on(TITLE, "Say what is wrong");
        assert_eq!(typed, FieldErrors::from(&[("ticket_title", "Say what is wrong")]));
        assert_eq!(typed.iter().collect::<Vec<_>>(), [("ticket_title", "Say what is wrong")]);
    }

    #[test]
    fn an_action_id_compares_with_the_string_slack_sent() {
        const APPROVE: ActionId = ActionId::new("approve");
        let sent: String = "approve".to_string();
        assert_eq!(sent, APPROVE);
        assert_eq!(APPROVE, "approve");
        assert_ne!(APPROVE, "approved");
    }
}
