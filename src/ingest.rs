//! What the ingest unit decided, as the team actor tells the front door: the actor serializes an
//! [`IngestOutcome`], the front door deserializes it and answers Slack from it. Typed on both
//! sides so that the two halves of the request path cannot drift apart.

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
}
