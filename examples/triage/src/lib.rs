//! An incident triage bot on slackline, first version: `/incident` opens a modal (a title and a
//! severity); a submission with a blank title is refused in the modal (`response_action: errors`)
//! and records nothing; a valid one is announced in the channel the deployment's `TRIAGE_CHANNEL`
//! names, with an "Acknowledge" button whose click is answered in the announcement's thread, and
//! a reminder is scheduled `TRIAGE_REMIND_MINUTES` (30) later: "still open" in the channel,
//! unless someone acknowledges first (the click cancels it).
//!
//! Every answer is recorded with its request before Slack gets the 200, and the modal is opened
//! right after it (a `trigger_id` lives 3 seconds). Incidents are not kept yet: state and the
//! announcement's updates come with durable app state (issue 24); until the bot remembers the
//! announcement's `ts`, the reminder is posted in the channel rather than in its thread.

pub mod incident;

use incident::{Incident, ACKNOWLEDGE, MODAL};
use slackline::app::listen::{ActionIn, Cx, HandlerResult, Listeners, ViewIn, When, MINUTE_MS};
use slackline::app::Vars;

/// The slash command that reports an incident.
pub const COMMAND: &str = "/incident";
/// The setting naming the channel incidents are announced in.
pub const CHANNEL_VAR: &str = "TRIAGE_CHANNEL";
/// The setting: minutes after an announcement that "still open" is posted unless acknowledged.
pub const REMIND_VAR: &str = "TRIAGE_REMIND_MINUTES";
/// Its default: 30 minutes.
pub const REMIND_MINUTES: i64 = 30;

/// The reminder's schedule key for the incident `id` (what the Acknowledge button carries).
pub fn reminder_key(id: &str) -> String {
    format!("incident:{id}:remind")
}

/// The reminder delay (ms) a deployment's settings ask for, or why they are wrong.
fn remind_after(vars: &Vars) -> Result<i64, String> {
    match vars.get(REMIND_VAR) {
        None => Ok(REMIND_MINUTES * MINUTE_MS),
        Some(v) => v.parse::<i64>().ok().filter(|m| *m > 0).map(|m| m * MINUTE_MS).ok_or(format!("{REMIND_VAR} must be a whole number of minutes, not {v:?}")),
    }
}

/// The app, under the deployment's settings.
pub fn app(vars: &Vars) -> Listeners {
    let (channel, remind) = (vars.get(CHANNEL_VAR), remind_after(vars));
    Listeners::new()
        .command(COMMAND, |_, cx| {
            // No ack body: Slack gets an empty 200, and the modal opens right after it.
            cx.open_modal(incident::modal());
            Ok(())
        })
        .view_submission(MODAL, move |v, cx| report(v, cx, channel.as_deref(), remind.clone()))
        .action(ACKNOWLEDGE, acknowledge)
}

/// A submitted incident: refused in the modal with its field errors, or announced, with its
/// reminder scheduled.
fn report(v: &ViewIn, cx: &mut Cx, channel: Option<&str>, remind: Result<i64, String>) -> HandlerResult {
    let incident = match Incident::from_view(v) {
        Ok(incident) => incident,
        Err(errors) => {
            cx.ack_errors(&errors);
            return Ok(());
        }
    };
    // Recorded and parked as `handler_failed` (with the submission) until the setting exists.
    let channel = channel.ok_or("TRIAGE_CHANNEL is not set: the channel to announce incidents in")?;
    let remind = remind?;
    // The submission's fact names the incident: its duplicates name the same one.
    let id = cx.origin().fact.clone();
    cx.say(channel, &incident.text()).blocks(incident.blocks(&id));
    cx.schedule(&reminder_key(&id), When::after(remind)).say(channel, &incident.reminder());
    Ok(())
}

/// A click on "Acknowledge": answered in the announcement's thread; the reminder is cancelled (a
/// click after it fired, or a second click, changes nothing).
fn acknowledge(a: &ActionIn, cx: &mut Cx) -> HandlerResult {
    let who = a.interaction.user_id.as_deref().unwrap_or("someone");
    cx.reply(&format!("<@{who}> acknowledged this incident"));
    if let Some(id) = a.action.value.as_deref() {
        cx.cancel(&reminder_key(id));
    }
    Ok(())
}

slackline::worker!(app);

#[cfg(test)]
mod tests;
