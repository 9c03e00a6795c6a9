//! The ingest unit: receipts, outbox rows, the serial queue, an uninstall's revocation (a failed
//! handler's parked request is the redrive's: `crate::kinds::redrive::sql`).

/// Records a receipt if it is new — in neither the current nor the previous receipts table
/// (`sql::lean`): ?1 op key, ?2 kind, ?3 now. One returned row = new.
pub const INSERT_RECEIPT: &str = "INSERT INTO receipts(op_key, kind, received_at)
 SELECT ?1, ?2, ?3 WHERE NOT EXISTS (SELECT 1 FROM receipts_prev WHERE op_key = ?1)
 ON CONFLICT(op_key) DO NOTHING RETURNING op_key";

/// Queues an effect unless its idempotency key is already queued: ?1 key, ?2 op key, ?3 effect
/// label, ?4 target, ?5 payload JSON, ?6 max attempts, ?7 due (now), ?8 deadline or NULL, ?9 now.
/// One returned row = queued.
pub const INSERT_OUTBOX: &str = "INSERT INTO outbox(idem_key, op_key, effect, target, payload, status,
   attempts, max_attempts, next_attempt_at, deadline_at, created_at)
 VALUES (?1, ?2, ?3, ?4, ?5, 'pending', 0, ?6, ?7, ?8, ?9)
 ON CONFLICT(idem_key) DO NOTHING RETURNING id";

/// [`INSERT_OUTBOX`] for a row due now that the inserting actor instance claims at once, so that
/// its sweep takes it without a claim of its own (`runtime::sweep::adopt`): ?10 the instance's
/// token, ?11 the lease's end. The attempt is counted and its start noted as the claim would
/// (`last_attempt_at`): a row whose instance is gone before its completion is read back before it
/// is posted again, as if its attempt had begun. One returned row = queued.
pub const INSERT_OUTBOX_CLAIMED: &str = "INSERT INTO outbox(idem_key, op_key, effect, target, payload, status,
   attempts, max_attempts, next_attempt_at, deadline_at, created_at, claim_token, claim_expires_at, first_attempt_at,
   last_attempt_at)
 VALUES (?1, ?2, ?3, ?4, ?5, 'pending', 1, ?6, ?7, ?8, ?9, ?10, ?11, ?9, ?9)
 ON CONFLICT(idem_key) DO NOTHING RETURNING id";

/// Deletes the installation (its tokens) on uninstall.
pub const DELETE_INSTALLATION: &str = "DELETE FROM installation";

/// Marks the team uninstalled: ?1 now, as text (meta values are TEXT).
pub const MARK_UNINSTALLED: &str = "INSERT INTO meta(key, value) VALUES ('uninstalled_at', ?1)
 ON CONFLICT(key) DO UPDATE SET value = excluded.value";

/// Parks every pending row (claimed or not: a live claim's completion is then fenced):
/// ?1 now, ?2 reason. Returns the parked ids.
pub const PARK_ALL_PENDING: &str = "UPDATE outbox
 SET status = 'parked', reason = ?2, claim_token = NULL, claim_expires_at = NULL, finished_at = ?1
 WHERE status = 'pending' RETURNING id";

/// Whether the team key was recorded just now (for the directory): ?1 key. One row = first time.
pub const REMEMBER_TEAM_KEY_RETURNING: &str = "INSERT INTO meta(key, value) VALUES ('team_key', ?1) ON CONFLICT(key) DO NOTHING RETURNING value";

/// Whether a sync row for this key is waiting unclaimed (a newer PUT then needs no second row: the
/// waiting one sends the newest fields): ?1 idempotency key.
pub const SYNC_WAITING: &str = "SELECT id FROM outbox WHERE idem_key = ?1 AND status = 'pending' AND claim_token IS NULL";
