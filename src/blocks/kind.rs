//! The kinds of value an input submits, for [`Field<K>`](super::Field): each names where Slack
//! puts the value in `view.state.values[block_id][action_id]` and the Rust type it is read as.
//!
//! | kind | elements (`Block::input` takes only these) | state key | read as |
//! | --- | --- | --- | --- |
//! | [`Text`] | `plain_text_input` | `value` | `String` |
//! | [`Choice`] | `static_select`, `external_select`, `radio_buttons` | `selected_option.value` | `String` |
//! | [`Choices`] | `checkboxes`, `multi_static_select`, `multi_external_select` | `selected_options[].value` | `Vec<String>` |
//! | [`User`], [`Users`] | `users_select`, `multi_users_select` | `selected_user(s)` | `String`, `Vec<String>` |
//! | [`Conversation`], [`Conversations`] | `conversations_select`, `multi_…` | `selected_conversation(s)` | `String`, `Vec<String>` |
//! | [`Channel`], [`Channels`] | `channels_select`, `multi_…` | `selected_channel(s)` | `String`, `Vec<String>` |
//! | [`Date`] | `datepicker` | `selected_date` (`YYYY-MM-DD`) | [`Date`] |
//! | [`Time`] | `timepicker` | `selected_time` (`HH:mm`) | [`Time`] |
//!
//! An input left empty reads as `None` (Slack sends `null`, or nothing); a multi-select left
//! empty as `Some` of an empty list. A value of the wrong shape (a date that is not one) reads as
//! `None`, never a panic.

use serde_json::{json, Value};
use std::fmt;

/// A kind of submitted value: where Slack puts it, and what it is read as.
pub trait Kind {
    /// What [`ViewIn::get`](crate::app::listen::ViewIn::get) returns for it.
    type Value;
    /// The value in one input's state (`state.values[block_id][action_id]`), if any.
    fn read(state: &Value) -> Option<Self::Value>;
    /// The state Slack sends for `value` (what a test submits with `testing::Values`, for `testing::view_submission`).
    fn state(value: &Self::Value) -> Value;
}

/// Kinds whose value is one string under one key.
macro_rules! one_string {
    ($(#[$doc:meta])* $name:ident, $key:literal) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub enum $name {}

        impl Kind for $name {
            type Value = String;
            fn read(state: &Value) -> Option<String> {
                state.get($key)?.as_str().map(str::to_string)
            }
            fn state(value: &String) -> Value {
                json!({ $key: value })
            }
        }
    };
}

/// Kinds whose value is a list of strings under one key.
macro_rules! many_strings {
    ($(#[$doc:meta])* $name:ident, $key:literal) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub enum $name {}

        impl Kind for $name {
            type Value = Vec<String>;
            fn read(state: &Value) -> Option<Vec<String>> {
                Some(state.get($key)?.as_array()?.iter().filter_map(Value::as_str).map(str::to_string).collect())
            }
            fn state(value: &Vec<String>) -> Value {
                json!({ $key: value })
            }
        }
    };
}

one_string!(
    /// A `plain_text_input`'s text, as typed (not trimmed).
    Text,
    "value"
);
one_string!(
    /// A user picked in a `users_select`: their id.
    User,
    "selected_user"
);
one_string!(
    /// A conversation picked in a `conversations_select`: its id.
    Conversation,
    "selected_conversation"
);
one_string!(
    /// A public channel picked in a `channels_select`: its id.
    Channel,
    "selected_channel"
);
many_strings!(
    /// Users picked in a `multi_users_select`.
    Users,
    "selected_users"
);
many_strings!(
    /// Conversations picked in a `multi_conversations_select`.
    Conversations,
    "selected_conversations"
);
many_strings!(
    /// Public channels picked in a `multi_channels_select`.
    Channels,
    "selected_channels"
);

/// One option picked (`static_select`, `external_select`, `radio_buttons`): its `value`.
#[derive(Debug)]
pub enum Choice {}

impl Kind for Choice {
    type Value = String;
    fn read(state: &Value) -> Option<String> {
        state.get("selected_option")?.get("value")?.as_str().map(str::to_string)
    }
    fn state(value: &String) -> Value {
        json!({ "selected_option": { "value": value } })
    }
}

/// Options picked (`checkboxes`, `multi_static_select`, `multi_external_select`): their values,
/// in Slack's order.
#[derive(Debug)]
pub enum Choices {}

impl Kind for Choices {
    type Value = Vec<String>;
    fn read(state: &Value) -> Option<Vec<String>> {
        let options = state.get("selected_options")?.as_array()?;
        Some(options.iter().filter_map(|o| o.get("value")?.as_str()).map(str::to_string).collect())
    }
    fn state(value: &Vec<String>) -> Value {
        json!({ "selected_options": value.iter().map(|v| json!({ "value": v })).collect::<Vec<_>>() })
    }
}

/// A `datepicker`'s date: a calendar day (no time zone), `YYYY-MM-DD` on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    /// The year (0 to 9999).
    pub year: u16,
    /// The month, 1 to 12.
    pub month: u8,
    /// The day of the month, 1 to 31 (as the month has).
    pub day: u8,
}

impl Date {
    /// The day, if the calendar has it.
    pub fn new(year: u16, month: u8, day: u8) -> Option<Date> {
        let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
        let days = match month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => return None,
        };
        (year <= 9999 && (1..=days).contains(&day)).then_some(Date { year, month, day })
    }

    /// `YYYY-MM-DD`, as Slack writes it.
    pub fn parse(text: &str) -> Option<Date> {
        let mut parts = text.split('-');
        let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() || (y.len(), m.len(), d.len()) != (4, 2, 2) {
            return None;
        }
        Date::new(digits(y)?, digits(m)?, digits(d)?)
    }
}

