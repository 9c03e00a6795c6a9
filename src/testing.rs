//! A test kit for apps, native (no runtime): Slack-shaped payload builders that go through the
//! very parsers the Worker runs ([`mention`], [`message`], [`dm`], [`event`], [`command`],
//! the assistant's and the agent's events ([`assistant_thread_started`], [`agent_opened`],
//! [`agent_dm`], [`agent_reply`], [`app_context_changed`]), a click on an answer's [`feedback`]
//! buttons, shared links and a click on a Work Object ([`link_shared`],
//! [`link_shared_in_composer`], [`entity_details_requested`]),
//! [`action`], [`view_submission`] (its values typed by the view's fields: [`Values`]),
//! [`shortcut`], [`message_shortcut`], [`options`]), and
//! [`handle`], which runs an app on one of them and returns what the team actor would record: the
//! ack's body and the effects (method, arguments, key), or why it was ignored or failed.
//!
//! ```
//! use slackline::prelude::*;
//! use slackline::testing::{handle, mention};
//!
//! let app = Listeners::new().mention(|_, cx| { cx.reply("hi"); Ok(()) });
//! let done = handle(&app, &mention("C1", "U1", "<@UBOT> hello"));
//! let (method, args) = &done.calls()[0];
//! assert_eq!((method.as_str(), args["channel"].as_str(), args["text"].as_str()), ("chat.postMessage", Some("C1"), Some("hi")));
//! ```
//!
//! The team is `T1`, our bot `UBOT`; ids and `ts` values are fresh for each payload.
//!
//! **The test kit is the whole of what a bot's test needs**, with the prelude: a bot's test
//! reads what its handler did through [`Handled`] — [`Handled::calls`] (the Web API calls),
//! [`Handled::queued`] (every effect as plain values: method, arguments, deadline, its
//! [`Schedule`], what it cancels or remembers), [`Handled::scheduled`], [`Handled::cancelled`],
//! [`Handled::state_writes`] (the state it wrote) — never by matching on slackline's effect or
//! state types, which may change under it. Any payload takes who acts, where and on which message
//! ([`Dispatch::by`], [`Dispatch::in_channel`], [`Dispatch::in_thread`], [`Dispatch::on_message`]),
//! and [`Team::remember`] gives a team Slack's answer to a remembered post. A scheduled post, for
//! instance:
//!
//! ```
//! use slackline::prelude::*;
//! use slackline::testing::{command, handle, Schedule};
//!
//! let app = Listeners::new().command("/remind", |c, cx| {
//!     cx.schedule("remind:C1", When::after(30 * MINUTE_MS)).say(&c.channel_id, "stand-up");
//!     Ok(())
//! });
//! let queued = &handle(&app, &command("/remind", "")).queued()[0];
//! assert_eq!(queued.schedule, Some(Schedule { key: "remind:C1".into(), when: When::after(30 * MINUTE_MS) }));
//! assert_eq!((queued.method.as_str(), queued.args["text"].as_str()), ("chat.postMessage", Some("stand-up")));
//! ```
//!
//! **Block Kit is checked.** [`handle`] (and [`Team::handle`]) fail the test when the handler
//! queued a message or a view Slack would refuse (over one of its limits: 50 blocks in a message,
//! a section's 3,000 characters, a modal's 24-character title, a `block_id` used twice, …, typed
//! or raw JSON alike), naming the effect and the path:
//! `effect 0 (chat.postMessage): blocks[2].text: 3,012 characters, Slack takes 3,000`
//! ([`crate::blocks::limits`]).
//!
//! State: [`Handled::state_writes`] lists the state writes a handler made; [`Team`] keeps a team's
//! state in memory across requests and applies them as the team actor's unit would (once per
//! fact), and [`Team::put`] seeds it:
//!
//! ```
//! use slackline::prelude::*;
//! use slackline::testing::{mention, Team};
//!
//! let app = Listeners::new().mention(|_, cx| { cx.state().update::<u32>("votes", |n| Some(n.unwrap_or(0) + 1))?; Ok(()) });
//! let team = Team::new();
//! team.handle(&app, &mention("C1", "U1", "<@UBOT> +1"));
//! team.handle(&app, &mention("C1", "U2", "<@UBOT> +1"));
//! assert_eq!(team.value("votes"), Some(serde_json::json!(2)));
//! ```

