//! Slack's published Web API rate limits, as the budgets the outbox paces its calls by, pure.
//!
//! Slack limits each method "per workspace per app" by tier (Tier 1: 1+ a minute, Tier 2: 20+,
//! Tier 3: 50+, Tier 4: 100+) and `chat.postMessage` to about one message a second **per
//! channel**, with short bursts allowed (docs.slack.dev/apis/web-api/rate-limits). Learning those
//! limits from 429s costs Slack's goodwill and the team's answers, so each call spends from one or
//! more [`Bucket`]s first: a method's team-wide budget, or for `chat.postMessage` the channel's.
//! A call whose bucket is empty waits (see [`crate::outbox::pace`]); it is never sent to be
//! refused.
//!
//! The budgets sit a little under what Slack allows (a burst one call smaller than Slack's), so
//! the jitter between our clock and Slack's does not turn the last call of a burst into a 429.
//! Methods not in the table are not paced: a 429 still holds them (`Retry-After`). Every budget can
//! be changed or switched off with `SLACK_RATE_LIMITS` ([`RateLimits::parse`]).
//!
//! Invariants: every budget has an interval of at least 1 ms and a burst of at least 1; a call
//! always has a hold key (the narrowest lane a 429 to it holds), paced or not.

use super::method;
use serde_json::Value;

/// How fast one bucket refills and how many calls it allows at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// One call per this many ms, on average.
    pub interval_ms: i64,
    /// Calls allowed back to back after a quiet spell (at least 1).
    pub burst: u32,
}

impl Budget {
    /// `per_minute` calls a minute, `burst` at once.
    pub fn per_minute(per_minute: u32, burst: u32) -> Budget {
        Budget { interval_ms: (60_000 / i64::from(per_minute.max(1))).max(1), burst: burst.max(1) }
    }

    /// `per_second` calls a second, `burst` at once.
    pub fn per_second(per_second: u32, burst: u32) -> Budget {
        Budget { interval_ms: (1_000 / i64::from(per_second.max(1))).max(1), burst: burst.max(1) }
    }
}

/// Slack's tiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    /// 1+ per minute.
    One,
    /// 20+ per minute.
    Two,
    /// 50+ per minute.
    Three,
    /// 100+ per minute.
    Four,
}

impl Tier {
    /// The calls a minute Slack publishes for the tier.
    pub fn per_minute(self) -> u32 {
        match self {
            Tier::One => 1,
            Tier::Two => 20,
            Tier::Three => 50,
            Tier::Four => 100,
        }
    }

    /// slackline's budget for the tier: the published rate, a short burst.
    pub fn budget(self) -> Budget {
        let burst = match self {
            Tier::One => 1,
            Tier::Two => 2,
            Tier::Three => 3,
            Tier::Four => 5,
        };
        Budget::per_minute(self.per_minute(), burst)
    }

    fn parse(s: &str) -> Option<Tier> {
        match s {
            "tier1" => Some(Tier::One),
            "tier2" => Some(Tier::Two),
            "tier3" => Some(Tier::Three),
            "tier4" => Some(Tier::Four),
            _ => None,
        }
    }
}

/// What a budget is counted per.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The whole team (workspace or org install): Slack's tiers.
    Team,
    /// Each channel (the call's `channel` argument): `chat.postMessage`'s one a second.
    Channel,
}

/// The budget for `chat.postMessage` in one channel: one a second, two at once (Slack allows
/// short bursts of a few).
pub const POST_PER_CHANNEL: Budget = Budget { interval_ms: 1_000, burst: 2 };