/// A number written in ASCII digits only (no sign, no spaces).
fn digits<T: std::str::FromStr>(text: &str) -> Option<T> {
    text.bytes().all(|b| b.is_ascii_digit()).then(|| text.parse().ok()).flatten()
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl Kind for Date {
    type Value = Date;
    fn read(state: &Value) -> Option<Date> {
        Date::parse(state.get("selected_date")?.as_str()?)
    }
    fn state(value: &Date) -> Value {
        json!({ "selected_date": value.to_string() })
    }
}

/// A `timepicker`'s time of day (the user's own zone), `HH:mm` on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time {
    /// The hour, 0 to 23.
    pub hour: u8,
    /// The minute, 0 to 59.
    pub minute: u8,
}

impl Time {
    /// The time, if the clock has it.
    pub fn new(hour: u8, minute: u8) -> Option<Time> {
        (hour < 24 && minute < 60).then_some(Time { hour, minute })
    }

    /// `HH:mm`, as Slack writes it.
    pub fn parse(text: &str) -> Option<Time> {
        let (h, m) = text.split_once(':')?;
        if (h.len(), m.len()) != (2, 2) {
            return None;
        }
        Time::new(digits(h)?, digits(m)?)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02}:{:02}", self.hour, self.minute)
    }
}

impl Kind for Time {
    type Value = Time;
    fn read(state: &Value) -> Option<Time> {
        Time::parse(state.get("selected_time")?.as_str()?)
    }
    fn state(value: &Time) -> Value {
        json!({ "selected_time": value.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_reads_slacks_documented_state_values() {
        // The state values of Slack's `view_submission` reference (one input each).
        assert_eq!(Text::read(&json!({ "type": "plain_text_input", "value": "This is a test" })), Some("This is a test".into()));
        assert_eq!(Text::read(&json!({ "type": "plain_text_input", "value": null })), None);
        assert_eq!(User::read(&json!({ "type": "users_select", "selected_user": "U123" })), Some("U123".into()));
        assert_eq!(Users::read(&json!({ "type": "multi_users_select", "selected_users": ["U123", "U234"] })), Some(vec!["U123".into(), "U234".into()]));
        assert_eq!(Conversation::read(&json!({ "type": "conversations_select", "selected_conversation": "C123" })), Some("C123".into()));
        assert_eq!(
            Channels::read(&json!({ "type": "multi_channels_select", "selected_channels": ["C123", "C234"] })),
            Some(vec!["C123".into(), "C234".into()])
        );
        let option = |v: &str| json!({ "text": { "type": "plain_text", "text": "*this is plain_text text*", "emoji": true }, "value": v });
        assert_eq!(Choice::read(&json!({ "type": "static_select", "selected_option": option("value-0") })), Some("value-0".into()));
        assert_eq!(Choice::read(&json!({ "type": "static_select", "selected_option": null })), None);
        let picked = json!({ "type": "checkboxes", "selected_options": [option("value-0"), option("value-2")] });
        assert_eq!(Choices::read(&picked), Some(vec!["value-0".into(), "value-2".into()]));
        assert_eq!(Choices::read(&json!({ "type": "checkboxes", "selected_options": [] })), Some(vec![]));
        assert_eq!(Date::read(&json!({ "type": "datepicker", "selected_date": "1990-04-12" })), Date::new(1990, 4, 12));
        assert_eq!(Time::read(&json!({ "type": "timepicker", "selected_time": "11:40" })), Time::new(11, 40));
    }

    #[test]
    fn what_a_kind_writes_it_reads_back() {
        assert_eq!(Choice::read(&Choice::state(&"sev2".into())), Some("sev2".into()));
        let picked = vec!["a".to_string(), "b".to_string()];
        assert_eq!(Choices::read(&Choices::state(&picked)), Some(picked));
        let day = Date::new(2024, 2, 29).expect("a leap day");
        assert_eq!(Date::read(&Date::state(&day)), Some(day));
    }

    #[test]
    fn a_date_or_time_that_is_not_one_reads_as_none() {
        for bad in ["2023-02-29", "2024-13-01", "24-01-01", "2024-1-01", "2024-01-01-01", "+024-01-01", "yesterday"] {
            assert_eq!(Date::parse(bad), None, "{bad}");
        }
        assert_eq!(Date::parse("2024-02-29").map(|d| d.to_string()), Some("2024-02-29".into()));
        for bad in ["24:00", "12:60", "1:30", "12-30", "+1:30"] {
            assert_eq!(Time::parse(bad), None, "{bad}");
        }
        assert_eq!(Time::parse("09:05").map(|t| t.to_string()), Some("09:05".into()));
    }
}
