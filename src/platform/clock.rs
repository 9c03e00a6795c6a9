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

/// A fresh claim token: unique per sweep run, so a completion can be fenced by it.
pub fn claim_token() -> crate::outbox::ClaimToken {
    crate::outbox::ClaimToken::new(random_hex())
}
