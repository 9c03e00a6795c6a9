//! Time and randomness for the adapters. The pure core never reads either: it is passed
//! `now_ms` and `jitter` by the callers here.

/// Milliseconds since the epoch (the Workers clock, which advances across I/O).
pub fn now_ms() -> i64 {
    worker::Date::now().as_millis() as i64
}

/// A number in `[0, 1)` for backoff jitter.
pub fn jitter() -> f64 {
    worker::js_sys::Math::random()
}

/// A fresh claim token: unique per sweep run, so a completion can be fenced by it.
pub fn claim_token() -> String {
    let a = (worker::js_sys::Math::random() * 9_007_199_254_740_991.0) as u64;
    let b = (worker::js_sys::Math::random() * 9_007_199_254_740_991.0) as u64;
    format!("{:x}-{a:x}{b:x}", now_ms())
}
