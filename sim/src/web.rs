//! The fake Slack's Web API methods other than Lists ([`super::lists`]): which methods it knows
//! ([`METHODS`]) and what each answers, like Slack's, with the little state Slack's answers
//! depend on (reactions, views, streams), kept in memory.
//!
//! The bot's posts are kept with their message metadata ([`super::messages`]: what
//! `conversations.history` and `conversations.replies` read back), and its streams; `chat.update`
//! or `chat.delete` of any `ts` succeeds (the fake cannot know every message a test plays Slack's
//! side of) and answers the message's own `ts`, but a stream is refused
//! `streaming_state_conflict` while it streams. A stream closes
//! [`DEFAULT_STREAM_LIFETIME_MS`] after it starts (`FakeSlack::set_stream_lifetime`), after which
//! appends are `message_not_in_streaming_state`; one the user stopped
//! (`FakeSlack::stop_stream_as_user`) answers `stopped_by_user`; streams take `chunks` (text, task
//! updates, a plan's title) up to a limit that answers `msg_too_long` (`web/streams.rs`). A
//! `trigger_id` minted by the simulator ([`super::client::fresh_trigger_id`]) carries its time,
//! and `views.open` / `views.push` refuse it as `expired_trigger_id` after [`TRIGGER_TTL_MS`]; any
//! other `trigger_id` is taken as fresh. Agent sessions ([`FakeSession`]) are created by their
//! first `agents.sessions.setStatus` or a stream started in their thread, and keep every status in
//! the order the calls landed (`chat.stopStream`'s `session_status`, default `active`, included).

use super::client::{trigger_minted_at, EXECUTION_TOKEN_PREFIX};
use super::lists::FAKE_BOT_USER;
use super::messages::{FakeMessage, Messages};
pub use super::messages::{FAKE_APP_ID, FAKE_BOT_ID};
use serde_json::{json, Map, Value};
use slackline::internal::slack::method;
use std::collections::{HashMap, HashSet};

mod streams;
mod unfurls;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};
pub use streams::{FakeStream, FakeTask, DEFAULT_STREAM_LIFETIME_MS, DEFAULT_STREAM_MAX_CHUNKS};
pub use unfurls::{FakeUnfurl, UnfurlAt};

/// The team of the fake's bot token (`auth.test`, `oauth.v2.access`, views' `team_id`).
pub const FAKE_TEAM: &str = "TSIM";
/// How long a `trigger_id` can open or push a view, as Slack's: 3 s after the interaction.
pub const TRIGGER_TTL_MS: u64 = 3_000;

/// Every Web API method the fake implements besides the Lists methods ([`super::lists::METHODS`]).
/// Any other method answers `unknown_method`, unless a test scripts it.
pub const METHODS: &[&str] = &[
    method::AUTH_TEST,
    method::OAUTH_V2_ACCESS,
    method::POST_MESSAGE,
    method::UPDATE,
    method::DELETE,
    method::POST_EPHEMERAL,
    method::GET_PERMALINK,
    method::START_STREAM,
    method::APPEND_STREAM,
    method::STOP_STREAM,
    method::REACTIONS_ADD,
    method::REACTIONS_REMOVE,
    method::VIEWS_OPEN,
    method::VIEWS_PUSH,
    method::VIEWS_UPDATE,
    method::VIEWS_PUBLISH,
    method::ASSISTANT_THREADS_SET_STATUS,
    method::ASSISTANT_THREADS_SET_SUGGESTED_PROMPTS,
    method::ASSISTANT_THREADS_SET_TITLE,
    method::AGENTS_SESSIONS_SET_STATUS,
    method::AGENTS_SESSIONS_RENAME,
    method::FUNCTIONS_COMPLETE_SUCCESS,
    method::FUNCTIONS_COMPLETE_ERROR,
    method::UNFURL,
    method::ENTITY_PRESENT_DETAILS,
    method::CONVERSATIONS_INFO,
    method::CONVERSATIONS_REPLIES,
    method::CONVERSATIONS_HISTORY,
    method::USERS_INFO,
];

