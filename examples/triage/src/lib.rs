//! An incident triage bot on slackline: `/incident` opens a modal (a title and a severity); a
//! submission with a blank title is refused in the modal (`response_action: errors`) and records
//! nothing; a valid one is stored in state (`incident:{id}`, the id being the submission's fact),
//! announced in the channel the deployment's `TRIAGE_CHANNEL` names with "Acknowledge" and
//! "Resolve" buttons, the announcement's `{channel, ts}` remembered (`post:{id}`), and a reminder
//! scheduled `TRIAGE_REMIND_MINUTES` (30) later: "still open" in the announcement's thread (read
//! when it is sent; top level in the channel if the announcement is not remembered then), unless
//! someone acknowledges or resolves it first (the click cancels it).
//!
//! A click updates the stored incident and its announcement (`chat.update` of the remembered
//! `ts`, else of the clicked message); an `:eyes:` reaction on the announcement assigns the
//! reacting user; the App Home lists the open incidents. With `TRIAGE_LIST` set, the incident is
//! mirrored as that Slack List's record (`cx.list_record`) when reported and at every change.
//! Invariants: an incident's status only moves forward, so a double click, or a Slack retry (the
//! same fact: its state change and its update's key are deduplicated by the unit), updates the
//! announcement (and the List record) once; every change is written in the request's unit with
//! its receipt and effects, or not at all.

pub mod incident;

use incident::{Change, Incident, Status, ACKNOWLEDGE, MODAL, RESOLVE};
use slackline::prelude::*;

/// The slash command that reports an incident.
pub const COMMAND: &str = "/incident";
/// The setting naming the channel incidents are announced in.
pub const CHANNEL_VAR: &str = "TRIAGE_CHANNEL";
/// The setting naming the Slack List (`F…`) incidents are mirrored in, if any.
pub const LIST_VAR: &str = "TRIAGE_LIST";
/// The setting: minutes after an announcement that "still open" is posted unless acknowledged.
pub const REMIND_VAR: &str = "TRIAGE_REMIND_MINUTES";
/// Its default: 30 minutes.
pub const REMIND_MINUTES: i64 = 30;

/// The reminder's schedule key for the incident `id` (what the Acknowledge button carries).
pub fn reminder_key(id: &str) -> String {
    format!("incident:{id}:remind")
}

/// The state key of the incident `id`.
pub fn incident_key(id: &str) -> String {
    format!("incident:{id}")
}

/// The state key under which the announcement of the incident `id` is remembered.
pub fn post_key(id: &str) -> String {
    format!("post:{id}")
}

/// The emoji whose reaction on an announcement assigns the reacting user.
pub const ASSIGN_REACTION: &str = "eyes";
/// How many incidents the App Home reads (in key order; the resolved ones are not shown).
pub const HOME_INCIDENTS: u32 = 50;
/// How many remembered announcements a reaction looks through for its message.
pub const POSTS_SCANNED: u32 = 1_000;

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
    let list = vars.get(LIST_VAR);
    let (on_ack, on_resolve, on_react) = (list.clone(), list.clone(), list.clone());
    Listeners::new()
        .command(COMMAND, |_, cx| {
            // No ack body: Slack gets an empty 200, and the modal opens right after it.
            cx.open_modal(incident::modal());
            Ok(())
        })
        .view_submission(MODAL, move |v, cx| report(v, cx, channel.as_deref(), remind.clone(), list.as_deref()))
        .action(ACKNOWLEDGE, move |a, cx| click(a, cx, Status::Acknowledged, on_ack.as_deref()))
        .action(RESOLVE, move |a, cx| click(a, cx, Status::Resolved, on_resolve.as_deref()))
        .event("reaction_added", move |e, cx| reaction(e, cx, on_react.as_deref()))
        .event("app_home_opened", home)
}

/// A submitted incident: refused in the modal with its field errors, or stored, announced (the
/// announcement remembered), mirrored in `list`, with its reminder scheduled.
fn report(v: &ViewIn, cx: &mut Cx, channel: Option<&str>, remind: Result<i64, String>, list: Option<&str>) -> HandlerResult {
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
    cx.state().put(&incident_key(&id), &incident)?;
    cx.say(channel, &incident.text()).blocks(incident.blocks(&id)).remember(&post_key(&id));
    mirror(cx, list, &id, &incident);
    // In the announcement's thread, read when the reminder is sent (top level if it is not remembered then).
    cx.schedule(&reminder_key(&id), When::after(remind)).say(channel, &incident.reminder()).in_thread_of(&post_key(&id));
    Ok(())
}

