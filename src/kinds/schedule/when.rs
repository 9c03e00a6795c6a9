//! When a scheduled effect falls due, and how often it repeats: plain time values, with no
//! knowledge of effects, so the effect that carries one ([`crate::kinds::registry::Action::Scheduled`])
//! and the scheduling logic beside it ([`super`]: keys, recurrence, cancel) both build on it
//! without importing each other in a circle.

use super::calendar::{Calendar, CalendarError, Days};
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
#[non_exhaustive]
pub enum Due {
    /// At this time (epoch ms).
    At(i64),
    /// This long after the request that scheduled it is recorded (resolved to `At` then).
    After(i64),
    /// The calendar's first time after the request that scheduled it (resolved to `At` then).
    Next,
}

/// When a scheduled effect falls due, and how often it repeats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct When {
    /// The first occurrence.
    pub due: Due,
    /// Repeat this often after it (at least [`MIN_EVERY_MS`]), if at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every_ms: Option<i64>,
    /// Repeat at each of this calendar's times (`When::daily_at`, `When::cron`): the next
    /// occurrence is the calendar's, never "the last one plus an interval", so nothing drifts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calendar: Option<Calendar>,
}

impl When {
    /// At `epoch_ms` (in the past: as soon as possible).
    pub fn at(epoch_ms: i64) -> When {
        When { due: Due::At(epoch_ms), every_ms: None, calendar: None }
    }

    /// `ms` after the request is recorded.
    pub fn after(ms: i64) -> When {
        When { due: Due::After(ms.max(0)), every_ms: None, calendar: None }
    }

    /// And again every `ms` (at least [`MIN_EVERY_MS`]) until cancelled.
    pub fn every(self, ms: i64) -> When {
        When { every_ms: Some(ms.max(MIN_EVERY_MS)), calendar: None, ..self }
    }

    /// At each of `calendar`'s times, the first after the request, until cancelled.
    pub fn calendar(calendar: Calendar) -> When {
        When { due: Due::Next, every_ms: None, calendar: Some(calendar) }
    }

    /// Every day at `hour:minute` in `zone` (an IANA name: `When::daily_at(9, 0, "Europe/Berlin")`),
    /// daylight saving applied (`crate::kinds::schedule::calendar`).
    pub fn daily_at(hour: u32, minute: u32, zone: &str) -> Result<When, CalendarError> {
        When::on(Days::EVERY_DAY, hour, minute, zone)
    }

    /// Monday to Friday at `hour:minute` in `zone`.
    pub fn weekdays_at(hour: u32, minute: u32, zone: &str) -> Result<When, CalendarError> {
        When::on(Days::WEEKDAYS, hour, minute, zone)
    }

    /// Every week on `day` (`Days::MONDAY`) at `hour:minute` in `zone`.
    pub fn weekly_at(day: Days, hour: u32, minute: u32, zone: &str) -> Result<When, CalendarError> {
        When::on(day, hour, minute, zone)
    }

    /// On `days` (`Days::MONDAY.and(Days::THURSDAY)`) at `hour:minute` in `zone`.
    pub fn on(days: Days, hour: u32, minute: u32, zone: &str) -> Result<When, CalendarError> {
        Ok(When::calendar(Calendar::at(hour, minute, days, zone)?))
    }

    /// At the times of a cron line (`"0 9 * * 1-5"`, the subset in
    /// `crate::kinds::schedule::calendar`) in `zone`.
    pub fn cron(line: &str, zone: &str) -> Result<When, CalendarError> {
        Ok(When::calendar(Calendar::cron(line, zone)?))
    }

    /// Whether it repeats (an interval or a calendar).
    pub fn recurs(&self) -> bool {
        self.every_ms.is_some() || self.calendar.is_some()
    }

    /// The same schedule, repeating no more.
    pub fn once(self) -> When {
        When { every_ms: None, calendar: None, ..self }
    }

    /// The due time, for a request recorded at `now`.
    pub fn due_at(&self, now: i64) -> i64 {
        match self.due {
            Due::At(at) => at,
            Due::After(ms) => now + ms,
            Due::Next => self.calendar.and_then(|c| c.next_after(now)).unwrap_or(now),
        }
    }

    /// The same schedule with its due time fixed (`After` resolved against `now`).
    pub fn resolved(self, now: i64) -> When {
        When { due: Due::At(self.due_at(now)), ..self }
    }
}