/// Slack's tier for each method slackline calls (docs.slack.dev method pages; see
/// `docs/delivery.md`). `chat.postMessage` is Slack's special case, per channel.
pub const DEFAULT_TIERS: &[(&str, Tier)] = &[
    (method::POST_EPHEMERAL, Tier::Four),
    (method::UPDATE, Tier::Three),
    (method::DELETE, Tier::Three),
    (method::SCHEDULE_MESSAGE, Tier::Three),
    (method::DELETE_SCHEDULED_MESSAGE, Tier::Three),
    (method::START_STREAM, Tier::Two),
    (method::APPEND_STREAM, Tier::Four),
    (method::STOP_STREAM, Tier::Two),
    (method::UNFURL, Tier::Three),
    (method::REACTIONS_ADD, Tier::Three),
    (method::REACTIONS_REMOVE, Tier::Two),
    (method::REACTIONS_GET, Tier::Three),
    (method::REACTIONS_LIST, Tier::Two),
    (method::VIEWS_OPEN, Tier::Four),
    (method::VIEWS_PUSH, Tier::Four),
    (method::VIEWS_UPDATE, Tier::Four),
    (method::VIEWS_PUBLISH, Tier::Four),
    // No published tier found: a trigger-bound answer like `views.open`, paced as it is (a flexpane
    // must leave within its trigger's 3 s, so a short budget would only expire it).
    (method::ENTITY_PRESENT_DETAILS, Tier::Four),
    (method::SLACK_LISTS_CREATE, Tier::Two),
    (method::SLACK_LISTS_UPDATE, Tier::Two),
    (method::SLACK_LISTS_ITEMS_LIST, Tier::Two),
    (method::SLACK_LISTS_ITEMS_INFO, Tier::Two),
    (method::SLACK_LISTS_ITEMS_CREATE, Tier::Three),
    (method::SLACK_LISTS_ITEMS_UPDATE, Tier::Three),
    (method::SLACK_LISTS_ITEMS_DELETE, Tier::Two),
    (method::ASSISTANT_THREADS_SET_STATUS, Tier::Three),
    (method::ASSISTANT_THREADS_SET_SUGGESTED_PROMPTS, Tier::Four),
    (method::ASSISTANT_THREADS_SET_TITLE, Tier::Four),
    (method::AGENTS_SESSIONS_SET_STATUS, Tier::Three),
    (method::FUNCTIONS_COMPLETE_SUCCESS, Tier::Three),
    (method::FUNCTIONS_COMPLETE_ERROR, Tier::Three),
    (method::AGENTS_SESSIONS_RENAME, Tier::Three),
    // A post's read-back (`crate::kinds::post`). Slack's 2025 limit for commercially distributed
    // non-Marketplace apps is 1 a minute: `conversations.history=1/min,conversations.replies=1/min`.
    (method::CONVERSATIONS_HISTORY, Tier::Three),
    (method::CONVERSATIONS_REPLIES, Tier::Three),
];

/// One budget rule: a method's budget in a scope, or `None` (not paced in that scope).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Rule {
    method: String,
    scope: Scope,
    budget: Option<Budget>,
}

/// One bucket a call spends from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bucket {
    /// The lane: the method (team scope) or `method:channel` (channel scope).
    pub key: String,
    /// Its budget.
    pub budget: Budget,
}

/// The budgets of one deployment: the defaults, with `SLACK_RATE_LIMITS` over them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateLimits {
    /// Overrides first: the first rule for a (method, scope) wins.
    rules: Vec<Rule>,
    /// `SLACK_RATE_LIMITS=off`: nothing is paced (429s still hold).
    off: bool,
}

impl Default for RateLimits {
    fn default() -> Self {
        let mut rules = vec![Rule { method: method::POST_MESSAGE.into(), scope: Scope::Channel, budget: Some(POST_PER_CHANNEL) }];
        rules.extend(DEFAULT_TIERS.iter().map(|(method, tier)| Rule { method: (*method).into(), scope: Scope::Team, budget: Some(tier.budget()) }));
        RateLimits { rules, off: false }
    }
}

/// Why `SLACK_RATE_LIMITS` was refused: names the entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitsError(pub String);

impl RateLimits {
    /// Nothing paced (429s still hold): `SLACK_RATE_LIMITS=off`.
    pub fn off() -> RateLimits {
        RateLimits { rules: Vec::new(), off: true }
    }

