//! When to try again: a fixed schedule with ±20 % jitter, a maximum attempt count, and `Retry-After`
//! honoured exactly. Randomness is passed in (`jitter` in `[0, 1)`), so every result is reproducible.

/// The default delays after attempt 1, 2, 3, ...: 1 s, 5 s, 30 s, 2 min, 10 min (the last repeats).
pub const DEFAULT_SCHEDULE_MS: &[i64] = &[1_000, 5_000, 30_000, 120_000, 600_000];
/// Default maximum attempts per row (`MAX_ATTEMPTS`): the first try and 5 retries.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 6;
/// Jitter spreads each delay by up to this fraction either way.
pub const JITTER_FRACTION: f64 = 0.2;

/// The retry policy of one deployment.
///
/// Invariant: the schedule is never empty — [`RetryPolicy::new`] refuses an empty one, and the
/// field is private, so no caller can empty it afterwards.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Delay after the n-th failed attempt (index n-1); the last entry repeats.
    schedule_ms: Vec<i64>,
    /// Attempts after which a transient failure parks the row as `attempts_exhausted`.
    pub max_attempts: u32,
}

/// A retry schedule with no delay in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmptySchedule;

impl std::fmt::Display for EmptySchedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a retry schedule needs at least one delay")
    }
}

impl std::error::Error for EmptySchedule {}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy { schedule_ms: DEFAULT_SCHEDULE_MS.to_vec(), max_attempts: DEFAULT_MAX_ATTEMPTS }
    }
}

impl RetryPolicy {
    /// A policy with these delays (after attempt 1, 2, …; the last repeats), or why not.
    pub fn new(schedule_ms: Vec<i64>, max_attempts: u32) -> Result<RetryPolicy, EmptySchedule> {
        if schedule_ms.is_empty() {
            return Err(EmptySchedule);
        }
        Ok(RetryPolicy { schedule_ms, max_attempts })
    }

    /// The delays after attempt 1, 2, …; the last repeats. Never empty.
    pub fn schedule_ms(&self) -> &[i64] {
        &self.schedule_ms
    }

    /// The delay after `attempts` failed attempts (1-based), before jitter.
    pub fn base_delay_ms(&self, attempts: u32) -> i64 {
        let index = (attempts.max(1) as usize - 1).min(self.schedule_ms.len() - 1);
        self.schedule_ms[index]
    }

    /// When the next attempt is due: `Retry-After` exactly when given, else the schedule with
    /// `jitter` in `[0, 1)` mapped to a factor in `[0.8, 1.2)`.
    pub fn next_attempt_at(&self, attempts: u32, now_ms: i64, jitter: f64, retry_after_ms: Option<i64>) -> i64 {
        if let Some(exact) = retry_after_ms {
            return now_ms + exact;
        }
        let factor = 1.0 + JITTER_FRACTION * (2.0 * jitter.clamp(0.0, 1.0) - 1.0);
        now_ms + (self.base_delay_ms(attempts) as f64 * factor).round() as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_schedule_is_refused_when_the_policy_is_made() {
        assert_eq!(RetryPolicy::new(Vec::new(), 3), Err(EmptySchedule));
        let p = RetryPolicy::new(vec![7], 3).unwrap();
        assert_eq!((p.schedule_ms(), p.base_delay_ms(1), p.base_delay_ms(9)), (&[7][..], 7, 7));
    }

    #[test]
    fn the_schedule_grows_then_repeats_its_last_step() {
        let p = RetryPolicy::default();
        let delays: Vec<i64> = (1..=7).map(|a| p.base_delay_ms(a)).collect();
        assert_eq!(delays, vec![1_000, 5_000, 30_000, 120_000, 600_000, 600_000, 600_000]);
    }

    #[test]
    fn jitter_stays_within_twenty_percent() {
        let p = RetryPolicy::default();
        assert_eq!(p.next_attempt_at(2, 0, 0.0, None), 4_000);
        assert_eq!(p.next_attempt_at(2, 0, 0.5, None), 5_000);
        assert_eq!(p.next_attempt_at(2, 0, 0.999_999, None), 6_000);
        for i in 0..100 {
            let at = p.next_attempt_at(3, 1_000, i as f64 / 100.0, None);
            assert!((1_000 + 24_000..=1_000 + 36_000).contains(&at), "{at}");
        }
    }

    #[test]
    fn retry_after_is_honoured_exactly_without_jitter() {
        let p = RetryPolicy::default();
        assert_eq!(p.next_attempt_at(1, 10_000, 0.9, Some(2_000)), 12_000);
    }

    #[test]
    fn the_same_inputs_give_the_same_time() {
        let p = RetryPolicy::default();
        assert_eq!(p.next_attempt_at(4, 7, 0.3, None), p.next_attempt_at(4, 7, 0.3, None));
    }
}
