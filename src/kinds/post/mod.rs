//! Posts made once, pure: a `chat.postMessage` whose previous attempt's outcome is unknown is read
//! back before it is sent again.
//!
//! Why: the outbox is at least once. A claim whose lease expired mid-call (the runtime died, or
//! the attempt outlived its lease) or an attempt that timed out after sending leaves a row whose
//! post may or may not be in Slack; sending it again blindly makes a duplicate reply. So every post
//! carries message metadata naming its idempotency key ([`stamp`]), the claim notes when a row's
//! outcome became unknown (`outbox.uncertain_since`, migration 7), and the next attempt reads the
//! channel (`conversations.history`) or the thread (`conversations.replies`) back over the
//! attempt's [`Window`], with `include_all_metadata`: if the post is there, the row is done with
//! that `ts` ([`Decision::Found`]); if the read saw the whole window without it, the post is sent
//! ([`Decision::Send`]).
//!
//! Reads are paced like any call (`conversations.*` are Tier 3; Slack's 2025 limit for
//! commercially distributed non-Marketplace apps is 1 a minute and 15 messages a page, set with
//! `SLACK_RATE_LIMITS` and `READBACK_PAGE_SIZE`), and one read of a channel or thread answers every
//! uncertain row of the same sweep that posts there ([`Read::answers`]). Where reading is not
//! possible — the token lacks the history scope (`missing_scope`), the budget will not allow a
//! read before the row's read deadline ([`read_deadline`]), the window holds more pages than
//! `READBACK_MAX_PAGES` — the post is sent anyway and the fallback logged ([`Fallback`]): at
//! least once still holds, and a duplicate is possible exactly there.
//!
//! A post that timed out retries only once its attempt's lease has run out ([`timed_out_wait`]):
//! the aborted call may still land after our abort, and the read must not miss it.
//!
//! Invariants: a read answers a row only if it began after the row was claimed (every uncertain
//! attempt of the row had ended by then) and its window reaches back to the row's
//! `uncertain_since` less [`CLOCK_MARGIN_MS`]; a row is done by read-back only when a message in
//! the read carries its key; a handler's own metadata is kept (its `event_type` and payload), the
//! key added beside it.
//!
//! This room has no job or store of its own: its decisions are used by `read_back` (the
//! wasm32 half, beneath every kind that posts: the handler's calls, notify messages, status
//! messages), as rooms may not import each other.

#[cfg(target_arch = "wasm32")]
pub mod read_back;
pub mod sql;
#[cfg(test)]
mod tests;

use crate::slack::classify::Verdict;
use crate::slack::method;
use serde_json::{json, Value};
use std::collections::HashMap;

/// The metadata `event_type` of a post whose handler set none.
pub const EVENT_TYPE: &str = "slackline_post";
/// The field of the metadata's `event_payload` that holds the row's idempotency key.
pub const KEY_FIELD: &str = "slackline_key";
/// How far a read's window reaches past the attempts' times on each side: the clocks of the
/// runtime and Slack may disagree a little, and the `ts` is Slack's.
pub const CLOCK_MARGIN_MS: i64 = 60_000;

/// `args` with the row's key in its message metadata: the handler's metadata is kept (its
/// `event_type`, its payload: an object, or the JSON text a form would carry), the key added to the
/// payload; without metadata, `{event_type: slackline_post, event_payload: {slackline_key: key}}`.
/// Metadata that is not an object with an `event_type` is left as it is (that post cannot be
/// read back: [`Decision::Send`] finds nothing).
pub fn stamp(args: &Value, key: &str) -> Value {
    let mut out = args.clone();
    let Some(fields) = out.as_object_mut() else { return out };
    let given = match fields.get("metadata") {
        None | Some(Value::Null) => Some(json!({ "event_type": EVENT_TYPE, "event_payload": {} })),
        Some(Value::String(text)) => serde_json::from_str::<Value>(text).ok(),
        Some(other) => Some(other.clone()),
    };
    let Some(mut metadata) = given.filter(|m| m.get("event_type").is_some_and(Value::is_string)) else { return out };
    if !metadata["event_payload"].is_object() {
        metadata["event_payload"] = json!({});
    }
    metadata["event_payload"][KEY_FIELD] = json!(key);
    fields.insert("metadata".into(), metadata);
    out
}

/// Where a post goes, so where it is read back.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Place {
    /// A channel's top level: `conversations.history`.
    Channel {
        /// The channel id.
        channel: String,
    },
    /// A thread: `conversations.replies`.
    Thread {
        /// The channel id.
        channel: String,
        /// The thread's parent `ts`.
        thread_ts: String,
    },
}

