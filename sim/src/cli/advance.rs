//! `advance`: moves a running slackline's clock forward for one team, so that what is scheduled
//! falls due — "09:00 tomorrow" reached in a flow, without a bot of its own growing a "now"
//! command. Test builds only: slackline serves it when built with its `testkit` feature
//! (`make dev TESTKIT=1`) and `ALLOW_TEST_CLOCK=1` is set; a production build ignores the clock.
//!
//! It lists the team's pending schedules (`GET /admin/teams/{team}/scheduled`), runs one admin
//! sweep with the test clock (`POST /admin/teams/{team}/sweep` with `x-slackline-test-now`: the
//! schedules due by then fire now, and the housekeeping counts from then), and lists them again:
//! each schedule due by then that is no longer pending has fired. One that is still pending is an
//! error (exit 1) that names the likely cause (a build without the test clock).
//!
//! The clock: `--to TIME` (RFC 3339, or epoch ms), or `--by DURATION` (`24h`, `90m`, `1d12h`,
//! `30s`) from `--from` (default now; in a script, where its last `advance` left the clock, so two
//! `advance --by 24h` reach two days on). Only what the sweep runs sees that clock: later requests
//! run at the real one.

use super::{ClientOptions, Done, Failure, Usage};
use crate::client::Target;
use clap::{ArgGroup, Args};
use serde::Deserialize;
use slackline::internal::admin::ScheduledRow;
use slackline::internal::kinds::schedule::zone::{civil_from_days, days_from_civil};
use std::time::{SystemTime, UNIX_EPOCH};

/// `advance`'s options.
#[derive(Debug, Clone, PartialEq, Args)]
#[command(group(ArgGroup::new("when").required(true).args(["to", "by"])))]
pub struct AdvanceOptions {
    #[command(flatten)]
    pub(super) common: ClientOptions,
    #[command(flatten)]
    pub(super) clock: Clock,
}

/// Where `advance` moves the clock to, and with what.
#[derive(Debug, Clone, PartialEq, Args)]
pub struct Clock {
    /// The time to move the clock to: RFC 3339 (2026-12-08T09:00:00Z, 2026-12-08T10:00:00+01:00) or epoch ms
    #[arg(long, value_name = "TIME", value_parser = parse_time)]
    pub to: Option<i64>,
    /// How far to move it from --from: 24h, 90m, 1d12h, 30s
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub by: Option<i64>,
    /// Where --by counts from [default: now; in a script, where its last advance left the clock]
    #[arg(long, value_name = "TIME", value_parser = parse_time)]
    pub from: Option<i64>,
    /// slackline's admin token [default: ADMIN_TOKEN from ./.dev.vars]
    #[arg(long, value_name = "TOKEN")]
    pub admin_token: Option<String>,
}

impl Clock {
    /// The time the clock moves to (epoch ms), `now` being the real clock.
    pub fn target(&self, now: i64) -> i64 {
        self.to.unwrap_or_else(|| self.from.unwrap_or(now) + self.by.unwrap_or(0))
    }
}

/// The current time, epoch ms.
pub fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// A time: RFC 3339 (`2026-12-08T09:00:00Z`, seconds and fractions optional, `Z` or `±HH:MM`),
/// or epoch ms.
pub fn parse_time(text: &str) -> Result<i64, String> {
    let wrong = || format!("`{text}` is not a time: 2026-12-08T09:00:00Z, 2026-12-08T10:00:00+01:00, or epoch ms");
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse().map_err(|_| wrong());
    }
    let (date, rest) = text.split_once(['T', 't', ' ']).ok_or_else(wrong)?;
    let mut ymd = date.splitn(3, '-').map(|p| p.parse::<i64>().ok());
    let (Some(Some(year)), Some(Some(month)), Some(Some(day))) = (ymd.next(), ymd.next(), ymd.next()) else { return Err(wrong()) };
    let zone_at = rest.find(['Z', 'z', '+', '-']).ok_or_else(wrong)?;
    let (clock, zone) = rest.split_at(zone_at);
    let offset_min = match zone {
        "Z" | "z" => 0,
        _ => {
            let sign = if zone.starts_with('-') { -1 } else { 1 };
            let (h, m) = zone[1..].split_once(':').ok_or_else(wrong)?;
            let (h, m) = (h.parse::<i64>().map_err(|_| wrong())?, m.parse::<i64>().map_err(|_| wrong())?);
            sign * (h * 60 + m)
        }
    };
    let mut hms = clock.splitn(3, ':');
    let (h, m) = (hms.next().and_then(|h| h.parse::<i64>().ok()), hms.next().and_then(|m| m.parse::<i64>().ok()));
    let seconds = hms.next().map_or(Some(0.0), |s| s.parse::<f64>().ok());
    let (Some(h), Some(m), Some(s)) = (h, m, seconds) else { return Err(wrong()) };
    let in_range = (1..=12).contains(&month) && (1..=31).contains(&day) && h < 24 && m < 60 && (0.0..61.0).contains(&s);
    if !in_range {
        return Err(wrong());
    }
    let days = days_from_civil(year, month as u32, day as u32);
    Ok(((days * 86_400 + h * 3_600 + m * 60 - offset_min * 60) as f64 * 1000.0 + s * 1000.0).round() as i64)
}

