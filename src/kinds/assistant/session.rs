//! Agent sessions (Slack, 2026-08), pure: which status a session row sends, so that a session's
//! status never goes backwards because two rows raced.
//!
//! Why: a session's status is the newest intent the app stated for that thread —
//! `cx.session(..).processing()` when work starts, `.suspended()` while it waits on a person,
//! `.active()` or `.closed()` — and each is an outbox row, retried on its own schedule. Two rows of
//! one thread may be delivered out of order (the older one held by a 429, or retried after a
//! timeout), and a streamed answer in the thread sets the status itself: Slack moves a streaming
//! session to `processing` and `chat.stopStream` takes `session_status`. Sent blindly, a late
//! `processing` would land after the answer ended and leave the user a Stop button on nothing.
//!
//! So the ingest unit notes each session row's intent, and each streamed answer queued in a thread
//! that has a session, in `agent_sessions` (one row per thread: the newest intent, ordered by the
//! outbox row id that carries it; `sql::NOTE_INTENT`, `sql::NOTE_ANSWER`). A session row's job
//! then sends not its own status but the thread's newest ([`to_send`]): its own if it is the newest,
//! a newer row's if there is one (sending it again is harmless), `active` if the newest is an
//! answer that has ended (its `stopStream` set that), `processing` while that answer still runs
//! (as Slack shows it then). After the call it reads the newest again and sends once more if it
//! changed meanwhile, an answer's end included ([`settled`]): so the last call to land is always
//! the newest intent's, whatever order the rows ran in. A streamed answer's `stopStream` names the newest intent newer
//! than the answer itself, if any ([`stop_status`]), so an answer that ends after a `suspended`
//! does not undo it.
//!
//! Invariants: intents are ordered by outbox row id (queue order); a row never sends a status
//! older than the newest noted when it reads; a session row ends `done` only after a read that saw
//! no newer intent than the one it last sent.

use crate::slack::method;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// A session's status, as Slack names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SessionStatus {
    /// Work under way: Slack shows the Stop button.
    Processing,
    /// Idle, the conversation open (what `chat.stopStream` sets by default).
    Active,
    /// Waiting on a person.
    Suspended,
    /// Over.
    Closed,
}

impl SessionStatus {
    /// Slack's word for it.
    pub fn as_str(self) -> &'static str {
        match self {
            SessionStatus::Processing => "processing",
            SessionStatus::Active => "active",
            SessionStatus::Suspended => "suspended",
            SessionStatus::Closed => "closed",
        }
    }

    /// The status Slack's word names, if any.
    pub fn parse(word: &str) -> Option<SessionStatus> {
        [SessionStatus::Processing, SessionStatus::Active, SessionStatus::Suspended, SessionStatus::Closed].into_iter().find(|s| s.as_str() == word)
    }
}

/// The newest intent noted for a thread's session (`agent_sessions`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Newest {
    /// The outbox row that carries it.
    pub row: i64,
    /// What it is.
    pub intent: Intent,
}

/// An intent for a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Intent {
    /// A session row's status.
    Status(SessionStatus),
    /// A streamed answer in the thread: it sets the status itself while it runs and when it stops.
    Answer {
        /// The answer's row has ended (done or parked).
        ended: bool,
    },
}

/// The status row `mine` (stating `status`) sends, given the thread's newest noted intent.
pub fn to_send(mine: i64, status: SessionStatus, newest: Option<&Newest>) -> SessionStatus {
    match newest {
        None => status,
        Some(n) if n.row <= mine => status,
        Some(Newest { intent: Intent::Status(newer), .. }) => *newer,
        Some(Newest { intent: Intent::Answer { ended: true }, .. }) => SessionStatus::Active,
        // The answer runs: Slack shows it processing; sending that creates the session with this
        // row's title if the answer has not yet, and a stop landing first is caught by `settled`.
        Some(Newest { intent: Intent::Answer { ended: false }, .. }) => SessionStatus::Processing,
    }
}

/// Whether the row is settled after sending for `before`: the newest intent read after the call
/// is the very one it sent for — the same row, and an answer still running or ended as it was.
/// Otherwise it plans and sends again (a newer intent, or an answer whose stop may have landed
/// before this call).
pub fn settled(before: Option<&Newest>, after: Option<&Newest>) -> bool {
    before == after
}

