//! Typed Block Kit: builders for Slack's blocks, elements and views that serialize to exactly
//! Slack's JSON, typed ids shared by a view and its handler, and Slack's limits checked.
//!
//! **Why.** Block Kit written as `json!` is checked by nobody until Slack answers
//! `invalid_blocks` (and the row parks), and a modal's ids are string pairs that must match in
//! three places — the view, `ViewIn::value(block_id, action_id)` and `ack_errors` — where a typo
//! is a `None` at run time. Here, one `const` does all three:
//!
//! ```
//! use slackline::prelude::*;
//!
//! const TITLE: Field<kind::Text> = Field::new("ticket_title", "title");
//! const PRIORITY: Field<kind::Choice> = Field::new("ticket_priority", "priority");
//!
//! fn ticket_modal() -> Modal {
//!     let priorities = [Opt::new("high", "High"), Opt::new("low", "Low")];
//!     Modal::new("ticket", "New ticket")
//!         .submit("Create")
//!         .block(Block::text_input(TITLE, "Title"))
//!         .block(Block::input(PRIORITY, "Priority", Element::static_select(priorities)))
//! }
//!
//! let app = Listeners::new()
//!     .command("/ticket", |_, cx| { cx.open_modal(ticket_modal()); Ok(()) })
//!     .view_submission("ticket", |v, cx| {
//!         let (title, priority) = (v.get(TITLE).unwrap_or_default(), v.get(PRIORITY));
//!         if title.trim().is_empty() {
//!             cx.ack_errors(FieldErrors::new().on(TITLE, "Say what it is about"));
//!         } else {
//!             cx.say("C_TICKETS", &format!("{title} ({})", priority.as_deref().unwrap_or("no priority")));
//!         }
//!         Ok(())
//!     });
//! # let _ = app;
//! ```
//!
//! The kind of a [`Field`] (`kind::Text`, `kind::Choice`, `kind::Choices`, `kind::Date`, …: see
//! [`kind`]) is both what [`Block::input`] takes (a `Field<kind::Choice>` takes a `static_select`,
//! an `external_select` or `radio_buttons`; a `datepicker` does not compile) and what
//! `ViewIn::get` returns (`Option<String>`, `Option<Vec<String>>`, `Option<kind::Date>`). An
//! [`ActionId`] does the same for a button: `Element::button(APPROVE, "Approve")` in the message,
//! `.action(APPROVE, handler)` for its clicks.
//!
//! **Layout.** One file per family: [`text`] (text, options, confirmation), `button` (button,
//! overflow, image element), `select` (every select menu, one generic type), `inputs` (text input,
//! pickers, checkboxes, radio buttons), [`elements`] ([`Element`], which of them an input takes),
//! `layout` (section, actions, context, header, divider, image, rich text), `input` (the input
//! block), [`block`] ([`Block`], [`Blocks`]), [`view`] ([`Modal`], [`Home`]), [`ids`], [`kind`],
//! [`limits`].
//!
//! **Invariants.**
//! - What a builder serializes is Slack's JSON as documented: field names, `type` tags, and an
//!   optional field left out unless set (`tests.rs` holds each against Slack's own examples).
//! - Raw JSON is never refused: [`Block::raw`], [`Element::raw`], and every `cx` helper that took
//!   a `serde_json::Value` still does (the typed values convert into it).
//! - Building never fails; checking is separate: [`Modal::validate`], [`Home::validate`],
//!   [`Blocks::validate`] return every broken limit with its path, and the test kit
//!   (`slackline::testing::handle`) fails a test whose handler queues a message or a view Slack
//!   would refuse, raw JSON included. Ids are checked at construction: `Field::new` and
//!   `ActionId::new` are `const fn`s that refuse an empty or over-long id, in a `const` at
//!   compile time.
//!
//! **Limits** ([`limits`], from Slack's Block Kit reference, docs.slack.dev/reference/block-kit,
//! and its modal view reference, docs.slack.dev/reference/views/modal-views):
//!
//! | what | limit |
//! | --- | --- |
//! | blocks in a message / a modal or Home tab | 50 / 100 |
//! | `block_id`, `action_id`, `callback_id`, `external_id` | 255 characters; a `block_id` once per message or view, an `action_id` once per block |
//! | section text / fields | 3,000 / 10 fields of 2,000 |
//! | header text | 150 |
//! | actions elements / context elements | 25 / 10 |
//! | button text / value / url | 75 / 2,000 / 3,000 |
//! | select options (or option groups) / checkboxes, radio buttons / overflow | 100 / 10 / 5 |
//! | option text (and description) / value | 75 / 150 |
//! | placeholder | 150 |
//! | input label, hint | 2,000 |
//! | modal title, submit, close | 24 (a title, and a submit when it has inputs, are required) |
//! | `private_metadata` | 3,000 |
//! | confirm title / text / buttons | 100 / 300 / 30 |

pub mod block;
mod button;
pub mod elements;
pub mod ids;
mod input;
mod inputs;
pub mod kind;
mod layout;
pub mod limits;
mod select;
pub mod text;
pub mod view;

pub use block::{Block, Blocks};
pub use button::{Button, ImageElement, Overflow};
pub use elements::{Element, InputElement, RawElement};
pub use ids::{ActionId, Field, FieldErrors};
pub use input::Input;
pub use inputs::{Checkboxes, Datepicker, PlainTextInput, RadioButtons, Timepicker};
pub use layout::{Actions, Context, ContextElement, Divider, Header, ImageBlock, RichText, Section};
pub use limits::{Surface, Violation};
pub use select::Select;
pub use text::{mrkdwn, plain, Confirm, Mrkdwn, Opt, OptGroup, PlainText, TextObject};
pub use view::{Home, Modal};

#[cfg(test)]
mod element_tests;
#[cfg(test)]
mod limits_tests;
#[cfg(test)]
mod tests;