/// A duration: numbers with units `d`, `h`, `m`, `s`, `ms` (`24h`, `1d12h`, `90m`); in ms.
pub fn parse_duration(text: &str) -> Result<i64, String> {
    let wrong = || format!("`{text}` is not a duration: 24h, 90m, 1d12h, 30s");
    let (mut total, mut rest) = (0_i64, text.trim());
    if rest.is_empty() {
        return Err(wrong());
    }
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit()).ok_or_else(wrong)?;
        let n: i64 = rest[..digits].parse().map_err(|_| wrong())?;
        let unit_len = rest[digits..].find(|c: char| c.is_ascii_digit()).unwrap_or(rest.len() - digits);
        let ms = match &rest[digits..digits + unit_len] {
            "d" => 86_400_000,
            "h" => 3_600_000,
            "m" => 60_000,
            "s" => 1_000,
            "ms" => 1,
            _ => return Err(wrong()),
        };
        total = n.checked_mul(ms).and_then(|t| t.checked_add(total)).ok_or_else(wrong)?;
        rest = &rest[digits + unit_len..];
    }
    Ok(total)
}

/// An epoch-ms time as RFC 3339, UTC (`2026-12-08T09:00:00Z`; ms shown when there are any).
pub fn format_time(ms: i64) -> String {
    let (days, in_day) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let (year, month, day) = civil_from_days(days);
    let (h, m, s, frac) = (in_day / 3_600_000, in_day / 60_000 % 60, in_day / 1000 % 60, in_day % 1000);
    let frac = if frac == 0 { String::new() } else { format!(".{frac:03}") };
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}{frac}Z")
}

/// A duration as `1d 2h 3m 4s` (the units that are not zero).
fn format_duration(ms: i64) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    let secs = ms.abs() / 1000;
    let parts: Vec<String> = [(secs / 86_400, "d"), (secs / 3_600 % 24, "h"), (secs / 60 % 60, "m"), (secs % 60, "s")]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, unit)| format!("{n}{unit}"))
        .collect();
    if parts.is_empty() {
        format!("{}ms", ms)
    } else {
        format!("{sign}{}", parts.join(" "))
    }
}

/// `GET …/scheduled`'s answer.
#[derive(Debug, Deserialize)]
struct Scheduled {
    scheduled: Vec<ScheduledRow>,
}

/// The test clock's header (`runtime::test_hooks::NOW`, which the native build does not have).
const TEST_NOW: &str = "x-slackline-test-now";

/// The most pending schedules one listing reads.
const LISTED: u32 = 500;

/// Moves the team's clock and fires what falls due by then; the report, and the clock reached.
pub fn run(common: &ClientOptions, clock: &Clock) -> Result<Done, Failure> {
    let team = common.team.as_deref().ok_or_else(|| Usage("advance needs --team: the team whose schedules fall due".into()))?;
    let token = match &clock.admin_token {
        Some(token) => token.clone(),
        None => super::dev_var("ADMIN_TOKEN")
            .ok_or_else(|| Usage("no --admin-token, and no ADMIN_TOKEN in .dev.vars (run from the project, or pass --admin-token)".into()))?,
    };
    let target = common.admin_target()?;
    let now = now_ms();
    let at = clock.target(now);
    let due: Vec<ScheduledRow> = scheduled(&target, team, &token)?.into_iter().filter(|row| row.due_at <= at).collect();
    let (status, body) = target.admin("POST", &format!("/admin/teams/{team}/sweep"), &token, &[(TEST_NOW, &at.to_string())])?;
    if status != 200 {
        return Err(Failure::Unexpected(refused(status, &body)));
    }
    let still: Vec<ScheduledRow> = scheduled(&target, team, &token)?;
    let missed: Vec<&ScheduledRow> = due.iter().filter(|row| still.iter().any(|s| s.id == row.id && s.attempts == row.attempts)).collect();
    let mut lines = vec![format!("clock → {} ({} from now) for team {team}", format_time(at), format_duration(at - now))];
    lines.push(match due.len() {
        0 => "nothing was scheduled by then".to_string(),
        n => format!("{n} schedule(s) due by then:"),
    });
    for row in &due {
        let fate = match still.iter().find(|s| s.id == row.id) {
            None => "fired".to_string(),
            Some(s) if s.attempts == row.attempts => "NOT fired".to_string(),
            Some(s) => format!("tried, still pending after {} attempt(s)", s.attempts),
        };
        lines.push(format!("  {} due {} ({}): {fate}", row.key, format_time(row.due_at), repeats(row)));
    }
    lines.push(format!("  sweep: {}", sweep_summary(&body)));
    let report = lines.join("\n");
    if !missed.is_empty() {
        return Err(Failure::Unexpected(format!(
            "{report}\nslackline did not fire what was due by then: is it a test build with the test clock (`make dev TESTKIT=1`, ALLOW_TEST_CLOCK=1 in .dev.vars)?"
        )));
    }
    Ok(Done { report, ack: None, clock: Some(at) })
}

