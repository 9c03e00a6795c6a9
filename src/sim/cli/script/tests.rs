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
