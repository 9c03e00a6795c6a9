//! A test kit for apps, native (no runtime): Slack-shaped payload builders that go through the
//! very parsers the Worker runs ([`mention`], [`message`], [`dm`], [`event`], [`command`],
//! [`action`], [`view_submission`], [`shortcut`], [`message_shortcut`], [`options`]), and
//! [`handle`], which runs an app on one of them and returns what the team actor would record: the
//! ack's body and the effects (method, arguments, key), or why it was ignored or failed.
//!
//! ```
//! use slackline::app::listen::Listeners;
//! use slackline::testing::{handle, mention};
//!
//! let app = Listeners::new().mention(|_, cx| { cx.reply("hi"); Ok(()) });
//! let done = handle(&app, &mention("C1", "U1", "<@UBOT> hello"));
//! let (method, args) = &done.calls()[0];
//! assert_eq!((method.as_str(), args["channel"].as_str(), args["text"].as_str()), ("chat.postMessage", Some("C1"), Some("hi")));
//! ```
//!
//! The team is `T1`, our bot `UBOT`; ids and `ts` values are fresh for each payload.

use crate::app::{decide, App, Context, Decision};
use crate::effect::{Action, Effect};
use crate::slack::envelope::{parse_command_form, parse_events_body, parse_interaction_form, Dispatch, Inbound};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};

/// The team every payload belongs to.
pub const TEAM: &str = "T1";
/// Our bot's user id in it.
pub const BOT_USER: &str = "UBOT";

fn next() -> u64 {
    static N: AtomicU64 = AtomicU64::new(1);
    N.fetch_add(1, Ordering::Relaxed)
}

/// A fresh message `ts`.
pub fn fresh_ts() -> String {
    format!("1700000000.{:06}", next())
}

fn dispatch(inbound: Inbound) -> Dispatch {
    match inbound {
        Inbound::Dispatch(d) => d,
        other => panic!("not a dispatch: {other:?}"),
    }
}

/// Any event (its JSON, with a `type`), in an `event_callback` of [`TEAM`].
pub fn event(event: Value) -> Dispatch {
    let envelope = json!({
        "type": "event_callback", "team_id": TEAM, "event_id": format!("Ev{}", next()), "event_time": 1_700_000_000,
        "authorizations": [{"team_id": TEAM, "user_id": BOT_USER, "is_bot": true}], "event": event,
    });
    dispatch(parse_events_body(envelope.to_string().as_bytes()).expect("a valid event"))
}

/// An `app_mention` of our bot by `user` in `channel`.
pub fn mention(channel: &str, user: &str, text: &str) -> Dispatch {
    let ts = fresh_ts();
    event(json!({"type": "app_mention", "channel": channel, "user": user, "text": text, "ts": ts, "event_ts": ts}))
}

/// A `message` by `user` in `channel`.
pub fn message(channel: &str, user: &str, text: &str) -> Dispatch {
    let ts = fresh_ts();
    event(json!({"type": "message", "channel_type": "channel", "channel": channel, "user": user, "text": text, "ts": ts, "event_ts": ts}))
}

/// A direct message from `user` to our bot.
pub fn dm(user: &str, text: &str) -> Dispatch {
    let ts = fresh_ts();
    event(json!({"type": "message", "channel_type": "im", "channel": format!("D{user}"), "user": user, "text": text, "ts": ts, "event_ts": ts}))
}

/// The slash command `name` with `text`, run by `U1` in `C1`.
pub fn command(name: &str, text: &str) -> Dispatch {
    let fields = [
        ("team_id", TEAM.to_string()),
        ("command", name.to_string()),
        ("text", text.to_string()),
        ("trigger_id", format!("trig.{}", next())),
        ("response_url", format!("https://hooks.slack.test/commands/{}", next())),
        ("user_id", "U1".to_string()),
        ("channel_id", "C1".to_string()),
    ];
    let body = form_urlencoded::Serializer::new(String::new()).extend_pairs(fields.iter().map(|(k, v)| (*k, v.as_str()))).finish();
    dispatch(parse_command_form(body.as_bytes()).expect("a valid command"))
}

