//! [`Cx`]: what a listener can do — queue effects with the helpers (`say`, `reply`, `ephemeral`,
//! `respond`, `update`, `delete`, `react`, `unreact`, the modals, the App Home, any Web API
//! method, an LLM's answer, a Slack List record) and set the body of the ack (`ack_*`), all pure:
//! nothing happens until the handler returns and its effects are committed with the event's
//! receipt.
//!
//! **Keys from the fact.** Every effect's idempotency key is the fact the request is about (a
//! message: `msg:{channel}:{ts}`; a command or an interaction: its `trigger_id`; another event:
//! its `event_id`) plus the helper's name (`reply`, `react`, …) or the name given with
//! [`EffectRef::named`], and `#2`, `#3`, … for the second and later effects of one name in one
//! handler. So a duplicate delivery of the fact adds nothing, and two helpers never collide.
//!
//! **State.** [`Cx::state`] is the team's state ([`State`]): reads served during the handler,
//! writes buffered and handed to the unit only if the handler succeeds. [`EffectRef::remember`]
//! keeps part of Slack's answer (`{channel, ts}`) under a state key when the effect completes;
//! [`EffectRef::in_thread_of`] posts in the thread of what a key holds when the post is sent.
//!
//! **Later.** `cx.schedule(key, when).say(…)` queues the helper's effect to fall due at `when`
//! (`crate::kinds::schedule`), under the schedule's key (the team's, not the fact's: another request
//! cancels it with `cx.cancel(key)`). Schedules and cancels apply in the order the handler made
//! them, in the same unit as the receipt. `cx.schedule(key, when).run()` queues a *firing*
//! instead: the app's `on_schedule` listener runs then, inside the team actor ([`Cx::now`] says
//! when).

use super::middleware::extensions::Extensions;
use crate::blocks::{Blocks, FieldErrors};
use crate::kinds::lists::api::{valid_list_id, valid_record_id, ListJob};
use crate::kinds::registry::{Action, Effect, Followup};
use crate::kinds::schedule::{self, When};
use crate::slack::method;
use crate::state::thread::can_thread;
use crate::state::{check_key, State, StateReader, StateWrite};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::rc::Rc;

/// A reply, a post or a `response_url` message later than this is worse than none (30 min).
pub const MESSAGE_DEADLINE_MS: i64 = 30 * 60 * 1000;
/// Editing, deleting or reacting stays useful for a day.
pub const EDIT_DEADLINE_MS: i64 = 24 * 60 * 60 * 1000;
/// A `trigger_id` lives 3 seconds: a modal opened later fails with `expired_trigger_id`.
pub const TRIGGER_DEADLINE_MS: i64 = 3_000;

/// Where a listener's request came from, for the helpers that answer "here".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Origin {
    /// The fact the keys are built from.
    pub fact: String,
    /// The channel, when there is one.
    pub channel: Option<String>,
    /// The message's `ts`, for `react` and `update` of "this" message.
    pub ts: Option<String>,
    /// The thread a reply goes to.
    pub thread_ts: Option<String>,
    /// The `response_url`, for commands and interactions.
    pub response_url: Option<String>,
    /// The `trigger_id`, for modals.
    pub trigger_id: Option<String>,
    /// The user who acted.
    pub user: Option<String>,
    /// The Workflow step execution this request belongs to: a `function_executed`'s, or a
    /// button's in a message that step posted (`function_data`). What `cx.complete` ends.
    pub step_execution: Option<String>,
    /// Where this request's shared links are unfurled: a `link_shared`'s message or composer
    /// sharing. What `cx.unfurl` previews.
    pub(crate) unfurl: Option<crate::kinds::unfurl::UnfurlTarget>,
}

/// A listener's context: its effects and its ack body, built up by the helpers.
#[derive(Debug)]
pub struct Cx {
    origin: Origin,
    llm_enabled: bool,
    counts: HashMap<String, u32>,
    effects: Vec<Effect>,
    ack: Option<Value>,
    state: State,
    /// A helper's misuse (a bad `remember` key): the handler fails with it.
    misuse: Option<String>,
    /// Set by [`Cx::schedule`] for the next helper's effect.
    scheduling: Option<(String, When)>,
    /// The time the handler runs at ([`Cx::now`]).
    now: i64,
    /// What the request's middleware kept for the handler, by type (`super::middleware`).
    pub(super) extensions: Extensions,
}

