use super::*;
use serde_json::json;

fn events(v: serde_json::Value) -> Result<Inbound, ParseError> {
    parse_events_body(v.to_string().as_bytes())
}

fn mention_envelope(auth: serde_json::Value) -> serde_json::Value {
    json!({
        "type": "event_callback", "team_id": "T_ENVELOPE", "event_id": "Ev1", "event_time": 1700000000,
        "authorizations": [auth],
        "event": {"type": "app_mention", "channel": "C1", "user": "U1", "text": "<@UBOT> hi", "ts": "1.1"}
    })
}

fn dispatched_event(inbound: Inbound) -> EventEnvelope {
    match inbound {
        Inbound::Dispatch(Dispatch::Event(e)) => e,
        other => panic!("not an event: {other:?}"),
    }
}

#[test]
fn url_verification_carries_its_challenge() {
    let got = events(json!({"type": "url_verification", "challenge": "abc", "token": "t"})).unwrap();
    assert_eq!(got, Inbound::UrlVerification { challenge: "abc".into() });
}

#[test]
fn an_unknown_envelope_type_is_a_value_not_an_error() {
    assert_eq!(events(json!({"type": "brand_new"})).unwrap(), Inbound::Unknown { kind: "brand_new".into() });
}

#[test]
fn app_rate_limited_is_recognised() {
    let got = events(json!({"type": "app_rate_limited", "team_id": "T1", "minute_rate_limited": 1518467820})).unwrap();
    assert_eq!(got, Inbound::AppRateLimited { team_id: "T1".into(), minute_rate_limited: 1518467820 });
}

#[test]
fn an_app_mention_parses_with_its_message_fields() {
    let e = dispatched_event(events(mention_envelope(json!({"team_id": "T1", "user_id": "UBOT", "is_bot": true}))).unwrap());
    assert_eq!(e.event_id, "Ev1");
    assert_eq!(e.team_key, "T1");
    assert_eq!(e.bot_user_id.as_deref(), Some("UBOT"));
    let Event::AppMention(m) = e.event else { panic!("not a mention") };
    assert_eq!((m.channel.as_str(), m.ts.as_str(), m.user.as_deref()), ("C1", "1.1", Some("U1")));
}

#[test]
fn an_org_wide_install_is_keyed_by_its_enterprise_id() {
    let auth = json!({"enterprise_id": "E1", "team_id": "T1", "is_enterprise_install": true});
    assert_eq!(dispatched_event(events(mention_envelope(auth)).unwrap()).team_key, "E1");
}

#[test]
fn a_workspace_install_in_an_enterprise_is_keyed_by_its_team() {
    let auth = json!({"enterprise_id": "E1", "team_id": "T1", "is_enterprise_install": false});
    assert_eq!(dispatched_event(events(mention_envelope(auth)).unwrap()).team_key, "T1");
}

#[test]
fn the_envelope_team_id_is_only_a_fallback() {
    let mut v = mention_envelope(json!({}));
    v.as_object_mut().unwrap().remove("authorizations");
    assert_eq!(dispatched_event(events(v).unwrap()).team_key, "T_ENVELOPE");
}

#[test]
fn an_event_without_a_team_is_malformed() {
    let mut v = mention_envelope(json!({}));
    v.as_object_mut().unwrap().remove("team_id");
    assert!(matches!(events(v), Err(ParseError::MissingField(_))));
}

#[test]
fn an_unknown_inner_event_is_other() {
    let mut v = mention_envelope(json!({"team_id": "T1"}));
    v["event"] = json!({"type": "reaction_added", "user": "U1"});
    let e = dispatched_event(events(v).unwrap());
    assert_eq!(e.event, Event::Other { event_type: "reaction_added".into() });
    assert_eq!(e.event.type_name(), "reaction_added");
}

#[test]
fn a_dispatch_names_the_type_slack_gave_it() {
    let mention = Dispatch::Event(dispatched_event(events(mention_envelope(json!({"team_id": "T1"}))).unwrap()));
    assert_eq!((mention.kind(), mention.type_name()), ("event", "app_mention"));
    let Inbound::Dispatch(command) = parse_command_form(COMMAND.as_bytes()).unwrap() else { panic!() };
    assert_eq!((command.kind(), command.type_name()), ("command", "/ask"));
}

#[test]
fn missing_required_fields_are_named() {
    let mut v = mention_envelope(json!({"team_id": "T1"}));
    v.as_object_mut().unwrap().remove("event_id");
    assert_eq!(events(v), Err(ParseError::MissingField("event_id")));
    let mut v = mention_envelope(json!({"team_id": "T1"}));
    v["event"].as_object_mut().unwrap().remove("ts");
    assert_eq!(events(v), Err(ParseError::MissingField("event.ts")));
}

