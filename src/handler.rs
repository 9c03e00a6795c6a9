//! What a handler reaches through a value and rarely names: the types that `cx.origin()`,
//! `cx.state()`, `cx.schedule(…)`, `cx.session()`, an input's fields and a request's
//! [`Dispatch`](crate::prelude::Dispatch) hand it.
//!
//! **Why a module of its own.** The [prelude](crate::prelude) holds the names a bot *writes* (in
//! a signature, a pattern, a constructor call). These it mostly reads through a value it was
//! given — `m.message.channel`, `cx.origin().team`, `cx.state().get(…)` — so they need no
//! import; they are here so that their fields and methods are documented, and they are API like
//! the prelude: changed only with a note in `CHANGELOG.md`. A bot that does want to name one (a
//! helper taking `&mut State`, a `Result<_, StateError>`) imports it from here.

pub use crate::app::listen::assistant::{ThreadAddress, ThreadContext};
pub use crate::app::listen::cx::{Origin, Scheduling};
pub use crate::app::listen::input::{ChannelInfo, ReactionItem};
pub use crate::app::listen::session::Session;
pub use crate::app::listen::{ActionMatch, TextRegex};
pub use crate::kinds::answer::{DataError, Ended, Failure};
pub use crate::kinds::schedule::calendar::Calendar;
pub use crate::kinds::schedule::when::Due;
pub use crate::kinds::unfurl::events::ExternalRef;
pub use crate::slack::envelope::{BlockAction, Event, EventEnvelope, Interaction, InteractionKind, Message};
pub use crate::state::{State, StateError};
