//! `slackline-sim`'s command line, parsed by clap (derive): `slackline-sim <sub> --help` shows
//! the subcommand's options; a usage error names what is wrong (exit 2). Each subcommand returns
//! its report as text, or an error for `main` to print with a non-zero exit.

use super::client::Ack;
use super::client::{
    agent_message, agent_opened, agent_session_stopped, app_context_changed, app_home_opened, app_rate_limited, block_suggestion, button_click_in,
    direct_message, envelope, fresh_id, fresh_trigger_id, fresh_ts, function_executed, global_shortcut, mention, message_shortcut, note_used, reaction_added,
    resolve_click, view_submission_by, SendError, SimCall, Target, EXECUTION_TOKEN_PREFIX,
};
use super::fake::FakeSlack;
use super::faults::Faults;
use clap::{Args, CommandFactory, Parser, Subcommand};
use serde_json::{json, Value};
use slackline::internal::slack::method;
use std::time::{Duration, Instant};

/// The command line.
#[derive(Debug, Parser)]
#[command(
    name = "slackline-sim",
    about = "A Slack simulator for slackline: a fake Slack Web API, and Slack's side of events",
    after_help = "See docs/simulator.md.",
    subcommand_required = true,
    arg_required_else_help = true,
    args_override_self = true
)]
struct Cli {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Debug, Subcommand)]
enum Sub {
    /// Runs the fake Slack (Web API, response_url, LLM) on 127.0.0.1 until stopped.
    #[command(args_override_self = true)]
    Serve(ServeOptions),
    /// Sends an @-mention of the bot; waits for the threaded reply.
    #[command(args_override_self = true)]
    Mention(TextOptions),
    /// Sends a direct message to the bot; waits for the reply.
    #[command(args_override_self = true)]
    Dm(TextOptions),
    /// Sends a slash command (`--name`, default `/ask`: then waits for the response_url post); prints the ack's body.
    #[command(args_override_self = true)]
    Command(CommandOptions),
    /// Clicks a button (`--action-id`) on a message the bot posted, as Slack sends it; without --action-id, "Mark resolved" (waits for its chat.update).
    #[command(args_override_self = true)]
    Click(ClickOptions),
    /// Sends a message a user wrote in a channel (or a thread of it); prints the ack.
    #[command(args_override_self = true)]
    Message(MessageOptions),
    /// Runs a script: steps (these subcommands), `expect METHOD [NAME=VALUE|NAME~TEXT]…` and `expect ack …` lines, one team for the run.
    #[command(args_override_self = true)]
    Script(ScriptOptions),
    /// Sends Slack's retries, duplicates and fresh-id copies of one message; counts the replies (1 is right).
    #[command(args_override_self = true)]
    Storm(ClientOptions),
    /// Sends Slack's `app_rate_limited` notice for the team (this minute); prints the ack.
    #[command(args_override_self = true, name = "rate-limited")]
    RateLimited(ClientOptions),
    /// Runs a global shortcut (`--message`: a message shortcut); prints the ack.
    #[command(args_override_self = true)]
    Shortcut(ShortcutOptions),
    /// Submits a modal (`view_submission`) with input values; prints the ack's body (the `response_action`).
    #[command(args_override_self = true)]
    Submit(SubmitOptions),
    /// Asks for an external select's options (`block_suggestion`); prints the ack's body (the options).
    #[command(args_override_self = true)]
    Options(SuggestOptions),
    /// Sends a `reaction_added` by U1 on a message; prints the ack.
    #[command(args_override_self = true)]
    React(ReactOptions),
    /// Sends an `app_home_opened` (the Home tab) for U1; prints the ack.
    #[command(args_override_self = true)]
    Home(InputOptions),
    /// Presses Stop on the agent's answer in a thread (`agent_session_stopped` for U1); prints the ack.
    #[command(args_override_self = true)]
    Stop(StopOptions),
    /// Runs the app's Workflow Builder step (`function_executed`, with a per-execution token); prints the ack and the execution id.
    #[command(args_override_self = true)]
    Step(StepOptions),
    /// Shares links of the app's domains (`link_shared` by U1, in a posted message or the composer); prints the ack and the sharing's unfurl_id.
    #[command(args_override_self = true)]
    Link(unfurl::LinkOptions),
    /// Clicks a Work Object (`entity_details_requested` by U1, with a fresh trigger_id); prints the ack and the trigger.
    #[command(args_override_self = true, name = "entity-details")]
    EntityDetails(unfurl::DetailsOptions),
    /// Opens the agent's DM on its Messages tab (`app_home_opened`, tab `messages`); prints the ack.
    #[command(args_override_self = true, name = "agent-open")]
    AgentOpen(agent::OpenOptions),
    /// Writes in the agent's DM: a top-level message (its own thread's root), or with --thread a reply; prints the ack and the message's ts.
    #[command(args_override_self = true, name = "agent-dm")]
    AgentDm(agent::DmOptions),
    /// Changes what the user looks at beside the agent's DM (`app_context_changed`): a channel, canvas, list or message; prints the ack.
    #[command(args_override_self = true)]
    Context(agent::ContextOptions),
    /// Runs examples/triage's flow: /incident, its modal submitted, Acknowledge, Resolve; prints what Slack received at each step.
    #[command(args_override_self = true)]
    Triage(ClientOptions),
    /// Moves a test build's clock for the team (`--to TIME` or `--by 24h`): the schedules due by then fire; prints what fired.
    #[command(args_override_self = true)]
    Advance(advance::AdvanceOptions),
}

