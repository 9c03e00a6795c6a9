//! Failed-token lockout, pure: a client (by `CF-Connecting-IP`) that sends
//! [`MAX_FAILURES`] wrong tokens within [`WINDOW_MS`] is refused (429 with `Retry-After`) until the
//! oldest of those failures leaves the window, whatever token it sends meanwhile. The Worker keeps
//! one [`Lockout`] per isolate (see `docs/operations.md` for that trade-off); memory is bounded by
//! [`MAX_CLIENTS`].

use std::collections::{HashMap, VecDeque};

/// Failures allowed per window.
pub const MAX_FAILURES: usize = 10;
/// The window: one minute.
pub const WINDOW_MS: i64 = 60_000;
/// The most clients remembered; past it, the client whose last failure is oldest is forgotten.
pub const MAX_CLIENTS: usize = 10_000;

/// Failed attempts per client.
#[derive(Debug, Default)]
pub struct Lockout {
    failures: HashMap<String, VecDeque<i64>>,
}

impl Lockout {
    fn forget_old(&mut self, client: &str, now: i64) {
        if let Some(times) = self.failures.get_mut(client) {
            while times.front().is_some_and(|t| *t <= now - WINDOW_MS) {
                times.pop_front();
            }
            if times.is_empty() {
                self.failures.remove(client);
            }
        }
    }

    /// `Err(retry_after_ms)` while `client` is locked out.
    pub fn check(&mut self, client: &str, now: i64) -> Result<(), i64> {
        self.forget_old(client, now);
        match self.failures.get(client) {
            Some(times) if times.len() >= MAX_FAILURES => Err(times.front().map_or(WINDOW_MS, |first| first + WINDOW_MS - now).max(1)),
            _ => Ok(()),
        }
    }

    /// Counts a wrong token from `client`.
    pub fn fail(&mut self, client: &str, now: i64) {
        self.forget_old(client, now);
        if !self.failures.contains_key(client) && self.failures.len() >= MAX_CLIENTS {
            let stalest = self.failures.iter().min_by_key(|(_, t)| t.back().copied().unwrap_or(i64::MIN)).map(|(c, _)| c.clone());
            if let Some(stalest) = stalest {
                self.failures.remove(&stalest);
            }
        }
        let times = self.failures.entry(client.to_string()).or_default();
        times.push_back(now);
        while times.len() > MAX_FAILURES {
            times.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_failures_in_a_minute_lock_the_client_until_the_first_leaves_the_window() {
        let mut l = Lockout::default();
        for i in 0..MAX_FAILURES as i64 {
            assert_eq!(l.check("1.2.3.4", 1_000 + i), Ok(()));
            l.fail("1.2.3.4", 1_000 + i);
        }
        assert_eq!(l.check("1.2.3.4", 2_000), Err(59_000));
        assert_eq!(l.check("5.6.7.8", 2_000), Ok(()), "another client is not affected");
        assert_eq!(l.check("1.2.3.4", 61_000), Ok(()), "the first failure left the window");
    }

    #[test]
    fn failures_spread_over_more_than_a_minute_never_lock() {
        let mut l = Lockout::default();
        for i in 0..30 {
            l.fail("c", i * 7_000);
            assert_eq!(l.check("c", i * 7_000), Ok(()));
        }
    }

    #[test]
    fn memory_is_bounded() {
        let mut l = Lockout::default();
        for i in 0..(MAX_CLIENTS + 50) {
            l.fail(&format!("c{i}"), i as i64);
        }
        assert_eq!(l.failures.len(), MAX_CLIENTS);
        assert!(!l.failures.contains_key("c0"), "the stalest client was forgotten");
    }
}
