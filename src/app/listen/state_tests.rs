//! The listener API and the team's state: what a handler hands over to the unit.

use super::*;
use crate::kinds::registry::Action;
use crate::state::{StateWrite, MAX_VALUE_BYTES};
use crate::testing::{event, mention, message, view_submission, Team};
use serde_json::json;

/// Counts votes per message (the message's fact), on mentions and on plain messages alike.
fn voter() -> Listeners {
    let vote = |m: &MessageIn<'_>, cx: &mut Cx| -> HandlerResult {
        cx.state().update::<u32>(&format!("votes:{}", m.message.ts), |n| Some(n.unwrap_or(0) + 1))?;
        Ok(())
    };
    Listeners::new()
        .mention(vote)
        .message(Pattern::contains("+1"), vote)
        .command("/fail", |_, cx| {
            cx.state().put("half", &1)?;
            Err("nope".into())
        })
        .command("/big", |_, cx| {
            cx.state().put("small", &1)?;
            cx.state().put("big", &"x".repeat(MAX_VALUE_BYTES))?;
            Ok(())
        })
        .view_submission("form", |_, cx| {
            cx.state().put("draft", &1)?;
            cx.ack_errors(&[("title", "Say something")]);
            Ok(())
        })
}

#[test]
fn a_handler_s_writes_are_handed_over_with_its_effects() {
    let team = Team::new();
    let done = team.handle(&voter(), &mention("C1", "U1", "<@UBOT> +1"));
    assert_eq!(done.state.len(), 1);
    let StateWrite::Put { key, value } = &done.state[0] else { panic!("a put") };
    assert!(key.starts_with("votes:"));
    assert_eq!(value, "1");
}

#[test]
fn the_message_and_the_mention_of_one_post_count_once() {
    let team = Team::new();
    let mentioned = mention("C1", "U1", "<@UBOT> +1");
    let crate::slack::envelope::Dispatch::Event(e) = &mentioned else { panic!() };
    let ts = e.raw["ts"].as_str().unwrap().to_string();
    let same_post = event(json!({"type": "message", "channel_type": "channel", "channel": "C1", "user": "U1", "text": "<@UBOT> +1", "ts": ts, "event_ts": ts}));
    team.handle(&voter(), &mentioned);
    let second = team.handle(&voter(), &same_post);
    assert!(second.state.is_empty(), "the same fact changes the state once");
    assert_eq!(team.state.value(&format!("votes:{ts}")), Some(json!(1)));
    team.handle(&voter(), &message("C1", "U2", "+1"));
    assert_eq!(team.state.entries().len(), 2, "another post is another fact");
}

#[test]
fn a_failed_handler_hands_over_no_state() {
    let team = Team::new();
    let done = team.handle(&voter(), &crate::testing::command("/fail", ""));
    assert_eq!(done.failed.as_deref(), Some("nope"));
    assert!(done.state.is_empty());
    assert!(team.state.entries().is_empty());
}

#[test]
fn a_value_over_the_limit_fails_the_handler_with_a_clear_error_and_writes_nothing() {
    let team = Team::new();
    let done = team.handle(&voter(), &crate::testing::command("/big", ""));
    let why = done.failed.expect("the handler's `?` fails it");
    assert!(why.contains("\"big\"") && why.contains("at most 65536"), "{why}");
    assert!(team.state.entries().is_empty(), "the put before it is not kept either");
}

#[test]
fn a_refused_submission_writes_no_state() {
    let team = Team::new();
    let done = team.handle(&voter(), &view_submission("form", json!({})));
    assert_eq!(done.ack.unwrap()["response_action"], "errors");
    assert!(done.state.is_empty() && team.state.entries().is_empty());
}

#[test]
fn remember_marks_a_web_api_call_and_a_bad_key_fails_the_handler() {
    let app = Listeners::new()
        .command("/post", |_, cx| {
            cx.say("C9", "posted").remember("incident:42:post");
            Ok(())
        })
        .command("/bad", |_, cx| {
            cx.say("C9", "posted").remember("");
            Ok(())
        });
    let done = crate::testing::handle(&app, &crate::testing::command("/post", ""));
    let Action::SlackApi { remember, .. } = &done.rows[0].action else { panic!("a Web API call") };
    assert_eq!(remember.as_deref(), Some("incident:42:post"));
    let bad = crate::testing::handle(&app, &crate::testing::command("/bad", ""));
    assert!(bad.failed.unwrap().starts_with("remember:"));
}

#[test]
fn in_thread_of_marks_a_post_even_a_scheduled_one_and_refuses_what_is_not_a_post() {
    let app = Listeners::new()
        .command("/remind", |_, cx| {
            cx.schedule("incident:42:remind", crate::kinds::schedule::When::after(60_000)).say("C9", "still open").in_thread_of("post:42");
            Ok(())
        })
        .command("/update", |_, cx| {
            cx.update("C9", "1.1", json!({"text": "x"})).in_thread_of("post:42");
            Ok(())
        })
        .command("/respond", |_, cx| {
            if let Some(r) = cx.respond(json!({"text": "x"})) {
                r.in_thread_of("post:42");
            }
            Ok(())
        });
    let done = crate::testing::handle(&app, &crate::testing::command("/remind", ""));
    assert!(done.failed.is_none(), "{:?}", done.failed);
    let Action::SlackApi { thread_of, args, .. } = done.rows[0].action.performed() else { panic!("a scheduled post") };
    assert_eq!(thread_of.as_deref(), Some("post:42"));
    assert!(args.get("thread_ts").is_none(), "the thread is not known yet: read when the row is performed");
    let update = crate::testing::handle(&app, &crate::testing::command("/update", ""));
    assert!(update.failed.unwrap().contains("chat.update posts no message"));
    let respond = crate::testing::handle(&app, &crate::testing::command("/respond", ""));
    assert!(respond.failed.unwrap().starts_with("in_thread_of(\"post:42\"): only a Slack message post"));
}

#[test]
fn list_record_queues_a_put_of_the_fields_on_the_lists_serial_target_and_a_bad_id_fails_the_handler() {
    let app = Listeners::new()
        .command("/mirror", |_, cx| {
            cx.list_record("FLIST1", "ix:1.2", json!({"title": "t", "status": "open"}));
            Ok(())
        })
        .command("/bad", |_, cx| {
            cx.list_record("not-a-list", "r", json!({}));
            Ok(())
        });
    let done = crate::testing::handle(&app, &crate::testing::command("/mirror", ""));
    let effect = &done.rows[0];
    let Action::Lists { list_id, job: crate::kinds::lists::api::ListJob::Put { record_id, fields } } = &effect.action else { panic!("a List put: {effect:?}") };
    assert_eq!((list_id.as_str(), record_id.as_str(), fields.as_str()), ("FLIST1", "ix:1.2", r#"{"status":"open","title":"t"}"#), "canonical JSON");
    assert!(effect.key.ends_with(":list:ix:1.2"), "{}", effect.key);
    assert_eq!((effect.action.target(), effect.action.label()), ("slackLists:FLIST1".to_string(), "lists"), "serial with the List's other jobs");
    assert!(crate::testing::handle(&app, &crate::testing::command("/bad", "")).failed.unwrap().starts_with("list_record("));
}
