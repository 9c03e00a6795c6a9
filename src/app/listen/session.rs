//! Agent sessions on the listener API (Slack, 2026-08): a thread's session tells the user what the
//! agent is doing — `processing` (with Slack's native Stop button), `active` (idle, open),
//! `suspended` (waiting on a person), `closed` — with a title in their history.
//!
//! `cx.session(channel, thread_ts)` names the session; each status is an effect like any other:
//! queued with the request's receipt, paced at `agents.sessions.setStatus`'s tier, fenced, keyed
//! by the fact (a duplicate of the request adds nothing). A session never goes back to an older
//! status because two rows raced: each row sends the thread's *newest* intent, and a streamed
//! answer's stop keeps a status stated after it (`crate::kinds::assistant::session`). A streamed
//! answer needs none of this: Slack enrolls it in a session, shows Stop while it streams, and its
//! `stopStream` sets `active`.
//!
//! ```
//! use slackline::prelude::*;
//!
//! let app = Listeners::new().assistant_message(|m, thread, cx| {
//!     cx.session(&thread.channel_id, &thread.thread_ts).title("Looking into it").processing();
//!     cx.stream_answer(m, &m.message.text);
//!     Ok(())
//! });
//! # let _ = app;
//! ```

use super::{Cx, EffectRef};
use crate::kinds::assistant::session::SessionStatus;
use crate::kinds::registry::Action;
use crate::slack::method;
use serde_json::json;

/// A thread's agent session, as a handler states it: see the module docs.
#[must_use = "a session states nothing until a status is chosen: `.processing()`, `.active()`, …"]
pub struct Session<'a> {
    cx: &'a mut Cx,
    channel: String,
    thread_ts: String,
    title: Option<String>,
    initiator_user_id: Option<String>,
}

impl Cx {
    /// The agent session of thread `thread_ts` in `channel` (a DM with the agent, or a channel).
    pub fn session(&mut self, channel: &str, thread_ts: &str) -> Session<'_> {
        let initiator_user_id = self.origin().user.clone();
        Session { cx: self, channel: channel.into(), thread_ts: thread_ts.into(), title: None, initiator_user_id }
    }
}

impl<'a> Session<'a> {
    /// The session's title (at most 200 characters). Slack keeps the title of the call that creates
    /// the session; to change it later, [`rename`](Session::rename).
    pub fn title(mut self, title: &str) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Who started the session (by default the user of the request; counts at creation).
    pub fn initiator(mut self, user_id: &str) -> Self {
        self.initiator_user_id = Some(user_id.into());
        self
    }

    /// Work under way: Slack shows the Stop button (its press reaches the app as
    /// `agent_session_stopped`, which slackline records and honours for streamed answers).
    pub fn processing(self) -> EffectRef<'a> {
        self.status(SessionStatus::Processing)
    }

    /// Idle, the conversation open.
    pub fn active(self) -> EffectRef<'a> {
        self.status(SessionStatus::Active)
    }

    /// Waiting on a person (an approval, an answer).
    pub fn suspended(self) -> EffectRef<'a> {
        self.status(SessionStatus::Suspended)
    }

    /// Over.
    pub fn closed(self) -> EffectRef<'a> {
        self.status(SessionStatus::Closed)
    }

    /// Renames the session (`agents.sessions.rename`; the newest rename delivered wins, as with
    /// any call sent again).
    pub fn rename(self, title: &str) -> EffectRef<'a> {
        let args = json!({ "channel_id": self.channel, "thread_ts": self.thread_ts, "title": title });
        self.cx.api(method::AGENTS_SESSIONS_RENAME, args).named("session_rename")
    }

    fn status(self, status: SessionStatus) -> EffectRef<'a> {
        let action = Action::Session { channel: self.channel, thread_ts: self.thread_ts, status, title: self.title, initiator_user_id: self.initiator_user_id };
        self.cx.push(&format!("session_{}", status.as_str()), action, None)
    }
}

#[cfg(test)]
mod tests {
    use crate::app::listen::Listeners;
    use crate::testing::{assistant_message, Team};
    use serde_json::json;

    fn agent() -> Listeners {
        Listeners::new().assistant_message(|m, thread, cx| {
            cx.session(&thread.channel_id, &thread.thread_ts).title("Triage").processing();
            cx.stream_answer(m, &m.message.text);
            cx.session(&thread.channel_id, &thread.thread_ts).suspended();
            cx.session(&thread.channel_id, &thread.thread_ts).rename("Triage: waiting on you");
            Ok(())
        })
    }

    #[test]
    fn each_status_is_a_session_effect_keyed_by_the_fact_in_the_order_stated() {
        let team = Team::new();
        let message = assistant_message("U1", "1700000000.000009", "why is the build red?");
        let done = team.handle(&agent(), &message);
        let queued = done.queued();
        let methods: Vec<&str> = queued.iter().map(|q| q.method.as_str()).collect();
        assert_eq!(methods, ["agents.sessions.setStatus", "stream_answer", "agents.sessions.setStatus", "agents.sessions.rename"]);
        assert_eq!(
            queued[0].args,
            json!({"channel_id": "DU1", "thread_ts": "1700000000.000009", "status": "processing", "title": "Triage", "initiator_user_id": "U1"})
        );
        assert_eq!(queued[2].args["status"], "suspended");
        assert_eq!(queued[3].args["title"], "Triage: waiting on you");
        assert!(queued[0].key.ends_with(":session_processing") && queued[2].key.ends_with(":session_suspended"), "{:?}", queued[0].key);
        let again = team.handle(&agent(), &message);
        assert_eq!(
            again.queued().iter().map(|q| q.key.clone()).collect::<Vec<_>>(),
            queued.iter().map(|q| q.key.clone()).collect::<Vec<_>>(),
            "the same fact, the same keys"
        );
    }
}
