use super::*;
use crate::kinds::registry::Action;
use crate::slack::envelope::Dispatch;
use crate::testing::{self, action, command, event, handle, mention, message, message_shortcut, options, shortcut, view_submission};
use serde_json::json;

fn greeter() -> Listeners {
    Listeners::new()
        .mention(|m, cx| {
            cx.reply(&format!("Hi <@{}>: {}", m.message.user.as_deref().unwrap_or("?"), m.words()));
            Ok(())
        })
        .message(Pattern::contains("deploy"), |_, cx| {
            cx.react("rocket");
            Ok(())
        })
        .command("/status", |c, cx| {
            cx.ack_ephemeral("Checking…");
            cx.respond(json!({ "text": format!("status of {}: green", c.text) }));
            Ok(())
        })
}

#[test]
fn a_mention_gets_a_threaded_reply_keyed_by_the_message() {
    let d = mention("C1", "U1", "<@UBOT> hello there");
    let done = handle(&greeter(), &d);
    let Dispatch::Event(e) = &d else { panic!() };
    let ts = e.raw["ts"].as_str().unwrap();
    assert_eq!(done.keys(), vec![format!("msg:C1:{ts}:reply").as_str()]);
    let (method, args) = &done.calls()[0];
    assert_eq!(method, "chat.postMessage");
    assert_eq!(args, &json!({"channel": "C1", "thread_ts": ts, "text": "Hi <@U1>: hello there"}));
    assert_eq!(done.rows[0].deadline_after_ms, Some(cx::MESSAGE_DEADLINE_MS));
}

#[test]
fn a_message_listener_takes_matching_messages_people_write_and_the_first_match_wins() {
    let done = handle(&greeter(), &message("C1", "U1", "we DEPLOY at noon"));
    let (method, args) = &done.calls()[0];
    assert_eq!((method.as_str(), args["name"].as_str()), ("reactions.add", Some("rocket")));
    assert!(done.keys()[0].ends_with(":react:rocket"));
    assert_eq!(handle(&greeter(), &message("C1", "U1", "lunch?")).ignored, Some("no_listener"));
    let edited = event(json!({"type": "message", "subtype": "message_changed", "channel": "C1", "ts": "1.1", "message": {"text": "deploy", "ts": "1.0"}}));
    assert_eq!(handle(&greeter(), &edited).ignored, Some("no_listener"), "an edit is not a message people wrote just now");
}

#[test]
fn bot_messages_reach_no_listener_unless_it_opts_in() {
    let from_bot = event(json!({"type": "message", "channel": "C1", "bot_id": "B9", "text": "deploy", "ts": "2.1"}));
    let from_us = event(json!({"type": "message", "channel": "C1", "user": testing::BOT_USER, "text": "deploy", "ts": "2.2"}));
    for d in [&from_bot, &from_us] {
        assert_eq!(handle(&greeter(), d).ignored, Some("bot_message"));
    }
    let open = Listeners::new()
        .message(Pattern::any(), |_, cx| {
            cx.react("robot_face");
            Ok(())
        })
        .including_bots();
    assert_eq!(handle(&open, &from_bot).rows.len(), 1);
}

#[test]
fn any_event_type_is_reachable_with_its_raw_json_and_typed_payloads() {
    let app = Listeners::new()
        .event("reaction_added", |e, cx| {
            let r: ReactionEvent = e.parse()?;
            if r.reaction == "eyes" {
                cx.reply(&format!("<@{}> is looking", r.user));
            }
            Ok(())
        })
        .event("message_changed", |e, cx| {
            let changed: MessageChanged = e.parse()?;
            cx.say(&changed.channel, "edited");
            Ok(())
        })
        .event("team_join", |e, cx| {
            cx.say("CGENERAL", &format!("Welcome {}", e.raw["user"]["id"].as_str().unwrap_or("?")));
            Ok(())
        });
    let reaction = event(
        json!({"type": "reaction_added", "user": "U7", "reaction": "eyes", "item": {"type": "message", "channel": "C3", "ts": "5.5"}, "event_ts": "5.6"}),
    );
    let done = handle(&app, &reaction);
    let (_, args) = &done.calls()[0];
    assert_eq!((args["channel"].as_str(), args["thread_ts"].as_str()), (Some("C3"), Some("5.5")), "a reply goes to the reacted message's thread");
    assert!(done.keys()[0].starts_with("ev:Ev"), "keyed by the event");
    let edit = event(json!({"type": "message", "subtype": "message_changed", "channel": "C1", "ts": "1.1", "message": {"text": "x", "ts": "1.0"}}));
    assert_eq!(handle(&app, &edit).calls()[0].1["text"], "edited", "a subtype's name matches its message event");
    let join = event(json!({"type": "team_join", "user": {"id": "U8"}}));
    assert_eq!(handle(&app, &join).calls()[0].1["text"], "Welcome U8");
}

