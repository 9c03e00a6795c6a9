//! Unfurls and Work Objects on the listener API: `.link_shared(h)` (every `link_shared`) or
//! `.unfurl(domain, h)` (the links of one of the app's domains) hands the sharing over typed
//! ([`LinkShared`]: its links, `source`, `channel`, `message_ts`, `unfurl_id`), and
//! `cx.unfurl(Unfurls)` previews them — classic attachments or blocks, and Work Objects
//! ([`Entity`](crate::kinds::unfurl::Entity)); `.entity_details(h)` takes a click on a Work
//! Object ([`EntityDetailsRequest`]) and `cx.present_details(entity)` answers with its flexpane.
//!
//! What slackline adds (`crate::kinds::unfurl`): each answer is an outbox row queued with the
//! event's receipt, keyed by the sharing (its `unfurl_id`) or the click (its `trigger_id`), so
//! Slack's retries add nothing; `chat.unfurl` names the composer's links by `unfurl_id` + `source`
//! and a posted message's by `channel` + `ts`, as Slack wants; a flexpane not sent within its
//! trigger's 3 s is parked `expired`, never sent with a dead trigger.
//!
//! ```
//! use slackline::prelude::*;
//!
//! let app = Listeners::new()
//!     .unfurl("tickets.example.com", |links, cx| {
//!         let mut unfurls = Unfurls::new();
//!         for link in &links.links {
//!             let id = link.url.rsplit('/').next().unwrap_or_default();
//!             unfurls = unfurls.entity(&link.url, Entity::task(id, &link.url, &format!("Ticket {id}")));
//!         }
//!         cx.unfurl(unfurls);
//!         Ok(())
//!     })
//!     .entity_details(|click, cx| {
//!         let id = &click.external_ref.id;
//!         let url = click.entity_url.clone().unwrap_or_default();
//!         cx.present_details(Entity::task(id, &url, &format!("Ticket {id}")));
//!         Ok(())
//!     });
//! # let _ = app;
//! ```

use super::cx::TRIGGER_DEADLINE_MS;
use super::middleware::Middleware;
use super::run::{Ran, Turn};
use super::{Cx, EffectRef, HandlerResult, Listeners, Origin, Route};
use crate::kinds::registry::Action;
use crate::kinds::unfurl::{self, Details, EntityDetailsRequest, LinkShared, UnfurlTarget, Unfurls, UNFURL_DEADLINE_MS};
use crate::slack::envelope::EventEnvelope;

/// A `link_shared` / `unfurl` listener's handler.
pub(super) type LinkHandler = Box<dyn Fn(&LinkShared, &mut Cx) -> HandlerResult>;
/// An `entity_details` listener's handler.
pub(super) type DetailsHandler = Box<dyn Fn(&EntityDetailsRequest, &mut Cx) -> HandlerResult>;

impl Listeners {
    /// Every `link_shared` (links of any of the app's unfurl domains): preview them with
    /// [`Cx::unfurl`].
    pub fn link_shared(self, handler: impl Fn(&LinkShared, &mut Cx) -> HandlerResult + 'static) -> Listeners {
        self.with(Route::LinkShared(None, Box::new(handler)))
    }

    /// The links of `domain` (and its subdomains) in a `link_shared`: the handler gets those
    /// links only; a sharing with none goes on to the next listener. The first listener that
    /// takes a sharing runs: an app whose domains share messages registers one `link_shared`.
    pub fn unfurl(self, domain: &str, handler: impl Fn(&LinkShared, &mut Cx) -> HandlerResult + 'static) -> Listeners {
        self.with(Route::LinkShared(Some(domain.to_string()), Box::new(handler)))
    }

    /// A click on one of the app's Work Objects (`entity_details_requested`): answer with
    /// [`Cx::present_details`].
    pub fn entity_details(self, handler: impl Fn(&EntityDetailsRequest, &mut Cx) -> HandlerResult + 'static) -> Listeners {
        self.with(Route::EntityDetails(Box::new(handler)))
    }
}