mod acting;
mod block_kit;
mod queued;
mod schedules;
mod values;

use crate::slack::envelope::Dispatch;
pub use queued::{Queued, Schedule};
pub use schedules::{Firing, PendingSchedule};
pub use values::Values;

use crate::app::listen::agent::{ContextEntity, Viewed};
use crate::app::listen::feedback::Rating;
use crate::app::{decide, App, Context, Decision};
use crate::kinds::answer::{Answered, Ended, Failure};
use crate::kinds::assistant::calls::{FEEDBACK_ACTION_ID, FEEDBACK_NEGATIVE, FEEDBACK_POSITIVE};
use crate::kinds::registry::{Action, Effect};
use crate::slack::envelope::{parse_command_form, parse_events_body, parse_interaction_form, Inbound};
use crate::state::{MemState, StateChange, StateWrite};
use serde::Serialize;
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The team every payload belongs to.
pub const TEAM: &str = "T1";
/// Our bot's user id in it.
pub const BOT_USER: &str = "UBOT";

fn next() -> u64 {
    static N: AtomicU64 = AtomicU64::new(1);
    N.fetch_add(1, Ordering::Relaxed)
}

/// A fresh message `ts`.
pub fn fresh_ts() -> String {
    format!("1700000000.{:06}", next())
}

fn dispatch(inbound: Inbound) -> Dispatch {
    match inbound {
        Inbound::Dispatch(d) => d,
        other => panic!("not a dispatch: {other:?}"),
    }
}

/// Any event (its JSON, with a `type`), in an `event_callback` of [`TEAM`].
pub fn event(event: Value) -> Dispatch {
    let envelope = json!({
        "type": "event_callback", "team_id": TEAM, "event_id": format!("Ev{}", next()), "event_time": 1_700_000_000,
        "authorizations": [{"team_id": TEAM, "user_id": BOT_USER, "is_bot": true}], "event": event,
    });
    dispatch(parse_events_body(envelope.to_string().as_bytes()).expect("a valid event"))
}

/// A workflow reaching the app's step `callback_id` (`function_executed`): execution
/// `execution_id`, with `inputs` and a per-execution token.
pub fn function_executed(callback_id: &str, execution_id: &str, inputs: Value) -> Dispatch {
    let ts = fresh_ts();
    event(json!({
        "type": "function_executed", "function": {"callback_id": callback_id}, "inputs": inputs,
        "function_execution_id": execution_id, "workflow_execution_id": format!("Wx{}", next()),
        "bot_access_token": format!("xwfp-{execution_id}"), "event_ts": ts,
    }))
}

/// Links shared in a message `user` `U1` posted in `channel` (`link_shared`, source
/// `conversations_history`, with an `unfurl_id`); each link's domain is its URL's host.
pub fn link_shared(channel: &str, urls: &[&str]) -> Dispatch {
    let ts = fresh_ts();
    let unfurl_id = format!("{channel}.{ts}.{}", next());
    event(json!({
        "type": "link_shared", "channel": channel, "is_bot_user_member": true, "user": "U1", "message_ts": ts,
        "unfurl_id": unfurl_id, "source": "conversations_history", "links": shared_links(urls), "event_ts": ts,
    }))
}

/// Links `U1` is writing in the message composer, before the message exists (`link_shared`,
/// source `composer`: channel `COMPOSER`, an `unfurl_id` and no message).
pub fn link_shared_in_composer(urls: &[&str]) -> Dispatch {
    let unfurl_id = format!("U1-{}", next());
    event(json!({
        "type": "link_shared", "channel": "COMPOSER", "is_bot_user_member": false, "user": "U1", "message_ts": unfurl_id,
        "unfurl_id": unfurl_id, "source": "composer", "links": shared_links(urls), "event_ts": fresh_ts(),
    }))
}

