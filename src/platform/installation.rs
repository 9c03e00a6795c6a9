//! The team's installation (tokens sealed) and the single-flight refresh slot.

use crate::oauth::StoredInstallation;
use crate::platform::exec::{int, opt_int, rows, run, text, tx_sync};
use crate::sql;
use serde_json::Value;
use worker::{SqlStorage, SqlStorageValue as V, Storage};

/// Stores an installation (tokens already sealed) and clears an earlier uninstall, together.
pub fn save_installation(
    storage: &Storage,
    sql: &SqlStorage,
    i: crate::oauth::Installation,
    bot: String,
    refresh: Option<String>,
    now: i64,
) -> worker::Result<()> {
    let sql = sql.clone();
    let opt = |v: &Option<String>| v.as_deref().map(text).unwrap_or(V::Null);
    tx_sync(storage, move || {
        run(
            &sql,
            sql::installation::UPSERT_INSTALLATION,
            vec![
                opt(&i.team_id),
                opt(&i.team_name),
                opt(&i.enterprise_id),
                opt(&i.enterprise_name),
                int(i64::from(i.is_enterprise_install)),
                opt(&i.app_id),
                opt(&i.bot_user_id),
                opt(&i.bot_id),
                text(&i.bot_scopes),
                opt(&i.installer_user_id),
                V::String(bot),
                opt(&refresh),
                opt_int(i.token_expires_at),
                int(now),
            ],
        )?;
        if let Some(key) = i.team_key() {
            run(&sql, sql::outbox::REMEMBER_TEAM_KEY, vec![text(key)])?;
        }
        run(&sql, sql::installation::CLEAR_UNINSTALLED, vec![])
    })
}

/// The stored installation, if any.
pub fn installation(sql: &SqlStorage) -> worker::Result<Option<StoredInstallation>> {
    Ok(rows::<StoredInstallation>(sql, sql::installation::INSTALLATION, vec![])?.into_iter().next())
}

/// Whether the team was uninstalled (and not reinstalled since).
pub fn uninstalled(sql: &SqlStorage) -> worker::Result<bool> {
    Ok(!rows::<Value>(sql, sql::installation::UNINSTALLED_AT, vec![])?.is_empty())
}

/// Takes the single-flight refresh slot until `until`; false if another refresh holds it.
pub fn begin_refresh(sql: &SqlStorage, now: i64, until: i64) -> worker::Result<bool> {
    Ok(!rows::<Value>(sql, sql::installation::BEGIN_REFRESH, vec![int(now), int(until)])?.is_empty())
}

/// Stores a refreshed (sealed) token pair and frees the slot.
pub fn store_refresh(sql: &SqlStorage, bot: String, refresh: String, expires_at: i64, now: i64) -> worker::Result<()> {
    run(sql, sql::installation::STORE_REFRESH, vec![V::String(bot), V::String(refresh), int(expires_at), int(now)])
}

/// Frees the refresh slot after a failure.
pub fn end_refresh(sql: &SqlStorage) -> worker::Result<()> {
    run(sql, sql::installation::END_REFRESH, vec![])
}
