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
use super::header;
use super::test_hooks::TestHooks;
use crate::lockout::Lockout;
use crate::platform::clock;
use std::cell::RefCell;
use worker::Request;

thread_local! {
    static LOCKOUT: RefCell<Lockout> = RefCell::new(Lockout::default());
}

/// Who is asking: `CF-Connecting-IP` (set by Cloudflare, not by the client); in tests, the
/// address the test hooks name.
pub fn client(req: &Request, hooks: &TestHooks) -> String {
    hooks.client_ip.clone().or_else(|| header(req, "cf-connecting-ip")).unwrap_or_else(|| "unknown".into())
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
