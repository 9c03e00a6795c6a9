//! mybot: a Slack bot on slackline — its listeners, and one line that makes it a Cloudflare Worker.
//!
//! Handlers are pure: they answer with effects (`cx.reply`, `cx.respond`, …) that slackline
//! records with the event before the 200 and delivers afterwards, at least once, paced by Slack's
//! rate limits. The bot asks Slack for exactly what these listeners use (`manifest.json`: a
//! mention and a command); README.md has the snippets to add more, each with what it asks for.

use serde_json::json;
use slackline::prelude::*;

/// The bot.
pub fn app() -> Listeners {
    Listeners::new()
        .mention(|m, cx| {
            cx.reply(&format!("Hi <@{}>! You said: {}", m.message.user.as_deref().unwrap_or("there"), m.words()));
            Ok(())
        })
        .command("/mybot", |c, cx| {
            cx.ack_ephemeral("On it…");
            cx.respond(json!({ "response_type": "in_channel", "text": format!("You asked: {}", c.text) }));
            Ok(())
        })
}

// The manifest is compiled in: an install asks for its bot scopes (written there once).
slackline::worker!(app, manifest = "manifest.json");

#[cfg(test)]
mod tests {
    use super::app;
    use slackline::testing::{command, handle, mention};

    #[test]
    fn a_mention_gets_a_threaded_reply() {
        let done = handle(&app(), &mention("C1", "U1", "<@UBOT> how are you?"));
        let (method, args) = &done.calls()[0];
        assert_eq!(method, "chat.postMessage");
        assert_eq!(args["text"], "Hi <@U1>! You said: how are you?");
        assert!(args["thread_ts"].is_string());
    }

    #[test]
    fn the_command_answers_at_once_and_then_in_the_channel() {
        let done = handle(&app(), &command("/mybot", "status"));
        let queued = done.queued();
        assert_eq!(done.ack.unwrap()["text"], "On it…");
        assert_eq!(queued.len(), 1);
        assert_eq!((queued[0].method.as_str(), queued[0].args["body"]["text"].as_str()), ("respond", Some("You asked: status")));
    }

    #[test]
    fn the_manifest_declares_the_command_the_bot_listens_to() {
        let manifest: serde_json::Value = serde_json::from_str(include_str!("../manifest.json")).expect("manifest.json is JSON");
        let commands: Vec<&str> = manifest["features"]["slash_commands"].as_array().into_iter().flatten().filter_map(|c| c["command"].as_str()).collect();
        assert_eq!(commands, ["/mybot"]);
        assert!(handle(&app(), &command("/mybot", "")).ignored.is_none(), "a listener takes it");
    }
}
