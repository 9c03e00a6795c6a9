//! The team's installation: tokens (sealed), the uninstall mark, the single-flight refresh slot.

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

/// Clears the uninstalled mark (a reinstall).
pub const CLEAR_UNINSTALLED: &str = "DELETE FROM meta WHERE key = 'uninstalled_at'";

/// When the team was uninstalled, if it is.
pub const UNINSTALLED_AT: &str = "SELECT value FROM meta WHERE key = 'uninstalled_at'";

/// Takes the single-flight refresh slot until ?2 if it is free at ?1. One returned row = ours.
pub const BEGIN_REFRESH: &str = "UPDATE installation SET refreshing_until = ?2
 WHERE id = 1 AND (refreshing_until IS NULL OR refreshing_until <= ?1) RETURNING id";

/// Stores a refreshed token pair (sealed) and frees the slot: ?1 bot token, ?2 refresh token,
/// ?3 expiry, ?4 now.
pub const STORE_REFRESH: &str = "UPDATE installation
 SET bot_token = ?1, refresh_token = ?2, token_expires_at = ?3, updated_at = ?4, refreshing_until = NULL WHERE id = 1";

/// Frees the refresh slot after a failed refresh.
pub const END_REFRESH: &str = "UPDATE installation SET refreshing_until = NULL WHERE id = 1";