/// `serve`'s options. The fault flags override `--script`'s values.
#[derive(Debug, Clone, Default, PartialEq, Args)]
pub struct ServeOptions {
    /// Port on 127.0.0.1 (0: a free one, printed)
    #[arg(long, value_name = "N", default_value_t = 8790)]
    pub port: u16,
    /// Wait this long before every answer [default: 0]
    #[arg(long, value_name = "MS")]
    pub slow_ms: Option<u64>,
    /// Share of calls answered HTTP 503, 0 to 1 [default: 0]
    #[arg(long, value_name = "F")]
    pub fail_rate: Option<f64>,
    /// Share of calls answered HTTP 429 with Retry-After, 0 to 1 [default: 0]
    #[arg(long, value_name = "F")]
    pub ratelimit_rate: Option<f64>,
    /// The 429s' Retry-After, seconds [default: 1]
    #[arg(long, value_name = "S")]
    pub retry_after: Option<u64>,
    /// Every call of METHOD answers {"ok": false, "error": CODE} (repeatable)
    #[arg(long = "error", value_name = "METHOD=CODE", value_parser = method_and_code, action = clap::ArgAction::Append)]
    pub errors: Vec<(String, String)>,
    /// A JSON fault script (seed, slow_ms, fail_rate, ratelimit_rate, retry_after_s, errors)
    #[arg(long, value_name = "FILE.json")]
    pub script: Option<String>,
    /// Seed of the fault draws, so a run repeats [default: 1]
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Answer 429 + Retry-After over Slack's rate tiers (per token and method, 1 post/s per channel)
    #[arg(long)]
    pub enforce_tiers: bool,
}

/// The options every client subcommand takes.
#[derive(Debug, Clone, PartialEq, Args)]
pub struct ClientOptions {
    /// slackline's base URL
    #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:8787")]
    pub url: String,
    /// The fake Slack's base URL
    #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:8790")]
    pub sim: String,
    /// slackline's signing secret [default: SLACK_SIGNING_SECRET from ./.dev.vars]
    #[arg(long, value_name = "S")]
    pub secret: Option<String>,
    /// The team id [default: a fresh one]
    #[arg(long, value_name = "T")]
    pub team: Option<String>,
    /// Seconds to wait for the reply (for each `expect` of a script)
    #[arg(long, value_name = "S", default_value_t = DEFAULT_TIMEOUT_S)]
    pub timeout: u64,
}

/// `--timeout`'s default, for every client subcommand and `script` (so `make flow`, `make try` and
/// a bot's CI wait as long as a flow run by hand): 20 s, room for a bot's first request to start
/// its actor under a loaded machine.
pub const DEFAULT_TIMEOUT_S: u64 = 20;

/// `mention`, `dm` and `command`: the client options and the message's text.
#[derive(Debug, Clone, PartialEq, Args)]
pub struct TextOptions {
    #[command(flatten)]
    common: ClientOptions,
    /// The text of the message (of `/ask`, for `command`)
    #[arg(long, value_name = "T", default_value = "hello from slackline-sim")]
    text: String,
}

/// `command`'s options.
#[derive(Debug, Clone, PartialEq, Args)]
pub struct CommandOptions {
    #[command(flatten)]
    input: InputOptions,
    /// The command's name [default: /ask, and then wait for its response_url post]
    #[arg(long, value_name = "/NAME")]
    name: Option<String>,
    /// The text after the command
    #[arg(long, value_name = "T", default_value = "hello from slackline-sim")]
    text: String,
    /// The channel it is run in
    #[arg(long, value_name = "C", default_value = "C0SIM")]
    channel: String,
    /// Who runs it
    #[arg(long, value_name = "U", default_value = "U1")]
    user: String,
}

/// `click`'s options.
#[derive(Debug, Clone, PartialEq, Args)]
pub struct ClickOptions {
    #[command(flatten)]
    input: InputOptions,
    /// The button's action_id [default: "Mark resolved" on a fresh message]
    #[arg(long, value_name = "A")]
    action_id: Option<String>,
    /// The button's block_id [default: the posted button's]
    #[arg(long, value_name = "B")]
    block_id: Option<String>,
    /// The button's value [default: the posted button's]
    #[arg(long, value_name = "V")]
    value: Option<String>,
    /// The message's channel [default: the newest post holding the button]
    #[arg(long, value_name = "C")]
    channel: Option<String>,
    /// The message's ts [default: the newest post holding the button]
    #[arg(long, value_name = "TS")]
    ts: Option<String>,
    /// The newest message the bot posted or updated that holds the button (the default when --ts is not given)
    #[arg(long)]
    last_post: bool,
    /// Who clicks
    #[arg(long, value_name = "U", default_value = "U1")]
    user: String,
}

/// `message`'s options.
#[derive(Debug, Clone, PartialEq, Args)]
pub struct MessageOptions {
    #[command(flatten)]
    input: InputOptions,
    /// The channel [default: a fresh one]
    #[arg(long, value_name = "C")]
    channel: Option<String>,
    /// The text
    #[arg(long, value_name = "T", default_value = "hello from slackline-sim")]
    text: String,
    /// The thread it replies in [default: none, a top-level message]
    #[arg(long, value_name = "TS")]
    thread: Option<String>,
    /// Who writes it
    #[arg(long, value_name = "U", default_value = "U1")]
    user: String,
}

/// `script`'s options.
#[derive(Debug, Clone, PartialEq, Args)]
pub struct ScriptOptions {
    #[command(flatten)]
    common: ClientOptions,
    /// slackline's admin token, for `advance` steps [default: ADMIN_TOKEN from ./.dev.vars]
    #[arg(long, value_name = "TOKEN")]
    admin_token: Option<String>,
    /// The script
    #[arg(value_name = "FILE")]
    file: String,
}

