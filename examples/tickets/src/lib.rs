//! A ticket desk on slackline: Workflow Builder steps, unfurls and Work Objects, and middleware in
//! one bot.
//!
//! - `/ticket [title]` opens a modal (the title, filled with what followed the command, and a
//!   priority); a submission without a title is refused in the modal and records nothing; a valid
//!   one becomes the next ticket of the team, `TCK-{n}`, stored in state and posted in the channel
//!   the deployment's `TICKETS_CHANNEL` names, with "Take" and "Close" buttons (the post's
//!   `{channel, ts}` remembered).
//! - The custom step `create_ticket` (the manifest's `functions.create_ticket`) does the same from
//!   a workflow's inputs (`title`, optional `priority` and `reporter`) and completes with the
//!   outputs `ticket_id` and `ticket_url`; inputs it cannot take fail the step with a readable
//!   error. The execution is remembered with its ticket (`step:{execution}`), so the same
//!   execution delivered again under a fresh event id makes no second ticket.
//! - "Take" records the taker, updates the post and sends the taker a DM; "Close" closes the
//!   ticket and updates the post, its buttons gone.
//! - Links of `tickets.slackline.example` to a known ticket unfurl as Work Objects (tasks), and a
//!   click on one opens its flexpane, both from the ticket as stored; an unknown ticket's
//!   flexpane says it was not found.
//! - Every request first goes through the allow-list (`ALLOWED_TEAMS`, `ALLOWED_CHANNELS`).
//!
//! Invariants: a ticket's status only moves forward, so a double click or a Slack retry updates
//! the post once; each change is written in the request's unit, with its receipt and effects, or
//! not at all. Delivery to Slack is at least once, and a step ends once (slackline's).

pub mod ticket;

use serde_json::json;
use slackline::prelude::*;
use ticket::{Change, Draft, Ticket, CLOSE, DOMAIN, MODAL, TAKE};

/// The slash command that opens a ticket.
pub const COMMAND: &str = "/ticket";
/// The Workflow Builder step's `callback_id` (the manifest's function).
pub const STEP: &str = "create_ticket";
/// The setting naming the channel tickets are posted in.
pub const CHANNEL_VAR: &str = "TICKETS_CHANNEL";
/// The state key of the last ticket number given out.
pub const LAST_NUMBER_KEY: &str = "tickets:last";

/// The state key of the ticket `id`.
pub fn ticket_key(id: &str) -> String {
    format!("ticket:{id}")
}

/// The state key under which the post of the ticket `id` is remembered.
pub fn post_key(id: &str) -> String {
    format!("post:{id}")
}

/// The state key of the ticket the Workflow step execution `execution` created.
pub fn step_key(execution: &str) -> String {
    format!("step:{execution}")
}

/// The app, under the deployment's settings.
pub fn app(vars: &Vars) -> Listeners {
    let channel = vars.get(CHANNEL_VAR);
    let for_step = channel.clone();
    Listeners::new()
        // First, on every request: only the listed teams and channels reach the desk.
        .middleware(allow_list_from(vars))
        .command(COMMAND, |c, cx| {
            cx.open_modal(ticket::modal(&c.text));
            Ok(())
        })
        .view_submission(MODAL, move |v, cx| submitted(v, cx, channel.as_deref()))
        .function(STEP, move |step, cx| create_step(step, cx, for_step.as_deref()))
        .action(TAKE, take)
        .action(CLOSE, close)
        .unfurl(DOMAIN, unfurl)
        .entity_details(details)
}

/// A submitted modal: refused with its field errors, or a new ticket, posted.
fn submitted(v: &ViewIn, cx: &mut Cx, channel: Option<&str>) -> HandlerResult {
    match Draft::from_view(v) {
        Ok(draft) => create(cx, channel, draft).map(drop),
        Err(errors) => {
            cx.ack_errors(errors);
            Ok(())
        }
    }
}

/// The Workflow step: a new ticket from its inputs, and the step completed with its id and
/// link; inputs it cannot take fail the step. The same execution again (under a fresh event id)
/// finds its ticket and completes again, which slackline sends once.
fn create_step(step: &StepIn, cx: &mut Cx, channel: Option<&str>) -> HandlerResult {
    if let Some(id) = cx.state().get::<String>(&step_key(&step.execution_id))? {
        cx.complete(outputs(&id));
        return Ok(());
    }
    let draft = match Draft::from_step(step) {
        Ok(draft) => draft,
        Err(why) => {
            cx.fail(&why);
            return Ok(());
        }
    };
    let ticket = create(cx, channel, draft)?;
    cx.state().put(&step_key(&step.execution_id), &ticket.id)?;
    cx.complete(outputs(&ticket.id));
    Ok(())
}

