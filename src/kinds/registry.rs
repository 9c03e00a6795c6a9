//! The registry of the kinds of work: [`Effect`] (a row to queue: its idempotency key, its
//! [`Action`], its deadline) and [`Action`], what a row does, with the few facts the engine
//! needs of every kind — its rate-limit target ([`Action::target`]), its label in logs, the admin
//! API and the serial table ([`Action::label`], [`SERIAL`]), and its words on the admin page
//! ([`Action::describe`]). The job that performs each variant is picked in `super::perform`
//! (wasm32); the job itself lives in the kind's room (`kinds/<kind>/`).
//!
//! Why one file: adding a kind of effect is its room plus one variant here and its arms in this
//! file's matches and in `perform`'s; the compiler lists every arm a new variant still needs.
//! Nothing else in the engine names a kind.
//!
//! Each [`Effect`] carries an idempotency key built from the *fact* it reacts to (for example
//! `msg:{channel}:{ts}:reply`), never from the envelope: the same Slack message arriving as both
//! `message` and `app_mention`, or again with a fresh `event_id`, yields the same key, and the
//! outbox's UNIQUE constraint keeps one row.
//!
//! Invariant: a variant's serialized form is stored in outbox rows (`payload`), so a variant or a
//! field is only ever added (new fields `#[serde(default)]`), never renamed, while a release that
//! wrote it may still have rows pending.

use crate::kinds::lists::api::ListJob;
use crate::slack::method;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// One unit of work for the outbox.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Effect {
    /// Unique per fact; a second effect with the same key adds nothing.
    pub key: String,
    /// What to do.
    pub action: Action,
    /// Give up (park as `expired`) if not delivered within this many ms of being queued.
    pub deadline_after_ms: Option<i64>,
}

/// Where an LLM answer is delivered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "to", rename_all = "snake_case")]
pub enum Followup {
    /// A threaded reply with `chat.postMessage`.
    Thread {
        /// Channel id.
        channel: String,
        /// The thread's parent `ts`.
        thread_ts: String,
    },
    /// A message to a `response_url`.
    ResponseUrl {
        /// The `response_url`.
        url: String,
    },
}

/// Slack's limit on a message's `text` is 40,000 characters; stay well inside it.
pub const MAX_REPLY_CHARS: usize = 3_000;

