//! Slack's side of the rate limits, for the fake (`slackline-sim serve --enforce-tiers`): each
//! caller (bearer token: one workspace's app) gets a token bucket per method at that method's tier,
//! and per channel for `chat.postMessage` (one a second, bursts of 3). A call over its bucket is
//! answered as Slack answers it: HTTP 429, `Retry-After` in whole seconds, `{"ok": false,
//! "error": "ratelimited"}`, and nothing it asked for is done.
//!
//! The buckets hold about ten seconds' worth of a tier (at least 2 calls), a little more than
//! slackline's own bursts: Slack allows "short bursts" without saying how long, and a client that
//! paces by the published rate must pass; one that sends as fast as it can must not.

use serde_json::Value;
use slackline::internal::slack::method;
use slackline::internal::slack::tiers::DEFAULT_TIERS;
use std::collections::HashMap;

/// `chat.postMessage` per channel: one a second.
pub const POSTS_PER_SECOND: f64 = 1.0;
/// `chat.postMessage` per channel: at most this many at once.
pub const POST_BURST: f64 = 3.0;

/// One bucket's rate and size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlackLimit {
    /// Calls a second, refilled continuously.
    pub per_second: f64,
    /// The most calls at once.
    pub capacity: f64,
}

/// The lane and limit Slack applies to a call of `method` with body `json`, if any.
pub fn limit_of(method: &str, json: Option<&Value>) -> Option<(String, SlackLimit)> {
    if method == method::POST_MESSAGE {
        let channel = json.and_then(|j| j.get("channel")).and_then(Value::as_str).unwrap_or("");
        return Some((format!("{method}:{channel}"), SlackLimit { per_second: POSTS_PER_SECOND, capacity: POST_BURST }));
    }
    let (_, tier) = DEFAULT_TIERS.iter().find(|(m, _)| *m == method)?;
    let per_minute = f64::from(tier.per_minute());
    Some((method.to_string(), SlackLimit { per_second: per_minute / 60.0, capacity: (per_minute / 6.0).floor().max(2.0) }))
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at_secs: f64,
}

/// Every caller's buckets.
#[derive(Debug, Default)]
pub struct Enforcer {
    buckets: HashMap<(String, String), Bucket>,
    /// Calls answered 429 so far.
    pub refused: u64,
}

impl Enforcer {
    /// Whether the call may pass at `now_secs` (seconds on any monotonic clock): `Ok`, or
    /// `Err(retry_after_secs)` for the 429.
    pub fn check(&mut self, token: &str, method: &str, json: Option<&Value>, now_secs: f64) -> Result<(), u64> {
        let Some((lane, limit)) = limit_of(method, json) else { return Ok(()) };
        let bucket = self.buckets.entry((token.to_string(), lane)).or_insert(Bucket { tokens: limit.capacity, at_secs: now_secs });
        bucket.tokens = (bucket.tokens + (now_secs - bucket.at_secs).max(0.0) * limit.per_second).min(limit.capacity);
        bucket.at_secs = now_secs;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            return Ok(());
        }
        self.refused += 1;
        Err((((1.0 - bucket.tokens) / limit.per_second).ceil() as u64).max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn posts_pass_in_bursts_of_three_then_one_a_second_per_channel() {
        let mut e = Enforcer::default();
        let post = |channel: &str| json!({"channel": channel, "text": "x"});
        let at_once: Vec<bool> = (0..4).map(|_| e.check("xoxb-1", "chat.postMessage", Some(&post("C1")), 0.0).is_ok()).collect();
        assert_eq!(at_once, vec![true, true, true, false]);
        assert_eq!(e.check("xoxb-1", "chat.postMessage", Some(&post("C1")), 0.0), Err(1));
        assert!(e.check("xoxb-1", "chat.postMessage", Some(&post("C2")), 0.0).is_ok(), "another channel");
        assert!(e.check("xoxb-2", "chat.postMessage", Some(&post("C1")), 0.0).is_ok(), "another workspace");
        assert!(e.check("xoxb-1", "chat.postMessage", Some(&post("C1")), 1.0).is_ok());
        assert!(e.check("xoxb-1", "chat.postMessage", Some(&post("C1")), 1.5).is_err());
        assert_eq!(e.refused, 3);
    }

    #[test]
    fn a_tier_2_method_allows_twenty_a_minute_after_a_burst_of_three() {
        let mut e = Enforcer::default();
        let passed = (0..100).filter(|i| e.check("t", "slackLists.items.list", None, *i as f64 * 0.6).is_ok()).count();
        // 60 s at 20/min plus the bucket of 3.
        assert!((21..=23).contains(&passed), "{passed}");
        let mut fresh = Enforcer::default();
        assert!((0..3).all(|_| fresh.check("t", "slackLists.items.list", None, 0.0).is_ok()));
        assert_eq!(fresh.check("t", "slackLists.items.list", None, 0.0), Err(3), "Retry-After: one token at 20/min");
    }

    #[test]
    fn methods_without_a_tier_are_not_limited() {
        let mut e = Enforcer::default();
        assert!((0..1_000).all(|_| e.check("t", "auth.test", None, 0.0).is_ok()));
        assert_eq!(limit_of("chat.update", None).unwrap().1, SlackLimit { per_second: 50.0 / 60.0, capacity: 8.0 });
    }
}