/// Whether the fake implements `method` (Lists included).
pub fn knows(method: &str) -> bool {
    METHODS.contains(&method) || super::lists::handles(method)
}

/// The Web API's state: what later answers depend on.
#[derive(Default)]
pub struct Web {
    /// (channel, timestamp, name) of every reaction the bot added.
    reactions: HashSet<(String, String, String)>,
    /// Views by id.
    views: HashMap<String, Value>,
    /// `external_id` → view id.
    external_ids: HashMap<String, String>,
    /// The Home tab view of each user.
    homes: HashMap<String, String>,
    /// Streams the fake started, by (channel, ts).
    streams: HashMap<(String, String), FakeStream>,
    /// How long a stream stays open ([`DEFAULT_STREAM_LIFETIME_MS`] unless set).
    stream_lifetime_ms: Option<u64>,
    /// How many task updates (and other structured chunks) a stream takes
    /// ([`DEFAULT_STREAM_MAX_CHUNKS`] unless set).
    stream_max_chunks: Option<usize>,
    /// The bot's posts, with their metadata, for `conversations.history` and `.replies`.
    messages: Messages,
    /// Agent sessions, by (channel, thread ts).
    sessions: HashMap<(String, String), FakeSession>,
    /// How each Workflow step execution ended (the first ending's method and arguments).
    step_ends: HashMap<String, (String, Value)>,
    /// Per-execution tokens (`xwfp-…`) of steps that have ended: revoked, as Slack revokes them.
    revoked: HashSet<String>,
    /// What each sharing's unfurls show, and each Work Object click's flexpane.
    unfurling: unfurls::Unfurling,
}

/// An agent session, as the fake keeps it: created by the first `agents.sessions.setStatus` or
/// by a stream started in its thread (Slack enrolls streaming apps), moved by `setStatus` and by
/// `chat.stopStream`'s `session_status` (default `active`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FakeSession {
    /// Its title (the creating call's, or the last rename's).
    pub title: Option<String>,
    /// Who started it (the creating call's).
    pub initiator_user_id: Option<String>,
    /// Every status it was set to, in the order the calls landed: the last is its status.
    pub statuses: Vec<String>,
}

impl FakeSession {
    /// Its status now.
    pub fn status(&self) -> &str {
        self.statuses.last().map_or("", String::as_str)
    }
}

/// The statuses Slack knows for a session.
const SESSION_STATUSES: [&str; 4] = ["processing", "active", "suspended", "closed"];

/// A method's answer: `Ok` with the body, or `Err` with the refusal.
type Answer = Result<Value, Value>;

impl Web {
    /// Answers one call made with `token`: `token_revoked` for the token of a Workflow step that
    /// has ended (Slack revokes it then), else as [`Web::apply`]; ending a step with its own token
    /// revokes that token.
    pub fn apply_as(&mut self, method: &str, args: &Map<String, Value>, token: &str, now_ms: u64) -> Value {
        if self.revoked.contains(token) {
            return refusal("token_revoked");
        }
        let answer = self.apply(method, args, now_ms);
        let ends_step = matches!(method, method::FUNCTIONS_COMPLETE_SUCCESS | method::FUNCTIONS_COMPLETE_ERROR);
        if ends_step && answer["ok"] == true && token.starts_with(EXECUTION_TOKEN_PREFIX) {
            self.revoked.insert(token.to_string());
        }
        answer
    }

