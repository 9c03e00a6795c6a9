//! Redrives of failed handlers (`Action::Handle`): a request whose handler failed (an `Err` or a
//! panic) is kept, in the ingest unit that records its receipt, as an outbox row parked as
//! `handler_failed`, holding the request ([`row_key`]; `store::park`); once an operator says the
//! handler is fixed and redrives it (the admin API, as any parked row), its job (`job`) runs the
//! handler again on that request, and what it decides is queued with the row's completion. This
//! file is the room's pure half; beside it, its SQL text ([`sql`]) and, wasm32 only, its store
//! (`store`: the parked row) and its job.

#[cfg(target_arch = "wasm32")]
pub(crate) mod job;
pub mod sql;
#[cfg(target_arch = "wasm32")]
pub(crate) mod store;

/// The idempotency key of the parked row of the request `op_key`: one per request, so a
/// duplicate delivery of a request whose handler failed parks nothing more.
pub fn row_key(op_key: &str) -> String {
    format!("op:{op_key}:handle")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_requests_parked_row_is_keyed_by_its_op_key() {
        assert_eq!(row_key("ev:T1:Ev1"), "op:ev:T1:Ev1:handle");
    }
}
