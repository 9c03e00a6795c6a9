//! The listener API: an app is a list of listeners, each a pattern and a pure handler, in the
//! style of Bolt (`app.event`, `app.message`, `app.command`, `app.action`, `app.view`,
//! `app.shortcut`, `app.options`), but every handler runs inside the team actor's atomic unit: it
//! sees the request ([`input`]) and a [`Cx`] whose helpers queue effects keyed by the fact, and
//! whose `ack_*` set the body Slack shows at once. Nothing a handler does happens before its
//! effects are committed with the event's receipt.
//!
//! ```
//! use slackline::prelude::{Listeners, Pattern};
//!
//! let app = Listeners::new()
//!     .mention(|m, cx| { cx.reply(&format!("Hi <@{}>!", m.message.user.as_deref().unwrap_or("there"))); Ok(()) })
//!     .message(Pattern::contains("deploy"), |_, cx| { cx.react("rocket"); Ok(()) })
//!     .command("/status", |_, cx| { cx.ack_ephemeral("All green."); Ok(()) })
//!     .event("reaction_added", |e, cx| {
//!         let r: slackline::prelude::ReactionEvent = e.parse()?;
//!         if r.reaction == "eyes" { cx.reply("Someone is looking."); }
//!         Ok(())
//!     });
//! # let _ = app;
//! ```
//!
//! Rules, as users of Bolt expect them:
//! - **the first matching listener wins**; a request no listener matches is acknowledged (200),
//!   recorded, and ignored with the reason `no_listener`;
//! - **bots are ignored**: a message from our own bot or another bot reaches no `mention`,
//!   `message` or `event("message")` listener unless that listener was registered
//!   [`including_bots`](Listeners::including_bots);
//! - `event("message_changed")` (any subtype's name) matches a `message` event of that subtype;
//!   `message(pattern)` matches messages people write (no subtype, or `thread_broadcast`,
//!   `file_share`);
//! - Slack's agent surfaces have listeners of their own: [`agent`] (the agent's DM under
//!   `agent_view`: `agent_opened`, `agent_message`, `agent_context_changed`), [`assistant`]
//!   (legacy assistant threads) and [`feedback`] (the buttons under a streamed answer); `agent_opened` takes only the Messages tab's `app_home_opened`,
//!   so an `event("app_home_opened")` after it still gets the Home tab;
//! - [`middleware`] runs before the handlers: the global middleware
//!   ([`Listeners::middleware`]) on every request, before any listener is chosen, then the
//!   chosen listener's group's ([`Listeners::group`]); each continues, ignores the request with
//!   a reason, or fails it, in the same [`Cx`] as the handler;
//! - link previews and Work Objects have theirs too ([`unfurl`]): `link_shared` (every sharing),
//!   `unfurl(domain)` (the links of one domain), `entity_details` (a click on a Work Object);
//! - a handler's `Err` never loses its event: the decision is
//!   [`Decision::Failed`](super::Decision::Failed), which the team actor records.

pub mod agent;
pub mod assistant;
pub mod cx;
pub mod feedback;
pub mod input;
pub mod middleware;
mod origin;
mod run;
pub mod session;
pub mod step;
pub mod unfurl;

pub use crate::kinds::schedule::{Days, Fired, When, DAY_MS, MINUTE_MS};
pub use cx::{Cx, EffectRef, Origin, Scheduling};
pub use input::*;
pub use middleware::{MiddlewareResult, Next};
pub use session::Session;
pub use step::StepIn;

use super::{App, Context, HandlerOutput};
use crate::blocks::{ActionId, Field};
use crate::kinds::answer::Answered;
use crate::slack::envelope::{Dispatch, Event, EventEnvelope, Interaction, InteractionKind, Message, SlashCommand};
use crate::state::StateError;
use middleware::Middleware;
use run::{settle, Ran, Turn};
use serde_json::Value;

/// Why a handler gave up (its message is kept with the event).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandlerError(pub String);

impl From<String> for HandlerError {
    fn from(s: String) -> Self {
        HandlerError(s)
    }
}

impl From<StateError> for HandlerError {
    fn from(e: StateError) -> Self {
        HandlerError(e.to_string())
    }
}

