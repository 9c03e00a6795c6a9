//! Calendar recurrences, pure: "every day at 09:00 in Europe/Berlin", weekdays, a weekly day, or a
//! small cron subset, in a [`Zone`] of the IANA database, its offsets and their changes applied
//! (`super::zone`): a [`Calendar`] is the set of local wall-clock minutes it fires at, and
//! [`Calendar::next_after`] is its first instant after a given one.
//!
//! The cron subset: five fields, `minute hour day-of-month month day-of-week` (`0 9 * * 1-5`),
//! each `*`, a number, a range `a-b`, a step `*/n` or `a-b/n`, or a list of those (`1,15`);
//! day-of-week 0–7 (0 and 7 are Sunday). As in cron, when both day fields are restricted a day
//! matching either one fires. No names (`MON`), no `L`, `W` or `#`, no seconds.
//!
//! A local time that does not exist that day (the clocks move forward over it) fires at the next
//! valid instant, the change; one that exists twice (they move back) fires once, the first time.
//! Whatever the change's day, hour or size: Jerusalem's Friday, Lord Howe's half hour.
//! A calendar is stored in its row as its text (`"0 9 * * 1-5 Europe/Berlin"`): the cron line and
//! the zone's IANA name, as the database spells the name it was given (an alias stays itself).

use super::zone::{civil_from_days, weekday, Zone, ZoneError};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

const MINUTE_MS: i64 = 60_000;
const DAY_MS: i64 = 24 * 60 * MINUTE_MS;
/// How far ahead an occurrence is looked for: a calendar with none within 8 years (`0 9 30 2 *`)
/// is refused when it is made.
const HORIZON_DAYS: i64 = 8 * 366;

/// Why a calendar cannot be made.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CalendarError {
    /// The zone is not in the IANA time zone database.
    Zone(ZoneError),
    /// The cron text is not in the subset, or names no time that ever comes.
    Cron(String),
}

impl fmt::Display for CalendarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CalendarError::Zone(z) => z.fmt(f),
            CalendarError::Cron(why) => write!(f, "bad schedule: {why}"),
        }
    }
}

impl std::error::Error for CalendarError {}

/// The days of the week a calendar fires on (bit 0 Sunday … bit 6 Saturday).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Days(u8);

impl Days {
    /// Monday to Friday.
    pub const WEEKDAYS: Days = Days(0b011_1110);
    /// Saturday and Sunday.
    pub const WEEKEND: Days = Days(0b100_0001);
    /// Every day.
    pub const EVERY_DAY: Days = Days(0b111_1111);
    /// Sunday.
    pub const SUNDAY: Days = Days(1);
    /// Monday.
    pub const MONDAY: Days = Days(1 << 1);
    /// Tuesday.
    pub const TUESDAY: Days = Days(1 << 2);
    /// Wednesday.
    pub const WEDNESDAY: Days = Days(1 << 3);
    /// Thursday.
    pub const THURSDAY: Days = Days(1 << 4);
    /// Friday.
    pub const FRIDAY: Days = Days(1 << 5);
    /// Saturday.
    pub const SATURDAY: Days = Days(1 << 6);

    /// These days and `other`'s (`Days::MONDAY.and(Days::THURSDAY)`).
    pub const fn and(self, other: Days) -> Days {
        Days(self.0 | other.0)
    }
}

/// A calendar recurrence: the local minutes it fires at, in its zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Calendar {
    minutes: u64,
    hours: u32,
    /// Days of the month, bits 1–31.
    days: u32,
    /// Months, bits 1–12.
    months: u16,
    weekdays: u8,
    /// Whether the day-of-month field was `*` (cron's OR rule needs to know).
    any_day: bool,
    /// Whether the day-of-week field was `*`.
    any_weekday: bool,
    /// Its zone's IANA name, as the database spells it (a calendar stays `Copy`).
    zone: &'static str,
}

const ALL_DAYS: u32 = 0xFFFF_FFFE;
const ALL_MONTHS: u16 = 0b1_1111_1111_1110;

