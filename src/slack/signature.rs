//! Slack request signing: `v0=` + hex(HMAC-SHA256(signing secret, `v0:{timestamp}:{raw body}`)).
//!
//! Invariants:
//! - the MAC is computed over the raw body bytes, before any parsing;
//! - the comparison is constant-time (`Mac::verify_slice`), so timing says nothing about how many
//!   leading bytes of a forged signature were right;
//! - a timestamp more than [`MAX_SKEW_SECS`] away from `now` in either direction is refused, which
//!   bounds how long a captured request can be replayed;
//! - nothing here formats the expected MAC or the secret: errors carry no secret material.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// How far (seconds) a request's timestamp may be from our clock, both ways (Slack's own SDKs use 5 min).
pub const MAX_SKEW_SECS: i64 = 300;

/// The signing secret. Its contents never appear in `Debug` output or logs.
#[derive(Clone)]
pub struct SigningSecret(String);

impl SigningSecret {
    /// A secret from configuration; `None` when it is missing or empty (never "verify nothing").
    pub fn parse(raw: Option<String>) -> Option<SigningSecret> {
        raw.map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).map(SigningSecret)
    }

    fn mac(&self, timestamp: &str, body: &[u8]) -> Hmac<Sha256> {
        let mut mac = Hmac::<Sha256>::new_from_slice(self.0.as_bytes()).expect("HMAC accepts keys of any length");
        mac.update(b"v0:");
        mac.update(timestamp.as_bytes());
        mac.update(b":");
        mac.update(body);
        mac
    }

    /// The `x-slack-signature` value Slack would send for this request (used by tests and tools).
    pub fn sign(&self, timestamp: &str, body: &[u8]) -> String {
        format!("v0={}", hex::encode(self.mac(timestamp, body).finalize().into_bytes()))
    }
}

impl std::fmt::Debug for SigningSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningSecret(<redacted>)")
    }
}

/// Why a request's signature was refused. Every variant maps to 401.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignatureError {
    /// `x-slack-request-timestamp` or `x-slack-signature` is absent.
    MissingHeader,
    /// The timestamp is not an integer, or the signature is not `v0=` + 64 hex digits.
    MalformedHeader,
    /// The timestamp is more than [`MAX_SKEW_SECS`] from our clock (a replay or a bad clock).
    StaleTimestamp,
    /// The MAC does not match.
    Mismatch,
}

impl std::fmt::Display for SignatureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

impl std::error::Error for SignatureError {}

impl SignatureError {
    /// A short, stable label for logs (says nothing a forger could use).
    pub fn label(self) -> &'static str {
        match self {
            SignatureError::MissingHeader => "missing_signature_header",
            SignatureError::MalformedHeader => "malformed_signature_header",
            SignatureError::StaleTimestamp => "stale_timestamp",
            SignatureError::Mismatch => "bad_signature",
        }
    }
}

/// Checks one request. `now_secs` is passed in so tests control the clock.
pub fn verify(secret: &SigningSecret, timestamp: Option<&str>, signature: Option<&str>, body: &[u8], now_secs: i64) -> Result<(), SignatureError> {
    let (Some(timestamp), Some(signature)) = (timestamp, signature) else {
        return Err(SignatureError::MissingHeader);
    };
    let ts: i64 = timestamp.trim().parse().map_err(|_| SignatureError::MalformedHeader)?;
    let given = signature
        .strip_prefix("v0=")
        .filter(|hex_part| hex_part.len() == 64)
        .and_then(|hex_part| hex::decode(hex_part).ok())
        .ok_or(SignatureError::MalformedHeader)?;
    if now_secs.abs_diff(ts) > MAX_SKEW_SECS as u64 {
        return Err(SignatureError::StaleTimestamp);
    }
    secret.mac(timestamp, body).verify_slice(&given).map_err(|_| SignatureError::Mismatch)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The worked example from Slack's "Verifying requests from Slack" page.
    const DOC_SECRET: &str = "8f742231b10e8888abcd99yyyzzz85a5";
    const DOC_TS: &str = "1531420618";
    const DOC_BODY: &str = "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
    const DOC_SIG: &str = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";

    fn secret() -> SigningSecret {
        SigningSecret::parse(Some(DOC_SECRET.into())).unwrap()
    }

    fn check(ts: &str, sig: &str, now: i64) -> Result<(), SignatureError> {
        verify(&secret(), Some(ts), Some(sig), DOC_BODY.as_bytes(), now)
    }

    #[test]
    fn slacks_documented_example_verifies() {
        assert_eq!(secret().sign(DOC_TS, DOC_BODY.as_bytes()), DOC_SIG);
        assert_eq!(check(DOC_TS, DOC_SIG, 1531420618), Ok(()));
    }

    #[test]
    fn a_changed_body_byte_is_a_mismatch() {
        let body = DOC_BODY.replace("roadrunner", "roadrunnes");
        let got = verify(&secret(), Some(DOC_TS), Some(DOC_SIG), body.as_bytes(), 1531420618);
        assert_eq!(got, Err(SignatureError::Mismatch));
    }

    #[test]
    fn a_timestamp_older_than_five_minutes_is_rejected() {
        assert_eq!(check(DOC_TS, DOC_SIG, 1531420618 + 301), Err(SignatureError::StaleTimestamp));
        assert_eq!(check(DOC_TS, DOC_SIG, 1531420618 + 300), Ok(()));
    }

    #[test]
    fn a_timestamp_from_the_future_is_rejected_too() {
        assert_eq!(check(DOC_TS, DOC_SIG, 1531420618 - 301), Err(SignatureError::StaleTimestamp));
        assert_eq!(check(DOC_TS, DOC_SIG, 1531420618 - 300), Ok(()));
    }

    #[test]
    fn missing_headers_are_refused() {
        let body = DOC_BODY.as_bytes();
        assert_eq!(verify(&secret(), None, Some(DOC_SIG), body, 0), Err(SignatureError::MissingHeader));
        assert_eq!(verify(&secret(), Some(DOC_TS), None, body, 0), Err(SignatureError::MissingHeader));
    }

    #[test]
    fn malformed_headers_are_refused_before_any_mac() {
        for (ts, sig) in [
            ("abc", DOC_SIG),
            (DOC_TS, "v1=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503"),
            (DOC_TS, "v0=zz114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503"),
            (DOC_TS, "v0=a2114d"),
            (DOC_TS, ""),
        ] {
            assert_eq!(check(ts, sig, 1531420618), Err(SignatureError::MalformedHeader), "{ts} {sig}");
        }
    }

    #[test]
    fn an_empty_or_blank_secret_is_no_secret() {
        assert!(SigningSecret::parse(None).is_none());
        assert!(SigningSecret::parse(Some(String::new())).is_none());
        assert!(SigningSecret::parse(Some("  ".into())).is_none());
    }

    #[test]
    fn debug_output_never_shows_the_secret() {
        assert!(!format!("{:?}", secret()).contains(DOC_SECRET));
    }
}