impl From<crate::kinds::schedule::CalendarError> for HandlerError {
    fn from(e: crate::kinds::schedule::CalendarError) -> Self {
        HandlerError(e.to_string())
    }
}

impl From<crate::kinds::schedule::ZoneError> for HandlerError {
    fn from(e: crate::kinds::schedule::ZoneError) -> Self {
        HandlerError(e.to_string())
    }
}

impl From<crate::kinds::answer::DataError> for HandlerError {
    fn from(e: crate::kinds::answer::DataError) -> Self {
        HandlerError(e.0)
    }
}

impl From<&str> for HandlerError {
    fn from(s: &str) -> Self {
        HandlerError(s.to_string())
    }
}

impl std::fmt::Display for HandlerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HandlerError {}

/// What a handler returns.
pub type HandlerResult = Result<(), HandlerError>;

// Stored handlers, for any borrow of the request their input holds.
type EventHandler = Box<dyn for<'a> Fn(&EventIn<'a>, &mut Cx) -> HandlerResult>;
type MessageHandler = Box<dyn for<'a> Fn(&MessageIn<'a>, &mut Cx) -> HandlerResult>;
type CommandHandler = Box<dyn Fn(&SlashCommand, &mut Cx) -> HandlerResult>;
type ActionHandler = Box<dyn for<'a> Fn(&ActionIn<'a>, &mut Cx) -> HandlerResult>;
type ViewHandler = Box<dyn for<'a> Fn(&ViewIn<'a>, &mut Cx) -> HandlerResult>;
type ShortcutHandler = Box<dyn for<'a> Fn(&ShortcutIn<'a>, &mut Cx) -> HandlerResult>;
type OptionsHandler = Box<dyn for<'a> Fn(&OptionsIn<'a>, &mut Cx) -> HandlerResult>;
type StepHandler = Box<dyn Fn(&step::StepIn, &mut Cx) -> HandlerResult>;
type ScheduleHandler = Box<dyn Fn(&Fired, &mut Cx) -> HandlerResult>;
type ResultHandler = Box<dyn Fn(&Answered, &mut Cx) -> HandlerResult>;

/// Which messages a `message` listener takes, by their text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pattern {
    /// Every message.
    Any,
    /// Messages whose text contains this (case-insensitive).
    Contains(String),
    /// Messages whose text, without leading mentions, starts with this (case-insensitive).
    StartsWith(String),
    /// Messages whose text a regular expression matches (as written: `(?i)` for any case).
    Regex(TextRegex),
}

/// A compiled regular expression (`regex-lite`'s syntax: Rust's `regex` without Unicode
/// classes), compared by its source. It is matched through the function [`Pattern::regex`]
/// stores beside it, so a bot that never builds one links no regular-expression engine.
#[derive(Clone)]
pub struct TextRegex {
    regex: std::rc::Rc<regex_lite::Regex>,
    captures: fn(&regex_lite::Regex, &str) -> Option<Vec<String>>,
}

impl std::fmt::Debug for TextRegex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("TextRegex").field(&self.regex.as_str()).finish()
    }
}

impl PartialEq for TextRegex {
    fn eq(&self, other: &TextRegex) -> bool {
        self.regex.as_str() == other.regex.as_str()
    }
}

/// A regular expression's groups on `text` (the whole match first, an unmatched group as "").
fn regex_captures(regex: &regex_lite::Regex, text: &str) -> Option<Vec<String>> {
    regex.captures(text).map(|c| c.iter().map(|g| g.map(|g| g.as_str().to_string()).unwrap_or_default()).collect())
}

impl Eq for TextRegex {}

impl Pattern {
    /// Every message.
    pub fn any() -> Pattern {
        Pattern::Any
    }

    /// Messages containing `text` (case-insensitive).
    pub fn contains(text: &str) -> Pattern {
        Pattern::Contains(text.to_lowercase())
    }

    /// Messages starting with `text` (case-insensitive), mentions aside.
    pub fn starts_with(text: &str) -> Pattern {
        Pattern::StartsWith(text.to_lowercase())
    }

