//! The test hooks, read once per request into one [`TestHooks`] value, and only when
//! `ALLOW_TEST_CLOCK=1` (never in production): a request may set the clock (signature
//! timestamps, install states, idempotency keys), slow the team actor down (to exceed an ack
//! budget), name its client address (for the failed-token lockout; locally every request comes
//! from 127.0.0.1), or make the app's handler fail on it (to test `handler_failed`). The Worker
//! forwards the clock, the delay and the failure to the actor with the request.

use super::header;
use crate::config::Config;
use worker::{Headers, Request};

/// `x-slackline-test-now`: the clock, epoch ms.
pub const NOW: &str = "x-slackline-test-now";
/// `x-slackline-test-actor-delay-ms`: the team actor waits this long before it answers.
pub const ACTOR_DELAY: &str = "x-slackline-test-actor-delay-ms";
/// `x-slackline-test-client-ip`: the client address the lockout counts against.
pub const CLIENT_IP: &str = "x-slackline-test-client-ip";
/// `x-slackline-test-handler-fails`: the app's handler fails on this request, with this error.
pub const HANDLER_FAILS: &str = "x-slackline-test-handler-fails";

/// A request's test hooks (all `None` unless `ALLOW_TEST_CLOCK=1`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TestHooks {
    /// The clock.
    pub now_ms: Option<i64>,
    /// How long the team actor waits before its unit.
    pub actor_delay_ms: Option<u64>,
    /// The client address.
    pub client_ip: Option<String>,
    /// The handler fails on this request, with this error.
    pub handler_fails: Option<String>,
}

impl TestHooks {
    /// The hooks `req` carries, if the deployment allows them.
    pub fn read(req: &Request, config: &Config) -> TestHooks {
        if !config.allow_test_clock {
            return TestHooks::default();
        }
        TestHooks {
            now_ms: header(req, NOW).and_then(|v| v.parse().ok()),
            actor_delay_ms: header(req, ACTOR_DELAY).and_then(|v| v.parse().ok()),
            client_ip: header(req, CLIENT_IP),
            handler_fails: header(req, HANDLER_FAILS),
        }
    }

    /// Whether any hook the team actor reads (the clock, the delay, the failure) is set.
    pub fn for_the_actor(&self) -> bool {
        self.now_ms.is_some() || self.actor_delay_ms.is_some() || self.handler_fails.is_some()
    }

    /// Adds the hooks the team actor reads (the clock, the delay, the failure) to a forwarded
    /// request.
    pub fn forward(&self, headers: &Headers) -> worker::Result<()> {
        if let Some(now) = self.now_ms {
            headers.set(NOW, &now.to_string())?;
        }
        if let Some(delay) = self.actor_delay_ms {
            headers.set(ACTOR_DELAY, &delay.to_string())?;
        }
        if let Some(why) = &self.handler_fails {
            headers.set(HANDLER_FAILS, why)?;
        }
        Ok(())
    }

    /// Waits the asked delay, if any (in the team actor).
    pub async fn delay(&self) {
        if let Some(ms) = self.actor_delay_ms {
            worker::Delay::from(std::time::Duration::from_millis(ms)).await;
        }
    }
}
