//! Slack Lists: column maps, records and their sync states, reconciliation passes.

/// Migration 11 (`lean_records`): fewer rows written per record synced and per reconciliation
/// page. Cloudflare bills each index entry a statement adds or moves (`sql::lean`), and every sync
/// moved a record in both of its indexes: `records_by_state` (its state goes `pending` → `synced`
/// at every sync) and `records_by_row` (an entry for the NULL `row_id` at insert, moved when the
/// create links it).
/// - `records_by_state` goes: no query needs it. A list's states (`LIST_STATES`), a page of
///   records in one state (`RECORDS_PAGE`) and the pass's ends (`MARK_MISSING`,
///   `RELEASE_UNCERTAIN`) read the list's records by the primary key `(list_id, record_id)`:
///   rows read, which cost a thousandth of a row written, once per call or per pass.
/// - `records_by_row` becomes `records_linked`, the same columns for linked records only
///   (`row_id IS NOT NULL`): a new record adds no entry, a link adds one. A lookup by row id
///   (`RECORD_BY_ROW`: `row_id = ?` implies `row_id IS NOT NULL`) still uses it (checked by
///   `tests/lists_sql.rs`).
/// - `reconcile_runs.seen` (nullable): the records a pass saw whose row it did not otherwise
///   write (a JSON array of record ids, written with the page's report in the one statement
///   `RUN_PAGE` writes anyway), instead of one `seen_run` write per linked row listed. A seen row
///   whose record changes (back from `missing`, archived or not) is still written, with its
///   `seen_run`; so is every seen record past [`super::reconcile::MAX_SEEN_KEPT`].
/// - `reconcile_runs.begun_at` (nullable): when a pass of this release began. Its `started_at`
///   is written as [`OLDER_RELEASES_START`] instead.
///
/// **Why the floor stays 5.** A release before this one knows no `seen` list: were it to take
/// over a pass this release began (a rollback mid-pass), it would find the rows this one saw
/// without a `seen_run` and mark their records `missing` — and, on a List with
/// `recreate_missing`, create their rows again in Slack. It marks only records linked before the
/// pass's `started_at`, and it reads [`OLDER_RELEASES_START`] there: it marks nothing missing
/// and releases no uncertain create (the next pass, of whichever release, does). A pass such a
/// release began keeps its `started_at` and its records' `seen_run`, which this release reads too.
pub const MIGRATION_11: &str = "DROP INDEX records_by_state;
DROP INDEX records_by_row;
CREATE INDEX records_linked ON records(list_id, row_id) WHERE row_id IS NOT NULL;
ALTER TABLE reconcile_runs ADD COLUMN seen TEXT;
ALTER TABLE reconcile_runs ADD COLUMN begun_at INTEGER";

/// What `RUN_PAGE` writes in `reconcile_runs.started_at` (the pass's real start goes to
/// `begun_at`): earlier than any record's `linked_at` and any create's `uncertain_since`, so that
/// a release before migration 11 that ends the pass marks nothing missing ([`MIGRATION_11`]).
/// Read back, it means "not a start".
pub const OLDER_RELEASES_START: i64 = 0;

// ---- Slack Lists (`crate::kinds::lists`, `runtime::store::lists`) ----

/// Sets a list's column map: ?1 list id, ?2 map JSON, ?3 now. One returned row; `created` is 1
/// the first time.
pub const PUT_LIST: &str = "INSERT INTO lists(list_id, column_map, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)
 ON CONFLICT(list_id) DO UPDATE SET column_map = excluded.column_map, updated_at = excluded.updated_at
 RETURNING created_at = ?3 AS created";

/// A list's column map: ?1 list id.
pub const LIST_MAP: &str = "SELECT column_map FROM lists WHERE list_id = ?1";

/// A list's records by state: ?1 list id.
pub const LIST_STATES: &str = "SELECT state, COUNT(*) AS n FROM records WHERE list_id = ?1 GROUP BY state";

/// One record: ?1 list id, ?2 record id.
pub const RECORD: &str = "SELECT list_id, record_id, fields, version, synced_version, row_id, state, deleted,
 create_sent_at IS NOT NULL AS create_sent, last_error, human_edited, edited_by, archived, syncs, created_at, updated_at
 FROM records WHERE list_id = ?1 AND record_id = ?2";