impl Calendar {
    /// At `hour:minute` on `days`, in the zone `zone` (an IANA name).
    pub fn at(hour: u32, minute: u32, days: Days, zone: &str) -> Result<Calendar, CalendarError> {
        if hour > 23 || minute > 59 {
            return Err(CalendarError::Cron(format!("{hour:02}:{minute:02} is not a time of day")));
        }
        let any_weekday = days == Days::EVERY_DAY;
        let calendar = Calendar {
            minutes: 1 << minute,
            hours: 1 << hour,
            days: ALL_DAYS,
            months: ALL_MONTHS,
            weekdays: days.0,
            any_day: true,
            any_weekday,
            zone: zone_name(zone)?,
        };
        calendar.checked()
    }

    /// A cron line of the subset in the module's docs (`"0 9 * * 1-5"`), in the zone `zone`.
    pub fn cron(line: &str, zone: &str) -> Result<Calendar, CalendarError> {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [minute, hour, day, month, weekday] = fields[..] else {
            return Err(CalendarError::Cron(format!("{line:?}: five fields, minute hour day-of-month month day-of-week")));
        };
        let weekdays = field(weekday, 0, 7, "day-of-week")?;
        let calendar = Calendar {
            minutes: field(minute, 0, 59, "minute")?,
            hours: field(hour, 0, 23, "hour")? as u32,
            days: field(day, 1, 31, "day-of-month")? as u32,
            months: field(month, 1, 12, "month")? as u16,
            weekdays: ((weekdays | weekdays >> 7) & 0x7f) as u8,
            any_day: day == "*",
            any_weekday: weekday == "*",
            zone: zone_name(zone)?,
        };
        calendar.checked()
    }

    /// Refuses a calendar that never fires.
    fn checked(self) -> Result<Calendar, CalendarError> {
        match self.next_after(0) {
            Some(_) => Ok(self),
            None => Err(CalendarError::Cron(format!("{self} names no time that comes"))),
        }
    }

    /// Its zone.
    pub fn zone(&self) -> Zone {
        Zone::named(self.zone).unwrap_or_else(|_| Zone::utc())
    }

    /// Whether it fires on the local day `day` (counted from 1970-01-01).
    fn fires_on(&self, day: i64) -> bool {
        let (_, month, date) = civil_from_days(day);
        if self.months & (1 << month) == 0 {
            return false;
        }
        let by_date = self.days & (1 << date) != 0;
        let by_weekday = self.weekdays & (1 << weekday(day)) != 0;
        match (self.any_day, self.any_weekday) {
            (false, false) => by_date || by_weekday,
            _ => by_date && by_weekday,
        }
    }

    /// Its first instant strictly after the instant `after` (epoch ms), within eight years.
    pub fn next_after(&self, after: i64) -> Option<i64> {
        let zone = self.zone();
        let first_day = zone.local_ms(after).div_euclid(DAY_MS) - 1;
        for day in first_day..first_day + HORIZON_DAYS {
            if !self.fires_on(day) {
                continue;
            }
            for hour in bits(u64::from(self.hours), 24) {
                for minute in bits(self.minutes, 60) {
                    let at = zone.instant(day * DAY_MS + i64::from(hour) * 60 * MINUTE_MS + i64::from(minute) * MINUTE_MS);
                    if at > after {
                        return Some(at);
                    }
                }
            }
        }
        None
    }

    /// How many of its instants lie in `(after, until]` (at most `cap`): one pass over the days
    /// between (an alarm counts a week of a minutely calendar's missed times at once).
    pub fn count_between(&self, after: i64, until: i64, cap: u32) -> u32 {
        let zone = self.zone();
        let (first, last) = (zone.local_ms(after).div_euclid(DAY_MS) - 1, zone.local_ms(until).div_euclid(DAY_MS) + 1);
        let (mut n, mut previous) = (0, after);
        for day in (first..=last).filter(|d| self.fires_on(*d)) {
            for hour in bits(u64::from(self.hours), 24) {
                for minute in bits(self.minutes, 60) {
                    let at = zone.instant(day * DAY_MS + i64::from(hour) * 60 * MINUTE_MS + i64::from(minute) * MINUTE_MS);
                    // Two skipped local times that fall on the same instant are one time.
                    if at > previous && at <= until {
                        (n, previous) = (n + 1, at);
                        if n >= cap {
                            return n;
                        }
                    }
                }
            }
        }
        n
    }
}

/// The set bits below `limit` of `mask`, in order.
fn bits(mask: u64, limit: u32) -> impl Iterator<Item = u32> {
    (0..limit).filter(move |b| mask & (1 << b) != 0)
}

