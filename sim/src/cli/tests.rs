use super::*;

fn args(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_string).collect()
}

fn serve_options(line: &str) -> ServeOptions {
    match parse(&args(line)) {
        Ok((_, Options::Serve(options))) => options,
        other => panic!("{line}: {other:?}"),
    }
}

fn client(url: &str, text: Option<&str>) -> Options {
    let common = ClientOptions { url: url.into(), sim: "http://127.0.0.1:8790".into(), secret: None, team: None, timeout: DEFAULT_TIMEOUT_S };
    Options::Client { common, text: text.map(str::to_string) }
}

#[test]
fn flags_are_parsed_per_subcommand() {
    let (command, options) =
        parse(&args("serve --port 0 --fail-rate 0.2 --error chat.postMessage=not_in_channel --error chat.update=cant_update_message")).unwrap();
    assert_eq!(command, "serve");
    let Options::Serve(serve) = &options else { panic!("{options:?}") };
    let faults = serve.faults().unwrap();
    assert_eq!((serve.port, faults.fail_rate, faults.errors.len()), (0, 0.2, 2));
    assert!(serve_options("serve --enforce-tiers --port 0").enforce_tiers && !serve.enforce_tiers);
    assert_eq!(parse(&args("mention --url=http://127.0.0.1:9 --text hi")).unwrap(), ("mention".into(), client("http://127.0.0.1:9", Some("hi"))));
    assert_eq!(parse(&args("click")).unwrap(), ("click".into(), client("http://127.0.0.1:8787", None)));
    assert_eq!(parse(&args("dm")).unwrap().1, client("http://127.0.0.1:8787", Some("hello from slackline-sim")));
    // The defaults, and a flag given twice: the last one wins.
    let defaults = serve_options("serve").faults().unwrap();
    assert_eq!((serve_options("serve").port, defaults.retry_after_s, defaults.seed, defaults.any()), (8790, Some(1), Some(1), false));
    assert_eq!(serve_options("serve --port 1 --port 2").port, 2);
    let values = |v: &[(&str, &str, &str)]| v.iter().map(|(b, a, x)| (b.to_string(), a.to_string(), x.to_string())).collect::<Vec<_>>();
    let Options::Input { wait, input, .. } = parse(&args("submit --callback-id cb --value b1.a1=x --value b1.a2=y=z --wait views.update")).unwrap().1 else {
        panic!()
    };
    assert_eq!(
        (wait.as_deref(), input),
        (
            Some("views.update"),
            Input::Submit { callback_id: "cb".into(), values: values(&[("b1", "a1", "x"), ("b1", "a2", "y=z")]), fields: vec![], user: "U1".into() }
        )
    );
    let Options::Input { wait, input, .. } = parse(&args("options --action-id pick")).unwrap().1 else { panic!() };
    assert_eq!((wait, input), (None, Input::Suggest { action_id: "pick".into(), block_id: "sim_block".into(), query: String::new() }));
    let Options::Input { input, .. } = parse(&args("shortcut --callback-id cb --message")).unwrap().1 else { panic!() };
    assert_eq!(input, Input::Shortcut { callback_id: "cb".into(), message: true });
    let Options::Input { input, .. } = parse(&args("react --name eyes --ts 1.2")).unwrap().1 else { panic!() };
    assert_eq!(input, Input::React { name: "eyes".into(), channel: None, ts: Some("1.2".into()) });
    let Options::Client { common, .. } = parse(&args("storm --team T1 --timeout 3 --secret s --sim http://127.0.0.1:1")).unwrap().1 else { panic!() };
    assert_eq!((common.team.as_deref(), common.timeout, common.secret.as_deref(), common.sim.as_str()), (Some("T1"), 3, Some("s"), "http://127.0.0.1:1"));
}

#[test]
fn the_driving_subcommands_take_any_bots_names() {
    let input = |line: &str| match parse(&args(line)).unwrap() {
        (command, Options::Input { input, .. }) => (command, input),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        input("command --name /ticket --text urgent --channel C9 --user U2"),
        ("command".into(), Input::Command { name: "/ticket".into(), text: "urgent".into(), channel: "C9".into(), user: "U2".into() })
    );
    assert_eq!(parse(&args("command --text hi")).unwrap(), ("command".into(), client("http://127.0.0.1:8787", Some("hi"))), "no --name: /ask, as before");
    assert_eq!(
        input("click --action-id take --last-post --user U3"),
        ("click".into(), Input::Click { action_id: "take".into(), block_id: None, value: None, channel: None, ts: None, user: "U3".into() })
    );
    assert_eq!(
        input("message --channel C1 --text TCK-1 --thread 1.1"),
        ("message".into(), Input::Message { channel: Some("C1".into()), text: "TCK-1".into(), thread_ts: Some("1.1".into()), user: "U1".into() })
    );
    let (_, Input::Submit { fields, user, .. }) = input("submit --callback-id t --field priority.pick=high") else { panic!("a submission") };
    assert_eq!((fields, user.as_str()), (vec![("priority".to_string(), "pick".to_string(), "high".to_string())], "U1"));
    let (_, Input::Submit { user, .. }) = input("submit --callback-id t --user U2") else { panic!("a submission") };
    assert_eq!(user, "U2", "a second person submits");
    let Options::Script { file, common, admin_token } = parse(&args("script flows/desk.sim --team T5 --admin-token a")).unwrap().1 else { panic!("a script") };
    assert_eq!((file.as_str(), common.team.as_deref(), admin_token.as_deref()), ("flows/desk.sim", Some("T5"), Some("a")));
    assert_eq!(common.timeout, DEFAULT_TIMEOUT_S, "one default for every subcommand and script");
}