/// A page of a list's records in one state (NULL: any), by record id: ?1 list id, ?2 state,
/// ?3 after this record id, ?4 limit.
pub const RECORDS_PAGE: &str = "SELECT list_id, record_id, fields, version, synced_version, row_id, state, deleted,
 create_sent_at IS NOT NULL AS create_sent, last_error, human_edited, edited_by, archived, syncs, created_at, updated_at
 FROM records WHERE list_id = ?1 AND (?2 IS NULL OR state = ?2) AND record_id > ?3 ORDER BY record_id LIMIT ?4";

/// Stores a record's new fields (a new version) or the record itself: ?1 list id, ?2 record id,
/// ?3 fields JSON, ?4 now, ?5 1 when a sync job is queued with it (counted in `syncs` by the same
/// row write: no second UPDATE), else 0 (a new record always queues one). A deleted record comes
/// back to life. Returns its `syncs` counter (the new sync job's number).
pub const PUT_RECORD: &str = "INSERT INTO records(list_id, record_id, fields, version, state, syncs, created_at, updated_at)
 VALUES (?1, ?2, ?3, 1, 'pending', 1, ?4, ?4)
 ON CONFLICT(list_id, record_id) DO UPDATE SET fields = excluded.fields, version = version + 1, syncs = syncs + ?5,
   deleted = 0, updated_at = excluded.updated_at, last_error = NULL,
   state = CASE WHEN state IN ('create_uncertain', 'missing') THEN state ELSE 'pending' END,
   row_id = CASE WHEN state = 'deleted' THEN NULL ELSE row_id END,
   synced_version = CASE WHEN state = 'deleted' THEN 0 ELSE synced_version END
 RETURNING syncs";

/// Marks a record deleted (a tombstone until its row is gone): ?1 list id, ?2 record id, ?3 now.
/// Returns its `syncs` counter; no row = no such live record.
pub const DELETE_RECORD: &str = "UPDATE records SET deleted = 1, version = version + 1, updated_at = ?3,
   state = CASE WHEN state = 'create_uncertain' THEN state ELSE 'pending' END
 WHERE list_id = ?1 AND record_id = ?2 AND deleted = 0 RETURNING syncs";

/// Counts one more queued sync of a record: ?1 list id, ?2 record id. Returns the new count (the
/// sync row's key).
pub const BUMP_SYNCS: &str = "UPDATE records SET syncs = syncs + 1 WHERE list_id = ?1 AND record_id = ?2 RETURNING syncs";

/// Notes that a create is about to leave, fenced by the row's claim: ?1 list id, ?2 record id,
/// ?3 now, ?4 version sent, ?5 outbox row id, ?6 claim token. One returned row = go ahead.
pub const MARK_CREATE_SENT: &str = "UPDATE records SET create_sent_at = ?3, sent_version = ?4
 WHERE list_id = ?1 AND record_id = ?2 AND create_sent_at IS NULL
   AND EXISTS (SELECT 1 FROM outbox WHERE id = ?5 AND claim_token = ?6 AND status = 'pending')
 RETURNING record_id";

/// A create made a row: ?1 list id, ?2 record id, ?3 row id, ?4 version sent, ?5 now.
pub const RECORD_LINKED: &str = "UPDATE records SET row_id = ?3, synced_version = MAX(synced_version, ?4),
   state = CASE WHEN deleted = 1 THEN 'pending' WHEN version <= ?4 THEN 'synced' ELSE 'pending' END,
   create_sent_at = NULL, uncertain_since = NULL, linked_at = ?5, last_error = NULL, archived = 0
 WHERE list_id = ?1 AND record_id = ?2";

/// Slack shows a version: ?1 list id, ?2 record id, ?3 version sent.
pub const RECORD_SYNCED: &str = "UPDATE records SET synced_version = MAX(synced_version, ?3),
   state = CASE WHEN version <= ?3 THEN 'synced' ELSE 'pending' END, last_error = NULL
 WHERE list_id = ?1 AND record_id = ?2";

/// The record's row is gone: ?1 list id, ?2 record id.
pub const RECORD_GONE: &str = "UPDATE records SET state = 'deleted', create_sent_at = NULL, last_error = NULL
 WHERE list_id = ?1 AND record_id = ?2 AND deleted = 1";