/// The zone's name as the database spells it, or why not.
fn zone_name(name: &str) -> Result<&'static str, CalendarError> {
    Zone::named(name).map(|z| z.name()).map_err(CalendarError::Zone)
}

/// One cron field as a bit set over `low..=high`.
fn field(text: &str, low: u32, high: u32, name: &str) -> Result<u64, CalendarError> {
    let bad = |why: &str| CalendarError::Cron(format!("{name} {text:?}: {why}"));
    let number = |s: &str| s.parse::<u32>().ok().filter(|n| (low..=high).contains(n)).ok_or_else(|| bad(&format!("not a number from {low} to {high}")));
    let mut set = 0u64;
    for part in text.split(',') {
        let (range, step) = match part.split_once('/') {
            Some((r, s)) => (r, s.parse::<u32>().ok().filter(|s| *s > 0).ok_or_else(|| bad("a step is a number above 0"))?),
            None => (part, 1),
        };
        let (from, to) = match range {
            "*" => (low, high),
            _ => match range.split_once('-') {
                Some((a, b)) => (number(a)?, number(b)?),
                None if step > 1 => (number(range)?, high),
                None => (number(range)?, number(range)?),
            },
        };
        if from > to {
            return Err(bad("a range runs upwards"));
        }
        set |= (from..=to).step_by(step as usize).fold(0, |s, b| s | 1 << b);
    }
    Ok(set)
}

/// One field back as text: `*` when every value is in it, else a list.
fn field_text(mask: u64, low: u32, high: u32, any: bool) -> String {
    if any {
        return "*".into();
    }
    (low..=high).filter(|b| mask & (1 << b) != 0).map(|b| b.to_string()).collect::<Vec<_>>().join(",")
}

impl fmt::Display for Calendar {
    /// Its cron text and zone: `0 9 * * 1,2,3,4,5 Europe/Berlin`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let full = |mask: u64, low: u32, high: u32| (low..=high).all(|b| mask & (1 << b) != 0);
        let minutes = field_text(self.minutes, 0, 59, full(self.minutes, 0, 59));
        let hours = field_text(u64::from(self.hours), 0, 23, full(u64::from(self.hours), 0, 23));
        let days = field_text(u64::from(self.days), 1, 31, self.any_day);
        let months = field_text(u64::from(self.months), 1, 12, full(u64::from(self.months), 1, 12));
        let weekdays = field_text(u64::from(self.weekdays), 0, 6, self.any_weekday);
        write!(f, "{minutes} {hours} {days} {months} {weekdays} {}", self.zone)
    }
}

impl Serialize for Calendar {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Calendar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Calendar, D::Error> {
        let text = String::deserialize(d)?;
        let (line, zone) = text.rsplit_once(' ').ok_or_else(|| serde::de::Error::custom("a calendar is its cron line and zone"))?;
        Calendar::cron(line, zone).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::super::zone::days_from_civil;
    use super::*;

    const HOUR_MS: i64 = 60 * MINUTE_MS;

    fn utc(y: i64, mo: u32, d: u32, h: i64, mi: i64) -> i64 {
        days_from_civil(y, mo, d) * DAY_MS + h * HOUR_MS + mi * MINUTE_MS
    }

    /// The first `n` instants after `from`.
    fn firings(c: &Calendar, from: i64, n: usize) -> Vec<i64> {
        let mut out = Vec::new();
        let mut t = from;
        while out.len() < n {
            t = c.next_after(t).expect("fires");
            out.push(t);
        }
        out
    }

    #[test]
    fn nine_in_berlin_is_eight_utc_in_winter_and_seven_in_summer_across_both_changes() {
        let nine = Calendar::at(9, 0, Days::EVERY_DAY, "Europe/Berlin").unwrap();
        let spring = firings(&nine, utc(2026, 3, 27, 12, 0), 3);
        assert_eq!(spring, [utc(2026, 3, 28, 8, 0), utc(2026, 3, 29, 7, 0), utc(2026, 3, 30, 7, 0)], "the change night's 09:00 is CEST");
        let autumn = firings(&nine, utc(2026, 10, 24, 0, 0), 3);
        assert_eq!(autumn, [utc(2026, 10, 24, 7, 0), utc(2026, 10, 25, 8, 0), utc(2026, 10, 26, 8, 0)]);
    }