/// The `session_status` a streamed answer (row `answer_row`) closes its stream with: the newest
/// session intent stated after the answer was queued, if it is a status (an older one, or none,
/// leaves Slack's default, `active`).
pub fn stop_status(answer_row: i64, newest: Option<&Newest>) -> Option<SessionStatus> {
    match newest {
        Some(Newest { row, intent: Intent::Status(status) }) if *row > answer_row => Some(*status),
        _ => None,
    }
}

/// What a session row asks for: its thread, its status, and the title and initiator that count
/// when the call creates the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionCall<'a> {
    /// The conversation.
    pub channel: &'a str,
    /// The thread of the session.
    pub thread_ts: &'a str,
    /// The title (only the first call's counts).
    pub title: Option<&'a str>,
    /// Who started it (only the first call's counts).
    pub initiator_user_id: Option<&'a str>,
}

/// `agents.sessions.setStatus`'s method and arguments for `status`.
pub fn set_status(call: &SessionCall<'_>, status: SessionStatus) -> (&'static str, Value) {
    let mut args = json!({ "channel_id": call.channel, "thread_ts": call.thread_ts, "status": status.as_str() });
    if let Some(title) = call.title {
        args["title"] = json!(truncate(title, MAX_TITLE_CHARS));
    }
    if let Some(user) = call.initiator_user_id {
        args["initiator_user_id"] = json!(user);
    }
    (method::AGENTS_SESSIONS_SET_STATUS, args)
}

/// Slack's limit on a session's title.
pub const MAX_TITLE_CHARS: usize = 200;

fn truncate(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use SessionStatus::*;

    fn status(row: i64, s: SessionStatus) -> Newest {
        Newest { row, intent: Intent::Status(s) }
    }

    fn answer(row: i64, ended: bool) -> Newest {
        Newest { row, intent: Intent::Answer { ended } }
    }

    #[test]
    fn a_row_sends_its_own_status_only_while_it_is_the_newest_intent() {
        assert_eq!(to_send(5, Processing, None), Processing, "nothing noted: a row queued by a path that notes none");
        assert_eq!(to_send(5, Processing, Some(&status(5, Processing))), Processing);
        assert_eq!(to_send(5, Processing, Some(&status(3, Closed))), Processing, "an older intent never wins");
        assert_eq!(to_send(5, Processing, Some(&status(9, Suspended))), Suspended, "a newer status is sent instead");
        assert_eq!(to_send(5, Processing, Some(&answer(9, true))), Active, "a newer answer that ended left it active");
        assert_eq!(to_send(5, Closed, Some(&answer(9, false))), Processing, "a newer answer still runs: processing, as Slack shows it");
    }

    #[test]
    fn a_row_is_settled_only_when_no_newer_intent_appeared_during_its_call() {
        assert!(settled(Some(&status(5, Processing)), Some(&status(5, Processing))));
        assert!(settled(None, None));
        assert!(!settled(Some(&status(5, Processing)), Some(&status(9, Active))));
        assert!(!settled(None, Some(&answer(9, false))));
        assert!(!settled(Some(&answer(9, false)), Some(&answer(9, true))), "the answer ended during the call: its stop may have landed first");
    }

    #[test]
    fn an_answer_stops_with_the_newest_status_stated_after_it_was_queued() {
        assert_eq!(stop_status(7, None), None, "Slack's default: active");
        assert_eq!(stop_status(7, Some(&status(3, Processing))), None, "the processing stated before the answer is over");
        assert_eq!(stop_status(7, Some(&status(9, Suspended))), Some(Suspended));
        assert_eq!(stop_status(7, Some(&answer(7, false))), None);
    }

    #[test]
    fn set_status_names_the_thread_and_the_creation_fields_when_given() {
        let call = SessionCall { channel: "D1", thread_ts: "1.2", title: Some(&"t".repeat(250)), initiator_user_id: Some("U1") };
        let (m, args) = set_status(&call, Processing);
        assert_eq!(m, "agents.sessions.setStatus");
        assert_eq!((args["channel_id"].as_str(), args["thread_ts"].as_str(), args["status"].as_str()), (Some("D1"), Some("1.2"), Some("processing")));
        assert_eq!(args["title"].as_str().map(|t| t.chars().count()), Some(MAX_TITLE_CHARS));
        let (_, bare) = set_status(&SessionCall { title: None, initiator_user_id: None, ..call }, Closed);
        assert!(bare.get("title").is_none() && bare.get("initiator_user_id").is_none());
        assert_eq!(SessionStatus::parse("suspended"), Some(Suspended));
        assert_eq!(SessionStatus::parse("paused"), None);
    }
}
