//! Every SQL statement the actors run, as text; parameters are documented on each statement. The
//! statements are plain `const`s so that two engines run the very same text: the Durable Object's SQLite (through `runtime::store`, the only module that
//! calls `sql.exec`) and, in the native property tests, bundled SQLite through `rusqlite`.
//!
//! Conventions (see `shared/reference/platform-facts.md` §1.2): numbers bound from JavaScript arrive
//! as REAL, so every numeric column is INTEGER (which converts them back) and no number is ever bound
//! into a TEXT column; booleans are 0/1; Slack ids and `ts` values are TEXT. Positional `?NNN`
//! parameters are used so one value can appear twice.

/// The schema; idempotent, run when the actor starts.
pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS receipts (
  op_key TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  received_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS receipts_by_age ON receipts(received_at);
CREATE TABLE IF NOT EXISTS outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  idem_key TEXT NOT NULL UNIQUE,
  op_key TEXT NOT NULL,
  effect TEXT NOT NULL,
  target TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL,
  next_attempt_at INTEGER NOT NULL,
  deadline_at INTEGER,
  claim_token TEXT,
  claim_expires_at INTEGER,
  reason TEXT,
  last_error TEXT,
  last_status INTEGER,
  created_at INTEGER NOT NULL,
  first_attempt_at INTEGER,
  last_attempt_at INTEGER,
  finished_at INTEGER
);
CREATE INDEX IF NOT EXISTS outbox_due ON outbox(status, next_attempt_at);
CREATE INDEX IF NOT EXISTS outbox_finished ON outbox(status, finished_at);
CREATE TABLE IF NOT EXISTS holds (
  target TEXT PRIMARY KEY,
  until_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  row_id INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  at INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  detail TEXT,
  http_status INTEGER,
  latency_ms INTEGER
);
CREATE INDEX IF NOT EXISTS attempts_by_row ON attempts(row_id);
CREATE TABLE IF NOT EXISTS audit (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  action TEXT NOT NULL,
  row_id INTEGER,
  detail TEXT
);
CREATE TABLE IF NOT EXISTS installation (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  team_id TEXT,
  team_name TEXT,
  enterprise_id TEXT,
  enterprise_name TEXT,
  is_enterprise_install INTEGER NOT NULL,
  app_id TEXT,
  bot_user_id TEXT,
  bot_id TEXT,
  bot_scopes TEXT NOT NULL,
  installer_user_id TEXT,
  bot_token TEXT NOT NULL,
  refresh_token TEXT,
  token_expires_at INTEGER,
  installed_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  refreshing_until INTEGER
);
CREATE TABLE IF NOT EXISTS target_streaks (
  target TEXT PRIMARY KEY,
  failures INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS counters (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS lists (
  list_id TEXT PRIMARY KEY,
  column_map TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS records (
  list_id TEXT NOT NULL,
  record_id TEXT NOT NULL,
  fields TEXT NOT NULL,
  version INTEGER NOT NULL,
  synced_version INTEGER NOT NULL DEFAULT 0,
  row_id TEXT,
  state TEXT NOT NULL,
  deleted INTEGER NOT NULL DEFAULT 0,
  create_sent_at INTEGER,
  sent_version INTEGER,
  uncertain_since INTEGER,
  linked_at INTEGER,
  seen_run INTEGER,
  archived INTEGER NOT NULL DEFAULT 0,
  human_edited INTEGER NOT NULL DEFAULT 0,
  edited_by TEXT,
  last_error TEXT,
  syncs INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (list_id, record_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS records_by_row ON records(list_id, row_id);
CREATE INDEX IF NOT EXISTS records_by_state ON records(list_id, state, record_id);
CREATE TABLE IF NOT EXISTS reconcile_runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  list_id TEXT NOT NULL,
  trigger TEXT NOT NULL,
  queued_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER,
  pass TEXT NOT NULL DEFAULT 'active',
  cursor TEXT,
  report TEXT NOT NULL DEFAULT '{}',
  findings TEXT NOT NULL DEFAULT '[]',
  error TEXT
);
CREATE INDEX IF NOT EXISTS reconcile_by_list ON reconcile_runs(list_id, id);
CREATE INDEX IF NOT EXISTS outbox_serial ON outbox(target, id) WHERE status = 'pending' AND effect IN ('lists', 'status');
CREATE TABLE IF NOT EXISTS idempotency_keys (
  key TEXT PRIMARY KEY,
  body_hash TEXT NOT NULL,
  status INTEGER NOT NULL,
  response TEXT NOT NULL,
  message_id INTEGER,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idempotency_by_expiry ON idempotency_keys(expires_at);
CREATE TABLE IF NOT EXISTS slack_results (
  row_id INTEGER PRIMARY KEY,
  channel TEXT,
  ts TEXT
);
CREATE TABLE IF NOT EXISTS status_messages (
  name TEXT PRIMARY KEY,
  channel TEXT NOT NULL,
  text TEXT NOT NULL,
  blocks TEXT,
  version INTEGER NOT NULL,
  posted_version INTEGER NOT NULL DEFAULT 0,
  ts TEXT,
  post_channel TEXT,
  syncs INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
";

/// Remembers the actor's own team key: ?1 the key.
pub const REMEMBER_TEAM_KEY: &str =
    "INSERT INTO meta(key, value) VALUES ('team_key', ?1) ON CONFLICT(key) DO NOTHING";

/// The actor's team key, if recorded.
pub const TEAM_KEY: &str = "SELECT value FROM meta WHERE key = 'team_key'";

/// Records a receipt if it is new: ?1 op key, ?2 kind, ?3 now. One returned row = new.
pub const INSERT_RECEIPT: &str = "INSERT INTO receipts(op_key, kind, received_at) VALUES (?1, ?2, ?3)
 ON CONFLICT(op_key) DO NOTHING RETURNING op_key";

/// Queues an effect unless its idempotency key is already queued: ?1 key, ?2 op key, ?3 effect
/// label, ?4 target, ?5 payload JSON, ?6 max attempts, ?7 due (now), ?8 deadline or NULL, ?9 now.
/// One returned row = queued.
pub const INSERT_OUTBOX: &str = "INSERT INTO outbox(idem_key, op_key, effect, target, payload, status,
   attempts, max_attempts, next_attempt_at, deadline_at, created_at)
 VALUES (?1, ?2, ?3, ?4, ?5, 'pending', 0, ?6, ?7, ?8, ?9)
 ON CONFLICT(idem_key) DO NOTHING RETURNING id";

/// Claims a bounded batch in one statement: ?1 claim token, ?2 lease expiry, ?3 now, ?4 limit.
/// Eligible: pending, due, not held, and unclaimed or claimed by another sweep whose lease has
/// expired. A sweep never takes back its own rows: they are in flight in that very sweep.
/// Counts the attempt at claim time. *Serial* rows — a List's (effect `lists`, target
/// `slackLists:{list}`) and a status message's (effect `status`, target `status:{name}`) — go one
/// at a time per target: only the oldest due or claimed one is eligible, so one List never has two
/// Slack calls in flight (no two creates racing for one record) and one status message is never
/// posted twice or updated out of order.
///
/// The subquery's parameters are wrapped (`?3 + 0`, `?1 || ''`, `?4 + 0`) so that the query
/// planner cannot read their values: the runtime's SQLite otherwise marks the statement as
/// depending on them and compiles it again on every call, which cost about 5 % of the runtime's
/// CPU under load (measured with `perf`; `docs/benchmarks.md`). The plan and results are the same.
pub const CLAIM: &str = "UPDATE outbox
 SET claim_token = ?1, claim_expires_at = ?2, attempts = attempts + 1,
     first_attempt_at = COALESCE(first_attempt_at, ?3), last_attempt_at = ?3
 WHERE id IN (
   SELECT id FROM outbox
   WHERE status = 'pending' AND next_attempt_at <= ?3 + 0
     AND (claim_token IS NULL OR (claim_expires_at <= ?3 + 0 AND claim_token <> ?1 || ''))
     AND target NOT IN (SELECT target FROM holds WHERE until_ms > ?3 + 0)
     AND (effect NOT IN ('lists', 'status') OR id = (SELECT MIN(l.id) FROM outbox l
       WHERE l.status = 'pending' AND l.effect IN ('lists', 'status') AND l.target = outbox.target
         AND (l.next_attempt_at <= ?3 + 0 OR l.claim_token IS NOT NULL)))
   ORDER BY next_attempt_at, id
   LIMIT ?4 + 0)
 RETURNING id, idem_key, op_key, effect, target, payload, attempts, max_attempts, deadline_at, created_at";

/// Fenced completion as delivered: ?1 id, ?2 claim token, ?3 now, ?4 HTTP status or NULL.
/// Zero returned rows = fenced.
pub const COMPLETE_DONE: &str = "UPDATE outbox
 SET status = 'done', claim_token = NULL, claim_expires_at = NULL, finished_at = ?3, last_status = ?4
 WHERE id = ?1 AND claim_token = ?2 AND status = 'pending' RETURNING id";

/// Fenced completion as "try again": ?1 id, ?2 claim token, ?3 next attempt at, ?4 last error,
/// ?5 HTTP status (NULLs keep the previous values). Zero returned rows = fenced.
pub const COMPLETE_RETRY: &str = "UPDATE outbox
 SET claim_token = NULL, claim_expires_at = NULL, next_attempt_at = ?3, last_error = COALESCE(?4, last_error),
     last_status = COALESCE(?5, last_status)
 WHERE id = ?1 AND claim_token = ?2 AND status = 'pending' RETURNING id";

/// Fenced completion as "wait, this was not a failed attempt" (a 429, or a call kept back for its
/// rate budget): gives back the attempt the claim counted. ?1 id, ?2 claim token, ?3 next attempt
/// at, ?4 last error, ?5 HTTP status (NULLs keep the previous values), ?6 1 if the call was sent
/// (a 429) else 0 (paced: a row never sent keeps no first-attempt time). Zero returned rows = fenced.
pub const COMPLETE_WAIT: &str = "UPDATE outbox
 SET claim_token = NULL, claim_expires_at = NULL, next_attempt_at = ?3, attempts = MAX(attempts - 1, 0),
     last_error = COALESCE(?4, last_error), last_status = COALESCE(?5, last_status),
     first_attempt_at = CASE WHEN ?6 = 0 AND attempts <= 1 THEN NULL ELSE first_attempt_at END
 WHERE id = ?1 AND claim_token = ?2 AND status = 'pending' RETURNING id";

/// Fenced completion as parked: ?1 id, ?2 claim token, ?3 reason, ?4 last error, ?5 HTTP status
/// (NULLs keep the previous values), ?6 now. Zero returned rows = fenced.
pub const COMPLETE_PARK: &str = "UPDATE outbox
 SET status = 'parked', claim_token = NULL, claim_expires_at = NULL, reason = ?3,
     last_error = COALESCE(?4, last_error), last_status = COALESCE(?5, last_status), finished_at = ?6
 WHERE id = ?1 AND claim_token = ?2 AND status = 'pending' RETURNING id";

/// Holds a lane for the whole team (a 429's `Retry-After`, a List's pacing): ?1 the lane (a
/// Slack method, `chat.postMessage:{channel}`, or a row target), ?2 until. The claim skips rows
/// whose target is held; the pacer reads every hold back when an actor instance starts.
pub const HOLD_TARGET: &str = "INSERT INTO holds(target, until_ms) VALUES (?1, ?2)
 ON CONFLICT(target) DO UPDATE SET until_ms = MAX(until_ms, excluded.until_ms)";

/// Appends to a row's attempt history: ?1 row id, ?2 attempt, ?3 at, ?4 outcome, ?5 detail,
/// ?6 HTTP status, ?7 latency ms.
pub const LOG_ATTEMPT: &str = "INSERT INTO attempts(row_id, attempt, at, outcome, detail, http_status, latency_ms)
 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";

/// Adds to a named counter: ?1 name, ?2 amount.
pub const BUMP_COUNTER: &str = "INSERT INTO counters(name, value) VALUES (?1, ?2)
 ON CONFLICT(name) DO UPDATE SET value = value + excluded.value";

/// Everything a sweep's end reads, in one statement: `next_at`, the earliest time the sweep has
/// work (due pending rows, not before their target's hold, or the expiry of a live lease; NULL
/// when nothing is pending); when housekeeping next has work (`receipts_at`, `done_at`,
/// `keys_at`: the oldest receipt's, delivered row's and idempotency key's expiry, each NULL when
/// there is none); and the pending summary (`pending`, `oldest`: when the oldest was queued).
/// ?1 now, ?2 receipt retention ms, ?3 done retention ms.
pub const SWEEP_END: &str = "SELECT
   (SELECT MIN(CASE
      WHEN o.claim_token IS NOT NULL AND o.claim_expires_at > ?1 THEN o.claim_expires_at
      ELSE MAX(o.next_attempt_at, COALESCE(h.until_ms, 0)) END)
    FROM outbox o LEFT JOIN holds h ON h.target = o.target
    WHERE o.status = 'pending') AS next_at,
   (SELECT MIN(received_at) FROM receipts) + ?2 AS receipts_at,
   (SELECT MIN(finished_at) FROM outbox WHERE status = 'done') + ?3 AS done_at,
   (SELECT MIN(expires_at) FROM idempotency_keys) AS keys_at,
   (SELECT COUNT(*) FROM outbox WHERE status = 'pending') AS pending,
   (SELECT MIN(created_at) FROM outbox WHERE status = 'pending') AS oldest";

/// Deletes old receipts: ?1 cutoff, ?2 limit.
pub const PRUNE_RECEIPTS: &str = "DELETE FROM receipts WHERE op_key IN (
   SELECT op_key FROM receipts WHERE received_at < ?1 ORDER BY received_at LIMIT ?2)";

/// Deletes the attempt history of old delivered rows: ?1 cutoff, ?2 limit. Run before
/// [`PRUNE_DONE`] with the same parameters (the same rows, by the same order).
pub const PRUNE_DONE_ATTEMPTS: &str = "DELETE FROM attempts WHERE row_id IN (
   SELECT id FROM outbox WHERE status = 'done' AND finished_at < ?1 ORDER BY finished_at, id LIMIT ?2)";

/// Deletes old delivered rows: ?1 cutoff, ?2 limit. Parked rows are never pruned.
pub const PRUNE_DONE: &str = "DELETE FROM outbox WHERE id IN (
   SELECT id FROM outbox WHERE status = 'done' AND finished_at < ?1 ORDER BY finished_at, id LIMIT ?2)";

/// Deletes expired holds: ?1 now.
pub const PRUNE_HOLDS: &str = "DELETE FROM holds WHERE until_ms <= ?1";

/// Outbox counts by status and reason, with each group's oldest row.
pub const STATS_BY_STATUS: &str = "SELECT status, COALESCE(reason, '') AS reason, COUNT(*) AS n, MIN(created_at) AS oldest
 FROM outbox GROUP BY status, reason";

/// How many receipts are stored.
pub const RECEIPT_COUNT: &str = "SELECT COUNT(*) AS n FROM receipts";

/// Every counter (delivered, retried, parked, fenced, ...).
pub const COUNTERS: &str = "SELECT name, value FROM counters";

/// Lanes held (by a 429, or a List's pacing): ?1 now.
pub const ACTIVE_HOLDS: &str = "SELECT target, until_ms FROM holds WHERE until_ms > ?1";

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

/// Stores (or replaces) the team's installation; tokens arrive sealed. ?1 team id, ?2 team name,
/// ?3 enterprise id, ?4 enterprise name, ?5 is enterprise install (0/1), ?6 app id, ?7 bot user id,
/// ?8 bot id, ?9 scopes, ?10 installer, ?11 sealed bot token, ?12 sealed refresh token, ?13 token
/// expiry, ?14 now.
pub const UPSERT_INSTALLATION: &str = "INSERT INTO installation(id, team_id, team_name, enterprise_id, enterprise_name,
   is_enterprise_install, app_id, bot_user_id, bot_id, bot_scopes, installer_user_id, bot_token, refresh_token,
   token_expires_at, installed_at, updated_at, refreshing_until)
 VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?14, NULL)
 ON CONFLICT(id) DO UPDATE SET team_id = excluded.team_id, team_name = excluded.team_name,
   enterprise_id = excluded.enterprise_id, enterprise_name = excluded.enterprise_name,
   is_enterprise_install = excluded.is_enterprise_install, app_id = excluded.app_id,
   bot_user_id = excluded.bot_user_id, bot_id = excluded.bot_id, bot_scopes = excluded.bot_scopes,
   installer_user_id = excluded.installer_user_id, bot_token = excluded.bot_token,
   refresh_token = excluded.refresh_token, token_expires_at = excluded.token_expires_at,
   updated_at = excluded.updated_at, refreshing_until = NULL";