    /// Answers one call of a method of [`METHODS`] (not `oauth.v2.access`, not Lists) with
    /// arguments `args`, at `now_ms` (ms since the epoch), as Slack would.
    pub fn apply(&mut self, method: &str, args: &Map<String, Value>, now_ms: u64) -> Value {
        let answer = match method {
            method::AUTH_TEST => Ok(
                json!({"ok": true, "url": "https://simulated.slack.com/", "team": "Simulated", "user": "slackline", "team_id": FAKE_TEAM, "user_id": FAKE_BOT_USER, "bot_id": FAKE_BOT_ID, "is_enterprise_install": false}),
            ),
            method::POST_MESSAGE => self.post_message(args),
            method::UPDATE => self.update_message(args, now_ms),
            method::DELETE => delete_message(args),
            method::POST_EPHEMERAL => post_ephemeral(args),
            method::GET_PERMALINK => permalink(args),
            method::START_STREAM => self.start_stream(args, now_ms),
            method::APPEND_STREAM => self.append_stream(args, false, now_ms),
            method::STOP_STREAM => self.append_stream(args, true, now_ms),
            method::CONVERSATIONS_REPLIES => self.thread_replies(args),
            method::CONVERSATIONS_HISTORY => channel(args).map(|channel| self.messages.history(channel, args)),
            method::REACTIONS_ADD => self.react(args, true),
            method::REACTIONS_REMOVE => self.react(args, false),
            method::VIEWS_OPEN | method::VIEWS_PUSH => self.open_view(args, now_ms),
            method::VIEWS_UPDATE => self.update_view(args),
            method::VIEWS_PUBLISH => self.publish_view(args),
            method::ASSISTANT_THREADS_SET_STATUS => assistant(args, "status", Thread::Required),
            method::ASSISTANT_THREADS_SET_SUGGESTED_PROMPTS => assistant(args, "prompts", Thread::Optional),
            method::ASSISTANT_THREADS_SET_TITLE => assistant(args, "title", Thread::Required),
            method::AGENTS_SESSIONS_SET_STATUS => self.set_session_status(args),
            method::AGENTS_SESSIONS_RENAME => self.rename_session(args),
            method::FUNCTIONS_COMPLETE_SUCCESS | method::FUNCTIONS_COMPLETE_ERROR => self.end_step(method, args),
            method::UNFURL => self.unfurling.unfurl(args),
            method::ENTITY_PRESENT_DETAILS => self.unfurling.present(args, now_ms),
            method::CONVERSATIONS_INFO => conversation(args),
            method::USERS_INFO => user(args),
            _ => Err(refusal("unknown_method")),
        };
        answer.unwrap_or_else(|refused| refused)
    }

    fn react(&mut self, args: &Map<String, Value>, add: bool) -> Answer {
        let (Some(channel), Some(timestamp)) = (text(args, "channel"), text(args, "timestamp")) else { return Err(refusal("no_item_specified")) };
        let name = text(args, "name").map(|n| n.trim_matches(':')).filter(|n| !n.is_empty()).ok_or_else(|| refusal("invalid_name"))?;
        let key = (channel.to_string(), timestamp.to_string(), name.to_string());
        let changed = if add { self.reactions.insert(key) } else { self.reactions.remove(&key) };
        match (changed, add) {
            (true, _) => Ok(json!({"ok": true})),
            (false, true) => Err(refusal("already_reacted")),
            (false, false) => Err(refusal("no_reaction")),
        }
    }

    /// `views.open`, `views.push`: a new modal (its own root: the fake does not keep the stack).
    fn open_view(&mut self, args: &Map<String, Value>, now_ms: u64) -> Answer {
        let trigger = text(args, "trigger_id").or_else(|| text(args, "interactivity_pointer")).ok_or_else(|| missing("trigger_id"))?;
        if trigger_minted_at(trigger).is_some_and(|minted| now_ms.saturating_sub(minted) > TRIGGER_TTL_MS) {
            return Err(refusal("expired_trigger_id"));
        }
        let given = view_arg(args, &["modal"])?;
        let id = fresh_view_id();
        let view = self.store_view(&id, &given, None)?;
        Ok(json!({"ok": true, "view": view}))
    }

    fn update_view(&mut self, args: &Map<String, Value>) -> Answer {
        let id = match (text(args, "view_id"), text(args, "external_id")) {
            (Some(id), _) => id.to_string(),
            (None, Some(external)) => self.external_ids.get(external).cloned().ok_or_else(|| refusal("not_found"))?,
            (None, None) => return Err(missing("view_id")),
        };
        let old = self.views.get(&id).cloned().ok_or_else(|| refusal("not_found"))?;
        if text(args, "hash").is_some_and(|hash| old["hash"] != hash) {
            return Err(refusal("hash_conflict"));
        }
        let given = view_arg(args, &["modal", "home"])?;
        let view = self.store_view(&id, &given, Some(&old))?;
        Ok(json!({"ok": true, "view": view}))
    }