/// The subcommands that send Slack's other inputs (`shortcut`, `submit`, `options`, `react`,
/// `home`): the client options, and a method to wait for, since an app may answer these or not.
#[derive(Debug, Clone, PartialEq, Args)]
pub struct InputOptions {
    #[command(flatten)]
    common: ClientOptions,
    /// After the ack, wait for a call of METHOD (e.g. views.open, chat.postMessage) to the fake Slack and print it
    #[arg(long, value_name = "METHOD")]
    wait: Option<String>,
}

/// `shortcut`'s options.
#[derive(Debug, Clone, PartialEq, Args)]
pub struct ShortcutOptions {
    #[command(flatten)]
    input: InputOptions,
    /// The shortcut's callback_id
    #[arg(long, value_name = "ID")]
    callback_id: String,
    /// A message shortcut (`message_action`, on a message, with a response_url) instead of a global one
    #[arg(long)]
    message: bool,
}

/// `submit`'s options.
#[derive(Debug, Clone, PartialEq, Args)]
pub struct SubmitOptions {
    #[command(flatten)]
    input: InputOptions,
    /// The modal's callback_id
    #[arg(long, value_name = "ID")]
    callback_id: String,
    /// A plain_text_input's value in state.values (repeatable)
    #[arg(long = "value", value_name = "BLOCK.ACTION=VALUE", value_parser = block_action_value, action = clap::ArgAction::Append)]
    values: Vec<(String, String, String)>,
    /// An input's value, shaped by its element in the modal the bot opened: a select's option value, a date YYYY-MM-DD, checkboxes' values separated by commas (repeatable)
    #[arg(long = "field", value_name = "BLOCK.ACTION=VALUE", value_parser = block_action_value, action = clap::ArgAction::Append)]
    fields: Vec<(String, String, String)>,
    /// Who submits it (the payload's user.id)
    #[arg(long, value_name = "U", default_value = "U1")]
    user: String,
}

/// `options`' options.
#[derive(Debug, Clone, PartialEq, Args)]
pub struct SuggestOptions {
    #[command(flatten)]
    input: InputOptions,
    /// The external select's action_id
    #[arg(long, value_name = "ID")]
    action_id: String,
    /// The external select's block_id
    #[arg(long, value_name = "ID", default_value = "sim_block")]
    block_id: String,
    /// What the user typed
    #[arg(long, value_name = "Q", default_value = "")]
    query: String,
}

/// `react`'s options.
#[derive(Debug, Clone, PartialEq, Args)]
pub struct ReactOptions {
    #[command(flatten)]
    input: InputOptions,
    /// The emoji's name, without colons (e.g. eyes)
    #[arg(long, value_name = "EMOJI")]
    name: String,
    /// The message's channel [default: a fresh one]
    #[arg(long, value_name = "C")]
    channel: Option<String>,
    /// The message's ts [default: a fresh one]
    #[arg(long, value_name = "TS")]
    ts: Option<String>,
}

/// `step`'s options.
#[derive(Debug, Clone, PartialEq, Args)]
pub struct StepOptions {
    #[command(flatten)]
    input: InputOptions,
    /// The step's callback_id (the manifest's function)
    #[arg(long, value_name = "ID")]
    callback_id: String,
    /// An input of the step, as text (repeatable)
    #[arg(long = "input", value_name = "NAME=VALUE", value_parser = name_value, action = clap::ArgAction::Append)]
    inputs: Vec<(String, String)>,
}

/// `stop`'s options.
#[derive(Debug, Clone, PartialEq, Args)]
pub struct StopOptions {
    #[command(flatten)]
    input: InputOptions,
    /// The conversation (the agent's DM, or a channel)
    #[arg(long, value_name = "D")]
    channel: String,
    /// The thread whose answer is stopped
    #[arg(long, value_name = "TS")]
    thread: String,
    /// The streaming message Stop was pressed on [default: none named]
    #[arg(long = "stream-ts", value_name = "TS")]
    stream_ts: Option<String>,
}

/// One of Slack's inputs that an app may or may not answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// `shortcut`: a global shortcut, or with `message` a message shortcut.
    Shortcut {
        /// `--callback-id`.
        callback_id: String,
        /// `--message`.
        message: bool,
    },
    /// `submit`: a `view_submission`.
    Submit {
        /// `--callback-id`.
        callback_id: String,
        /// `--value`s, as `(block_id, action_id, value)`.
        values: Vec<(String, String, String)>,
        /// `--field`s, as `(block_id, action_id, value)`.
        fields: Vec<(String, String, String)>,
        /// `--user`.
        user: String,
    },
    /// `command --name`: a slash command.
    Command {
        /// `--name`.
        name: String,
        /// `--text`.
        text: String,
        /// `--channel`.
        channel: String,
        /// `--user`.
        user: String,
    },
    /// `click --action-id`: a `block_actions` on a message.
    Click {
        /// `--action-id`.
        action_id: String,
        /// `--block-id`.
        block_id: Option<String>,
        /// `--value`.
        value: Option<String>,
        /// `--channel`.
        channel: Option<String>,
        /// `--ts`.
        ts: Option<String>,
        /// `--user`.
        user: String,
    },
    /// `message`: a `message` a user wrote.
    Message {
        /// `--channel`.
        channel: Option<String>,
        /// `--text`.
        text: String,
        /// `--thread`.
        thread_ts: Option<String>,
        /// `--user`.
        user: String,
    },
    /// `options`: a `block_suggestion`.
    Suggest {
        /// `--action-id`.
        action_id: String,
        /// `--block-id`.
        block_id: String,
        /// `--query`.
        query: String,
    },
    /// `react`: a `reaction_added`.
    React {
        /// `--name`.
        name: String,
        /// `--channel`.
        channel: Option<String>,
        /// `--ts`.
        ts: Option<String>,
    },
    /// `home`: an `app_home_opened`.
    Home,
    /// `step`: a `function_executed`.
    Step {
        /// `--callback-id`.
        callback_id: String,
        /// `--input`s.
        inputs: Vec<(String, String)>,
    },
    /// `link`: a `link_shared`.
    Link {
        /// `--url`s.
        urls: Vec<String>,
        /// `--channel`.
        channel: Option<String>,
        /// `--source`: `conversations_history` or `composer`.
        source: String,
    },
    /// `entity-details`: an `entity_details_requested`.
    EntityDetails {
        /// `--url`.
        url: String,
        /// `--id` (or the URL's last path segment).
        id: String,
        /// `--channel`.
        channel: Option<String>,
        /// `--ts`.
        ts: Option<String>,
    },
    /// `stop`: an `agent_session_stopped`.
    Stop {
        /// `--channel`.
        channel: String,
        /// `--thread`.
        thread_ts: String,
        /// `--stream-ts`.
        stream_ts: Option<String>,
    },
    /// `agent-open`: an `app_home_opened` on the Messages tab.
    AgentOpen {
        /// `--user`.
        user: String,
        /// `--dm`.
        dm: String,
    },
    /// `agent-dm`: a message in the agent's DM.
    AgentDm {
        /// `--user`.
        user: String,
        /// `--dm`.
        dm: String,
        /// `--text`.
        text: String,
        /// `--thread`: the thread it replies in (none: top-level).
        thread_ts: Option<String>,
    },
    /// `context`: an `app_context_changed`.
    Context {
        /// `--user`.
        user: String,
        /// `--dm`.
        dm: String,
        /// What `--channel`, `--canvas`, `--list`, `--message` name, in Slack's shape (the
        /// team's id is added when sent).
        entities: Vec<serde_json::Value>,
    },
}