/// Cuts `text` to at most `max` characters, marking the cut.
pub fn truncate_chars(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

impl Followup {
    /// The effect that delivers `answer`, keyed under the parent's key.
    pub fn effect(&self, parent_key: &str, answer: &str, deadline_after_ms: Option<i64>) -> Effect {
        let text = truncate_chars(answer, MAX_REPLY_CHARS);
        let action = match self {
            Followup::Thread { channel, thread_ts } => {
                Action::slack_api(method::POST_MESSAGE, json!({ "channel": channel, "thread_ts": thread_ts, "text": text }))
            }
            Followup::ResponseUrl { url } => Action::RespondUrl { url: url.clone(), body: json!({ "response_type": "ephemeral", "text": text }) },
        };
        Effect { key: format!("{parent_key}:post"), action, deadline_after_ms }
    }
}

/// What an effect does when the sweep performs it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// A Slack Web API call with a JSON body and the team's bot token.
    SlackApi {
        /// e.g. `chat.postMessage`.
        method: String,
        /// The JSON arguments.
        args: Value,
        /// The state key under which the completion keeps Slack's answer's `{channel, ts}`
        /// ([`crate::app::listen::EffectRef::remember`]); absent in rows queued before it existed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        remember: Option<String>,
        /// The state key of a remembered message whose thread the post goes in, read when the
        /// row is performed ([`crate::state::thread`]; top level if it holds none).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        thread_of: Option<String>,
    },
    /// A POST of a JSON message to a `response_url` (slash commands, interactions).
    RespondUrl {
        /// The `response_url` Slack gave us.
        url: String,
        /// The message.
        body: Value,
    },
    /// An OpenAI-compatible chat completion whose answer becomes a follow-up effect.
    LlmReply {
        /// The user's words.
        prompt: String,
        /// Where the answer goes.
        then: Followup,
    },
    /// An LLM's answer streamed into a thread as it is written (`chat.startStream`,
    /// `appendStream`, `stopStream`; a post and `chat.update`s where streaming is refused),
    /// checkpointed before every call so that a crash or a lost lease leaves one answer
    /// (`crate::kinds::assistant::stream`, docs/assistant.md).
    StreamAnswer {
        /// The user's words.
        prompt: String,
        /// The channel (an assistant thread's DM, or a channel).
        channel: String,
        /// The thread the answer goes in.
        thread_ts: String,
        /// Who the answer is for (Slack requires it, with the team, when streaming in a channel).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        recipient_user_id: Option<String>,
        /// The recipient's workspace.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        recipient_team_id: Option<String>,
        /// How the answer's tasks are shown (`chat.startStream`'s `task_display_mode`); absent:
        /// Slack's default, `timeline`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        task_display_mode: Option<crate::kinds::assistant::chunks::TaskDisplayMode>,
        /// The plan's title (a `plan_update` chunk as each message of the answer starts).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        plan_title: Option<String>,
        /// Blocks shown under the finished answer (a `blocks` chunk in its last `chat.stopStream`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        closing_blocks: Option<Vec<serde_json::Value>>,
    },
    /// An agent session's status in a thread (`agents.sessions.setStatus`, `cx.session`): the
    /// thread's newest intent is sent, not necessarily this row's, so a session never goes back
    /// to an older status because rows raced ([`crate::kinds::assistant::session`]).
    Session {
        /// The conversation.
        channel: String,
        /// The thread of the session.
        thread_ts: String,
        /// The status this row states.
        status: crate::kinds::assistant::session::SessionStatus,
        /// The session's title (counts when the call creates the session).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        /// Who started it (counts when the call creates the session).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        initiator_user_id: Option<String>,
    },
    /// A Workflow step's ending (`cx.complete` / `cx.fail`, [`crate::kinds::step`]): sent with the
    /// execution's own token, unless the step has ended already.
    StepEnd {
        /// The execution (`function_execution_id`).
        execution_id: String,
        /// Success with outputs, or an error.
        end: crate::kinds::step::end::StepEnd,
    },
    /// A Workflow step's guard, queued with every execution by the ingest unit: fails the step
    /// with `error` when it falls due (the step's deadline, or at once when its handler failed),
    /// unless the step has ended.
    StepGuard {
        /// The execution.
        execution_id: String,
        /// What the workflow's user reads.
        error: String,
    },
    /// A message another service posted through the notify API (`crate::kinds::notify`): a
    /// `chat.postMessage` whose answer (`channel`, `ts`) is kept for `GET …/messages/{id}`.
    Notify {
        /// `chat.postMessage`'s arguments.
        args: Value,
    },
    /// Bring a status message (`PUT …/status/{name}`) up to its newest version: post it, or
    /// `chat.update` it (decided when performed, from what is stored).
    Status {
        /// The status message's name.
        name: String,
    },
    /// Run the app's handler again on a request whose handler failed when it arrived (parked as
    /// `handler_failed`; an operator's redrive brings it here once the handler is fixed): the
    /// effects it decides now are queued with this row's completion.
    Handle {
        /// The request (`slack::envelope::Dispatch`, as JSON).
        dispatch: Value,
    },
    /// Work on a Slack List (`crate::kinds::lists`): a record's sync or a reconciliation page.
    Lists {
        /// The List.
        list_id: String,
        /// What to do.
        #[serde(flatten)]
        job: ListJob,
    },
    /// An effect that falls due later (`cx.schedule`, [`crate::kinds::schedule`]): its row waits until
    /// the due time, then performs `effect` like any row (and queues its next occurrence when it
    /// recurs). Its target and label are `effect`'s, so it is paced and held as that effect is.
    Scheduled {
        /// The schedule's key (what `cx.cancel` names).
        key: String,
        /// When it falls due (resolved to a time when it is queued), and how often it repeats.
        when: crate::kinds::schedule::when::When,
        /// When the request that scheduled it was recorded (epoch ms; set when it is queued).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        scheduled_at: Option<i64>,
        /// What to do then.
        effect: Box<Action>,
    },
    /// Run the app's `on_schedule` listener for the schedule that holds it (`cx.schedule(key,
    /// when).run()`): only ever inside an [`Action::Scheduled`], whose key and due time the
    /// listener gets. Its effects and state writes are stored with this row's completion
    /// (`crate::kinds::schedule::fire`).
    Fire,
    /// Cancel the pending occurrence of a scheduled effect (`cx.cancel`): applied in the unit that
    /// records it, never stored as a row (see [`crate::kinds::schedule::cancel_row`]).
    CancelSchedule {
        /// The schedule's key.
        key: String,
    },
    /// An effect whose end runs the app's result listener `listener` (`.then(listener, &data)`,
    /// [`crate::kinds::answer`]): performed, paced and held as `effect` is; when it ends (done or
    /// parked) the listener runs in its completion.
    Then {
        /// The result listener's name (`.on_result(listener, …)`).
        listener: String,
        /// The data the handler attached, JSON.
        data: Value,
        /// What to do.
        effect: Box<Action>,
    },
    /// A result listener to run again on a kept answer: the row of an effect whose listener failed
    /// (parked `handler_failed` or `no_listener`, its payload rewritten to this), for a redrive.
    Answer {
        /// The effect's end, as its listener gets it.
        answered: crate::kinds::answer::Answered,
    },
}

