//! The schemas at version 1: the team actor's tables and the `Directory` actor's, as the last
//! unversioned release created them. They are migration 1 of [`super::migrate`] (all `IF NOT EXISTS`,
//! so it adopts a database from before versioning); never edit them: a change is a new migration.

/// The team actor's schema at version 1 (idempotent).
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

/// The directory's schema at version 1 (one Directory actor for the whole deployment).
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

/// The directory's migration 2 (`wakes`): when each team's housekeeping is next due, for the
/// directory's alarm to wake it then (`runtime::directory`). Keyed by team, no other index: the
/// alarm scans it (a directory holds one row per team that asked), and a team asking again for a
/// later time writes nothing.
pub const DIRECTORY_WAKES: &str = "CREATE TABLE wakes (
  team_key TEXT PRIMARY KEY,
  at INTEGER NOT NULL
) WITHOUT ROWID";
