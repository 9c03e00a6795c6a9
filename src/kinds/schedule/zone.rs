//! Time zones, hand-written, pure: the offsets and daylight-saving rules of a set of common
//! zones ([`ZONES`]), as they stand today (no history: a time before a rule changed is read by
//! today's rule), and the two conversions a calendar needs — an instant's local time, and the
//! instant of a local time, with the rule for a local time that does not exist (the spring-forward
//! gap: the next valid instant, the transition itself) or exists twice (the fall-back overlap: the
//! first, in daylight time).
//!
//! The rules: the EU's (daylight from the last Sunday of March to the last Sunday of October,
//! both at 01:00 UTC), the US's and Canada's (the second Sunday of March at 02:00 standard time to
//! the first Sunday of November at 02:00 daylight time), south-east Australia's (the first Sunday
//! of October at 02:00 standard time to the first Sunday of April at 03:00 daylight time) and New
//! Zealand's (the last Sunday of September at 02:00 standard time to the first Sunday of April at
//! 03:00 daylight time); every other zone listed keeps one offset all year. Daylight time is always
//! an hour ahead.

use std::fmt;

const MINUTE_MS: i64 = 60_000;
const HOUR_MS: i64 = 60 * MINUTE_MS;
const DAY_MS: i64 = 24 * HOUR_MS;

/// Days since 1970-01-01 of a proleptic Gregorian date (`month` 1–12).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date (year, month 1–12, day 1–31) of a day counted from 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if month <= 2 { yoe + era * 400 + 1 } else { yoe + era * 400 }, month, day)
}

/// The weekday of a day counted from 1970-01-01 (a Thursday): 0 Sunday … 6 Saturday.
pub fn weekday(days: i64) -> u32 {
    (days + 4).rem_euclid(7) as u32
}

fn days_in_month(year: i64, month: u32) -> u32 {
    (days_from_civil(if month == 12 { year + 1 } else { year }, if month == 12 { 1 } else { month + 1 }, 1) - days_from_civil(year, month, 1)) as u32
}

/// Which Sunday of a month a transition falls on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sunday {
    /// The first, second, … Sunday.
    Nth(u32),
    /// The month's last Sunday.
    Last,
}

impl Sunday {
    /// The day (counted from 1970-01-01) of this Sunday of `month` in `year`.
    fn day(self, year: i64, month: u32) -> i64 {
        match self {
            Sunday::Nth(n) => {
                let first = days_from_civil(year, month, 1);
                first + i64::from((7 - weekday(first)) % 7) + 7 * i64::from(n - 1)
            }
            Sunday::Last => {
                let last = days_from_civil(year, month, days_in_month(year, month));
                last - i64::from(weekday(last))
            }
        }
    }
}

/// One daylight-saving transition: on this Sunday of this month, at `at_ms` after midnight UTC
/// (`utc`) or after local standard midnight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Transition {
    month: u32,
    sunday: Sunday,
    at_ms: i64,
    utc: bool,
}

impl Transition {
    /// Its instant in `year`, for a zone `std_ms` ahead of UTC in standard time.
    fn instant(self, year: i64, std_ms: i64) -> i64 {
        let midnight = self.sunday.day(year, self.month) * DAY_MS;
        if self.utc {
            midnight + self.at_ms
        } else {
            midnight + self.at_ms - std_ms
        }
    }
}

/// A daylight-saving rule: when daylight time (an hour ahead) starts and ends each year.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rule {
    start: Transition,
    end: Transition,
}

const fn at(month: u32, sunday: Sunday, hour: i64, utc: bool) -> Transition {
    Transition { month, sunday, at_ms: hour * HOUR_MS, utc }
}

/// The EU's: the last Sunday of March to the last Sunday of October, 01:00 UTC.
const EU: Rule = Rule { start: at(3, Sunday::Last, 1, true), end: at(10, Sunday::Last, 1, true) };
/// The US's and Canada's: the second Sunday of March, 02:00 standard, to the first Sunday of
/// November, 02:00 daylight (01:00 standard).
const US: Rule = Rule { start: at(3, Sunday::Nth(2), 2, false), end: at(11, Sunday::Nth(1), 1, false) };
/// South-east Australia's: the first Sunday of October, 02:00 standard, to the first Sunday of
/// April, 03:00 daylight (02:00 standard).
const AU: Rule = Rule { start: at(10, Sunday::Nth(1), 2, false), end: at(4, Sunday::Nth(1), 2, false) };
/// New Zealand's: the last Sunday of September, 02:00 standard, to the first Sunday of April,
/// 03:00 daylight (02:00 standard).
const NZ: Rule = Rule { start: at(9, Sunday::Last, 2, false), end: at(4, Sunday::Nth(1), 2, false) };

