//! When a scheduled effect falls due, and how often it repeats: plain time values, with no
//! knowledge of effects, so the effect that carries one ([`crate::kinds::registry::Action::Scheduled`])
//! and the scheduling logic beside it ([`super`]: keys, recurrence, cancel) both build on it
//! without importing each other in a circle.

use serde::{Deserialize, Serialize};

/// A minute, in ms (for `When::after(30 * MINUTE_MS)`).
pub const MINUTE_MS: i64 = 60_000;
/// A day, in ms (for `When::at(t).every(DAY_MS)`).
pub const DAY_MS: i64 = 24 * 60 * MINUTE_MS;
/// The shortest interval of a recurring schedule: a minute (a tighter loop is a busy outbox).
pub const MIN_EVERY_MS: i64 = MINUTE_MS;

/// When a scheduled effect first falls due.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Due {
    /// At this time (epoch ms).
    At(i64),
    /// This long after the request that scheduled it is recorded (resolved to `At` then).
    After(i64),
}

/// When a scheduled effect falls due, and how often it repeats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct When {
    /// The first occurrence.
    pub due: Due,
    /// Repeat this often after it (at least [`MIN_EVERY_MS`]), if at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every_ms: Option<i64>,
}

impl When {
    /// At `epoch_ms` (in the past: as soon as possible).
    pub fn at(epoch_ms: i64) -> When {
        When { due: Due::At(epoch_ms), every_ms: None }
    }

    /// `ms` after the request is recorded.
    pub fn after(ms: i64) -> When {
        When { due: Due::After(ms.max(0)), every_ms: None }
    }

    /// And again every `ms` (at least [`MIN_EVERY_MS`]) until cancelled.
    pub fn every(self, ms: i64) -> When {
        When { every_ms: Some(ms.max(MIN_EVERY_MS)), ..self }
    }

    /// The due time, for a request recorded at `now`.
    pub fn due_at(&self, now: i64) -> i64 {
        match self.due {
            Due::At(at) => at,
            Due::After(ms) => now + ms,
        }
    }

    /// The same schedule with its due time fixed (`After` resolved against `now`).
    pub fn resolved(self, now: i64) -> When {
        When { due: Due::At(self.due_at(now)), ..self }
    }
}
