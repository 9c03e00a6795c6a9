use super::*;
use crate::app::listen::assistant::context_key as assistant_context_key;
use crate::app::listen::Pattern;
use crate::kinds::registry::Action;
use crate::testing::{agent_dm, agent_opened, agent_reply, app_context_changed, assistant_message, event, message, Team, TEAM};

/// An agent in the style of the guide: prompts on the Messages tab, the context kept, every DM
/// message answered in its thread, streamed, with what the user looks at.
fn agent() -> Listeners {
    Listeners::new()
        .agent_opened(|dm, cx| {
            let prompts: Vec<Prompt> = (1..=5).map(|n| Prompt::new(&format!("P{n}"), &format!("prompt {n}"))).collect();
            cx.set_agent_prompts(dm, Some("How can I help?"), &prompts);
            Ok(())
        })
        .event("app_home_opened", |e, cx| {
            cx.publish_home(e.raw["user"].as_str().unwrap_or_default(), json!({"type": "home", "blocks": []}));
            Ok(())
        })
        .agent_context_changed(|_, _| Ok(()))
        .agent_message(|m, thread, cx| {
            cx.set_status(thread, "is thinking…", &[]);
            cx.reply(&format!("viewing {}", thread.context.channel_id().unwrap_or("nothing")));
            cx.stream_answer(m, &m.words());
            Ok(())
        })
        .message(Pattern::any(), |_, cx| {
            cx.reply("a channel message");
            Ok(())
        })
}

/// The streamed answer a handler queued: (channel, thread_ts, prompt).
fn streamed(done: &crate::testing::Handled) -> (String, String, String) {
    match done.rows.iter().find_map(|e| match &e.action {
        Action::StreamAnswer { channel, thread_ts, prompt, .. } => Some((channel.clone(), thread_ts.clone(), prompt.clone())),
        _ => None,
    }) {
        Some(answer) => answer,
        None => panic!("no streamed answer: {done:?}"),
    }
}

#[test]
fn opening_the_messages_tab_pins_at_most_four_prompts_to_the_tab_not_to_a_thread() {
    let done = Team::new().handle(&agent(), &agent_opened("U1"));
    let calls = done.calls();
    assert_eq!(calls.len(), 1, "{calls:?}");
    let (method, args) = &calls[0];
    assert_eq!(method, "assistant.threads.setSuggestedPrompts");
    assert_eq!((args["channel_id"].as_str(), args["title"].as_str()), (Some("DU1"), Some("How can I help?")));
    assert!(args.get("thread_ts").is_none(), "the Messages tab's prompts take no thread: {args}");
    assert_eq!(args["prompts"].as_array().map(Vec::len), Some(4));
    assert_eq!(args["prompts"][0], json!({"title": "P1", "message": "prompt 1"}));
    assert!(done.keys()[0].ends_with(":set_agent_prompts"), "{:?}", done.keys());
}

#[test]
fn the_home_tab_is_not_the_agent_dm_and_goes_on_to_the_next_listener() {
    let home = event(json!({"type": "app_home_opened", "user": "U1", "channel": "DU1", "tab": "home", "event_ts": "1.2"}));
    let done = Team::new().handle(&agent(), &home);
    let methods: Vec<String> = done.calls().into_iter().map(|(m, _)| m).collect();
    assert_eq!(methods, ["views.publish"]);
}

#[test]
fn a_top_level_dm_message_is_the_root_of_its_own_thread() {
    let done = Team::new().handle(&agent(), &agent_dm("U1", "What changed?"));
    let calls = done.calls();
    let ts = calls[1].1["thread_ts"].as_str().expect("the reply's thread").to_string();
    assert_eq!((calls[0].0.as_str(), calls[0].1["thread_ts"].as_str()), ("assistant.threads.setStatus", Some(ts.as_str())));
    assert_eq!(done.keys()[0], format!("msg:DU1:{ts}:set_status"), "keyed by the message: its own ts");
    assert_eq!(streamed(&done), ("DU1".to_string(), ts, "What changed?".to_string()));
}