impl Action {
    /// A Slack Web API call that remembers nothing.
    pub fn slack_api(method: &str, args: Value) -> Action {
        Action::SlackApi { method: method.into(), args, remember: None, thread_of: None }
    }

    /// What a rate limit applies to: the Slack method, or the kind of endpoint. A 429 holds every
    /// pending row with the same target for the whole team.
    pub fn target(&self) -> String {
        match self {
            Action::SlackApi { method, .. } => method.clone(),
            Action::RespondUrl { .. } => "response_url".into(),
            Action::LlmReply { .. } => "llm".into(),
            Action::StreamAnswer { .. } => "stream".into(),
            Action::Session { .. } => method::AGENTS_SESSIONS_SET_STATUS.into(),
            Action::StepEnd { execution_id, end } => crate::kinds::step::end::call(execution_id, end).0.into(),
            Action::StepGuard { .. } => method::FUNCTIONS_COMPLETE_ERROR.into(),
            Action::Notify { .. } => method::POST_MESSAGE.into(),
            Action::Status { name } => format!("status:{name}"),
            Action::Handle { .. } => "handler".into(),
            Action::Lists { list_id, .. } => crate::kinds::lists::api::target(list_id),
            Action::Scheduled { effect, .. } | Action::Then { effect, .. } => effect.target(),
            Action::Fire | Action::Answer { .. } => "handler".into(),
            Action::CancelSchedule { .. } => "schedule".into(),
        }
    }

    /// The action a row performs: a scheduled effect's own (or one with a result listener), else
    /// itself.
    pub fn performed(&self) -> &Action {
        match self {
            Action::Scheduled { effect, .. } | Action::Then { effect, .. } => effect.performed(),
            other => other,
        }
    }

    /// The same, to change it (a helper's `.blocks(…)` on a scheduled message).
    pub fn performed_mut(&mut self) -> &mut Action {
        match self {
            Action::Scheduled { effect, .. } | Action::Then { effect, .. } => effect.performed_mut(),
            other => other,
        }
    }

    /// The result listener of this action's end, and the data for it: `.then(…)`'s, read through
    /// a schedule.
    pub fn result_listener(&self) -> Option<(&str, &Value)> {
        match self {
            Action::Then { listener, data, .. } => Some((listener, data)),
            Action::Scheduled { effect, .. } => effect.result_listener(),
            _ => None,
        }
    }

    /// The due time of a scheduled effect whose `when` is resolved (None: due when queued).
    pub fn due_at(&self) -> Option<i64> {
        match self {
            Action::Scheduled { when: crate::kinds::schedule::when::When { due: crate::kinds::schedule::when::Due::At(at), .. }, .. } => Some(*at),
            _ => None,
        }
    }

