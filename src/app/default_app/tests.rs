use super::*;
use crate::slack::envelope::BlockAction;

fn message(text: &str) -> Message {
    Message { channel: "C1".into(), user: Some("U1".into()), text: text.into(), ts: "10.1".into(), ..Default::default() }
}

fn envelope(event: Event) -> EventEnvelope {
    EventEnvelope { event_id: "Ev1".into(), team_key: "T1".into(), event_time: 0, bot_user_id: Some("UBOT".into()), event, raw: serde_json::Value::Null }
}

fn plain() -> Context {
    Context::default()
}

fn effects(d: Decision) -> Vec<Effect> {
    match d {
        Decision::Enqueue(e) => e,
        Decision::Ignore(r) => panic!("ignored: {r}"),
        Decision::Failed(why) => panic!("failed: {why}"),
    }
}

#[test]
fn a_mention_gets_one_threaded_reply_that_quotes_it() {
    let e = effects(DefaultApp.on_event(&envelope(Event::AppMention(message("<@UBOT> is the build green?"))), &plain()));
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].key, "msg:C1:10.1:reply");
    assert_eq!(e[0].deadline_after_ms, Some(REPLY_DEADLINE_MS));
    let Action::SlackApi { method, args, .. } = &e[0].action else { panic!() };
    assert_eq!(method, "chat.postMessage");
    assert_eq!(args["channel"], "C1");
    assert_eq!(args["thread_ts"], "10.1");
    assert_eq!(args["text"], "Got it, <@U1>: “is the build green?”");
}

#[test]
fn a_mention_inside_a_thread_replies_in_that_thread() {
    let m = Message { thread_ts: Some("9.0".into()), ..message("<@UBOT> again") };
    let e = effects(DefaultApp.on_event(&envelope(Event::AppMention(m)), &plain()));
    let Action::SlackApi { args, .. } = &e[0].action else { panic!() };
    assert_eq!(args["thread_ts"], "9.0");
}

#[test]
fn the_message_and_app_mention_copies_of_one_post_share_a_key() {
    let a = effects(DefaultApp.on_event(&envelope(Event::AppMention(message("<@UBOT> hi"))), &plain()));
    let b = effects(DefaultApp.on_event(&envelope(Event::Message(message("<@UBOT> hi"))), &plain()));
    assert_eq!(a[0].key, b[0].key);
}

#[test]
fn a_direct_message_from_a_human_gets_the_same_reply() {
    let m = Message { channel_type: Some("im".into()), ..message("hello") };
    let e = effects(DefaultApp.on_event(&envelope(Event::Message(m)), &plain()));
    assert_eq!(e[0].key, "msg:C1:10.1:reply");
}

#[test]
fn a_channel_message_not_addressed_to_the_bot_is_ignored() {
    let d = DefaultApp.on_event(&envelope(Event::Message(message("just chatting"))), &plain());
    assert_eq!(d, Decision::Ignore("not_addressed"));
}

#[test]
fn bot_messages_our_own_messages_and_subtypes_are_ignored() {
    let im = |m: Message| Event::Message(Message { channel_type: Some("im".into()), ..m });
    let cases = [
        (im(Message { bot_id: Some("B1".into()), ..message("x") }), "bot_message"),
        (im(Message { user: Some("UBOT".into()), ..message("x") }), "own_message"),
        (im(Message { subtype: Some("message_changed".into()), ..message("x") }), "unhandled_subtype"),
        (Event::AppMention(Message { bot_id: Some("B1".into()), ..message("<@UBOT>") }), "bot_message"),
    ];
    for (event, reason) in cases {
        assert_eq!(DefaultApp.on_event(&envelope(event), &plain()), Decision::Ignore(reason));
    }
}

#[test]
fn with_an_llm_a_mention_becomes_a_completion_chained_to_a_threaded_post() {
    let e = effects(DefaultApp.on_event(&envelope(Event::AppMention(message("<@UBOT> summarise"))), &Context { llm_enabled: true, ..Context::default() }));
    assert_eq!(e[0].action, Action::LlmReply { prompt: "summarise".into(), then: Followup::Thread { channel: "C1".into(), thread_ts: "10.1".into() } });
}

fn command() -> SlashCommand {
    SlashCommand {
        team_key: "T1".into(),
        trigger_id: "trig".into(),
        command: "/ask".into(),
        text: "status".into(),
        response_url: "https://hooks.example/r".into(),
        user_id: "U1".into(),
        channel_id: "C1".into(),
    }
}

