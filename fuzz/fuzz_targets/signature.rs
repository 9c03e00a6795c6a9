//! Signature verification never panics on any headers and body, and what we sign always verifies
//! (and stops verifying when one byte of the body changes).
#![no_main]
use libfuzzer_sys::fuzz_target;
use slackline::internal::slack::signature::{verify, SigningSecret};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.splitn(4, '\n');
    let (secret, ts, sig, body) = (parts.next().unwrap_or(""), parts.next(), parts.next(), parts.next().unwrap_or(""));
    let Some(secret) = SigningSecret::parse(Some(secret.to_string())) else { return };
    let now = ts.and_then(|t| t.trim().parse::<i64>().ok()).unwrap_or(0);
    let _ = verify(&secret, ts, sig, body.as_bytes(), now);
    if let Some(ts) = ts.filter(|t| t.trim().parse::<i64>().is_ok()) {
        let good = secret.sign(ts, body.as_bytes());
        assert!(verify(&secret, Some(ts), Some(&good), body.as_bytes(), now).is_ok());
        let mut changed = body.as_bytes().to_vec();
        changed.push(b'!');
        assert!(verify(&secret, Some(ts), Some(&good), &changed, now).is_err());
    }
});
