//! One record's sync, pure: which Slack call (if any) brings the List up to date with the record,
//! and what the call's end writes back to the record.
//!
//! A record is stored with a `version` (bumped by every PUT that changes it) and the
//! `synced_version` Slack is known to show. Its nullable `row_id` *is* the create's idempotency
//! key: no row id → `items.create`, a row id → `items.update`. A sync always sends the record's
//! *current* fields, so a queued sync whose record has moved on sends the newest state, and a
//! sync that finds `synced_version == version` makes no call at all.
//!
//! The create is guarded twice, because it is the one call that must never be repeated blindly:
//! - `create_sent` is written (committed) before the create leaves; a sync that finds it set
//!   knows an earlier create's end was never recorded (the runtime died, the lease ran out) and
//!   moves the record to `create_uncertain` without calling Slack;
//! - a `create_uncertain` record gets no create until a reconciliation pass has looked for its row
//!   by the mirrored key (relinked if found; created again only if the pass did not find it).

use super::create::CreateVerdict;
use serde::{Deserialize, Serialize};

/// A record's sync state (`records.state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncState {
    /// A sync is queued: Slack does not show the latest version yet.
    Pending,
    /// Slack shows the latest version.
    Synced,
    /// A create's outcome is unknown: no create until reconciliation has looked for the row.
    CreateUncertain,
    /// Slack refused the last sync for good (see `last_error`); the next PUT tries again.
    Failed,
    /// Reconciliation did not find the linked row (deleted in Slack); recreated only when the
    /// list's `recreate_missing` is on.
    Missing,
    /// Deleted here and in Slack.
    Deleted,
}

impl SyncState {
    /// The stored text.
    pub fn as_str(self) -> &'static str {
        match self {
            SyncState::Pending => "pending",
            SyncState::Synced => "synced",
            SyncState::CreateUncertain => "create_uncertain",
            SyncState::Failed => "failed",
            SyncState::Missing => "missing",
            SyncState::Deleted => "deleted",
        }
    }

    /// Parses the stored text (also the records listing's `state` filter).
    pub fn parse(s: &str) -> Option<SyncState> {
        [SyncState::Pending, SyncState::Synced, SyncState::CreateUncertain, SyncState::Failed, SyncState::Missing, SyncState::Deleted]
            .into_iter()
            .find(|state| state.as_str() == s)
    }
}

/// What a sync reads of a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordSync {
    /// The record's version.
    pub version: i64,
    /// The version Slack shows.
    pub synced_version: i64,
    /// The linked row, if any.
    pub row_id: Option<String>,
    /// Its state.
    pub state: SyncState,
    /// Deleted by the API (a tombstone until Slack's row is gone).
    pub deleted: bool,
    /// A create was sent and its end was never recorded.
    pub create_sent: bool,
}

/// The call a sync makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// `slackLists.items.create` with every cell.
    Create,
    /// `slackLists.items.update` of this row.
    Update {
        /// `Rec…`.
        row_id: String,
    },
    /// `slackLists.items.delete` of this row.
    Delete {
        /// `Rec…`.
        row_id: String,
    },
    /// No call: the record is settled by `write`.
    Settle(RecordWrite),
}

/// What the end of a sync writes to the record (in the completion's unit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordWrite {
    /// A create made this row: store it, `synced_version = version`.
    Linked {
        /// `Rec…`.
        row_id: String,
        /// The version sent.
        version: i64,
    },
    /// Slack shows `version`.
    Synced {
        /// The version sent.
        version: i64,
    },
    /// The row is gone: the record is deleted.
    Gone,
    /// The create's outcome is unknown.
    Uncertain,
    /// Slack certainly did not act; the sync will be tried again (clears `create_sent`).
    NotActed,
    /// Refused for good.
    Failed {
        /// Slack's error.
        error: String,
    },
    /// Nothing changes.
    Unchanged,
}

