//! A daily digest bot on slackline: the recurring schedule (`When::every`) of docs/app.md.
//!
//! `/digest` in a channel posts the channel's digest now and then every `DIGEST_EVERY_MINUTES`
//! (1440: daily) until `/digest stop` in that channel cancels it. The schedule is an outbox row
//! of the team's actor: it survives restarts and deploys, each occurrence queues the next when it
//! ends, and occurrences missed while the runtime was down are skipped (one digest, then on
//! schedule). A second `/digest` while one is scheduled changes nothing (one pending occurrence
//! per key).
//!
//! The digest's text is fixed when it is scheduled: computing it when it fires needs a handler
//! run then, which slackline does not do yet.

use slackline::prelude::*;

/// The slash command.
pub const COMMAND: &str = "/digest";
/// The setting: minutes between two digests.
pub const EVERY_VAR: &str = "DIGEST_EVERY_MINUTES";
/// Its default: a day.
pub const EVERY_MINUTES: i64 = 24 * 60;

/// The schedule key of a channel's digest.
pub fn digest_key(channel: &str) -> String {
    format!("digest:{channel}")
}

/// The interval (ms) the deployment's settings ask for, or why they are wrong.
fn every(vars: &Vars) -> Result<i64, String> {
    match vars.get(EVERY_VAR) {
        None => Ok(EVERY_MINUTES * MINUTE_MS),
        Some(v) => v.parse::<i64>().ok().filter(|m| *m > 0).map(|m| m * MINUTE_MS).ok_or(format!("{EVERY_VAR} must be a whole number of minutes, not {v:?}")),
    }
}

/// The app, under the deployment's settings.
pub fn app(vars: &Vars) -> Listeners {
    let every = every(vars);
    Listeners::new().command(COMMAND, move |c, cx| digest(c, cx, every.clone()))
}

/// `/digest` starts the channel's digest, `/digest stop` stops it.
fn digest(c: &SlashCommand, cx: &mut Cx, every: Result<i64, String>) -> HandlerResult {
    let key = digest_key(&c.channel_id);
    if c.text.trim() == "stop" {
        cx.cancel(&key);
        cx.ack_ephemeral("Digest stopped.");
        return Ok(());
    }
    let every = every?;
    cx.schedule(&key, When::after(0).every(every)).say(&c.channel_id, &format!("Digest of <#{}>: what happened since the last one.", c.channel_id));
    cx.ack_ephemeral(&format!("Digest every {} minutes, starting now.", every / MINUTE_MS));
    Ok(())
}

slackline::worker!(app);

#[cfg(test)]
mod tests {
    use super::*;
    use slackline::testing::{command, handle, Schedule};

    fn digests() -> Listeners {
        app(&Vars::of(&[]))
    }

    #[test]
    fn digest_schedules_a_daily_post_in_the_channel_starting_now() {
        let done = handle(&digests(), &command(COMMAND, ""));
        let digest = &done.queued()[0];
        assert_eq!(digest.schedule, Some(Schedule { key: digest_key("C1"), when: When::after(0).every(24 * 60 * MINUTE_MS) }));
        assert_eq!((digest.method.as_str(), digest.args["channel"].as_str()), ("chat.postMessage", Some("C1")));
        assert_eq!(done.ack.unwrap()["text"], "Digest every 1440 minutes, starting now.");
    }

    #[test]
    fn stop_cancels_the_channels_digest() {
        let done = handle(&digests(), &command(COMMAND, "stop"));
        assert_eq!(done.queued()[0].cancels, Some(digest_key("C1")));
    }

    #[test]
    fn the_interval_is_the_deployments_setting_and_a_bad_one_fails_the_command() {
        let hourly = app(&Vars::of(&[(EVERY_VAR, "60")]));
        let schedule = handle(&hourly, &command(COMMAND, "")).queued()[0].schedule.clone().expect("scheduled");
        assert_eq!(schedule.when.every_ms, Some(60 * MINUTE_MS));
        let bad = handle(&app(&Vars::of(&[(EVERY_VAR, "often")])), &command(COMMAND, ""));
        assert!(bad.failed.as_deref().is_some_and(|why| why.contains(EVERY_VAR)), "{:?}", bad.failed);
    }
}