    #[test]
    fn a_time_in_the_spring_gap_runs_at_the_change_and_one_in_the_autumn_overlap_runs_once() {
        let half_two = Calendar::at(2, 30, Days::EVERY_DAY, "Europe/Berlin").unwrap();
        let spring = firings(&half_two, utc(2026, 3, 28, 12, 0), 2);
        assert_eq!(spring, [utc(2026, 3, 29, 1, 0), utc(2026, 3, 30, 0, 30)], "02:30 skipped: 03:00 CEST, the next valid instant");
        let autumn = firings(&half_two, utc(2026, 10, 24, 12, 0), 2);
        assert_eq!(autumn, [utc(2026, 10, 25, 0, 30), utc(2026, 10, 26, 1, 30)], "02:30 twice: once, the first (CEST)");
        let ny = Calendar::at(2, 30, Days::EVERY_DAY, "America/New_York").unwrap();
        assert_eq!(ny.next_after(utc(2026, 3, 8, 0, 0)), Some(utc(2026, 3, 8, 7, 0)), "02:30 skipped on 8 March: 03:00 EDT");
    }

    #[test]
    fn the_southern_hemisphere_moves_the_other_way() {
        let nine = Calendar::at(9, 0, Days::EVERY_DAY, "Australia/Sydney").unwrap();
        // 5 April 2026 daylight ends: 09:00 AEDT (22:00 UTC) on the 4th, then 09:00 AEST (23:00 UTC).
        let april = firings(&nine, utc(2026, 4, 3, 12, 0), 2);
        assert_eq!(april, [utc(2026, 4, 3, 22, 0), utc(2026, 4, 4, 23, 0)]);
        let october = firings(&nine, utc(2026, 10, 2, 12, 0), 2);
        assert_eq!(october, [utc(2026, 10, 2, 23, 0), utc(2026, 10, 3, 22, 0)]);
        let auckland = Calendar::at(9, 0, Days::EVERY_DAY, "Pacific/Auckland").unwrap();
        assert_eq!(firings(&auckland, utc(2026, 9, 25, 12, 0), 2), [utc(2026, 9, 25, 21, 0), utc(2026, 9, 26, 20, 0)]);
    }

    #[test]
    fn weekdays_skip_the_weekend_and_cron_says_the_same() {
        let weekdays = Calendar::at(9, 0, Days::WEEKDAYS, "UTC").unwrap();
        let cron = Calendar::cron("0 9 * * 1-5", "UTC").unwrap();
        // Friday 4 December 2026, then Monday the 7th.
        assert_eq!(firings(&weekdays, utc(2026, 12, 4, 8, 0), 2), [utc(2026, 12, 4, 9, 0), utc(2026, 12, 7, 9, 0)]);
        assert_eq!(firings(&cron, utc(2026, 12, 4, 8, 0), 2), firings(&weekdays, utc(2026, 12, 4, 8, 0), 2));
        let monday = Calendar::at(10, 30, Days::MONDAY, "Asia/Kolkata").unwrap();
        assert_eq!(monday.next_after(utc(2026, 12, 4, 0, 0)), Some(utc(2026, 12, 7, 5, 0)));
    }

    #[test]
    fn cron_takes_lists_ranges_steps_and_the_either_day_rule() {
        let c = Calendar::cron("*/15 9-10 * * *", "UTC").unwrap();
        assert_eq!(firings(&c, utc(2026, 1, 1, 0, 0), 9)[8], utc(2026, 1, 2, 9, 0), "eight a day: 9:00 … 10:45");
        let either = Calendar::cron("0 12 1 * 1", "UTC").unwrap();
        // December 2026's Mondays (the 1st is a Tuesday), then 1 January 2027, a Friday.
        assert_eq!(
            firings(&either, utc(2026, 12, 2, 0, 0), 4),
            [utc(2026, 12, 7, 12, 0), utc(2026, 12, 14, 12, 0), utc(2026, 12, 21, 12, 0), utc(2026, 12, 28, 12, 0)]
        );
        assert_eq!(either.next_after(utc(2026, 12, 29, 0, 0)), Some(utc(2027, 1, 1, 12, 0)), "the 1st of the month, a Friday");
        assert!(Calendar::cron("0 9 * *", "UTC").is_err());
        assert!(Calendar::cron("60 9 * * *", "UTC").is_err());
        assert!(Calendar::cron("0 9 30 2 *", "UTC").is_err(), "30 February never comes");
        assert!(matches!(Calendar::cron("0 9 * * *", "Europe/Atlantis"), Err(CalendarError::Zone(_))));
        assert_eq!(Calendar::cron("0 9 * * 7", "UTC"), Calendar::cron("0 9 * * 0", "UTC"), "7 is Sunday too");
    }