/// The sync a record needs now. `recreate_missing` is the list's setting.
pub fn plan(record: &RecordSync, recreate_missing: bool) -> Plan {
    if record.create_sent {
        return Plan::Settle(RecordWrite::Uncertain);
    }
    if record.state == SyncState::CreateUncertain {
        return Plan::Settle(RecordWrite::Unchanged);
    }
    if record.deleted {
        return match &record.row_id {
            Some(row_id) if record.state != SyncState::Deleted => Plan::Delete { row_id: row_id.clone() },
            _ => Plan::Settle(RecordWrite::Gone),
        };
    }
    match (&record.row_id, record.state) {
        (Some(_), SyncState::Missing) if recreate_missing => Plan::Create,
        (Some(_), SyncState::Missing) => Plan::Settle(RecordWrite::Unchanged),
        (_, _) if record.synced_version >= record.version && record.state == SyncState::Synced => Plan::Settle(RecordWrite::Unchanged),
        (None, _) => Plan::Create,
        (Some(row_id), _) => Plan::Update { row_id: row_id.clone() },
    }
}

/// What a create's verdict writes (`parked`: the outbox gave up on the row).
pub fn after_create(verdict: &CreateVerdict, version: i64, parked: bool) -> RecordWrite {
    match verdict {
        CreateVerdict::Created { row_id } => RecordWrite::Linked { row_id: row_id.clone(), version },
        CreateVerdict::Uncertain { .. } => RecordWrite::Uncertain,
        CreateVerdict::RetryCreate { .. } if parked => RecordWrite::Failed { error: "attempts_exhausted".into() },
        CreateVerdict::RetryCreate { .. } => RecordWrite::NotActed,
        CreateVerdict::Rejected { code } => RecordWrite::Failed { error: code.clone() },
    }
}

/// Slack's errors that say a row is not there: a delete's goal holds (the classifier makes them
/// permanent; a delete judges them done, an update parks on them).
pub const GONE: &[&str] = &["record_not_found", "row_not_found"];

/// What an update's or a delete's end writes: `error` is the failed attempt's code, `parked`
/// whether the outbox gave up on the row.
pub fn after_call(plan: &Plan, version: i64, error: Option<&str>, parked: bool) -> RecordWrite {
    match (plan, error) {
        (Plan::Delete { .. }, None) => RecordWrite::Gone,
        (Plan::Delete { .. }, Some(code)) if GONE.contains(&code) => RecordWrite::Gone,
        (_, None) => RecordWrite::Synced { version },
        (_, Some(code)) if parked => RecordWrite::Failed { error: code.to_string() },
        (_, Some(_)) => RecordWrite::Unchanged,
    }
}

