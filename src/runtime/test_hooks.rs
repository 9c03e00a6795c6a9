//! The test hooks, read once per request into one [`TestHooks`] value, and only when
//! `ALLOW_TEST_CLOCK=1` (never in production): a request may set the clock (signature
//! timestamps, install states, idempotency keys, and the time a scheduled effect's `after` counts
//! from: a test that says "this request came 29 minutes ago" sees its 30-minute reminder fall due
//! a minute later; the row itself is queued by the real clock; on an admin sweep, the schedules
//! due by then fire in it, as `slackline-sim advance` asks), slow the team actor down (to
//! exceed an ack budget), hold or skip the ingest's alarm (issue 33's race, and the defect the
//! alarm's safety net catches), name its client address (for the failed-token lockout; locally
//! every request comes from 127.0.0.1), or make the app's handler fail on it (to test
//! `handler_failed`); `TEST_PANIC_MARKER` makes the handlers panic instead ([`HookedApp`]), and a
//! schedule's firing whose key contains it. The
//! Worker forwards the clock, the delays, the alarm hooks and the failure to the actor with the
//! request.
//!
//! Test scaffolding: only a build with slackline's `testkit` feature (the tests' and benchmarks'
//! `make worker TESTKIT=1`) reads a hook or serves the tally; in a production build [`TestHooks`]
//! is always empty and [`HookedApp`] is the app itself.

#[cfg(feature = "testkit")]
use super::header;
#[cfg(feature = "testkit")]
use crate::app::{listen::Listeners, tally};
use crate::app::{App, Context, HandlerOutput};
use crate::config::Config;
use crate::slack::envelope::Dispatch;
use worker::{Headers, Request};

/// `x-slackline-test-now`: the clock, epoch ms.
pub const NOW: &str = "x-slackline-test-now";
/// `x-slackline-test-actor-delay-ms`: the team actor waits this long before it answers.
pub const ACTOR_DELAY: &str = "x-slackline-test-actor-delay-ms";
/// `x-slackline-test-client-ip`: the client address the lockout counts against.
pub const CLIENT_IP: &str = "x-slackline-test-client-ip";
/// `x-slackline-test-handler-fails`: the app's handler fails on this request, with this error.
pub const HANDLER_FAILS: &str = "x-slackline-test-handler-fails";
/// `x-slackline-test-arm-hold-ms`: after its `setAlarm` returns, the ingest waits until a sweep of
/// this instance has ended, or this long (issue 33's window: the alarm the ingest set fired, swept
/// and re-armed before the ingest went on).
pub const ARM_HOLD: &str = "x-slackline-test-arm-hold-ms";
/// `x-slackline-test-skip-arm`: the ingest queues its rows and sets no alarm (the defect the
/// alarm's safety net must catch).
pub const SKIP_ARM: &str = "x-slackline-test-skip-arm";

/// Passes a test clock on to another actor's request (as [`NOW`]). A production build has no test
/// clock, and no trace of this header in its bundle (scripts/check-production-bundle.sh).
pub fn pass_clock(headers: &Headers, now_ms: Option<i64>) -> worker::Result<()> {
    #[cfg(feature = "testkit")]
    if let Some(at) = now_ms {
        headers.set(NOW, &at.to_string())?;
    }
    #[cfg(not(feature = "testkit"))]
    let _ = (headers, now_ms);
    Ok(())
}

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
    /// How long at most the ingest waits for a sweep to end after its `setAlarm` returns.
    pub arm_hold_ms: Option<u64>,
    /// The ingest sets no alarm.
    pub skip_arm: bool,
}

impl TestHooks {
    /// None: a production build reads no hook.
    #[cfg(not(feature = "testkit"))]
    pub fn read(_: &Request, _: &Config) -> TestHooks {
        TestHooks::default()
    }

    /// The hooks `req` carries, if the deployment allows them.
    #[cfg(feature = "testkit")]
    pub fn read(req: &Request, config: &Config) -> TestHooks {
        if !config.allow_test_clock {
            return TestHooks::default();
        }
        TestHooks {
            now_ms: header(req, NOW).and_then(|v| v.parse().ok()),
            actor_delay_ms: header(req, ACTOR_DELAY).and_then(|v| v.parse().ok()),
            client_ip: header(req, CLIENT_IP),
            handler_fails: header(req, HANDLER_FAILS),
            arm_hold_ms: header(req, ARM_HOLD).and_then(|v| v.parse().ok()),
            skip_arm: header(req, SKIP_ARM).is_some_and(|v| v == "1"),
        }
    }

    /// Whether any hook the team actor reads (the clock, the delays, the failure, the alarm) is
    /// set.
    pub fn for_the_actor(&self) -> bool {
        self.now_ms.is_some() || self.actor_delay_ms.is_some() || self.handler_fails.is_some() || self.arm_hold_ms.is_some() || self.skip_arm
    }

