//! `slackline-sim`, native only (never in the Worker bundle): a Slack simulator that users and
//! the end-to-end tests share.
//!
//! - [`fake`]: a fake Slack Web API on 127.0.0.1 (the methods of [`web`]: `chat.*`, `reactions.*`,
//!   `views.*`, `assistant.threads.*`, `chat.unfurl`, `entity.presentDetails`, `auth.test`,
//!   `oauth.v2.access`, ...; stateful `slackLists.items.*` in [`lists`]; `response_url` posts;
//!   an OpenAI-compatible LLM) that
//!   records every call and answers as strictly as Slack (`unknown_method`, `not_authed`, ...),
//!   faults included (`ok: false`, 429 with `Retry-After`, 5xx, slow answers, an answer lost after
//!   acting, a reset connection);
//! - [`faults`]: the faults `serve` injects, from flags or a JSON script;
//! - [`client`]: Slack's side: signed events, commands, clicks, shortcuts, modal submissions,
//!   options requests, shared links and Work Object clicks sent to a running slackline, each with
//!   ids the simulator minted (a check tells them from others', so a script tells its run's calls);
//! - [`cli`]: the command line (`serve`, `mention`, `dm`, `command`, `click`, `storm`,
//!   `shortcut`, `submit`, `options`, `react`, `home`, `stop`, `step`, `link`,
//!   `entity-details`, the agent's DM, `triage`: `examples/triage`'s flow, `script`: a flow file,
//!   and `advance`: a test build's clock moved for a team).
//!
//! See `docs/simulator.md`.
#![cfg(not(target_arch = "wasm32"))]

pub mod cli;
pub mod client;
pub mod fake;
pub mod faults;
pub mod lists;
pub mod llm;
pub mod messages;
mod reset;
pub mod tiers;
pub mod web;

use std::time::{Duration, Instant};

/// Polls `probe` until it returns `Some`, or panics with `what` after `timeout` (for tests).
/// The polls come 25 ms apart at first, then 25 ms further apart each time up to 100 ms: a probe
/// is often a request to the runtime, and a suite runs many waits at once.
pub fn eventually<T>(what: &str, timeout: Duration, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_millis(25);
    loop {
        if let Some(value) = probe() {
            return value;
        }
        if Instant::now() > deadline {
            panic!("timed out after {timeout:?} waiting for: {what}");
        }
        std::thread::sleep(pause);
        pause = (pause + Duration::from_millis(25)).min(Duration::from_millis(100));
    }
}

/// `slackline-sim`'s main: runs the subcommand in `args`; returns the process exit code (0; 1
/// when slackline or the fake did not answer as expected; 2 for a bad command line, after
/// printing what is wrong; `--help` prints the help and exits 0).
pub fn main(args: Vec<String>) -> i32 {
    let (command, options) = match cli::parse_command_line(&args) {
        Ok(parsed) => parsed,
        Err(e) => {
            let _ = e.print();
            return e.exit_code();
        }
    };
    let outcome = match command.as_str() {
        "serve" => cli::serve(&options).map(|(fake, banner)| {
            println!("{banner}");
            fake.serve_forever();
        }),
        other => cli::run_client(other, &options).map(|report| println!("{report}")),
    };
    match outcome {
        Ok(()) => 0,
        Err(cli::Failure::Usage(usage)) => {
            let e = cli::usage_error(&command, &usage);
            let _ = e.print();
            e.exit_code()
        }
        Err(cli::Failure::Send(e)) => {
            eprintln!("slackline-sim: {e}");
            1
        }
        Err(cli::Failure::Unexpected(why)) => {
            eprintln!("slackline-sim: {why}");
            1
        }
    }
}