/// The installation, if any (tokens sealed).
pub const INSTALLATION: &str = "SELECT team_id, team_name, enterprise_id, enterprise_name, is_enterprise_install, app_id,
   bot_user_id, bot_id, bot_scopes, installer_user_id, bot_token, refresh_token, token_expires_at, installed_at, updated_at
 FROM installation WHERE id = 1";

/// Deletes the installation (its tokens) on uninstall.
pub const DELETE_INSTALLATION: &str = "DELETE FROM installation";

/// Marks the team uninstalled: ?1 now, as text (meta values are TEXT).
pub const MARK_UNINSTALLED: &str = "INSERT INTO meta(key, value) VALUES ('uninstalled_at', ?1)
 ON CONFLICT(key) DO UPDATE SET value = excluded.value";

/// Clears the uninstalled mark (a reinstall).
pub const CLEAR_UNINSTALLED: &str = "DELETE FROM meta WHERE key = 'uninstalled_at'";

/// When the team was uninstalled, if it is.
pub const UNINSTALLED_AT: &str = "SELECT value FROM meta WHERE key = 'uninstalled_at'";

/// Parks every pending row (claimed or not: a live claim's completion is then fenced):
/// ?1 now, ?2 reason. Returns the parked ids.
pub const PARK_ALL_PENDING: &str = "UPDATE outbox
 SET status = 'parked', reason = ?2, claim_token = NULL, claim_expires_at = NULL, finished_at = ?1
 WHERE status = 'pending' RETURNING id";