    fn publish_view(&mut self, args: &Map<String, Value>) -> Answer {
        let user = text(args, "user_id").ok_or_else(|| missing("user_id"))?.to_string();
        let given = view_arg(args, &["home"])?;
        let old = self.homes.get(&user).and_then(|id| self.views.get(id)).cloned();
        if let (Some(hash), Some(old)) = (text(args, "hash"), &old) {
            if old["hash"] != hash {
                return Err(refusal("hash_conflict"));
            }
        }
        let id = old.as_ref().and_then(|v| v["id"].as_str()).map_or_else(fresh_view_id, str::to_string);
        let view = self.store_view(&id, &given, old.as_ref())?;
        self.homes.insert(user, id);
        Ok(json!({"ok": true, "view": view}))
    }

    /// Stores the view `id` made of the caller's `given` view (and the `old` one it replaces).
    fn store_view(&mut self, id: &str, given: &Map<String, Value>, old: Option<&Value>) -> Answer {
        let external = given.get("external_id").and_then(Value::as_str).unwrap_or("");
        if !external.is_empty() && self.external_ids.get(external).is_some_and(|owner| owner != id) {
            return Err(refusal("duplicate_external_id"));
        }
        let field = |name: &str, default: Value| given.get(name).cloned().unwrap_or(default);
        let view = json!({
            "id": id, "team_id": FAKE_TEAM, "type": given["type"], "title": field("title", Value::Null),
            "submit": field("submit", Value::Null), "close": field("close", Value::Null), "blocks": field("blocks", json!([])),
            "private_metadata": field("private_metadata", json!("")), "callback_id": field("callback_id", json!("")),
            "external_id": external, "state": {"values": {}}, "hash": fresh_hash(),
            "clear_on_close": field("clear_on_close", json!(false)), "notify_on_close": field("notify_on_close", json!(false)),
            "previous_view_id": old.map_or(Value::Null, |o| o["previous_view_id"].clone()),
            "root_view_id": old.map_or_else(|| json!(id), |o| o["root_view_id"].clone()),
            "app_id": FAKE_APP_ID, "app_installed_team_id": FAKE_TEAM, "bot_id": FAKE_BOT_ID,
        });
        if let Some(previous) = old.and_then(|o| o["external_id"].as_str()).filter(|e| !e.is_empty() && *e != external) {
            self.external_ids.remove(previous);
        }
        if !external.is_empty() {
            self.external_ids.insert(external.to_string(), id.to_string());
        }
        self.views.insert(id.to_string(), view.clone());
        Ok(view)
    }

    /// `chat.postMessage`: the message is kept, with its metadata (an object, or the
    /// JSON-encoded string a form body carries).
    fn post_message(&mut self, args: &Map<String, Value>) -> Answer {
        let answer = post_message(args)?;
        let metadata = match args.get("metadata") {
            Some(Value::String(encoded)) => serde_json::from_str(encoded).ok(),
            Some(Value::Object(m)) => Some(Value::Object(m.clone())),
            _ => None,
        };
        self.messages.add(FakeMessage {
            channel: answer["channel"].as_str().unwrap_or("").into(),
            ts: answer["ts"].as_str().unwrap_or("").into(),
            thread_ts: text(args, "thread_ts").map(str::to_string),
            text: text(args, "text").or_else(|| text(args, "markdown_text")).unwrap_or("").into(),
            metadata: metadata.filter(|m| m.get("event_type").is_some_and(Value::is_string)),
            bot: true,
        });
        Ok(answer)
    }

    /// Every message the bot posted in `channel` (thread replies too), in the order they landed.
    pub fn posts_in(&self, channel: &str) -> Vec<FakeMessage> {
        self.messages.in_channel(channel)
    }