    /// Messages a regular expression matches, e.g. `Pattern::regex(r"^deploy (\w+)$")`; the
    /// handler gets the captures in `MessageIn::matches`. A bad expression is an error here, when
    /// the app is built, never while Slack waits.
    pub fn regex(expression: &str) -> Result<Pattern, String> {
        match regex_lite::Regex::new(expression) {
            Ok(regex) => Ok(Pattern::Regex(TextRegex { regex: std::rc::Rc::new(regex), captures: regex_captures })),
            Err(e) => Err(format!("bad message pattern {expression:?}: {e}")),
        }
    }

    /// Whether `text` matches.
    pub fn matches(&self, text: &str) -> bool {
        self.captures(text).is_some()
    }

    /// `Some` when `text` matches: a regular expression's groups (the whole match first, an
    /// unmatched optional group as ""), nothing for the other patterns.
    pub fn captures(&self, text: &str) -> Option<Vec<String>> {
        let matched = match self {
            Pattern::Any => true,
            Pattern::Contains(needle) => text.to_lowercase().contains(needle),
            Pattern::StartsWith(prefix) => super::strip_mentions(text).to_lowercase().starts_with(prefix),
            Pattern::Regex(r) => return (r.captures)(&r.regex, text),
        };
        matched.then(Vec::new)
    }
}

/// Which action an `action` listener takes: by `action_id`, or by `block_id` and `action_id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionMatch {
    block_id: Option<String>,
    action_id: String,
}

impl From<&str> for ActionMatch {
    fn from(action_id: &str) -> Self {
        ActionMatch { block_id: None, action_id: action_id.into() }
    }
}

impl From<(&str, &str)> for ActionMatch {
    fn from((block_id, action_id): (&str, &str)) -> Self {
        ActionMatch { block_id: Some(block_id.into()), action_id: action_id.into() }
    }
}

/// A typed action id (`const APPROVE: ActionId`), the one its button was built with.
impl From<ActionId> for ActionMatch {
    fn from(action_id: ActionId) -> Self {
        ActionMatch::from(action_id.as_str())
    }
}

/// An input's `Field` (its block and action ids): its element's actions, under `dispatch_action`.
impl<K> From<Field<K>> for ActionMatch {
    fn from(field: Field<K>) -> Self {
        ActionMatch::from((field.block_id(), field.action_id().as_str()))
    }
}

enum Route {
    Event(String, EventHandler),
    Mention(MessageHandler),
    Message(Pattern, MessageHandler),
    /// A message a user writes in an assistant thread ([`assistant`]).
    AssistantMessage(MessageHandler),
    /// The agent's DM opened on its Messages tab ([`agent`]).
    AgentOpened(EventHandler),
    /// A message a person writes in a DM with the app ([`agent`]).
    AgentMessage(MessageHandler),
    Command(String, CommandHandler),
    Action(ActionMatch, ActionHandler),
    ViewSubmission(String, ViewHandler),
    ViewClosed(String, ViewHandler),
    Shortcut(String, ShortcutHandler),
    Options(String, OptionsHandler),
    /// A Workflow step, by its `callback_id` ([`step`]).
    Function(String, StepHandler),
    /// A `link_shared`, of any domain or of one ([`unfurl`]).
    LinkShared(Option<String>, unfurl::LinkHandler),
    /// A click on a Work Object ([`unfurl`]).
    EntityDetails(unfurl::DetailsHandler),
    /// A schedule's firing, by its key or a key prefix (`digest:*`).
    Schedule(String, ScheduleHandler),
    /// An effect's end, for the result listener of this name (`.then(name, …)`).
    Result(String, ResultHandler),
}

struct Listener {
    route: Route,
    bots: bool,
    /// Its groups' middleware, the outer group's first ([`Listeners::group`]).
    middleware: Vec<Middleware>,
}

/// An app: its global middleware and its listeners, each in the order they were registered.
#[derive(Default)]
pub struct Listeners {
    listeners: Vec<Listener>,
    /// Run on every request, before any listener is chosen ([`Listeners::middleware`]).
    middleware: Vec<Middleware>,
    secret_prefixes: Vec<String>,
}

impl std::fmt::Debug for Listeners {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Listeners({} listeners, {} middleware)", self.listeners.len(), self.middleware.len())
    }
}

impl Listeners {
    /// An app with no listeners (every request is recorded and ignored).
    pub fn new() -> Listeners {
        Listeners::default()
    }