    /// A short label for logs and the admin API.
    pub fn label(&self) -> &'static str {
        match self {
            Action::SlackApi { .. } => "slack_api",
            Action::RespondUrl { .. } => "response_url",
            Action::LlmReply { .. } => "llm",
            Action::StreamAnswer { .. } => "stream",
            Action::Session { .. } => "session",
            Action::StepEnd { .. } | Action::StepGuard { .. } => "step",
            Action::Notify { .. } => "notify",
            Action::Status { .. } => STATUS,
            Action::Handle { .. } => "handler",
            Action::Lists { .. } => LISTS,
            Action::Scheduled { effect, .. } | Action::Then { effect, .. } => effect.label(),
            Action::Fire => "fire",
            Action::CancelSchedule { .. } => "cancel",
            Action::Answer { .. } => "answer",
        }
    }

    /// What a row does, in words (the admin page's "what" column).
    pub fn describe(&self) -> String {
        let snippet = |v: &Value| v.as_str().map(|t| truncate_chars(t, 80)).unwrap_or_default();
        match self {
            Action::SlackApi { method, args, .. } => {
                let channel = args.get("channel").and_then(Value::as_str).unwrap_or("?");
                format!("{method} in {channel}: “{}”", snippet(&args["text"]))
            }
            Action::RespondUrl { body, .. } => format!("answer to a command: “{}”", snippet(&body["text"])),
            Action::LlmReply { prompt, .. } => format!("LLM reply to “{}”", truncate_chars(prompt, 80)),
            Action::StreamAnswer { prompt, channel, .. } => format!("streamed LLM answer in {channel} to “{}”", truncate_chars(prompt, 80)),
            Action::Notify { args } => {
                let channel = args.get("channel").and_then(Value::as_str).unwrap_or("?");
                format!("notify API post in {channel}: “{}”", snippet(&args["text"]))
            }
            Action::Status { name } => format!("status message “{name}”"),
            Action::Session { channel, thread_ts, status, .. } => format!("agent session in {channel} thread {thread_ts}: {}", status.as_str()),
            Action::StepEnd { execution_id, end: crate::kinds::step::end::StepEnd::Success { .. } } => format!("Workflow step {execution_id} completed"),
            Action::StepEnd { execution_id, end: crate::kinds::step::end::StepEnd::Error { error } } => {
                format!("Workflow step {execution_id} failed: “{}”", truncate_chars(error, 80))
            }
            Action::StepGuard { execution_id, error } => {
                format!("guard of Workflow step {execution_id}: fails it with “{}” unless it ended", truncate_chars(error, 80))
            }
            Action::Handle { dispatch } => {
                let what = dispatch.pointer("/event/type").or_else(|| dispatch.get("command")).or_else(|| dispatch.get("payload_type"));
                format!("the app's handler on a {} (runs again when redriven)", what.and_then(Value::as_str).unwrap_or("request"))
            }
            Action::Lists { list_id, job: ListJob::Sync { record_id } } => format!("sync of record “{record_id}” to List {list_id}"),
            Action::Lists { list_id, job: ListJob::Reconcile { run } } => format!("reconciliation pass {run} of List {list_id}"),
            Action::Lists { list_id, job: ListJob::Put { record_id, .. } } => format!("record “{record_id}” stored for List {list_id}"),
            Action::Then { listener, effect, .. } => format!("{} (its end to the result listener “{listener}”)", effect.describe()),
            Action::Answer { answered } => format!("the result listener “{}” on the end of {} (runs again when redriven)", answered.listener, answered.key),
            Action::Scheduled { key, effect, .. } => format!("{} (scheduled “{key}”)", effect.describe()),
            Action::Fire => "the app's on_schedule listener".to_string(),
            Action::CancelSchedule { key } => format!("cancel of the schedule “{key}”"),
        }
    }
}

/// The effect label of a List's jobs: a serial kind.
pub const LISTS: &str = "lists";
/// The effect label of a status message's posts and updates: a serial kind.
pub const STATUS: &str = "status";

/// The serial kinds: rows of these effect labels run one at a time per target (a List's jobs, a
/// status message's): the claim takes only the oldest pending row of such a target
/// (`sql::outbox::CLAIM`, the `outbox_serial` index), so finishing one makes the next one
/// claimable. The one table of them: [`is_serial`] reads it, and the claim's SQL names them
/// through `sql::outbox::serial_effects!` (the SQL's own copy, frozen with migration 3's index),
/// which a test holds equal to it. Adding a kind here needs a
/// migration that rebuilds `outbox_serial`: the index's `WHERE` (frozen in migration 3's text) must
/// match the claim's for SQLite to use it.
pub const SERIAL: [&str; 2] = [LISTS, STATUS];

/// Whether rows of this effect label run one at a time per target ([`SERIAL`]).
pub fn is_serial(label: &str) -> bool {
    SERIAL.contains(&label)
}

