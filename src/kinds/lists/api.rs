//! The records API's shapes, pure: which ids a path may carry, what a record and a pass look like
//! in an answer, and the outbox work a list queues ([`ListJob`]) with its keys.

use super::reconcile::{Finding, Pass, Report};
use super::sync::SyncState;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The largest body a records or column-map request may carry: 64 KiB (larger → 413).
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// The most records one listing returns.
pub const MAX_RECORDS_PAGE: i64 = 200;

/// A List id as a path carries it: Slack's file id (`F…`), alphanumeric.
pub fn valid_list_id(id: &str) -> bool {
    id.len() > 1 && id.len() <= 64 && id.starts_with('F') && id.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Our record id: 1 to 128 letters, digits, `_`, `-`, `.` or `:` (it is also the text of the
/// mirrored key column).
pub fn valid_record_id(id: &str) -> bool {
    (1..=128).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
}

/// The outbox work of one List. Every row of a list has the target [`target`]: the claim takes
/// one at a time per target, and a 429 or the pacing holds that target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "job", rename_all = "snake_case")]
pub enum ListJob {
    /// Bring one record's row up to date (create, update or delete, decided when performed).
    Sync {
        /// Our record id.
        record_id: String,
    },
    /// Read the next page of a reconciliation pass.
    Reconcile {
        /// The pass.
        run: i64,
    },
    /// Store a record's fields as an app's handler asked (`cx.list_record`): checked against the
    /// List's column map when performed, then stored (a new version) and its sync queued with the
    /// row's fenced completion, exactly as a `PUT …/records/{id}` would; the same fields again
    /// change nothing.
    Put {
        /// Our record id.
        record_id: String,
        /// The record's fields (canonical JSON text: serde_json's maps are sorted by key).
        fields: String,
    },
}

/// The rate-limit and one-at-a-time target of a list's rows.
pub fn target(list_id: &str) -> String {
    format!("slackLists:{list_id}")
}

/// The idempotency key of a record's `n`th queued sync.
pub fn sync_key(list_id: &str, record_id: &str, n: i64) -> String {
    format!("lists:{list_id}:{record_id}:{n}")
}

/// The idempotency key of a pass's page `page` (0: the first).
pub fn page_key(list_id: &str, run: i64, page: u32) -> String {
    format!("lists:{list_id}:reconcile:{run}:{page}")
}

/// A record as the API answers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordView {
    /// The List.
    pub list_id: String,
    /// Our id.
    pub record_id: String,
    /// The fields as last PUT.
    pub fields: Value,
    /// Bumped by each PUT that changed the fields (and by a DELETE).
    pub version: i64,
    /// The version Slack is known to show.
    pub synced_version: i64,
    /// The linked row (`Rec…`), once known.
    pub row_id: Option<String>,
    /// Sync state.
    pub state: SyncState,
    /// Deleted through the API.
    pub deleted: bool,
    /// Slack's last error for this record.
    pub last_error: Option<String>,
    /// Someone other than our bot changed the row last (seen by reconciliation).
    pub human_edited: bool,
    /// Who, if known.
    pub edited_by: Option<String>,
    /// The row is archived in Slack.
    pub archived: bool,
    /// First stored.
    pub created_at: i64,
    /// Last changed through the API.
    pub updated_at: i64,
}

/// A reconciliation pass as the API answers it (also its report row).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunView {
    /// The pass.
    pub id: i64,
    /// The List.
    pub list_id: String,
    /// `schedule` or `api`.
    pub trigger: String,
    /// When it was queued.
    pub queued_at: i64,
    /// When its first page was read.
    pub started_at: Option<i64>,
    /// When it ended.
    pub finished_at: Option<i64>,
    /// The pass it is in (`active`, then `archived`).
    pub pass: Pass,
    /// Counts per outcome.
    pub report: Report,
    /// Every finding but `seen` (up to [`super::reconcile::MAX_REPORTED_FINDINGS`]).
    pub findings: Vec<Finding>,
    /// Why it ended early, if it did.
    pub error: Option<String>,
}

impl RunView {
    /// The `reconcile` log line of this pass, ended at `now`.
    pub fn line(self, team: Option<String>, now: i64) -> crate::logs::ReconcileLine {
        crate::logs::ReconcileLine {
            team,
            list_id: self.list_id,
            run: self.id,
            trigger: self.trigger,
            duration_ms: self.started_at.map(|at| now - at),
            counts: self.report,
            error: self.error,
        }
    }
}

/// `GET /api/teams/{team}/lists/{list_id}`: the column map, records per state, the latest pass.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListView {
    /// The List.
    pub list_id: String,
    /// Its column map.
    pub column_map: super::ColumnMap,
    /// How many records are in each state.
    pub records: BTreeMap<String, i64>,
    /// The latest pass, if any.
    pub last_reconcile: Option<RunView>,
}

/// A page of records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordsPage {
    /// The records, by id.
    pub records: Vec<RecordView>,
    /// Pass as `after` for the next page; absent on the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_after: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_in_paths_are_checked() {
        assert!(valid_list_id("F0123ABC"));
        assert!(!valid_list_id("C0123") && !valid_list_id("F") && !valid_list_id("F01/2"));
        assert!(valid_record_id("inc-42") && valid_record_id("jira:OPS.7_a"));
        assert!(!valid_record_id("") && !valid_record_id("a b") && !valid_record_id(&"x".repeat(129)));
    }

    #[test]
    fn a_job_is_stored_tagged_and_keys_name_list_and_record() {
        let job = ListJob::Sync { record_id: "r1".into() };
        assert_eq!(serde_json::to_value(&job).unwrap(), serde_json::json!({"job": "sync", "record_id": "r1"}));
        assert_eq!(sync_key("F1", "r1", 3), "lists:F1:r1:3");
        assert_eq!(page_key("F1", 7, 0), "lists:F1:reconcile:7:0");
        assert_eq!(target("F1"), "slackLists:F1");
    }
}