#[test]
fn a_payload_that_is_not_the_typed_shape_fails_the_handler_and_is_not_lost() {
    let app = Listeners::new().event("reaction_added", |e, _| e.parse::<ReactionEvent>().map(|_| ()).map_err(HandlerError));
    let done = handle(&app, &event(json!({"type": "reaction_added", "user": "U1"})));
    assert!(done.failed.as_deref().is_some_and(|why| why.contains("reaction_added")), "{done:?}");
}

#[test]
fn a_command_answers_at_once_and_later_through_its_response_url() {
    let d = command("/status", "api");
    let done = handle(&greeter(), &d);
    assert_eq!(done.ack, Some(json!({"response_type": "ephemeral", "text": "Checking…"})));
    let Action::RespondUrl { url, body } = &done.rows[0].action else { panic!("{:?}", done.rows) };
    assert!(url.starts_with("https://hooks.slack.test/commands/"));
    assert_eq!(body["text"], "status of api: green");
    assert!(done.keys()[0].starts_with("cmd:trig.") && done.keys()[0].ends_with(":respond"));
    assert_eq!(handle(&greeter(), &command("/other", "")).ignored, Some("no_listener"));
}

#[test]
fn two_helpers_of_one_name_never_collide_and_a_name_makes_a_key() {
    let app = Listeners::new().mention(|_, cx| {
        cx.reply("one");
        cx.reply("two");
        cx.say("C9", "elsewhere").named("audit");
        Ok(())
    });
    let done = handle(&app, &mention("C1", "U1", "<@UBOT> x"));
    let keys = done.keys();
    assert!(keys[0].ends_with(":reply") && keys[1].ends_with(":reply#2") && keys[2].ends_with(":audit"), "{keys:?}");
    let same_post_again = handle(&app, &mention("C1", "U1", "<@UBOT> x"));
    assert_ne!(same_post_again.keys()[0], keys[0], "another post is another fact");
}

#[test]
fn actions_match_by_action_id_or_block_and_action_id() {
    let app = Listeners::new()
        .action(("other_block", "approve"), |_, cx| {
            cx.reply("wrong block");
            Ok(())
        })
        .action("approve", |a, cx| {
            let (channel, ts) = (a.interaction.channel_id.clone().unwrap(), a.interaction.message_ts.clone().unwrap());
            cx.update(&channel, &ts, json!({ "text": format!("approved ({})", a.action.value.as_deref().unwrap_or("")) }));
            cx.open_modal(json!({"type": "modal", "callback_id": "why", "title": {"type": "plain_text", "text": "Why?"}, "blocks": []}));
            Ok(())
        });
    let done = handle(&app, &action("approve", "v1"));
    let calls = done.calls();
    assert_eq!(calls[0].0, "chat.update");
    assert_eq!(calls[0].1["text"], "approved (v1)");
    assert_eq!(calls[1].0, "views.open");
    assert!(calls[1].1["trigger_id"].as_str().is_some_and(|t| t.starts_with("trig.")));
    assert_eq!(done.rows[1].deadline_after_ms, Some(cx::TRIGGER_DEADLINE_MS), "a trigger_id lives 3 s");
}

#[test]
fn a_submission_with_a_bad_field_answers_the_errors_and_records_nothing_else() {
    let app = Listeners::new().view_submission("deploy", |v, cx| {
        match v.value("env", "env_input") {
            Some("prod" | "staging") => {
                cx.say("COPS", &format!("deploying to {}", v.value("env", "env_input").unwrap_or_default()));
            }
            _ => {
                cx.say("COPS", "never sent");
                cx.ack_errors(&[("env", "prod or staging")]);
            }
        }
        Ok(())
    });
    let bad = handle(&app, &view_submission("deploy", json!({"env": {"env_input": {"type": "plain_text_input", "value": "moon"}}})));
    assert_eq!(bad.ack, Some(json!({"response_action": "errors", "errors": {"env": "prod or staging"}})));
    assert!(bad.rows.is_empty(), "a refused submission queues nothing");
    let good = handle(&app, &view_submission("deploy", json!({"env": {"env_input": {"type": "plain_text_input", "value": "prod"}}})));
    assert_eq!((good.ack.clone(), good.calls()[0].1["text"].as_str()), (None, Some("deploying to prod")));
    assert_eq!(handle(&app, &view_submission("other", json!({}))).ignored, Some("no_listener"));
}

