//! `slackline-sim script FILE`: a bot's flow as a small text file a bot's own CI can run against
//! `make dev` and the fake Slack — each line one of the simulator's subcommands (what Slack
//! sends), or an `expect` (what slackline must then have sent Slack, or answered):
//!
//! ```text
//! # the ticket desk, from /ticket to Take
//! command --name /ticket --text "printer on fire"
//! expect ack
//! expect views.open
//! submit --callback-id ticket --field title.title_input="Printer on fire" --field priority.pick=high
//! expect ack body=""
//! expect chat.postMessage text~TCK-
//! click --action-id take --last-post --user U2
//! expect chat.update
//! ```
//!
//! Rules:
//! - every step runs with the script's `--url`, `--sim`, `--secret`, `--timeout` and **one team**
//!   (`--team`, else a fresh one for the run), given before the step's own flags, so a step's own
//!   win; `command` also gets the run's own channel (a fresh one) unless it names one, and
//!   `advance` the script's `--admin-token` and where the last `advance` left the clock;
//! - `expect METHOD [NAME=VALUE | NAME~TEXT]…` waits (at most the timeout) for a call of METHOD
//!   made since the step before it started, that no earlier `expect` of that step matched, whose
//!   top-level argument NAME is VALUE (`=`) or contains TEXT (`~`), and that is **this run's**
//!   ([`owner`]: it holds one of the ids the run's steps minted or used, or the fake answered the
//!   run with; a call holding another run's ids never matches, one holding no minted id at all
//!   may, and its line says so); the name `body` is the whole request as JSON text. A call that
//!   never comes ends the run (exit 1) with the calls that did;
//! - `expect ack [NAME=VALUE | NAME~TEXT]…` checks slackline's answer to the step before it, at
//!   once: `status`, `body` (the whole answer as text) or a top-level field of a JSON answer
//!   (`response_action`, `text`; one that is not text is read as its JSON);
//! - words are split as a shell would for the simple cases: spaces, `"…"` and `'…'` quotes,
//!   `\` escapes; `#` starts a comment at the start of a line;
//! - `serve`, `script` and `storm` are not steps.

use super::{parse, run_step, ClientOptions, Done, Failure, Scope, Usage};
use crate::client::{collecting, fresh_id, Ack, SimCall, Target};
use owner::{Owner, RunIds};
use serde_json::Value;
use std::time::{Duration, Instant};

pub mod owner;

/// One line of a script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// A subcommand and its arguments (as split).
    Step(Vec<String>),
    /// What slackline must have sent since the last step.
    Expect(Expect),
}

/// An `expect` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expect {
    /// The method (or `response_url`, `llm`), or [`ACK`].
    pub method: String,
    /// The argument checks.
    pub checks: Vec<Check>,
}

/// One argument check of an `expect`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// `NAME=VALUE`.
    Equals(String, String),
    /// `NAME~TEXT`.
    Contains(String, String),
}

/// The method name of `expect ack`: the step's own answer, not a call slackline made.
pub const ACK: &str = "ack";

/// Splits `line` into words: spaces separate, `"…"` and `'…'` quote, `\` escapes the next
/// character (outside single quotes).
pub fn split_words(line: &str) -> Result<Vec<String>, String> {
    let (mut words, mut word, mut in_word) = (Vec::new(), String::new(), false);
    let mut quote: Option<char> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"') | None, '\\') => {
                word.push(chars.next().ok_or("a `\\` ends the line")?);
                in_word = true;
            }
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                }
                in_word = false;
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return Err("a quote is not closed".into());
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// Reads a script: its lines, each with its line number (from 1).
pub fn parse_script(text: &str) -> Result<Vec<(usize, Line)>, Usage> {
    let mut lines = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let words = split_words(trimmed).map_err(|why| Usage(format!("line {n}: {why}")))?;
        lines.push((n, line_of(words).map_err(|why| Usage(format!("line {n}: {why}")))?));
    }
    if !lines.iter().any(|(_, l)| matches!(l, Line::Step(_))) {
        return Err(Usage("the script has no step".into()));
    }
    Ok(lines)
}

fn line_of(words: Vec<String>) -> Result<Line, String> {
    match words.first().map(String::as_str) {
        Some("expect") => {
            let method = words.get(1).ok_or("`expect` needs a method (e.g. expect chat.postMessage)")?.clone();
            let checks = words[2..].iter().map(|w| check_of(w)).collect::<Result<_, _>>()?;
            Ok(Line::Expect(Expect { method, checks }))
        }
        Some(sub @ ("serve" | "script" | "storm")) => Err(format!("`{sub}` is not a step of a script")),
        _ => Ok(Line::Step(words)),
    }
}