/// Takes the single-flight refresh slot until ?2 if it is free at ?1. One returned row = ours.
pub const BEGIN_REFRESH: &str = "UPDATE installation SET refreshing_until = ?2
 WHERE id = 1 AND (refreshing_until IS NULL OR refreshing_until <= ?1) RETURNING id";

/// Stores a refreshed token pair (sealed) and frees the slot: ?1 bot token, ?2 refresh token,
/// ?3 expiry, ?4 now.
pub const STORE_REFRESH: &str = "UPDATE installation
 SET bot_token = ?1, refresh_token = ?2, token_expires_at = ?3, updated_at = ?4, refreshing_until = NULL WHERE id = 1";

/// Frees the refresh slot after a failed refresh.
pub const END_REFRESH: &str = "UPDATE installation SET refreshing_until = NULL WHERE id = 1";

/// Whether the team key was recorded just now (for the directory): ?1 key. One row = first time.
pub const REMEMBER_TEAM_KEY_RETURNING: &str =
    "INSERT INTO meta(key, value) VALUES ('team_key', ?1) ON CONFLICT(key) DO NOTHING RETURNING value";

/// The directory's schema (one Directory actor for the whole deployment).
pub const DIRECTORY_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS teams (
  team_key TEXT PRIMARY KEY,
  team_name TEXT,
  enterprise_name TEXT,
  is_enterprise_install INTEGER NOT NULL DEFAULT 0,
  source TEXT NOT NULL,
  first_seen_at INTEGER NOT NULL,
  installed_at INTEGER,
  uninstalled_at INTEGER
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS oauth_states (
  nonce TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS oauth_states_by_expiry ON oauth_states(expires_at);
";

/// Notes a team seen in traffic: ?1 key, ?2 now.
pub const DIRECTORY_SEEN: &str = "INSERT INTO teams(team_key, source, first_seen_at) VALUES (?1, 'traffic', ?2)
 ON CONFLICT(team_key) DO NOTHING";

/// Records an installation: ?1 key, ?2 team name, ?3 enterprise name, ?4 org-wide (0/1), ?5 now.
pub const DIRECTORY_INSTALLED: &str = "INSERT INTO teams(team_key, team_name, enterprise_name, is_enterprise_install,
   source, first_seen_at, installed_at) VALUES (?1, ?2, ?3, ?4, 'oauth', ?5, ?5)
 ON CONFLICT(team_key) DO UPDATE SET team_name = excluded.team_name, enterprise_name = excluded.enterprise_name,
   is_enterprise_install = excluded.is_enterprise_install, source = 'oauth', installed_at = excluded.installed_at,
   uninstalled_at = NULL";

/// Records an uninstall: ?1 key, ?2 now.
pub const DIRECTORY_UNINSTALLED: &str = "INSERT INTO teams(team_key, source, first_seen_at, uninstalled_at)
 VALUES (?1, 'traffic', ?2, ?2) ON CONFLICT(team_key) DO UPDATE SET uninstalled_at = excluded.uninstalled_at";

/// A page of teams, by key: ?1 limit, ?2 after this key.
pub const DIRECTORY_LIST: &str = "SELECT team_key, team_name, enterprise_name, is_enterprise_install, source,
   first_seen_at, installed_at, uninstalled_at FROM teams WHERE team_key > ?2 ORDER BY team_key LIMIT ?1";

/// Consumes an OAuth state nonce once: ?1 nonce, ?2 its expiry. One returned row = first use.
pub const CONSUME_STATE: &str = "INSERT INTO oauth_states(nonce, expires_at) VALUES (?1, ?2)
 ON CONFLICT(nonce) DO NOTHING RETURNING nonce";

/// Forgets consumed nonces whose states have expired anyway: ?1 now.
pub const PRUNE_STATES: &str = "DELETE FROM oauth_states WHERE expires_at < ?1";

/// Counts a failed attempt against its target: ?1 target. Returns the failures in a row.
pub const STREAK_FAIL: &str = "INSERT INTO target_streaks(target, failures) VALUES (?1, 1)
 ON CONFLICT(target) DO UPDATE SET failures = failures + 1 RETURNING failures";

/// A success ends a target's failure streak: ?1 target.
pub const STREAK_RESET: &str = "DELETE FROM target_streaks WHERE target = ?1";

/// Targets failing right now, worst first.
pub const STREAKS: &str = "SELECT target, failures FROM target_streaks ORDER BY failures DESC LIMIT 20";

/// Pending rows: how many, and when the oldest was queued (the stats; a sweep reads the same in
/// [`SWEEP_END`]).
pub const PENDING_SUMMARY: &str = "SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM outbox WHERE status = 'pending'";

/// Parked rows by reason.
pub const PARKED_BY_REASON: &str = "SELECT reason, COUNT(*) AS n FROM outbox WHERE status = 'parked' GROUP BY reason ORDER BY n DESC";

/// Remembers the last sweep's report: ?1 JSON.
pub const SAVE_LAST_SWEEP: &str = "INSERT INTO meta(key, value) VALUES ('last_sweep', ?1)
 ON CONFLICT(key) DO UPDATE SET value = excluded.value";

/// The last sweep's report (JSON text).
pub const LAST_SWEEP: &str = "SELECT value FROM meta WHERE key = 'last_sweep'";

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

/// Benchmarks only: ?1 delivered rows finished at ?2, keys offset by ?3.
pub const SEED_DONE: &str = "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < ?1)
 INSERT INTO outbox(idem_key, op_key, effect, target, payload, status, attempts, max_attempts, next_attempt_at,
   created_at, finished_at)
 SELECT 'seed:' || (x + ?3), 'seed-' || (x + ?3), 'slack_api', 'chat.postMessage', '{}', 'done', 1, 6, ?2, ?2, ?2
 FROM n WHERE true ON CONFLICT(idem_key) DO NOTHING";

// ---- Slack Lists (`crate::lists`, `runtime::store::lists`) ----

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
/// ?3 fields JSON, ?4 now. A deleted record comes back to life. Returns its `syncs` counter.
pub const PUT_RECORD: &str = "INSERT INTO records(list_id, record_id, fields, version, state, created_at, updated_at)
 VALUES (?1, ?2, ?3, 1, 'pending', ?4, ?4)
 ON CONFLICT(list_id, record_id) DO UPDATE SET fields = excluded.fields, version = version + 1,
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

/// Whether a sync row for this key is waiting unclaimed (a newer PUT then needs no second row: the
/// waiting one sends the newest fields): ?1 idempotency key.
pub const SYNC_WAITING: &str = "SELECT id FROM outbox WHERE idem_key = ?1 AND status = 'pending' AND claim_token IS NULL";

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

/// One pass: ?1 id.
pub const RUN: &str = "SELECT id, list_id, trigger, queued_at, started_at, finished_at, pass, cursor, report, findings, error
 FROM reconcile_runs WHERE id = ?1";

/// A list's latest passes, newest first: ?1 list id, ?2 limit.
pub const RUNS: &str = "SELECT id, list_id, trigger, queued_at, started_at, finished_at, pass, cursor, report, findings, error
 FROM reconcile_runs WHERE list_id = ?1 ORDER BY id DESC LIMIT ?2";

/// A list's unfinished pass, if any: ?1 list id.
pub const OPEN_RUN: &str = "SELECT id, list_id, trigger, queued_at, started_at, finished_at, pass, cursor, report, findings, error
 FROM reconcile_runs WHERE list_id = ?1 AND finished_at IS NULL ORDER BY id DESC LIMIT 1";

/// Brings a queued pass's first page forward to now: ?1 the page's idempotency key, ?2 now.
pub const RUN_NOW: &str = "UPDATE outbox SET next_attempt_at = MIN(next_attempt_at, ?2)
 WHERE idem_key = ?1 AND status = 'pending'";

/// Renames a queued pass's trigger (a scheduled pass run now by hand): ?1 run id, ?2 trigger.
pub const RUN_TRIGGER: &str = "UPDATE reconcile_runs SET trigger = ?2 WHERE id = ?1 AND started_at IS NULL";

/// Stores a pass's progress after a page: ?1 id, ?2 started at, ?3 pass, ?4 cursor, ?5 report
/// JSON, ?6 findings JSON.
pub const RUN_PAGE: &str = "UPDATE reconcile_runs SET started_at = COALESCE(started_at, ?2), pass = ?3, cursor = ?4,
   report = ?5, findings = ?6 WHERE id = ?1";

/// Ends a pass: ?1 id, ?2 now, ?3 error or NULL.
pub const RUN_FINISHED: &str = "UPDATE reconcile_runs SET finished_at = ?2, error = ?3, cursor = NULL WHERE id = ?1";

/// The record linked to a row: ?1 list id, ?2 row id.
pub const RECORD_BY_ROW: &str = "SELECT record_id, row_id FROM records WHERE list_id = ?1 AND row_id = ?2 LIMIT 1";

/// A record by its id (the mirrored key): ?1 list id, ?2 record id.
pub const RECORD_REF: &str = "SELECT record_id, row_id FROM records WHERE list_id = ?1 AND record_id = ?2";

/// A linked row was listed: ?1 list id, ?2 record id, ?3 run id, ?4 archived (0/1).
pub const RECORD_SEEN: &str = "UPDATE records SET seen_run = ?3, archived = ?4,
   state = CASE WHEN state = 'missing' THEN (CASE WHEN synced_version >= version THEN 'synced' ELSE 'pending' END) ELSE state END
 WHERE list_id = ?1 AND record_id = ?2";

/// Someone else changed a linked row last: ?1 list id, ?2 record id, ?3 who.
pub const RECORD_HUMAN_EDITED: &str = "UPDATE records SET human_edited = 1, edited_by = ?3 WHERE list_id = ?1 AND record_id = ?2";

/// A row found by its key is linked: ?1 list id, ?2 record id, ?3 row id, ?4 run id, ?5 now.
/// The version the lost create sent counts as synced. Returns whether a sync is still needed.
pub const RECORD_RELINKED: &str = "UPDATE records SET row_id = ?3, seen_run = ?4, linked_at = ?5, uncertain_since = NULL,
   create_sent_at = NULL, last_error = NULL, synced_version = MAX(synced_version, COALESCE(sent_version, 0)),
   state = CASE WHEN deleted = 1 OR version > MAX(synced_version, COALESCE(sent_version, 0)) THEN 'pending' ELSE 'synced' END
 WHERE list_id = ?1 AND record_id = ?2 RETURNING state = 'pending' AS needs_sync";

/// Linked records the pass did not see, linked before it started: ?1 list id, ?2 run id,
/// ?3 started at. Marked missing; returns them.
pub const MARK_MISSING: &str = "UPDATE records SET state = 'missing'
 WHERE list_id = ?1 AND row_id IS NOT NULL AND (seen_run IS NULL OR seen_run <> ?2) AND linked_at < ?3
   AND state NOT IN ('deleted', 'missing') RETURNING record_id, row_id";

/// Records whose create stayed uncertain since before the pass started and that it did not find:
/// Slack made no row, so they may be created again. ?1 list id, ?2 started at. Returns them.
pub const RELEASE_UNCERTAIN: &str = "UPDATE records SET state = 'pending', uncertain_since = NULL, last_error = NULL
 WHERE list_id = ?1 AND state = 'create_uncertain' AND row_id IS NULL AND uncertain_since < ?2 RETURNING record_id";

/// Rows of missing records, forgotten so that the next sync creates (a list with
/// `recreate_missing`): ?1 list id, ?2 record id.
pub const FORGET_ROW: &str = "UPDATE records SET row_id = NULL, linked_at = NULL, synced_version = 0, state = 'pending'
 WHERE list_id = ?1 AND record_id = ?2";

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

// ---- The notify API (`crate::notify`, `runtime::store::notify`) ----

/// Forgets an expired idempotency key: ?1 key, ?2 now.
pub const EXPIRE_KEY: &str = "DELETE FROM idempotency_keys WHERE key = ?1 AND expires_at <= ?2";

/// A stored key: ?1 key.
pub const IDEMPOTENCY_KEY: &str = "SELECT body_hash, status, response FROM idempotency_keys WHERE key = ?1";

/// Claims a key with its answer (the UNIQUE key is the atomic claim): ?1 key, ?2 body hash,
/// ?3 status, ?4 answer, ?5 message row or NULL, ?6 now, ?7 expires at. One returned row = ours.
pub const CLAIM_KEY: &str = "INSERT INTO idempotency_keys(key, body_hash, status, response, message_id, created_at, expires_at)
 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT(key) DO NOTHING RETURNING key";

/// Deletes expired keys: ?1 now, ?2 limit.
pub const PRUNE_KEYS: &str = "DELETE FROM idempotency_keys WHERE key IN (
   SELECT key FROM idempotency_keys WHERE expires_at <= ?1 ORDER BY expires_at LIMIT ?2)";

