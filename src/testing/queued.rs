//! [`Queued`]: an effect a handler queued, as the plain values a bot's test asserts on — what it
//! calls, with which arguments, its key and deadline, when it is scheduled, what it cancels, what
//! it remembers — read with [`Handled::queued`](super::Handled::queued).
//!
//! **Why.** The effects a handler returns are slackline's own types ([`crate::kinds::registry::Action`],
//! the Lists jobs, the schedule's wrapper), shaped for the outbox that stores and performs them,
//! and free to change with it. A bot's test that matched on them would break with every such
//! change, and would have to know how a scheduled post nests inside its schedule. A `Queued` is
//! flat: strings, JSON and the prelude's [`When`].
//!
//! **Invariant.** Nothing a helper sets is dropped: two effects that differ in anything a
//! [`Cx`](crate::app::listen::Cx) helper or an [`EffectRef`](crate::app::listen::EffectRef)
//! method decides read as two different `Queued`s.

use crate::kinds::assistant::session::{set_status, SessionCall};
use crate::kinds::lists::api::ListJob;
use crate::kinds::registry::{Action, Effect};
use crate::kinds::schedule::When;
use serde_json::{json, Value};

/// One effect a handler queued, as plain values.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Queued {
    /// Its idempotency key (built from the fact; a scheduled effect's is its schedule's row key).
    pub key: String,
    /// What it does: the Web API method (`chat.postMessage` for `say`, `reply`, …;
    /// `reactions.add`, `views.open`, …), or the helper that queued it when it calls no method:
    /// `respond`, `llm_reply`, `stream_answer`, `list_record`, `cancel`, `run` (a firing:
    /// `cx.schedule(key, when).run()`).
    pub method: String,
    /// Its arguments: a Web API call's JSON, as sent to Slack; `respond`: `{url, body}`;
    /// `list_record`: `{list_id, record_id, fields}`; `cancel`: `{key}`; `llm_reply`,
    /// `stream_answer`: their fields (`prompt`, where the answer goes).
    pub args: Value,
    /// Parked as `expired` if not delivered within this many ms of being queued (of falling due,
    /// when scheduled); `None`: never.
    pub deadline_ms: Option<i64>,
    /// When it falls due, if the handler scheduled it (`cx.schedule(key, when)`); `None`: now.
    pub schedule: Option<Schedule>,
    /// The schedule key it cancels (`cx.cancel(key)`).
    pub cancels: Option<String>,
    /// The state key Slack's answer (`{channel, ts}`) is kept under (`.remember(key)`).
    pub remember: Option<String>,
    /// The state key of the remembered message it is posted in the thread of (`.in_thread_of(key)`).
    pub in_thread_of: Option<String>,
    /// The result listener its end goes to (`.then(name, …)`), if any: [`Team::answer`] and
    /// [`Team::fail`] run it.
    ///
    /// [`Team::answer`]: crate::testing::Team::answer
    /// [`Team::fail`]: crate::testing::Team::fail
    pub then: Option<String>,
    /// The data the handler attached for that listener.
    pub(crate) then_data: Value,
}

/// A scheduled effect's schedule: its key (what `cx.cancel` names) and when it falls due.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    /// The schedule's key.
    pub key: String,
    /// When it falls due, and how often it repeats.
    pub when: When,
}

impl Queued {
    /// The effect, read flat: a scheduled one as the effect it performs, with its schedule.
    pub(super) fn of(effect: &Effect) -> Queued {
        let schedule = match &effect.action {
            Action::Scheduled { key, when, .. } => Some(Schedule { key: key.clone(), when: *when }),
            _ => None,
        };
        let performed = effect.action.performed();
        let (method, args) = call(performed);
        let (remember, in_thread_of) = match performed {
            Action::SlackApi { remember, thread_of, .. } => (remember.clone(), thread_of.clone()),
            _ => (None, None),
        };
        let cancels = match performed {
            Action::CancelSchedule { key } => Some(key.clone()),
            _ => None,
        };
        let (then, then_data) = match effect.action.result_listener() {
            Some((name, data)) => (Some(name.to_string()), data.clone()),
            None => (None, Value::Null),
        };
        Queued { key: effect.key.clone(), method, args, deadline_ms: effect.deadline_after_ms, schedule, cancels, remember, in_thread_of, then, then_data }
    }
}