impl Cx {
    /// Previews this request's shared links (`chat.unfurl`, Tier 3): by `unfurl_id` + `source` in
    /// the composer, else by `channel` + `ts`; deadline 30 minutes. Outside a `link_shared`, or
    /// with nothing to preview, the handler fails with a misuse.
    pub fn unfurl(&mut self, unfurls: Unfurls) -> Option<EffectRef<'_>> {
        let Some(target) = self.origin().unfurl.clone() else {
            self.note_misuse("unfurl: this request is not a link_shared");
            return None;
        };
        if unfurls.is_empty() {
            self.note_misuse("unfurl: nothing to preview (no unfurl, no Work Object)");
            return None;
        }
        let (method, args) = unfurl::unfurl_call(&target, &unfurls);
        Some(self.push("unfurl", Action::slack_api(method, args), Some(UNFURL_DEADLINE_MS)))
    }

    /// Answers a click on a Work Object with its flexpane (`entity.presentDetails` with the
    /// request's `trigger_id`): an [`Entity`](crate::kinds::unfurl::Entity), a
    /// [`DetailsError`](crate::kinds::unfurl::DetailsError), or [`Details::Raw`]. Its deadline is
    /// the trigger's life (3 s): later, it is parked `expired`. Without a `trigger_id` the handler
    /// fails with a misuse.
    pub fn present_details(&mut self, details: impl Into<Details>) -> Option<EffectRef<'_>> {
        let Some(trigger) = self.origin().trigger_id.clone() else {
            self.note_misuse("present_details: this request has no trigger_id (not an entity_details_requested)");
            return None;
        };
        let (method, args) = unfurl::details_call(&trigger, &details.into());
        Some(self.push("present_details", Action::slack_api(method, args), Some(TRIGGER_DEADLINE_MS)))
    }
}

/// A `link_shared` for a listener of `domain` (any, without one): its handler runs with the
/// sharing's links (of that domain), behind the listener's middleware; a sharing with none of
/// them goes on to the next listener. An event that cannot be read as a sharing Slack could be
/// answered for fails the handler.
pub(super) fn run_link_shared(domain: Option<&str>, h: &LinkHandler, envelope: &EventEnvelope, chain: &[Middleware], turn: &mut Turn<'_>) -> Option<Ran> {
    let links = match LinkShared::from_event(&envelope.raw) {
        Ok(links) => links,
        Err(why) => return Some(turn.run(chain, |_| Err(why.into()))),
    };
    let links = match domain {
        Some(domain) => links.only_in(domain)?,
        None => links,
    };
    Some(turn.run(chain, |cx| h(&links, cx)))
}

/// A click on a Work Object: its handler runs; an event without a trigger or an entity fails it.
pub(super) fn run_entity_details(h: &DetailsHandler, envelope: &EventEnvelope, chain: &[Middleware], turn: &mut Turn<'_>) -> Ran {
    let request = EntityDetailsRequest::from_event(&envelope.raw);
    turn.run(chain, |cx| h(&request?, cx))
}

/// The origin of a `link_shared` or an `entity_details_requested` that can be read as one (see
/// `super::origin`: a request's origin is a function of the request alone); `None` for any other
/// event.
pub(super) fn origin_of(envelope: &EventEnvelope) -> Option<Origin> {
    match envelope.event.type_name() {
        unfurl::LINK_SHARED => LinkShared::from_event(&envelope.raw).ok().map(|links| link_origin(&links)),
        unfurl::ENTITY_DETAILS_REQUESTED => EntityDetailsRequest::from_event(&envelope.raw).ok().map(|request| details_origin(&request)),
        _ => None,
    }
}

/// A sharing's "here": keyed by the sharing; a composer's links have no channel or message yet.
fn link_origin(links: &LinkShared) -> Origin {
    let posted = !links.in_composer();
    Origin {
        fact: unfurl::link_fact(links),
        channel: posted.then(|| links.channel.clone()),
        ts: posted.then(|| links.message_ts.clone()),
        thread_ts: posted.then(|| links.thread_ts.clone().unwrap_or_else(|| links.message_ts.clone())),
        user: Some(links.user.clone()),
        unfurl: Some(UnfurlTarget::of(links)),
        ..Origin::default()
    }
}

/// A click's "here": keyed by its trigger; the message the Work Object is in.
fn details_origin(request: &EntityDetailsRequest) -> Origin {
    Origin {
        fact: unfurl::details_fact(request),
        channel: request.channel.clone(),
        ts: request.message_ts.clone(),
        thread_ts: request.thread_ts.clone().or_else(|| request.message_ts.clone()),
        trigger_id: Some(request.trigger_id.clone()),
        user: request.user.clone(),
        ..Origin::default()
    }
}

#[cfg(test)]
mod tests;
