//! Messages posted to a `response_url` (`Action::RespondUrl`): a slash command's or a click's
//! answer, which Slack takes as plain HTTP on the URL it sent with the request. The room holds its
//! job (`job`, wasm32 only: the POST, any 2xx a success); the action itself, built by the
//! handlers' helpers (`cx.respond`, an LLM reply's follow-up), is `crate::effect`'s. It has no SQL
//! of its own: its row is the outbox's, with no write beyond the row's transition.

#[cfg(target_arch = "wasm32")]
pub(crate) mod job;