    /// `chat.update`: refused while the message streams (`streaming_state_conflict`); a stream's
    /// or a kept reply's text is replaced.
    fn update_message(&mut self, args: &Map<String, Value>, now_ms: u64) -> Answer {
        let (channel, ts) = (channel(args)?, message_ts(args, "ts")?);
        let new_text = text(args, "text").or_else(|| text(args, "markdown_text")).unwrap_or("").to_string();
        if let Some(stream) = self.live_stream(channel, ts, now_ms) {
            if stream.streaming {
                return Err(refusal("streaming_state_conflict"));
            }
            stream.text = new_text.clone();
        }
        self.messages.edit(channel, ts, &new_text);
        update_message(args)
    }

    /// `conversations.replies`: the bot's messages in the thread (kept posts and streams).
    fn thread_replies(&mut self, args: &Map<String, Value>) -> Answer {
        let (channel, thread) = (channel(args)?, message_ts(args, "ts")?);
        let streams = self
            .streams
            .values()
            .filter(|s| s.channel == channel && s.thread_ts == thread)
            .map(|s| FakeMessage {
                channel: s.channel.clone(),
                ts: s.ts.clone(),
                thread_ts: Some(s.thread_ts.clone()),
                text: s.text.clone(),
                metadata: None,
                bot: true,
            })
            .collect();
        Ok(self.messages.replies(channel, thread, streams, args))
    }

    /// `agents.sessions.setStatus`: creates the session on its first call (with its title, at most
    /// 200 characters, and initiator), then moves it; an unknown status is `invalid_arguments`.
    fn set_session_status(&mut self, args: &Map<String, Value>) -> Answer {
        let channel = text(args, "channel_id").ok_or_else(|| missing("channel_id"))?;
        let thread = text(args, "thread_ts").ok_or_else(|| missing("thread_ts"))?;
        let status = text(args, "status").filter(|s| SESSION_STATUSES.contains(s)).ok_or_else(|| refusal("invalid_arguments"))?;
        if text(args, "title").is_some_and(|t| t.chars().count() > 200) {
            return Err(refusal("invalid_arguments"));
        }
        let key = (channel.to_string(), thread.to_string());
        let session = self.sessions.entry(key).or_insert_with(|| FakeSession {
            title: text(args, "title").map(str::to_string),
            initiator_user_id: text(args, "initiator_user_id").map(str::to_string),
            ..FakeSession::default()
        });
        session.statuses.push(status.to_string());
        Ok(json!({"ok": true}))
    }

    /// `agents.sessions.rename`: a session that exists (else `session_not_found`).
    fn rename_session(&mut self, args: &Map<String, Value>) -> Answer {
        let channel = text(args, "channel_id").ok_or_else(|| missing("channel_id"))?;
        let title = text(args, "title").filter(|t| !t.is_empty() && t.chars().count() <= 200).ok_or_else(|| refusal("invalid_arguments"))?;
        let thread = text(args, "thread_ts").unwrap_or("");
        let session = self.sessions.get_mut(&(channel.to_string(), thread.to_string())).ok_or_else(|| refusal("session_not_found"))?;
        session.title = Some(title.to_string());
        Ok(json!({"ok": true}))
    }

    /// A stream moved the session of its thread (creating it: streaming apps are enrolled).
    fn session_moves(&mut self, channel: &str, thread: &str, status: &str) {
        self.sessions.entry((channel.to_string(), thread.to_string())).or_default().statuses.push(status.to_string());
    }