/// The state a record is left in after `write` (None: the state does not change). A record whose
/// version moved on while the sync ran stays `pending`: its newer sync is queued.
pub fn state_after(write: &RecordWrite, version_now: i64) -> Option<SyncState> {
    let synced_or_pending = |sent: i64| if sent >= version_now { SyncState::Synced } else { SyncState::Pending };
    match write {
        RecordWrite::Linked { version, .. } | RecordWrite::Synced { version } => Some(synced_or_pending(*version)),
        RecordWrite::Gone => Some(SyncState::Deleted),
        RecordWrite::Uncertain => Some(SyncState::CreateUncertain),
        RecordWrite::Failed { .. } => Some(SyncState::Failed),
        RecordWrite::NotActed | RecordWrite::Unchanged => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(version: i64, synced: i64, row: Option<&str>, state: SyncState) -> RecordSync {
        RecordSync { version, synced_version: synced, row_id: row.map(str::to_string), state, deleted: false, create_sent: false }
    }

    #[test]
    fn the_row_id_decides_create_or_update_and_a_synced_record_makes_no_call() {
        assert_eq!(plan(&record(1, 0, None, SyncState::Pending), false), Plan::Create);
        assert_eq!(plan(&record(2, 1, Some("Rec1"), SyncState::Pending), false), Plan::Update { row_id: "Rec1".into() });
        assert_eq!(plan(&record(2, 2, Some("Rec1"), SyncState::Synced), false), Plan::Settle(RecordWrite::Unchanged));
        assert_eq!(plan(&record(3, 2, Some("Rec1"), SyncState::Failed), false), Plan::Update { row_id: "Rec1".into() });
    }

    #[test]
    fn a_create_is_never_sent_twice_blindly() {
        let sent = RecordSync { create_sent: true, ..record(1, 0, None, SyncState::Pending) };
        assert_eq!(plan(&sent, false), Plan::Settle(RecordWrite::Uncertain), "an earlier create's end was never recorded");
        assert_eq!(plan(&record(2, 0, None, SyncState::CreateUncertain), true), Plan::Settle(RecordWrite::Unchanged), "waits for reconciliation");
    }

    #[test]
    fn a_missing_row_is_recreated_only_when_the_list_says_so() {
        let missing = record(3, 2, Some("Rec1"), SyncState::Missing);
        assert_eq!(plan(&missing, false), Plan::Settle(RecordWrite::Unchanged));
        assert_eq!(plan(&missing, true), Plan::Create);
    }

    #[test]
    fn a_deleted_record_deletes_its_row_once() {
        let deleted = RecordSync { deleted: true, ..record(2, 1, Some("Rec1"), SyncState::Pending) };
        assert_eq!(plan(&deleted, false), Plan::Delete { row_id: "Rec1".into() });
        assert_eq!(plan(&RecordSync { state: SyncState::Deleted, ..deleted.clone() }, false), Plan::Settle(RecordWrite::Gone));
        assert_eq!(plan(&RecordSync { row_id: None, ..deleted }, false), Plan::Settle(RecordWrite::Gone), "never created: nothing to delete");
    }

    #[test]
    fn the_end_of_a_call_writes_by_the_table() {
        let created = CreateVerdict::Created { row_id: "Rec9".into() };
        assert_eq!(after_create(&created, 4, false), RecordWrite::Linked { row_id: "Rec9".into(), version: 4 });
        assert_eq!(after_create(&CreateVerdict::Uncertain { reason: "timeout".into() }, 4, true), RecordWrite::Uncertain);
        assert_eq!(after_create(&CreateVerdict::RetryCreate { retry_after_ms: None }, 4, false), RecordWrite::NotActed);
        assert_eq!(after_create(&CreateVerdict::RetryCreate { retry_after_ms: None }, 4, true), RecordWrite::Failed { error: "attempts_exhausted".into() });
        assert_eq!(
            after_create(&CreateVerdict::Rejected { code: "invalid_arguments".into() }, 4, true),
            RecordWrite::Failed { error: "invalid_arguments".into() }
        );
        let update = Plan::Update { row_id: "Rec1".into() };
        assert_eq!(after_call(&update, 5, None, false), RecordWrite::Synced { version: 5 });
        assert_eq!(after_call(&update, 5, Some("timeout"), false), RecordWrite::Unchanged);
        assert_eq!(after_call(&update, 5, Some("row_not_found"), true), RecordWrite::Failed { error: "row_not_found".into() });
        assert_eq!(after_call(&Plan::Delete { row_id: "Rec1".into() }, 5, Some("record_not_found"), true), RecordWrite::Gone);
    }

    #[test]
    fn a_record_that_moved_on_during_its_sync_stays_pending() {
        assert_eq!(state_after(&RecordWrite::Synced { version: 3 }, 3), Some(SyncState::Synced));
        assert_eq!(state_after(&RecordWrite::Synced { version: 3 }, 4), Some(SyncState::Pending));
        assert_eq!(state_after(&RecordWrite::NotActed, 4), None);
        for state in ["pending", "synced", "create_uncertain", "failed", "missing", "deleted"] {
            assert_eq!(SyncState::parse(state).map(SyncState::as_str), Some(state));
        }
    }
}
