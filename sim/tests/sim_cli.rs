//! The `slackline-sim` binary's command line: each subcommand's `--help` exits 0 with its options,
//! a bad command line exits 2 naming what is wrong.
#![cfg(not(target_arch = "wasm32"))]

use std::process::Command;

fn sim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_slackline-sim")).args(args).output().expect("run slackline-sim");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

#[test]
fn each_subcommand_answers_help_with_its_options_and_exit_0() {
    let common = ["--url <URL>", "--sim <URL>", "--secret <S>", "--team <T>", "--timeout <S>"];
    let serve = [
        "--port <N>",
        "--slow-ms <MS>",
        "--fail-rate <F>",
        "--ratelimit-rate <F>",
        "--retry-after <S>",
        "--error <METHOD=CODE>",
        "--script <FILE.json>",
        "--seed <N>",
        "--enforce-tiers",
    ];
    let inputs = [
        ("shortcut", &["--callback-id <ID>", "--message", "--wait <METHOD>"][..]),
        ("submit", &["--callback-id <ID>", "--value <BLOCK.ACTION=VALUE>", "--wait <METHOD>"]),
        ("options", &["--action-id <ID>", "--block-id <ID>", "--query <Q>", "--wait <METHOD>"]),
        ("react", &["--name <EMOJI>", "--channel <C>", "--ts <TS>", "--wait <METHOD>"]),
        ("home", &["--wait <METHOD>"]),
        ("stop", &["--channel <D>", "--thread <TS>", "--stream-ts <TS>", "--wait <METHOD>"]),
        ("step", &["--callback-id <ID>", "--input <NAME=VALUE>", "--wait <METHOD>"]),
        ("link", &["--link <URL>", "--channel <C>", "--source <S>", "--wait <METHOD>"]),
        ("entity-details", &["--entity-url <URL>", "--id <ID>", "--channel <C>", "--ts <TS>", "--wait <METHOD>"]),
        ("agent-open", &["--user <U>", "--dm <D>", "--wait <METHOD>"]),
        ("context", &["--user <U>", "--dm <D>", "--channel <C>", "--canvas <F>", "--list <F>", "--message <C:TS>", "--wait <METHOD>"]),
        ("submit", &["--user <U>", "--field <BLOCK.ACTION=VALUE>"]),
    ];
    for (sub, own) in inputs {
        let (code, stdout, stderr) = sim(&[sub, "--help"]);
        assert_eq!((code, stderr.as_str()), (0, ""), "{sub} --help");
        assert!(stdout.contains(&format!("Usage: slackline-sim {sub} [OPTIONS]")), "{stdout}");
        for flag in common.iter().chain(own) {
            assert!(stdout.contains(flag), "{sub} --help lacks {flag}:\n{stdout}");
        }
        assert!(!stdout.contains("--text <T>") && !stdout.contains("--port <N>"), "{sub}: {stdout}");
    }
    // agent-dm writes a message: it takes --text, required, and no more of the others' flags.
    let (code, stdout, stderr) = sim(&["agent-dm", "--help"]);
    assert_eq!((code, stderr.as_str()), (0, ""), "agent-dm --help");
    for flag in common.iter().chain(&["--user <U>", "--dm <D>", "--text <T>", "--thread <TS>", "--wait <METHOD>"]) {
        assert!(stdout.contains(flag), "agent-dm --help lacks {flag}:\n{stdout}");
    }
    for (sub, text) in [("serve", false), ("mention", true), ("dm", true), ("command", true), ("click", false), ("storm", false), ("triage", false)] {
        let (code, stdout, stderr) = sim(&[sub, "--help"]);
        assert_eq!((code, stderr.as_str()), (0, ""), "{sub} --help");
        assert!(stdout.contains(&format!("Usage: slackline-sim {sub} [OPTIONS]")), "{stdout}");
        let expected: &[&str] = if sub == "serve" { &serve } else { &common };
        for flag in expected {
            assert!(stdout.contains(flag), "{sub} --help lacks {flag}:\n{stdout}");
        }
        assert_eq!(stdout.contains("--text <T>"), text, "{sub}: {stdout}");
    }
    // advance moves a test build's clock: --to or --by, and the admin token.
    let (code, stdout, stderr) = sim(&["advance", "--help"]);
    assert_eq!((code, stderr.as_str()), (0, ""), "advance --help");
    for flag in common.iter().chain(&["--to <TIME>", "--by <DURATION>", "--from <TIME>", "--admin-token <TOKEN>"]) {
        assert!(stdout.contains(flag), "advance --help lacks {flag}:\n{stdout}");
    }
    assert!(stdout.contains("[default: 20]"), "one default timeout: {stdout}");
    let (_, stdout, _) = sim(&["script", "--help"]);
    assert!(stdout.contains("--admin-token <TOKEN>") && stdout.contains("[default: 20]"), "{stdout}");
    let (code, stdout, _) = sim(&["--help"]);
    let all = [
        "serve",
        "mention",
        "dm",
        "command",
        "click",
        "storm",
        "shortcut",
        "submit",
        "options",
        "react",
        "home",
        "stop",
        "step",
        "link",
        "entity-details",
        "agent-open",
        "agent-dm",
        "context",
        "triage",
        "advance",
    ];
    assert!(code == 0 && all.iter().all(|s| stdout.contains(s)), "{stdout}");
}

#[test]
fn a_bad_command_line_exits_2_and_names_the_flag() {
    for (args, named) in [
        (&["serve", "--url", "x"][..], "unexpected argument '--url'"),
        (&["serve", "--fail-rate", "lots"], "'--fail-rate <F>'"),
        (&["serve", "--fail-rate", "2", "--port", "0"], "fail_rate must be between 0 and 1"),
        (&["mention", "--timeout"], "'--timeout <S>'"),
        (&["launch"], "unrecognized subcommand 'launch'"),
        (&["submit"], "--callback-id <ID>"),
        (&["submit", "--callback-id", "cb", "--value", "nope"], "--value takes BLOCK.ACTION=VALUE, not `nope`"),
        (&["options", "--query", "x"], "--action-id <ID>"),
        (&["react", "--name"], "'--name <EMOJI>'"),
        (&["home", "--text", "hi"], "unexpected argument '--text'"),
        (&["stop", "--channel", "D1"], "--thread <TS>"),
        (&["step", "--callback-id", "cb", "--input", "nope"], "--input takes NAME=VALUE, not `nope`"),
        (&["link"], "--link <URL>"),
        (&["link", "--link", "https://a.test/1", "--source", "inbox"], "invalid value 'inbox' for '--source <S>'"),
        (&["entity-details", "--id", "T-1"], "--entity-url <URL>"),
        (&["agent-dm", "--thread", "1.2"], "--text <T>"),
        (&["context", "--message", "C1"], "--message takes CHANNEL:TS, not `C1`"),
        (&["agent-open", "--text", "hi"], "unexpected argument '--text'"),
        (&["advance", "--team", "T1"], "--to <TIME>"),
        (&["advance", "--to", "2026-12-08T09:00:00Z", "--by", "1h"], "cannot be used with"),
        (&["advance", "--by", "a day"], "`a day` is not a duration"),
        (&["advance", "--to", "tomorrow"], "`tomorrow` is not a time"),
        (&[], "Usage: slackline-sim <COMMAND>"),
    ] {
        let (code, stdout, stderr) = sim(args);
        assert_eq!(code, 2, "{args:?}: {stdout}{stderr}");
        assert!(stderr.contains(named), "{args:?}: {stderr}");
    }
}
