//! Who acts, where, and on which message: [`Dispatch::by`], [`Dispatch::in_channel`],
//! [`Dispatch::in_thread`] and [`Dispatch::on_message`], chained on any of the test kit's
//! payloads (`action("take", "7").by("U2").on_message("C9", &posted_ts)`).
//!
//! **Why a rewrite of the payload.** A builder's payload is parsed by the Worker's own parsers;
//! so is its rewrite: the field is set where Slack puts it (an event's `user`, a reaction's
//! `item.channel`, an interaction's `user.id` and `container`, a command's `user_id`), and the
//! payload is parsed again, keeping its receipt key (the `event_id`, the `trigger_id`). A test
//! therefore sees exactly what a handler would see from Slack, `cx.origin()` included.
//!
//! **Invariant.** A rewrite the input cannot carry (a user on a Workflow step, a thread on a slash
//! command) panics, naming the input: a test never silently runs on a payload other than the one
//! it describes.

use super::{dispatch, interaction, BOT_USER, TEAM};
use crate::slack::envelope::{parse_command_form, parse_events_body, Dispatch};
use serde_json::{json, Value};

impl Dispatch {
    /// The same input, from `user`: a message's or a reaction's author, who ran the command,
    /// who clicked or submitted.
    ///
    /// # Panics
    ///
    /// When the input has no acting user (a Workflow step's `function_executed`).
    #[must_use]
    pub fn by(self, user: &str) -> Dispatch {
        let command = |form: &mut CommandForm| {
            form.user_id = user.into();
            true
        };
        let click = |payload: &mut Value| {
            payload["user"] = json!({"id": user, "team_id": TEAM});
            true
        };
        self.rewrite("by", |raw| set_event_user(raw, user), command, click)
    }

    /// The same input, in `channel`: a message's, a reaction's item's, the command's, the
    /// message a button is on.
    ///
    /// # Panics
    ///
    /// When the input has no channel (a global shortcut, a modal's submission).
    #[must_use]
    pub fn in_channel(self, channel: &str) -> Dispatch {
        let command = |form: &mut CommandForm| {
            form.channel_id = channel.into();
            true
        };
        self.rewrite("in_channel", |raw| set_event_channel(raw, channel), command, |p| set_interaction_channel(p, channel))
    }

    /// The same message (or click on a message), in the thread of `thread_ts`.
    ///
    /// # Panics
    ///
    /// When the input cannot be in a thread (a command, a reaction).
    #[must_use]
    pub fn in_thread(self, thread_ts: &str) -> Dispatch {
        let event = |raw: &mut Value| set_if_string(raw, "ts", "thread_ts", thread_ts);
        self.rewrite("in_thread", event, |_| false, |p| set_interaction_thread(p, thread_ts))
    }

    /// The same input, about the message `ts` in `channel`: a message event that *is* that
    /// message, a reaction on it, a sharing of links in it, a click on a button in it.
    ///
    /// # Panics
    ///
    /// When the input is about no message (a command, a modal's submission).
    #[must_use]
    pub fn on_message(self, channel: &str, ts: &str) -> Dispatch {
        self.rewrite("on_message", |raw| set_event_message(raw, channel, ts), |_| false, |p| set_interaction_message(p, channel, ts))
    }

    /// Applies the edit for this kind of input and parses the payload again; an edit that
    /// returns `false` (or finds nothing to set) cannot apply to it.
    fn rewrite(
        self,
        what: &str,
        event: impl FnOnce(&mut Value) -> bool,
        command: impl FnOnce(&mut CommandForm) -> bool,
        interaction_edit: impl FnOnce(&mut Value) -> bool,
    ) -> Dispatch {
        let kind = self.type_name().to_string();
        let rewritten = match self {
            Dispatch::Event(e) => {
                let mut raw = e.raw.clone();
                event(&mut raw).then(|| reparse_event(&e.event_id, raw))
            }
            Dispatch::Command(c) => {
                let mut form = CommandForm::of(&c);
                command(&mut form).then(|| form.parse())
            }
            Dispatch::Interaction(i) => {
                let mut raw = i.raw.clone();
                interaction_edit(&mut raw).then(|| interaction(raw))
            }
        };
        rewritten.unwrap_or_else(|| panic!("test kit: .{what}(…) does not apply to a {kind}"))
    }
}

