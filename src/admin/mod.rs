//! The admin surface's pure half: the typed answers of the team actor's admin routes (serialized
//! by the actor, read back by the Worker for the HTML page) and the page itself. The adapters are
//! `runtime::admin` (authenticates and forwards) and `runtime::team::admin` (answers from the
//! team's SQLite).
//!
//! The field names are the admin API's JSON, documented in `docs/operations.md`.

pub mod page;

use crate::logs::SweepLine;
use crate::oauth::StoredInstallation;
use crate::outbox::Outcome;
use serde::{Deserialize, Serialize};

/// `GET /admin/teams/{team}/stats`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// The team key, once recorded.
    pub team: Option<String>,
    /// Rows waiting for delivery.
    pub pending: i64,
    /// How long the oldest pending row has waited (ms).
    pub oldest_pending_age_ms: Option<i64>,
    /// Parked rows by reason, most first.
    pub parked_by_reason: Vec<ReasonCount>,
    /// Rows by status and reason, with each group's oldest.
    pub groups: Vec<Group>,
    /// Receipts kept (the duplicate filter).
    pub receipts: i64,
    /// Attempt outcomes counted since the team's first sweep.
    pub counters: Vec<Counter>,
    /// Lanes (a Slack method, or `chat.postMessage:{channel}`) held by a 429, and until when.
    pub holds: Vec<Hold>,
    /// Lanes being paced right now by their rate budget (this actor instance's view): rows wait
    /// for reserved slots instead of being sent to be refused.
    #[serde(default)]
    pub pacing: Vec<PacedLane>,
    /// Targets failing right now, worst first.
    pub failing_targets: Vec<Streak>,
    /// The last sweep's report, with the time it was stored (`at`).
    pub last_sweep: Option<SweepLine>,
    /// The installation, without its tokens.
    pub installation: Option<StoredInstallation>,
    /// Whether the app was uninstalled (and not reinstalled since).
    pub uninstalled: bool,
    /// Slack's `app_rate_limited` notices for this team: the minutes it dropped events in (over
    /// 30,000 an hour), the latest, and when it said so; `None` if it never did.
    #[serde(default)]
    pub app_rate_limited: Option<crate::slack::rate_limited::Notices>,
}

/// Parked rows with one reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReasonCount {
    /// The reason.
    pub reason: Option<String>,
    /// How many rows.
    pub n: i64,
}

/// Rows of one status and reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Group {
    /// `pending`, `done` or `parked`.
    pub status: String,
    /// The reason (empty when none).
    pub reason: String,
    /// How many rows.
    pub n: i64,
    /// When the oldest was queued (epoch ms).
    pub oldest: Option<i64>,
}

/// A named counter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Counter {
    /// `success`, `retry`, `parked` or `fenced`.
    pub name: String,
    /// Its count.
    pub value: i64,
}

/// A lane being paced: its next free slot and the rows waiting for reserved ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PacedLane {
    /// `chat.postMessage:{channel}`, or a method for the whole team.
    pub lane: String,
    /// When its next unreserved call may leave (epoch ms).
    pub free_at: i64,
    /// Held by a 429 until then.
    pub held_until: Option<i64>,
    /// Rows waiting for a reserved slot.
    pub waiting: usize,
}

impl From<crate::outbox::pace::LaneView> for PacedLane {
    fn from(v: crate::outbox::pace::LaneView) -> PacedLane {
        PacedLane { lane: v.lane, free_at: v.free_at, held_until: v.held_until, waiting: v.waiting }
    }
}

/// A Slack method held for the whole team after a 429.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hold {
    /// The method (or endpoint kind).
    pub target: String,
    /// Held until (epoch ms).
    pub until_ms: i64,
}

/// A target's failures in a row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Streak {
    /// The method (or endpoint kind).
    pub target: String,
    /// Failed attempts in a row.
    pub failures: i64,
}

