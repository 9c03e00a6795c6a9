//! A daily digest bot on slackline: "post the open tickets every day at 09:00", a schedule that
//! runs code (docs/app.md).
//!
//! `/ticket open <title>` and `/ticket close <title>` keep a channel's open tickets in the team's
//! state. `/digest` in a channel schedules the channel's digest at `DIGEST_CRON` (default
//! `0 9 * * *`: every day at 09:00) in `DIGEST_ZONE` (default `Europe/Berlin`), daylight saving
//! applied, until `/digest stop` in that channel cancels it; `DIGEST_EVERY_MINUTES`, when set,
//! repeats it that often from now instead. Each time it falls due, its `on_schedule` listener runs
//! in the team's actor and posts the open tickets *as they are then*. The schedule is a row of the
//! team's actor: it survives restarts and deploys; after downtime the digest runs once, late, and
//! the times it missed are skipped (counted in its delivery line, `schedule_missed`). A second
//! `/digest` while one is scheduled changes nothing (one pending occurrence per key).

use slackline::prelude::*;

/// The slash command that starts and stops a channel's digest.
pub const COMMAND: &str = "/digest";
/// The slash command that opens and closes tickets.
pub const TICKET: &str = "/ticket";
/// The setting: when the digest runs, a cron line (`minute hour day month weekday`).
pub const CRON_VAR: &str = "DIGEST_CRON";
/// Its default: every day at 09:00.
pub const CRON: &str = "0 9 * * *";
/// The setting: the time zone `DIGEST_CRON` is read in (an IANA name).
pub const ZONE_VAR: &str = "DIGEST_ZONE";
/// Its default.
pub const ZONE: &str = "Europe/Berlin";
/// The setting: minutes between two digests, from `/digest` on (instead of the calendar).
pub const EVERY_VAR: &str = "DIGEST_EVERY_MINUTES";

/// The schedule key of a channel's digest.
pub fn digest_key(channel: &str) -> String {
    format!("digest:{channel}")
}

/// The state key of a channel's open tickets.
fn tickets_key(channel: &str) -> String {
    format!("tickets:{channel}")
}

/// When the digest runs under the deployment's settings, and how `/digest` says it; or why the
/// settings are wrong.
fn schedule(vars: &Vars) -> Result<(When, String), String> {
    if let Some(v) = vars.get(EVERY_VAR) {
        let minutes = v.parse::<i64>().ok().filter(|m| *m > 0).ok_or(format!("{EVERY_VAR} must be a whole number of minutes, not {v:?}"))?;
        return Ok((When::after(0).every(minutes * MINUTE_MS), format!("every {minutes} minutes, starting now")));
    }
    let (cron, zone) = (vars.get(CRON_VAR).unwrap_or_else(|| CRON.into()), vars.get(ZONE_VAR).unwrap_or_else(|| ZONE.into()));
    let when = When::cron(&cron, &zone).map_err(|e| format!("{CRON_VAR} / {ZONE_VAR}: {e}"))?;
    Ok((when, format!("at `{cron}` ({zone})")))
}

/// The app, under the deployment's settings.
pub fn app(vars: &Vars) -> Listeners {
    let when = schedule(vars);
    Listeners::new().command(COMMAND, move |c, cx| digest(c, cx, when.clone())).command(TICKET, ticket).on_schedule("digest:*", post_digest)
}

/// `/digest` starts the channel's digest, `/digest stop` stops it.
fn digest(c: &SlashCommand, cx: &mut Cx, when: Result<(When, String), String>) -> HandlerResult {
    let key = digest_key(&c.channel_id);
    if c.text.trim() == "stop" {
        cx.cancel(&key);
        cx.ack_ephemeral("Digest stopped.");
        return Ok(());
    }
    let (when, said) = when?;
    cx.schedule(&key, when).run();
    cx.ack_ephemeral(&format!("Digest of the open tickets {said}."));
    Ok(())
}

/// `/ticket open <title>` and `/ticket close <title>`.
fn ticket(c: &SlashCommand, cx: &mut Cx) -> HandlerResult {
    let (verb, title) = c.text.trim().split_once(' ').map(|(v, t)| (v, t.trim().to_string())).unwrap_or((c.text.trim(), String::new()));
    if title.is_empty() || !matches!(verb, "open" | "close") {
        cx.ack_ephemeral("Usage: /ticket open <title> or /ticket close <title>");
        return Ok(());
    }
    cx.state().update::<Vec<String>>(&tickets_key(&c.channel_id), |open| {
        let mut open = open.unwrap_or_default();
        open.retain(|t| t != &title);
        if verb == "open" {
            open.push(title.clone());
        }
        Some(open)
    })?;
    cx.ack_ephemeral(&format!("Ticket {verb}ed: {title}"));
    Ok(())
}

/// The digest, when it falls due: the channel's open tickets as they are now.
fn post_digest(fired: &Fired, cx: &mut Cx) -> HandlerResult {
    let channel = fired.key.strip_prefix("digest:").unwrap_or_default().to_string();
    let open = cx.state().get::<Vec<String>>(&tickets_key(&channel))?.unwrap_or_default();
    let text = match open.len() {
        0 => "No open tickets.".to_string(),
        n => format!("{n} open ticket{}: {}", if n == 1 { "" } else { "s" }, open.join(", ")),
    };
    cx.say(&channel, &text);
    Ok(())
}