impl Place {
    /// The place of a post with these arguments (`None` without a channel).
    pub fn of(args: &Value) -> Option<Place> {
        let channel = args["channel"].as_str().filter(|c| !c.is_empty())?.to_string();
        Some(match args["thread_ts"].as_str().filter(|t| !t.is_empty()) {
            Some(thread) => Place::Thread { channel, thread_ts: thread.to_string() },
            None => Place::Channel { channel },
        })
    }

    /// The method that reads it back.
    pub fn method(&self) -> &'static str {
        match self {
            Place::Channel { .. } => method::CONVERSATIONS_HISTORY,
            Place::Thread { .. } => method::CONVERSATIONS_REPLIES,
        }
    }

    /// The arguments of one page of the read over `window`: `limit` messages, after `cursor`.
    pub fn page_args(&self, window: &Window, limit: u32, cursor: Option<&str>) -> Value {
        let mut args = json!({
            "oldest": slack_ts(window.oldest_ms),
            "latest": slack_ts(window.latest_ms),
            "inclusive": true,
            "limit": limit,
            "include_all_metadata": true,
        });
        match self {
            Place::Channel { channel } => args["channel"] = json!(channel),
            Place::Thread { channel, thread_ts } => {
                args["channel"] = json!(channel);
                args["ts"] = json!(thread_ts);
            }
        }
        if let Some(cursor) = cursor {
            args["cursor"] = json!(cursor);
        }
        args
    }
}

/// The span of time a read covers, in epoch ms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// The oldest `ts` read.
    pub oldest_ms: i64,
    /// The latest `ts` read.
    pub latest_ms: i64,
}

impl Window {
    /// The window of a read begun at `now` for rows uncertain since `since` at the earliest:
    /// every uncertain attempt began at or after `since` and ended before `now`.
    pub fn of(since: i64, now: i64) -> Window {
        Window { oldest_ms: since - CLOCK_MARGIN_MS, latest_ms: now + CLOCK_MARGIN_MS }
    }
}

/// An epoch-ms time as a Slack `ts` (`seconds.micros`).
pub fn slack_ts(ms: i64) -> String {
    format!("{}.{:06}", ms.div_euclid(1000), ms.rem_euclid(1000) * 1000)
}

/// A row that needs reading back: when its outcome became unknown and when it was claimed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Uncertain {
    /// The start of its oldest attempt whose outcome is unknown.
    pub since: i64,
    /// When this attempt's claim took it (every uncertain attempt had ended by then).
    pub claimed_at: i64,
}

/// One page of a read, as far as read-back cares.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PageSeen {
    /// The keys of the posts on the page (a message whose metadata payload names one) and their `ts`.
    pub posts: Vec<(String, String)>,
    /// The cursor of the next page, when there is one.
    pub next_cursor: Option<String>,
}

impl PageSeen {
    /// Reads a `conversations.history` or `.replies` answer.
    pub fn of(answer: &Value) -> PageSeen {
        let posts = answer["messages"]
            .as_array()
            .map(|messages| {
                messages.iter().filter_map(|m| Some((m["metadata"]["event_payload"][KEY_FIELD].as_str()?.to_string(), m["ts"].as_str()?.to_string()))).collect()
            })
            .unwrap_or_default();
        let more = answer["has_more"].as_bool().unwrap_or(false) || answer["response_metadata"]["next_cursor"].as_str().is_some_and(|c| !c.is_empty());
        let next_cursor = answer["response_metadata"]["next_cursor"].as_str().filter(|c| more && !c.is_empty()).map(str::to_string);
        PageSeen { posts, next_cursor }
    }
}

/// A read of one place: what it covered and how it ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    /// When its first page was asked for.
    pub started_at: i64,
    /// The window it covered.
    pub window: Window,
    /// How it ended.
    pub end: ReadEnd,
}

/// How a read ended.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadEnd {
    /// Every page of the window was read: the keys seen, with their `ts`.
    Complete(HashMap<String, String>),
    /// The pacer kept a page back until then (the pages before are not kept).
    Paced {
        /// When the budget allows the next call.
        until: i64,
    },
    /// Slack refused it for good (`missing_scope`, `not_in_channel`, `channel_not_found`, ...).
    Refused(String),
    /// More pages than a read may take.
    TooManyPages,
    /// A failure worth trying again (5xx, timeout, network, 429).
    Failed(Verdict),
}

impl Read {
    /// Whether this read can answer `row`: it began after the row's claim and reaches back to its
    /// uncertainty. However it ended: a read kept back by the pacer or refused by Slack would be
    /// kept back or refused again for every row of the same place.
    pub fn answers(&self, row: &Uncertain) -> bool {
        self.started_at >= row.claimed_at && self.window.oldest_ms <= row.since - CLOCK_MARGIN_MS
    }
}

