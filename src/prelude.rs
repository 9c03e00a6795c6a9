//! The names a bot needs to write its app, in one import: `use slackline::prelude::*;`.
//!
//! **Why a prelude.** The crate is the whole backend: the front door, the team actor, the outbox,
//! the admin API, each with public types of its own. A bot sees none of that: it lists listeners
//! and answers with effects. This module is that surface, and only it; with
//! [`testing`](crate::testing) (its tests) and [`worker!`](crate::worker) (its entry point) it is
//! all a bot's crate imports (`examples/` and `template/` import nothing else, and
//! `tests/layout.rs` keeps it so). A name belongs here when a bot's code has to *write* it: in a
//! signature, a pattern, a constructor call. What a bot only reaches through a value (the
//! [`Origin`](crate::app::listen::Origin) of `cx.origin()`, a message's fields) needs no import.
//!
//! What is in it:
//! - **the app**: [`Listeners`] (its listeners, in order), [`Pattern`] (a `message` listener's
//!   text match), [`Vars`] (the deployment's settings, for `fn app(vars: &Vars)`), and
//!   [`DefaultApp`], the app slackline ships; [`App`], what both are (the bound of `worker!` and
//!   the test kit's `handle`);
//! - **the handler**: [`Cx`] (its helpers queue effects and set the ack), [`EffectRef`] (what a
//!   helper returns: `.named`, `.deadline`, `.blocks`, `.remember`, `.in_thread_of`),
//!   [`HandlerResult`] and [`HandlerError`] (an `Err` parks the event as `handler_failed`);
//! - **middleware** (`.middleware`, `.group`): [`Dispatch`] (the request it sees), [`Next`]
//!   (`Continue`, or `Ignore` with a reason) and [`MiddlewareResult`]; the ready-made allow-list
//!   of teams and channels, [`allow_list`] (in code) and [`allow_list_from`] (`ALLOWED_TEAMS`,
//!   `ALLOWED_CHANNELS`);
//! - **what a handler receives**: [`MessageIn`], [`EventIn`], [`SlashCommand`], [`ActionIn`],
//!   [`ViewIn`], [`ShortcutIn`], [`OptionsIn`], for the agent's DM (`agent_view`) [`AgentDm`],
//!   [`AgentThread`] and what the user looks at ([`AgentContext`], [`ContextEntity`],
//!   [`Viewed`]), and for legacy assistant threads [`AssistantThread`]; [`Prompt`] for both;
//!   [`StepIn`], a Workflow Builder step (`.function`: ended with `cx.complete` / `cx.fail`);
//!   [`Feedback`] and its [`Rating`], a click on the buttons under a streamed answer;
//!   [`LinkShared`] (with its [`SharedLink`]s and [`LinkSource`]), links to preview
//!   (`.link_shared`, `.unfurl(domain)`), and [`EntityDetailsRequest`], a click on a Work Object
//!   (`.entity_details`);
//! - **what a handler answers with**: [`Unfurls`] (`cx.unfurl`: classic previews and Work
//!   Objects), [`Entity`] and its [`EntityType`] (a Work Object), [`Details`] and
//!   [`DetailsError`] (`cx.present_details`: a flexpane);
//! - **typed events** for [`EventIn::parse`]: [`ReactionEvent`], [`AppHomeOpened`],
//!   [`MemberChannel`], [`ChannelEvent`], [`TeamJoin`], [`MessageChanged`], [`MessageDeleted`];
//! - **an effect's end**: [`Answered`], what a result listener (`.on_result(name, …)`) gets
//!   for an effect queued with `.then(name, &data)`: Slack's answer or the failure, and the data;
//! - **later**: [`When`] (a scheduled effect's due time and repeat: an interval, or a calendar in a
//!   time zone, [`Days`]), [`Fired`] (what an `on_schedule` listener gets), [`MINUTE_MS`], [`DAY_MS`];
//! - **time zones**: [`Zone`] (any IANA zone or alias, with its history: `Zone::named(&user_tz)?`),
//!   [`LocalTime`] (an instant's date and time on that zone's clocks: `zone.local(cx.now())`) and
//!   [`ZoneError`] (a refused name, in words a user can read);
//! - **state**: [`Posted`], what `.remember(key)` keeps of Slack's answer;
//! - **Block Kit** ([`blocks`]): the builders' entry points [`Block`], [`Element`], [`Opt`],
//!   [`Modal`], [`Home`]; the ids a view shares with its handler, [`Field`] (of a [`kind`]) and
//!   [`ActionId`]; [`FieldErrors`] for `cx.ack_errors`; and the module itself, `blocks::…`, for
//!   the rest (`blocks::plain`, `blocks::Confirm`, `blocks::OptGroup`).
//!
//! ```
//! use slackline::prelude::*;
//!
//! fn app(vars: &Vars) -> Listeners {
//!     let channel = vars.get("INCIDENT_CHANNEL");
//!     Listeners::new()
//!         .mention(|m, cx| { cx.reply(&format!("You said: {}", m.words())); Ok(()) })
//!         .command("/incident", move |c, cx| report(c, cx, channel.as_deref()))
//! }
//!
//! /// Announces the incident, and reminds the channel in its thread half an hour later.
//! fn report(c: &SlashCommand, cx: &mut Cx, channel: Option<&str>) -> HandlerResult {
//!     let channel = channel.ok_or("INCIDENT_CHANNEL is not set")?;
//!     cx.say(channel, &c.text).remember("incident:post");
//!     cx.schedule("incident:remind", When::after(30 * MINUTE_MS)).say(channel, "still open").in_thread_of("incident:post");
//!     Ok(())
//! }
//! # let _ = app(&Vars::of(&[]));
//! ```

pub use crate::app::listen::agent::{AgentContext, AgentDm, AgentThread, ContextEntity, Viewed};
pub use crate::app::listen::assistant::{AssistantThread, Prompt};
pub use crate::app::listen::feedback::{Feedback, Rating};
pub use crate::app::listen::middleware::{allow_list, allow_list_from};
pub use crate::app::listen::StepIn;
pub use crate::app::listen::{
    ActionIn, AppHomeOpened, ChannelEvent, Cx, EffectRef, EventIn, HandlerError, HandlerResult, LinkShared, Listeners, MemberChannel, MessageChanged,
    MessageDeleted, MessageIn, MiddlewareResult, Next, OptionsIn, Pattern, ReactionEvent, ShortcutIn, TeamJoin, ViewIn, When, DAY_MS, MINUTE_MS,
};
pub use crate::app::{App, DefaultApp, Vars};
pub use crate::blocks::{self, kind, ActionId, Block, Element, Field, FieldErrors, Home, Modal, Opt};
pub use crate::kinds::answer::Answered;
pub use crate::kinds::schedule::{CalendarError, Days, Fired, LocalTime, Zone, ZoneError};
pub use crate::kinds::unfurl::{Details, DetailsError, Entity, EntityDetailsRequest, EntityType, LinkSource, SharedLink, Unfurls};
pub use crate::slack::envelope::{Dispatch, SlashCommand};
pub use crate::state::Posted;