    #[test]
    fn a_calendar_is_stored_as_its_text_and_read_back_the_same() {
        let c = Calendar::cron("0,30 9 * * 1-5", "Europe/Berlin").unwrap();
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(json, "\"0,30 9 * * 1,2,3,4,5 Europe/Berlin\"");
        assert_eq!(serde_json::from_str::<Calendar>(&json).unwrap(), c);
        let daily = Calendar::at(9, 0, Days::EVERY_DAY, "UTC").unwrap();
        assert_eq!(serde_json::from_str::<Calendar>(&serde_json::to_string(&daily).unwrap()).unwrap(), daily);
    }

    #[test]
    fn lord_howes_half_hour_change_runs_a_skipped_time_at_the_change_and_a_repeated_one_once() {
        // 4 October 2026: 02:00 at UTC+10:30 becomes 02:30 at UTC+11, at 15:30 UTC on the 3rd.
        let skipped = Calendar::at(2, 15, Days::EVERY_DAY, "Australia/Lord_Howe").unwrap();
        let october = firings(&skipped, utc(2026, 10, 2, 12, 0), 3);
        assert_eq!(october, [utc(2026, 10, 2, 15, 45), utc(2026, 10, 3, 15, 30), utc(2026, 10, 4, 15, 15)], "02:15 skipped: the change");
        // 5 April 2026: 02:00 at UTC+11 becomes 01:30 at UTC+10:30, at 15:00 UTC on the 4th.
        let repeated = Calendar::at(1, 45, Days::EVERY_DAY, "Australia/Lord_Howe").unwrap();
        let april = firings(&repeated, utc(2026, 4, 3, 12, 0), 3);
        assert_eq!(april, [utc(2026, 4, 3, 14, 45), utc(2026, 4, 4, 14, 45), utc(2026, 4, 5, 15, 15)], "01:45 twice: once, the first");
        assert_eq!(repeated.count_between(utc(2026, 4, 4, 14, 45), utc(2026, 4, 5, 12, 0), 100), 0, "its second pass is no time of its own");
    }

    #[test]
    fn jerusalems_friday_change_and_cairos_midnight_one_are_read_from_the_database() {
        // Friday 27 March 2026: 02:00 IST becomes 03:00 IDT at 00:00 UTC; Sunday 25 October: 02:00
        // IDT becomes 01:00 IST at 23:00 UTC on the 24th.
        let half_two = Calendar::at(2, 30, Days::EVERY_DAY, "Asia/Jerusalem").unwrap();
        assert_eq!(firings(&half_two, utc(2026, 3, 25, 12, 0), 3), [utc(2026, 3, 26, 0, 30), utc(2026, 3, 27, 0, 0), utc(2026, 3, 27, 23, 30)]);
        let fridays = Calendar::cron("30 2 * * 5", "Asia/Jerusalem").unwrap();
        assert_eq!(fridays.next_after(utc(2026, 3, 24, 0, 0)), Some(utc(2026, 3, 27, 0, 0)), "the Friday of the change: at the change");
        let half_one = Calendar::at(1, 30, Days::EVERY_DAY, "Asia/Jerusalem").unwrap();
        assert_eq!(firings(&half_one, utc(2026, 10, 23, 12, 0), 3), [utc(2026, 10, 23, 22, 30), utc(2026, 10, 24, 22, 30), utc(2026, 10, 25, 23, 30)]);
        // Friday 24 April 2026: Cairo's midnight becomes 01:00 (22:00 UTC on the 23rd); Thursday 29
        // October: 24:00 becomes 23:00 (21:00 UTC).
        let half_past_midnight = Calendar::at(0, 30, Days::EVERY_DAY, "Africa/Cairo").unwrap();
        assert_eq!(firings(&half_past_midnight, utc(2026, 4, 22, 12, 0), 3), [utc(2026, 4, 22, 22, 30), utc(2026, 4, 23, 22, 0), utc(2026, 4, 24, 21, 30)]);
        let half_eleven = Calendar::at(23, 30, Days::EVERY_DAY, "Africa/Cairo").unwrap();
        assert_eq!(firings(&half_eleven, utc(2026, 10, 28, 12, 0), 3), [utc(2026, 10, 28, 20, 30), utc(2026, 10, 29, 20, 30), utc(2026, 10, 30, 21, 30)]);
        let halifax = Calendar::at(9, 0, Days::WEEKDAYS, "America/Halifax");
        assert_eq!(halifax.unwrap().next_after(utc(2026, 7, 3, 0, 0)), Some(utc(2026, 7, 3, 12, 0)), "09:00 ADT, UTC-03");
    }

