//! Result listeners (`.then(name, &data)`, `.on_result(name, …)`) through the test kit: what a
//! handler queues, what the listener gets and does, and the misuses caught before anything is
//! recorded.

use crate::prelude::*;
use crate::testing::{handle, mention, Team};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Serialize, Deserialize)]
struct Asker {
    channel: String,
    user: String,
}

/// Looks the asker up (`users.info`) and answers with their time zone, or says why it could not.
fn tz_bot() -> Listeners {
    Listeners::new()
        .mention(|m, cx| {
            let user = m.message.user.clone().unwrap_or_default();
            let asker = Asker { channel: m.message.channel.clone(), user: user.clone() };
            cx.api("users.info", json!({ "user": user })).then("tz_known", &asker);
            Ok(())
        })
        .on_result("tz_known", |answered, cx| {
            let asker: Asker = answered.data()?;
            let text = match (answered.answer(), answered.failure()) {
                (Some(answer), _) => format!("<@{}> is on {}", asker.user, answer["user"]["tz"].as_str().unwrap_or("?")),
                (_, Some(failure)) => format!("could not look <@{}> up: {}", asker.user, failure.error.as_deref().unwrap_or(&failure.reason)),
                _ => unreachable!("an effect ends answered or failed"),
            };
            cx.say(&asker.channel, &text);
            cx.state().update::<u32>("lookups", |n| Some(n.unwrap_or(0) + 1))?;
            Ok(())
        })
}

#[test]
fn the_listener_gets_slacks_answer_and_the_handlers_data_and_acts_on_them() {
    let team = Team::new();
    let asked = team.handle(&tz_bot(), &mention("C1", "U7", "<@UBOT> what time is it for me?"));
    let lookup = &asked.effects[0];
    assert_eq!((lookup.method.as_str(), lookup.args["user"].as_str(), lookup.then.as_deref()), ("users.info", Some("U7"), Some("tz_known")));
    let answered = team.answer(&tz_bot(), lookup, json!({ "ok": true, "user": { "id": "U7", "tz": "Asia/Kathmandu" } }));
    let (method, args) = &answered.calls()[0];
    assert_eq!((method.as_str(), args["channel"].as_str(), args["text"].as_str()), ("chat.postMessage", Some("C1"), Some("<@U7> is on Asia/Kathmandu")));
    assert!(answered.keys()[0].starts_with(&format!("answer:{}", lookup.key)), "keyed by the effect: {:?}", answered.keys());
    assert_eq!(team.value("lookups"), Some(json!(1)));
}

#[test]
fn the_listener_gets_the_failure_that_parked_the_effect() {
    let team = Team::new();
    let asked = team.handle(&tz_bot(), &mention("C1", "U7", "<@UBOT> tz?"));
    let failed = team.fail(&tz_bot(), &asked.effects[0], "user_not_found");
    assert_eq!(failed.calls()[0].1["text"], "could not look <@U7> up: user_not_found");
}

#[test]
fn what_the_listener_writes_is_applied_once_per_effect() {
    let team = Team::new();
    let asked = team.handle(&tz_bot(), &mention("C1", "U7", "<@UBOT> tz?"));
    let answer = json!({ "ok": true, "user": { "tz": "Europe/Paris" } });
    team.answer(&tz_bot(), &asked.effects[0], answer.clone());
    let again = team.answer(&tz_bot(), &asked.effects[0], answer);
    assert_eq!(team.value("lookups"), Some(json!(1)), "the same effect's end, twice: one change");
    assert!(again.state_writes().is_empty());
}

#[test]
fn a_then_naming_no_listener_fails_the_handler_before_anything_is_recorded() {
    let app = Listeners::new().mention(|_, cx| {
        cx.api("users.info", json!({ "user": "U1" })).then("nobody_listens", &());
        Ok(())
    });
    let done = handle(&app, &mention("C1", "U1", "<@UBOT> hi"));
    assert!(done.effects.is_empty());
    let why = done.failed.expect("the handler fails");
    assert!(why.contains("nobody_listens") && why.contains("on_result"), "{why}");
}

#[test]
fn an_effect_names_one_result_listener() {
    let app = Listeners::new()
        .mention(|_, cx| {
            cx.api("users.info", json!({ "user": "U1" })).then("a", &()).then("b", &());
            Ok(())
        })
        .on_result("a", |_, _| Ok(()))
        .on_result("b", |_, _| Ok(()));
    let why = handle(&app, &mention("C1", "U1", "<@UBOT> hi")).failed.expect("a misuse");
    assert!(why.contains("already names a result listener"), "{why}");
}

#[test]
fn a_listener_whose_data_does_not_read_fails_in_words() {
    let app = Listeners::new()
        .mention(|_, cx| {
            cx.react("eyes").then("counted", &"not a number");
            Ok(())
        })
        .on_result("counted", |answered, _| {
            let _: u32 = answered.data()?;
            Ok(())
        });
    let team = Team::new();
    let asked = team.handle(&app, &mention("C1", "U1", "<@UBOT> hi"));
    let failed = team.answer(&app, &asked.effects[0], json!({ "ok": true }));
    assert!(failed.failed.as_deref().is_some_and(|w| w.contains("does not read")), "{failed:?}");
}
