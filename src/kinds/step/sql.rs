//! The step room's statements: each execution Slack started, recorded before the ack.

/// Migration 9 (`step_executions`): one row per Workflow step execution: its step, its token
/// (sealed; NULL once the step has ended), its deadline, when it ended. Additive (the previous
/// release never names the table: floor 5).
pub const MIGRATION_9: &str = "CREATE TABLE step_executions (
  execution_id TEXT PRIMARY KEY,
  callback_id TEXT NOT NULL,
  token TEXT,
  deadline_at INTEGER NOT NULL,
  ended_at INTEGER,
  created_at INTEGER NOT NULL
) WITHOUT ROWID";

/// Records an execution (inside the ingest unit): ?1 execution id, ?2 callback id, ?3 sealed
/// token, ?4 deadline, ?5 now. A duplicate of the event (the same execution, under any event id)
/// writes nothing and returns no row.
pub const RECORD: &str = "INSERT INTO step_executions(execution_id, callback_id, token, deadline_at, created_at)
  VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(execution_id) DO NOTHING RETURNING execution_id";

/// An execution's token and whether it has ended: ?1 execution id.
pub const EXECUTION: &str = "SELECT token, ended_at FROM step_executions WHERE execution_id = ?1";

/// Marks an execution ended and drops its token: ?1 execution id, ?2 now.
pub const ENDED: &str = "UPDATE step_executions SET token = NULL, ended_at = ?2 WHERE execution_id = ?1 AND ended_at IS NULL";

/// Settles the other row of an execution's pair once the step has ended: ?1 and ?2 the pair's
/// keys (its ending's and its guard's), ?3 now, ?4 the key of the row whose job ended the step.
/// The other row, pending and unclaimed — the app's ending that the guard's failure overtook, or a
/// guard with attempts that [`DROP_GUARD`] keeps — could only find the step ended and do nothing:
/// it is done now, and costs no claim, completion or wake. A claimed one is left to its job, which
/// will find the step ended.
pub const SETTLE_PAIR: &str = "UPDATE outbox SET status = 'done', finished_at = ?3
  WHERE idem_key IN (?1, ?2) AND idem_key <> ?4 AND status = 'pending' AND claim_token IS NULL";

/// Drops the guard of an execution the app's ending has ended: ?1 the guard's key. Only a guard
/// pending, unclaimed and never attempted (waiting for its deadline, as a rule): it could only
/// find the step ended and do nothing, and nothing of it needs keeping — no claim, completion, wake
/// or pruning (one row written instead of two). A guard that has attempts (its history is kept)
/// is settled as done by [`SETTLE_PAIR`]; a claimed one is left to its job.
pub const DROP_GUARD: &str = "DELETE FROM outbox WHERE idem_key = ?1 AND status = 'pending' AND claim_token IS NULL AND attempts = 0";

/// Forgets executions started before ?1 (housekeeping, with the receipts).
pub const PRUNE: &str = "DELETE FROM step_executions WHERE created_at < ?1";