slackline::worker!(app);

#[cfg(test)]
mod tests {
    use super::*;
    use slackline::testing::{command, handle, Team};

    const HOUR: i64 = 60 * MINUTE_MS;

    fn digests() -> Listeners {
        app(&Vars::of(&[]))
    }

    /// 26 March 2026, 12:00 UTC: a Thursday, three days before Berlin's clocks go forward.
    const MARCH_26_NOON: i64 = 1_774_526_400_000;

    /// Runs the team's clock on an hour at a time for `hours`, running what falls due; the texts
    /// posted, with when each ran.
    fn hours(team: &Team, hours: i64) -> Vec<(i64, String)> {
        let mut posted = Vec::new();
        for _ in 0..hours {
            team.advance(HOUR);
            for firing in team.run_due(&digests()) {
                let (_, args) = &firing.handled.calls()[0];
                posted.push((firing.due_at, args["text"].as_str().unwrap_or_default().to_string()));
            }
        }
        posted
    }

    #[test]
    fn the_digest_posts_the_tickets_open_at_nine_in_berlin_across_the_change_to_summer_time() {
        let team = Team::at(MARCH_26_NOON);
        team.handle(&digests(), &command(COMMAND, ""));
        team.handle(&digests(), &command(TICKET, "open printer on fire"));
        let first = hours(&team, 24);
        // 27 March, 09:00 CET = 08:00 UTC.
        assert_eq!(first, [(MARCH_26_NOON + 20 * HOUR, "1 open ticket: printer on fire".to_string())]);
        team.handle(&digests(), &command(TICKET, "open VPN down"));
        team.handle(&digests(), &command(TICKET, "close printer on fire"));
        let next = hours(&team, 3 * 24);
        let due: Vec<i64> = next.iter().map(|(at, _)| *at).collect();
        // 28 March 09:00 CET (08:00 UTC); 29 and 30 March 09:00 CEST (07:00 UTC).
        assert_eq!(due, [MARCH_26_NOON + 44 * HOUR, MARCH_26_NOON + 67 * HOUR, MARCH_26_NOON + 91 * HOUR]);
        assert_eq!(next[0].1, "1 open ticket: VPN down", "computed when it fires, not when /digest ran");
    }

    #[test]
    fn after_the_runtime_was_down_over_nine_the_digest_runs_once_late_and_skips_the_rest() {
        let team = Team::at(MARCH_26_NOON);
        team.handle(&digests(), &command(COMMAND, ""));
        team.advance(3 * 24 * HOUR);
        let fired = team.run_due(&digests());
        assert_eq!(fired.len(), 1, "once, late");
        assert_eq!((fired[0].due_at, fired[0].missed), (MARCH_26_NOON + 20 * HOUR, 2), "27 March's ran; 28 and 29 March's skipped");
        assert_eq!(fired[0].handled.calls()[0].1["text"], "No open tickets.");
        assert_eq!(team.pending_schedules()[0].due_at, MARCH_26_NOON + 91 * HOUR, "then on time: 30 March, 09:00 CEST");
    }

    #[test]
    fn stop_cancels_the_channels_digest_and_a_second_digest_adds_nothing() {
        let team = Team::at(MARCH_26_NOON);
        team.handle(&digests(), &command(COMMAND, ""));
        team.handle(&digests(), &command(COMMAND, ""));
        assert_eq!(team.pending_schedules().len(), 1);
        assert_eq!(handle(&digests(), &command(COMMAND, "stop")).cancelled(), [digest_key("C1")]);
        team.handle(&digests(), &command(COMMAND, "stop"));
        assert!(team.pending_schedules().is_empty());
    }

    #[test]
    fn the_schedule_is_the_deployments_setting_and_a_bad_one_fails_the_command() {
        let hourly = app(&Vars::of(&[(EVERY_VAR, "60")]));
        let schedule = handle(&hourly, &command(COMMAND, "")).queued()[0].schedule.clone().expect("scheduled");
        assert_eq!(schedule.when.every_ms, Some(60 * MINUTE_MS));
        let weekdays = app(&Vars::of(&[(CRON_VAR, "30 8 * * 1-5"), (ZONE_VAR, "America/New_York")]));
        let done = handle(&weekdays, &command(COMMAND, ""));
        assert_eq!(done.queued()[0].schedule.clone().expect("scheduled").when, When::cron("30 8 * * 1-5", "America/New_York").unwrap());
        assert_eq!(done.ack.unwrap()["text"], "Digest of the open tickets at `30 8 * * 1-5` (America/New_York).");
        for bad in [app(&Vars::of(&[(EVERY_VAR, "often")])), app(&Vars::of(&[(ZONE_VAR, "Mars/Olympus")]))] {
            let failed = handle(&bad, &command(COMMAND, ""));
            assert!(failed.failed.as_deref().is_some_and(|why| why.contains("DIGEST_")), "{:?}", failed.failed);
        }
    }
}
