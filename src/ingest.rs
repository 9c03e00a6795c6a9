//! What the ingest unit decided, as the team actor tells the front door: the actor serializes an
//! [`IngestOutcome`], the front door deserializes it and answers Slack from it. Typed on both
//! sides so that the two halves of the request path cannot drift apart.
//!
//! The front door also tells the actor when its answer stops being useful ([`Deadline`]): the
//! arrival of the request plus `ACK_BUDGET_MS`. Past it the front door has already answered 500
//! (Slack retries), so an actor that only reaches the request then — it waited in the actor's
//! queue, under overload — skips the unit ([`Admission::Late`]) rather than spend its time on an
//! answer nobody waits for. Invariant: a late request writes nothing and is never answered 200;
//! Slack's retry records it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What the ingest unit did with the receipt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "receipt", rename_all = "snake_case")]
pub enum Receipt {
    /// First time this operation key was seen: its effects were offered to the outbox.
    New {
        /// Rows inserted.
        queued: u32,
        /// Effects whose idempotency key was already queued (the same fact seen before).
        already_queued: u32,
    },
    /// The operation key was already recorded: nothing was written.
    Duplicate,
}

impl Receipt {
    /// Rows this unit queued (none for a duplicate).
    pub fn queued(&self) -> u32 {
        match self {
            Receipt::New { queued, .. } => *queued,
            Receipt::Duplicate => 0,
        }
    }
}

/// The team actor's answer to `POST /ingest`, sent only once the unit is durable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IngestOutcome {
    /// New or duplicate, and what was queued.
    pub receipt: Receipt,
    /// Why the app chose to do nothing (`bot_message`, `uninstalled`, ...), if it did.
    pub ignored: Option<String>,
    /// A command's immediate answer: the body of Slack's 200 (the same for a retried copy, since
    /// the app is pure).
    pub ack: Option<Value>,
}

/// How the front door's log line sums up an acknowledged dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Recorded for the first time (with or without effects).
    New,
    /// Already recorded: nothing was written.
    Duplicate,
    /// Recorded, and the app chose to do nothing.
    Ignored,
}

impl IngestOutcome {
    /// Duplicate wins over ignored: a duplicate was not even offered to the app.
    pub fn verdict(&self) -> Verdict {
        match (&self.receipt, &self.ignored) {
            (Receipt::Duplicate, _) => Verdict::Duplicate,
            (_, Some(_)) => Verdict::Ignored,
            _ => Verdict::New,
        }
    }
}

/// When the front door stops waiting for the actor (epoch ms, the front door's clock), sent with
/// the request as [`Deadline::HEADER`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline(pub i64);

/// Whether the actor should still run the unit of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Inside the deadline (or none was given): run the unit.
    InTime,
    /// The front door has given up already: write nothing, answer "too late".
    Late {
        /// How far past the deadline the actor reached it.
        by_ms: i64,
    },
}

impl Deadline {
    /// The header that carries it from the front door to the team actor.
    pub const HEADER: &'static str = "x-slackline-deadline";

    /// The header's value, if it is one.
    pub fn parse(value: Option<&str>) -> Option<Deadline> {
        value?.trim().parse().ok().map(Deadline)
    }

    /// The time left at `now_ms` (none, or less, once it has passed).
    pub fn remaining_ms(self, now_ms: i64) -> i64 {
        self.0 - now_ms
    }

    /// Whether a request carrying `deadline` may still be recorded at `now_ms`.
    pub fn admit(deadline: Option<Deadline>, now_ms: i64) -> Admission {
        match deadline {
            Some(d) if d.remaining_ms(now_ms) <= 0 => Admission::Late { by_ms: now_ms - d.0 },
            _ => Admission::InTime,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn outcome(receipt: Receipt, ignored: Option<&str>) -> IngestOutcome {
        IngestOutcome { receipt, ignored: ignored.map(str::to_string), ack: None }
    }

    #[test]
    fn the_verdict_says_duplicate_before_ignored() {
        let new = Receipt::New { queued: 1, already_queued: 0 };
        assert_eq!(outcome(new, None).verdict(), Verdict::New);
        assert_eq!(outcome(new, Some("bot_message")).verdict(), Verdict::Ignored);
        assert_eq!(outcome(Receipt::Duplicate, Some("bot_message")).verdict(), Verdict::Duplicate);
    }

    #[test]
    fn the_answer_round_trips_in_the_wire_format_the_actor_sends() {
        let sent = IngestOutcome { receipt: Receipt::New { queued: 2, already_queued: 1 }, ignored: None, ack: Some(json!({"text": "on it"})) };
        let wire = serde_json::to_value(&sent).unwrap();
        assert_eq!(wire, json!({"receipt": {"receipt": "new", "queued": 2, "already_queued": 1}, "ignored": null, "ack": {"text": "on it"}}));
        assert_eq!(serde_json::from_value::<IngestOutcome>(wire).unwrap(), sent);
        assert_eq!(sent.receipt.queued(), 2);
        assert_eq!(Receipt::Duplicate.queued(), 0);
    }

    #[test]
    fn a_request_reached_after_its_deadline_is_late_and_one_before_it_is_in_time() {
        let d = Deadline::parse(Some("1000"));
        assert_eq!(d, Some(Deadline(1000)));
        assert_eq!(Deadline::admit(d, 999), Admission::InTime);
        assert_eq!(Deadline::admit(d, 1000), Admission::Late { by_ms: 0 });
        assert_eq!(Deadline::admit(d, 1250), Admission::Late { by_ms: 250 });
    }

    #[test]
    fn without_a_readable_deadline_every_request_is_in_time() {
        assert_eq!(Deadline::parse(None), None);
        assert_eq!(Deadline::parse(Some("soon")), None);
        assert_eq!(Deadline::admit(None, i64::MAX), Admission::InTime);
    }
}
