//! `slackline-sim`'s command line: argument parsing (a usage error names what is wrong) and the
//! subcommands. Each subcommand returns its report as text, or an error for `main` to print with
//! a non-zero exit.

use super::client::{direct_message, envelope, fresh_id, fresh_trigger_id, fresh_ts, mention, resolve_click, SendError, SimCall, Target};
use super::faults::Faults;
use super::fake::FakeSlack;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The usage text.
pub const USAGE: &str = "\
slackline-sim: a Slack simulator for slackline (a fake Slack Web API, and Slack's side of events)

usage:
  slackline-sim serve [--port N] [--slow-ms MS] [--fail-rate F] [--ratelimit-rate F]
                      [--retry-after S] [--error METHOD=CODE]... [--script FILE.json] [--seed N]
                      [--enforce-tiers]   answer 429 + Retry-After over Slack's rate tiers
  slackline-sim mention [--text T] [common]   an @-mention; waits for the threaded reply
  slackline-sim dm [--text T] [common]        a direct message; waits for the reply
  slackline-sim command [--text T] [common]   /ask T; waits for the response_url post
  slackline-sim click [common]                a \"Mark resolved\" click; waits for chat.update
  slackline-sim storm [common]                Slack's retries, duplicates and fresh-id copies of
                                              one message; counts the replies (1 is right)

common: --url URL (slackline, default http://127.0.0.1:8787)
        --sim URL (the fake Slack, default http://127.0.0.1:8790)
        --secret S (default: SLACK_SIGNING_SECRET from .dev.vars)
        --team T (default a fresh id)  --timeout S (default 10)
";

/// A command line that could not be understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Usage(pub String);

/// Parsed options: `--name value` pairs (repeatable) after the subcommand.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    values: BTreeMap<String, Vec<String>>,
}

const FLAGS: &[(&str, &[&str])] = &[
    ("serve", &["port", "slow-ms", "fail-rate", "ratelimit-rate", "retry-after", "error", "script", "seed", "enforce-tiers"]),
    ("mention", &["url", "sim", "secret", "team", "timeout", "text"]),
    ("dm", &["url", "sim", "secret", "team", "timeout", "text"]),
    ("command", &["url", "sim", "secret", "team", "timeout", "text"]),
    ("click", &["url", "sim", "secret", "team", "timeout"]),
    ("storm", &["url", "sim", "secret", "team", "timeout"]),
];

/// Flags that take no value (present or not).
const SWITCHES: &[&str] = &["enforce-tiers"];

/// Splits `args` (without the program name) into the subcommand and its options.
pub fn parse(args: &[String]) -> Result<(String, Options), Usage> {
    let Some((command, rest)) = args.split_first() else { return Err(Usage("a subcommand is required".into())) };
    let allowed = FLAGS.iter().find(|(name, _)| name == command).map(|(_, flags)| *flags).ok_or_else(|| Usage(format!("unknown subcommand `{command}`")))?;
    let mut options = Options::default();
    let mut it = rest.iter();
    while let Some(arg) = it.next() {
        let name = arg.strip_prefix("--").ok_or_else(|| Usage(format!("unexpected argument `{arg}`")))?;
        let (name, inline) = match name.split_once('=') {
            Some((n, v)) if !allowed.contains(&name) => (n, Some(v.to_string())),
            _ => (name, None),
        };
        if !allowed.contains(&name) {
            return Err(Usage(format!("`{command}` takes no --{name}")));
        }
        let value = match inline {
            Some(_) if SWITCHES.contains(&name) => return Err(Usage(format!("--{name} takes no value"))),
            Some(v) => v,
            None if SWITCHES.contains(&name) => "on".to_string(),
            None => it.next().cloned().ok_or_else(|| Usage(format!("--{name} needs a value")))?,
        };
        options.values.entry(name.to_string()).or_default().push(value);
    }
    Ok((command.clone(), options))
}

impl Options {
    /// Whether a switch (`--enforce-tiers`) was given.
    pub fn switch(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    fn one(&self, name: &str) -> Option<&str> {
        self.values.get(name).and_then(|v| v.last()).map(String::as_str)
    }

    fn number<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, Usage> {
        match self.one(name) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| Usage(format!("--{name} must be a number, not `{v}`"))),
        }
    }

    /// The faults `serve` was asked for (a script first, flags over it).
    pub fn faults(&self) -> Result<Faults, Usage> {
        let mut faults = match self.one("script") {
            Some(path) => {
                let text = std::fs::read_to_string(path).map_err(|e| Usage(format!("--script {path}: {e}")))?;
                Faults::from_script(&text).map_err(|e| Usage(e.0))?
            }
            None => Faults::default(),
        };
        faults.slow_ms = self.number("slow-ms", faults.slow_ms)?;
        faults.fail_rate = self.number("fail-rate", faults.fail_rate)?;
        faults.ratelimit_rate = self.number("ratelimit-rate", faults.ratelimit_rate)?;
        faults.retry_after_s = Some(self.number("retry-after", faults.retry_after_s.unwrap_or(1))?);
        faults.seed = Some(self.number("seed", faults.seed.unwrap_or(1))?);
        for pair in self.values.get("error").into_iter().flatten() {
            let (method, code) = pair.split_once('=').ok_or_else(|| Usage(format!("--error takes METHOD=CODE, not `{pair}`")))?;
            faults.errors.insert(method.to_string(), code.to_string());
        }
        faults.check().map_err(|e| Usage(e.0))?;
        Ok(faults)
    }

    fn target(&self) -> Result<Target, Usage> {
        let secret = match self.one("secret") {
            Some(s) => s.to_string(),
            None => dev_vars_secret().ok_or_else(|| Usage("no --secret, and no SLACK_SIGNING_SECRET in .dev.vars (run from the project, or pass --secret)".into()))?,
        };
        Target::new(self.one("url").unwrap_or("http://127.0.0.1:8787"), self.one("sim").unwrap_or("http://127.0.0.1:8790"), &secret).map_err(|e| Usage(e.to_string()))
    }
}

