//! The elements that gather a value (in an input block, mostly): [`PlainTextInput`],
//! [`Datepicker`], [`Timepicker`], [`Checkboxes`] and [`RadioButtons`]. An input block gives its
//! element the `action_id` of its `Field`; in an actions block or a section, `.action(id)` does.

use super::ids::ActionId;
use super::kind::{Date, Time};
use super::text::{Confirm, Opt, PlainText};
use serde::Serialize;

/// A `plain_text_input`: a line of text, or several (`multiline`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename = "plain_text_input")]
pub struct PlainTextInput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) action_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    placeholder: Option<PlainText>,
    #[serde(skip_serializing_if = "Option::is_none")]
    initial_value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    multiline: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    min_length: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_length: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    focus_on_load: Option<bool>,
}

impl PlainTextInput {
    pub(super) fn new() -> PlainTextInput {
        PlainTextInput { action_id: None, placeholder: None, initial_value: None, multiline: None, min_length: None, max_length: None, focus_on_load: None }
    }

    /// With an `action_id` (an input block sets its `Field`'s instead).
    pub fn action(mut self, action: ActionId) -> PlainTextInput {
        self.action_id = Some(action.as_str().to_string());
        self
    }

    /// With `placeholder` shown while it is empty.
    pub fn placeholder(mut self, placeholder: impl Into<PlainText>) -> PlainTextInput {
        self.placeholder = Some(placeholder.into());
        self
    }

    /// Filled with `text` when the view opens.
    pub fn initial(mut self, text: impl Into<String>) -> PlainTextInput {
        self.initial_value = Some(text.into());
        self
    }

    /// A box of several lines (`true`), or one line (`false`, Slack's default).
    pub fn multiline(mut self, multiline: bool) -> PlainTextInput {
        self.multiline = Some(multiline);
        self
    }

    /// At least `n` characters (Slack refuses the submission otherwise; up to 3,000).
    pub fn min_length(mut self, n: u32) -> PlainTextInput {
        self.min_length = Some(n);
        self
    }

    /// At most `n` characters (up to 3,000).
    pub fn max_length(mut self, n: u32) -> PlainTextInput {
        self.max_length = Some(n);
        self
    }

    /// Focused when the view opens (one element of a view at most).
    pub fn focus_on_load(mut self, focus: bool) -> PlainTextInput {
        self.focus_on_load = Some(focus);
        self
    }
}

/// The fields every picker below shares, and their setters.
macro_rules! picker {
    ($name:ident, $tag:literal, $initial:ident: $value:ty, $doc:literal) => {
        #[doc = $doc]
        #[derive(Debug, Clone, PartialEq, Eq, Serialize)]
        #[serde(tag = "type", rename = $tag)]
        pub struct $name {
            #[serde(skip_serializing_if = "Option::is_none")]
            pub(super) action_id: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            $initial: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            placeholder: Option<PlainText>,
            #[serde(skip_serializing_if = "Option::is_none")]
            confirm: Option<Confirm>,
            #[serde(skip_serializing_if = "Option::is_none")]
            focus_on_load: Option<bool>,
        }

        impl $name {
            pub(super) fn new() -> $name {
                $name { action_id: None, $initial: None, placeholder: None, confirm: None, focus_on_load: None }
            }

            /// With the `action_id` of one in an actions block or a section.
            pub fn action(mut self, action: ActionId) -> $name {
                self.action_id = Some(action.as_str().to_string());
                self
            }

            /// Set to `value` when the view opens.
            pub fn initial(mut self, value: $value) -> $name {
                self.$initial = Some(value.to_string());
                self
            }

            /// With `placeholder` shown while nothing is picked.
            pub fn placeholder(mut self, placeholder: impl Into<PlainText>) -> $name {
                self.placeholder = Some(placeholder.into());
                self
            }

            /// With a confirmation dialog before the choice goes through.
            pub fn confirm(mut self, confirm: Confirm) -> $name {
                self.confirm = Some(confirm);
                self
            }

            /// Focused when the view opens (one element of a view at most).
            pub fn focus_on_load(mut self, focus: bool) -> $name {
                self.focus_on_load = Some(focus);
                self
            }
        }
    };
}

picker!(Datepicker, "datepicker", initial_date: Date, "A `datepicker`: a calendar day.");
picker!(Timepicker, "timepicker", initial_time: Time, "A `timepicker`: a time of day.");

/// The fields a group of options shares (checkboxes, radio buttons), and their setters.
macro_rules! group {
    ($name:ident, $tag:literal, $initial:ident: $picked:ty, $doc:literal) => {
        #[doc = $doc]
        #[derive(Debug, Clone, PartialEq, Eq, Serialize)]
        #[serde(tag = "type", rename = $tag)]
        pub struct $name {
            #[serde(skip_serializing_if = "Option::is_none")]
            pub(super) action_id: Option<String>,
            options: Vec<Opt>,
            #[serde(skip_serializing_if = "Option::is_none")]
            $initial: Option<$picked>,
            #[serde(skip_serializing_if = "Option::is_none")]
            confirm: Option<Confirm>,
            #[serde(skip_serializing_if = "Option::is_none")]
            focus_on_load: Option<bool>,
        }

        impl $name {
            pub(super) fn new(options: impl IntoIterator<Item = Opt>) -> $name {
                $name { action_id: None, options: options.into_iter().collect(), $initial: None, confirm: None, focus_on_load: None }
            }

            /// With the `action_id` of one in an actions block or a section.
            pub fn action(mut self, action: ActionId) -> $name {
                self.action_id = Some(action.as_str().to_string());
                self
            }

            /// With a confirmation dialog before the choice goes through.
            pub fn confirm(mut self, confirm: Confirm) -> $name {
                self.confirm = Some(confirm);
                self
            }

            /// Focused when the view opens (one element of a view at most).
            pub fn focus_on_load(mut self, focus: bool) -> $name {
                self.focus_on_load = Some(focus);
                self
            }
        }
    };
}

group!(Checkboxes, "checkboxes", initial_options: Vec<Opt>, "`checkboxes`: any of up to ten options.");
group!(RadioButtons, "radio_buttons", initial_option: Opt, "`radio_buttons`: one of up to ten options.");

impl Checkboxes {
    /// Checked when the view opens: some of its options, exactly.
    pub fn initial(mut self, options: impl IntoIterator<Item = Opt>) -> Checkboxes {
        self.initial_options = Some(options.into_iter().collect());
        self
    }
}

impl RadioButtons {
    /// Picked when the view opens: one of its options, exactly.
    pub fn initial(mut self, option: Opt) -> RadioButtons {
        self.initial_option = Some(option);
        self
    }
}