    fn with(mut self, route: Route) -> Listeners {
        self.listeners.push(Listener { route, bots: false, middleware: Vec::new() });
        self
    }

    /// The listener registered last also takes messages from bots (ours included).
    pub fn including_bots(mut self) -> Listeners {
        if let Some(last) = self.listeners.last_mut() {
            last.bots = true;
        }
        self
    }

    /// Marks the state keys under `prefix` secret: the admin API and page list them with their
    /// values redacted.
    pub fn secret_state(mut self, prefix: &str) -> Listeners {
        self.secret_prefixes.push(prefix.to_string());
        self
    }

    /// Events of `event_type` (`reaction_added`, `app_home_opened`, a message subtype such as
    /// `message_changed`, or any type Slack sends), with the raw event and [`EventIn::parse`].
    pub fn event(self, event_type: &str, handler: impl for<'a> Fn(&EventIn<'a>, &mut Cx) -> HandlerResult + 'static) -> Listeners {
        self.with(Route::Event(event_type.into(), Box::new(handler)))
    }

    /// Mentions of the bot (`app_mention`).
    pub fn mention(self, handler: impl for<'a> Fn(&MessageIn<'a>, &mut Cx) -> HandlerResult + 'static) -> Listeners {
        self.with(Route::Mention(Box::new(handler)))
    }

    /// Messages people write whose text matches `pattern` (in channels the bot is in, and DMs).
    pub fn message(self, pattern: Pattern, handler: impl for<'a> Fn(&MessageIn<'a>, &mut Cx) -> HandlerResult + 'static) -> Listeners {
        self.with(Route::Message(pattern, Box::new(handler)))
    }

    /// The slash command `name` (`/deploy`).
    pub fn command(self, name: &str, handler: impl Fn(&SlashCommand, &mut Cx) -> HandlerResult + 'static) -> Listeners {
        self.with(Route::Command(name.into(), Box::new(handler)))
    }

    /// A `block_actions` action: by `action_id` (a string or a typed [`ActionId`]), or
    /// `(block_id, action_id)` (or an input's [`Field`]).
    pub fn action(self, which: impl Into<ActionMatch>, handler: impl for<'a> Fn(&ActionIn<'a>, &mut Cx) -> HandlerResult + 'static) -> Listeners {
        self.with(Route::Action(which.into(), Box::new(handler)))
    }

    /// A modal's submission (`view_submission` of `callback_id`); answer with `cx.ack_errors`,
    /// `ack_update`, `ack_push` or `ack_clear` (no ack: the modal closes).
    pub fn view_submission(self, callback_id: &str, handler: impl for<'a> Fn(&ViewIn<'a>, &mut Cx) -> HandlerResult + 'static) -> Listeners {
        self.with(Route::ViewSubmission(callback_id.into(), Box::new(handler)))
    }

    /// A modal closed by the user (`view_closed` of `callback_id`, when the view asked for it).
    pub fn view_closed(self, callback_id: &str, handler: impl for<'a> Fn(&ViewIn<'a>, &mut Cx) -> HandlerResult + 'static) -> Listeners {
        self.with(Route::ViewClosed(callback_id.into(), Box::new(handler)))
    }

    /// A global or message shortcut of `callback_id`.
    pub fn shortcut(self, callback_id: &str, handler: impl for<'a> Fn(&ShortcutIn<'a>, &mut Cx) -> HandlerResult + 'static) -> Listeners {
        self.with(Route::Shortcut(callback_id.into(), Box::new(handler)))
    }

    /// A schedule's firing (`cx.schedule(key, when).run()`): `key` exactly, or every key that
    /// starts with what comes before a final `*` (`"digest:*"`). It runs when the occurrence falls
    /// due, inside the team actor: [`Fired`] says which key and due time, `cx.now()` the time it
    /// runs, `cx.state()` reads the team's state then; what it queues and writes is stored with
    /// the firing, keyed by `fire:{key}@{due}`. No middleware runs (there is no Slack request),
    /// and "here" is nowhere: name the channel (`cx.say(channel, …)`).
    pub fn on_schedule(self, key: &str, handler: impl Fn(&Fired, &mut Cx) -> HandlerResult + 'static) -> Listeners {
        self.with(Route::Schedule(key.into(), Box::new(handler)))
    }

    /// An effect's end, for the effects queued with `.then(name, &data)`: [`Answered`] holds
    /// Slack's (or the service's) answer, or the failure that parked the effect, and the data the
    /// handler attached (`answered.data::<T>()?`). It runs inside the team actor once the effect
    /// ended, in the same unit that stores the effect done (or parked): what it queues and writes
    /// is stored once per effect, keyed by `answer:{the effect's key}`, whatever the retries,
    /// crashes or duplicates. Its failure (an `Err`, a panic) parks the effect's row as
    /// `handler_failed` with the answer kept: a redrive runs this listener again, never the effect.
    /// No middleware runs, and "here" is nowhere: carry what the listener needs in the data.
    pub fn on_result(self, name: &str, handler: impl Fn(&Answered, &mut Cx) -> HandlerResult + 'static) -> Listeners {
        self.with(Route::Result(name.into(), Box::new(handler)))
    }

    /// An external select's options (`block_suggestion` of `action_id`, a string or a typed
    /// [`ActionId`]): answer with `cx.ack_options`.
    pub fn options(self, action_id: impl AsRef<str>, handler: impl for<'a> Fn(&OptionsIn<'a>, &mut Cx) -> HandlerResult + 'static) -> Listeners {
        self.with(Route::Options(action_id.as_ref().into(), Box::new(handler)))
    }
}