/// `SLACK_SIGNING_SECRET` from `.dev.vars` in the current directory.
pub fn dev_vars_secret() -> Option<String> {
    let text = std::fs::read_to_string(".dev.vars").ok()?;
    text.lines().filter_map(|l| l.trim().strip_prefix("SLACK_SIGNING_SECRET=")).map(|v| v.trim().trim_matches('"').to_string()).find(|v| !v.is_empty())
}

/// What a subcommand ended with.
#[derive(Debug)]
pub enum Failure {
    /// A bad command line (exit 2, with the usage).
    Usage(Usage),
    /// A request failed (exit 1).
    Send(SendError),
    /// slackline did not do what Slack would see it do (exit 1).
    Unexpected(String),
}

impl From<Usage> for Failure {
    fn from(u: Usage) -> Failure {
        Failure::Usage(u)
    }
}

impl From<SendError> for Failure {
    fn from(e: SendError) -> Failure {
        Failure::Send(e)
    }
}

/// Starts the fake Slack on `--port` (0: a free one) and returns it with its banner.
pub fn serve(options: &Options) -> Result<(FakeSlack, String), Failure> {
    let faults = options.faults()?;
    let port: u16 = options.number("port", 8790)?;
    let fake = FakeSlack::start_on(port).map_err(|e| Failure::Unexpected(format!("cannot listen on 127.0.0.1:{port}: {e} (is another server using the port? pick one with --port)")))?;
    if faults.any() {
        let mut choose = faults.chooser();
        fake.script_default(Box::new(move |call| choose(&call.method)));
    }
    let tiers = options.switch("enforce-tiers");
    if tiers {
        fake.enforce_tiers();
    }
    let banner = format!(
        "fake Slack on http://127.0.0.1:{}\n  SLACK_API_URL={}\n  calls so far: {}/_sim/calls\n  faults: {faults:?}\n  rate tiers enforced: {}\n",
        fake.port(),
        fake.api_url(),
        fake.base_url(),
        if tiers { "yes (429 + Retry-After over a method's tier, or 1 post/s per channel)" } else { "no" }
    );
    Ok((fake, banner))
}

