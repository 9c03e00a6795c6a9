//! Middleware: what a request passes through before a handler runs, as in Bolt (`app.use`,
//! listener middleware, a custom `authorize`): an allow-list of teams or channels, a kill switch,
//! a tenant check, a user lookup whose result the handler reads.
//!
//! ```
//! use slackline::prelude::*;
//!
//! /// Who asked, as the app knows them (looked up once, read by any handler).
//! struct Caller { admin: bool }
//!
//! let app = Listeners::new()
//!     // Every request, in registration order, before any listener is chosen.
//!     .middleware(|_, cx| match cx.state().get::<bool>("paused")? {
//!         Some(true) => Ok(Next::Ignore("paused")),
//!         _ => Ok(Next::Continue),
//!     })
//!     .middleware(|_, cx| {
//!         let user = cx.origin().user.clone().unwrap_or_default();
//!         let admin = cx.state().get::<bool>(&format!("admin:{user}"))?.unwrap_or(false);
//!         cx.insert(Caller { admin });
//!         Ok(Next::Continue)
//!     })
//!     .mention(|_, cx| { cx.reply("Hi!"); Ok(()) })
//!     // Only the listeners of the group, once one of them took the request.
//!     .group(
//!         |_, cx| Ok(if cx.extension::<Caller>().is_some_and(|c| c.admin) { Next::Continue } else { Next::Ignore("not_admin") }),
//!         |admin| admin.command("/purge", |_, cx| { cx.ack_ephemeral("Purged."); Ok(()) }),
//!     );
//! # let _ = app;
//! ```
//!
//! **What a middleware is.** A pure function of the request ([`Dispatch`]) and the request's
//! [`Cx`], returning a [`MiddlewareResult`]. It is part of the app's decision: it runs inside the
//! team actor's atomic unit, with the same `Cx` the handler gets after it, so it reads the team's
//! state, queues effects and sets the ack exactly as a handler does, and hands values to the
//! handler by their type ([`Cx::insert`], [`Cx::extension`]). Like a handler it has no network,
//! no randomness, and no clock but `cx.now()`.
//!
//! **What it decides.**
//! - `Ok(Next::Continue)`: the next middleware runs, then the handler.
//! - `Ok(Next::Ignore(reason))`: the run ends there. The request is recorded (receipt, Slack's
//!   200), ignored with `reason` (the `request` log line's `reason`, as `no_listener` is), and
//!   **nothing is queued and no state is written** — not what this middleware queued, nor what
//!   an earlier one did. Only the ack body stands (a command's "paused for maintenance"; an
//!   event's ack is always empty).
//! - `Err(error)`: the request fails exactly as a handler's `Err` does ([`Decision::Failed`]):
//!   recorded, kept as a parked `handler_failed` row for a redrive, which runs the middleware again.
//!   A middleware that panics fails the same way (`crate::app::guard`).
//!
//! **Order.** Global middleware ([`Listeners::middleware`]) runs first, in registration order,
//! for **every** request, before any listener is chosen: a request no listener takes, and a bot's
//! message, go through it too, so a kill switch or an allow-list covers everything. Then, once a
//! listener took the request (the first that matches, as always), its group's middleware
//! ([`Listeners::group`]: the outer group's first), then its handler. The first middleware that
//! does not continue ends the run; the later ones never see the request. A group's `Ignore` ends
//! the request: it does not fall through to a later listener.
//!
//! [`allow_list`] and [`allow_list_from`] make the ready-made one: the teams and channels the
//! app answers ([`AllowList`]).
//!
//! Invariants: one `Cx` per request, so what a middleware inserted is there for the handler;
//! what the unit records is what that `Cx` holds when the run ends, as [`Decision`] says; and a
//! reason is a `&'static str`, a code (`not_allowed:team`), never a message built from the input,
//! so the log's `reason` stays a short list of values to count by.
//!
//! [`Decision`]: crate::app::Decision
//! [`Decision::Failed`]: crate::app::Decision::Failed

mod allow_list;
pub(super) mod extensions;

pub use allow_list::{allow_list, allow_list_from, AllowList, ALLOWED_CHANNELS, ALLOWED_TEAMS, NOT_ALLOWED_CHANNEL, NOT_ALLOWED_TEAM};

use super::cx::Cx;
use super::{HandlerError, Listeners};
use crate::slack::envelope::Dispatch;
use std::rc::Rc;

/// What a middleware decides about the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Next {
    /// Go on: the next middleware, then the handler.
    Continue,
    /// Stop: the request is recorded and ignored with this reason; nothing is queued.
    Ignore(&'static str),
}

/// What a middleware returns: an `Err` fails the request like a handler's.
pub type MiddlewareResult = Result<Next, HandlerError>;

/// A middleware as the listeners keep it (shared by every listener of its group).
pub(super) type Middleware = Rc<dyn Fn(&Dispatch, &mut Cx) -> MiddlewareResult>;

/// Runs `chain` in order on the request: `Continue` when every middleware lets it through, else
/// the first one's `Ignore` or `Err`.
pub(super) fn run_chain(chain: &[Middleware], request: &Dispatch, cx: &mut Cx) -> MiddlewareResult {
    for middleware in chain {
        if let stop @ Next::Ignore(_) = middleware(request, cx)? {
            return Ok(stop);
        }
    }
    Ok(Next::Continue)
}

impl Listeners {
    /// Adds a global middleware: it runs on every request, before any listener is chosen, after
    /// the global middleware registered before it (see [`middleware`](crate::app::listen::middleware)).
    pub fn middleware(mut self, middleware: impl Fn(&Dispatch, &mut Cx) -> MiddlewareResult + 'static) -> Listeners {
        self.middleware.push(Rc::new(middleware));
        self
    }

    /// Adds the listeners `listeners` registers, behind `middleware`: it runs when one of them
    /// takes the request, after the global middleware, before its handler. Inside, `.middleware`
    /// adds to the group's chain (after `middleware`), and a `group` nests (the outer group's
    /// middleware first). The listeners keep their place: after those registered before the
    /// group, before those registered after it.
    pub fn group(mut self, middleware: impl Fn(&Dispatch, &mut Cx) -> MiddlewareResult + 'static, listeners: impl FnOnce(Listeners) -> Listeners) -> Listeners {
        let inner = listeners(Listeners::new());
        let chain: Vec<Middleware> = std::iter::once(Rc::new(middleware) as Middleware).chain(inner.middleware).collect();
        for mut listener in inner.listeners {
            listener.middleware.splice(0..0, chain.iter().cloned());
            self.listeners.push(listener);
        }
        self.secret_prefixes.extend(inner.secret_prefixes);
        self
    }
}

impl Cx {
    /// Keeps `value` for the rest of the request's run, for the handler (or a later middleware)
    /// to read back by its type with [`extension`](Cx::extension): one value per type, a second
    /// insert of a type replaces the first (which is returned). Nothing of it is stored.
    pub fn insert<T: 'static>(&mut self, value: T) -> Option<T> {
        self.extensions.insert(value)
    }

    /// The value of type `T` a middleware kept with [`insert`](Cx::insert), if any.
    pub fn extension<T: 'static>(&self) -> Option<&T> {
        self.extensions.get::<T>()
    }
}

#[cfg(test)]
mod tests;