/// Who wrote a message, as the bot filter sees it.
fn from_a_bot(m: &Message, bot_user_id: Option<&str>) -> bool {
    m.bot_id.is_some() || m.subtype.as_deref() == Some("bot_message") || (m.user.is_some() && m.user.as_deref() == bot_user_id)
}

/// A subtype people write (the message is theirs to answer).
fn written_by_people(m: &Message) -> bool {
    matches!(m.subtype.as_deref(), None | Some("thread_broadcast") | Some("file_share"))
}

/// A `function_executed` for step `callback`: its handler runs; another step's goes on to the
/// next listener. An event that cannot be read as a step fails the handler (the unit's guard fails
/// the step if it names an execution: `crate::kinds::step`).
fn run_step(callback: &str, h: &StepHandler, envelope: &EventEnvelope, chain: &[Middleware], turn: &mut Turn<'_>) -> Option<Ran> {
    let started = crate::kinds::step::StepStarted::from_event(&envelope.raw);
    if started.as_ref().is_ok_and(|s| s.callback_id != callback) {
        return None;
    }
    Some(turn.run(chain, |cx| h(&step::StepIn::of(started?), cx)))
}

impl crate::app::sealed::Sealed for Listeners {}

impl App for Listeners {
    fn is_secret_state(&self, key: &str) -> bool {
        crate::state::is_secret(&self.secret_prefixes, key)
    }

    /// One context for the whole run (`origin::of` the request): the global middleware, then the
    /// listener that takes the request (its groups' middleware, its handler) run with it, and what
    /// it holds at the end becomes the output (`settle`).
    fn handle(&self, request: &Dispatch, ctx: &Context) -> HandlerOutput {
        let mut cx = Cx::with_state(origin::of(request), ctx.llm_enabled, ctx.reader()).at(ctx.now_ms);
        let ran = self.dispatch(request, &mut cx);
        self.check_result_listeners(&mut cx);
        let output = settle(ran, cx);
        match request {
            // An event's ack is always empty: Slack shows nothing of it.
            Dispatch::Event(_) => HandlerOutput { ack: None, ..output },
            _ => output,
        }
    }

    /// The first `on_schedule` listener whose key matches runs, with a context keyed by the
    /// firing's fact; none: ignored as `no_listener` (the firing is parked).
    fn fire(&self, fired: &Fired, ctx: &Context) -> HandlerOutput {
        let origin = Origin { fact: fired.fact(), ..Origin::default() };
        let mut cx = Cx::with_state(origin, ctx.llm_enabled, ctx.reader()).at(ctx.now_ms);
        let handler = self.listeners.iter().find_map(|l| match &l.route {
            Route::Schedule(pattern, h) if key_matches(pattern, &fired.key) => Some(h),
            _ => None,
        });
        let ran = match handler {
            Some(h) => Ran::from(h(fired, &mut cx)),
            None => Ran::Ignored("no_listener"),
        };
        self.check_result_listeners(&mut cx);
        HandlerOutput { ack: None, ..settle(ran, cx) }
    }