/// A command line, a setting or a file that could not be used (exit 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Usage(pub String);

/// The parsed options of a subcommand.
#[derive(Debug, Clone, PartialEq)]
pub enum Options {
    /// `serve`'s.
    Serve(ServeOptions),
    /// `script`'s.
    Script {
        /// The common ones.
        common: ClientOptions,
        /// The script's path.
        file: String,
        /// `--admin-token`, for its `advance` steps.
        admin_token: Option<String>,
    },
    /// `advance`'s.
    Advance {
        /// The common ones.
        common: ClientOptions,
        /// Where the clock goes.
        clock: advance::Clock,
    },
    /// A client subcommand's; `text` only for `mention`, `dm` and `command`.
    Client {
        /// The common ones.
        common: ClientOptions,
        /// `--text`.
        text: Option<String>,
    },
    /// `shortcut`, `submit`, `options`, `react`, `home`, `stop`, `step`, `link`,
    /// `entity-details`, `agent-open`, `agent-dm` or `context`'s.
    Input {
        /// The common ones.
        common: ClientOptions,
        /// `--wait`: the method of a call to the fake Slack to wait for after the ack.
        wait: Option<String>,
        /// What to send.
        input: Input,
    },
}

fn block_action_value(text: &str) -> Result<(String, String, String), String> {
    match text.split_once('=').map(|(key, value)| (key.split_once('.'), value)) {
        Some((Some((block, action)), value)) if !block.is_empty() && !action.is_empty() => Ok((block.into(), action.into(), value.into())),
        _ => Err(format!("--value takes BLOCK.ACTION=VALUE, not `{text}`")),
    }
}

fn name_value(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.into(), value.into())),
        _ => Err(format!("--input takes NAME=VALUE, not `{text}`")),
    }
}

fn method_and_code(pair: &str) -> Result<(String, String), String> {
    match pair.split_once('=') {
        Some((method, code)) if !method.is_empty() && !code.is_empty() => Ok((method.to_string(), code.to_string())),
        _ => Err(format!("--error takes METHOD=CODE, not `{pair}`")),
    }
}

/// Splits `args` (without the program name) into the subcommand and its options; a clap error
/// (also `--help`, whose exit code is 0) as clap renders it.
pub fn parse_command_line(args: &[String]) -> Result<(String, Options), clap::Error> {
    let cli = Cli::try_parse_from(std::iter::once("slackline-sim".to_string()).chain(args.iter().cloned()))?;
    let client = |common: ClientOptions, text: Option<String>| Options::Client { common, text };
    let input = |name: &str, o: InputOptions, input: Input| (name.to_string(), Options::Input { common: o.common, wait: o.wait, input });
    Ok(match cli.command {
        Sub::Serve(options) => ("serve".into(), Options::Serve(options)),
        Sub::Mention(o) => ("mention".into(), client(o.common, Some(o.text))),
        Sub::Dm(o) => ("dm".into(), client(o.common, Some(o.text))),
        Sub::Command(CommandOptions { input: o, name: None, text, .. }) => ("command".into(), client(o.common, Some(text))),
        Sub::Command(CommandOptions { input: o, name: Some(name), text, channel, user }) => input("command", o, Input::Command { name, text, channel, user }),
        Sub::Click(ClickOptions { input: o, action_id: None, .. }) => ("click".into(), client(o.common, None)),
        Sub::Click(ClickOptions { input: o, action_id: Some(action_id), block_id, value, channel, ts, last_post: _, user }) => {
            input("click", o, Input::Click { action_id, block_id, value, channel, ts, user })
        }
        Sub::Message(o) => input("message", o.input, Input::Message { channel: o.channel, text: o.text, thread_ts: o.thread, user: o.user }),
        Sub::Script(o) => ("script".into(), Options::Script { common: o.common, file: o.file, admin_token: o.admin_token }),
        Sub::Advance(o) => ("advance".into(), Options::Advance { common: o.common, clock: o.clock }),
        Sub::Storm(common) => ("storm".into(), client(common, None)),
        Sub::RateLimited(common) => ("rate-limited".into(), client(common, None)),
        Sub::Triage(common) => ("triage".into(), client(common, None)),
        Sub::Shortcut(o) => input("shortcut", o.input, Input::Shortcut { callback_id: o.callback_id, message: o.message }),
        Sub::Submit(o) => input("submit", o.input, Input::Submit { callback_id: o.callback_id, values: o.values, fields: o.fields, user: o.user }),
        Sub::Options(o) => input("options", o.input, Input::Suggest { action_id: o.action_id, block_id: o.block_id, query: o.query }),
        Sub::React(o) => input("react", o.input, Input::React { name: o.name, channel: o.channel, ts: o.ts }),
        Sub::Home(o) => input("home", o, Input::Home),
        Sub::Stop(o) => input("stop", o.input, Input::Stop { channel: o.channel, thread_ts: o.thread, stream_ts: o.stream_ts }),
        Sub::Step(o) => input("step", o.input, Input::Step { callback_id: o.callback_id, inputs: o.inputs }),
        Sub::Link(o) => {
            let (options, sent) = o.input();
            input("link", options, sent)
        }
        Sub::EntityDetails(o) => {
            let (options, sent) = o.input();
            input("entity-details", options, sent)
        }
        Sub::AgentOpen(o) => {
            let (options, sent) = o.input();
            input("agent-open", options, sent)
        }
        Sub::AgentDm(o) => {
            let (options, sent) = o.input();
            input("agent-dm", options, sent)
        }
        Sub::Context(o) => {
            let (options, sent) = o.input();
            input("context", options, sent)
        }
    })
}

