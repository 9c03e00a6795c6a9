//! `slackline-sim script FILE`: a bot's flow as a small text file a bot's own CI can run against
//! `make dev` and the fake Slack — each line one of the simulator's subcommands (what Slack
//! sends), or an `expect` (what slackline must then have sent Slack):
//!
//! ```text
//! # the ticket desk, from /ticket to Take
//! command --name /ticket --text "printer on fire"
//! expect views.open
//! submit --callback-id ticket --field title.title_input="Printer on fire" --field priority.pick=high
//! expect chat.postMessage text~TCK-
//! click --action-id take --last-post
//! expect chat.update
//! ```
//!
//! Rules:
//! - every step runs with the script's `--url`, `--sim`, `--secret`, `--timeout` and **one team**
//!   (`--team`, else a fresh one for the run), given before the step's own flags, so a step's own
//!   win;
//! - `expect METHOD [NAME=VALUE | NAME~TEXT]…` waits (at most the timeout) for a call of METHOD
//!   made since the step before it started, that no earlier `expect` of that step matched, whose
//!   top-level argument NAME is VALUE (`=`) or contains TEXT (`~`); the name `body` is the whole
//!   request as JSON text. A call that never comes ends the run (exit 1) with the calls that did;
//! - words are split as a shell would for the simple cases: spaces, `"…"` and `'…'` quotes,
//!   `\` escapes; `#` starts a comment at the start of a line;
//! - `serve`, `script` and `storm` are not steps.

use super::{parse, run_client, ClientOptions, Failure, Usage};
use crate::sim::client::{fresh_id, SimCall, Target};
use std::time::Duration;

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
    /// The method (or `response_url`).
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
    fn holds(&self, call: &SimCall) -> bool {
        let value = |name: &str| match name {
            "body" => Some(call.json.as_ref().map(|j| j.to_string()).unwrap_or_else(|| serde_json::Value::Object(call.args.clone()).to_string())),
            _ => call.field(name).map(str::to_string),
        };
        match self {
            Check::Equals(name, want) => value(name).as_deref() == Some(want.as_str()),
            Check::Contains(name, part) => value(name).is_some_and(|v| v.contains(part.as_str())),
        }
    }
}

impl Expect {
    fn holds(&self, call: &SimCall) -> bool {
        call.method == self.method && self.checks.iter().all(|c| c.holds(call))
    }
}

/// Runs the script in `file` with `common`'s targets, one team for the whole run; the report,
/// line by line.
pub fn run(common: &ClientOptions, file: &str) -> Result<String, Failure> {
    let text = std::fs::read_to_string(file).map_err(|e| Usage(format!("{file}: {e}")))?;
    let lines = parse_script(&text).map_err(|Usage(why)| Usage(format!("{file}: {why}")))?;
    let target = common.target()?;
    let team = common.team.clone().unwrap_or_else(|| fresh_id("T"));
    let shared = shared_flags(common, &team);
    let (mut out, mut since, mut matched): (Vec<String>, usize, Vec<usize>) = (vec![format!("script {file}, team {team}")], 0, Vec::new());
    for (n, line) in &lines {
        match line {
            Line::Step(words) => {
                since = target.call_count()?;
                matched.clear();
                out.push(format!("\n{n}: {}", words.join(" ")));
                out.push(step(words, &shared).map_err(|e| at_line(*n, e))?);
            }
            Line::Expect(expect) => {
                let found = wait(&target, since, &matched, expect, Duration::from_secs(common.timeout)).map_err(|e| at_line(*n, e))?;
                matched.push(found.index);
                out.push(format!("{n}: ✓ {}", super::describe(&found)));
            }
        }
    }
    Ok(out.join("\n"))
}

/// The flags every step gets first (its own come after, and win).
fn shared_flags(common: &ClientOptions, team: &str) -> Vec<String> {
    let mut flags = vec!["--url".into(), common.url.clone(), "--sim".into(), common.sim.clone(), "--team".into(), team.to_string()];
    flags.extend(["--timeout".to_string(), common.timeout.to_string()]);
    if let Some(secret) = &common.secret {
        flags.extend(["--secret".to_string(), secret.clone()]);
    }
    flags
}

fn step(words: &[String], shared: &[String]) -> Result<String, Failure> {
    let args: Vec<String> = words[..1].iter().chain(shared).chain(&words[1..]).cloned().collect();
    let (command, options) = parse(&args)?;
    run_client(&command, &options)
}

fn wait(target: &Target, since: usize, matched: &[usize], expect: &Expect, timeout: Duration) -> Result<SimCall, Failure> {
    let found = target.wait_for(since, timeout, |c| !matched.contains(&c.index) && c.answer.is_some() && expect.holds(c))?;
    found.ok_or_else(|| {
        let seen = target.calls_after(since).map(|calls| calls.iter().map(super::describe).collect::<Vec<_>>()).unwrap_or_default();
        Failure::Unexpected(format!("expected {} {:?} within {} s; slackline sent since the step: {seen:#?}", expect.method, expect.checks, timeout.as_secs()))
    })
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
