//! The Directory actor's storage: the teams seen or installed, and consumed OAuth state nonces.

use crate::platform::exec::{int, rows, run, text};
use crate::sql;
use serde_json::Value;
use worker::{SqlStorage, SqlStorageValue as V};

/// A page of teams by key: at most `limit`, after the key `after`.
pub fn directory_teams(sql: &SqlStorage, after: &str, limit: i64) -> worker::Result<Vec<Value>> {
    rows(sql, sql::directory::DIRECTORY_LIST, vec![int(limit), text(after)])
}

/// Notes a team seen in traffic.
pub fn directory_seen(sql: &SqlStorage, team_key: &str, now: i64) -> worker::Result<()> {
    run(sql, sql::directory::DIRECTORY_SEEN, vec![text(team_key), int(now)])
}

/// Notes an installation.
pub fn directory_installed(
    sql: &SqlStorage,
    team_key: &str,
    team_name: Option<&str>,
    enterprise_name: Option<&str>,
    org_wide: bool,
    now: i64,
) -> worker::Result<()> {
    let opt = |v: Option<&str>| v.map(text).unwrap_or(V::Null);
    run(sql, sql::directory::DIRECTORY_INSTALLED, vec![text(team_key), opt(team_name), opt(enterprise_name), int(i64::from(org_wide)), int(now)])
}

/// Notes an uninstall.
pub fn directory_uninstalled(sql: &SqlStorage, team_key: &str, now: i64) -> worker::Result<()> {
    run(sql, sql::directory::DIRECTORY_UNINSTALLED, vec![text(team_key), int(now)])
}

/// Consumes an OAuth state nonce; true the first time (forgets expired nonces first).
pub fn consume_state(sql: &SqlStorage, nonce: &str, expires_at: i64, now: i64) -> worker::Result<bool> {
    run(sql, sql::directory::PRUNE_STATES, vec![int(now)])?;
    Ok(!rows::<Value>(sql, sql::directory::CONSUME_STATE, vec![text(nonce), int(expires_at)])?.is_empty())
}

/// A team asks to be woken by `at`: kept, or brought forward (a later time writes nothing).
pub fn wake_by(sql: &SqlStorage, team_key: &str, at: i64) -> worker::Result<()> {
    run(sql, sql::directory::WAKE_BY, vec![text(team_key), int(at)])
}

/// Team `team_key` was woken for its wake at `at`: its next one is `next` (none: forgotten),
/// unless it asked for another time meanwhile.
pub fn woken(sql: &SqlStorage, team_key: &str, at: i64, next: Option<i64>) -> worker::Result<()> {
    match next {
        Some(next) => run(sql, sql::directory::WAKE_AGAIN, vec![text(team_key), int(at), int(next)]),
        None => run(sql, sql::directory::WAKE_DONE, vec![text(team_key), int(at)]),
    }
}
