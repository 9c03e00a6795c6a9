//! The `Directory` actor: the teams it knows and consumed OAuth states.

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
/// With each team its housekeeping wake (`housekeeping_at`, null when the directory holds none).
pub const DIRECTORY_LIST: &str = "SELECT t.team_key, t.team_name, t.enterprise_name, t.is_enterprise_install, t.source,
   t.first_seen_at, t.installed_at, t.uninstalled_at, w.at AS housekeeping_at
 FROM teams t LEFT JOIN wakes w ON w.team_key = t.team_key WHERE t.team_key > ?2 ORDER BY t.team_key LIMIT ?1";

/// Consumes an OAuth state nonce once: ?1 nonce, ?2 its expiry. One returned row = first use.
pub const CONSUME_STATE: &str = "INSERT INTO oauth_states(nonce, expires_at) VALUES (?1, ?2)
 ON CONFLICT(nonce) DO NOTHING RETURNING nonce";

/// Forgets consumed nonces whose states have expired anyway: ?1 now.
pub const PRUNE_STATES: &str = "DELETE FROM oauth_states WHERE expires_at < ?1";

/// A team asks to be woken for its housekeeping by ?2 (epoch ms): ?1 its key. A wake already due
/// by then is kept (nothing written); a later one is brought forward.
pub const WAKE_BY: &str = "INSERT INTO wakes(team_key, at) VALUES (?1, ?2)
 ON CONFLICT(team_key) DO UPDATE SET at = excluded.at WHERE excluded.at < wakes.at";

/// The wakes due at ?1, soonest first, at most ?2; only team ?3's when given (a test's).
pub const WAKES_DUE: &str = "SELECT team_key, at FROM wakes WHERE at <= ?1 AND (?3 IS NULL OR team_key = ?3)
 ORDER BY at LIMIT ?2";

/// After waking team ?1 for its wake at ?2: its next wake ?3 — unless the team asked for another
/// time meanwhile (then that one stands).
pub const WAKE_AGAIN: &str = "UPDATE wakes SET at = ?3 WHERE team_key = ?1 AND at = ?2";

/// After waking team ?1 for its wake at ?2: it needs none (unless it asked meanwhile).
pub const WAKE_DONE: &str = "DELETE FROM wakes WHERE team_key = ?1 AND at = ?2";

/// The soonest wake, if any.
pub const NEXT_WAKE: &str = "SELECT MIN(at) AS at FROM wakes";
