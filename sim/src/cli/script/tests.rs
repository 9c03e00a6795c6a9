use super::*;

#[test]
fn words_split_like_a_shell_for_the_simple_cases() {
    let words = split_words(r#"submit --field title.input="Printer on fire" --field 'note.n=it\s "hot"' a\ b"#).unwrap();
    assert_eq!(words, ["submit", "--field", "title.input=Printer on fire", "--field", r#"note.n=it\s "hot""#, "a b"]);
    assert_eq!(split_words(r#"message --text """#).unwrap(), ["message", "--text", ""]);
    assert_eq!(split_words("  spaced   out  ").unwrap(), ["spaced", "out"]);
    assert!(split_words(r#"message --text "open"#).unwrap_err().contains("not closed"));
}

#[test]
fn a_script_is_steps_and_expects_with_comments_skipped() {
    let script = "# a flow\n\ncommand --name /ticket\nexpect views.open trigger_id~T text=hello\n  click --action-id take --last-post\n";
    let lines = parse_script(script).unwrap();
    assert_eq!(lines[0], (3, Line::Step(vec!["command".into(), "--name".into(), "/ticket".into()])));
    assert_eq!(
        lines[1],
        (
            4,
            Line::Expect(Expect {
                method: "views.open".into(),
                checks: vec![Check::Contains("trigger_id".into(), "T".into()), Check::Equals("text".into(), "hello".into())]
            })
        )
    );
    assert_eq!(lines[2].0, 5);
}

#[test]
fn what_a_script_cannot_hold_is_named_with_its_line() {
    let error = |text: &str| parse_script(text).unwrap_err().0;
    assert_eq!(error("# nothing\nexpect chat.postMessage"), "the script has no step");
    assert!(error("mention\nexpect").starts_with("line 2: `expect` needs a method"));
    assert!(error("mention\nexpect chat.postMessage text").contains("line 2: `text`: a check is NAME=VALUE or NAME~TEXT"));
    assert!(error("serve --port 0").contains("line 1: `serve` is not a step"));
    assert!(error("mention --text \"hi").contains("line 1: a quote is not closed"));
}

#[test]
fn checks_read_top_level_arguments_or_the_whole_body() {
    let call = SimCall {
        index: 3,
        method: "chat.postMessage".into(),
        path: "/api/chat.postMessage".into(),
        json: Some(serde_json::json!({"channel": "C1", "text": "TCK-1 opened", "blocks": [{"type": "actions"}]})),
        args: Default::default(),
        at_ms: 0,
        rate_limited: false,
        answer: None,
    };
    let expect = |checks: Vec<Check>| Expect { method: "chat.postMessage".into(), checks }.holds(&call);
    assert!(expect(vec![Check::Equals("channel".into(), "C1".into()), Check::Contains("text".into(), "TCK-1".into())]));
    assert!(expect(vec![Check::Contains("body".into(), "\"actions\"".into())]));
    assert!(!expect(vec![Check::Equals("channel".into(), "C2".into())]));
    assert!(!expect(vec![Check::Contains("thread_ts".into(), "".into())]), "a missing argument holds nothing");
    assert!(!Expect { method: "chat.update".into(), checks: vec![] }.holds(&call));
}

fn ack_of(status: u16, body: &str) -> Ack {
    Ack { status, body: body.into(), took: Duration::ZERO, at: Instant::now() }
}

#[test]
fn expect_ack_checks_the_steps_answer_its_status_its_text_and_its_json_fields() {
    let lines = parse_script("submit --callback-id t\nexpect ack response_action=errors body~\"too short\" status=200\nexpect ack\n").unwrap();
    let Line::Expect(expect) = &lines[1].1 else { panic!("{lines:?}") };
    assert_eq!(expect.method, ACK);
    let errors = ack_of(200, r#"{"response_action":"errors","errors":{"title":"too short"}}"#);
    assert_eq!(ack(Some(&errors), expect).unwrap(), format!("✓ ack status 200: {}", errors.body));
    let holds = |check: Check, ack: &Ack| check.holds_of_ack(ack);
    assert!(holds(Check::Contains("errors".into(), r#""title":"too short""#.into()), &errors), "a field that is not text: its JSON");
    assert!(!holds(Check::Equals("response_action".into(), "clear".into()), &errors));
    assert!(!holds(Check::Equals("text".into(), "".into()), &errors), "a field it does not have holds nothing");
    let ephemeral = ack_of(200, r#"{"response_type":"ephemeral","text":"Ticket opened: printer"}"#);
    assert!(
        holds(Check::Equals("text".into(), "Ticket opened: printer".into()), &ephemeral)
            && holds(Check::Contains("body".into(), "ephemeral".into()), &ephemeral)
    );
    let plain = ack_of(200, "Working on it");
    assert!(holds(Check::Equals("body".into(), "Working on it".into()), &plain) && !holds(Check::Equals("text".into(), "Working on it".into()), &plain));
    assert_eq!(ack(Some(&ack_of(200, "")), &Expect { method: ACK.into(), checks: vec![] }).unwrap(), "✓ ack status 200: (empty)");
    match ack(Some(&plain), expect) {
        Err(Failure::Unexpected(why)) => assert!(why.contains("expected the ack to hold") && why.contains("Working on it"), "{why}"),
        other => panic!("{other:?}"),
    }
    match ack(None, expect) {
        Err(Failure::Unexpected(why)) => assert!(why.contains("no one answer"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_step_gets_the_runs_flags_first_command_its_channel_and_advance_its_clock() {
    let common = ClientOptions { url: "http://u".into(), sim: "http://s".into(), secret: Some("x".into()), team: None, timeout: 7 };
    let shared = Shared { common: &common, team: "T9", channel: "C9", admin_token: Some("adm") };
    let base = ["--url", "http://u", "--sim", "http://s", "--team", "T9", "--timeout", "7", "--secret", "x"].map(str::to_string);
    assert_eq!(shared.flags("message", Some(5)), base);
    assert_eq!(shared.flags("command", None)[base.len()..], ["--channel", "C9"]);
    assert_eq!(shared.flags("advance", Some(5))[base.len()..], ["--admin-token", "adm", "--from", "5"]);
    assert_eq!(shared.flags("advance", None)[base.len()..], ["--admin-token", "adm"]);
    // The step's own flags come after, and win.
    let (_, options) = parse(
        &["command".to_string()]
            .into_iter()
            .chain(shared.flags("command", None))
            .chain(["--name", "/t", "--channel", "C0DESK"].map(str::to_string))
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let crate::cli::Options::Input { input: crate::cli::Input::Command { channel, .. }, .. } = options else { panic!("{options:?}") };
    assert_eq!(channel, "C0DESK");
}
