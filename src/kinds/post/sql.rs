//! The read-back's SQL: migration 7, the column that says a row's post may already be in Slack.
//! The claim sets it, a retry's completion keeps or clears it (`sql::outbox`, `CLAIM` and
//! `COMPLETE_RETRY`): no statement of its own, so the normal path writes no row more.

/// Migration 7 (`uncertain_posts`), additive (floor 5): `outbox.uncertain_since`, when the row's
/// oldest attempt whose outcome is unknown began (a lease that expired mid-call, a post that timed
/// out after sending); NULL when nothing is unknown. The next attempt of a post reads it back first
/// (`crate::kinds::post`). Code of version 5 ignores the column.
pub const MIGRATION_7: &str = "ALTER TABLE outbox ADD COLUMN uncertain_since INTEGER";