/// The registry's actions are what the outbox rows store (`platform::rows`, which names no kind).
#[cfg(target_arch = "wasm32")]
impl crate::platform::rows::RowAction for Action {
    fn label(&self) -> &'static str {
        Action::label(self)
    }

    fn target(&self) -> String {
        Action::target(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_serial_kinds_sql_text_names_exactly_the_serial_table() {
        let quoted: Vec<String> = SERIAL.iter().map(|k| format!("'{k}'")).collect();
        use crate::sql::outbox::serial_effects;
        assert_eq!(serial_effects!(), format!("({})", quoted.join(", ")));
        assert!(crate::sql::outbox::CLAIM.contains(&format!("effect NOT IN {}", serial_effects!())), "the claim names the table");
        let status = Action::Status { name: "deploy".into() };
        assert!(is_serial(status.label()) && !is_serial(Action::slack_api("m", json!({})).label()));
    }

    #[test]
    fn targets_name_the_method_or_the_endpoint_kind() {
        let a = Action::slack_api("chat.update", json!({}));
        assert_eq!(a.target(), "chat.update");
        assert_eq!(Action::RespondUrl { url: "u".into(), body: json!({}) }.target(), "response_url");
    }

    #[test]
    fn actions_round_trip_through_json() {
        let a = Action::LlmReply { prompt: "p".into(), then: Followup::ResponseUrl { url: "u".into() } };
        let back: Action = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
        assert_eq!(back, a);
    }

    #[test]
    fn a_streamed_answer_without_a_display_is_stored_as_before_and_a_plan_round_trips() {
        let before = r#"{"type":"stream_answer","prompt":"p","channel":"D1","thread_ts":"1.0"}"#;
        let read: Action = serde_json::from_str(before).unwrap();
        assert_eq!(serde_json::to_string(&read).unwrap(), before, "an answer without a plan writes what older releases read");
        let Action::StreamAnswer { prompt, channel, thread_ts, recipient_user_id, recipient_team_id, .. } = read else { panic!("a streamed answer") };
        let plan = Action::StreamAnswer {
            prompt,
            channel,
            thread_ts,
            recipient_user_id,
            recipient_team_id,
            task_display_mode: Some(crate::kinds::assistant::chunks::TaskDisplayMode::Plan),
            plan_title: Some("Checking".into()),
            closing_blocks: Some(vec![serde_json::json!({"type": "divider"})]),
        };
        let json = serde_json::to_value(&plan).unwrap();
        assert_eq!((json["task_display_mode"].as_str(), json["plan_title"].as_str()), (Some("plan"), Some("Checking")));
        assert_eq!(json["closing_blocks"], serde_json::json!([{"type": "divider"}]));
        assert_eq!(serde_json::from_value::<Action>(json).unwrap(), plan);
    }

    #[test]
    fn a_scheduled_effect_is_described_as_its_effect_with_its_key() {
        let post = Action::slack_api("chat.postMessage", json!({"channel": "C1", "text": "standup"}));
        let when = crate::kinds::schedule::when::When::after(60_000);
        let scheduled = Action::Scheduled { key: "daily".into(), when, scheduled_at: None, effect: Box::new(post) };
        assert_eq!(scheduled.describe(), "chat.postMessage in C1: “standup” (scheduled “daily”)");
    }

    #[test]
    fn a_followup_in_a_thread_posts_to_that_thread_under_the_parent_key() {
        let f = Followup::Thread { channel: "C1".into(), thread_ts: "1.2".into() };
        let e = f.effect("msg:C1:1.2:reply", "hello", Some(5));
        assert_eq!(e.key, "msg:C1:1.2:reply:post");
        assert_eq!(e.deadline_after_ms, Some(5));
        assert_eq!(e.action, Action::slack_api("chat.postMessage", json!({"channel": "C1", "thread_ts": "1.2", "text": "hello"})));
    }

    #[test]
    fn a_long_answer_is_truncated_to_the_reply_limit() {
        let long = "x".repeat(MAX_REPLY_CHARS + 10);
        let e = Followup::ResponseUrl { url: "u".into() }.effect("k", &long, None);
        let Action::RespondUrl { body, .. } = e.action else { panic!("wrong action") };
        assert_eq!(body["text"].as_str().unwrap().chars().count(), MAX_REPLY_CHARS);
    }
}