    /// Reads `SLACK_RATE_LIMITS`: `off`, or comma-separated `method[@team|@channel]=LIMIT` entries
    /// over the defaults, where LIMIT is `off`, `tier1`..`tier4`, `N/min` or `N/s`, optionally
    /// followed by `:B` for a burst of B. The scope defaults to the method's default scope (the
    /// channel for `chat.postMessage`), else the team. Examples: `chat.update=tier2`,
    /// `chat.postMessage=1/s:1`, `chat.postMessage@team=300/min:10`, `reactions.add=off`.
    pub fn parse(raw: Option<&str>) -> Result<RateLimits, LimitsError> {
        let defaults = RateLimits::default();
        let Some(raw) = raw.map(str::trim).filter(|r| !r.is_empty()) else { return Ok(defaults) };
        if raw == "off" {
            return Ok(RateLimits::off());
        }
        let mut overrides = Vec::new();
        for entry in raw.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let bad = |why: &str| LimitsError(format!("`{entry}`: {why}"));
            let (name, limit) = entry.split_once('=').ok_or_else(|| bad("takes method=limit"))?;
            let (method, scope) = match name.trim().split_once('@') {
                Some((m, "team")) => (m, Some(Scope::Team)),
                Some((m, "channel")) => (m, Some(Scope::Channel)),
                Some(_) => return Err(bad("the scope after @ is team or channel")),
                None => (name.trim(), None),
            };
            if method.is_empty() || !method.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_') {
                return Err(bad("not a Slack method name"));
            }
            let scope = scope.unwrap_or_else(|| defaults.rules.iter().find(|r| r.method == method).map_or(Scope::Team, |r| r.scope));
            let budget = parse_limit(limit.trim()).ok_or_else(|| bad("the limit is off, tier1..tier4, N/min or N/s, with an optional :burst"))?;
            overrides.push(Rule { method: method.into(), scope, budget });
        }
        overrides.extend(defaults.rules);
        Ok(RateLimits { rules: overrides, off: false })
    }

    /// The buckets a call of `method` with `args` spends from (empty: not paced).
    pub fn buckets(&self, method: &str, args: &Value) -> Vec<Bucket> {
        if self.off {
            return Vec::new();
        }
        let mut buckets = Vec::new();
        for scope in [Scope::Channel, Scope::Team] {
            let Some(rule) = self.rules.iter().find(|r| r.method == method && r.scope == scope) else { continue };
            if let Some(budget) = rule.budget {
                buckets.push(Bucket { key: lane(method, scope, args), budget });
            }
        }
        buckets
    }

    /// The lane a 429 to this call holds: the narrowest one it is paced in (the channel's for
    /// `chat.postMessage`), else the method for the whole team.
    pub fn hold_key(&self, method: &str, args: &Value) -> String {
        let per_channel =
            self.rules.iter().any(|r| r.method == method && r.scope == Scope::Channel && r.budget.is_some()) || (self.off && method == method::POST_MESSAGE);
        lane(method, if per_channel { Scope::Channel } else { Scope::Team }, args)
    }
}

/// A lane's key: the method, or `method:channel` (the method alone when there is no channel).
fn lane(method: &str, scope: Scope, args: &Value) -> String {
    match (scope, args.get("channel").and_then(Value::as_str)) {
        (Scope::Channel, Some(channel)) if !channel.is_empty() => format!("{method}:{channel}"),
        _ => method.to_string(),
    }
}