/// The effect a helper just queued: name it (its key), give it a deadline, add blocks.
pub struct EffectRef<'c> {
    cx: &'c mut Cx,
    index: usize,
}

impl EffectRef<'_> {
    /// Names the effect: its key becomes `{fact}:{name}` (unique among the handler's effects).
    /// A scheduled effect keeps its schedule's key.
    pub fn named(self, name: &str) -> Self {
        if let Action::Scheduled { .. } = self.cx.effects[self.index].action {
            return self;
        }
        let key = self.cx.key(name);
        self.cx.effects[self.index].key = key;
        self
    }

    /// Parks it as `expired` if not delivered within `ms` of being queued — of falling due, for a
    /// scheduled one (`None`: never).
    pub fn deadline(self, ms: Option<i64>) -> Self {
        self.cx.effects[self.index].deadline_after_ms = ms;
        self
    }

    /// Sets Block Kit `blocks` on a message (post, reply, update, ephemeral, respond): typed
    /// (`vec![Block::section(…)]`, see [`crate::blocks`]) or a JSON array (`json!([…])`).
    pub fn blocks(self, blocks: impl Into<Blocks>) -> Self {
        let blocks: Value = blocks.into().into();
        match self.cx.effects[self.index].action.performed_mut() {
            Action::SlackApi { args, .. } => args["blocks"] = blocks,
            Action::RespondUrl { body, .. } => body["blocks"] = blocks,
            _ => {}
        }
        self
    }

    /// When the effect (a Slack Web API call) completes, keeps Slack's answer's `{channel, ts}`
    /// under the state key `key`, in the same transaction as its completion (a fenced completion
    /// stores nothing). A later handler reads it: `cx.state().get::<Posted>(key)`. A bad key
    /// (empty, over 512 bytes) fails the handler.
    pub fn remember(self, key: &str) -> Self {
        if let Err(e) = check_key(key) {
            self.cx.misuse = Some(format!("remember: {e}"));
        } else if let Action::SlackApi { remember, .. } = &mut self.cx.effects[self.index].action {
            *remember = Some(key.to_string());
        } else {
            self.cx.misuse = Some(format!("remember({key:?}): only a Slack Web API call's answer can be remembered"));
        }
        self
    }

    /// Posts the message (`say`, `reply`, `ephemeral`, or `api` of `chat.postMessage` /
    /// `chat.postEphemeral`) in the thread of the message remembered under the state key `key`
    /// (`.remember(key)` on another effect), **read when the row is performed**, not now: a
    /// reminder scheduled with an announcement finds the announcement's thread once its answer
    /// is remembered. If the key holds no remembered message then (the parent was never
    /// delivered, or is parked), the post goes top level where the helper said
    /// (`crate::state::thread`). A bad key, or another kind of effect, fails the handler.
    pub fn in_thread_of(self, key: &str) -> Self {
        if let Err(e) = check_key(key) {
            self.cx.misuse = Some(format!("in_thread_of: {e}"));
        } else if let Action::SlackApi { method, thread_of, .. } = self.cx.effects[self.index].action.performed_mut() {
            match can_thread(method) {
                true => *thread_of = Some(key.to_string()),
                false => self.cx.misuse = Some(format!("in_thread_of({key:?}): {method} posts no message that can go in a thread")),
            }
        } else {
            self.cx.misuse = Some(format!("in_thread_of({key:?}): only a Slack message post goes in a thread"));
        }
        self
    }

    /// Names the result listener of this effect's end, with `data` for it: once the effect ends
    /// (done, or parked), the app's `.on_result(listener, …)` runs inside the team actor with
    /// Slack's answer (or the failure) and `data` (`answered.data::<T>()?`), in the same unit that
    /// stores the effect's end: `cx.api("users.info", json!({"user": u})).then("tz_known",
    /// &Asker { channel, user })`. The app must have that listener: a name none takes fails the
    /// handler, before anything is recorded. One listener per effect.
    pub fn then(mut self, listener: &str, data: &impl serde::Serialize) -> Self {
        if self.cx.effects[self.index].action.result_listener().is_some() {
            self.misused(format!("then({listener:?}): this effect already names a result listener"));
            return self;
        }
        match serde_json::to_value(data) {
            Ok(data) => {
                let performed = self.performed_mut();
                let effect = std::mem::replace(performed, Action::Fire);
                *performed = Action::Then { listener: listener.into(), data, effect: Box::new(effect) };
            }
            Err(e) => self.misused(format!("then({listener:?}): its data is not JSON ({e})")),
        }
        self
    }

    /// The effect as queued.
    #[cfg(test)]
    pub(crate) fn effect(&self) -> &Effect {
        &self.cx.effects[self.index]
    }

    /// The action it performs (a scheduled one's own), for a helper of another file to set.
    pub(super) fn performed_mut(&mut self) -> &mut Action {
        self.cx.effects[self.index].action.performed_mut()
    }

    /// Fails the handler with `why`: a helper used on an effect it does not fit.
    pub(super) fn misused(&mut self, why: String) {
        self.cx.misuse = Some(why);
    }
}