/// A create's outcome is unknown: ?1 list id, ?2 record id, ?3 now, ?4 why.
pub const RECORD_UNCERTAIN: &str = "UPDATE records SET state = 'create_uncertain', create_sent_at = NULL,
   uncertain_since = COALESCE(uncertain_since, ?3), last_error = ?4
 WHERE list_id = ?1 AND record_id = ?2";

/// Slack did not act on a create: ?1 list id, ?2 record id.
pub const RECORD_NOT_ACTED: &str = "UPDATE records SET create_sent_at = NULL WHERE list_id = ?1 AND record_id = ?2";

/// A sync failed for good: ?1 list id, ?2 record id, ?3 error.
pub const RECORD_FAILED: &str = "UPDATE records SET state = 'failed', create_sent_at = NULL, last_error = ?3
 WHERE list_id = ?1 AND record_id = ?2";

/// Queues a reconciliation pass: ?1 list id, ?2 trigger, ?3 now. Returns its id.
pub const QUEUE_RUN: &str = "INSERT INTO reconcile_runs(list_id, trigger, queued_at) VALUES (?1, ?2, ?3) RETURNING id";

/// One pass, with the records it saw so far (`seen`): ?1 id.
pub const RUN: &str = "SELECT id, list_id, trigger, queued_at, started_at, finished_at, pass, cursor, report, findings, error, seen, begun_at
 FROM reconcile_runs WHERE id = ?1";

/// A list's latest passes, newest first: ?1 list id, ?2 limit.
pub const RUNS: &str = "SELECT id, list_id, trigger, queued_at, started_at, finished_at, pass, cursor, report, findings, error, begun_at
 FROM reconcile_runs WHERE list_id = ?1 ORDER BY id DESC LIMIT ?2";

/// A list's unfinished pass, if any: ?1 list id.
pub const OPEN_RUN: &str = "SELECT id, list_id, trigger, queued_at, started_at, finished_at, pass, cursor, report, findings, error, begun_at
 FROM reconcile_runs WHERE list_id = ?1 AND finished_at IS NULL ORDER BY id DESC LIMIT 1";

/// Brings a queued pass's first page forward to now: ?1 the page's idempotency key, ?2 now (it
/// enters the queue now: `created_at`, which was its due time).
pub const RUN_NOW: &str = "UPDATE outbox SET next_attempt_at = MIN(next_attempt_at, ?2), created_at = MIN(created_at, ?2)
 WHERE idem_key = ?1 AND status = 'pending'";

/// Renames a queued pass's trigger (a scheduled pass run now by hand): ?1 run id, ?2 trigger.
pub const RUN_TRIGGER: &str = "UPDATE reconcile_runs SET trigger = ?2 WHERE id = ?1 AND started_at IS NULL";

/// Stores a pass's progress after a page, in one row write: ?1 id, ?2 when the pass began, ?3
/// pass, ?4 cursor, ?5 report JSON, ?6 findings JSON, ?7 the records seen so far (JSON array of
/// record ids), ?8 when the pass ended with this page (NULL: it goes on; its cursor is dropped
/// then). `started_at` gets [`OLDER_RELEASES_START`] (0), the start goes to `begun_at`.
pub const RUN_PAGE: &str = "UPDATE reconcile_runs SET begun_at = ?2, started_at = 0, pass = ?3,
   cursor = CASE WHEN ?8 IS NULL THEN ?4 END, report = ?5, findings = ?6, seen = ?7, finished_at = ?8 WHERE id = ?1";

/// Ends a pass that failed (a page parked): ?1 id, ?2 now, ?3 error. (A pass that read its last
/// page ends with it: `RUN_PAGE`.)
pub const RUN_FINISHED: &str = "UPDATE reconcile_runs SET finished_at = ?2, error = ?3, cursor = NULL WHERE id = ?1";

/// The record linked to a row: ?1 list id, ?2 row id.
pub const RECORD_BY_ROW: &str = "SELECT record_id, row_id FROM records WHERE list_id = ?1 AND row_id = ?2 LIMIT 1";

/// A record by its id (the mirrored key): ?1 list id, ?2 record id.
pub const RECORD_REF: &str = "SELECT record_id, row_id FROM records WHERE list_id = ?1 AND record_id = ?2";

