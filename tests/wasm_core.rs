//! The pure core, compiled to wasm32 and run under Node by wasm-bindgen-test: the same code the
//! Worker runs, checked on the target it runs on (hashing, JSON, form parsing, float jitter, the
//! time zone database compiled in).
#![cfg(target_arch = "wasm32")]

use slackline::internal::app::{decide, Context, Decision, DefaultApp};
use slackline::internal::kinds::schedule::{Calendar, Days, Zone};
use slackline::internal::outbox::{after_attempt, retry::RetryPolicy, Attempted, Transition, WaitCause};
use slackline::internal::slack::classify::classify_web_api;
use slackline::internal::slack::envelope::{parse_command_form, parse_events_body, Inbound};
use slackline::internal::slack::signature::{verify, SigningSecret};
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn the_documented_signature_verifies_in_wasm() {
    let secret = SigningSecret::parse(Some("8f742231b10e8888abcd99yyyzzz85a5".into())).unwrap();
    let body = b"token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
    let sig = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";
    assert_eq!(verify(&secret, Some("1531420618"), Some(sig), body, 1531420618), Ok(()));
    assert!(verify(&secret, Some("1531420618"), Some(sig), body, 1531420618 + 301).is_err());
    assert!(matches!(parse_command_form(body).unwrap(), Inbound::Dispatch(_)));
}

#[wasm_bindgen_test]
fn a_mention_parses_and_decides_one_reply_in_wasm() {
    let body = br#"{"type":"event_callback","team_id":"T1","event_id":"Ev1","authorizations":[{"team_id":"T1","user_id":"UB","is_bot":true}],"event":{"type":"app_mention","channel":"C1","user":"U1","text":"<@UB> hi","ts":"1.1"}}"#;
    let Inbound::Dispatch(d) = parse_events_body(body).unwrap() else { panic!("not dispatched") };
    let decision = decide(&DefaultApp, &d, &Context::default()).decision;
    let Decision::Enqueue(effects) = decision else { panic!("ignored") };
    assert_eq!(effects.len(), 1);
    assert_eq!(effects[0].key, "msg:C1:1.1:reply");
}

#[wasm_bindgen_test]
fn retry_decisions_match_native_in_wasm() {
    let verdict = classify_web_api(429, Some("2"), &serde_json::json!({"ok": false, "error": "ratelimited"}));
    let row = Attempted { attempts: 1, max_attempts: 6, deadline_at: None };
    assert_eq!(after_attempt(&RetryPolicy::default(), &row, &verdict, 1_000, 0.7), Transition::Wait { at: 3_000, cause: WaitCause::RateLimited });
}

#[wasm_bindgen_test]
fn the_time_zone_database_is_in_the_bundle_in_wasm() {
    // 2026-03-29 01:00 UTC: Berlin's clocks move to summer time; no filesystem to read it from.
    let t = 1_774_746_000_000;
    assert_eq!(Zone::named("Asia/Kathmandu").unwrap().local(t).to_string(), "2026-03-29 06:45:00 +05:45");
    assert_eq!(Zone::named("US/Eastern").unwrap().local(t).to_string(), "2026-03-28 21:00:00 -04:00");
    assert!(Zone::named("Mars/Olympus").is_err());
    let half_two = Calendar::at(2, 30, Days::EVERY_DAY, "Europe/Berlin").unwrap();
    assert_eq!(half_two.next_after(t - 3_600_000), Some(t), "02:30 skipped: at the change");
}
