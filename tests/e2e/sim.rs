//! `slackline-sim`'s client subcommands against the real runtime (workerd) and the shared fake
//! Slack, the very server `slackline-sim serve` runs: each one's request is acknowledged and the
//! reply Slack would see arrives; `storm` (Slack's retries, duplicates and fresh-id copies of one
//! message) results in exactly one reply; `rate-limited`'s notice is counted in the team's stats;
//! a wrong secret is a clear error.

use crate::support;

use slackline::sim::cli::{parse, run_client, Failure};
use slackline::sim::client::SendError;
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
