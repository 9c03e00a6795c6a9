//! An incident triage bot on slackline, first version: `/incident` opens a modal (a title and a
//! severity); a submission with a blank title is refused in the modal (`response_action: errors`)
//! and records nothing; a valid one is announced in the channel the deployment's `TRIAGE_CHANNEL`
//! names, with an "Acknowledge" button whose click is answered in the announcement's thread.
//!
//! Every answer is recorded with its request before Slack gets the 200, and the modal is opened
//! right after it (a `trigger_id` lives 3 seconds). Incidents are not kept yet: state, the
//! announcement's updates and reminders come with durable app state (issue 24).

pub mod incident;

use incident::{Incident, ACKNOWLEDGE, MODAL};
use slackline::app::listen::{ActionIn, Cx, HandlerResult, Listeners, ViewIn};
use slackline::app::Vars;

/// The slash command that reports an incident.
pub const COMMAND: &str = "/incident";
/// The setting naming the channel incidents are announced in.
pub const CHANNEL_VAR: &str = "TRIAGE_CHANNEL";

/// The app, under the deployment's settings.
pub fn app(vars: &Vars) -> Listeners {
    let channel = vars.get(CHANNEL_VAR);
    Listeners::new()
        .command(COMMAND, |_, cx| {
            // No ack body: Slack gets an empty 200, and the modal opens right after it.
            cx.open_modal(incident::modal());
            Ok(())
        })
        .view_submission(MODAL, move |v, cx| report(v, cx, channel.as_deref()))
        .action(ACKNOWLEDGE, acknowledge)
}

/// A submitted incident: refused in the modal with its field errors, or announced.
fn report(v: &ViewIn, cx: &mut Cx, channel: Option<&str>) -> HandlerResult {
    let incident = match Incident::from_view(v) {
        Ok(incident) => incident,
        Err(errors) => {
            cx.ack_errors(&errors);
            return Ok(());
        }
    };
    // Recorded and parked as `handler_failed` (with the submission) until the setting exists.
    let channel = channel.ok_or("TRIAGE_CHANNEL is not set: the channel to announce incidents in")?;
    cx.say(channel, &incident.text()).blocks(incident.blocks());
    Ok(())
}

/// A click on "Acknowledge": answered in the announcement's thread.
fn acknowledge(a: &ActionIn, cx: &mut Cx) -> HandlerResult {
    let who = a.interaction.user_id.as_deref().unwrap_or("someone");
    cx.reply(&format!("<@{who}> acknowledged this incident"));
    Ok(())
}

slackline::worker!(app);

#[cfg(test)]
mod tests;