/// [`parse_command_line`], its error as text.
pub fn parse(args: &[String]) -> Result<(String, Options), Usage> {
    parse_command_line(args).map_err(|e| Usage(e.render().to_string()))
}

/// A usage error found after parsing, rendered like clap's own (with the subcommand's usage line).
pub fn usage_error(command: &str, usage: &Usage) -> clap::Error {
    let mut cli = Cli::command();
    let mut sub = cli.find_subcommand_mut(command).cloned().unwrap_or_else(Cli::command);
    sub = sub.bin_name(format!("slackline-sim {command}"));
    sub.error(clap::error::ErrorKind::ValueValidation, &usage.0)
}

impl ServeOptions {
    /// The faults `serve` was asked for (a script first, flags over it).
    pub fn faults(&self) -> Result<Faults, Usage> {
        let mut faults = match &self.script {
            Some(path) => {
                let text = std::fs::read_to_string(path).map_err(|e| Usage(format!("--script {path}: {e}")))?;
                Faults::from_script(&text).map_err(|e| Usage(format!("--script {path}: {}", e.0)))?
            }
            None => Faults::default(),
        };
        faults.slow_ms = self.slow_ms.unwrap_or(faults.slow_ms);
        faults.fail_rate = self.fail_rate.unwrap_or(faults.fail_rate);
        faults.ratelimit_rate = self.ratelimit_rate.unwrap_or(faults.ratelimit_rate);
        faults.retry_after_s = Some(self.retry_after.or(faults.retry_after_s).unwrap_or(1));
        faults.seed = Some(self.seed.or(faults.seed).unwrap_or(1));
        for (method, code) in &self.errors {
            faults.errors.insert(method.clone(), code.clone());
        }
        faults.check().map_err(|e| Usage(e.0))?;
        Ok(faults)
    }
}

impl ClientOptions {
    fn target(&self) -> Result<Target, Usage> {
        let secret = match &self.secret {
            Some(s) => s.clone(),
            None => dev_vars_secret()
                .ok_or_else(|| Usage("no --secret, and no SLACK_SIGNING_SECRET in .dev.vars (run from the project, or pass --secret)".into()))?,
        };
        Target::new(&self.url, &self.sim, &secret).map_err(|e| Usage(e.to_string()))
    }

    /// A target for the admin API only (`advance`): it signs nothing, so no secret is needed.
    fn admin_target(&self) -> Result<Target, Usage> {
        let secret = self.secret.clone().or_else(dev_vars_secret).unwrap_or_else(|| "unused: the admin API is not signed".into());
        Target::new(&self.url, &self.sim, &secret).map_err(|e| Usage(e.to_string()))
    }
}

/// `SLACK_SIGNING_SECRET` from `.dev.vars` in the current directory.
pub fn dev_vars_secret() -> Option<String> {
    dev_var("SLACK_SIGNING_SECRET")
}

/// The setting `name` from `.dev.vars` in the current directory, if set and not empty.
pub fn dev_var(name: &str) -> Option<String> {
    let text = std::fs::read_to_string(".dev.vars").ok()?;
    let prefix = format!("{name}=");
    text.lines().filter_map(|l| l.trim().strip_prefix(prefix.as_str())).map(|v| v.trim().trim_matches('"').to_string()).find(|v| !v.is_empty())
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
    let Options::Serve(options) = options else { return Err(Failure::Usage(Usage("`serve` takes serve's options".into()))) };
    let faults = options.faults()?;
    let port = options.port;
    let fake = FakeSlack::start_on(port)
        .map_err(|e| Failure::Unexpected(format!("cannot listen on 127.0.0.1:{port}: {e} (is another server using the port? pick one with --port)")))?;
    if faults.any() {
        let mut choose = faults.chooser();
        fake.script_default(Box::new(move |call| choose(&call.method)));
    }
    let tiers = options.enforce_tiers;
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
    format!(
        "{}{}{}{}{}{}",
        call.method,
        field("channel"),
        field("thread_ts"),
        field("ts"),
        call.field("text").map(|t| format!(" text=\"{t}\"")).unwrap_or_default(),
        what_it_ends_or_shows(call)
    )
}

