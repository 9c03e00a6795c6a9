//! Faults the simulator injects into its fake Slack, chosen by flags or a JSON script:
//!
//! ```json
//! {
//!   "seed": 7,
//!   "slow_ms": 200,
//!   "fail_rate": 0.1,
//!   "ratelimit_rate": 0.05,
//!   "retry_after_s": 2,
//!   "errors": { "chat.postMessage": "not_in_channel" }
//! }
//! ```
//!
//! For each call, in this order: a method listed in `errors` answers `ok: false` with that error;
//! else with probability `ratelimit_rate` it answers HTTP 429 with `Retry-After: retry_after_s`;
//! else with probability `fail_rate` HTTP 503; else it succeeds. Every answer waits `slow_ms`
//! first. The draws come from a small PRNG seeded by `seed`, so a run can be repeated.

use super::fake::Reply;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::time::Duration;

/// The faults of one `serve`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Faults {
    /// PRNG seed (default 1).
    #[serde(default)]
    pub seed: Option<u64>,
    /// Delay before every answer, ms.
    #[serde(default)]
    pub slow_ms: u64,
    /// Share of calls answered HTTP 503.
    #[serde(default)]
    pub fail_rate: f64,
    /// Share of calls answered HTTP 429.
    #[serde(default)]
    pub ratelimit_rate: f64,
    /// The 429's `Retry-After`, seconds (default 1).
    #[serde(default)]
    pub retry_after_s: Option<u64>,
    /// Method → the `ok: false` error every call of it gets.
    #[serde(default)]
    pub errors: BTreeMap<String, String>,
}

/// Why a fault setting was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultError(pub String);

impl std::fmt::Display for FaultError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Faults {
    /// Reads a JSON fault script.
    pub fn from_script(text: &str) -> Result<Faults, FaultError> {
        let faults: Faults = serde_json::from_str(text).map_err(|e| FaultError(format!("fault script: {e}")))?;
        faults.check()?;
        Ok(faults)
    }

    /// Checks the rates and names.
    pub fn check(&self) -> Result<(), FaultError> {
        for (name, rate) in [("fail_rate", self.fail_rate), ("ratelimit_rate", self.ratelimit_rate)] {
            if !(0.0..=1.0).contains(&rate) {
                return Err(FaultError(format!("{name} must be between 0 and 1, not {rate}")));
            }
        }
        if self.fail_rate + self.ratelimit_rate > 1.0 {
            return Err(FaultError("fail_rate + ratelimit_rate must not exceed 1".into()));
        }
        match self.errors.iter().find(|(method, code)| method.is_empty() || code.is_empty() || code.contains(char::is_whitespace)) {
            Some((method, code)) => Err(FaultError(format!("errors: `{method}` = `{code}` is not a method and an error code"))),
            None => Ok(()),
        }
    }

    /// Whether any fault is set.
    pub fn any(&self) -> bool {
        self.slow_ms > 0 || self.fail_rate > 0.0 || self.ratelimit_rate > 0.0 || !self.errors.is_empty()
    }

    /// A chooser of replies for the fake, drawing from its own PRNG.
    pub fn chooser(&self) -> impl FnMut(&str) -> Reply + Send + 'static {
        let faults = self.clone();
        let mut rng = Rng(faults.seed.unwrap_or(1).max(1));
        move |method: &str| {
            let reply = match faults.errors.get(method) {
                Some(code) => Reply::Error(Box::leak(code.clone().into_boxed_str())),
                None => {
                    let draw = rng.next_f64();
                    if draw < faults.ratelimit_rate {
                        Reply::RateLimited(faults.retry_after_s.unwrap_or(1))
                    } else if draw < faults.ratelimit_rate + faults.fail_rate {
                        Reply::Status(503)
                    } else {
                        Reply::Ok
                    }
                }
            };
            match faults.slow_ms {
                0 => reply,
                ms => Reply::Delay(Duration::from_millis(ms), Box::new(reply)),
            }
        }
    }
}

/// xorshift64*: enough for fault draws, no dependency.
struct Rng(u64);

impl Rng {
    fn next_f64(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_is_read_and_checked() {
        let f = Faults::from_script(
            r#"{"seed": 3, "slow_ms": 50, "fail_rate": 0.25, "ratelimit_rate": 0.25, "retry_after_s": 2, "errors": {"chat.update": "message_not_found"}}"#,
        )
        .unwrap();
        assert_eq!((f.seed, f.slow_ms, f.retry_after_s), (Some(3), 50, Some(2)));
        assert_eq!(f.errors["chat.update"], "message_not_found");
        assert!(Faults::from_script(r#"{"fail_rate": 1.5}"#).unwrap_err().0.contains("fail_rate"));
        assert!(Faults::from_script(r#"{"fail_rate": 0.6, "ratelimit_rate": 0.6}"#).is_err());
        assert!(Faults::from_script(r#"{"typo_rate": 0.1}"#).unwrap_err().0.contains("typo_rate"), "unknown keys are refused");
        assert!(Faults::from_script("not json").is_err());
    }

    #[test]
    fn draws_follow_the_rates_and_errors_win() {
        let f = Faults {
            fail_rate: 0.2,
            ratelimit_rate: 0.1,
            retry_after_s: Some(4),
            errors: [("chat.update".to_string(), "cant_update_message".to_string())].into(),
            ..Faults::default()
        };
        let mut choose = f.chooser();
        let (mut limited, mut failed, mut ok) = (0, 0, 0);
        for _ in 0..10_000 {
            match choose("chat.postMessage") {
                Reply::RateLimited(4) => limited += 1,
                Reply::Status(503) => failed += 1,
                Reply::Ok => ok += 1,
                other => panic!("{other:?}"),
            }
        }
        assert!((800..1200).contains(&limited) && (1700..2300).contains(&failed) && ok > 6500, "{limited} {failed} {ok}");
        assert!(matches!(choose("chat.update"), Reply::Error("cant_update_message")));
        let slow = Faults { slow_ms: 30, ..Faults::default() };
        assert!(matches!(slow.chooser()("auth.test"), Reply::Delay(d, _) if d == Duration::from_millis(30)));
    }
}