/// A linked row was listed: ?1 list id, ?2 record id, ?3 run id, ?4 archived (0/1), ?5 1 to mark
/// it seen whatever (`seen_run`), 0 to write it only if it changes (back from `missing`, or
/// archived or not): a record left as it was writes nothing, and the pass keeps it in its `seen`
/// list instead. Returns the record when it was written.
pub const RECORD_SEEN: &str = "UPDATE records SET seen_run = ?3, archived = ?4,
   state = CASE WHEN state = 'missing' THEN (CASE WHEN synced_version >= version THEN 'synced' ELSE 'pending' END) ELSE state END
 WHERE list_id = ?1 AND record_id = ?2 AND (?5 = 1 OR state = 'missing' OR archived <> ?4) RETURNING record_id";

/// Someone else changed a linked row last: ?1 list id, ?2 record id, ?3 who. Writes nothing when
/// the record already says so.
pub const RECORD_HUMAN_EDITED: &str = "UPDATE records SET human_edited = 1, edited_by = ?3
 WHERE list_id = ?1 AND record_id = ?2 AND (human_edited = 0 OR edited_by IS NOT ?3)";

/// A row found by its key is linked: ?1 list id, ?2 record id, ?3 row id, ?4 run id, ?5 now.
/// The version the lost create sent counts as synced. Returns whether a sync is still needed.
pub const RECORD_RELINKED: &str = "UPDATE records SET row_id = ?3, seen_run = ?4, linked_at = ?5, uncertain_since = NULL,
   create_sent_at = NULL, last_error = NULL, synced_version = MAX(synced_version, COALESCE(sent_version, 0)),
   state = CASE WHEN deleted = 1 OR version > MAX(synced_version, COALESCE(sent_version, 0)) THEN 'pending' ELSE 'synced' END
 WHERE list_id = ?1 AND record_id = ?2 RETURNING state = 'pending' AS needs_sync";

/// Linked records the pass did not see (neither marked with its `seen_run` nor in its `seen`
/// list), linked before it started: ?1 list id, ?2 run id, ?3 started at, ?4 the pass's `seen`
/// (JSON array of record ids, or NULL). Marked missing; returns them.
pub const MARK_MISSING: &str = "UPDATE records SET state = 'missing'
 WHERE list_id = ?1 AND row_id IS NOT NULL AND (seen_run IS NULL OR seen_run <> ?2) AND linked_at < ?3
   AND state NOT IN ('deleted', 'missing') AND record_id NOT IN (SELECT value FROM json_each(COALESCE(?4, '[]')))
 RETURNING record_id, row_id";

/// Records whose create stayed uncertain since before the pass started and that it did not find:
/// Slack made no row, so they may be created again. ?1 list id, ?2 started at. Returns them.
pub const RELEASE_UNCERTAIN: &str = "UPDATE records SET state = 'pending', uncertain_since = NULL, last_error = NULL
 WHERE list_id = ?1 AND state = 'create_uncertain' AND row_id IS NULL AND uncertain_since < ?2 RETURNING record_id";

/// Rows of missing records, forgotten so that the next sync creates (a list with
/// `recreate_missing`): ?1 list id, ?2 record id.
pub const FORGET_ROW: &str = "UPDATE records SET row_id = NULL, linked_at = NULL, synced_version = 0, state = 'pending'
 WHERE list_id = ?1 AND record_id = ?2";

/// Whether the outbox row ?1 is still claimed by ?2 (the fence of a page a job applies before
/// its completion; reads only).
pub const CLAIM_HELD: &str = "SELECT id FROM outbox WHERE id = ?1 AND claim_token = ?2 AND status = 'pending'";

/// Our bot's user id, as remembered: the installation's, else the one `auth.test` gave.
pub const BOT_USER: &str = "SELECT COALESCE((SELECT bot_user_id FROM installation WHERE id = 1),
   (SELECT value FROM meta WHERE key = 'bot_user_id')) AS bot_user";

/// Remembers our bot's user id from `auth.test`: ?1 user id.
pub const REMEMBER_BOT_USER: &str = "INSERT INTO meta(key, value) VALUES ('bot_user_id', ?1)
 ON CONFLICT(key) DO UPDATE SET value = excluded.value";

/// A record's sync rows parked as `create_uncertain` are settled once reconciliation has decided
/// about the record (relinked, or released to be created again): ?1 target, ?2 record id, ?3 now.
pub const SETTLE_UNCERTAIN_ROWS: &str = "UPDATE outbox SET status = 'done', finished_at = ?3
 WHERE status = 'parked' AND reason = 'create_uncertain' AND target = ?1 AND json_extract(payload, '$.record_id') = ?2";
