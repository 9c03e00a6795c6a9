//! `slackline-sim`'s client subcommands against the real runtime (workerd) and the shared fake
//! Slack, the very server `slackline-sim serve` runs: each one's request is acknowledged and the
//! reply Slack would see arrives; `storm` (Slack's retries, duplicates and fresh-id copies of one
//! message) results in exactly one reply; `rate-limited`'s notice is counted in the team's stats;
//! a wrong secret is a clear error; each example's `flow.sim` runs against its own bot (the ticket
//! desk's completes a Workflow step and unfurls a link as a Work Object; the digest's posts the
//! tickets open when its schedule runs, and `advance` reaches its 09:00 by the test clock). The
//! template's flow.sim runs in `make test-template`.

use crate::support;

use slackline_sim::cli::{parse, run_client, Failure};
use slackline_sim::client::SendError;
use support::{shared, SECRET};

fn sim(command: &str, secret: &str) -> Result<String, Failure> {
    let s = shared();
    let args: Vec<String> =
        [command, "--url", &s.runtime.base_url(), "--sim", &s.fake.base_url(), "--secret", secret, "--timeout", "20"].iter().map(|a| a.to_string()).collect();
    let (command, options) = parse(&args).expect("a valid command line");
    run_client(&command, &options)
}

#[test]
fn mention_dm_command_and_click_each_get_their_reply() {
    for (command, reply) in [("mention", "chat.postMessage"), ("dm", "chat.postMessage"), ("command", "response_url"), ("click", "chat.update")] {
        let report = sim(command, SECRET).unwrap_or_else(|e| panic!("{command}: {e:?}"));
        assert!(report.contains("→ slackline acked in"), "{command}: {report}");
        assert!(report.contains(&format!("← {reply}")), "{command}: {report}");
        assert!(report.contains("ms after the ack"), "{command}: {report}");
    }
}

#[test]
fn a_storm_of_retries_and_duplicates_makes_one_reply() {
    let report = sim("storm", SECRET).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(report.contains("replies: 1 (1 is right)"), "{report}");
}

#[test]
fn rate_limited_sends_slacks_notice_and_the_team_counts_it() {
    let team = support::unique("T");
    let s = shared();
    let args: Vec<String> = ["rate-limited", "--url", &s.runtime.base_url(), "--sim", &s.fake.base_url(), "--secret", SECRET, "--team", &team]
        .iter()
        .map(|a| a.to_string())
        .collect();
    let (command, options) = parse(&args).expect("a valid command line");
    let report = run_client(&command, &options).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(report.contains("→ slackline acked in"), "{report}");
    assert_eq!(s.client().stats(&team)["app_rate_limited"]["count"], 1, "the team's stats count the notice");
}

#[test]
fn a_wrong_secret_is_named_as_such() {
    match sim("mention", "not-the-secret") {
        Err(Failure::Send(SendError::BadSecret)) => {}
        other => panic!("{other:?}"),
    }
}

/// Runs `slackline-sim script FILE` against `runtime` and `fake`, with `extra` flags.
fn script(file: &str, runtime: &support::Runtime, fake: &support::FakeSlack, extra: &[&str]) -> Result<String, Failure> {
    let path = format!("{}/{file}", env!("CARGO_MANIFEST_DIR"));
    let mut args: Vec<String> = ["script", &path, "--url", &runtime.base_url(), "--sim", &fake.base_url(), "--secret", SECRET, "--timeout", "30"]
        .iter()
        .map(|a| a.to_string())
        .collect();
    args.extend(extra.iter().map(|a| a.to_string()));
    let (command, options) = parse(&args).expect("a valid command line");
    run_client(&command, &options)
}

/// Every `expect` of a report, ticked.
fn ticks(report: &str) -> usize {
    report.lines().filter(|l| l.contains(": ✓ ")).count()
}

#[test]
fn the_echo_bots_script_runs_every_step_against_the_shipped_bot() {
    let s = shared();
    let report = script("examples/echo/flow.sim", &s.runtime, &s.fake, &[]).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(ticks(&report), 3, "{report}");
    assert!(report.contains("✓ response_url"), "{report}");
}