fn shared_links(urls: &[&str]) -> Vec<Value> {
    let host = |url: &str| url.split("://").nth(1).unwrap_or(url).split(['/', '?', '#', ':']).next().unwrap_or_default().to_string();
    urls.iter().map(|url| json!({"url": url, "domain": host(url)})).collect()
}

/// `U1` clicked the Work Object of `external_id` at `url`, unfurled in a message of `C1`
/// (`entity_details_requested`, with a fresh `trigger_id`).
pub fn entity_details_requested(external_id: &str, url: &str) -> Dispatch {
    let ts = fresh_ts();
    event(json!({
        "type": "entity_details_requested", "user": "U1", "external_ref": {"id": external_id}, "entity_url": url,
        "app_unfurl_url": url, "trigger_id": format!("trig.{}", next()), "user_locale": "en-US", "channel": "C1",
        "message_ts": ts, "event_ts": fresh_ts(),
    }))
}

/// An `app_mention` of our bot by `user` in `channel`.
pub fn mention(channel: &str, user: &str, text: &str) -> Dispatch {
    let ts = fresh_ts();
    event(json!({"type": "app_mention", "channel": channel, "user": user, "text": text, "ts": ts, "event_ts": ts}))
}

/// A `message` by `user` in `channel`.
pub fn message(channel: &str, user: &str, text: &str) -> Dispatch {
    let ts = fresh_ts();
    event(json!({"type": "message", "channel_type": "channel", "channel": channel, "user": user, "text": text, "ts": ts, "event_ts": ts}))
}

/// A direct message from `user` to our bot.
pub fn dm(user: &str, text: &str) -> Dispatch {
    let ts = fresh_ts();
    event(json!({"type": "message", "channel_type": "im", "channel": format!("D{user}"), "user": user, "text": text, "ts": ts, "event_ts": ts}))
}

/// `user` opening an assistant thread (`assistant_thread_started`) in their DM with the bot,
/// while viewing `viewing` (a channel id); the thread's root is `thread_ts`.
pub fn assistant_thread_started(user: &str, thread_ts: &str, viewing: Option<&str>) -> Dispatch {
    assistant_thread_event("assistant_thread_started", user, thread_ts, viewing)
}

/// The user of an assistant thread moving to another channel (`assistant_thread_context_changed`).
pub fn assistant_context_changed(user: &str, thread_ts: &str, viewing: Option<&str>) -> Dispatch {
    assistant_thread_event("assistant_thread_context_changed", user, thread_ts, viewing)
}

fn assistant_thread_event(kind: &str, user: &str, thread_ts: &str, viewing: Option<&str>) -> Dispatch {
    let mut context = json!({"team_id": TEAM});
    if let Some(channel) = viewing {
        context["channel_id"] = json!(channel);
    }
    let thread = json!({"user_id": user, "context": context, "channel_id": format!("D{user}"), "thread_ts": thread_ts});
    event(json!({"type": kind, "assistant_thread": thread, "event_ts": fresh_ts()}))
}

/// `user` writing `text` in their assistant thread `thread_ts` (a DM message in that thread).
pub fn assistant_message(user: &str, thread_ts: &str, text: &str) -> Dispatch {
    let ts = fresh_ts();
    event(
        json!({"type": "message", "channel_type": "im", "channel": format!("D{user}"), "user": user, "text": text, "ts": ts, "thread_ts": thread_ts, "event_ts": ts}),
    )
}

/// `user` opening the agent's DM (`app_home_opened` on the Messages tab, `agent_view`); the DM is
/// `D{user}`, as for [`dm`].
pub fn agent_opened(user: &str) -> Dispatch {
    event(json!({"type": "app_home_opened", "user": user, "channel": format!("D{user}"), "tab": "messages", "event_ts": fresh_ts()}))
}

/// `user` writing `text` at the top level of the agent's DM: under `agent_view` the root of its
/// own thread (the same message as [`dm`], named for what it starts).
pub fn agent_dm(user: &str, text: &str) -> Dispatch {
    dm(user, text)
}