/// An interactivity payload (its JSON, with a `type`), from `U1` of [`TEAM`].
pub fn interaction(mut payload: Value) -> Dispatch {
    payload["team"] = json!({"id": TEAM});
    if payload.get("user").is_none() {
        payload["user"] = json!({"id": "U1", "team_id": TEAM});
    }
    if payload.get("trigger_id").is_none() {
        payload["trigger_id"] = json!(format!("trig.{}", next()));
    }
    let body = form_urlencoded::Serializer::new(String::new()).append_pair("payload", &payload.to_string()).finish();
    dispatch(parse_interaction_form(body.as_bytes()).expect("a valid interaction"))
}

/// A click on the button `action_id` (with `value`) on a message in `C1`.
pub fn action(action_id: &str, value: &str) -> Dispatch {
    let ts = fresh_ts();
    interaction(json!({
        "type": "block_actions",
        "container": {"type": "message", "channel_id": "C1", "message_ts": ts},
        "channel": {"id": "C1"}, "message": {"ts": ts, "text": "a message"},
        "response_url": format!("https://hooks.slack.test/actions/{}", next()),
        "actions": [{"type": "button", "action_id": action_id, "block_id": "b1", "value": value}],
    }))
}

/// A modal's submission: `values` is its `state.values` (`{block_id: {action_id: {"value": …}}}`).
pub fn view_submission(callback_id: &str, values: Value) -> Dispatch {
    interaction(json!({
        "type": "view_submission",
        "view": {"id": format!("V{}", next()), "type": "modal", "callback_id": callback_id, "state": {"values": values}, "private_metadata": ""},
    }))
}

/// A global shortcut.
pub fn shortcut(callback_id: &str) -> Dispatch {
    interaction(json!({"type": "shortcut", "callback_id": callback_id}))
}

/// A message shortcut, on a message in `C1`.
pub fn message_shortcut(callback_id: &str) -> Dispatch {
    let ts = fresh_ts();
    interaction(json!({
        "type": "message_action", "callback_id": callback_id, "channel": {"id": "C1"}, "message": {"ts": ts, "text": "a message", "user": "U2"},
        "response_url": format!("https://hooks.slack.test/shortcuts/{}", next()),
    }))
}

/// An external select asking for options (`block_suggestion`), with what the user typed.
pub fn options(action_id: &str, query: &str) -> Dispatch {
    interaction(json!({"type": "block_suggestion", "action_id": action_id, "block_id": "b1", "value": query}))
}

/// What the team actor would record for one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Handled {
    /// The ack's body, if the app set one.
    pub ack: Option<Value>,
    /// The effects queued, in order.
    pub effects: Vec<Effect>,
    /// Why nothing was queued, if the app ignored it.
    pub ignored: Option<&'static str>,
    /// The handler's error, if it failed.
    pub failed: Option<String>,
}

impl Handled {
    /// The Web API calls queued: (method, arguments).
    pub fn calls(&self) -> Vec<(String, Value)> {
        self.effects
            .iter()
            .filter_map(|e| match &e.action {
                Action::SlackApi { method, args } => Some((method.clone(), args.clone())),
                _ => None,
            })
            .collect()
    }

    /// The effects' idempotency keys.
    pub fn keys(&self) -> Vec<&str> {
        self.effects.iter().map(|e| e.key.as_str()).collect()
    }
}

/// Runs `app` on `dispatch` (without an LLM configured).
pub fn handle(app: &dyn App, dispatch: &Dispatch) -> Handled {
    handle_with(app, dispatch, &Context::default())
}

/// Runs `app` on `dispatch` with `ctx`.
pub fn handle_with(app: &dyn App, dispatch: &Dispatch, ctx: &Context) -> Handled {
    let (decision, ack) = decide(app, dispatch, ctx);
    let ack = ack.filter(|a| !a.is_null());
    match decision {
        Decision::Enqueue(effects) => Handled { ack, effects, ignored: None, failed: None },
        Decision::Ignore(reason) => Handled { ack, effects: Vec::new(), ignored: Some(reason), failed: None },
        Decision::Failed(why) => Handled { ack, effects: Vec::new(), ignored: None, failed: Some(why) },
    }
}