impl Cx {
    /// A context whose state reads through `reader` (the team's store).
    pub(crate) fn with_state(origin: Origin, llm_enabled: bool, reader: Rc<dyn StateReader>) -> Cx {
        Cx {
            origin,
            llm_enabled,
            counts: HashMap::new(),
            effects: Vec::new(),
            ack: None,
            state: State::new(reader),
            misuse: None,
            scheduling: None,
            now: 0,
            extensions: Extensions::default(),
        }
    }

    /// The same context at the time `now` (epoch ms).
    pub(crate) fn at(mut self, now: i64) -> Cx {
        self.now = now;
        self
    }

    /// The time (epoch ms) the handler runs at: the runtime's clock when the team actor runs it
    /// (a request's arrival, a firing's run), the test clock in the test kit. Read once per run:
    /// every read in one handler says the same.
    pub fn now(&self) -> i64 {
        self.now
    }

    /// The team's state: typed values under string keys, read now, written with the unit (its
    /// limits: `docs/app.md`).
    pub fn state(&mut self) -> &mut State {
        &mut self.state
    }

    /// The buffered state writes, taken (for the dispatcher).
    pub(crate) fn take_state(&mut self) -> Vec<StateWrite> {
        self.state.take_writes()
    }

    /// The result listeners the queued effects name (`.then(name, …)`).
    pub(super) fn result_listeners(&self) -> Vec<String> {
        self.effects.iter().filter_map(|e| e.action.result_listener().map(|(name, _)| name.to_string())).collect()
    }

    /// A helper's misuse that fails the handler, if any.
    pub(crate) fn misuse(&self) -> Option<&str> {
        self.misuse.as_deref()
    }

    /// Where the request came from.
    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// Whether an LLM endpoint is configured (`LLM_API_URL`).
    pub fn llm_enabled(&self) -> bool {
        self.llm_enabled
    }

    /// The effects queued so far and the ack body, taken (for the dispatcher).
    pub(crate) fn finish(self) -> (Vec<Effect>, Option<Value>) {
        (self.effects, self.ack)
    }

    fn key(&mut self, name: &str) -> String {
        let n = self.counts.entry(name.to_string()).or_insert(0);
        *n += 1;
        match *n {
            1 => format!("{}:{name}", self.origin.fact),
            n => format!("{}:{name}#{n}", self.origin.fact),
        }
    }