/// The last moment a row's read-back may wait for the budget: its deadline, and never more than
/// `max_wait_ms` after its outcome became unknown.
pub fn read_deadline(row: &Uncertain, deadline_at: Option<i64>, max_wait_ms: i64) -> i64 {
    let cap = row.since + max_wait_ms;
    deadline_at.map_or(cap, |d| d.min(cap))
}

/// How long a post that timed out waits before its retry (ms): until its attempt's lease has run
/// out (`started + lease_ms`). A call our timeout aborted can still reach Slack after the abort (a
/// slow network, a busy Slack), and a read made at once could miss a post that lands just after
/// it; the lease is the bound every attempt is held to (a row taken over after its lease expired
/// is past it already). Never past the row's deadline (less a second), never negative.
pub fn timed_out_wait(started: i64, lease_ms: i64, deadline_at: Option<i64>, now: i64) -> i64 {
    let until = deadline_at.map_or(started + lease_ms, |deadline| (started + lease_ms).min(deadline - 1_000));
    (until - now).max(0)
}

/// Why a post is sent without knowing whether the previous attempt landed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fallback {
    /// Slack refused the read (the token lacks `channels:history` and its kin: `missing_scope`).
    Refused(String),
    /// The read budget is spent until after the row's read deadline.
    BudgetSpent,
    /// The window holds more pages than `READBACK_MAX_PAGES`.
    TooManyPages,
}

impl Fallback {
    /// How log lines name it.
    pub fn reason(&self) -> String {
        match self {
            Fallback::Refused(code) => format!("refused:{code}"),
            Fallback::BudgetSpent => "budget_spent".into(),
            Fallback::TooManyPages => "too_many_pages".into(),
        }
    }
}

/// What an uncertain row does once its place was read.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// The post is there: the row is done with this `ts`.
    Found {
        /// The post's `ts`.
        ts: String,
    },
    /// Not there (the whole window was read): send it.
    Send,
    /// Reading is not possible: send it anyway (and log why).
    Fallback(Fallback),
    /// Not known yet: end the attempt with this verdict (paced: wait for the budget; a failure:
    /// try again later), the row still uncertain.
    NotYet(Verdict),
}

/// What `read` (of the row's place) decides for the row whose key is `key`; `now` and the row's
/// read deadline (`read_deadline`) judge a paced read.
pub fn decide(read: &ReadEnd, key: &str, now: i64, read_deadline: i64) -> Decision {
    match read {
        ReadEnd::Complete(seen) => match seen.get(key) {
            Some(ts) => Decision::Found { ts: ts.clone() },
            None => Decision::Send,
        },
        ReadEnd::Paced { until } if *until <= read_deadline => Decision::NotYet(Verdict::Paced { until: *until }),
        ReadEnd::Paced { .. } => Decision::Fallback(Fallback::BudgetSpent),
        ReadEnd::Failed(Verdict::RateLimited { retry_after_ms }) if now + retry_after_ms.unwrap_or(0) > read_deadline => {
            Decision::Fallback(Fallback::BudgetSpent)
        }
        ReadEnd::Failed(verdict) => Decision::NotYet(verdict.clone()),
        ReadEnd::Refused(code) => Decision::Fallback(Fallback::Refused(code.clone())),
        ReadEnd::TooManyPages => Decision::Fallback(Fallback::TooManyPages),
    }
}

/// Slack's answer to a post, as a read-back that found it gives it: `ok`, the channel, the `ts`.
pub fn found_answer(place: &Place, ts: &str) -> Value {
    let channel = match place {
        Place::Channel { channel } | Place::Thread { channel, .. } => channel,
    };
    json!({ "ok": true, "channel": channel, "ts": ts, "read_back": true })
}

/// Whether a post's verdict leaves its outcome unknown: it timed out, possibly after Slack took
/// it. (Any other answer is Slack's word on it; a paced call was never sent.)
pub fn is_uncertain(verdict: &Verdict) -> bool {
    matches!(verdict, Verdict::Transient { code, .. } if code == "timeout")
}

/// When the row's outcome is unknown from, after an attempt that began at `started`, whose post
/// (if sent) ended with `verdict`; `unresolved` is the row's earlier uncertainty if the attempt
/// did not rule it out (no read, or a fallback), else `None`. `None`: nothing unknown.
pub fn uncertain_after(verdict: Option<&Verdict>, started: i64, unresolved: Option<i64>) -> Option<i64> {
    match verdict {
        Some(v) if is_uncertain(v) => Some(unresolved.map_or(started, |since| since.min(started))),
        _ => unresolved,
    }
}