fn check_of(word: &str) -> Result<Check, String> {
    let at = word.find(['=', '~']).filter(|&i| i > 0).ok_or_else(|| format!("`{word}`: a check is NAME=VALUE or NAME~TEXT"))?;
    let (name, value) = (word[..at].to_string(), word[at + 1..].to_string());
    Ok(if word.as_bytes()[at] == b'=' { Check::Equals(name, value) } else { Check::Contains(name, value) })
}

impl Check {
    /// Whether it holds of the value `value` gives for a name.
    fn holds_of(&self, value: impl Fn(&str) -> Option<String>) -> bool {
        match self {
            Check::Equals(name, want) => value(name).as_deref() == Some(want.as_str()),
            Check::Contains(name, part) => value(name).is_some_and(|v| v.contains(part.as_str())),
        }
    }

    fn holds(&self, call: &SimCall) -> bool {
        self.holds_of(|name| match name {
            "body" => Some(call.json.as_ref().map(|j| j.to_string()).unwrap_or_else(|| serde_json::Value::Object(call.args.clone()).to_string())),
            _ => call.field(name).map(str::to_string),
        })
    }

    /// Whether it holds of an ack: `status`, `body` (its text), or a top-level field of its JSON
    /// (text as it is, anything else as JSON).
    fn holds_of_ack(&self, ack: &Ack) -> bool {
        let json: Option<Value> = serde_json::from_str(&ack.body).ok();
        self.holds_of(|name| match name {
            "status" => Some(ack.status.to_string()),
            "body" => Some(ack.body.clone()),
            _ => json.as_ref()?.get(name).map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string)),
        })
    }
}

impl Expect {
    fn holds(&self, call: &SimCall) -> bool {
        call.method == self.method && self.checks.iter().all(|c| c.holds(call))
    }
}

/// A script's run: where it began in the fake's record, its ids, what the step before answered,
/// and its clock.
#[derive(Debug)]
struct Run {
    /// The fake's count of calls when it began: no call before is its.
    start: usize,
    /// Its ids ([`owner`]).
    ids: RunIds,
    /// slackline's answer to the step before (for `expect ack`).
    ack: Option<Ack>,
    /// Where its last `advance` moved the clock (epoch ms).
    clock: Option<i64>,
}

/// Runs the script in `file` with `common`'s targets, one team for the whole run; the report,
/// line by line.
pub fn run(common: &ClientOptions, file: &str, admin_token: Option<&str>) -> Result<String, Failure> {
    let text = std::fs::read_to_string(file).map_err(|e| Usage(format!("{file}: {e}")))?;
    let lines = parse_script(&text).map_err(|Usage(why)| Usage(format!("{file}: {why}")))?;
    let target = common.target()?;
    let before = target.calls_after(0)?;
    let mut run = Run { start: before.len(), ids: RunIds::default(), ack: None, clock: None };
    run.ids.answered_in(&before);
    let team = common.team.clone().unwrap_or_else(|| fresh_id("T"));
    let channel = fresh_id("C");
    // A team the command line named is not the run's alone: another run may name it too.
    run.ids.add(common.team.is_none().then(|| team.clone()).into_iter().chain([channel.clone()]));
    let shared = Shared { common, team: &team, channel: &channel, admin_token };
    let mut out = vec![format!("script {file}, team {team}")];
    let (mut since, mut matched): (usize, Vec<usize>) = (0, Vec::new());
    for (n, line) in &lines {
        match line {
            Line::Step(words) => {
                since = target.call_count()?;
                matched.clear();
                out.push(format!("\n{n}: {}", words.join(" ")));
                let done = step(&target, &mut run, words, &shared).map_err(|e| at_line(*n, e))?;
                out.push(done.report);
            }
            Line::Expect(expect) if expect.method == ACK => out.push(format!("{n}: {}", ack(run.ack.as_ref(), expect).map_err(|e| at_line(*n, e))?)),
            Line::Expect(expect) => {
                let timeout = Duration::from_secs(common.timeout);
                let (found, owner) = wait(&target, &mut run, since, &matched, expect, timeout).map_err(|e| at_line(*n, e))?;
                matched.push(found.index);
                let note = if owner == Owner::Unknown { " (it holds none of this run's ids: another run's would look the same)" } else { "" };
                out.push(format!("{n}: ✓ {}{note}", super::describe(&found)));
            }
        }
    }
    Ok(out.join("\n"))
}

/// What every step of a run shares.
struct Shared<'a> {
    common: &'a ClientOptions,
    team: &'a str,
    /// The run's own channel: `command`'s, unless it names one.
    channel: &'a str,
    admin_token: Option<&'a str>,
}