#[test]
fn the_agent_inputs_name_one_conversation_whose_dm_defaults_to_the_user_s() {
    let input = |line: &str| match parse(&args(line)).unwrap().1 {
        Options::Input { input, .. } => input,
        other => panic!("{other:?}"),
    };
    assert_eq!(input("agent-open"), Input::AgentOpen { user: "U1".into(), dm: "DU1".into() });
    assert_eq!(
        input("agent-dm --user U7 --text hi --thread 1.2"),
        Input::AgentDm { user: "U7".into(), dm: "DU7".into(), text: "hi".into(), thread_ts: Some("1.2".into()) }
    );
    let Input::Context { user, dm, entities } = input("context --dm D9 --list F2 --channel C1") else { panic!() };
    assert_eq!((user.as_str(), dm.as_str()), ("U1", "D9"));
    assert_eq!(
        entities,
        [json!({"type": "slack#/types/channel_id", "value": "C1"}), json!({"type": "slack#/types/list_id", "value": "F2"})],
        "in Slack's shape, channel first"
    );
}

#[test]
fn a_script_is_read_and_flags_override_it() {
    let path = std::env::temp_dir().join(format!("slackline-sim-faults-{}.json", std::process::id()));
    std::fs::write(&path, r#"{"seed": 7, "slow_ms": 300, "fail_rate": 0.1, "retry_after_s": 2, "errors": {"chat.update": "message_not_found"}}"#).unwrap();
    let line = format!("serve --script {} --fail-rate 0.3 --error chat.postMessage=not_in_channel", path.display());
    let faults = serve_options(&line).faults().unwrap();
    assert_eq!((faults.seed, faults.slow_ms, faults.fail_rate, faults.retry_after_s, faults.errors.len()), (Some(7), 300, 0.3, Some(2), 2));
    std::fs::write(&path, r#"{"typo_rate": 1}"#).unwrap();
    assert!(serve_options(&line).faults().unwrap_err().0.contains("typo_rate"));
    std::fs::remove_file(&path).unwrap();
    assert!(serve_options(&line).faults().unwrap_err().0.contains("--script"));
}

#[test]
fn bad_flags_give_a_usage_error_naming_them() {
    let err = |line: &str| parse(&args(line)).unwrap_err().0;
    assert!(err("").contains("Usage: slackline-sim <COMMAND>"), "no subcommand: the help");
    assert!(err("launch").contains("unrecognized subcommand 'launch'"));
    assert!(err("serve --url x").contains("unexpected argument '--url'"));
    assert!(err("click --text hi").contains("unexpected argument '--text'"));
    assert!(err("serve --enforce-tiers=yes").contains("'--enforce-tiers'"));
    assert!(err("serve --port").contains("a value is required for '--port <N>'"));
    assert!(err("serve --port 70000").contains("'--port <N>'"));
    assert!(err("mention hello").contains("unexpected argument 'hello'"));
    assert!(err("serve --fail-rate lots").contains("invalid value 'lots' for '--fail-rate <F>'"));
    assert!(err("serve --error nope").contains("--error takes METHOD=CODE, not `nope`"));
    assert!(serve_options("serve --fail-rate 2").faults().unwrap_err().0.contains("fail_rate must be between 0 and 1"));
    let late = usage_error("serve", &Usage("fail_rate must be between 0 and 1, not 2".into())).render().to_string();
    assert!(late.contains("fail_rate must be between 0 and 1") && late.contains("Usage: slackline-sim serve"), "{late}");
}

#[test]
fn every_subcommand_has_its_help_with_exit_code_zero() {
    for (sub, has, lacks) in [
        ("serve", "--enforce-tiers", "--url"),
        ("mention", "--text", "--port"),
        ("dm", "--text", "--port"),
        ("command", "--text", "--port"),
        ("click", "--timeout", "--text"),
        ("storm", "--secret", "--text"),
        ("rate-limited", "--team", "--text"),
        ("shortcut", "--message", "--text"),
        ("submit", "--value", "--text"),
        ("options", "--action-id", "--port"),
        ("react", "--name", "--text"),
        ("home", "--wait", "--text"),
        ("stop", "--stream-ts", "--text"),
        ("agent-open", "--dm", "--text"),
        ("agent-dm", "--thread", "--port"),
        ("context", "--canvas", "--text"),
    ] {
        let help = parse_command_line(&args(&format!("{sub} --help"))).unwrap_err();
        let text = help.render().to_string();
        assert_eq!(help.exit_code(), 0, "{sub}");
        assert!(text.contains(has) && !text.contains(lacks), "{sub}: {text}");
    }
    assert_eq!(parse_command_line(&args("serve --bogus")).unwrap_err().exit_code(), 2);
    assert_eq!(parse_command_line(&args("--help")).unwrap_err().exit_code(), 0);
}

#[test]
fn a_port_in_use_and_a_dead_server_are_clear_errors() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let (_, options) = parse(&args(&format!("serve --port {port}"))).unwrap();
    match serve(&options) {
        Err(Failure::Unexpected(why)) => assert!(why.contains("cannot listen"), "{why}"),
        other => panic!("{:?}", other.map(|(_, banner)| banner)),
    }
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{closed}");
    let (_, options) = parse(&args(&format!("mention --url {url} --sim {url} --secret s"))).unwrap();
    match run_client("mention", &options) {
        Err(Failure::Send(SendError::NotRunning(_))) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_simulated_rate_limit_notice_is_what_slackline_parses_as_one() {
    use slackline::internal::slack::envelope::{parse_events_body, Inbound};
    let notice = crate::client::app_rate_limited("T1", 1_518_467_820);
    let parsed = parse_events_body(notice.to_string().as_bytes()).unwrap();
    assert_eq!(parsed, Inbound::AppRateLimited { team_id: "T1".into(), minute_rate_limited: 1_518_467_820 });
    assert_eq!(crate::client::this_minute() % 60, 0);
}

#[test]
fn the_unfurl_inputs_share_links_from_a_message_or_the_composer_and_click_a_work_object() {
    let input = |line: &str| match parse(&args(line)).unwrap().1 {
        Options::Input { input, .. } => input,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        input("link --link https://a.test/1 --link https://a.test/2"),
        Input::Link { urls: vec!["https://a.test/1".into(), "https://a.test/2".into()], channel: None, source: "conversations_history".into() }
    );
    assert_eq!(
        input("link --link https://a.test/1 --channel C9 --source composer"),
        Input::Link { urls: vec!["https://a.test/1".into()], channel: Some("C9".into()), source: "composer".into() }
    );
    assert_eq!(
        input("entity-details --entity-url https://tickets.example.test/T-7?from=chat"),
        Input::EntityDetails { url: "https://tickets.example.test/T-7?from=chat".into(), id: "T-7".into(), channel: None, ts: None },
        "the id defaults to the URL's last path segment"
    );
    assert_eq!(
        input("entity-details --entity-url https://a.test/x --id 42 --channel C1 --ts 1.2"),
        Input::EntityDetails { url: "https://a.test/x".into(), id: "42".into(), channel: Some("C1".into()), ts: Some("1.2".into()) }
    );
}

/// A recorded call of `method` with the JSON arguments `args`.
fn sim_call(method: &str, args: Value) -> SimCall {
    let Value::Object(map) = args.clone() else { panic!("an object: {args}") };
    SimCall { index: 0, method: method.into(), path: format!("/api/{method}"), json: Some(args), args: map, at_ms: 0, rate_limited: false, answer: None }
}

#[test]
fn a_reports_line_shows_a_steps_ending_and_the_work_objects_shown() {
    let done = sim_call("functions.completeSuccess", json!({"function_execution_id": "Fx1", "outputs": {"ticket_id": "TCK-2"}}));
    assert_eq!(describe(&done), r#"functions.completeSuccess outputs={"ticket_id":"TCK-2"}"#);
    let failed = sim_call("functions.completeError", json!({"function_execution_id": "Fx1", "error": "no title"}));
    assert_eq!(describe(&failed), r#"functions.completeError error="no title""#);
    let task = json!({"external_ref": {"id": "TCK-2"}, "entity_payload": {"attributes": {"title": {"text": "Badge reader"}}}});
    let unfurl = sim_call("chat.unfurl", json!({"channel": "C1", "ts": "1.2", "metadata": {"entities": [task]}}));
    assert_eq!(describe(&unfurl), r#"chat.unfurl channel=C1 ts=1.2 work objects: TCK-2 "Badge reader""#);
    let flexpane = sim_call("entity.presentDetails", json!({"trigger_id": "t", "metadata": task.to_string()}));
    assert_eq!(describe(&flexpane), r#"entity.presentDetails flexpane: TCK-2 "Badge reader""#, "a form body's JSON text too");
    let refused = sim_call("entity.presentDetails", json!({"trigger_id": "t", "error": {"status": "not_found"}}));
    assert_eq!(describe(&refused), "entity.presentDetails flexpane error: not_found");
}
