//! A failed handler's request, kept as a parked outbox row (`Action::Handle`) for an operator's
//! redrive; the redrive itself is the admin store's (it re-queues any parked row).

/// Keeps a request whose handler failed, parked (never performed until redriven): ?1 key, ?2 op
/// key, ?3 payload JSON (`Action::Handle`), ?4 the handler's error, ?5 max attempts, ?6 now.
pub const INSERT_HANDLER_FAILED: &str = "INSERT INTO outbox(idem_key, op_key, effect, target, payload, status,
   attempts, max_attempts, next_attempt_at, created_at, reason, last_error, finished_at)
 VALUES (?1, ?2, 'handler', 'handler', ?3, 'parked', 0, ?5, ?6, ?6, 'handler_failed', ?4, ?6)
 ON CONFLICT(idem_key) DO NOTHING RETURNING id";