fn describe(call: &SimCall) -> String {
    let field = |name: &str| call.field(name).map(|v| format!(" {name}={v}")).unwrap_or_default();
    format!("{}{}{}{}{}", call.method, field("channel"), field("thread_ts"), field("ts"), call.field("text").map(|t| format!(" text=\"{t}\"")).unwrap_or_default())
}

fn acked(ack: &super::client::Ack) -> Result<String, Failure> {
    match ack.status {
        200 => Ok(format!("→ slackline acked in {} ms", ack.took.as_millis())),
        status => Err(Failure::Unexpected(format!("slackline answered {status}: {}", ack.body))),
    }
}

fn delivered(target: &Target, before: usize, sent_at: Instant, timeout: Duration, what: &str, matches: impl Fn(&SimCall) -> bool) -> Result<String, Failure> {
    let call = target.wait_for(before, timeout, matches)?.ok_or_else(|| Failure::Unexpected(format!("no {what} reached the fake Slack within {} s", timeout.as_secs())))?;
    Ok(format!("← {}\n  delivered {} ms after the ack", describe(&call), sent_at.elapsed().as_millis()))
}

/// Runs one client subcommand against a running slackline and fake Slack.
pub fn run_client(command: &str, options: &Options) -> Result<String, Failure> {
    let target = options.target()?;
    let timeout = Duration::from_secs(options.number("timeout", 10)?);
    let team = options.one("team").map(str::to_string).unwrap_or_else(|| fresh_id("T"));
    let text = options.one("text").unwrap_or("hello from slackline-sim").to_string();
    let before = target.call_count()?;
    match command {
        "mention" => {
            let (channel, ts) = (fresh_id("C"), fresh_ts());
            let ack = target.event(&envelope(&team, &fresh_id("Ev"), mention(&channel, &ts, &text)), &[])?;
            let head = acked(&ack)?;
            let tail = delivered(&target, before, ack.at, timeout, "threaded reply", |c| c.method == "chat.postMessage" && c.field("channel") == Some(&channel) && c.field("thread_ts") == Some(&ts))?;
            Ok(format!("{head}\n{tail}"))
        }
        "dm" => {
            let (channel, ts) = (fresh_id("D"), fresh_ts());
            let ack = target.event(&envelope(&team, &fresh_id("Ev"), direct_message(&channel, &ts, &text)), &[])?;
            let head = acked(&ack)?;
            Ok(format!("{head}\n{}", delivered(&target, before, ack.at, timeout, "reply", |c| c.method == "chat.postMessage" && c.field("channel") == Some(&channel))?))
        }
        "command" => {
            let hook = fresh_id("hook");
            let response_url = target.response_url(&hook);
            let trigger = fresh_trigger_id();
            let fields = [("command", "/ask"), ("text", text.as_str()), ("team_id", &team), ("channel_id", "C0SIM"), ("user_id", "U1"), ("response_url", &response_url), ("trigger_id", &trigger)];
            let ack = target.command(&fields)?;
            let head = format!("{} ({})", acked(&ack)?, ack.body);
            Ok(format!("{head}\n{}", delivered(&target, before, ack.at, timeout, "response_url post", |c| c.method == "response_url" && c.path.ends_with(&hook))?))
        }
        "click" => {
            let (channel, ts) = (fresh_id("C"), fresh_ts());
            let ack = target.interaction(&resolve_click(&team, &channel, &ts))?;
            let head = acked(&ack)?;
            Ok(format!("{head}\n{}", delivered(&target, before, ack.at, timeout, "chat.update", |c| c.method == "chat.update" && c.field("ts") == Some(&ts))?))
        }
        "storm" => storm(&target, &team, before, timeout),
        other => Err(Failure::Usage(Usage(format!("unknown subcommand `{other}`")))),
    }
}