/// `off` → `Some(None)`; `tier3`, `50/min`, `1/s`, each with an optional `:burst` → the budget.
fn parse_limit(limit: &str) -> Option<Option<Budget>> {
    if limit == "off" {
        return Some(None);
    }
    let (rate, burst) = match limit.split_once(':') {
        Some((rate, burst)) => (rate, Some(burst.parse::<u32>().ok().filter(|b| (1..=1_000).contains(b))?)),
        None => (limit, None),
    };
    if let Some(tier) = Tier::parse(rate) {
        let budget = tier.budget();
        return Some(Some(Budget { burst: burst.unwrap_or(budget.burst), ..budget }));
    }
    let (count, unit) = rate.split_once('/')?;
    let count: u32 = count.parse().ok().filter(|n| (1..=100_000).contains(n))?;
    match unit {
        "min" => Some(Some(Budget::per_minute(count, burst.unwrap_or(1)))),
        "s" => Some(Some(Budget::per_second(count, burst.unwrap_or(1)))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keys(limits: &RateLimits, method: &str, args: Value) -> Vec<(String, Budget)> {
        limits.buckets(method, &args).into_iter().map(|b| (b.key, b.budget)).collect()
    }

    #[test]
    fn a_post_is_paced_per_channel_at_one_a_second() {
        let l = RateLimits::default();
        assert_eq!(keys(&l, "chat.postMessage", json!({"channel": "C1", "text": "x"})), vec![("chat.postMessage:C1".into(), POST_PER_CHANNEL)]);
        assert_eq!(l.hold_key("chat.postMessage", &json!({"channel": "C1"})), "chat.postMessage:C1");
    }

    #[test]
    fn tier_methods_are_paced_for_the_whole_team_at_their_tier() {
        let l = RateLimits::default();
        assert_eq!(keys(&l, "chat.update", json!({"channel": "C1"})), vec![("chat.update".into(), Tier::Three.budget())]);
        assert_eq!(keys(&l, "slackLists.items.list", json!({})), vec![("slackLists.items.list".into(), Tier::Two.budget())]);
        assert_eq!(keys(&l, "views.open", json!({})), vec![("views.open".into(), Tier::Four.budget())]);
        assert_eq!(l.hold_key("chat.update", &json!({"channel": "C1"})), "chat.update");
    }

    #[test]
    fn tiers_are_the_published_rates_with_short_bursts() {
        assert_eq!(Tier::Two.budget(), Budget { interval_ms: 3_000, burst: 2 });
        assert_eq!(Tier::Three.budget(), Budget { interval_ms: 1_200, burst: 3 });
        assert_eq!(Tier::Four.budget(), Budget { interval_ms: 600, burst: 5 });
        assert_eq!(Tier::One.budget(), Budget { interval_ms: 60_000, burst: 1 });
    }

    #[test]
    fn a_method_not_in_the_table_is_not_paced_but_a_429_still_holds_it() {
        let l = RateLimits::default();
        assert!(l.buckets("users.info", &json!({})).is_empty());
        assert_eq!(l.hold_key("users.info", &json!({"channel": "C1"})), "users.info");
    }

    #[test]
    fn overrides_replace_a_default_in_its_scope_or_add_a_team_wide_budget() {
        let l = RateLimits::parse(Some("chat.update=tier2, chat.postMessage=2/s:4, chat.postMessage@team=300/min:10, reactions.add=off, users.info=10/min"))
            .unwrap();
        assert_eq!(keys(&l, "chat.update", json!({})), vec![("chat.update".into(), Tier::Two.budget())]);
        assert_eq!(
            keys(&l, "chat.postMessage", json!({"channel": "C9"})),
            vec![("chat.postMessage:C9".into(), Budget { interval_ms: 500, burst: 4 }), ("chat.postMessage".into(), Budget { interval_ms: 200, burst: 10 })]
        );
        assert!(l.buckets("reactions.add", &json!({})).is_empty());
        assert_eq!(keys(&l, "users.info", json!({})), vec![("users.info".into(), Budget { interval_ms: 6_000, burst: 1 })]);
        assert_eq!(keys(&l, "views.open", json!({})), vec![("views.open".into(), Tier::Four.budget())], "the other defaults stay");
    }

    #[test]
    fn off_paces_nothing_and_still_holds_posts_per_channel() {
        let l = RateLimits::parse(Some("off")).unwrap();
        assert!(l.buckets("chat.postMessage", &json!({"channel": "C1"})).is_empty());
        assert!(l.buckets("chat.update", &json!({})).is_empty());
        assert_eq!(l.hold_key("chat.postMessage", &json!({"channel": "C1"})), "chat.postMessage:C1");
        assert_eq!(RateLimits::parse(None).unwrap(), RateLimits::default());
        assert_eq!(RateLimits::parse(Some("  ")).unwrap(), RateLimits::default());
    }

    #[test]
    fn a_post_without_a_channel_is_paced_as_the_method() {
        let l = RateLimits::default();
        assert_eq!(keys(&l, "chat.postMessage", json!({"text": "x"})), vec![("chat.postMessage".into(), POST_PER_CHANNEL)]);
    }

    #[test]
    fn bad_entries_are_refused_naming_them() {
        for bad in [
            "chat.update",
            "chat.update=fast",
            "chat.update=0/min",
            "chat.update=5/hour",
            "chat.update@dm=tier2",
            "=tier2",
            "chat update=tier2",
            "chat.update=tier3:0",
        ] {
            let err = RateLimits::parse(Some(bad)).unwrap_err();
            assert!(err.0.contains(bad.trim()), "{bad}: {err:?}");
        }
    }
}