/// What an action calls, and with what: see [`Queued::method`] and [`Queued::args`].
fn call(action: &Action) -> (String, Value) {
    match action {
        Action::SlackApi { method, args, .. } => (method.clone(), args.clone()),
        Action::RespondUrl { url, body } => ("respond".into(), json!({ "url": url, "body": body })),
        Action::LlmReply { .. } => ("llm_reply".into(), fields(action)),
        Action::StreamAnswer { .. } => ("stream_answer".into(), fields(action)),
        Action::Lists { list_id, job: ListJob::Put { record_id, fields } } => {
            // Stored as canonical JSON text; a test compares it as JSON.
            let fields = serde_json::from_str(fields).unwrap_or_else(|_| json!(fields));
            ("list_record".into(), json!({ "list_id": list_id, "record_id": record_id, "fields": fields }))
        }
        Action::CancelSchedule { key } => ("cancel".into(), json!({ "key": key })),
        Action::Fire => ("run".into(), json!({})),
        Action::StepEnd { execution_id, end } => {
            let (method, args) = crate::kinds::step::call(execution_id, end);
            (method.into(), args)
        }
        Action::Session { channel, thread_ts, status, title, initiator_user_id } => {
            let call = SessionCall { channel, thread_ts, title: title.as_deref(), initiator_user_id: initiator_user_id.as_deref() };
            let (method, args) = set_status(&call, *status);
            (method.into(), args)
        }
        // No helper queues these (the notify and status APIs', a step's guard, a redrive's, a
        // List's sync or pass, a schedule's own row): their label and fields. Every variant is
        // named, so a new kind's compile points here.
        Action::Notify { .. }
        | Action::Status { .. }
        | Action::StepGuard { .. }
        | Action::Handle { .. }
        | Action::Lists { .. }
        | Action::Scheduled { .. }
        | Action::Then { .. }
        | Action::Answer { .. } => (action.label().into(), fields(action)),
    }
}

/// An action's own fields as JSON (its `type` tag left out).
fn fields(action: &Action) -> Value {
    let mut value = serde_json::to_value(action).expect("an effect is JSON");
    if let Some(object) = value.as_object_mut() {
        object.remove("type");
    }
    value
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;
    use crate::testing::{command, handle, mention, Schedule};
    use serde_json::json;

    #[test]
    fn a_web_api_call_reads_as_its_method_arguments_deadline_and_what_it_remembers() {
        let app = Listeners::new().mention(|_, cx| {
            cx.say("C2", "announced").remember("post:1");
            cx.reply("in the thread").in_thread_of("post:1").deadline(None);
            Ok(())
        });
        let queued = handle(&app, &mention("C1", "U1", "<@UBOT> go")).queued();
        assert_eq!((queued[0].method.as_str(), &queued[0].args), ("chat.postMessage", &json!({ "channel": "C2", "text": "announced" })));
        assert_eq!((queued[0].remember.as_deref(), queued[0].in_thread_of.as_deref()), (Some("post:1"), None));
        assert_eq!(queued[0].deadline_ms, Some(30 * MINUTE_MS));
        assert_eq!((queued[1].remember.as_deref(), queued[1].in_thread_of.as_deref(), queued[1].deadline_ms), (None, Some("post:1"), None));
        assert!(queued.iter().all(|q| q.schedule.is_none() && q.cancels.is_none()));
        assert!(queued[0].key.ends_with(":say") && queued[1].key.ends_with(":reply"), "{queued:?}");
    }

    #[test]
    fn a_scheduled_effect_reads_as_the_effect_it_performs_with_its_schedule() {
        let app = Listeners::new().command("/later", |_, cx| {
            cx.schedule("remind:1", When::after(5 * MINUTE_MS).every(DAY_MS)).say("C1", "still open").in_thread_of("post:2");
            Ok(())
        });
        let queued = &handle(&app, &command("/later", "")).queued()[0];
        assert_eq!(queued.schedule, Some(Schedule { key: "remind:1".into(), when: When::after(5 * MINUTE_MS).every(DAY_MS) }));
        assert_eq!(
            (queued.method.as_str(), queued.args["text"].as_str(), queued.in_thread_of.as_deref()),
            ("chat.postMessage", Some("still open"), Some("post:2"))
        );
        assert!(queued.key.contains("remind:1"), "the schedule's row key: {}", queued.key);
    }

    #[test]
    fn a_cancel_names_the_schedule_it_cancels() {
        let app = Listeners::new().command("/stop", |_, cx| {
            cx.cancel("remind:1");
            cx.cancel("remind:2");
            Ok(())
        });
        let done = handle(&app, &command("/stop", ""));
        let queued = &done.queued()[0];
        assert_eq!((queued.method.as_str(), &queued.args, queued.cancels.as_deref()), ("cancel", &json!({ "key": "remind:1" }), Some("remind:1")));
        assert_eq!(done.cancelled(), ["remind:1", "remind:2"]);
    }

    #[test]
    fn the_helpers_that_call_no_method_read_as_their_name_and_what_they_were_given() {
        let app = Listeners::new().command("/all", |c, cx| {
            cx.respond(json!({ "text": "done" }));
            cx.list_record("F1", "r-1", json!({ "title": "x", "open": true }));
            cx.llm_reply(&c.text);
            Ok(())
        });
        let done = handle(&app, &command("/all", "why?"));
        let queued = done.queued();
        let methods: Vec<&str> = queued.iter().map(|q| q.method.as_str()).collect();
        assert_eq!(methods, ["respond", "list_record", "llm_reply"]);
        assert!(queued[0].args["url"].as_str().is_some_and(|u| u.starts_with("https://hooks.slack.test/")), "{}", queued[0].args);
        assert_eq!(queued[0].args["body"], json!({ "text": "done" }));
        assert_eq!(queued[1].args, json!({ "list_id": "F1", "record_id": "r-1", "fields": { "title": "x", "open": true } }));
        assert_eq!(queued[2].args["prompt"], "why?");
        assert!(done.calls().is_empty(), "no Web API call among them");
    }
}