#[test]
fn bad_bytes_are_refused() {
    assert_eq!(parse_events_body(b"{\"type\": \"x\xff\"}"), Err(ParseError::NotUtf8));
    assert_eq!(parse_events_body(b"{not json"), Err(ParseError::BadJson));
    assert_eq!(parse_events_body(b"[1,2]"), Err(ParseError::BadJson));
    let deep = "[".repeat(10_000) + &"]".repeat(10_000);
    assert_eq!(parse_events_body(deep.as_bytes()), Err(ParseError::BadJson));
}

#[test]
fn an_uninstall_or_a_revoked_bot_token_uninstalls_and_nothing_else_does() {
    let with_event = |event: Event| {
        let mut e = dispatched_event(events(mention_envelope(json!({"team_id": "T1"}))).unwrap());
        e.event = event;
        Dispatch::Event(e)
    };
    assert!(with_event(Event::AppUninstalled).uninstalls());
    assert!(with_event(Event::TokensRevoked { bot: vec!["UBOT".into()], oauth: vec![] }).uninstalls());
    assert!(!with_event(Event::TokensRevoked { bot: vec![], oauth: vec!["U1".into()] }).uninstalls(), "a user token only");
    assert!(!with_event(Event::Other { event_type: "member_joined_channel".into() }).uninstalls());
    let Inbound::Dispatch(command) = parse_command_form(COMMAND.as_bytes()).unwrap() else { panic!() };
    assert!(!command.uninstalls());
}

#[test]
fn tokens_revoked_lists_the_user_ids() {
    let mut v = mention_envelope(json!({"team_id": "T1"}));
    v["event"] = json!({"type": "tokens_revoked", "tokens": {"oauth": ["U1"], "bot": ["UB"]}});
    let e = dispatched_event(events(v).unwrap());
    assert_eq!(e.event, Event::TokensRevoked { bot: vec!["UB".into()], oauth: vec!["U1".into()] });
}

const COMMAND: &str = "token=x&team_id=T1&team_domain=d&channel_id=C1&channel_name=general&user_id=U1&user_name=u&command=%2Fask&text=hello+world&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2F1&trigger_id=trig.1";

#[test]
fn a_slash_command_parses_from_its_form() {
    let Inbound::Dispatch(Dispatch::Command(c)) = parse_command_form(COMMAND.as_bytes()).unwrap() else { panic!() };
    assert_eq!(c.command, "/ask");
    assert_eq!(c.text, "hello world");
    assert_eq!(c.trigger_id, "trig.1");
    assert_eq!(c.team_key, "T1");
    assert_eq!(c.response_url, "https://hooks.slack.com/commands/1");
}

#[test]
fn an_org_wide_command_is_keyed_by_its_enterprise() {
    let body = format!("{COMMAND}&enterprise_id=E1&is_enterprise_install=true");
    let Inbound::Dispatch(d) = parse_command_form(body.as_bytes()).unwrap() else { panic!() };
    assert_eq!(d.team_key(), "E1");
    assert_eq!(d.op_key(), "trig.1");
}

#[test]
fn a_command_without_a_trigger_id_is_malformed() {
    let body = COMMAND.replace("&trigger_id=trig.1", "");
    assert_eq!(parse_command_form(body.as_bytes()), Err(ParseError::MissingField("trigger_id")));
}

#[test]
fn ssl_check_is_recognised_on_both_form_routes() {
    assert_eq!(parse_command_form(b"ssl_check=1&token=x").unwrap(), Inbound::SslCheck);
    assert_eq!(parse_interaction_form(b"ssl_check=1&token=x").unwrap(), Inbound::SslCheck);
}

fn interaction_form(payload: serde_json::Value) -> Vec<u8> {
    form_urlencoded::Serializer::new(String::new()).append_pair("payload", &payload.to_string()).finish().into_bytes()
}

#[test]
fn a_block_action_parses_with_its_message_and_actions() {
    let body = interaction_form(json!({
        "type": "block_actions", "trigger_id": "trig.2", "team": {"id": "T1"}, "user": {"id": "U1", "team_id": "T1"},
        "container": {"type": "message", "channel_id": "C1", "message_ts": "5.5"},
        "actions": [{"action_id": "slackline_resolve", "value": "resolve", "type": "button"}],
        "response_url": "https://hooks.slack.com/actions/1"
    }));
    let Inbound::Dispatch(Dispatch::Interaction(i)) = parse_interaction_form(&body).unwrap() else { panic!() };
    assert_eq!((i.team_key.as_str(), i.op_key.as_str()), ("T1", "trig.2"));
    assert_eq!((i.channel_id.as_deref(), i.message_ts.as_deref()), (Some("C1"), Some("5.5")));
    assert_eq!(i.actions, vec![BlockAction { action_id: "slackline_resolve".into(), block_id: None, value: Some("resolve".into()) }]);
}

