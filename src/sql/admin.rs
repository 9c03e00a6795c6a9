//! The admin API: stats, listings, redrive, discard, bulk redrive, audit, the last sweep, benchmark seeding.

/// Outbox counts by status and reason, with each group's oldest row.
pub const STATS_BY_STATUS: &str = "SELECT status, COALESCE(reason, '') AS reason, COUNT(*) AS n, MIN(created_at) AS oldest
 FROM outbox GROUP BY status, reason";

/// How many receipts are stored (in both tables, `sql::lean`).
pub const RECEIPT_COUNT: &str = "SELECT (SELECT COUNT(*) FROM receipts) + (SELECT COUNT(*) FROM receipts_prev) AS n";

/// Every counter an earlier release kept in its own row (now in the `sweeps` row, `crate::admin::sweeps`).
pub const COUNTERS: &str = "SELECT name, value FROM counters";

/// A page of rows in one status, newest first: ?1 status, ?2 ids below this, ?3 limit.
pub const LIST_ROWS: &str = "SELECT id, idem_key, op_key, effect, target, payload, status, attempts, max_attempts,
 next_attempt_at, deadline_at, claim_token IS NOT NULL AS claimed, claim_expires_at, reason, last_error,
 last_status, created_at, first_attempt_at, last_attempt_at, finished_at
 FROM outbox WHERE status = ?1 AND id < ?2 ORDER BY id DESC LIMIT ?3";

/// One row: ?1 id.
pub const ONE_ROW: &str = "SELECT id, idem_key, op_key, effect, target, payload, status, attempts, max_attempts,
 next_attempt_at, deadline_at, claim_token IS NOT NULL AS claimed, claim_expires_at, reason, last_error,
 last_status, created_at, first_attempt_at, last_attempt_at, finished_at
 FROM outbox WHERE id = ?1";

/// A row's attempt history: ?1 id.
pub const ROW_ATTEMPTS: &str = "SELECT attempt, at, outcome, detail, http_status, latency_ms
 FROM attempts WHERE row_id = ?1 ORDER BY id";

/// The success a delivered row carries in place of an `attempts` row (`sql::lean`): ?1 id.
pub const CARRIED_SUCCESS: &str = "SELECT attempts, finished_at, last_status, last_latency_ms
 FROM outbox WHERE id = ?1 AND status = 'done' AND last_latency_ms IS NOT NULL";

/// Sends a parked row back to pending, due now, with a fresh attempt budget and no deadline
/// (a person asked for it): ?1 id, ?2 now, ?3 max attempts. One returned row = redriven.
pub const REDRIVE: &str = "UPDATE outbox
 SET status = 'pending', attempts = 0, max_attempts = ?3, next_attempt_at = ?2, deadline_at = NULL,
     reason = NULL, claim_token = NULL, claim_expires_at = NULL, finished_at = NULL
 WHERE id = ?1 AND status = 'parked' RETURNING id";

/// Deletes a parked row: ?1 id. Returns what the audit record keeps.
pub const DISCARD: &str = "DELETE FROM outbox WHERE id = ?1 AND status = 'parked'
 RETURNING id, idem_key, effect, target, payload, attempts, reason, last_error, created_at";

/// The latest operator actions, newest first: ?1 limit.
pub const AUDIT_LIST: &str = "SELECT id, at, action, row_id, detail FROM audit ORDER BY id DESC LIMIT ?1";

/// Records an operator's action: ?1 at, ?2 action, ?3 row id, ?4 detail JSON.
pub const AUDIT: &str = "INSERT INTO audit(at, action, row_id, detail) VALUES (?1, ?2, ?3, ?4)";

/// Targets failing right now, worst first.
pub const STREAKS: &str = "SELECT target, failures FROM target_streaks ORDER BY failures DESC LIMIT 20";

/// Pending rows: how many, how many are scheduled rows not due yet, and when the oldest due by
/// now entered the queue (the stats; a sweep reads the same in `sql::outbox::SWEEP_END`): ?1 now.
pub const PENDING_SUMMARY: &str = "SELECT COUNT(*) AS n, COALESCE(SUM(created_at > ?1), 0) AS later,
 MIN(CASE WHEN created_at <= ?1 THEN created_at END) AS oldest FROM outbox WHERE status = 'pending'";

/// Parked rows by reason.
pub const PARKED_BY_REASON: &str = "SELECT reason, COUNT(*) AS n FROM outbox WHERE status = 'parked' GROUP BY reason ORDER BY n DESC";

