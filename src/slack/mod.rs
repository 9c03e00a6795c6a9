//! Slack's side of the wire, pure: request signatures, envelope parsing, and what Slack's answers
//! mean. Nothing here does I/O or imports `worker`.

pub mod classify;
pub mod envelope;
pub mod method;
pub mod rate_limited;
pub mod signature;
pub mod tiers;
