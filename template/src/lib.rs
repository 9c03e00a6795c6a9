//! A Slack bot on slackline: its listeners, and one line that makes it a Cloudflare Worker.
//!
//! Handlers are pure: they answer with effects (`cx.reply`, `cx.react`, `cx.open_modal`, …) that
//! slackline records with the event before the 200 and delivers afterwards, at least once, paced
//! by Slack's rate limits. See slackline's `docs/app.md`.

use serde_json::json;
use slackline::prelude::*;

/// The bot.
pub fn app() -> Listeners {
    Listeners::new()
        .mention(|m, cx| {
            cx.reply(&format!("Hi <@{}>! You said: {}", m.message.user.as_deref().unwrap_or("there"), m.words()));
            Ok(())
        })
        // The agent's DM (its Messages tab): prompts pinned to the tab when the user opens it, and
        // every message answered in its thread (a top-level one starts its own).
        .agent_opened(|dm, cx| {
            cx.set_agent_prompts(dm, Some("Try one of these"), &[Prompt::new("What can you do?", "What can you do?"), Prompt::new("Say hello", "Say hello")]);
            Ok(())
        })
        .agent_message(|m, _, cx| {
            cx.reply(&format!("You said: {}", m.words()));
            Ok(())
        })
        .message(Pattern::contains("hello"), |_, cx| {
            cx.react("wave");
            Ok(())
        })
        .command("/mybot", |c, cx| {
            cx.ack_ephemeral("On it…");
            cx.respond(json!({ "response_type": "in_channel", "text": format!("You asked: {}", c.text) }));
            Ok(())
        })
        // A Workflow Builder step (manifest.json's `functions.greet`): it ends once, with these
        // outputs; an `Err` (or a step that never ends) fails it with a readable error.
        .function("greet", |step, cx| {
            let name = step.input("name").ok_or("the step needs a name")?;
            cx.complete(json!({ "greeting": format!("Hello, {name}!") }));
            Ok(())
        })
}

slackline::worker!(app);

#[cfg(test)]
mod tests {
    use super::app;
    use slackline::testing::{agent_dm, agent_opened, agent_reply, command, function_executed, handle, mention, message};

    #[test]
    fn a_mention_gets_a_threaded_reply() {
        let done = handle(&app(), &mention("C1", "U1", "<@UBOT> how are you?"));
        let (method, args) = &done.calls()[0];
        assert_eq!(method, "chat.postMessage");
        assert_eq!(args["text"], "Hi <@U1>! You said: how are you?");
        assert!(args["thread_ts"].is_string());
    }

    #[test]
    fn hello_gets_a_wave_and_other_chatter_nothing() {
        assert_eq!(handle(&app(), &message("C1", "U1", "Hello team")).calls()[0].1["name"], "wave");
        assert_eq!(handle(&app(), &message("C1", "U1", "lunch?")).ignored, Some("no_listener"));
    }

    #[test]
    fn the_agent_dm_gets_its_prompts_and_each_message_an_answer_in_its_thread() {
        let (method, args) = &handle(&app(), &agent_opened("U1")).calls()[0];
        assert_eq!((method.as_str(), args["prompts"].as_array().map(Vec::len)), ("assistant.threads.setSuggestedPrompts", Some(2)));
        let (_, args) = &handle(&app(), &agent_dm("U1", "hello there")).calls()[0];
        assert_eq!(args["text"], "You said: hello there");
        let (_, args) = &handle(&app(), &agent_reply("U1", "1700000000.000001", "and more")).calls()[0];
        assert_eq!(args["thread_ts"], "1700000000.000001");
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
    fn the_greet_step_completes_with_exactly_the_outputs_the_manifest_declares() {
        let manifest: serde_json::Value = serde_json::from_str(include_str!("../manifest.json")).unwrap();
        let declared = &manifest["functions"]["greet"];
        let inputs = serde_json::json!({ "name": "Ada" });
        for (name, spec) in declared["input_parameters"].as_object().unwrap() {
            assert!(!spec["is_required"].as_bool().unwrap_or(false) || inputs.get(name).is_some(), "the test gives the required input {name}");
        }
        let done = handle(&app(), &function_executed("greet", "Fx1", inputs));
        let ending = &done.queued()[0];
        assert_eq!(ending.method, "functions.completeSuccess");
        let outputs = ending.args["outputs"].as_object().unwrap();
        let output_specs = declared["output_parameters"].as_object().unwrap();
        assert!(outputs.keys().all(|k| output_specs.contains_key(k)), "only declared outputs: {outputs:?}");
        for (name, spec) in output_specs {
            assert!(!spec["is_required"].as_bool().unwrap_or(false) || outputs.contains_key(name), "the required output {name}");
        }
        assert_eq!(outputs["greeting"], "Hello, Ada!");
        assert!(handle(&app(), &function_executed("greet", "Fx2", serde_json::json!({}))).failed.is_some(), "no name: the step fails");
    }
}