/// A step's ending (its outputs, or its error) and the Work Objects of an unfurl or a flexpane
/// (each entity's id and title, or the flexpane's error), as a report shows them.
fn what_it_ends_or_shows(call: &SimCall) -> String {
    // A JSON argument, or the JSON text a form body carries.
    let json = |name: &str| match call.args.get(name) {
        Some(Value::String(text)) => serde_json::from_str(text).ok(),
        other => other.cloned(),
    };
    let entity = |e: &Value| {
        format!("{} \"{}\"", e["external_ref"]["id"].as_str().unwrap_or("?"), e["entity_payload"]["attributes"]["title"]["text"].as_str().unwrap_or(""))
    };
    match call.method.as_str() {
        method::FUNCTIONS_COMPLETE_SUCCESS => json("outputs").map(|o| format!(" outputs={o}")).unwrap_or_default(),
        method::FUNCTIONS_COMPLETE_ERROR => call.field("error").map(|e| format!(" error=\"{e}\"")).unwrap_or_default(),
        method::UNFURL => json("metadata")
            .and_then(|m| m["entities"].as_array().map(|es| es.iter().map(entity).collect::<Vec<_>>().join(", ")))
            .map(|shown| format!(" work objects: {shown}"))
            .unwrap_or_default(),
        method::ENTITY_PRESENT_DETAILS => match (json("metadata"), json("error")) {
            (Some(entity_json), _) => format!(" flexpane: {}", entity(&entity_json)),
            (None, Some(error)) => format!(" flexpane error: {}", error["status"].as_str().unwrap_or("?")),
            (None, None) => String::new(),
        },
        _ => String::new(),
    }
}

fn acked(ack: &super::client::Ack) -> Result<String, Failure> {
    match ack.status {
        200 => Ok(format!("→ slackline acked in {} ms", ack.took.as_millis())),
        status => Err(Failure::Unexpected(format!("slackline answered {status}: {}", ack.body))),
    }
}

fn delivered(target: &Target, before: usize, sent_at: Instant, timeout: Duration, what: &str, matches: impl Fn(&SimCall) -> bool) -> Result<String, Failure> {
    let call = target
        .wait_for(before, timeout, matches)?
        .ok_or_else(|| Failure::Unexpected(format!("no {what} reached the fake Slack within {} s", timeout.as_secs())))?;
    Ok(format!("← {}\n  delivered {} ms after the ack", describe(&call), sent_at.elapsed().as_millis()))
}

/// What a client subcommand that succeeded leaves: its report, and what a script reads of it.
#[derive(Debug, Clone)]
pub struct Done {
    /// Its report.
    pub report: String,
    /// slackline's answer to the one request it sent (a script's `expect ack` reads it); none for
    /// `storm`, `triage` and `script`, which send many, and `advance`, which sends none.
    pub ack: Option<Ack>,
    /// `advance`: the time it moved the clock to (epoch ms).
    pub clock: Option<i64>,
}

impl Done {
    fn of(report: String, ack: Option<Ack>) -> Done {
        Done { report, ack, clock: None }
    }
}

/// Which of the calls the fake recorded a subcommand may take as what slackline did for it (the
/// post a click lands on, the modal a submission fills in, the call `--wait` waits for).
#[derive(Debug, Clone, Copy)]
pub enum Scope<'a> {
    /// Any: a subcommand of its own on the command line (a flow run by hand is many processes).
    Any,
    /// A script's step: the calls since its run began, but another run's ([`script::owner`]).
    Run {
        /// The fake's count of calls when the run began.
        since: usize,
        /// The run's ids, as known when the step began.
        ids: &'a script::owner::RunIds,
    },
}

impl Scope<'_> {
    /// Whether `call` may be the subcommand's.
    fn admits(&self, call: &SimCall) -> bool {
        match self {
            Scope::Any => true,
            Scope::Run { ids, .. } => ids.owner(call) != script::owner::Owner::Other,
        }
    }

    /// The calls it may read, oldest first.
    fn calls(&self, target: &Target) -> Result<Vec<SimCall>, SendError> {
        let since = match self {
            Scope::Any => 0,
            Scope::Run { since, .. } => *since,
        };
        Ok(target.calls_after(since)?.into_iter().filter(|c| self.admits(c)).collect())
    }
}

/// Runs one client subcommand against a running slackline and fake Slack (for `shortcut`,
/// `submit`, `options`, `react`, `home`, `stop`, `agent-open`, `agent-dm` and `context`, the fake
/// only with `--wait`); its report.
pub fn run_client(command: &str, options: &Options) -> Result<String, Failure> {
    run_step(command, options, Scope::Any).map(|done| done.report)
}