#[test]
fn a_command_is_acked_ephemerally_and_answered_through_its_response_url() {
    let reply = DefaultApp.on_command(&command(), &plain());
    assert_eq!(reply.ack["response_type"], "ephemeral");
    let e = effects(reply.decision);
    assert_eq!(e[0].key, "cmd:trig:answer:post");
    assert_eq!(e[0].deadline_after_ms, Some(RESPONSE_URL_DEADLINE_MS));
    let Action::RespondUrl { url, body } = &e[0].action else { panic!() };
    assert_eq!(url, "https://hooks.example/r");
    assert_eq!(body["text"], "You ran `/ask status`.");
}

fn click(action_id: &str) -> Interaction {
    Interaction {
        team_key: "T1".into(),
        op_key: "trig.9".into(),
        payload_type: "block_actions".into(),
        user_id: Some("U2".into()),
        actions: vec![BlockAction { action_id: action_id.into(), block_id: None, value: None }],
        channel_id: Some("C1".into()),
        message_ts: Some("10.2".into()),
        response_url: None,
        raw: serde_json::Value::Null,
    }
}

#[test]
fn the_resolve_button_updates_its_message() {
    let e = effects(DefaultApp.on_interaction(&click(RESOLVE_ACTION_ID), &plain()));
    assert_eq!(e[0].key, "ix:trig.9:resolve");
    let Action::SlackApi { method, args, .. } = &e[0].action else { panic!() };
    assert_eq!(method, "chat.update");
    assert_eq!((args["channel"].as_str(), args["ts"].as_str()), (Some("C1"), Some("10.2")));
    assert!(args["text"].as_str().unwrap().contains("<@U2>"));
}

#[test]
fn a_feedback_click_is_thanked_ephemerally_in_the_answers_thread() {
    let mut bad = click(FEEDBACK_ACTION_ID);
    bad.actions[0].value = Some(FEEDBACK_NEGATIVE.into());
    bad.raw = json!({"message": {"ts": "10.2", "thread_ts": "10.1"}});
    let e = effects(DefaultApp.on_interaction(&bad, &plain()));
    assert_eq!(e[0].key, "ix:trig.9:feedback");
    let Action::SlackApi { method, args, .. } = &e[0].action else { panic!("a Web API call") };
    assert_eq!(
        (method.as_str(), args["channel"].as_str(), args["user"].as_str(), args["thread_ts"].as_str()),
        ("chat.postEphemeral", Some("C1"), Some("U2"), Some("10.1"))
    );
    assert!(args["text"].as_str().unwrap().contains("another way"), "{args}");
    let good = click(FEEDBACK_ACTION_ID);
    let Action::SlackApi { args, .. } = &effects(DefaultApp.on_interaction(&good, &plain()))[0].action else { panic!("a Web API call") };
    assert_eq!((args["text"].as_str(), args.get("thread_ts")), (Some("Thanks for the feedback."), None));
}

#[test]
fn other_interactions_are_recorded_but_ignored() {
    assert_eq!(DefaultApp.on_interaction(&click("other"), &plain()), Decision::Ignore("unhandled_action"));
    let shortcut = Interaction { payload_type: "shortcut".into(), ..click(RESOLVE_ACTION_ID) };
    assert_eq!(DefaultApp.on_interaction(&shortcut, &plain()), Decision::Ignore("unhandled_interaction"));
}

#[test]
fn mentions_are_stripped_from_quotes_and_prompts() {
    assert_eq!(strip_mentions("<@U1>  hello <@U2> there "), "hello there");
    assert_eq!(strip_mentions("broken <@U1"), "broken <@U1");
}

fn llm() -> Context {
    Context { llm_enabled: true, ..Context::default() }
}

#[test]
fn with_an_llm_a_message_in_an_assistant_thread_is_streamed_under_a_status() {
    let m = Message { channel: "D1".into(), channel_type: Some("im".into()), thread_ts: Some("9.0".into()), ..message("what changed?") };
    let e = effects(DefaultApp.on_event(&envelope(Event::Message(m)), &llm()));
    assert_eq!(e.len(), 2);
    let Action::SlackApi { method, args, .. } = &e[0].action else { panic!("a status first") };
    assert_eq!((method.as_str(), args["thread_ts"].as_str(), e[0].deadline_after_ms), ("assistant.threads.setStatus", Some("9.0"), Some(STATUS_DEADLINE_MS)));
    assert_eq!(e[1].key, "msg:D1:10.1:reply", "keyed like any reply to the message");
    let Action::StreamAnswer { prompt, channel, thread_ts, recipient_user_id, recipient_team_id, .. } = &e[1].action else { panic!("a streamed answer") };
    assert_eq!((prompt.as_str(), channel.as_str(), thread_ts.as_str()), ("what changed?", "D1", "9.0"));
    assert_eq!((recipient_user_id.as_deref(), recipient_team_id.as_deref()), (Some("U1"), Some("T1")));
}