    /// The result listener of the effect's `.then(name, …)` runs, with a context keyed by the
    /// answer's fact; none of that name: ignored as `no_listener` (the row is parked, its answer
    /// kept for a redrive once a release has the listener again).
    fn answered(&self, answered: &Answered, ctx: &Context) -> HandlerOutput {
        let origin = Origin { fact: answered.fact(), ..Origin::default() };
        let mut cx = Cx::with_state(origin, ctx.llm_enabled, ctx.reader()).at(ctx.now_ms);
        let ran = match self.result_listener(&answered.listener) {
            Some(h) => Ran::from(h(answered, &mut cx)),
            None => Ran::Ignored("no_listener"),
        };
        self.check_result_listeners(&mut cx);
        HandlerOutput { ack: None, ..settle(ran, cx) }
    }
}

impl Listeners {
    /// Fails the run whose effects name a result listener this app does not have: caught before
    /// anything is recorded, not when the effect ends.
    fn check_result_listeners(&self, cx: &mut Cx) {
        if let Some(name) = cx.result_listeners().into_iter().find(|name| self.result_listener(name).is_none()) {
            cx.note_misuse(&format!("then({name:?}): the app has no .on_result({name:?}, …) listener"));
        }
    }

    /// The result listener named `name`, if the app has one.
    fn result_listener(&self, name: &str) -> Option<&ResultHandler> {
        self.listeners.iter().find_map(|l| match &l.route {
            Route::Result(n, h) if n == name => Some(h),
            _ => None,
        })
    }
}

/// Whether an `on_schedule` pattern takes `key`: equal, or a prefix ending in `*`.
fn key_matches(pattern: &str, key: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => key.starts_with(prefix),
        None => pattern == key,
    }
}

impl Listeners {
    /// The global middleware runs, then the first listener that takes the request.
    fn dispatch(&self, request: &Dispatch, cx: &mut Cx) -> Ran {
        let mut turn = Turn { request, cx };
        if let Some(stopped) = turn.stops(&self.middleware) {
            return stopped;
        }
        match request {
            Dispatch::Event(e) => self.on_event(e, &mut turn),
            Dispatch::Command(c) => self.on_command(c, &mut turn),
            Dispatch::Interaction(i) => self.on_interaction(i, &mut turn),
        }
    }

    /// The first listener that takes the event runs.
    fn on_event(&self, envelope: &EventEnvelope, turn: &mut Turn<'_>) -> Ran {
        let bot = envelope.bot_user_id.as_deref();
        let message = match &envelope.event {
            Event::AppMention(m) | Event::Message(m) => Some(m),
            _ => None,
        };
        let subtype = message.and_then(|m| m.subtype.as_deref());
        let type_name = envelope.event.type_name();
        for l in &self.listeners {
            if message.is_some_and(|m| from_a_bot(m, bot)) && !l.bots {
                continue;
            }
            let ran = match (&l.route, message) {
                (Route::Mention(h), Some(m)) if type_name == "app_mention" => Some(run_message(h, m, Vec::new(), envelope, &l.middleware, turn)),
                (Route::Message(p, h), Some(m)) if type_name == "message" && written_by_people(m) => {
                    p.captures(&m.text).map(|matches| run_message(h, m, matches, envelope, &l.middleware, turn))
                }
                (Route::AssistantMessage(h), Some(m)) if type_name == "message" && written_by_people(m) && assistant::in_assistant_thread(m) => {
                    Some(run_message(h, m, Vec::new(), envelope, &l.middleware, turn))
                }
                (Route::AgentMessage(h), Some(m)) if type_name == "message" && written_by_people(m) && agent::in_agent_dm(m) => {
                    Some(run_message(h, m, Vec::new(), envelope, &l.middleware, turn))
                }
                (Route::Event(t, h), _) if t == type_name || subtype == Some(t.as_str()) => Some(run_event(h, envelope, &l.middleware, turn)),
                (Route::AgentOpened(h), None) if type_name == agent::APP_HOME_OPENED && agent::opens_messages_tab(&envelope.raw) => {
                    Some(run_event(h, envelope, &l.middleware, turn))
                }
                (Route::Function(callback, h), None) if type_name == crate::kinds::step::FUNCTION_EXECUTED => {
                    run_step(callback, h, envelope, &l.middleware, turn)
                }
                (Route::LinkShared(domain, h), None) if type_name == crate::kinds::unfurl::LINK_SHARED => {
                    unfurl::run_link_shared(domain.as_deref(), h, envelope, &l.middleware, turn)
                }
                (Route::EntityDetails(h), None) if type_name == crate::kinds::unfurl::ENTITY_DETAILS_REQUESTED => {
                    Some(unfurl::run_entity_details(h, envelope, &l.middleware, turn))
                }
                _ => None,
            };
            if let Some(ran) = ran {
                return ran;
            }
        }
        Ran::Ignored(if message.is_some_and(|m| from_a_bot(m, bot)) { "bot_message" } else { "no_listener" })
    }