/// `user` replying `text` in the agent's DM, in the thread of their message `thread_ts`.
pub fn agent_reply(user: &str, thread_ts: &str, text: &str) -> Dispatch {
    assistant_message(user, thread_ts, text)
}

/// What `user` looks at changing to `viewing` (`app_context_changed` in their DM with the agent;
/// each entity in [`TEAM`]; none: they look at nothing Slack shares).
pub fn app_context_changed(user: &str, viewing: &[Viewed]) -> Dispatch {
    let entities: Vec<ContextEntity> = viewing.iter().map(|v| ContextEntity::new(v.clone(), Some(TEAM))).collect();
    event(json!({"type": "app_context_changed", "user": user, "channel": format!("D{user}"), "context": {"entities": entities}, "event_ts": fresh_ts()}))
}

/// The slash command `name` with `text`, run by `U1` in `C1`.
pub fn command(name: &str, text: &str) -> Dispatch {
    let fields = [
        ("team_id", TEAM.to_string()),
        ("command", name.to_string()),
        ("text", text.to_string()),
        ("trigger_id", format!("trig.{}", next())),
        ("response_url", format!("https://hooks.slack.test/commands/{}", next())),
        ("user_id", "U1".to_string()),
        ("channel_id", "C1".to_string()),
    ];
    let body = form_urlencoded::Serializer::new(String::new()).extend_pairs(fields.iter().map(|(k, v)| (*k, v.as_str()))).finish();
    dispatch(parse_command_form(body.as_bytes()).expect("a valid command"))
}

/// An interactivity payload (its JSON, with a `type`), from `U1` of [`TEAM`].
pub fn interaction(mut payload: Value) -> Dispatch {
    payload["team"] = json!({"id": TEAM});
    if payload.get("user").is_none() {
        payload["user"] = json!({"id": "U1", "team_id": TEAM});
    }
    if payload.get("trigger_id").is_none() {
        payload["trigger_id"] = json!(format!("trig.{}", next()));
    }
    let body = form_urlencoded::Serializer::new(String::new()).append_pair("payload", &payload.to_string()).finish();
    dispatch(parse_interaction_form(body.as_bytes()).expect("a valid interaction"))
}

/// A click on the button `action_id` (a string, or the button's typed `ActionId`), with
/// `value`, on a message in `C1`.
pub fn action(action_id: impl AsRef<str>, value: &str) -> Dispatch {
    let (ts, action_id) = (fresh_ts(), action_id.as_ref());
    interaction(json!({
        "type": "block_actions",
        "container": {"type": "message", "channel_id": "C1", "message_ts": ts},
        "channel": {"id": "C1"}, "message": {"ts": ts, "text": "a message"},
        "response_url": format!("https://hooks.slack.test/actions/{}", next()),
        "actions": [{"type": "button", "action_id": action_id, "block_id": "b1", "value": value}],
    }))
}

/// `U1` pressing a feedback button (`rating`) under an answer the bot streamed in the thread
/// `thread_ts` of `channel`, as Slack sends it (`block_actions` of a `feedback_buttons` element).
pub fn feedback(channel: &str, thread_ts: &str, rating: Rating) -> Dispatch {
    let (ts, value) = (fresh_ts(), if rating == Rating::Positive { FEEDBACK_POSITIVE } else { FEEDBACK_NEGATIVE });
    interaction(json!({
        "type": "block_actions",
        "container": {"type": "message", "channel_id": channel, "message_ts": ts, "thread_ts": thread_ts, "is_ephemeral": false},
        "channel": {"id": channel}, "message": {"ts": ts, "thread_ts": thread_ts, "text": "an answer", "bot_id": "B1"},
        "response_url": format!("https://hooks.slack.test/actions/{}", next()),
        "actions": [{"type": "feedback_buttons", "action_id": FEEDBACK_ACTION_ID, "block_id": "b1", "value": value, "text": {"type": "plain_text", "text": value}}],
    }))
}