#[test]
fn an_interaction_with_a_null_team_falls_back_to_the_users_team() {
    let body = interaction_form(json!({"type": "shortcut", "trigger_id": "t", "team": null, "user": {"id": "U1", "team_id": "T9"}}));
    let Inbound::Dispatch(d) = parse_interaction_form(&body).unwrap() else { panic!() };
    assert_eq!(d.team_key(), "T9");
}

#[test]
fn an_interaction_without_a_trigger_id_is_keyed_by_its_payload() {
    let p = json!({"type": "view_closed", "team": {"id": "T1"}, "user": {"id": "U1"}});
    let Inbound::Dispatch(a) = parse_interaction_form(&interaction_form(p.clone())).unwrap() else { panic!() };
    let Inbound::Dispatch(b) = parse_interaction_form(&interaction_form(p)).unwrap() else { panic!() };
    assert!(a.op_key().starts_with("payload:"));
    assert_eq!(a.op_key(), b.op_key());
}

#[test]
fn interaction_forms_without_a_valid_payload_are_refused() {
    assert_eq!(parse_interaction_form(b"foo=bar"), Err(ParseError::MissingPayload));
    assert_eq!(parse_interaction_form(b"payload=%7Bnot"), Err(ParseError::BadJson));
    assert_eq!(parse_interaction_form(b"payload=\xff"), Err(ParseError::NotUtf8));
}

#[test]
fn dispatches_round_trip_through_json_for_the_actor() {
    let d = Dispatch::Event(dispatched_event(events(mention_envelope(json!({"team_id": "T1"}))).unwrap()));
    let back: Dispatch = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
    assert_eq!(back, d);
}

#[test]
fn an_interactions_kind_is_read_from_its_type_and_an_unknown_type_is_other_not_an_error() {
    let kinds = [
        ("block_actions", InteractionKind::BlockActions),
        ("view_submission", InteractionKind::ViewSubmission),
        ("view_closed", InteractionKind::ViewClosed),
        ("shortcut", InteractionKind::Shortcut),
        ("message_action", InteractionKind::MessageAction),
        ("block_suggestion", InteractionKind::BlockSuggestion),
        ("workflow_step_edit", InteractionKind::Other),
    ];
    for (payload_type, kind) in kinds {
        assert_eq!(InteractionKind::of(payload_type), kind, "{payload_type}");
    }
}

#[test]
fn the_actor_reads_a_newer_releases_event_variant_as_other_and_ignores_unknown_fields() {
    let d = Dispatch::Event(dispatched_event(events(mention_envelope(json!({"team_id": "T1"}))).unwrap()));
    let mut wire = serde_json::to_value(&d).unwrap();
    // A newer release's front door: a variant this one does not know, and fields it never wrote.
    wire["event"] = json!({"type": "agent_session_stopped", "channel": "D1", "streaming_message_ts": ["1.2"]});
    wire["raw"] = json!({"type": "agent_session_stopped", "channel": "D1", "streaming_message_ts": ["1.2"]});
    wire["wire_field_of_a_newer_release"] = json!({"any": 1});
    let Dispatch::Event(read) = Dispatch::from_wire(&wire.to_string()).unwrap() else { panic!("an event") };
    assert_eq!(read.event, Event::Other { event_type: "agent_session_stopped".into() });
    assert_eq!(read.event_id, "Ev1");
}

#[test]
fn the_actor_understands_an_event_an_older_front_door_called_other() {
    let d = Dispatch::Event(dispatched_event(events(mention_envelope(json!({"team_id": "T1"}))).unwrap()));
    let mut wire = serde_json::to_value(&d).unwrap();
    wire["event"] = json!({"type": "other", "event_type": "app_mention"});
    let Dispatch::Event(read) = Dispatch::from_wire(&wire.to_string()).unwrap() else { panic!("an event") };
    assert!(matches!(read.event, Event::AppMention(ref m) if m.channel == "C1"), "parsed again from raw: {:?}", read.event);
}

#[test]
fn a_dispatch_kind_this_release_does_not_know_is_refused_not_guessed() {
    let wire = json!({"kind": "function_execution", "team_key": "T1", "op_key": "Fx1"});
    assert!(Dispatch::from_wire(&wire.to_string()).is_err());
}
