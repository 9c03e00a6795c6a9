//! Assistant apps: Slack's assistant threads and answers streamed from an LLM into Slack, as
//! durable, fenced outbox work. The pure parts live here: reading the model's server-sent events
//! ([`sse`]) and the streamed answer's state machine ([`stream`]), which says which Slack call
//! comes next and what to checkpoint before it, so that a crash or a lost lease mid-answer leaves
//! one coherent answer (docs/assistant.md).

pub mod calls;
pub mod sse;
pub mod stream;

#[cfg(test)]
mod tests;