impl Shared<'_> {
    /// The flags a step of `subcommand` gets first (its own come after, and win); `clock`: where
    /// the run's last `advance` left it.
    fn flags(&self, subcommand: &str, clock: Option<i64>) -> Vec<String> {
        let common = self.common;
        let mut flags = vec!["--url".into(), common.url.clone(), "--sim".into(), common.sim.clone(), "--team".into(), self.team.to_string()];
        flags.extend(["--timeout".to_string(), common.timeout.to_string()]);
        if let Some(secret) = &common.secret {
            flags.extend(["--secret".to_string(), secret.clone()]);
        }
        match subcommand {
            "command" => flags.extend(["--channel".to_string(), self.channel.to_string()]),
            "advance" => {
                flags.extend(self.admin_token.map(|token| ["--admin-token".to_string(), token.to_string()]).into_iter().flatten());
                flags.extend(clock.map(|at| ["--from".to_string(), at.to_string()]).into_iter().flatten());
            }
            _ => {}
        }
        flags
    }
}

/// Runs one step: the ids it minted and used become the run's, its ack and clock are kept.
fn step(target: &Target, run: &mut Run, words: &[String], shared: &Shared<'_>) -> Result<Done, Failure> {
    run.ids.learn(&target.calls_after(run.start)?);
    run.ids.named_in(words);
    let args: Vec<String> = words[..1].iter().cloned().chain(shared.flags(&words[0], run.clock)).chain(words[1..].iter().cloned()).collect();
    let (command, options) = parse(&args)?;
    let scope = Scope::Run { since: run.start, ids: &run.ids };
    let (done, minted) = collecting(|| run_step(&command, &options, scope));
    run.ids.add(minted);
    let done = done?;
    run.ack = done.ack.clone();
    run.clock = done.clock.or(run.clock);
    Ok(done)
}

/// `expect ack …`: checks the step's answer; its line.
fn ack(ack: Option<&Ack>, expect: &Expect) -> Result<String, Failure> {
    let ack = ack.ok_or_else(|| {
        Failure::Unexpected("`expect ack`: the step before has no one answer to check (`triage` sends many requests, `advance` none to Slack's paths)".into())
    })?;
    let failed: Vec<&Check> = expect.checks.iter().filter(|c| !c.holds_of_ack(ack)).collect();
    if !failed.is_empty() {
        return Err(Failure::Unexpected(format!("expected the ack to hold {failed:?}; slackline answered {}: {:?}", ack.status, ack.body)));
    }
    let body = if ack.body.trim().is_empty() { "(empty)" } else { ack.body.trim() };
    Ok(format!("✓ ack status {}: {body}", ack.status))
}

/// Waits for the first call since the step began (index `since` on) that `expect` holds of, no
/// earlier `expect` of the step `matched`, answered, and not another run's (the run's own first,
/// else one that cannot be told); the call and whose it is.
fn wait(target: &Target, run: &mut Run, since: usize, matched: &[usize], expect: &Expect, timeout: Duration) -> Result<(SimCall, Owner), Failure> {
    let deadline = Instant::now() + timeout;
    loop {
        let calls = target.calls_after(run.start)?;
        run.ids.learn(&calls);
        let candidates = calls.iter().filter(|c| c.index >= since && !matched.contains(&c.index) && c.answer.is_some() && expect.holds(c));
        let owned: Vec<(&SimCall, Owner)> = candidates.map(|c| (c, run.ids.owner(c))).filter(|(_, owner)| *owner != Owner::Other).collect();
        let found = owned.iter().find(|(_, owner)| *owner == Owner::Run).or(owned.first());
        if let Some((call, owner)) = found {
            return Ok(((*call).clone(), *owner));
        }
        if Instant::now() > deadline {
            let seen: Vec<String> = calls
                .iter()
                .filter(|c| c.index >= since)
                .map(|c| match run.ids.owner(c) {
                    Owner::Other => format!("{} (another run's)", super::describe(c)),
                    _ => super::describe(c),
                })
                .collect();
            return Err(Failure::Unexpected(format!(
                "expected {} {:?} within {} s; slackline sent since the step: {seen:#?}",
                expect.method,
                expect.checks,
                timeout.as_secs()
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn at_line(n: usize, failure: Failure) -> Failure {
    match failure {
        Failure::Usage(Usage(why)) => Failure::Usage(Usage(format!("line {n}: {why}"))),
        Failure::Unexpected(why) => Failure::Unexpected(format!("line {n}: {why}")),
        send => send,
    }
}

#[cfg(test)]
mod tests;