    /// Nothing: a production build has no hook to forward (and no trace of their headers in its
    /// bundle: scripts/check-production-bundle.sh).
    #[cfg(not(feature = "testkit"))]
    pub fn forward(&self, _: &Headers) -> worker::Result<()> {
        Ok(())
    }

    /// Adds the hooks the team actor reads (the clock, the delays, the failure, the alarm) to a
    /// forwarded request.
    #[cfg(feature = "testkit")]
    pub fn forward(&self, headers: &Headers) -> worker::Result<()> {
        if let Some(hold) = self.arm_hold_ms {
            headers.set(ARM_HOLD, &hold.to_string())?;
        }
        if self.skip_arm {
            headers.set(SKIP_ARM, "1")?;
        }
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

/// The app as the end-to-end tests may break it: with `TEST_PANIC_MARKER` set (test runtimes
/// only), its handlers panic on any request whose payload contains the marker, as a buggy handler
/// would; otherwise it is the app itself. A runtime restarted without the marker is the "fixed"
/// deployment a redrive then runs. With `ALLOW_TEST_CLOCK=1`, a request naming the tally's marker
/// (`crate::app::tally`) goes to the tally instead: the state tests' counter, served by the shared
/// runtime beside the echo bot.
pub struct HookedApp<'a> {
    app: &'a dyn App,
    #[cfg(feature = "testkit")]
    panic_marker: Option<&'a str>,
    #[cfg(feature = "testkit")]
    tally: Option<&'static Listeners>,
}

#[cfg(feature = "testkit")]
thread_local! {
    /// The tally, built once per isolate.
    static TALLY: &'static Listeners = Box::leak(Box::new(tally::tally()));
}

impl<'a> HookedApp<'a> {
    /// The app itself (a production build).
    #[cfg(not(feature = "testkit"))]
    pub fn of(app: &'a dyn App, _: &'a Config) -> HookedApp<'a> {
        HookedApp { app }
    }

    #[cfg(not(feature = "testkit"))]
    fn app(&self, _: &Dispatch) -> &'a dyn App {
        self.app
    }

    #[cfg(not(feature = "testkit"))]
    fn is_tally_secret(&self, _: &str) -> bool {
        false
    }

    #[cfg(not(feature = "testkit"))]
    fn check_firing(&self, _: &crate::app::Fired) {}

    #[cfg(not(feature = "testkit"))]
    fn answerer(&self, _: &str) -> &'a dyn App {
        self.app
    }

    /// The app whose result listener `listener` is: the tally's own go to the tally.
    #[cfg(feature = "testkit")]
    fn answerer(&self, listener: &str) -> &'a dyn App {
        match self.tally {
            Some(tally) if listener == tally::WHOIS => tally,
            _ => self.app,
        }
    }

    /// A firing whose key contains `TEST_PANIC_MARKER` panics, as a buggy `on_schedule` listener
    /// would.
    #[cfg(feature = "testkit")]
    fn check_firing(&self, fired: &crate::app::Fired) {
        if let Some(marker) = self.panic_marker.filter(|m| fired.key.contains(m)) {
            panic!("TEST_PANIC_MARKER {marker:?} in the schedule's key");
        }
    }

    /// The app under this deployment's settings.
    #[cfg(feature = "testkit")]
    pub fn of(app: &'a dyn App, config: &'a Config) -> HookedApp<'a> {
        let tally = config.allow_test_clock.then(|| TALLY.with(|t| *t));
        HookedApp { app, panic_marker: config.test_panic_marker.as_deref(), tally }
    }

    #[cfg(feature = "testkit")]
    fn is_tally_secret(&self, key: &str) -> bool {
        self.tally.is_some_and(|t| t.is_secret_state(key))
    }

    #[cfg(feature = "testkit")]
    fn app(&self, request: &Dispatch) -> &'a dyn App {
        if self.panic_marker.is_none() && self.tally.is_none() {
            return self.app;
        }
        let text = serde_json::to_string(request).unwrap_or_default();
        if let Some(marker) = self.panic_marker.filter(|m| text.contains(m)) {
            panic!("TEST_PANIC_MARKER {marker:?} in the request");
        }
        match self.tally {
            Some(tally) if text.contains(tally::MARKER) || text.contains(tally::UPDATE_ACTION) => tally,
            _ => self.app,
        }
    }
}

impl crate::app::sealed::Sealed for HookedApp<'_> {}

impl App for HookedApp<'_> {
    fn handle(&self, request: &Dispatch, ctx: &Context) -> HandlerOutput {
        self.app(request).handle(request, ctx)
    }
    fn fire(&self, fired: &crate::app::Fired, ctx: &Context) -> HandlerOutput {
        self.check_firing(fired);
        self.app.fire(fired, ctx)
    }
    fn is_secret_state(&self, key: &str) -> bool {
        self.app.is_secret_state(key) || self.is_tally_secret(key)
    }
    fn answered(&self, answered: &crate::kinds::answer::Answered, ctx: &Context) -> HandlerOutput {
        self.answerer(&answered.listener).answered(answered, ctx)
    }
}