/// How a schedule repeats, in words.
fn repeats(row: &ScheduledRow) -> String {
    match (&row.calendar, row.every_ms) {
        (Some(calendar), _) => format!("at {calendar}"),
        (None, Some(every)) => format!("every {}", format_duration(every)),
        (None, None) => "once".into(),
    }
}

/// The sweep report's counts that say what ran.
fn sweep_summary(body: &str) -> String {
    let report: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
    let count = |name: &str| report[name].as_i64().unwrap_or(0);
    let mut summary = format!("claimed {}, delivered {}, pending {}", count("claimed"), count("delivered"), count("pending"));
    for (name, n) in ["retried", "parked"].map(|name| (name, count(name))) {
        if n > 0 {
            summary.push_str(&format!(", {name} {n}"));
        }
    }
    summary
}

/// The team's pending schedules.
fn scheduled(target: &Target, team: &str, token: &str) -> Result<Vec<ScheduledRow>, Failure> {
    let (status, body) = target.admin("GET", &format!("/admin/teams/{team}/scheduled?limit={LISTED}"), token, &[])?;
    if status != 200 {
        return Err(Failure::Unexpected(refused(status, &body)));
    }
    let listed: Scheduled = serde_json::from_str(&body).map_err(|e| Failure::Unexpected(format!("GET /admin/teams/{team}/scheduled: {e}: {body}")))?;
    Ok(listed.scheduled)
}

/// What an admin answer other than 200 means.
fn refused(status: u16, body: &str) -> String {
    match status {
        401 => "slackline refused the admin token (401): pass --admin-token, or check ADMIN_TOKEN in .dev.vars".into(),
        404 => format!("slackline answered 404 to its admin API: is ADMIN_TOKEN set in its settings? ({body})"),
        _ => format!("slackline's admin API answered {status}: {body}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rfc_3339_or_epoch_ms_and_read_back_the_same() {
        assert_eq!(parse_time("2026-12-08T09:00:00Z"), Ok(1_796_720_400_000));
        assert_eq!(parse_time("2026-12-08T10:00:00+01:00"), Ok(1_796_720_400_000), "an offset");
        assert_eq!(parse_time("2026-12-08T04:30-04:30"), Ok(1_796_720_400_000), "no seconds, a negative offset");
        assert_eq!(parse_time("2026-12-08T09:00:00.250Z"), Ok(1_796_720_400_250));
        assert_eq!(parse_time("1796720400000"), Ok(1_796_720_400_000));
        assert_eq!(format_time(1_796_720_400_000), "2026-12-08T09:00:00Z");
        assert_eq!(format_time(1_796_720_400_250), "2026-12-08T09:00:00.250Z");
        for wrong in ["", "tomorrow", "2026-12-08", "2026-12-08T09:00:00", "2026-13-08T09:00:00Z", "2026-12-08T25:00:00Z", "2026-12-08T09:00:00+0100"] {
            assert!(parse_time(wrong).unwrap_err().contains("is not a time"), "{wrong}");
        }
    }

    #[test]
    fn durations_add_their_units_up() {
        assert_eq!(parse_duration("24h"), Ok(86_400_000));
        assert_eq!(parse_duration("1d12h"), Ok(129_600_000));
        assert_eq!(parse_duration("90m"), Ok(5_400_000));
        assert_eq!(parse_duration("30s"), Ok(30_000));
        assert_eq!(parse_duration("1m500ms"), Ok(60_500));
        for wrong in ["", "h", "24", "24x", "1.5h", "-1h"] {
            assert!(parse_duration(wrong).unwrap_err().contains("is not a duration"), "{wrong}");
        }
        assert_eq!(format_duration(129_600_000 + 61_000), "1d 12h 1m 1s");
    }

    #[test]
    fn the_clock_moves_to_a_time_or_by_a_duration_from_where_it_was() {
        let clock = |to: Option<i64>, by: Option<i64>, from: Option<i64>| Clock { to, by, from, admin_token: None };
        assert_eq!(clock(Some(5), None, None).target(100), 5);
        assert_eq!(clock(None, Some(10), None).target(100), 110, "from now");
        assert_eq!(clock(None, Some(10), Some(1_000)).target(100), 1_010, "from where a script's last advance left it");
    }
}