/// One outbox row, as the admin API shows it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OutboxRow {
    /// Row id.
    pub id: i64,
    /// Idempotency key (the fact it reacts to).
    pub idem_key: String,
    /// The receipt that produced it.
    pub op_key: String,
    /// Effect label.
    pub effect: String,
    /// Rate-limit target.
    pub target: String,
    /// The effect's action, as JSON text.
    pub payload: String,
    /// `pending`, `done` or `parked`.
    pub status: String,
    /// Attempts so far.
    pub attempts: i64,
    /// The row's attempt budget.
    pub max_attempts: i64,
    /// When it is next due (epoch ms).
    pub next_attempt_at: i64,
    /// Absolute deadline, if any.
    pub deadline_at: Option<i64>,
    /// 1 while a sweep holds a claim on it, else 0.
    pub claimed: i64,
    /// When the current claim's lease runs out.
    pub claim_expires_at: Option<i64>,
    /// Why it was parked.
    pub reason: Option<String>,
    /// The last attempt's error.
    pub last_error: Option<String>,
    /// The last attempt's HTTP status.
    pub last_status: Option<i64>,
    /// Queued at.
    pub created_at: i64,
    /// First attempt at.
    pub first_attempt_at: Option<i64>,
    /// Last attempt at.
    pub last_attempt_at: Option<i64>,
    /// Done or parked at.
    pub finished_at: Option<i64>,
}

/// `GET /admin/teams/{team}/outbox`: a page of rows, newest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OutboxPage {
    /// The rows.
    pub rows: Vec<OutboxRow>,
    /// Pass as `before` for the next page (None: this was the last).
    pub next_before: Option<i64>,
}

/// One attempt in a row's history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttemptRecord {
    /// Which attempt.
    pub attempt: i64,
    /// When it was stored (epoch ms).
    pub at: i64,
    /// How it ended.
    pub outcome: Outcome,
    /// Slack's error or the failure's code.
    pub detail: Option<String>,
    /// The HTTP status, when there was an answer.
    pub http_status: Option<i64>,
    /// How long it took.
    pub latency_ms: Option<i64>,
}

/// `GET /admin/teams/{team}/outbox/{id}`: a row with its attempt history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowDetail {
    /// The row.
    #[serde(flatten)]
    pub row: OutboxRow,
    /// Every attempt, oldest first.
    pub attempts_log: Vec<AttemptRecord>,
}

/// One operator action in `GET /admin/teams/{team}/audit`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditEntry {
    /// Entry id.
    pub id: i64,
    /// When (epoch ms).
    pub at: i64,
    /// `redrive`, `bulk_redrive` or `discard`.
    pub action: String,
    /// The row, for single-row actions.
    pub row_id: Option<i64>,
    /// What it concerned, as JSON text (a discarded row, a bulk redrive's filter).
    pub detail: Option<String>,
}

impl OutboxPage {
    /// A page of `rows` asked with `limit`: a full page points at the next.
    pub fn of(rows: Vec<OutboxRow>, limit: i64) -> OutboxPage {
        let next_before = if rows.len() as i64 == limit { rows.last().map(|r| r.id) } else { None };
        OutboxPage { rows, next_before }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_full_page_points_at_the_next() {
        let rows = |ids: &[i64]| ids.iter().map(|&id| OutboxRow { id, ..OutboxRow::default() }).collect::<Vec<_>>();
        assert_eq!(OutboxPage::of(rows(&[9, 8]), 2).next_before, Some(8));
        assert_eq!(OutboxPage::of(rows(&[9]), 2).next_before, None);
        assert_eq!(OutboxPage::of(rows(&[]), 2).next_before, None);
    }

    #[test]
    fn a_row_detail_shows_the_row_fields_beside_its_history() {
        let detail = RowDetail { row: OutboxRow { id: 7, ..OutboxRow::default() }, attempts_log: vec![] };
        let json = serde_json::to_value(&detail).unwrap();
        assert_eq!((json["id"].as_i64(), json["attempts_log"].as_array().map(Vec::len)), (Some(7), Some(0)));
        assert_eq!(serde_json::from_value::<RowDetail>(json).unwrap(), detail);
    }
}