fn set_if_string(raw: &mut Value, when_present: &str, field: &str, value: &str) -> bool {
    let present = raw.get(when_present).is_some_and(Value::is_string);
    if present {
        raw[field] = json!(value);
    }
    present
}

fn set_event_user(raw: &mut Value, user: &str) -> bool {
    if let Some(thread) = raw.get_mut("assistant_thread") {
        thread["user_id"] = json!(user);
        return true;
    }
    set_if_string(raw, "user", "user", user)
}

fn set_event_channel(raw: &mut Value, channel: &str) -> bool {
    if let Some(item) = raw.get_mut("item").filter(|item| item.get("channel").is_some()) {
        item["channel"] = json!(channel);
        return true;
    }
    if let Some(thread) = raw.get_mut("assistant_thread") {
        thread["channel_id"] = json!(channel);
        return true;
    }
    set_if_string(raw, "channel", "channel", channel)
}

fn set_event_message(raw: &mut Value, channel: &str, ts: &str) -> bool {
    if let Some(item) = raw.get_mut("item").filter(|item| item.get("ts").is_some()) {
        item["channel"] = json!(channel);
        item["ts"] = json!(ts);
        return true;
    }
    let field = if raw.get("message_ts").is_some() { "message_ts" } else { "ts" };
    let about_a_message = (matches!(raw["type"].as_str(), Some("message" | "app_mention")) || field == "message_ts") && raw.get("channel").is_some();
    if about_a_message {
        raw["channel"] = json!(channel);
        raw[field] = json!(ts);
    }
    about_a_message
}

fn set_interaction_channel(payload: &mut Value, channel: &str) -> bool {
    let on_message = payload.get("channel").is_some() || payload.pointer("/container/channel_id").is_some();
    if on_message {
        payload["channel"] = json!({"id": channel});
        if let Some(container) = payload.get_mut("container") {
            container["channel_id"] = json!(channel);
        }
    }
    on_message
}

fn set_interaction_message(payload: &mut Value, channel: &str, ts: &str) -> bool {
    if !set_interaction_channel(payload, channel) {
        return false;
    }
    if let Some(container) = payload.get_mut("container") {
        container["message_ts"] = json!(ts);
    }
    payload["message"]["ts"] = json!(ts);
    true
}

fn set_interaction_thread(payload: &mut Value, thread_ts: &str) -> bool {
    let on_message = payload.get("message").is_some();
    if on_message {
        payload["message"]["thread_ts"] = json!(thread_ts);
        if let Some(container) = payload.get_mut("container") {
            container["thread_ts"] = json!(thread_ts);
        }
    }
    on_message
}

/// An `event_callback` of [`TEAM`] around `raw`, with its own `event_id` kept.
fn reparse_event(event_id: &str, raw: Value) -> Dispatch {
    let envelope = json!({
        "type": "event_callback", "team_id": TEAM, "event_id": event_id, "event_time": 1_700_000_000,
        "authorizations": [{"team_id": TEAM, "user_id": BOT_USER, "is_bot": true}], "event": raw,
    });
    dispatch(parse_events_body(envelope.to_string().as_bytes()).expect("a valid event"))
}

/// A slash command's form fields, to send again with one of them changed.
struct CommandForm {
    fields: Vec<(&'static str, String)>,
    user_id: String,
    channel_id: String,
}

impl CommandForm {
    fn of(c: &crate::slack::envelope::SlashCommand) -> CommandForm {
        let fields = vec![
            ("team_id", c.team_key.clone()),
            ("command", c.command.clone()),
            ("text", c.text.clone()),
            ("trigger_id", c.trigger_id.clone()),
            ("response_url", c.response_url.clone()),
        ];
        CommandForm { fields, user_id: c.user_id.clone(), channel_id: c.channel_id.clone() }
    }

