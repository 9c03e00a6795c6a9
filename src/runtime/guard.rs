//! Failed-token lockout at the front door ([`crate::lockout`]): a client that sent too many wrong
//! `API_TOKEN`s or `ADMIN_TOKEN`s (bearer or login form) in a minute gets 429 with `Retry-After`
//! on every `/api/…` and `/admin/…` route until the window passes.
//!
//! The counts live in the isolate's memory, not in a Durable Object: checking costs nothing on the
//! request path and needs no actor call, at the price that each isolate (and each Cloudflare
//! location) counts on its own, so a client spread over many isolates gets more attempts, and a
//! counter is lost when its isolate is evicted. Against a 32-byte random token this only has to
//! slow guessing down, not make it impossible; see `docs/operations.md`.

use super::error::FrontDoorError;
use super::{clock, header};
use crate::config::Config;
use crate::lockout::Lockout;
use std::cell::RefCell;
use worker::Request;

thread_local! {
    static LOCKOUT: RefCell<Lockout> = RefCell::new(Lockout::default());
}

/// Tests only (`ALLOW_TEST_CLOCK=1`): the client address to count against (locally every request
/// comes from 127.0.0.1).
pub const TEST_CLIENT_IP: &str = "x-slackline-test-client-ip";

/// Who is asking: `CF-Connecting-IP` (set by Cloudflare, not by the client).
pub fn client(req: &Request, config: &Config) -> String {
    let test_ip = config.allow_test_clock.then(|| header(req, TEST_CLIENT_IP)).flatten();
    test_ip.or_else(|| header(req, "cf-connecting-ip")).unwrap_or_else(|| "unknown".into())
}

/// Refuses a locked-out client.
pub fn check(client: &str) -> Result<(), FrontDoorError> {
    let now = clock::now_ms();
    LOCKOUT.with(|l| l.borrow_mut().check(client, now)).map_err(|wait_ms| FrontDoorError::LockedOut { retry_after_s: (wait_ms + 999) / 1000 })
}

/// Counts a wrong token from `client`.
pub fn failed(client: &str) {
    let now = clock::now_ms();
    LOCKOUT.with(|l| l.borrow_mut().fail(client, now));
}