    #[test]
    fn a_zone_is_stored_by_its_name_and_an_alias_or_old_name_still_loads() {
        // What the previous release wrote reads the same; what this one writes, the previous reads
        // (its zones keep their names).
        let stored = "\"0,30 9 * * 1,2,3,4,5 Europe/Berlin\"";
        assert_eq!(serde_json::to_string(&serde_json::from_str::<Calendar>(stored).unwrap()).unwrap(), stored);
        for zone in ["Europe/Kiev", "Europe/Kyiv", "US/Eastern", "Asia/Calcutta", "America/Halifax", "Asia/Kathmandu"] {
            let c = Calendar::at(9, 0, Days::EVERY_DAY, zone).unwrap();
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(json, format!("\"0 9 * * * {zone}\""), "kept as given");
            assert_eq!(serde_json::from_str::<Calendar>(&json).unwrap(), c);
        }
        let kiev = Calendar::at(9, 0, Days::EVERY_DAY, "Europe/Kiev").unwrap();
        let kyiv = Calendar::at(9, 0, Days::EVERY_DAY, "Europe/Kyiv").unwrap();
        assert_eq!(firings(&kiev, utc(2026, 3, 27, 0, 0), 3), firings(&kyiv, utc(2026, 3, 27, 0, 0), 3), "one zone, two names");
        assert_eq!(Calendar::at(9, 0, Days::EVERY_DAY, "europe/berlin").unwrap().to_string(), "0 9 * * * Europe/Berlin", "spelt as the database does");
    }

    #[test]
    fn an_unknown_zone_is_an_error_a_user_can_read() {
        let e = Calendar::cron("0 9 * * *", "Mars/Olympus").unwrap_err();
        assert_eq!(e.to_string(), r#"unknown time zone "Mars/Olympus" (a name like "Europe/Berlin" or "America/New_York" is expected)"#);
        assert!(matches!(&e, CalendarError::Zone(z) if z.name() == "Mars/Olympus"));
    }

    #[test]
    fn missed_occurrences_are_counted_between_two_instants() {
        let nine = Calendar::at(9, 0, Days::EVERY_DAY, "UTC").unwrap();
        assert_eq!(nine.count_between(utc(2026, 1, 1, 9, 0), utc(2026, 1, 4, 9, 30), 100), 3);
        assert_eq!(nine.count_between(utc(2026, 1, 1, 9, 0), utc(2026, 1, 1, 10, 0), 100), 0);
        assert_eq!(nine.count_between(0, utc(2026, 1, 1, 0, 0), 5), 5, "capped");
        let minutely = Calendar::cron("*/30 * * * *", "Europe/Berlin").unwrap();
        // 29 March 2026: 02:00 and 02:30 do not exist; both fall on the change, one time.
        assert_eq!(minutely.count_between(utc(2026, 3, 28, 23, 0), utc(2026, 3, 29, 2, 0), 100), 6);
        let slow = |a: i64, b: i64| {
            let (mut n, mut t) = (0, a);
            while let Some(next) = minutely.next_after(t).filter(|x| *x <= b) {
                (n, t) = (n + 1, next);
            }
            n
        };
        assert_eq!(minutely.count_between(utc(2026, 10, 24, 0, 0), utc(2026, 10, 26, 0, 0), 1_000), slow(utc(2026, 10, 24, 0, 0), utc(2026, 10, 26, 0, 0)));
    }
}