/// The zones slackline knows: name, standard offset in minutes east of UTC, daylight rule.
pub const ZONES: &[(&str, i64, Option<&str>)] = &[
    ("UTC", 0, None),
    ("Etc/UTC", 0, None),
    ("Europe/London", 0, Some("EU")),
    ("Europe/Dublin", 0, Some("EU")),
    ("Europe/Lisbon", 0, Some("EU")),
    ("Europe/Berlin", 60, Some("EU")),
    ("Europe/Paris", 60, Some("EU")),
    ("Europe/Madrid", 60, Some("EU")),
    ("Europe/Amsterdam", 60, Some("EU")),
    ("Europe/Brussels", 60, Some("EU")),
    ("Europe/Rome", 60, Some("EU")),
    ("Europe/Vienna", 60, Some("EU")),
    ("Europe/Zurich", 60, Some("EU")),
    ("Europe/Stockholm", 60, Some("EU")),
    ("Europe/Oslo", 60, Some("EU")),
    ("Europe/Copenhagen", 60, Some("EU")),
    ("Europe/Warsaw", 60, Some("EU")),
    ("Europe/Prague", 60, Some("EU")),
    ("Europe/Athens", 120, Some("EU")),
    ("Europe/Helsinki", 120, Some("EU")),
    ("Europe/Kyiv", 120, Some("EU")),
    ("Europe/Bucharest", 120, Some("EU")),
    ("Europe/Istanbul", 180, None),
    ("Europe/Moscow", 180, None),
    ("America/New_York", -300, Some("US")),
    ("America/Toronto", -300, Some("US")),
    ("America/Chicago", -360, Some("US")),
    ("America/Denver", -420, Some("US")),
    ("America/Phoenix", -420, None),
    ("America/Los_Angeles", -480, Some("US")),
    ("America/Vancouver", -480, Some("US")),
    ("America/Anchorage", -540, Some("US")),
    ("Pacific/Honolulu", -600, None),
    ("America/Mexico_City", -360, None),
    ("America/Bogota", -300, None),
    ("America/Lima", -300, None),
    ("America/Sao_Paulo", -180, None),
    ("America/Argentina/Buenos_Aires", -180, None),
    ("Africa/Lagos", 60, None),
    ("Africa/Johannesburg", 120, None),
    ("Africa/Nairobi", 180, None),
    ("Asia/Dubai", 240, None),
    ("Asia/Karachi", 300, None),
    ("Asia/Kolkata", 330, None),
    ("Asia/Dhaka", 360, None),
    ("Asia/Bangkok", 420, None),
    ("Asia/Jakarta", 420, None),
    ("Asia/Singapore", 480, None),
    ("Asia/Shanghai", 480, None),
    ("Asia/Hong_Kong", 480, None),
    ("Asia/Taipei", 480, None),
    ("Australia/Perth", 480, None),
    ("Asia/Tokyo", 540, None),
    ("Asia/Seoul", 540, None),
    ("Australia/Brisbane", 600, None),
    ("Australia/Adelaide", 570, Some("AU")),
    ("Australia/Sydney", 600, Some("AU")),
    ("Australia/Melbourne", 600, Some("AU")),
    ("Pacific/Auckland", 720, Some("NZ")),
];

/// A zone name slackline does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownZone(pub String);

impl fmt::Display for UnknownZone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown time zone {:?}: slackline knows UTC and {} IANA zones (docs/app.md lists them)", self.0, ZONES.len() - 2)
    }
}

/// A time zone: its standard offset and its daylight rule, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Zone {
    /// Its IANA name.
    pub name: &'static str,
    std_ms: i64,
    rule: Option<Rule>,
}

impl Zone {
    /// The zone of this IANA name (`Europe/Berlin`), or why not.
    pub fn named(name: &str) -> Result<Zone, UnknownZone> {
        let (name, minutes, rule) = ZONES.iter().find(|(n, ..)| *n == name).ok_or_else(|| UnknownZone(name.to_string()))?;
        let rule = rule.map(|r| match r {
            "EU" => EU,
            "US" => US,
            "AU" => AU,
            _ => NZ,
        });
        Ok(Zone { name, std_ms: minutes * MINUTE_MS, rule })
    }