/// A modal's submission: `values` is its `state.values` (`{block_id: {action_id: {"value": …}}}`),
/// as JSON or built from the view's fields ([`Values`]).
pub fn view_submission(callback_id: &str, values: impl Into<Value>) -> Dispatch {
    let values: Value = values.into();
    interaction(json!({
        "type": "view_submission",
        "view": {"id": format!("V{}", next()), "type": "modal", "callback_id": callback_id, "state": {"values": values}, "private_metadata": ""},
    }))
}

/// A global shortcut.
pub fn shortcut(callback_id: &str) -> Dispatch {
    interaction(json!({"type": "shortcut", "callback_id": callback_id}))
}

/// A message shortcut, on a message in `C1`.
pub fn message_shortcut(callback_id: &str) -> Dispatch {
    let ts = fresh_ts();
    interaction(json!({
        "type": "message_action", "callback_id": callback_id, "channel": {"id": "C1"}, "message": {"ts": ts, "text": "a message", "user": "U2"},
        "response_url": format!("https://hooks.slack.test/shortcuts/{}", next()),
    }))
}

/// An external select asking for options (`block_suggestion`), with what the user typed.
pub fn options(action_id: &str, query: &str) -> Dispatch {
    interaction(json!({"type": "block_suggestion", "action_id": action_id, "block_id": "b1", "value": query}))
}

/// What the team actor would record for one request.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Handled {
    /// The ack's body, if the app set one.
    pub ack: Option<Value>,
    /// Every effect queued, in order, as plain values (a scheduled one as the effect it
    /// performs, with its [`Schedule`]): what a bot's test asserts on.
    pub effects: Vec<Queued>,
    /// Why nothing was queued, if the app ignored it.
    pub ignored: Option<&'static str>,
    /// The handler's error, if it failed.
    pub failed: Option<String>,
    /// The effects as the team actor records them (the engine's rows: not API).
    pub(crate) rows: Vec<Effect>,
    /// The state writes the unit would apply (none when the handler failed or refused).
    pub(crate) state: Vec<StateWrite>,
}

impl Handled {
    /// The Web API calls queued: (method, arguments).
    pub fn calls(&self) -> Vec<(String, Value)> {
        self.rows
            .iter()
            .filter_map(|e| match &e.action {
                Action::SlackApi { method, args, .. } => Some((method.clone(), args.clone())),
                _ => None,
            })
            .collect()
    }

    /// The effects' idempotency keys.
    pub fn keys(&self) -> Vec<&str> {
        self.effects.iter().map(|e| e.key.as_str()).collect()
    }

    /// The effects queued: the same as [`Handled::effects`], as a new list.
    pub fn queued(&self) -> Vec<Queued> {
        self.effects.clone()
    }

    /// The effects the handler scheduled (`cx.schedule(key, when)…`), in order: each with its
    /// [`Schedule`] (`Some`).
    pub fn scheduled(&self) -> Vec<Queued> {
        self.queued().into_iter().filter(|q| q.schedule.is_some()).collect()
    }

    /// The schedule keys the handler cancelled (`cx.cancel(key)`), in order.
    pub fn cancelled(&self) -> Vec<String> {
        self.queued().into_iter().filter_map(|q| q.cancels).collect()
    }

    /// The state the handler wrote, in order: each key with the value it put, or `None` for a
    /// delete (none when the handler failed or refused, or, through [`Team::handle`], when its
    /// fact had changed the state before).
    pub fn state_writes(&self) -> Vec<(String, Option<Value>)> {
        let json = |text: &str| serde_json::from_str(text).expect("a state value is JSON");
        self.state
            .iter()
            .map(|w| match w {
                StateWrite::Put { key, value } => (key.clone(), Some(json(value))),
                StateWrite::Delete { key } => (key.clone(), None),
            })
            .collect()
    }
}

/// The test kit's clock unless a test sets one ([`Team::at`]): 2026-01-01 00:00 UTC, what
/// `cx.now()` says in [`handle`].
pub const TEST_EPOCH: i64 = 1_767_225_600_000;

/// A scheduled row's key for its occurrence due at `due` (a fixed effect run by the test kit).
fn schedule_row_key(key: &str, due: i64) -> String {
    crate::kinds::schedule::occurrence_key(key, due)
}