#[test]
fn without_an_llm_a_dm_in_a_thread_or_not_is_answered_with_a_post_as_before() {
    let threaded = Message { channel: "D1".into(), channel_type: Some("im".into()), thread_ts: Some("9.0".into()), ..message("hi") };
    let top = Message { channel: "D1".into(), channel_type: Some("im".into()), ..message("hi") };
    for m in [threaded, top] {
        let e = effects(DefaultApp.on_event(&envelope(Event::Message(m)), &plain()));
        assert!(matches!(&e[..], [Effect { action: Action::SlackApi { method, .. }, .. }] if method == "chat.postMessage"), "{e:?}");
    }
}

#[test]
fn with_an_llm_a_top_level_dm_is_streamed_into_the_thread_it_starts() {
    let top = Message { channel: "D1".into(), channel_type: Some("im".into()), ..message("what changed?") };
    let e = effects(DefaultApp.on_event(&envelope(Event::Message(top)), &llm()));
    let Action::SlackApi { method, args, .. } = &e[0].action else { panic!("a status first") };
    assert_eq!((method.as_str(), args["thread_ts"].as_str()), ("assistant.threads.setStatus", Some("10.1")));
    let Action::StreamAnswer { prompt, thread_ts, .. } = &e[1].action else { panic!("a streamed answer") };
    assert_eq!((prompt.as_str(), thread_ts.as_str(), e[1].key.as_str()), ("what changed?", "10.1", "msg:D1:10.1:reply"), "its own ts is the root");
}

#[test]
fn with_an_llm_a_mention_in_a_channel_still_gets_one_post() {
    let e = effects(DefaultApp.on_event(&envelope(Event::Message(message("<@UBOT> hi"))), &llm()));
    assert!(matches!(e[..], [Effect { action: Action::LlmReply { .. }, .. }]), "{e:?}");
}

fn home_opened(tab: &str) -> EventEnvelope {
    let raw = serde_json::json!({"type": "app_home_opened", "user": "U1", "channel": "D1", "tab": tab, "event_ts": "9.9"});
    EventEnvelope { raw, ..envelope(Event::Other { event_type: "app_home_opened".into() }) }
}

#[test]
fn with_an_llm_opening_the_messages_tab_pins_prompts_to_the_tab() {
    let e = effects(DefaultApp.on_event(&home_opened("messages"), &llm()));
    assert_eq!((e.len(), e[0].key.as_str()), (1, "ev:Ev1:prompts"));
    let Action::SlackApi { method, args, .. } = &e[0].action else { panic!() };
    assert_eq!((method.as_str(), args["channel_id"].as_str()), ("assistant.threads.setSuggestedPrompts", Some("D1")));
    assert!(args.get("thread_ts").is_none(), "the tab's prompts take no thread: {args}");
    assert_eq!(args["prompts"].as_array().map(Vec::len), Some(2));
}

#[test]
fn the_home_tab_or_no_llm_leaves_an_opened_dm_alone() {
    assert_eq!(DefaultApp.on_event(&home_opened("home"), &llm()), Decision::Ignore("not_the_messages_tab"));
    assert_eq!(DefaultApp.on_event(&home_opened("messages"), &plain()), Decision::Ignore("unhandled_event_type"));
    let broken = EventEnvelope { raw: serde_json::json!({"type": "app_home_opened", "tab": "messages"}), ..home_opened("messages") };
    assert_eq!(DefaultApp.on_event(&broken, &llm()), Decision::Ignore("malformed_agent_dm"));
}

#[test]
fn a_new_assistant_thread_gets_suggested_prompts() {
    let raw =
        serde_json::json!({"type": "assistant_thread_started", "assistant_thread": {"user_id": "U1", "channel_id": "D1", "thread_ts": "9.0", "context": {}}});
    let env = EventEnvelope { raw, ..envelope(Event::Other { event_type: "assistant_thread_started".into() }) };
    let e = effects(DefaultApp.on_event(&env, &plain()));
    let Action::SlackApi { method, args, .. } = &e[0].action else { panic!() };
    assert_eq!((method.as_str(), args["prompts"].as_array().map(Vec::len)), ("assistant.threads.setSuggestedPrompts", Some(2)));
}
