//! Time and randomness for the adapters. The pure core never reads either: it is passed
//! `now_ms`, `jitter` and nonces by the callers here.

/// Milliseconds since the epoch (the Workers clock, which advances across I/O).
pub fn now_ms() -> i64 {
    worker::Date::now().as_millis() as i64
}

/// A number in `[0, 1)` for backoff jitter (not security-sensitive).
pub fn jitter() -> f64 {
    worker::js_sys::Math::random()
}

/// `N` random bytes from the runtime's `crypto.getRandomValues`.
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    getrandom::getrandom(&mut bytes).expect("crypto.getRandomValues is available in Workers");
    bytes
}

/// 128 random bits as hex: claim tokens and OAuth state nonces.
pub fn random_hex() -> String {
    hex::encode(random_bytes::<16>())
}

/// A fresh claim token: unique per sweep run (or actor instance, for the rows it claims as it
/// inserts them), so a completion can be fenced by it. It names how many attempts its instance
/// runs at once (`{concurrency}:{random}`): a later instance reads that to tell which of the
/// token's rows may have been at Slack when the instance died (`sql::outbox::UNTOUCHED_DEAD_CLAIMS`).
pub fn claim_token(concurrency: usize) -> crate::outbox::ClaimToken {
    crate::outbox::ClaimToken::new(format!("{concurrency}:{}", random_hex()))
}