    /// Queues `action` under a key of its kind's own (not built from the fact), unscheduled.
    pub(super) fn push_keyed(&mut self, key: String, action: Action, deadline_after_ms: Option<i64>) -> EffectRef<'_> {
        self.effects.push(Effect { key, action, deadline_after_ms });
        let index = self.effects.len() - 1;
        EffectRef { cx: self, index }
    }

    /// Fails the handler with `why` (a helper used where it cannot work).
    pub(super) fn note_misuse(&mut self, why: &str) {
        self.misuse.get_or_insert_with(|| why.to_string());
    }

    pub(super) fn push(&mut self, name: &str, action: Action, deadline_after_ms: Option<i64>) -> EffectRef<'_> {
        let (key, action) = match self.scheduling.take() {
            Some((key, when)) => (schedule::row_key(&key, &self.origin.fact), Action::Scheduled { key, when, scheduled_at: None, effect: Box::new(action) }),
            None => (self.key(name), action),
        };
        self.effects.push(Effect { key, action, deadline_after_ms });
        let index = self.effects.len() - 1;
        EffectRef { cx: self, index }
    }

    fn api_call(&mut self, name: &str, method: &str, args: Value, deadline: Option<i64>) -> EffectRef<'_> {
        self.push(name, Action::slack_api(method, args), deadline)
    }

    /// Any Web API method with these arguments (paced at its tier; retried, parked as Slack says).
    pub fn api(&mut self, method: &str, args: Value) -> EffectRef<'_> {
        let name = method.to_string();
        self.api_call(&name, method, args, None)
    }

    /// Posts `text` in `channel` (`chat.postMessage`).
    pub fn say(&mut self, channel: &str, text: &str) -> EffectRef<'_> {
        self.api_call("say", method::POST_MESSAGE, json!({ "channel": channel, "text": text }), Some(MESSAGE_DEADLINE_MS))
    }

    /// Posts `text` to `user` (`U…`) in the app's DM with them, its Messages tab:
    /// `chat.postMessage` with the user's id as the channel, which Slack opens the DM for.
    pub fn dm(&mut self, user: &str, text: &str) -> EffectRef<'_> {
        self.api_call("dm", method::POST_MESSAGE, json!({ "channel": user, "text": text }), Some(MESSAGE_DEADLINE_MS))
    }

    /// Replies in the thread of the message this request is about (or in its channel when there
    /// is no message: a command's channel).
    pub fn reply(&mut self, text: &str) -> EffectRef<'_> {
        let channel = self.origin.channel.clone().unwrap_or_default();
        let mut args = json!({ "channel": channel, "text": text });
        if let Some(thread) = &self.origin.thread_ts {
            args["thread_ts"] = json!(thread);
        }
        self.api_call("reply", method::POST_MESSAGE, args, Some(MESSAGE_DEADLINE_MS))
    }

    /// A message only `user` sees, in this channel (`chat.postEphemeral`).
    pub fn ephemeral(&mut self, user: &str, text: &str) -> EffectRef<'_> {
        let channel = self.origin.channel.clone().unwrap_or_default();
        self.api_call("ephemeral", method::POST_EPHEMERAL, json!({ "channel": channel, "user": user, "text": text }), Some(MESSAGE_DEADLINE_MS))
    }

    /// Answers through the request's `response_url` (a command's, an action's): `body` is a
    /// message, with `response_type` (`ephemeral`, `in_channel`), `replace_original` or
    /// `delete_original` as Slack takes them. Nothing is queued without a `response_url`.
    pub fn respond(&mut self, body: Value) -> Option<EffectRef<'_>> {
        let url = self.origin.response_url.clone()?;
        Some(self.push("respond", Action::RespondUrl { url, body }, Some(MESSAGE_DEADLINE_MS)))
    }

    /// Edits a message (`chat.update`); `body` holds `text` and/or `blocks`.
    pub fn update(&mut self, channel: &str, ts: &str, body: Value) -> EffectRef<'_> {
        let mut args = body;
        args["channel"] = json!(channel);
        args["ts"] = json!(ts);
        self.api_call("update", method::UPDATE, args, Some(EDIT_DEADLINE_MS))
    }

    /// Deletes a message (`chat.delete`).
    pub fn delete(&mut self, channel: &str, ts: &str) -> EffectRef<'_> {
        self.api_call("delete", method::DELETE, json!({ "channel": channel, "ts": ts }), Some(EDIT_DEADLINE_MS))
    }

    /// Adds the reaction `name` to the message this request is about (`already_reacted` counts
    /// as done).
    pub fn react(&mut self, name: &str) -> EffectRef<'_> {
        let args = json!({ "channel": self.origin.channel, "timestamp": self.origin.ts, "name": name });
        let key = format!("react:{name}");
        self.api_call(&key, method::REACTIONS_ADD, args, Some(EDIT_DEADLINE_MS))
    }

    /// Removes the reaction `name` from it (`no_reaction` counts as done).
    pub fn unreact(&mut self, name: &str) -> EffectRef<'_> {
        let args = json!({ "channel": self.origin.channel, "timestamp": self.origin.ts, "name": name });
        let key = format!("unreact:{name}");
        self.api_call(&key, method::REACTIONS_REMOVE, args, Some(EDIT_DEADLINE_MS))
    }

    fn modal(&mut self, name: &str, method: &str, mut args: Value) -> EffectRef<'_> {
        if let Some(trigger) = &self.origin.trigger_id {
            args["trigger_id"] = json!(trigger);
        }
        self.api_call(name, method, args, Some(TRIGGER_DEADLINE_MS))
    }

    /// Opens a modal with the request's `trigger_id` (`views.open`): it must leave within 3
    /// seconds of the click, so its deadline is that; `expired_trigger_id` parks it. The view is
    /// a [`Modal`](crate::blocks::Modal) or JSON.
    pub fn open_modal(&mut self, view: impl Into<Value>) -> EffectRef<'_> {
        self.modal("open_modal", method::VIEWS_OPEN, json!({ "view": view.into() }))
    }

    /// Pushes a modal onto the stack (`views.push`, with the `trigger_id`).
    pub fn push_modal(&mut self, view: impl Into<Value>) -> EffectRef<'_> {
        self.modal("push_modal", method::VIEWS_PUSH, json!({ "view": view.into() }))
    }

    /// Replaces an open modal's view (`views.update` by `view_id`).
    pub fn update_modal(&mut self, view_id: &str, view: impl Into<Value>) -> EffectRef<'_> {
        self.api_call("update_modal", method::VIEWS_UPDATE, json!({ "view_id": view_id, "view": view.into() }), Some(EDIT_DEADLINE_MS))
    }

    /// Publishes `user`'s App Home tab (`views.publish`): a [`Home`](crate::blocks::Home) or
    /// JSON.
    pub fn publish_home(&mut self, user: &str, view: impl Into<Value>) -> EffectRef<'_> {
        self.api_call("publish_home", method::VIEWS_PUBLISH, json!({ "user_id": user, "view": view.into() }), Some(EDIT_DEADLINE_MS))
    }

    /// Asks the LLM (`LLM_API_URL`) and delivers its answer where a reply goes: in the thread of
    /// this message, or through the `response_url`. With no LLM configured the effect parks as
    /// `not_configured`.
    pub fn llm_reply(&mut self, prompt: &str) -> EffectRef<'_> {
        let o = &self.origin;
        let then = match (&o.channel, &o.thread_ts, &o.response_url) {
            // A message: answer in its thread.
            (Some(channel), Some(thread), _) => Followup::Thread { channel: channel.clone(), thread_ts: thread.clone() },
            // A command or an interaction: through its response_url.
            (_, _, Some(url)) => Followup::ResponseUrl { url: url.clone() },
            // Otherwise in the channel (Slack refuses an empty one: the row parks with its error).
            (channel, _, None) => Followup::Thread { channel: channel.clone().unwrap_or_default(), thread_ts: o.ts.clone().unwrap_or_default() },
        };
        self.push("llm_reply", Action::LlmReply { prompt: prompt.into(), then }, Some(MESSAGE_DEADLINE_MS))
    }

    /// Mirrors `fields` (a JSON object: field → value) as the record `record_id` of the Slack List
    /// `list_id`, through the Lists sync (`docs/lists.md`), as `PUT …/records/{record_id}` does:
    /// when performed, the fields are checked against the List's column map (none, or a field
    /// it refuses: the row parks with the reason), stored, and synced (created once, then
    /// updated). Rows of one List run in order, so the newest call's fields win. A bad id fails
    /// the handler.
    pub fn list_record(&mut self, list_id: &str, record_id: &str, fields: Value) -> EffectRef<'_> {
        if !valid_list_id(list_id) || !valid_record_id(record_id) {
            self.misuse = Some(format!("list_record({list_id:?}, {record_id:?}): a List id is F…, a record id 1 to 128 letters, digits, _ - . :"));
        }
        let job = ListJob::Put { record_id: record_id.to_string(), fields: fields.to_string() };
        self.push(&format!("list:{record_id}"), Action::Lists { list_id: list_id.to_string(), job }, None)
    }

    /// The next helper's effect falls due at `when` instead of now, under `key`:
    /// `cx.schedule("incident:7:remind", When::after(30 * MINUTE_MS)).say(channel, "still open")`.
    /// Its deadline counts from its due time. A key has one pending occurrence: if `key` is
    /// already pending, this adds nothing (cancel it first to move it). A duplicate delivery of
    /// this request adds nothing either. `When::every` repeats it (see `crate::kinds::schedule`).
    pub fn schedule(&mut self, key: &str, when: When) -> Scheduling<'_> {
        self.scheduling = Some((key.to_string(), when));
        Scheduling { cx: self }
    }

    /// Cancels the pending occurrence of the schedule `key`: if no sweep holds it, it never runs;
    /// if its attempt is in flight, that occurrence fires (one or the other, never both) and a
    /// recurring schedule stops after it. A fired or unknown key: nothing happens.
    pub fn cancel(&mut self, key: &str) {
        self.scheduling = None;
        let name = format!("cancel:{key}");
        self.push(&name, Action::CancelSchedule { key: key.to_string() }, None);
    }

    /// The ack's body, as is (a command's immediate answer, for instance).
    pub fn ack(&mut self, body: Value) {
        self.ack = Some(body);
    }

    /// A command's immediate answer that only its user sees.
    pub fn ack_ephemeral(&mut self, text: &str) {
        self.ack(json!({ "response_type": "ephemeral", "text": text }));
    }

    /// A command's immediate answer, shown in the channel.
    pub fn ack_in_channel(&mut self, text: &str) {
        self.ack(json!({ "response_type": "in_channel", "text": text }));
    }

    /// A `view_submission`'s answer: these field errors shown in the modal, which stays open:
    /// keyed by their inputs' [`Field`](crate::blocks::Field)s
    /// (`FieldErrors::new().on(TITLE, "Say what is wrong")`), or `(block_id, message)` pairs.
    pub fn ack_errors(&mut self, errors: impl Into<FieldErrors>) {
        let errors: serde_json::Map<String, Value> = errors.into().iter().map(|(block, why)| (block.to_string(), json!(why))).collect();
        self.ack(json!({ "response_action": "errors", "errors": errors }));
    }

    /// A `view_submission`'s answer: replace the modal's view.
    pub fn ack_update(&mut self, view: impl Into<Value>) {
        self.ack(json!({ "response_action": "update", "view": view.into() }));
    }

    /// A `view_submission`'s answer: push a new view.
    pub fn ack_push(&mut self, view: impl Into<Value>) {
        self.ack(json!({ "response_action": "push", "view": view.into() }));
    }

    /// A `view_submission`'s answer: close every view of the modal.
    pub fn ack_clear(&mut self) {
        self.ack(json!({ "response_action": "clear" }));
    }

    /// A `block_suggestion`'s answer: these options (`(value, text)`).
    pub fn ack_options(&mut self, options: &[(&str, &str)]) {
        let options: Vec<Value> = options.iter().map(|(value, text)| json!({ "text": { "type": "plain_text", "text": text }, "value": value })).collect();
        self.ack(json!({ "options": options }));
    }

    /// Whether the handler already set an ack body that refuses the submission (`errors`): its
    /// effects are then not queued (Slack keeps the modal open; the user will submit again).
    pub(crate) fn refuses(&self) -> bool {
        self.ack.as_ref().and_then(|a| a.get("response_action")).and_then(Value::as_str) == Some("errors")
    }
}

/// [`Cx::schedule`]'s answer: the context, whose next helper's effect is the scheduled one
/// (`cx.schedule(key, when).say(…)`). Dropped unused, it schedules nothing.
#[must_use = "the next helper's effect is the scheduled one: cx.schedule(key, when).say(…)"]
pub struct Scheduling<'c> {
    cx: &'c mut Cx,
}

impl Scheduling<'_> {
    /// Runs the app's `on_schedule` listener of the key when it falls due (instead of a fixed
    /// effect): `cx.schedule("digest", When::daily_at(9, 0, "Europe/Berlin")?).run()`. The
    /// listener reads the team's state and the clock then, and its effects and state writes are
    /// stored with the firing (`crate::kinds::schedule::fire`).
    pub fn run(self) {
        self.cx.push("fire", Action::Fire, None);
    }
}

impl std::ops::Deref for Scheduling<'_> {
    type Target = Cx;
    fn deref(&self) -> &Cx {
        self.cx
    }
}

impl std::ops::DerefMut for Scheduling<'_> {
    fn deref_mut(&mut self) -> &mut Cx {
        self.cx
    }
}

impl Drop for Scheduling<'_> {
    fn drop(&mut self) {
        self.cx.scheduling = None;
    }
}