/// The team's sweeps: the last report and the counters (`crate::admin::sweeps`).
pub const SWEEPS: &str = "SELECT value FROM meta WHERE key = 'sweeps'";

/// Stores the team's sweeps: ?1 JSON.
pub const SAVE_SWEEPS: &str = "INSERT INTO meta(key, value) VALUES ('sweeps', ?1)
 ON CONFLICT(key) DO UPDATE SET value = excluded.value";

/// Notes when the team began counting its successes by their delivered rows
/// (`crate::admin::sweeps`): ?1 now (ms, as text). Writes nothing once noted: run at every wake.
pub const NOTE_COUNTING_SINCE: &str = "INSERT INTO meta(key, value) VALUES ('successes_counted_since', ?1)
 ON CONFLICT(key) DO NOTHING";

/// The delivered rows that count themselves as successes: done by the fenced completion (which
/// alone sets `last_latency_ms`) since the team began counting so.
pub const DELIVERED_ROWS: &str = "SELECT COUNT(*) AS n FROM outbox WHERE status = 'done' AND last_latency_ms IS NOT NULL
 AND finished_at >= (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'successes_counted_since')";

/// Of the rows [`super::outbox::PRUNE_DONE`] deletes with the same parameters (?1 cutoff, ?2
/// limit), those that count themselves as successes ([`DELIVERED_ROWS`]).
pub const PRUNED_DELIVERED_ROWS: &str = concat!(
    "SELECT COUNT(*) AS n FROM outbox WHERE id IN (\n   ",
    super::outbox::prune_done_ids!(),
    ")
 AND last_latency_ms IS NOT NULL
 AND finished_at >= (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'successes_counted_since')"
);

/// The last sweep's report as an earlier release kept it (JSON text).
pub const LAST_SWEEP: &str = "SELECT value FROM meta WHERE key = 'last_sweep'";

/// Keeps the team's `app_rate_limited` notices (`slack::rate_limited::Notices`): ?1 JSON.
pub const SAVE_RATE_LIMITED: &str = "INSERT INTO meta(key, value) VALUES ('app_rate_limited', ?1)
 ON CONFLICT(key) DO UPDATE SET value = excluded.value";

/// The team's `app_rate_limited` notices (JSON text).
pub const RATE_LIMITED: &str = "SELECT value FROM meta WHERE key = 'app_rate_limited'";

/// Keeps what the alarm's safety net found (`outbox::alarm::MissedAlarms`): ?1 JSON.
pub const SAVE_ALARMS_MISSED: &str = "INSERT INTO meta(key, value) VALUES ('alarms_missed', ?1)
 ON CONFLICT(key) DO UPDATE SET value = excluded.value";

/// What the alarm's safety net found (JSON text).
pub const ALARMS_MISSED: &str = "SELECT value FROM meta WHERE key = 'alarms_missed'";

/// Parked rows matching a bulk redrive: ?1 reason (NULL: any), ?2 parked since, ?3 parked until.
pub const COUNT_PARKED_MATCHING: &str = "SELECT COUNT(*) AS n FROM outbox
 WHERE status = 'parked' AND (?1 IS NULL OR reason = ?1) AND finished_at >= ?2 AND finished_at <= ?3";

/// The first ?4 of those rows' ids (same parameters as [`COUNT_PARKED_MATCHING`]).
pub const PARKED_MATCHING_IDS: &str = "SELECT id FROM outbox
 WHERE status = 'parked' AND (?1 IS NULL OR reason = ?1) AND finished_at >= ?2 AND finished_at <= ?3
 ORDER BY id LIMIT ?4";

/// Benchmarks only (`ALLOW_BENCH_SEED=1`): ?1 receipts named `seed-{?3 + 1 ..= ?3 + ?1}` received
/// at ?2.
pub const SEED_RECEIPTS: &str = "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < ?1)
 INSERT INTO receipts(op_key, kind, received_at) SELECT 'seed-' || (x + ?3), 'event', ?2 FROM n WHERE true
 ON CONFLICT(op_key) DO NOTHING";

/// Benchmarks only: ?1 delivered rows finished at ?2, keys offset by ?3, calls of method ?4.
pub const SEED_DONE: &str = "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < ?1)
 INSERT INTO outbox(idem_key, op_key, effect, target, payload, status, attempts, max_attempts, next_attempt_at,
   created_at, finished_at)
 SELECT 'seed:' || (x + ?3), 'seed-' || (x + ?3), 'slack_api', ?4, '{}', 'done', 1, 6, ?2, ?2, ?2
 FROM n WHERE true ON CONFLICT(idem_key) DO NOTHING";