    /// The command's listener runs; its ack is the command's answer.
    fn on_command(&self, command: &SlashCommand, turn: &mut Turn<'_>) -> Ran {
        for l in &self.listeners {
            if let Route::Command(name, h) = &l.route {
                if name == &command.command {
                    return turn.run(&l.middleware, |cx| h(command, cx));
                }
            }
        }
        Ran::Ignored("no_listener")
    }

    /// The first listener that takes the payload runs; its ack (a modal's `response_action`, the
    /// options) is the answer.
    fn on_interaction(&self, i: &Interaction, turn: &mut Turn<'_>) -> Ran {
        let raw = &i.raw;
        let view = raw.get("view").unwrap_or(&Value::Null);
        let view_callback = view.get("callback_id").and_then(Value::as_str).unwrap_or_default();
        let callback = raw.get("callback_id").and_then(Value::as_str).unwrap_or_default();
        let suggestion = raw.get("action_id").and_then(Value::as_str).unwrap_or_default();
        for l in &self.listeners {
            let ran = match (&l.route, i.kind()) {
                (Route::Action(m, h), InteractionKind::BlockActions) => i
                    .actions
                    .iter()
                    .find(|a| a.action_id == m.action_id && (m.block_id.is_none() || a.block_id == m.block_id))
                    .map(|action| turn.run(&l.middleware, |cx| h(&ActionIn { action, interaction: i }, cx))),
                (Route::ViewSubmission(cb, h), InteractionKind::ViewSubmission) if cb == view_callback => {
                    Some(turn.run(&l.middleware, |cx| h(&ViewIn { interaction: i, view }, cx)))
                }
                (Route::ViewClosed(cb, h), InteractionKind::ViewClosed) if cb == view_callback => {
                    Some(turn.run(&l.middleware, |cx| h(&ViewIn { interaction: i, view }, cx)))
                }
                (Route::Shortcut(cb, h), InteractionKind::Shortcut | InteractionKind::MessageAction) if cb == callback => {
                    Some(turn.run(&l.middleware, |cx| h(&ShortcutIn { interaction: i }, cx)))
                }
                (Route::Options(id, h), InteractionKind::BlockSuggestion) if id == suggestion => {
                    Some(turn.run(&l.middleware, |cx| h(&OptionsIn { interaction: i }, cx)))
                }
                _ => None,
            };
            if let Some(ran) = ran {
                return ran;
            }
        }
        Ran::Ignored("no_listener")
    }
}

fn run_event(h: &EventHandler, envelope: &EventEnvelope, chain: &[Middleware], turn: &mut Turn<'_>) -> Ran {
    let input = EventIn { envelope, raw: &envelope.raw };
    turn.run(chain, |cx| h(&input, cx))
}

fn run_message(h: &MessageHandler, m: &Message, matches: Vec<String>, envelope: &EventEnvelope, chain: &[Middleware], turn: &mut Turn<'_>) -> Ran {
    let input = MessageIn { message: m, envelope, raw: &envelope.raw, matches: &matches };
    turn.run(chain, |cx| h(&input, cx))
}

#[cfg(test)]
mod answer_tests;
#[cfg(test)]
mod state_tests;
#[cfg(test)]
mod tests;