#[test]
fn a_reply_continues_the_thread_of_its_root() {
    let done = Team::new().handle(&agent(), &agent_reply("U1", "1700000000.000009", "and then?"));
    assert_eq!(streamed(&done), ("DU1".to_string(), "1700000000.000009".to_string(), "and then?".to_string()));
    assert_eq!(done.calls()[0].1["thread_ts"], "1700000000.000009");
}

#[test]
fn a_changed_context_is_kept_before_the_handler_and_the_next_message_reads_it() {
    let team = Team::new();
    let app = agent();
    let changed = team.handle(&app, &app_context_changed("U1", &[Viewed::Channel("C42".into())]));
    assert_eq!(changed.state_writes(), [(context_key("DU1", "U1"), Some(json!({"entities": [{"type": CHANNEL_ENTITY, "value": "C42", "team_id": TEAM}]})))]);
    let done = team.handle(&app, &agent_dm("U1", "summarize"));
    assert_eq!(done.calls()[1].1["text"], "viewing C42");
    assert!(done.state_writes().is_empty(), "a message writes no context");
    let other = team.handle(&app, &agent_dm("U2", "summarize"));
    assert_eq!(other.calls()[1].1["text"], "viewing nothing", "the context is the user's in their DM");
}

#[test]
fn every_kind_of_entity_reads_typed_and_an_unknown_one_is_kept_as_it_came() {
    let viewing = [
        Viewed::Canvas("F1".into()),
        Viewed::List("F2".into()),
        Viewed::Message { channel_id: "C7".into(), message_ts: "1.5".into() },
        Viewed::Unknown { kind: "slack#/types/huddle".into(), value: json!({"id": "H1"}) },
    ];
    let seen = std::rc::Rc::new(std::cell::RefCell::new(None));
    let kept = seen.clone();
    let app = Listeners::new().agent_context_changed(move |dm, _| {
        *kept.borrow_mut() = Some(dm.context.clone());
        Ok(())
    });
    let team = Team::new();
    team.handle(&app, &app_context_changed("U1", &viewing));
    let context = seen.borrow().clone().expect("the handler ran");
    let read: Vec<Viewed> = context.entities.iter().map(|e| e.viewed.clone()).collect();
    assert_eq!(read, viewing);
    assert_eq!(context.channel_id(), Some("C7"), "a message's channel when no channel is viewed");
    let stored = team.state.value(&context_key("DU1", "U1")).expect("kept");
    assert_eq!(stored["entities"][3], json!({"type": "slack#/types/huddle", "value": {"id": "H1"}, "team_id": TEAM}));
    assert_eq!(AgentContext::from_slack(&stored), Ok(context), "the kept context reads back the same");
}

#[test]
fn a_message_s_own_app_context_wins_over_the_kept_one() {
    let team = Team::new();
    let app = agent();
    team.handle(&app, &app_context_changed("U1", &[Viewed::Channel("C1".into())]));
    let m = json!({"type": "message", "channel_type": "im", "channel": "DU1", "user": "U1", "text": "hi", "ts": "1.1", "event_ts": "1.1",
        "app_context": {"entities": [{"type": CHANNEL_ENTITY, "value": "C9"}]}});
    let done = team.handle(&app, &event(m));
    assert_eq!(done.calls()[1].1["text"], "viewing C9");
}

#[test]
fn opening_the_dm_with_a_context_keeps_it_and_without_one_reads_the_kept_one() {
    let team = Team::new();
    let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let kept = seen.clone();
    let app = Listeners::new().agent_opened(move |dm, _| {
        kept.borrow_mut().push(dm.context.channel_id().map(str::to_string));
        Ok(())
    });
    let with = json!({"type": "app_home_opened", "user": "U1", "channel": "DU1", "tab": "messages", "event_ts": "1.2",
        "context": {"entities": [{"type": CHANNEL_ENTITY, "value": "C5"}]}});
    let done = team.handle(&app, &event(with));
    assert_eq!(done.state_writes().len(), 1);
    team.handle(&app, &agent_opened("U1"));
    assert_eq!(*seen.borrow(), [Some("C5".to_string()), Some("C5".to_string())]);
}