#[test]
fn the_examples_scripts_drive_their_own_bots_modal_select_and_buttons_included() {
    let fake = support::FakeSlack::start();
    let triage = support::Runtime::start(support::Settings::example("triage", &fake).var("TRIAGE_CHANNEL", "C0TRIAGE"));
    let report = script("examples/triage/flow.sim", &triage, &fake, &[]).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(ticks(&report), 5, "{report}");
    let announced = fake.calls("chat.postMessage", "C0TRIAGE");
    assert!(announced.iter().any(|c| c.json.as_ref().is_some_and(|j| j.to_string().contains("SEV2"))), "the select's value arrived as sev2: {announced:?}");
    drop(triage);
    let hello = support::Runtime::start(support::Settings::example("hello", &fake));
    let report = script("examples/hello/flow.sim", &hello, &fake, &[]).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(ticks(&report), 2, "{report}");
}

#[test]
fn the_ticket_desks_script_completes_its_step_and_unfurls_its_ticket_as_a_work_object() {
    let fake = support::FakeSlack::start();
    let tickets = support::Runtime::start(support::Settings::example("tickets", &fake).var("TICKETS_CHANNEL", "C0DESK"));
    let report = script("examples/tickets/flow.sim", &tickets, &fake, &[]).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(ticks(&report), 9, "{report}");
    let (completed, unfurled) = (fake.calls("functions.completeSuccess", "TCK-2"), fake.calls("chat.unfurl", "TCK-2"));
    assert_eq!((completed.len(), unfurled.len()), (1, 1), "{report}");
    let outputs = &completed[0].json.as_ref().expect("a JSON body")["outputs"];
    assert_eq!(outputs["ticket_url"], "https://tickets.slackline.example/TCK-2");
}

#[test]
fn a_script_whose_expectation_is_not_met_fails_naming_its_line_and_what_came() {
    let s = shared();
    let dir = std::env::temp_dir().join(support::unique("script-"));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("wrong.sim");
    std::fs::write(&file, "mention --text never-answered-this-way\nexpect chat.postMessage text~\"a reply nobody writes\"\n").unwrap();
    let args: Vec<String> =
        ["script", file.to_str().unwrap(), "--url", &s.runtime.base_url(), "--sim", &s.fake.base_url(), "--secret", SECRET, "--timeout", "3"]
            .iter()
            .map(|a| a.to_string())
            .collect();
    let (command, options) = parse(&args).expect("a valid command line");
    match run_client(&command, &options) {
        Err(Failure::Unexpected(why)) => assert!(why.starts_with("line 2: expected chat.postMessage") && why.contains("never-answered-this-way"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_digests_script_posts_the_tickets_open_when_its_schedule_runs() {
    let fake = support::FakeSlack::start();
    let digest = support::Runtime::start(support::Settings::example("digest", &fake).var("DIGEST_EVERY_MINUTES", "1"));
    let report = script("examples/digest/flow.sim", &digest, &fake, &[]).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(ticks(&report), 1, "{report}");
    let posted = fake.posts_in("C0DIGEST");
    assert_eq!(posted.len(), 1, "one digest, not one per command: {report}");
}

#[test]
fn advance_moves_the_test_clock_so_the_digest_due_at_nine_fires_in_a_script() {
    let fake = support::FakeSlack::start();
    // The calendar (every day at 09:00, Europe/Berlin), not DIGEST_EVERY_MINUTES.
    let digest = support::Runtime::start(support::Settings::example("digest", &fake));
    let report = script("examples/digest/tomorrow.sim", &digest, &fake, &["--admin-token", support::ADMIN_TOKEN]).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(ticks(&report), 2, "the ack and the digest: {report}");
    let fired = report.lines().find(|l| l.contains("digest:C") && l.ends_with(": fired")).unwrap_or_else(|| panic!("the advance names what fired: {report}"));
    assert!(fired.contains("T07:00:00Z") || fired.contains("T08:00:00Z"), "due at 09:00 in Berlin: {fired}");
    assert!(report.contains("✓ chat.postMessage") && !report.contains("another run's would look the same"), "posted in the run's own channel: {report}");
}
