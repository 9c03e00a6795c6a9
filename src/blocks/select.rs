//! The select menus, one type for all of them: [`Select<K>`], whose kind `K` is the value it
//! submits (a [`Choice`], [`Choices`], a [`User`], …): that is what lets `Block::input` take a
//! `Field<Choice>` with a `static_select` and refuse it with a `users_select`, at compile time.
//! Each menu's constructor (`Element::static_select`, `Element::users_select`, …) fixes both its
//! Slack `type` and its kind; the setters a kind has make sense for it only (`initial_user` on a
//! `users_select`, `max_selected_items` on a multi-select).

use super::ids::ActionId;
use super::kind::{Channel, Channels, Choice, Choices, Conversation, Conversations, User, Users};
use super::text::{Confirm, Opt, OptGroup, PlainText};
use serde::Serialize;
use serde_json::{Map, Value};
use std::marker::PhantomData;

/// A select or multi-select menu (`static_select`, `users_select`, `multi_channels_select`, …)
/// submitting a value of kind `K`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(bound = "")]
pub struct Select<K> {
    #[serde(rename = "type")]
    menu: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) action_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    placeholder: Option<PlainText>,
    #[serde(skip_serializing_if = "Option::is_none")]
    options: Option<Vec<Opt>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    option_groups: Option<Vec<OptGroup>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    initial_option: Option<Opt>,
    #[serde(skip_serializing_if = "Option::is_none")]
    initial_options: Option<Vec<Opt>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    confirm: Option<Confirm>,
    #[serde(skip_serializing_if = "Option::is_none")]
    focus_on_load: Option<bool>,
    /// The fields only some menus have (`initial_user`, `min_query_length`, `filter`, …).
    #[serde(flatten)]
    more: Map<String, Value>,
    #[serde(skip)]
    kind: PhantomData<fn() -> K>,
}

impl<K> Select<K> {
    pub(super) fn menu(menu: &'static str) -> Select<K> {
        let (action_id, placeholder, options, option_groups, initial_option, initial_options, confirm, focus_on_load) = Default::default();
        Select {
            menu,
            action_id,
            placeholder,
            options,
            option_groups,
            initial_option,
            initial_options,
            confirm,
            focus_on_load,
            more: Map::new(),
            kind: PhantomData,
        }
    }

    /// The same menu, its kind forgotten (it is placed in a block: `Element::Select`).
    pub(super) fn erase(self) -> Select<()> {
        let Select { menu, action_id, placeholder, options, option_groups, initial_option, initial_options, confirm, focus_on_load, more, kind: _ } = self;
        Select { menu, action_id, placeholder, options, option_groups, initial_option, initial_options, confirm, focus_on_load, more, kind: PhantomData }
    }

    pub(super) fn with_options(mut self, options: impl IntoIterator<Item = Opt>) -> Select<K> {
        self.options = Some(options.into_iter().collect());
        self
    }

    fn more(mut self, key: &str, value: impl Into<Value>) -> Select<K> {
        self.more.insert(key.to_string(), value.into());
        self
    }

    /// With the `action_id` of a menu in an actions block or a section (an input block's menu
    /// gets its `Field`'s).
    pub fn action(mut self, action: ActionId) -> Select<K> {
        self.action_id = Some(action.as_str().to_string());
        self
    }

    /// With `placeholder` shown until something is picked.
    pub fn placeholder(mut self, placeholder: impl Into<PlainText>) -> Select<K> {
        self.placeholder = Some(placeholder.into());
        self
    }

    /// With a confirmation dialog before the choice goes through.
    pub fn confirm(mut self, confirm: Confirm) -> Select<K> {
        self.confirm = Some(confirm);
        self
    }

    /// Focused when the view opens (one element of a view at most).
    pub fn focus_on_load(mut self, focus: bool) -> Select<K> {
        self.focus_on_load = Some(focus);
        self
    }
}

impl Select<Choice> {
    /// Picked when the menu opens: one of its options, exactly.
    pub fn initial(mut self, option: Opt) -> Select<Choice> {
        self.initial_option = Some(option);
        self
    }

    /// A `static_select` of option groups instead of options.
    pub fn groups(mut self, groups: impl IntoIterator<Item = OptGroup>) -> Select<Choice> {
        (self.options, self.option_groups) = (None, Some(groups.into_iter().collect()));
        self
    }
}

impl Select<Choices> {
    /// Picked when the menu opens: some of its options, exactly.
    pub fn initial(mut self, options: impl IntoIterator<Item = Opt>) -> Select<Choices> {
        self.initial_options = Some(options.into_iter().collect());
        self
    }
}

/// The setters of the menus Slack fills itself (external data, users, conversations, channels).
macro_rules! initial {
    ($kind:ty, $key:literal, one) => {
        impl Select<$kind> {
            #[doc = concat!("Picked when the menu opens (`", $key, "`).")]
            pub fn initial(self, id: impl Into<String>) -> Select<$kind> {
                self.more($key, id.into())
            }
        }
    };
    ($kind:ty, $key:literal, many) => {
        impl Select<$kind> {
            #[doc = concat!("Picked when the menu opens (`", $key, "`).")]
            pub fn initial(self, ids: impl IntoIterator<Item = impl Into<String>>) -> Select<$kind> {
                self.more($key, ids.into_iter().map(Into::into).collect::<Vec<String>>())
            }

            /// At most `n` picked.
            pub fn max_selected_items(self, n: u32) -> Select<$kind> {
                self.more("max_selected_items", n)
            }
        }
    };
}

initial!(User, "initial_user", one);
initial!(Users, "initial_users", many);
initial!(Conversation, "initial_conversation", one);
initial!(Conversations, "initial_conversations", many);
initial!(Channel, "initial_channel", one);
initial!(Channels, "initial_channels", many);

impl Select<Choices> {
    /// At most `n` picked.
    pub fn max_selected_items(self, n: u32) -> Select<Choices> {
        self.more("max_selected_items", n)
    }
}

impl<K> Select<K> {
    /// An external menu's options are asked for (`block_suggestion`) once `n` characters are
    /// typed (Slack's default: 3).
    pub fn min_query_length(self, n: u32) -> Select<K> {
        self.more("min_query_length", n)
    }

    /// A conversations menu starts on the conversation the view was opened from.
    pub fn default_to_current_conversation(self, on: bool) -> Select<K> {
        self.more("default_to_current_conversation", on)
    }

    /// A conversations menu lists only these (Slack's filter object, e.g.
    /// `{"include": ["public", "mpim"], "exclude_bot_users": true}`).
    pub fn filter(self, filter: Value) -> Select<K> {
        self.more("filter", filter)
    }

    /// A modal's conversations or channels menu also gives the submission a `response_url` for
    /// the picked one.
    pub fn response_url_enabled(self, on: bool) -> Select<K> {
        self.more("response_url_enabled", on)
    }
}
