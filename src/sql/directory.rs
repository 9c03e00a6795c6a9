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
pub const DIRECTORY_LIST: &str = "SELECT team_key, team_name, enterprise_name, is_enterprise_install, source,
   first_seen_at, installed_at, uninstalled_at FROM teams WHERE team_key > ?2 ORDER BY team_key LIMIT ?1";

/// Consumes an OAuth state nonce once: ?1 nonce, ?2 its expiry. One returned row = first use.
pub const CONSUME_STATE: &str = "INSERT INTO oauth_states(nonce, expires_at) VALUES (?1, ?2)
 ON CONFLICT(nonce) DO NOTHING RETURNING nonce";

/// Forgets consumed nonces whose states have expired anyway: ?1 now.
pub const PRUNE_STATES: &str = "DELETE FROM oauth_states WHERE expires_at < ?1";