/// Deletes the Slack answers of old delivered rows: ?1 cutoff, ?2 limit (the same rows as
/// [`PRUNE_DONE`], run before it).
pub const PRUNE_DONE_RESULTS: &str = "DELETE FROM slack_results WHERE row_id IN (
   SELECT id FROM outbox WHERE status = 'done' AND finished_at < ?1 ORDER BY finished_at, id LIMIT ?2)";

/// Keeps what Slack answered a post: ?1 row id, ?2 channel, ?3 ts.
pub const SAVE_RESULT: &str = "INSERT INTO slack_results(row_id, channel, ts) VALUES (?1, ?2, ?3)
 ON CONFLICT(row_id) DO UPDATE SET channel = excluded.channel, ts = excluded.ts";

/// A notify message: ?1 row id.
pub const MESSAGE: &str = "SELECT o.id, o.idem_key, o.status, o.attempts, o.reason, o.last_error, o.last_status, o.created_at,
   o.finished_at, r.channel, r.ts FROM outbox o LEFT JOIN slack_results r ON r.row_id = o.id
 WHERE o.id = ?1 AND o.effect = 'notify'";

/// A status message: ?1 name.
pub const STATUS: &str = "SELECT name, channel, text, blocks, version, posted_version, ts, post_channel, syncs, created_at, updated_at
 FROM status_messages WHERE name = ?1";

/// Sets a status message's newest state: ?1 name, ?2 channel, ?3 text, ?4 blocks JSON or NULL,
/// ?5 version, ?6 now. Only a higher version changes it; one returned row = changed.
pub const PUT_STATUS: &str = "INSERT INTO status_messages(name, channel, text, blocks, version, created_at, updated_at)
 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)
 ON CONFLICT(name) DO UPDATE SET channel = excluded.channel, text = excluded.text, blocks = excluded.blocks,
   version = excluded.version, updated_at = excluded.updated_at
 WHERE excluded.version > status_messages.version RETURNING syncs";

/// Counts one more queued sync of a status message: ?1 name. Returns the new count.
pub const BUMP_STATUS_SYNCS: &str = "UPDATE status_messages SET syncs = syncs + 1 WHERE name = ?1 RETURNING syncs";

/// Slack shows a status message at `version`: ?1 name, ?2 ts, ?3 channel, ?4 version.
pub const STATUS_POSTED: &str = "UPDATE status_messages SET ts = COALESCE(ts, ?2), post_channel = COALESCE(post_channel, ?3),
   posted_version = MAX(posted_version, ?4) WHERE name = ?1";
