//! The ingest's wire across releases (`src/wire.rs`): what this release's front door sends a team
//! actor, kept as fixtures per wire version (`tests/fixtures/wire/v{N}/`).
//!
//! - **One release back reads us:** the JSON this release writes for each kind of Slack request is
//!   the fixture of its wire version, byte for byte as a value. A change to it fails here: keep
//!   the old shape (add, never rename or retype), or give the wire a new version and make the
//!   actor read both.
//! - **We read every release before us:** the fixture of every version so far parses with
//!   `Dispatch::from_wire` into the same dispatch.
//!
//! `WIRE_FIXTURES=write cargo test --test wire_fixtures` writes the current version's fixtures.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::{json, Value};
use slackline::internal::slack::envelope::{parse_command_form, parse_events_body, parse_interaction_form, Dispatch, Inbound};
use slackline::internal::wire::VERSION;
use std::path::PathBuf;

fn dir(version: u32) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/wire/v{version}"))
}

fn dispatch(inbound: Inbound) -> Dispatch {
    match inbound {
        Inbound::Dispatch(d) => d,
        other => panic!("not a dispatch: {other:?}"),
    }
}

fn form(fields: &[(&str, &str)]) -> Vec<u8> {
    form_urlencoded::Serializer::new(String::new()).extend_pairs(fields).finish().into_bytes()
}

/// One Slack request of each kind the front door forwards, parsed as this release parses it.
fn requests() -> Vec<(&'static str, Dispatch)> {
    let event = |inner: Value| {
        json!({"type": "event_callback", "team_id": "T1", "event_id": "Ev1", "event_time": 1_700_000_000,
               "authorizations": [{"team_id": "T1", "user_id": "UBOT", "is_bot": true}], "event": inner})
    };
    let events = |inner: Value| dispatch(parse_events_body(event(inner).to_string().as_bytes()).unwrap());
    let payload = json!({"type": "block_actions", "team": {"id": "T1"}, "user": {"id": "U1"}, "trigger_id": "13.1.abc",
        "channel": {"id": "C1"}, "message": {"ts": "1.2"}, "response_url": "https://hooks.slack.test/actions/1",
        "actions": [{"action_id": "resolve", "block_id": "b", "value": "v"}]});
    vec![
        ("event_app_mention", events(json!({"type": "app_mention", "channel": "C1", "user": "U1", "text": "<@UBOT> hi", "ts": "1.1"}))),
        (
            "event_message_in_thread",
            events(json!({"type": "message", "channel": "D1", "channel_type": "im", "user": "U1", "text": "hi", "ts": "1.3", "thread_ts": "1.1"})),
        ),
        ("event_app_uninstalled", events(json!({"type": "app_uninstalled"}))),
        ("event_tokens_revoked", events(json!({"type": "tokens_revoked", "tokens": {"bot": ["UBOT"], "oauth": []}}))),
        (
            "event_agent_session_stopped",
            events(json!({"type": "agent_session_stopped", "channel": "D1", "thread_ts": "1.1", "streaming_message_ts": ["1.2"], "user": "U1"})),
        ),
        ("event_other", events(json!({"type": "reaction_added", "user": "U1", "reaction": "eyes", "item": {"type": "message", "channel": "C1", "ts": "1.1"}}))),
        (
            "command",
            dispatch(
                parse_command_form(&form(&[
                    ("team_id", "T1"),
                    ("trigger_id", "13.2.def"),
                    ("command", "/ask"),
                    ("text", "why"),
                    ("response_url", "https://hooks.slack.test/commands/2"),
                    ("user_id", "U1"),
                    ("channel_id", "C1"),
                ]))
                .unwrap(),
            ),
        ),
        ("interaction_block_actions", dispatch(parse_interaction_form(&form(&[("payload", &payload.to_string())])).unwrap())),
    ]
}

#[test]
fn this_release_sends_what_its_wire_version_says() {
    let write = std::env::var("WIRE_FIXTURES").is_ok_and(|v| v == "write");
    for (name, d) in requests() {
        let path = dir(VERSION).join(format!("{name}.json"));
        let sent = serde_json::to_value(&d).unwrap();
        if write {
            std::fs::create_dir_all(dir(VERSION)).unwrap();
            std::fs::write(&path, serde_json::to_string_pretty(&sent).unwrap() + "\n").unwrap();
        }
        let fixture: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap();
        assert_eq!(sent, fixture, "{name}: this release's ingest body differs from wire v{VERSION}'s (see this file's docs)");
    }
}

#[test]
fn this_release_reads_every_earlier_wire_version() {
    let expected: Vec<(&str, Dispatch)> = requests();
    for version in 1..=VERSION {
        for (name, d) in &expected {
            let path = dir(version).join(format!("{name}.json"));
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(&Dispatch::from_wire(&text).unwrap(), d, "{name} of wire v{version}");
        }
    }
}
