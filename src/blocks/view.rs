//! The views: a [`Modal`] (`cx.open_modal`, `push_modal`, `update_modal`, `ack_update`,
//! `ack_push`) and a [`Home`] tab (`cx.publish_home`). Each converts `Into<Value>`, so every helper
//! that takes a view takes them as it takes raw JSON.

use super::block::{json, Block};
use super::limits::{self, Violation};
use super::text::PlainText;
use serde::Serialize;
use serde_json::Value;

/// A `modal` view.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename = "modal")]
pub struct Modal {
    title: PlainText,
    blocks: Vec<Block>,
    #[serde(skip_serializing_if = "Option::is_none")]
    close: Option<PlainText>,
    #[serde(skip_serializing_if = "Option::is_none")]
    submit: Option<PlainText>,
    #[serde(skip_serializing_if = "Option::is_none")]
    private_metadata: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    callback_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    clear_on_close: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    notify_on_close: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    external_id: Option<String>,
}

impl Modal {
    /// A modal titled `title` (up to 24 characters) whose submission reaches the
    /// `view_submission` listener of `callback_id`.
    pub fn new(callback_id: impl Into<String>, title: impl Into<PlainText>) -> Modal {
        let (close, submit, private_metadata, clear_on_close, notify_on_close, external_id) = Default::default();
        Modal {
            title: title.into(),
            blocks: Vec::new(),
            close,
            submit,
            private_metadata,
            callback_id: Some(callback_id.into()),
            clear_on_close,
            notify_on_close,
            external_id,
        }
    }

    /// With its submit button labelled `text` (Slack requires one when the modal has inputs).
    pub fn submit(mut self, text: impl Into<PlainText>) -> Modal {
        self.submit = Some(text.into());
        self
    }

    /// With its close button labelled `text`.
    pub fn close(mut self, text: impl Into<PlainText>) -> Modal {
        self.close = Some(text.into());
        self
    }

    /// With `block` after the others.
    pub fn block(mut self, block: impl Into<Block>) -> Modal {
        self.blocks.push(block.into());
        self
    }

    /// With `blocks` after the others.
    pub fn blocks(mut self, blocks: impl IntoIterator<Item = impl Into<Block>>) -> Modal {
        self.blocks.extend(blocks.into_iter().map(Into::into));
        self
    }

    /// With `metadata` (up to 3,000 characters), handed back with its submission
    /// (`ViewIn::private_metadata`).
    pub fn private_metadata(mut self, metadata: impl Into<String>) -> Modal {
        self.private_metadata = Some(metadata.into());
        self
    }

    /// Closing it closes the whole stack of views (`true`), not only this one.
    pub fn clear_on_close(mut self, clear: bool) -> Modal {
        self.clear_on_close = Some(clear);
        self
    }

    /// Closing it sends a `view_closed` (`true`) to the `view_closed` listener of its
    /// `callback_id`.
    pub fn notify_on_close(mut self, notify: bool) -> Modal {
        self.notify_on_close = Some(notify);
        self
    }

    /// With `id`, unique in the team, by which `views.update` can find it.
    pub fn external_id(mut self, id: impl Into<String>) -> Modal {
        self.external_id = Some(id.into());
        self
    }

    /// Each broken Slack limit of it, with its path (`title: 31 characters, Slack takes 24`).
    pub fn validate(&self) -> Result<(), Vec<Violation>> {
        limits::result(limits::check_view(&json(self)))
    }
}

impl From<Modal> for Value {
    fn from(modal: Modal) -> Value {
        json(&modal)
    }
}

/// A Home tab's view (`home`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(tag = "type", rename = "home")]
pub struct Home {
    blocks: Vec<Block>,
    #[serde(skip_serializing_if = "Option::is_none")]
    private_metadata: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    callback_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    external_id: Option<String>,
}

impl Home {
    /// A Home tab of `blocks` (up to 100).
    pub fn new(blocks: impl IntoIterator<Item = impl Into<Block>>) -> Home {
        Home::default().blocks(blocks)
    }

    /// With `block` after the others.
    pub fn block(mut self, block: impl Into<Block>) -> Home {
        self.blocks.push(block.into());
        self
    }

    /// With `blocks` after the others.
    pub fn blocks(mut self, blocks: impl IntoIterator<Item = impl Into<Block>>) -> Home {
        self.blocks.extend(blocks.into_iter().map(Into::into));
        self
    }

    /// With the `callback_id` its `block_actions` carry.
    pub fn callback_id(mut self, id: impl Into<String>) -> Home {
        self.callback_id = Some(id.into());
        self
    }

    /// With `metadata` (up to 3,000 characters), handed back with its actions.
    pub fn private_metadata(mut self, metadata: impl Into<String>) -> Home {
        self.private_metadata = Some(metadata.into());
        self
    }

    /// With `id`, unique in the team.
    pub fn external_id(mut self, id: impl Into<String>) -> Home {
        self.external_id = Some(id.into());
        self
    }

    /// Each broken Slack limit of it, with its path.
    pub fn validate(&self) -> Result<(), Vec<Violation>> {
        limits::result(limits::check_view(&json(self)))
    }
}

impl From<Home> for Value {
    fn from(home: Home) -> Value {
        json(&home)
    }
}
