//! The admin surface's pure half: the typed answers of the team actor's admin routes (serialized
//! by the actor, read back by the Worker for the HTML page) and the page itself. The adapters are
//! `runtime::admin` (authenticates and forwards) and `runtime::team::admin` (answers from the
//! team's SQLite).
//!
//! The field names are the admin API's JSON, documented in `docs/operations.md`.

pub mod page;
pub mod state;
pub mod sweeps;

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
    /// How long the oldest pending row due by now has waited (ms).
    pub oldest_pending_age_ms: Option<i64>,
    /// Of the pending rows, the scheduled ones not due yet (`GET …/scheduled` lists them).
    #[serde(default)]
    pub scheduled: i64,
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
    /// Times a request found rows overdue with no alarm to sweep them (`alert: alarm_missing`;
    /// each re-armed the alarm), the latest, and the due time it found; `None` if it never did.
    #[serde(default)]
    pub alarm_missing: Option<crate::outbox::alarm::MissedAlarms>,
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

/// A delivered row's successful attempt, which the row carries instead of an `attempts` row
/// (`sql::lean`): its attempt count, finish time, HTTP status and latency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct CarriedSuccess {
    /// The row's attempts (the last one succeeded).
    pub attempts: i64,
    /// When it was stored as done.
    pub finished_at: i64,
    /// Slack's HTTP status.
    pub last_status: Option<i64>,
    /// How long the attempt took.
    pub last_latency_ms: i64,
}

/// A row's history as the admin API shows it: the logged attempts, and the success its row
/// carries in its place, by time (a late, fenced attempt of an earlier claim comes after it).
pub fn history(mut logged: Vec<AttemptRecord>, carried: Option<CarriedSuccess>) -> Vec<AttemptRecord> {
    if let Some(s) = carried {
        let success = AttemptRecord {
            attempt: s.attempts,
            at: s.finished_at,
            outcome: Outcome::Success,
            detail: None,
            http_status: s.last_status,
            latency_ms: Some(s.last_latency_ms),
        };
        let at = logged.partition_point(|a| a.at <= success.at);
        logged.insert(at, success);
    }
    logged
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

/// One pending scheduled row in `GET /admin/teams/{team}/scheduled` (`crate::kinds::schedule`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScheduledRow {
    /// The row (cancel it with `POST …/outbox/{id}/cancel`).
    pub id: i64,
    /// The schedule's key (what `cx.cancel` names).
    pub key: String,
    /// When it falls due (epoch ms).
    pub due_at: i64,
    /// How often it repeats, if it does.
    pub every_ms: Option<i64>,
    /// The calendar it repeats on, if it does: its cron line and zone (`0 9 * * * Europe/Berlin`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calendar: Option<String>,
    /// When the request that scheduled it was recorded.
    pub scheduled_at: Option<i64>,
    /// When it is next tried (its due time, or later after a failed attempt).
    pub next_attempt_at: i64,
    /// Absolute deadline, if any (counted from the due time).
    pub deadline_at: Option<i64>,
    /// Attempts so far.
    pub attempts: i64,
    /// 1 while a sweep holds a claim on it (a cancel then cannot stop that attempt).
    pub claimed: i64,
    /// What it does, in words.
    pub what: String,
}

impl ScheduledRow {
    /// The view of a pending row, if it is a scheduled one.
    pub fn of(row: &OutboxRow) -> Option<ScheduledRow> {
        let Ok(crate::kinds::registry::Action::Scheduled { key, when, scheduled_at, .. }) = serde_json::from_str(&row.payload) else { return None };
        Some(ScheduledRow {
            id: row.id,
            key,
            due_at: when.due_at(row.created_at),
            every_ms: when.every_ms,
            calendar: when.calendar.map(|c| c.to_string()),
            scheduled_at,
            next_attempt_at: row.next_attempt_at,
            deadline_at: row.deadline_at,
            attempts: row.attempts,
            claimed: row.claimed,
            what: page::describe(&row.payload),
        })
    }
}

/// `GET /admin/teams/{team}/scheduled?limit=`: the pending scheduled rows, soonest due first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScheduledPage {
    /// The rows.
    pub scheduled: Vec<ScheduledRow>,
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
    #[test]
    fn a_carried_success_takes_its_place_in_the_history_by_time() {
        use super::{history, AttemptRecord, CarriedSuccess, Outcome};
        let logged = |at, outcome| AttemptRecord { attempt: 1, at, outcome, detail: None, http_status: None, latency_ms: Some(5) };
        let carried = CarriedSuccess { attempts: 2, finished_at: 20, last_status: Some(200), last_latency_ms: 7 };
        let shown = history(vec![logged(10, Outcome::Retry), logged(30, Outcome::Fenced)], Some(carried));
        let outcomes: Vec<Outcome> = shown.iter().map(|a| a.outcome).collect();
        assert_eq!(outcomes, [Outcome::Retry, Outcome::Success, Outcome::Fenced]);
        assert_eq!((shown[1].attempt, shown[1].http_status, shown[1].latency_ms), (2, Some(200), Some(7)));
        assert_eq!(history(vec![logged(10, Outcome::Parked)], None).len(), 1);
    }

    use super::*;

    #[test]
    fn only_a_full_page_points_at_the_next() {
        let rows = |ids: &[i64]| ids.iter().map(|&id| OutboxRow { id, ..OutboxRow::default() }).collect::<Vec<_>>();
        assert_eq!(OutboxPage::of(rows(&[9, 8]), 2).next_before, Some(8));
        assert_eq!(OutboxPage::of(rows(&[9]), 2).next_before, None);
        assert_eq!(OutboxPage::of(rows(&[]), 2).next_before, None);
    }

    #[test]
    fn a_scheduled_row_shows_its_key_and_due_time_and_any_other_row_is_not_one() {
        let post = crate::kinds::registry::Action::slack_api("chat.postMessage", serde_json::json!({"channel": "C1", "text": "still open"}));
        let when = crate::kinds::schedule::When::at(5_000).every(crate::kinds::schedule::DAY_MS);
        let payload = crate::kinds::registry::Action::Scheduled { key: "k".into(), when, scheduled_at: Some(1), effect: Box::new(post.clone()) };
        let row = OutboxRow { id: 3, payload: serde_json::to_string(&payload).unwrap(), created_at: 5_000, next_attempt_at: 5_000, ..OutboxRow::default() };
        let view = ScheduledRow::of(&row).expect("a scheduled row");
        assert_eq!((view.key.as_str(), view.due_at, view.every_ms, view.scheduled_at), ("k", 5_000, Some(crate::kinds::schedule::DAY_MS), Some(1)));
        assert!(view.what.contains("still open"), "{}", view.what);
        let plain = OutboxRow { payload: serde_json::to_string(&post).unwrap(), ..row };
        assert_eq!(ScheduledRow::of(&plain), None);
    }

    #[test]
    fn a_row_detail_shows_the_row_fields_beside_its_history() {
        let detail = RowDetail { row: OutboxRow { id: 7, ..OutboxRow::default() }, attempts_log: vec![] };
        let json = serde_json::to_value(&detail).unwrap();
        assert_eq!((json["id"].as_i64(), json["attempts_log"].as_array().map(Vec::len)), (Some(7), Some(0)));
        assert_eq!(serde_json::from_value::<RowDetail>(json).unwrap(), detail);
    }
}