/// Runs `app` on `dispatch` (without an LLM configured), at [`TEST_EPOCH`].
///
/// # Panics
///
/// When the handler queued (or acked) a message or a view Slack would refuse: see the module's
/// "Block Kit is checked".
pub fn handle(app: &dyn App, dispatch: &Dispatch) -> Handled {
    handle_with(app, dispatch, &Context::default().at(TEST_EPOCH))
}

/// Runs `app` on `dispatch` with `ctx` (its state read through `ctx`'s reader, if any).
pub(crate) fn handle_with(app: &dyn App, dispatch: &Dispatch, ctx: &Context) -> Handled {
    handled(app, dispatch, ctx).0
}

fn handled(app: &dyn App, dispatch: &Dispatch, ctx: &Context) -> (Handled, Option<StateChange>) {
    let output = decide(app, dispatch, ctx);
    let done = Handled::of(output.ack, output.decision, output.state.as_ref());
    block_kit::assert_valid(&done);
    (done, output.state)
}

impl Handled {
    /// What a handler run answered, as the team actor would record it: the effects and state
    /// writes of a run whose effects stand, else why it did nothing.
    fn of(ack: Option<Value>, decision: Decision, change: Option<&StateChange>) -> Handled {
        let none = Handled { ack, effects: Vec::new(), ignored: None, failed: None, rows: Vec::new(), state: Vec::new() };
        match decision {
            Decision::Enqueue(rows) => {
                let state = change.map(|c| c.writes.clone()).unwrap_or_default();
                Handled { effects: rows.iter().map(Queued::of).collect(), rows, state, ..none }
            }
            Decision::Ignore(reason) => Handled { ignored: Some(reason), ..none },
            Decision::Failed(why) => Handled { failed: Some(why), ..none },
        }
    }
}

/// A team's state in memory, across requests: each [`Team::handle`] runs the app with its state
/// and applies the handler's writes as the team actor's unit would — unless a change for the
/// same fact was applied before (a fresh `event_id` for the same message, or its `message` and
/// `app_mention` events, change the state once).
///
/// It keeps a clock and the team's pending schedules too, and runs them as the team actor's alarm
/// would ([`Team::at`], [`Team::advance`], [`Team::run_due`], [`Team::fire`],
/// [`Team::pending_schedules`]: see `schedules`).
#[derive(Debug)]
pub struct Team {
    /// The stored state.
    pub(crate) state: Rc<MemState>,
    facts: RefCell<HashSet<String>>,
    /// The clock (epoch ms).
    clock: Cell<i64>,
    /// The pending schedules.
    schedules: RefCell<Vec<PendingSchedule>>,
}

impl Default for Team {
    fn default() -> Team {
        Team { state: Rc::default(), facts: RefCell::default(), clock: Cell::new(TEST_EPOCH), schedules: RefCell::default() }
    }
}

impl Team {
    /// A team with no state, its clock at [`TEST_EPOCH`].
    pub fn new() -> Team {
        Team::default()
    }

    /// Runs `app` on `dispatch` against this team's state at its clock, applies what it wrote,
    /// and notes what it scheduled or cancelled.
    pub fn handle(&self, app: &dyn App, dispatch: &Dispatch) -> Handled {
        self.run_app(|ctx| decide(app, dispatch, ctx))
    }

    /// One run of the app (on a request, a schedule's firing or an effect's end) against this
    /// team's state at its clock, as the team actor's unit takes it: its Block Kit checked, its
    /// state change applied unless a change for the same fact was applied before (then it shows
    /// no writes), what it scheduled or cancelled noted.
    pub(crate) fn run_app(&self, run: impl FnOnce(&Context) -> crate::app::HandlerOutput) -> Handled {
        let output = run(&Context::default().with_state(self.state.clone()).at(self.now()));
        let mut done = Handled::of(output.ack, output.decision, output.state.as_ref());
        block_kit::assert_valid(&done);
        match output.state {
            Some(change) if self.facts.borrow_mut().insert(change.fact.clone()) => self.state.apply(&change.writes),
            _ => done.state.clear(),
        }
        self.note_schedules(&done.rows);
        done
    }