    /// `functions.completeSuccess` / `completeError`: the first ending of an execution counts;
    /// any later one is `execution_not_in_running_state`, as Slack answers. A success needs its
    /// `outputs` object, an error its `error` text (`invalid_arguments`).
    fn end_step(&mut self, method: &str, args: &Map<String, Value>) -> Answer {
        let execution = text(args, "function_execution_id").ok_or_else(|| missing("function_execution_id"))?;
        let well_formed = match method {
            method::FUNCTIONS_COMPLETE_SUCCESS => args.get("outputs").is_some_and(Value::is_object),
            _ => text(args, "error").is_some_and(|e| !e.is_empty()),
        };
        if !well_formed {
            return Err(refusal("invalid_arguments"));
        }
        if self.step_ends.contains_key(execution) {
            return Err(refusal("execution_not_in_running_state"));
        }
        self.step_ends.insert(execution.to_string(), (method.to_string(), Value::Object(args.clone())));
        Ok(json!({"ok": true}))
    }

    /// How Workflow step execution `execution_id` ended (its first ending's method and
    /// arguments), if it has.
    pub fn step_end(&self, execution_id: &str) -> Option<(String, Value)> {
        self.step_ends.get(execution_id).cloned()
    }

    /// What the sharing `at` shows, if it was unfurled.
    pub fn unfurl(&self, at: &UnfurlAt) -> Option<FakeUnfurl> {
        self.unfurling.shown(at)
    }

    /// The arguments the Work Object click of `trigger_id` was answered with, if it was.
    pub fn flexpane(&self, trigger_id: &str) -> Option<Value> {
        self.unfurling.flexpane(trigger_id)
    }

    /// The agent session of `thread` in `channel`, if one was created.
    pub fn session(&self, channel: &str, thread: &str) -> Option<FakeSession> {
        self.sessions.get(&(channel.to_string(), thread.to_string())).cloned()
    }
}

/// A message needs some content: Slack answers `no_text` without any.
fn has_content(args: &Map<String, Value>) -> Result<(), Value> {
    match ["text", "blocks", "attachments", "markdown_text"].iter().any(|k| args.get(*k).is_some_and(|v| !v.is_null() && v != "")) {
        true => Ok(()),
        false => Err(refusal("no_text")),
    }
}

fn post_message(args: &Map<String, Value>) -> Answer {
    let channel = channel(args)?;
    has_content(args)?;
    let ts = fresh_message_ts();
    let mut message = json!({"type": "message", "text": text(args, "text").unwrap_or(""), "user": FAKE_BOT_USER, "bot_id": FAKE_BOT_ID, "app_id": FAKE_APP_ID, "team": FAKE_TEAM, "ts": ts});
    if let Some(thread) = text(args, "thread_ts") {
        message["thread_ts"] = json!(thread);
    }
    Ok(json!({"ok": true, "channel": channel, "ts": ts, "message": message}))
}

fn update_message(args: &Map<String, Value>) -> Answer {
    let channel = channel(args)?;
    let ts = message_ts(args, "ts")?;
    has_content(args)?;
    let text = text(args, "text").unwrap_or("");
    let message = json!({"type": "message", "text": text, "user": FAKE_BOT_USER, "bot_id": FAKE_BOT_ID, "app_id": FAKE_APP_ID, "team": FAKE_TEAM});
    Ok(json!({"ok": true, "channel": channel, "ts": ts, "text": text, "message": message}))
}

fn delete_message(args: &Map<String, Value>) -> Answer {
    let channel = channel(args)?;
    Ok(json!({"ok": true, "channel": channel, "ts": message_ts(args, "ts")?}))
}

fn post_ephemeral(args: &Map<String, Value>) -> Answer {
    channel(args)?;
    text(args, "user").ok_or_else(|| refusal("user_not_in_channel"))?;
    has_content(args)?;
    Ok(json!({"ok": true, "message_ts": fresh_message_ts()}))
}

fn permalink(args: &Map<String, Value>) -> Answer {
    let channel = channel(args)?;
    let ts = message_ts(args, "message_ts")?;
    Ok(json!({"ok": true, "channel": channel, "permalink": format!("https://simulated.slack.com/archives/{channel}/p{}", ts.replace('.', ""))}))
}

/// Whether an `assistant.threads.*` method needs a `thread_ts`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Thread {
    /// A thread's status or title: it names the thread.
    Required,
    /// Suggested prompts: a legacy assistant thread's (with it), or the agent's Messages tab's
    /// (`agent_view`, without).
    Optional,
}

