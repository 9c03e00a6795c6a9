//! Assistant apps: Slack's assistant threads and answers streamed from an LLM into Slack, as
//! durable, fenced outbox work. The pure parts live here: reading the model's server-sent events
//! ([`sse`]) and the streamed answer's state machine ([`stream`]), which says which Slack call
//! comes next and what to checkpoint before it, so that a crash or a lost lease mid-answer leaves
//! one coherent answer (docs/assistant.md). Beside them, the room's SQL ([`sql`]: the answers'
//! checkpoints) and, wasm32 only, its store (`store`: checkpoints fenced by the claim, extending
//! the lease) and its job (`job`: the model read as it streams, each Slack call checkpointed
//! before it is made). Agent sessions ([`session`]: a thread's status, newest intent wins) and the
//! Stop button (`agent_session_stopped`, recorded before the ack) are this room's too: both act on
//! the thread's answers.

pub mod calls;
pub mod chunks;
#[cfg(target_arch = "wasm32")]
pub(crate) mod job;
pub mod session;
#[cfg(target_arch = "wasm32")]
pub(crate) mod session_job;
pub mod sql;
pub mod sse;
#[cfg(target_arch = "wasm32")]
pub(crate) mod store;
pub mod stream;

#[cfg(test)]
mod tests;
