//! The feedback buttons under a streamed answer, on the listener API: every answer
//! `cx.stream_answer` finishes closes with Slack's `feedback_buttons` (a `context_actions` block,
//! action id [`FEEDBACK_ACTION_ID`]); a click reaches `Listeners::feedback` as a typed
//! [`Feedback`] — which button, on which message, in which thread, by whom — instead of a raw
//! `block_actions` payload the app would have to pick apart.
//!
//! A click is a `block_actions` interaction like any other: recorded before the ack, its
//! effects keyed by its `trigger_id` (a click delivered twice adds nothing), `cx.reply` answering
//! in the answer's thread. A click whose value is neither of our buttons' (`good`, `bad`) fails
//! the handler with a message naming it (the request is kept, parked as `handler_failed`), never a
//! panic.
//!
//! ```
//! use slackline::prelude::*;
//!
//! let app = Listeners::new().feedback(|f, cx| {
//!     if f.rating == Rating::Negative {
//!         cx.ephemeral(&f.user_id, "Sorry about that: try asking another way.");
//!     }
//!     cx.state().update::<u64>(&format!("feedback:{}", f.rating.as_str()), |n| Some(n.unwrap_or(0) + 1))?;
//!     Ok(())
//! });
//! # let _ = app;
//! ```

use super::{ActionIn, Cx, HandlerResult, Listeners};
pub use crate::kinds::assistant::calls::FEEDBACK_ACTION_ID;
use crate::kinds::assistant::calls::{FEEDBACK_NEGATIVE, FEEDBACK_POSITIVE};
use serde_json::Value;

/// Which of the feedback buttons was pressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rating {
    /// "Good answer".
    Positive,
    /// "Bad answer".
    Negative,
}

impl Rating {
    /// `positive` or `negative`.
    pub fn as_str(self) -> &'static str {
        match self {
            Rating::Positive => "positive",
            Rating::Negative => "negative",
        }
    }

    /// The rating a button's value stands for.
    fn of_value(value: &str) -> Option<Rating> {
        match value {
            FEEDBACK_POSITIVE => Some(Rating::Positive),
            FEEDBACK_NEGATIVE => Some(Rating::Negative),
            _ => None,
        }
    }
}

/// A user's feedback on a streamed answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Feedback {
    /// Which button.
    pub rating: Rating,
    /// The conversation of the answer.
    pub channel_id: String,
    /// The answer's message (its last, when it rolled over into several).
    pub message_ts: String,
    /// The thread the answer is in (`None` if Slack did not say).
    pub thread_ts: Option<String>,
    /// Who pressed it.
    pub user_id: String,
}

impl Feedback {
    /// The feedback a click on the buttons carries, or why it is not one.
    pub fn from_action(click: &ActionIn<'_>) -> Result<Feedback, String> {
        let value = click.action.value.as_deref().unwrap_or_default();
        let rating = Rating::of_value(value)
            .ok_or_else(|| format!("feedback with an unknown value {value:?} (expected {FEEDBACK_POSITIVE:?} or {FEEDBACK_NEGATIVE:?})"))?;
        let i = click.interaction;
        let raw = |pointer: &str| i.raw.pointer(pointer).and_then(Value::as_str).map(str::to_string);
        Ok(Feedback {
            rating,
            channel_id: i.channel_id.clone().ok_or("feedback without its channel")?,
            message_ts: i.message_ts.clone().ok_or("feedback without its message")?,
            thread_ts: raw("/message/thread_ts").or_else(|| raw("/container/thread_ts")),
            user_id: i.user_id.clone().ok_or("feedback without its user")?,
        })
    }

    /// Whether it is the positive button.
    pub fn positive(&self) -> bool {
        self.rating == Rating::Positive
    }
}

impl Listeners {
    /// A click on the feedback buttons under a streamed answer (`block_actions` of
    /// [`FEEDBACK_ACTION_ID`]), as a typed [`Feedback`]. Like `action(…)`, the first listener
    /// that takes the click wins.
    pub fn feedback(self, handler: impl Fn(&Feedback, &mut Cx) -> HandlerResult + 'static) -> Listeners {
        self.action(FEEDBACK_ACTION_ID, move |click, cx| handler(&Feedback::from_action(click)?, cx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{action, feedback, handle, Team};
    use serde_json::json;

    fn app() -> Listeners {
        Listeners::new().feedback(|f, cx| {
            cx.reply(&format!("{} from {} on {}", f.rating.as_str(), f.user_id, f.message_ts));
            cx.state().update::<u64>(&format!("feedback:{}", f.rating.as_str()), |n| Some(n.unwrap_or(0) + 1))?;
            Ok(())
        })
    }

    #[test]
    fn a_click_on_the_buttons_reaches_the_listener_typed_and_a_reply_goes_in_the_answers_thread() {
        let click = feedback("D1", "1700000000.000100", Rating::Positive);
        let done = handle(&app(), &click);
        let (method, args) = &done.calls()[0];
        assert_eq!((method.as_str(), args["channel"].as_str(), args["thread_ts"].as_str()), ("chat.postMessage", Some("D1"), Some("1700000000.000100")));
        assert!(args["text"].as_str().unwrap().starts_with("positive from U1 on "), "{args}");
        let crate::prelude::Dispatch::Interaction(i) = &click else { panic!("an interaction") };
        let parsed = Feedback::from_action(&ActionIn { action: &i.actions[0], interaction: i }).unwrap();
        assert_eq!((parsed.channel_id.as_str(), parsed.thread_ts.as_deref(), parsed.user_id.as_str()), ("D1", Some("1700000000.000100"), "U1"));
        assert!(parsed.positive() && parsed.message_ts != "1700000000.000100", "the answer's own ts: {parsed:?}");
    }

    #[test]
    fn each_button_counts_once_however_often_its_click_arrives() {
        let team = Team::new();
        let bad = feedback("D1", "1.1", Rating::Negative);
        team.handle(&app(), &bad);
        team.handle(&app(), &bad);
        team.handle(&app(), &feedback("D1", "1.1", Rating::Positive));
        assert_eq!((team.state.value("feedback:negative"), team.state.value("feedback:positive")), (Some(json!(1)), Some(json!(1))));
        assert_eq!(handle(&app(), &bad).keys(), handle(&app(), &bad).keys(), "keyed by the click");
    }

    #[test]
    fn an_unknown_value_fails_the_handler_and_another_action_is_not_feedback() {
        let done = handle(&app(), &action(FEEDBACK_ACTION_ID, "meh"));
        assert!(done.failed.as_deref().is_some_and(|e| e.contains("\"meh\"")), "{:?}", done.failed);
        assert_eq!(handle(&app(), &action("approve", "good")).ignored, Some("no_listener"));
    }
}