/// Slack's delivery behaviour for one message: the envelope, its retries 1..3 (with
/// `X-Slack-Retry-Reason`), 5 concurrent duplicates, and 3 copies with fresh `event_id`s. One
/// reply is right.
fn storm(target: &Target, team: &str, before: usize, timeout: Duration) -> Result<String, Failure> {
    let (channel, ts, event_id) = (fresh_id("C"), fresh_ts(), fresh_id("Ev"));
    let event = mention(&channel, &ts, "storm");
    let original = envelope(team, &event_id, event.clone());
    let mut statuses = vec![target.event(&original, &[])?.status];
    for n in 1..=3 {
        let retry = n.to_string();
        statuses.push(target.event(&original, &[("x-slack-retry-num", &retry), ("x-slack-retry-reason", "http_timeout")])?.status);
    }
    let duplicates: Vec<Result<u16, SendError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..5).map(|_| scope.spawn(|| target.event(&original, &[]).map(|a| a.status))).collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(SendError::Other("a sender panicked".into())))).collect()
    });
    for status in duplicates {
        statuses.push(status?);
    }
    for _ in 0..3 {
        statuses.push(target.event(&envelope(team, &fresh_id("Ev"), event.clone()), &[])?.status);
    }
    let is_reply = |c: &SimCall| c.method == "chat.postMessage" && c.field("channel") == Some(&channel) && c.field("thread_ts") == Some(&ts);
    target.wait_for(before, timeout, is_reply)?.ok_or_else(|| Failure::Unexpected("no reply reached the fake Slack".into()))?;
    // Quiet period: a second reply, if any, would come within the next sweeps.
    std::thread::sleep(Duration::from_secs(2));
    let replies = target.calls_after(before)?.iter().filter(|c| is_reply(c)).count();
    let summary = format!(
        "sent 12 deliveries of one message (1 original, retries 1..3, 5 concurrent duplicates, 3 fresh event_id copies): answers {statuses:?}\nreplies: {replies} (1 is right)"
    );
    match replies {
        1 => Ok(summary),
        _ => Err(Failure::Unexpected(summary)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn flags_are_parsed_per_subcommand() {
        let (command, options) = parse(&args("serve --port 0 --fail-rate 0.2 --error chat.postMessage=not_in_channel --error chat.update=cant_update_message")).unwrap();
        assert_eq!(command, "serve");
        let faults = options.faults().unwrap();
        assert_eq!((faults.fail_rate, faults.errors.len()), (0.2, 2));
        let (_, serve) = parse(&args("serve --enforce-tiers --port 0")).unwrap();
        assert!(serve.switch("enforce-tiers") && !options.switch("enforce-tiers"));
        let (_, options) = parse(&args("mention --url=http://127.0.0.1:9 --text hi")).unwrap();
        assert_eq!(options.one("url"), Some("http://127.0.0.1:9"));
    }

    #[test]
    fn bad_flags_give_a_usage_error_naming_them() {
        let err = |line: &str| parse(&args(line)).unwrap_err().0;
        assert!(err("").contains("subcommand"));
        assert!(err("launch").contains("unknown subcommand `launch`"));
        assert!(err("serve --url x").contains("takes no --url"));
        assert!(err("serve --enforce-tiers=yes").contains("--enforce-tiers takes no value"));
        assert!(err("serve --port").contains("--port needs a value"));
        assert!(err("mention hello").contains("unexpected argument `hello`"));
        let (_, options) = parse(&args("serve --fail-rate lots")).unwrap();
        assert!(options.faults().unwrap_err().0.contains("--fail-rate must be a number"));
        let (_, options) = parse(&args("serve --fail-rate 2")).unwrap();
        assert!(options.faults().unwrap_err().0.contains("fail_rate must be between 0 and 1"));
        let (_, options) = parse(&args("serve --error nope")).unwrap();
        assert!(options.faults().unwrap_err().0.contains("METHOD=CODE"));
    }

    #[test]
    fn a_port_in_use_and_a_dead_server_are_clear_errors() {
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = taken.local_addr().unwrap().port().to_string();
        let (_, options) = parse(&["serve".into(), "--port".into(), port]).unwrap();
        match serve(&options) {
            Err(Failure::Unexpected(why)) => assert!(why.contains("cannot listen"), "{why}"),
            other => panic!("{:?}", other.map(|(_, banner)| banner)),
        }
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let url = format!("http://127.0.0.1:{closed}");
        let (_, options) = parse(&["mention".into(), "--url".into(), url.clone(), "--sim".into(), url, "--secret".into(), "s".into()]).unwrap();
        match run_client("mention", &options) {
            Err(Failure::Send(SendError::NotRunning(_))) => {}
            other => panic!("{other:?}"),
        }
    }
}