fn assistant(args: &Map<String, Value>, field: &str, thread: Thread) -> Answer {
    text(args, "channel_id").ok_or_else(|| refusal("channel_not_found"))?;
    if thread == Thread::Required || args.contains_key("thread_ts") {
        message_ts(args, "thread_ts")?;
    }
    if args.get(field).is_none() {
        return Err(missing(field));
    }
    Ok(json!({"ok": true}))
}

fn conversation(args: &Map<String, Value>) -> Answer {
    let id = channel(args)?;
    let kind = |prefix: char| id.starts_with(prefix);
    Ok(json!({"ok": true, "channel": {
        "id": id, "name": id.to_lowercase(), "is_channel": kind('C'), "is_group": kind('G'), "is_im": kind('D'), "is_mpim": false,
        "is_private": kind('G') || kind('D'), "is_archived": false, "is_general": false, "is_member": true, "created": 1_600_000_000,
        "context_team_id": FAKE_TEAM,
    }}))
}

fn user(args: &Map<String, Value>) -> Answer {
    let id = text(args, "user").ok_or_else(|| refusal("user_not_found"))?;
    let name = id.to_lowercase();
    Ok(json!({"ok": true, "user": {
        "id": id, "team_id": FAKE_TEAM, "name": name, "real_name": name, "deleted": false, "is_bot": id == FAKE_BOT_USER,
        "is_admin": false, "tz": "Etc/UTC", "profile": {"real_name": name, "display_name": name},
    }}))
}

/// A non-empty string argument.
fn text<'a>(args: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    args.get(name).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// The `channel` argument: Slack answers `channel_not_found` without it.
fn channel(args: &Map<String, Value>) -> Result<&str, Value> {
    text(args, "channel").ok_or_else(|| refusal("channel_not_found"))
}

/// A message `ts` argument.
fn message_ts<'a>(args: &'a Map<String, Value>, name: &str) -> Result<&'a str, Value> {
    text(args, name).ok_or_else(|| refusal("message_not_found"))
}

/// The `view` argument (an object, or the JSON-encoded string form bodies carry) of one of `types`.
fn view_arg(args: &Map<String, Value>, types: &[&str]) -> Result<Map<String, Value>, Value> {
    let view = match args.get("view") {
        Some(Value::Object(view)) => view.clone(),
        Some(Value::String(encoded)) => match serde_json::from_str(encoded) {
            Ok(Value::Object(view)) => view,
            _ => return Err(invalid("view must be a JSON-encoded object")),
        },
        _ => return Err(missing("view")),
    };
    match view.get("type").and_then(Value::as_str) {
        Some(kind) if types.contains(&kind) => Ok(view),
        _ => Err(invalid(&format!("view.type must be {}", types.join(" or ")))),
    }
}

/// `{"ok": false, "error": error}`.
pub fn refusal(error: &str) -> Value {
    json!({"ok": false, "error": error})
}

fn invalid(message: &str) -> Value {
    json!({"ok": false, "error": "invalid_arguments", "response_metadata": {"messages": [format!("[ERROR] {message}")]}})
}

fn missing(field: &str) -> Value {
    invalid(&format!("missing required field: {field}"))
}

/// A message `ts` (seconds.micros) of now, unique and increasing across the process.
pub fn fresh_message_ts() -> String {
    static LAST: AtomicU64 = AtomicU64::new(0);
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_micros() as u64);
    let next = |last: u64| last.max(now.saturating_sub(1)) + 1;
    let micros = next(LAST.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |last| Some(next(last))).unwrap_or(0));
    format!("{}.{:06}", micros / 1_000_000, micros % 1_000_000)
}

fn fresh_view_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    format!("V{:06X}{n:04X}", secs & 0xFF_FFFF)
}

fn fresh_hash() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    format!("{secs}.{:08x}", NEXT.fetch_add(1, Ordering::Relaxed).wrapping_mul(0x9E37_79B9) & 0xFFFF_FFFF)
}
