//! A post in the thread of a remembered message ([`EffectRef::in_thread_of`]): the message's
//! `{channel, ts}` is read from a state key **when the row is performed**, not when it is
//! queued, so an effect queued before Slack answered the parent (a reminder scheduled with the
//! announcement it answers) still finds its thread once the parent's answer is remembered.
//!
//! What the key holds decides where the post goes (pure: [`threaded`]):
//!
//! - a [`Posted`] (what `.remember(key)` keeps): the parent's channel, `thread_ts` its `ts` —
//!   the channel the helper named is replaced, since a thread lives in its parent's channel;
//! - nothing (the parent was never delivered, is parked, or has not been answered yet), or a
//!   value that is not a `Posted`: the post goes **top level**, in the channel the helper named
//!   (and in the thread it named, if any). A post that has to reach people is not held back by a
//!   parent that may never come; the row is performed once, as any row, and not retried for it.
//!
//! The key is read again at each attempt: a retried post that was top level can find its thread.
//! Only a message post can go in a thread ([`THREADED_METHODS`]).
//!
//! [`EffectRef::in_thread_of`]: crate::app::listen::EffectRef::in_thread_of

use super::Posted;
use crate::slack::method;
use serde_json::{json, Value};

/// The Web API methods whose message can go in a thread (`thread_ts`).
pub const THREADED_METHODS: [&str; 2] = [method::POST_MESSAGE, method::POST_EPHEMERAL];

/// Whether `method` posts a message that can go in a thread.
pub fn can_thread(method: &str) -> bool {
    THREADED_METHODS.contains(&method)
}

/// The arguments to send a post with, given the JSON its thread's key holds now (`held`): in
/// the remembered message's thread and channel, else as queued.
pub fn threaded(args: &Value, held: Option<&str>) -> Value {
    let mut args = args.clone();
    if let Some(parent) = held.and_then(|json| serde_json::from_str::<Posted>(json).ok()) {
        args["channel"] = json!(parent.channel);
        args["thread_ts"] = json!(parent.ts);
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reminder() -> Value {
        json!({"channel": "C_NAMED", "text": "still open", "blocks": []})
    }

    #[test]
    fn a_remembered_parent_puts_the_post_in_its_thread_and_its_channel() {
        let args = threaded(&reminder(), Some(r#"{"channel":"C_PARENT","ts":"1700.000001"}"#));
        assert_eq!(args, json!({"channel": "C_PARENT", "thread_ts": "1700.000001", "text": "still open", "blocks": []}));
    }

    #[test]
    fn an_absent_key_posts_top_level_in_the_named_channel() {
        assert_eq!(threaded(&reminder(), None), reminder());
    }

    #[test]
    fn a_value_that_is_not_a_remembered_message_posts_top_level_too() {
        for held in [r#"{"status":"open"}"#, "42", "not json", r#"{"channel":"C1"}"#] {
            assert_eq!(threaded(&reminder(), Some(held)), reminder(), "{held}");
        }
    }

    #[test]
    fn a_remembered_parent_replaces_a_thread_the_helper_named() {
        let reply = json!({"channel": "C1", "thread_ts": "1.1", "text": "t"});
        let args = threaded(&reply, Some(r#"{"channel":"C2","ts":"2.2"}"#));
        assert_eq!((args["channel"].as_str(), args["thread_ts"].as_str()), (Some("C2"), Some("2.2")));
        assert_eq!(threaded(&reply, None), reply, "kept when the key holds nothing");
    }

    #[test]
    fn only_message_posts_go_in_a_thread() {
        assert!(can_thread("chat.postMessage") && can_thread("chat.postEphemeral"));
        assert!(!can_thread("chat.update") && !can_thread("views.open") && !can_thread("reactions.add"));
    }
}