/// The step's outputs, by the manifest's `output_parameters`.
fn outputs(id: &str) -> serde_json::Value {
    json!({ "ticket_id": id, "ticket_url": ticket::url(id) })
}

/// The next ticket of the team (`TCK-{n}`): stored, and posted in the desk's channel with its
/// post remembered. Without `TICKETS_CHANNEL` the request fails (recorded, parked as
/// `handler_failed`, redriven once the setting exists; a step is failed at once with the error).
fn create(cx: &mut Cx, channel: Option<&str>, draft: Draft) -> Result<Ticket, HandlerError> {
    let channel = channel.ok_or("TICKETS_CHANNEL is not set: the channel to post tickets in")?;
    let number = cx.state().update::<u64>(LAST_NUMBER_KEY, |n| Some(n.unwrap_or(0) + 1))?.unwrap_or(1);
    let ticket = Ticket::open(format!("TCK-{number}"), draft);
    cx.state().put(&ticket_key(&ticket.id), &ticket)?;
    cx.say(channel, &ticket.text()).blocks(ticket.blocks()).remember(&post_key(&ticket.id));
    Ok(ticket)
}

/// "Take": the clicker takes the open ticket, its post is updated and they get a DM (a post to a
/// user id lands in their DM with the app). Taken or closed already: nothing.
fn take(a: &ActionIn, cx: &mut Cx) -> HandlerResult {
    let who = a.interaction.user_id.clone().ok_or("the click names no user")?;
    let Some(ticket) = clicked(a, cx, |t| t.take(&who))? else { return Ok(()) };
    cx.dm(&who, &ticket.taken_note());
    Ok(())
}

/// "Close": the ticket is closed and its post updated, with no buttons left. Closed already:
/// nothing.
fn close(a: &ActionIn, cx: &mut Cx) -> HandlerResult {
    let who = a.interaction.user_id.clone().ok_or("the click names no user")?;
    clicked(a, cx, |t| t.close(&who)).map(drop)
}

/// The ticket a button names, changed by `change`: stored and its post updated (the remembered
/// one, else the clicked message) when it changed. `None` when it did not, or is unknown.
fn clicked(a: &ActionIn, cx: &mut Cx, change: impl FnOnce(&mut Ticket) -> Change) -> Result<Option<Ticket>, HandlerError> {
    let id = a.action.value.clone().ok_or("the button carries no ticket id")?;
    let Some(mut ticket) = cx.state().get::<Ticket>(&ticket_key(&id))? else { return Ok(None) };
    if change(&mut ticket) == Change::Unchanged {
        return Ok(None);
    }
    cx.state().put(&ticket_key(&id), &ticket)?;
    let here = cx.origin().channel.clone().zip(cx.origin().ts.clone()).map(|(channel, ts)| Posted { channel, ts });
    if let Some(post) = cx.state().get::<Posted>(&post_key(&id))?.or(here) {
        cx.update(&post.channel, &post.ts, ticket.message());
    }
    Ok(Some(ticket))
}

/// Ticket links shared (in a message, or still in the composer): each known ticket's Work Object.
/// A sharing of unknown tickets only is left as Slack shows it.
fn unfurl(links: &LinkShared, cx: &mut Cx) -> HandlerResult {
    let mut known = Vec::new();
    for link in &links.links {
        if let Some(ticket) = ticket::id_in(&link.url).map(|id| cx.state().get::<Ticket>(&ticket_key(id))).transpose()?.flatten() {
            known.push((link.url.as_str(), ticket));
        }
    }
    if !known.is_empty() {
        cx.unfurl(known.into_iter().fold(Unfurls::new(), |unfurls, (url, ticket)| unfurls.entity(url, ticket.entity())));
    }
    Ok(())
}

/// A click on a ticket's Work Object: its flexpane, from the ticket as stored now; an unknown
/// one's says so.
fn details(click: &EntityDetailsRequest, cx: &mut Cx) -> HandlerResult {
    match cx.state().get::<Ticket>(&ticket_key(&click.external_ref.id))? {
        Some(ticket) => cx.present_details(ticket.entity()),
        None => cx.present_details(DetailsError::NotFound),
    };
    Ok(())
}

// The manifest is compiled in: an install asks for its bot scopes (written there once).
slackline::worker!(app, manifest = "manifest.json");

#[cfg(test)]
mod tests;