/// A click on "Acknowledge" or "Resolve": the incident moves to `to` and its announcement is
/// updated, and the reminder is cancelled (a click after it fired changes nothing); a second
/// click finds it there already and does nothing. An acknowledgement is also answered in the
/// announcement's thread. A click on an announcement from before incidents were stored only
/// cancels (and answers an acknowledgement).
fn click(a: &ActionIn, cx: &mut Cx, to: Status, list: Option<&str>) -> HandlerResult {
    let who = a.interaction.user_id.clone().unwrap_or_else(|| "someone".into());
    let id = a.action.value.clone().ok_or("the button carries no incident id")?;
    let change = match cx.state().get::<Incident>(&incident_key(&id))? {
        Some(mut incident) => match incident.advance(to, &who) {
            Change::Changed => {
                cx.state().put(&incident_key(&id), &incident)?;
                refresh(cx, &id, &incident, list)?;
                Change::Changed
            }
            Change::Unchanged => Change::Unchanged,
        },
        None => Change::Changed,
    };
    if change == Change::Changed {
        if to == Status::Acknowledged {
            cx.reply(&format!("<@{who}> acknowledged this incident"));
        }
        cx.cancel(&reminder_key(&id));
    }
    Ok(())
}

/// `chat.update` of the incident's announcement: the remembered one, else the message this
/// request is about (a click on it, before its answer was remembered); neither, nothing. And
/// the incident's List record, if a List is set.
fn refresh(cx: &mut Cx, id: &str, incident: &Incident, list: Option<&str>) -> HandlerResult {
    let here = cx.origin().channel.clone().zip(cx.origin().ts.clone()).map(|(channel, ts)| Posted { channel, ts });
    if let Some(post) = cx.state().get::<Posted>(&post_key(id))?.or(here) {
        cx.update(&post.channel, &post.ts, incident.message(id));
    }
    mirror(cx, list, id, incident);
    Ok(())
}

/// The incident as the record `id` of the Slack List `list` (`TRIAGE_LIST`), if one is set.
fn mirror(cx: &mut Cx, list: Option<&str>, id: &str, incident: &Incident) {
    if let Some(list) = list {
        cx.list_record(list, id, incident.record());
    }
}

/// An `:eyes:` reaction on an announcement: the reacting user is assigned, and the announcement
/// updated. Any other reaction, or one on another message, changes nothing.
fn reaction(e: &EventIn, cx: &mut Cx, list: Option<&str>) -> HandlerResult {
    let r: ReactionEvent = e.parse()?;
    let (Some(channel), Some(ts)) = (r.item.channel.as_deref(), r.item.ts.as_deref()) else { return Ok(()) };
    if r.reaction != ASSIGN_REACTION {
        return Ok(());
    }
    let posts = cx.state().scan::<Posted>("post:", POSTS_SCANNED)?;
    let Some(id) = posts.into_iter().find(|(_, p)| p.channel == channel && p.ts == ts).and_then(|(k, _)| k.strip_prefix("post:").map(str::to_string)) else {
        return Ok(());
    };
    let Some(mut incident) = cx.state().get::<Incident>(&incident_key(&id))? else { return Ok(()) };
    if incident.assign(&r.user) == Change::Changed {
        cx.state().put(&incident_key(&id), &incident)?;
        refresh(cx, &id, &incident, list)?;
    }
    Ok(())
}

/// The App Home tab: the open incidents (of the first [`HOME_INCIDENTS`] in key order).
fn home(e: &EventIn, cx: &mut Cx) -> HandlerResult {
    let opened: AppHomeOpened = e.parse()?;
    if opened.tab != "home" {
        return Ok(());
    }
    let incidents = cx.state().scan::<Incident>("incident:", HOME_INCIDENTS)?;
    let open: Vec<Incident> = incidents.into_iter().map(|(_, i)| i).filter(|i| i.status != Status::Resolved).collect();
    cx.publish_home(&opened.user, incident::home(&open));
    Ok(())
}

slackline::worker!(app);

#[cfg(test)]
mod tests;