/// [`run_client`], reading only the calls `scope` admits; the report and the ack.
pub fn run_step(command: &str, options: &Options, scope: Scope<'_>) -> Result<Done, Failure> {
    if let Options::Input { common, wait, input } = options {
        return run_input(common, wait.as_deref(), input, scope);
    }
    if let Options::Script { common, file, admin_token } = options {
        return script::run(common, file, admin_token.as_deref()).map(|report| Done::of(report, None));
    }
    if let Options::Advance { common, clock } = options {
        return advance::run(common, clock);
    }
    let Options::Client { common, text } = options else { return Err(Failure::Usage(Usage(format!("`{command}` takes a client subcommand's options")))) };
    let target = common.target()?;
    let timeout = Duration::from_secs(common.timeout);
    let team = common.team.clone().unwrap_or_else(|| fresh_id("T"));
    let text = text.clone().unwrap_or_else(|| "hello from slackline-sim".into());
    let before = target.call_count()?;
    match command {
        "mention" => {
            let (channel, ts) = (fresh_id("C"), fresh_ts());
            let ack = target.event(&envelope(&team, &fresh_id("Ev"), mention(&channel, &ts, &text)), &[])?;
            let head = acked(&ack)?;
            let tail = delivered(&target, before, ack.at, timeout, "threaded reply", |c| {
                c.method == method::POST_MESSAGE && c.field("channel") == Some(&channel) && c.field("thread_ts") == Some(&ts)
            })?;
            Ok(Done::of(format!("{head}\n{tail}"), Some(ack)))
        }
        "dm" => {
            let (channel, ts) = (fresh_id("D"), fresh_ts());
            let ack = target.event(&envelope(&team, &fresh_id("Ev"), direct_message(&channel, &ts, &text)), &[])?;
            let head = acked(&ack)?;
            // A post, or (the shipped bot with an LLM: the agent's DM) a streamed answer.
            let tail = delivered(&target, before, ack.at, timeout, "reply", |c| {
                matches!(c.method.as_str(), method::POST_MESSAGE | method::START_STREAM) && c.field("channel") == Some(&channel)
            })?;
            Ok(Done::of(format!("{head}\n{tail}"), Some(ack)))
        }
        "command" => {
            let hook = fresh_id("hook");
            let response_url = target.response_url(&hook);
            let trigger = fresh_trigger_id();
            let fields = [
                ("command", "/ask"),
                ("text", text.as_str()),
                ("team_id", &team),
                ("channel_id", "C0SIM"),
                ("user_id", "U1"),
                ("response_url", &response_url),
                ("trigger_id", &trigger),
            ];
            let ack = target.command(&fields)?;
            let head = format!("{} ({})", acked(&ack)?, ack.body);
            let tail = delivered(&target, before, ack.at, timeout, "response_url post", |c| c.method == "response_url" && c.path.ends_with(&hook))?;
            Ok(Done::of(format!("{head}\n{tail}"), Some(ack)))
        }
        "click" => {
            let (channel, ts) = (fresh_id("C"), fresh_ts());
            let ack = target.interaction(&resolve_click(&team, &channel, &ts))?;
            let head = acked(&ack)?;
            let tail = delivered(&target, before, ack.at, timeout, method::UPDATE, |c| c.method == method::UPDATE && c.field("ts") == Some(&ts))?;
            Ok(Done::of(format!("{head}\n{tail}"), Some(ack)))
        }
        "storm" => storm(&target, &team, before, timeout).map(|report| Done::of(report, None)),
        "triage" => triage::run(&target, &team, timeout).map(|report| Done::of(report, None)),
        "rate-limited" => {
            let minute = super::client::this_minute();
            let ack = target.event(&app_rate_limited(&team, minute), &[])?;
            let report = format!("{} (team {team}, minute_rate_limited {minute}: see its stats' app_rate_limited)", acked(&ack)?);
            Ok(Done::of(report, Some(ack)))
        }
        other => Err(Failure::Usage(Usage(format!("unknown subcommand `{other}`")))),
    }
}

/// Sends one of Slack's other inputs; reports the ack's status and body (a `view_submission`'s
/// `response_action`, a `block_suggestion`'s options), then, with `wait`, the first call of that
/// method slackline made to the fake Slack.
fn run_input(common: &ClientOptions, wait: Option<&str>, input: &Input, scope: Scope<'_>) -> Result<Done, Failure> {
    let target = common.target()?;
    let team = common.team.clone().unwrap_or_else(|| fresh_id("T"));
    let before = match wait {
        Some(_) => Some(target.call_count()?),
        None => None,
    };
    let (ack, note) = send(&target, &team, input, scope)?;
    let head = acked(&ack)?;
    let body = if ack.body.trim().is_empty() { "(empty)".to_string() } else { ack.body.trim().to_string() };
    let report = format!(
        "{head}: status {}
  body: {body}{}",
        ack.status,
        note.map(|n| format!("\n  {n}")).unwrap_or_default()
    );
    let report = match (wait, before) {
        (Some(method), Some(before)) => {
            let timeout = Duration::from_secs(common.timeout);
            let waited = delivered(&target, before, ack.at, timeout, &format!("{method} call"), |c| c.method == method && scope.admits(c))?;
            format!("{report}\n{waited}")
        }
        _ => report,
    };
    Ok(Done::of(report, Some(ack)))
}

