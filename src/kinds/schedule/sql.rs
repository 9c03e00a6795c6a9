//! Scheduled effects (`crate::kinds::schedule`): a key's pending rows, a cancel, a recurrence stopped, the
//! admin listing. A scheduled row is an outbox row like any other (its `next_attempt_at` is its due
//! time, its `created_at` the same); these statements find it by its key's range of idempotency
//! keys (`super::key_range`), which the UNIQUE index on `idem_key` serves.

/// The pending rows whose key lies in [?1, ?2) (a schedule key's range): with their payload (only
/// `scheduled` payloads are schedules) and their lease. `+status` keeps the planner on the key's
/// range of the UNIQUE index (a few rows) rather than every pending row of the team.
pub const PENDING_IN_RANGE: &str = "SELECT id, payload, claim_expires_at FROM outbox
 WHERE idem_key >= ?1 AND idem_key < ?2 AND +status = 'pending' ORDER BY id";

/// One pending row, as [`PENDING_IN_RANGE`] reads it: ?1 id.
pub const PENDING_ROW: &str = "SELECT id, payload, claim_expires_at FROM outbox WHERE id = ?1 AND status = 'pending'";

/// Cancels one pending row no sweep holds (unclaimed, or its lease expired): it ends `done` with
/// the reason ?3 (`cancelled`: finished without being performed, nothing for an operator to
/// decide, pruned with the delivered rows): ?1 id, ?2 now. Fenced like a completion: a row
/// claimed meanwhile is left alone (zero returned rows).
pub const CANCEL: &str = "UPDATE outbox
 SET status = 'done', reason = ?3, claim_token = NULL, claim_expires_at = NULL, finished_at = ?2
 WHERE id = ?1 AND status = 'pending' AND (claim_token IS NULL OR claim_expires_at <= ?2) RETURNING id";

/// A row's payload: ?1 id.
pub const PAYLOAD: &str = "SELECT payload FROM outbox WHERE id = ?1";

/// Replaces a pending row's payload (a cancel stops an in-flight occurrence's recurrence): ?1 id,
/// ?2 payload JSON.
pub const SET_PAYLOAD: &str = "UPDATE outbox SET payload = ?2 WHERE id = ?1 AND status = 'pending'";

/// The pending scheduled rows, soonest due first: ?1, ?2 every scheduled key's range, ?3 limit.
pub const LIST_PENDING: &str = "SELECT id, idem_key, op_key, effect, target, payload, status, attempts, max_attempts,
 next_attempt_at, deadline_at, claim_token IS NOT NULL AS claimed, claim_expires_at, reason, last_error,
 last_status, created_at, first_attempt_at, last_attempt_at, finished_at
 FROM outbox WHERE idem_key >= ?1 AND idem_key < ?2 AND status = 'pending' ORDER BY next_attempt_at, id LIMIT ?3";

/// The pending rows in [?1, ?2) (every scheduled key's range) that fall due after ?3 (now) and
/// no later than ?4 (a test clock), held by no live claim: with their payload (only `scheduled`
/// payloads are schedules). For an admin sweep with the test clock (test builds only:
/// `store::due_by`).
pub const DUE_BY: &str = "SELECT id, payload, claim_expires_at FROM outbox
 WHERE idem_key >= ?1 AND idem_key < ?2 AND +status = 'pending'
   AND next_attempt_at > ?3 AND next_attempt_at <= ?4 AND (claim_token IS NULL OR claim_expires_at <= ?3)
 ORDER BY next_attempt_at, id";

/// A pending row falls due at ?2 (now): its `next_attempt_at` only (its payload keeps its due
/// time, its `created_at` stays): ?1 id.
pub const MAKE_DUE: &str = "UPDATE outbox SET next_attempt_at = ?2 WHERE id = ?1 AND status = 'pending'";