    /// UTC.
    pub fn utc() -> Zone {
        Zone { name: "UTC", std_ms: 0, rule: None }
    }

    /// Daylight time's start and end in the (UTC) year `year`.
    fn daylight(&self, year: i64) -> Option<(i64, i64)> {
        self.rule.map(|r| (r.start.instant(year, self.std_ms), r.end.instant(year, self.std_ms)))
    }

    /// Its offset from UTC (ms) at the instant `t`.
    pub fn offset_at(&self, t: i64) -> i64 {
        let (year, ..) = civil_from_days(t.div_euclid(DAY_MS));
        let Some((start, end)) = self.daylight(year) else { return self.std_ms };
        // North: daylight inside [start, end); south: outside [end, start).
        let in_daylight = if start < end { start <= t && t < end } else { t >= start || t < end };
        self.std_ms + if in_daylight { HOUR_MS } else { 0 }
    }

    /// The local time (ms since the local epoch) of the instant `t`.
    pub fn local(&self, t: i64) -> i64 {
        t + self.offset_at(t)
    }

    /// The instant of the local time `local` (ms since the local epoch): the one instant that
    /// shows it; the first of two (a fall-back hour: daylight time's); or, for a local time the
    /// clocks skip (a spring-forward hour), the next valid instant — the transition itself.
    pub fn instant(&self, local: i64) -> i64 {
        let daylight = local - self.std_ms - HOUR_MS;
        let standard = local - self.std_ms;
        if self.rule.is_some() && self.local(daylight) == local {
            return daylight;
        }
        if self.local(standard) == local {
            return standard;
        }
        // In the gap: the clocks jumped from before `local` to after it, at daylight's start.
        let (year, ..) = civil_from_days(standard.div_euclid(DAY_MS));
        self.daylight(year).map_or(standard, |(start, _)| start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The instant of a UTC date and time.
    fn utc(y: i64, mo: u32, d: u32, h: i64, mi: i64) -> i64 {
        days_from_civil(y, mo, d) * DAY_MS + h * HOUR_MS + mi * MINUTE_MS
    }

    fn zone(name: &str) -> Zone {
        Zone::named(name).expect("known")
    }

    #[test]
    fn dates_round_trip_and_weekdays_are_right() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(civil_from_days(days_from_civil(2024, 2, 29)), (2024, 2, 29));
        assert_eq!(civil_from_days(days_from_civil(2000, 12, 31)), (2000, 12, 31));
        assert_eq!(weekday(days_from_civil(2026, 3, 29)), 0, "29 March 2026 is a Sunday");
        assert_eq!(weekday(days_from_civil(2026, 12, 4)), 5, "4 December 2026 is a Friday");
        assert_eq!(days_in_month(2024, 2), 29);
        assert_eq!(days_in_month(2026, 12), 31);
    }

    #[test]
    fn berlin_changes_at_one_utc_on_the_last_sundays_of_march_and_october() {
        let berlin = zone("Europe/Berlin");
        assert_eq!(berlin.offset_at(utc(2026, 3, 29, 0, 59)), HOUR_MS);
        assert_eq!(berlin.offset_at(utc(2026, 3, 29, 1, 0)), 2 * HOUR_MS);
        assert_eq!(berlin.offset_at(utc(2026, 10, 25, 0, 59)), 2 * HOUR_MS);
        assert_eq!(berlin.offset_at(utc(2026, 10, 25, 1, 0)), HOUR_MS);
        assert_eq!(zone("Europe/London").offset_at(utc(2026, 7, 1, 12, 0)), HOUR_MS);
        assert_eq!(zone("Europe/London").offset_at(utc(2026, 1, 1, 12, 0)), 0);
    }

    #[test]
    fn new_york_changes_at_two_local_on_the_second_sunday_of_march_and_first_of_november() {
        let ny = zone("America/New_York");
        // 8 March 2026, 02:00 EST = 07:00 UTC; 1 November 2026, 02:00 EDT = 06:00 UTC.
        assert_eq!(ny.offset_at(utc(2026, 3, 8, 6, 59)), -5 * HOUR_MS);
        assert_eq!(ny.offset_at(utc(2026, 3, 8, 7, 0)), -4 * HOUR_MS);
        assert_eq!(ny.offset_at(utc(2026, 11, 1, 5, 59)), -4 * HOUR_MS);
        assert_eq!(ny.offset_at(utc(2026, 11, 1, 6, 0)), -5 * HOUR_MS);
    }

    #[test]
    fn the_southern_hemisphere_is_in_daylight_time_over_new_year() {
        let sydney = zone("Australia/Sydney");
        // 5 April 2026, 03:00 AEDT = 16:00 UTC on the 4th; 4 October 2026, 02:00 AEST = 16:00 UTC on the 3rd.
        assert_eq!(sydney.offset_at(utc(2026, 1, 15, 0, 0)), 11 * HOUR_MS);
        assert_eq!(sydney.offset_at(utc(2026, 4, 4, 15, 59)), 11 * HOUR_MS);
        assert_eq!(sydney.offset_at(utc(2026, 4, 4, 16, 0)), 10 * HOUR_MS);
        assert_eq!(sydney.offset_at(utc(2026, 10, 3, 15, 59)), 10 * HOUR_MS);
        assert_eq!(sydney.offset_at(utc(2026, 10, 3, 16, 0)), 11 * HOUR_MS);
        let auckland = zone("Pacific/Auckland");
        // 27 September 2026, 02:00 NZST = 14:00 UTC on the 26th.
        assert_eq!(auckland.offset_at(utc(2026, 9, 26, 13, 59)), 12 * HOUR_MS);
        assert_eq!(auckland.offset_at(utc(2026, 9, 26, 14, 0)), 13 * HOUR_MS);
        assert_eq!(auckland.offset_at(utc(2026, 4, 4, 13, 59)), 13 * HOUR_MS);
        assert_eq!(auckland.offset_at(utc(2026, 4, 4, 14, 0)), 12 * HOUR_MS);
    }

    #[test]
    fn a_skipped_local_time_is_the_next_valid_instant_and_a_repeated_one_its_first() {
        let berlin = zone("Europe/Berlin");
        let local = |d: u32, mo: u32, h: i64, mi: i64| utc(2026, mo, d, h, mi);
        assert_eq!(berlin.instant(local(29, 3, 2, 30)), utc(2026, 3, 29, 1, 0), "02:30 does not exist: 03:00 CEST");
        assert_eq!(berlin.instant(local(29, 3, 3, 0)), utc(2026, 3, 29, 1, 0));
        assert_eq!(berlin.instant(local(25, 10, 2, 30)), utc(2026, 10, 25, 0, 30), "02:30 twice: the first, CEST");
        assert_eq!(berlin.instant(local(25, 10, 3, 0)), utc(2026, 10, 25, 2, 0));
        assert_eq!(berlin.instant(local(1, 7, 9, 0)), utc(2026, 7, 1, 7, 0));
        let sydney = zone("Australia/Sydney");
        assert_eq!(sydney.instant(utc(2026, 10, 4, 2, 30)), utc(2026, 10, 3, 16, 0), "02:30 skipped in October: 03:00 AEDT");
        assert_eq!(sydney.instant(utc(2026, 4, 5, 2, 30)), utc(2026, 4, 4, 15, 30), "02:30 twice in April: the first, AEDT");
        assert_eq!(zone("Asia/Kolkata").instant(utc(2026, 1, 1, 9, 0)), utc(2026, 1, 1, 3, 30));
    }

    #[test]
    fn every_zone_reads_its_local_times_back_to_their_instants_all_year() {
        for (name, ..) in ZONES {
            let zone = zone(name);
            let mut t = utc(2026, 1, 1, 0, 0);
            while t < utc(2027, 1, 1, 0, 0) {
                let back = zone.instant(zone.local(t));
                // A fall-back hour's second pass reads as its first.
                let first_of_two = back == t - HOUR_MS && zone.local(back) == zone.local(t);
                assert!(back == t || first_of_two, "{name} at {t}: {back}");
                assert!((-12 * HOUR_MS..=14 * HOUR_MS).contains(&zone.offset_at(t)), "{name}");
                t += 7 * HOUR_MS + 13 * MINUTE_MS;
            }
        }
    }

    #[test]
    fn an_unknown_zone_is_an_error_that_names_it() {
        let e = Zone::named("Mars/Olympus").unwrap_err();
        assert!(e.to_string().contains("Mars/Olympus"), "{e}");
        assert_eq!(Zone::named("UTC"), Ok(Zone::utc()));
    }
}