/// Sends `input` for `team`; returns the ack, and what the report should add about what was sent
/// (the `ts` of the message `agent-dm` wrote, for a later `--thread`).
fn send(target: &Target, team: &str, input: &Input, scope: Scope<'_>) -> Result<(Ack, Option<String>), SendError> {
    let event = |payload: Value| target.event(&envelope(team, &fresh_id("Ev"), payload), &[]);
    let ack = match input {
        Input::Shortcut { callback_id, message: false } => target.interaction(&global_shortcut(team, callback_id))?,
        Input::Shortcut { callback_id, message: true } => {
            let response_url = target.response_url(&fresh_id("hook"));
            target.interaction(&message_shortcut(team, callback_id, &fresh_id("C"), &fresh_ts(), &response_url))?
        }
        Input::Submit { callback_id, values, fields, user } => target.interaction(&submission(target, scope, (team, user), callback_id, values, fields)?)?,
        Input::Command { name, text, channel, user } => {
            let (hook, trigger) = (target.response_url(&fresh_id("hook")), fresh_trigger_id());
            let fields = [
                ("command", name.as_str()),
                ("text", text),
                ("team_id", team),
                ("channel_id", channel),
                ("user_id", user),
                ("response_url", &hook),
                ("trigger_id", &trigger),
            ];
            target.command(&fields)?
        }
        Input::Click { action_id, block_id, value, channel, ts, user } => {
            let button = clicked(target, scope, action_id, channel.as_deref(), ts.as_deref())?;
            // What answers the click names the message, not the click.
            note_used(&button.ts);
            let (block, value) = (block_id.clone().unwrap_or(button.block_id), value.clone().unwrap_or(button.value));
            let ack = target.interaction(&button_click_in(team, user, (&button.channel, &button.ts), action_id, &value, &block))?;
            return Ok((ack, Some(format!("clicked {action_id} ({block}, value {value:?}) on {} {}", button.channel, button.ts))));
        }
        Input::Message { channel, text, thread_ts, user } => {
            let (channel, ts) = (channel.clone().unwrap_or_else(|| fresh_id("C")), fresh_ts());
            let ack = event(drive::channel_message(&channel, &ts, user, text, thread_ts.as_deref()))?;
            return Ok((ack, Some(format!("message ts={ts} in {channel}"))));
        }
        Input::Suggest { action_id, block_id, query } => target.interaction(&block_suggestion(team, action_id, block_id, query))?,
        Input::React { name, channel, ts } => {
            let (channel, ts) = (channel.clone().unwrap_or_else(|| fresh_id("C")), ts.clone().unwrap_or_else(fresh_ts));
            event(reaction_added(&channel, &ts, name))?
        }
        Input::Home => event(app_home_opened(&fresh_id("D")))?,
        Input::Stop { channel, thread_ts, stream_ts } => event(agent_session_stopped(channel, thread_ts, stream_ts.as_slice()))?,
        Input::Step { callback_id, inputs } => {
            let execution = fresh_id("Fx");
            let named: serde_json::Map<String, Value> = inputs.iter().map(|(name, value)| (name.clone(), json!(value))).collect();
            let ack = event(function_executed(callback_id, &execution, &Value::Object(named)))?;
            return Ok((ack, Some(format!("execution {execution} (its token {EXECUTION_TOKEN_PREFIX}{execution})"))));
        }
        Input::Link { urls, channel, source } => return unfurl::share(&event, urls, channel.as_deref(), source),
        Input::EntityDetails { url, id, channel, ts } => return unfurl::click(&event, url, id, channel.as_deref(), ts.as_deref()),
        Input::AgentOpen { user, dm } => event(agent_opened(user, dm))?,
        Input::AgentDm { user, dm, text, thread_ts } => {
            let ts = fresh_ts();
            let ack = event(agent_message(user, dm, &ts, thread_ts.as_deref(), text))?;
            let thread = thread_ts.as_deref().unwrap_or(&ts);
            return Ok((ack, Some(format!("message ts={ts} in {dm}, thread {thread} (reply with --thread {thread})"))));
        }
        Input::Context { user, dm, entities } => {
            let in_team: Vec<Value> = entities
                .iter()
                .cloned()
                .map(|mut e| {
                    e["team_id"] = json!(team);
                    e
                })
                .collect();
            event(app_context_changed(user, dm, &in_team))?
        }
    };
    Ok((ack, None))
}

/// A `view_submission` of `callback_id` by `user`: with `fields`, of the newest such modal the
/// bot opened among the calls `scope` admits (its blocks, its `private_metadata`, each field
/// shaped by its element); `values` are plain text inputs, as before.
fn submission(
    target: &Target,
    scope: Scope<'_>,
    (team, user): (&str, &str),
    callback_id: &str,
    values: &[(String, String, String)],
    fields: &[(String, String, String)],
) -> Result<Value, SendError> {
    let mut payload = view_submission_by(team, user, callback_id, values);
    if fields.is_empty() {
        return Ok(payload);
    }
    let calls = scope.calls(target)?;
    let view = drive::opened_view(&calls, callback_id)
        .ok_or_else(|| SendError::Other(format!("no modal with callback_id {callback_id:?} was opened on the fake Slack (open it first, e.g. with `command`), or pass --value for plain text inputs")))?;
    let typed = drive::typed_values(&view, fields).map_err(SendError::Other)?;
    let state = &mut payload["view"]["state"]["values"];
    for (block, actions) in typed.as_object().into_iter().flatten() {
        for (action, value) in actions.as_object().into_iter().flatten() {
            state[block.as_str()][action.as_str()] = value.clone();
        }
    }
    payload["view"]["blocks"] = view["blocks"].clone();
    payload["view"]["private_metadata"] = view.get("private_metadata").cloned().unwrap_or(json!(""));
    Ok(payload)
}

/// The button `action_id` a click lands on: in the newest post holding it among the calls `scope`
/// admits (in `channel`, at `ts`, when given); a `ts` the fake never saw is clicked as given,
/// with an empty value.
fn clicked(target: &Target, scope: Scope<'_>, action_id: &str, channel: Option<&str>, ts: Option<&str>) -> Result<drive::Button, SendError> {
    let calls = scope.calls(target)?;
    match (drive::button_in_posts(&calls, action_id, channel, ts), channel, ts) {
        (Some(button), ..) => Ok(button),
        (None, Some(channel), Some(ts)) => Ok(drive::Button { channel: channel.into(), ts: ts.into(), block_id: "sim_block".into(), value: String::new() }),
        (None, ..) => Err(SendError::Other(format!("no message the bot posted holds a button {action_id:?} (pass --channel and --ts to click one anyway)"))),
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
    let is_reply = |c: &SimCall| c.method == method::POST_MESSAGE && c.field("channel") == Some(&channel) && c.field("thread_ts") == Some(&ts);
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

pub mod advance;
pub mod agent;
pub mod drive;
pub mod script;
pub mod triage;
pub mod unfurl;

#[cfg(test)]
mod tests;