    /// The value stored under `key` (as JSON), if any: what the handlers wrote, or a test put.
    pub fn value(&self, key: &str) -> Option<Value> {
        self.state.value(key)
    }

    /// Stores `value` under `key`, as a handler's `cx.state().put(key, &value)` would: a test's
    /// way to give the team what happened outside the handlers — Slack's answer that
    /// `.remember(key)` keeps once the post is delivered (a [`Posted`](crate::prelude::Posted)),
    /// or state from before.
    pub fn put(&self, key: &str, value: &impl Serialize) {
        let value = serde_json::to_string(value).expect("a state value is JSON");
        self.state.apply(&[StateWrite::Put { key: key.to_string(), value }]);
    }

    /// Runs the result listener of `effect` (queued with `.then(name, …)`) on Slack's (or the
    /// service's) `answer`, as the team actor does once the effect succeeded: with the team's
    /// state at its clock, what it writes applied once per effect.
    ///
    /// # Panics
    ///
    /// When `effect` names no result listener.
    pub fn answer(&self, app: &dyn App, effect: &Queued, answer: Value) -> Handled {
        self.ended(app, effect, Ended::Answered { answer })
    }

    /// Runs the result listener of `effect` on its failure, as the team actor does once the
    /// effect is parked: its last error (`user_not_found`), after one attempt, for good
    /// (`permanent`).
    ///
    /// # Panics
    ///
    /// When `effect` names no result listener.
    pub fn fail(&self, app: &dyn App, effect: &Queued, error: &str) -> Handled {
        self.ended(app, effect, Ended::Failed(Failure::new(Some(error.into()), "permanent", 1)))
    }

    fn ended(&self, app: &dyn App, effect: &Queued, outcome: Ended) -> Handled {
        let listener = effect.then.as_deref().unwrap_or_else(|| panic!("effect {} names no result listener (.then)", effect.key));
        let answered = Answered::new(listener, &effect.key, self.now(), outcome, effect.then_data.clone());
        self.run_app(|ctx| crate::app::answered(app, &answered, ctx))
    }

    /// Slack's answer to a post queued with `.remember(key)`, as the team actor keeps it once the
    /// post is delivered: the message `ts` in `channel`. What a later handler reads with
    /// `cx.state().get::<Posted>(key)`, or `.in_thread_of(key)` posts under.
    pub fn remember(&self, key: &str, channel: &str, ts: &str) {
        self.put(key, &crate::state::Posted { channel: channel.into(), ts: ts.into() });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prelude::*;

    fn votes() -> Listeners {
        Listeners::new().mention(|m, cx| {
            let key = format!("votes:{}", m.message.channel);
            if m.words() == "reset" {
                cx.state().delete(&key)?;
            } else {
                cx.state().update::<u32>(&key, |n| Some(n.unwrap_or(0) + 1))?;
            }
            Ok(())
        })
    }

    #[test]
    fn written_reads_each_put_as_its_json_and_a_delete_as_none() {
        let team = Team::new();
        let done = team.handle(&votes(), &mention("C1", "U1", "<@UBOT> +1"));
        assert_eq!(done.state_writes(), [("votes:C1".to_string(), Some(json!(1)))]);
        let reset = team.handle(&votes(), &mention("C1", "U1", "<@UBOT> reset"));
        assert_eq!(reset.state_writes(), [("votes:C1".to_string(), None)]);
        assert_eq!(team.value("votes:C1"), None);
    }

    #[test]
    fn a_team_seeded_with_put_is_read_by_the_next_handler() {
        let team = Team::new();
        team.put("votes:C1", &41);
        team.put("post:1", &Posted { channel: "C9".into(), ts: "9.1".into() });
        team.handle(&votes(), &mention("C1", "U1", "<@UBOT> +1"));
        assert_eq!(team.value("votes:C1"), Some(json!(42)));
        assert_eq!(team.value("post:1"), Some(json!({ "channel": "C9", "ts": "9.1" })));
    }
}