#[test]
fn malformed_agent_events_fail_their_handler_with_a_readable_message() {
    let cases = [
        (json!({"type": "app_context_changed", "user": "U1", "context": {}, "event_ts": "1.2"}), "app_context_changed without its channel"),
        (json!({"type": "app_context_changed", "user": "U1", "channel": "DU1", "event_ts": "1.2"}), "app_context_changed without its context"),
        (json!({"type": "app_home_opened", "channel": "DU1", "tab": "messages", "event_ts": "1.2"}), "app_home_opened without its user"),
        (
            json!({"type": "app_context_changed", "user": "U1", "channel": "DU1", "context": {"entities": [{"type": CANVAS_ENTITY}]}, "event_ts": "1.2"}),
            "a slack#/types/canvas_id entity without its id",
        ),
        (
            json!({"type": "app_context_changed", "user": "U1", "channel": "DU1", "event_ts": "1.2",
                "context": {"entities": [{"type": MESSAGE_ENTITY, "value": {"message_ts": "1.1"}}]}}),
            "without value.channel_id",
        ),
        (json!({"type": "app_context_changed", "user": "U1", "channel": "DU1", "context": "C1", "event_ts": "1.2"}), "a context Slack should not send"),
    ];
    for (raw, why) in cases {
        let team = Team::new();
        let done = team.handle(&agent(), &event(raw.clone()));
        assert!(done.failed.as_deref().is_some_and(|e| e.contains(why)), "{raw}: {:?}", done.failed);
        assert!(done.state_writes().is_empty() && team.state.value(&context_key("DU1", "U1")).is_none(), "{raw}: nothing kept");
    }
}

#[test]
fn bots_edits_and_channel_messages_are_not_agent_messages() {
    let bot = json!({"type": "message", "channel_type": "im", "channel": "DU1", "bot_id": "B1", "text": "an answer", "ts": "1.1", "event_ts": "1.1"});
    assert_eq!(Team::new().handle(&agent(), &event(bot)).ignored, Some("bot_message"));
    let edit = json!({"type": "message", "subtype": "message_changed", "channel_type": "im", "channel": "DU1", "user": "U1", "text": "", "ts": "1.2", "event_ts": "1.2"});
    assert_eq!(Team::new().handle(&agent(), &event(edit)).ignored, Some("no_listener"));
    let done = Team::new().handle(&agent(), &message("C1", "U1", "hi all"));
    assert_eq!(done.calls()[0].1["text"], "a channel message");
}

#[test]
fn with_assistant_message_registered_first_a_legacy_thread_reply_reaches_it_and_a_top_level_dm_the_agent() {
    let both = || {
        Listeners::new()
            .assistant_message(|_, thread, cx| {
                cx.set_title(thread, "legacy");
                Ok(())
            })
            .agent_message(|_, thread, cx| {
                cx.set_title(thread, "agent");
                Ok(())
            })
    };
    let title = |d: &crate::testing::Handled| d.calls()[0].1["title"].as_str().map(str::to_string);
    let team = Team::new();
    team.put(&assistant_context_key("DU1", "1700000000.000001"), &json!({"channel_id": "C1"}));
    assert_eq!(title(&team.handle(&both(), &assistant_message("U1", "1700000000.000001", "hi"))).as_deref(), Some("legacy"));
    assert_eq!(title(&team.handle(&both(), &agent_dm("U1", "hi"))).as_deref(), Some("agent"));
    let agent_first = Listeners::new()
        .agent_message(|_, thread, cx| {
            cx.set_title(thread, "agent");
            Ok(())
        })
        .assistant_message(|_, _, _| Err("never reached".into()));
    assert_eq!(title(&team.handle(&agent_first, &agent_reply("U1", "1700000000.000001", "hi"))).as_deref(), Some("agent"), "the first match wins");
}
