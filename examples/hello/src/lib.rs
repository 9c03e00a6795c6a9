//! Bolt's getting-started app, on slackline: a message containing "hello" is answered with a
//! greeting and a button; a click on the button is answered in the message's thread. Unlike the
//! same app on Bolt, both answers are recorded with the event before Slack gets its 200, so a
//! crash, a redeploy or a Slack retry loses or doubles nothing.

use serde_json::json;
use slackline::prelude::*;

/// The button's `action_id`.
pub const BUTTON: &str = "button_click";

/// The app.
pub fn app() -> Listeners {
    Listeners::new()
        .message(Pattern::contains("hello"), |m, cx| {
            let greeting = format!("Hey there <@{}>!", m.message.user.as_deref().unwrap_or("you"));
            let button = json!({ "type": "button", "text": { "type": "plain_text", "text": "Click Me" }, "action_id": BUTTON });
            cx.say(&m.message.channel, &greeting).blocks(json!([{ "type": "section", "text": { "type": "mrkdwn", "text": greeting }, "accessory": button }]));
            Ok(())
        })
        .action(BUTTON, |a, cx| {
            cx.reply(&format!("<@{}> clicked the button", a.interaction.user_id.as_deref().unwrap_or("someone")));
            Ok(())
        })
}

slackline::worker!(app);

#[cfg(test)]
mod tests {
    use super::*;
    use slackline::testing::{action, handle, message};

    #[test]
    fn hello_is_greeted_with_a_button() {
        let done = handle(&app(), &message("C1", "U1", "hello bot"));
        let (method, args) = &done.calls()[0];
        assert_eq!((method.as_str(), args["text"].as_str()), ("chat.postMessage", Some("Hey there <@U1>!")));
        assert_eq!(args["blocks"][0]["accessory"]["action_id"], BUTTON);
    }

    #[test]
    fn a_click_is_answered_in_the_thread() {
        let done = handle(&app(), &action(BUTTON, ""));
        let (_, args) = &done.calls()[0];
        assert_eq!(args["text"], "<@U1> clicked the button");
        assert!(args["thread_ts"].is_string());
    }
}