#[test]
fn options_and_shortcuts_have_their_listeners() {
    let app = Listeners::new()
        .options("assignee", |o, cx| {
            let q = o.query().to_string();
            cx.ack_options(&[("U1", &format!("{q}-one")), ("U2", &format!("{q}-two"))]);
            Ok(())
        })
        .shortcut("triage", |s, cx| {
            match s.message() {
                Some(m) => cx.respond(json!({ "text": format!("triaging {}", m["ts"].as_str().unwrap_or("")) })).map(|_| ()),
                None => Some(cx.open_modal(json!({"type": "modal", "title": {"type": "plain_text", "text": "Triage"}, "blocks": []})).effect().key.clone())
                    .map(|_| ()),
            };
            Ok(())
        });
    let picked = handle(&app, &options("assignee", "an"));
    assert_eq!(picked.ack.unwrap()["options"][1], json!({"text": {"type": "plain_text", "text": "an-two"}, "value": "U2"}));
    let global = handle(&app, &shortcut("triage"));
    assert_eq!(global.calls()[0].0, "views.open");
    let on_message = handle(&app, &message_shortcut("triage"));
    let Action::RespondUrl { body, .. } = &on_message.rows[0].action else { panic!() };
    assert!(body["text"].as_str().unwrap().starts_with("triaging 1700000000."));
}

#[test]
fn the_llm_reply_goes_where_a_reply_goes() {
    let app = Listeners::new()
        .mention(|m, cx| {
            cx.llm_reply(&m.words());
            Ok(())
        })
        .command("/ask", |c, cx| {
            cx.llm_reply(&c.text);
            Ok(())
        });
    let in_thread = handle(&app, &mention("C1", "U1", "<@UBOT> summarise"));
    let Action::LlmReply { prompt, then } = &in_thread.rows[0].action else { panic!() };
    assert_eq!(prompt, "summarise");
    assert!(matches!(then, crate::kinds::registry::Followup::Thread { channel, .. } if channel == "C1"));
    let by_url = handle(&app, &command("/ask", "why"));
    let Action::LlmReply { then, .. } = &by_url.rows[0].action else { panic!() };
    assert!(matches!(then, crate::kinds::registry::Followup::ResponseUrl { .. }));
}

#[test]
fn a_regex_listener_takes_what_its_expression_matches_and_hands_over_the_captures() {
    let app = Listeners::new().message(Pattern::regex(r"^deploy (\w+)(?: to (\w+))?$").unwrap(), |m, cx| {
        cx.reply(&format!("deploying {} to {}", m.matches[1], if m.matches[2].is_empty() { "staging" } else { &m.matches[2] }));
        Ok(())
    });
    let done = handle(&app, &message("C1", "U1", "deploy api to prod"));
    assert_eq!(done.calls()[0].1["text"], "deploying api to prod");
    assert_eq!(handle(&app, &message("C1", "U1", "deploy web")).calls()[0].1["text"], "deploying web to staging", "an unmatched group is empty");
    assert_eq!(handle(&app, &message("C1", "U1", "please deploy api")).ignored, Some("no_listener"), "anchored as written");
    assert_eq!(handle(&app, &message("C1", "U1", "Deploy api")).ignored, Some("no_listener"), "case-sensitive unless (?i)");
    assert!(Pattern::regex("(?i)^deploy").unwrap().matches("DEPLOY now"));
}

#[test]
fn a_bad_expression_is_refused_when_the_app_is_built() {
    let why = Pattern::regex("deploy (").unwrap_err();
    assert!(why.starts_with("bad message pattern \"deploy (\""), "{why}");
    assert_eq!(Pattern::regex("a+").unwrap(), Pattern::regex("a+").unwrap());
    assert_eq!(Pattern::contains("x").captures("no"), None);
    assert_eq!(Pattern::contains("x").captures("xx"), Some(vec![]));
}

fn reminder() -> Listeners {
    Listeners::new()
        .command("/remind", |c, cx| {
            cx.schedule(&format!("remind:{}", c.text), When::after(30 * MINUTE_MS))
                .say("C1", "still open")
                .blocks(json!([{"type": "divider"}]))
                .named("ignored");
            cx.say("C1", "noted");
            Ok(())
        })
        .command("/done", |c, cx| {
            cx.cancel(&format!("remind:{}", c.text));
            Ok(())
        })
}