    fn parse(self) -> Dispatch {
        let mut fields = self.fields;
        fields.extend([("user_id", self.user_id), ("channel_id", self.channel_id)]);
        let body = form_urlencoded::Serializer::new(String::new()).extend_pairs(fields.iter().map(|(k, v)| (*k, v.as_str()))).finish();
        dispatch(parse_command_form(body.as_bytes()).expect("a valid command"))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{action, command, event, function_executed, handle, link_shared, mention, view_submission, Team};
    use crate::prelude::*;
    use serde_json::json;

    /// An app whose every listener says back who acted, where, and on which message.
    fn echo_origin() -> Listeners {
        let say = |cx: &mut Cx| -> HandlerResult {
            let o = cx.origin().clone();
            let text = format!("{:?} {:?} {:?} {:?}", o.user, o.channel, o.ts, o.thread_ts);
            cx.say("C_LOG", &text);
            Ok(())
        };
        Listeners::new()
            .mention(move |_, cx| say(cx))
            .command("/x", move |_, cx| say(cx))
            .action("take", move |_, cx| say(cx))
            .event("reaction_added", move |_, cx| say(cx))
            .link_shared(move |_, cx| say(cx))
    }

    fn said(dispatch: &Dispatch) -> String {
        handle(&echo_origin(), dispatch).calls()[0].1["text"].as_str().unwrap().to_string()
    }

    #[test]
    fn a_click_by_another_user_on_a_given_message_is_seen_as_such_and_keeps_its_receipt_key() {
        let click = action("take", "7");
        let key = click.op_key().to_string();
        let moved = click.by("U2").on_message("C9", "1.5");
        assert_eq!(moved.op_key(), key, "the same click, retried, is the same receipt");
        assert_eq!(said(&moved), r#"Some("U2") Some("C9") Some("1.5") Some("1.5")"#, "a reply goes in the thread of the message clicked");
        assert!(said(&action("take", "7").in_thread("1.0")).ends_with(r#"Some("1.0")"#));
    }

    #[test]
    fn a_mention_moves_to_another_author_channel_message_and_thread() {
        let m = mention("C1", "U1", "<@UBOT> hi").by("U3").in_channel("C4").in_thread("1.1");
        assert!(said(&m).starts_with(r#"Some("U3") Some("C4")"#), "{}", said(&m));
        assert!(said(&m).ends_with(r#"Some("1.1")"#), "a reply goes in the thread: {}", said(&m));
        let at = mention("C1", "U1", "<@UBOT> hi").on_message("C5", "2.2");
        assert_eq!(said(&at), r#"Some("U1") Some("C5") Some("2.2") Some("2.2")"#);
    }

    #[test]
    fn a_command_is_run_by_another_user_in_another_channel() {
        assert!(said(&command("/x", "").by("U7").in_channel("C7")).starts_with(r#"Some("U7") Some("C7")"#));
    }

    #[test]
    fn a_reaction_and_a_sharing_move_to_the_message_they_are_on() {
        let reaction = event(
            json!({"type": "reaction_added", "user": "U1", "reaction": "eyes", "item": {"type": "message", "channel": "C1", "ts": "1.0"}, "event_ts": "1.0"}),
        );
        assert!(said(&reaction.by("U8").on_message("C8", "8.8")).starts_with(r#"Some("U8") Some("C8") Some("8.8")"#));
        let shared = link_shared("C1", &["https://x.example/1"]).on_message("C2", "2.0");
        assert!(said(&shared).contains(r#"Some("C2") Some("2.0")"#), "{}", said(&shared));
    }

    #[test]
    fn a_submission_is_made_by_the_user_named() {
        let app = Listeners::new().view_submission("v", |v, cx| {
            cx.say("C1", v.interaction.user_id.as_deref().unwrap_or("nobody"));
            Ok(())
        });
        assert_eq!(Team::new().handle(&app, &view_submission("v", json!({})).by("U5")).calls()[0].1["text"], "U5");
    }

    #[test]
    #[should_panic(expected = ".by(…) does not apply to a function_executed")]
    fn a_step_has_no_acting_user_to_change() {
        let _ = function_executed("s", "Fx1", json!({})).by("U2");
    }

    #[test]
    #[should_panic(expected = ".in_thread(…) does not apply to a /x")]
    fn a_command_cannot_be_in_a_thread() {
        let _ = command("/x", "").in_thread("1.0");
    }
}