#[test]
fn a_scheduled_helper_queues_its_effect_under_the_schedules_key_and_the_next_helper_is_immediate() {
    let d = command("/remind", "42");
    let done = handle(&reminder(), &d);
    let Dispatch::Command(c) = &d else { panic!() };
    assert_eq!(done.keys()[0], crate::kinds::schedule::row_key("remind:42", &format!("cmd:{}", c.trigger_id)), "the key is the schedule's, `named` left it");
    let Action::Scheduled { key, when, effect, .. } = &done.rows[0].action else { panic!("scheduled: {:?}", done.rows[0]) };
    assert_eq!((key.as_str(), *when), ("remind:42", When::after(30 * MINUTE_MS)));
    let Action::SlackApi { method, args, .. } = effect.as_ref() else { panic!("a post") };
    assert_eq!((method.as_str(), &args["text"], &args["blocks"][0]["type"]), ("chat.postMessage", &json!("still open"), &json!("divider")));
    assert_eq!(done.rows[0].deadline_after_ms, Some(cx::MESSAGE_DEADLINE_MS), "the helper's deadline, counted from the due time");
    assert!(matches!(done.rows[1].action, Action::SlackApi { .. }), "only the next helper is scheduled");
    assert_eq!(done.calls().len(), 1, "calls() lists what happens now");
}

#[test]
fn a_cancel_is_queued_in_order_as_an_effect_the_unit_applies() {
    let done = handle(&reminder(), &command("/done", "42"));
    assert_eq!(done.rows.len(), 1);
    assert_eq!(done.rows[0].action, Action::CancelSchedule { key: "remind:42".into() });
}

#[test]
fn a_schedule_left_unused_schedules_nothing() {
    let app = Listeners::new().command("/x", |_, cx| {
        let _ = cx.schedule("k", When::after(1));
        cx.say("C1", "now");
        Ok(())
    });
    let done = handle(&app, &command("/x", ""));
    assert!(matches!(done.rows[0].action, Action::SlackApi { .. }));
}

mod firings {
    use crate::app::{fire, Context, Decision, Fired};
    use crate::kinds::registry::Action;
    use crate::prelude::*;
    use crate::testing::{command, handle};

    fn app() -> Listeners {
        Listeners::new()
            .command("/later", |_, cx| {
                cx.schedule("digest:C1", When::daily_at(9, 0, "Europe/Paris")?).run();
                Ok(())
            })
            .on_schedule("digest:C1", |f, cx| {
                cx.say("C1", &format!("exact {} at {}", f.due_at, cx.now()));
                Ok(())
            })
            .on_schedule("digest:*", |_, cx| {
                cx.say("C2", "by prefix");
                Ok(())
            })
    }

    #[test]
    fn run_queues_a_firing_under_the_schedules_key() {
        let done = handle(&app(), &command("/later", ""));
        let effect = &done.rows[0];
        assert!(effect.key.starts_with("sched:digest:C1|cmd:"), "{}", effect.key);
        let Action::Scheduled { key, effect, .. } = &effect.action else { panic!("{effect:?}") };
        assert_eq!((key.as_str(), effect.as_ref()), ("digest:C1", &Action::Fire));
        assert_eq!(done.queued()[0].method, "run");
    }

    #[test]
    fn a_firing_goes_to_the_first_listener_whose_key_or_prefix_matches_with_the_clock_of_then() {
        let ctx = Context::default().at(7_000);
        let exact = fire(&app(), &Fired { key: "digest:C1".into(), due_at: 5_000 }, &ctx);
        let Decision::Enqueue(effects) = &exact.decision else { panic!("{exact:?}") };
        assert_eq!(effects[0].key, "fire:digest:C1@5000:say");
        assert_eq!(effects[0].action, Action::slack_api("chat.postMessage", serde_json::json!({"channel": "C1", "text": "exact 5000 at 7000"})));
        let prefix = fire(&app(), &Fired { key: "digest:C9".into(), due_at: 5_000 }, &ctx);
        let Decision::Enqueue(effects) = &prefix.decision else { panic!("{prefix:?}") };
        assert_eq!(effects[0].key, "fire:digest:C9@5000:say");
        let none = fire(&app(), &Fired { key: "other".into(), due_at: 5_000 }, &ctx);
        assert_eq!(none.decision, Decision::Ignore("no_listener"));
        let bad_zone = Listeners::new().command("/x", |_, cx| {
            cx.schedule("k", When::daily_at(9, 0, "Nowhere/City")?).run();
            Ok(())
        });
        let failed = handle(&bad_zone, &command("/x", "")).failed.unwrap_or_default();
        assert!(failed.contains("Nowhere/City"), "{failed}");
    }
}
