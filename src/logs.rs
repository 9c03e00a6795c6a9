//! Every log line slackline prints, as types: one JSON object per line, tagged by `kind`, with
//! stable field names that `wrangler tail`, Workers Logs and `scripts/logs.sh` filter on. The
//! field lists in `docs/operations.md` are checked against these types by a test below, so the
//! docs cannot drift from what is printed.
//!
//! Absent values are left out of a line (not printed as `null`): fewer bytes per line, and a
//! filter that reads a missing field gets `null` anyway. Nothing that is a secret, a token or a
//! signature is ever a field.

use crate::ingest::Verdict;
use crate::outbox::{Outcome, Trigger};
use crate::sql::migrate::{self, Ready, Refused, Schema, Stored};
use serde::{Deserialize, Serialize};

/// One log line.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LogLine {
    /// Each request at the front door.
    Request(RequestLine),
    /// Each sweep that claimed something, alerted or failed.
    Sweep(SweepLine),
    /// Each delivery attempt.
    Delivery(DeliveryLine),
    /// A target failing again and again.
    Alert(AlertLine),
    /// Rows overdue with no alarm to sweep them: the alarm was re-armed.
    AlarmMissing(AlarmMissingLine),
    /// An install attempt's end.
    Install(InstallLine),
    /// The app was removed from a team.
    Uninstall(UninstallLine),
    /// A rotating bot token was refreshed.
    TokenRefreshed(TokenRefreshedLine),
    /// A token refresh failed.
    TokenRefreshFailed(TokenRefreshFailedLine),
    /// An operator's bulk action.
    Admin(AdminLine),
    /// A List's reconciliation pass ended.
    Reconcile(ReconcileLine),
    /// A malformed setting (every route answers 500 until it is fixed).
    ConfigError(ErrorLine),
    /// An actor migrated its database, or refuses to write it (a failed migration, a database
    /// newer than the code).
    Schema(SchemaLine),
    /// The directory could not be told about a team.
    DirectoryError(ErrorLine),
    /// A delivery's request failed below HTTP (connection refused or reset, DNS, ...).
    NetworkError(ErrorLine),
    /// An admin request to a team actor failed on storage.
    AdminError(ErrorLine),
    /// A post whose previous attempt's outcome was unknown was read back (or could not be).
    ReadBack(ReadBackLine),
}

macro_rules! into_line {
    ($($line:ident => $variant:ident),* $(,)?) => {
        $(impl From<$line> for LogLine {
            fn from(line: $line) -> LogLine {
                LogLine::$variant(line)
            }
        })*
    };
}

into_line!(
    RequestLine => Request, SweepLine => Sweep, DeliveryLine => Delivery, AlertLine => Alert,
    InstallLine => Install, UninstallLine => Uninstall, TokenRefreshedLine => TokenRefreshed,
    TokenRefreshFailedLine => TokenRefreshFailed, AdminLine => Admin, ReconcileLine => Reconcile,
    SchemaLine => Schema, AlarmMissingLine => AlarmMissing, ReadBackLine => ReadBack,
);

/// The `alert` field: what an operator should be told about (see `docs/operations.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Alert {
    /// A row was parked and needs a decision (redrive or discard).
    RowParked,
    /// The oldest pending row has waited longer than `ALERT_PENDING_AGE_MS`.
    PendingTooOld,
    /// One target failed `ALERT_FAILURE_STREAK` times in a row (again at each multiple).
    TargetFailing,
    /// The app was removed; pending rows were parked as `uninstalled`.
    TeamUninstalled,
    /// Slack is dropping events for a team (over 30,000 an hour).
    AppRateLimited,
    /// The app's handler failed on a request: it was recorded and parked as `handler_failed`.
    HandlerFailed,
    /// A request found rows overdue with no alarm at or before them; it re-armed the alarm.
    AlarmMissing,
}

/// What the front door did with a request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestVerdict {
    /// Recorded for the first time.
    New,
    /// Already recorded: nothing written.
    Duplicate,
    /// Acknowledged, nothing to do.
    Ignored,
    /// Not acknowledged (a 4xx or 5xx; `reason` says why). A request is refused until answered.
    #[default]
    Refused,
    /// Slack's endpoint check.
    UrlVerification,
    /// Slack's certificate check.
    SslCheck,
}

impl From<Verdict> for RequestVerdict {
    fn from(v: Verdict) -> Self {
        match v {
            Verdict::New => RequestVerdict::New,
            Verdict::Duplicate => RequestVerdict::Duplicate,
            Verdict::Ignored => RequestVerdict::Ignored,
        }
    }
}

/// `kind: request`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RequestLine {
    /// The path.
    pub route: String,
    /// The installation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    /// The receipt key (event id or trigger id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub op_key: Option<String>,
    /// The event type, slash command or interaction type.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_name: Option<String>,
    /// What was done.
    pub verdict: RequestVerdict,
    /// Why it was ignored or refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Rows queued (a new receipt).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queued: Option<u32>,
    /// Slack's `X-Slack-Retry-Num`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_num: Option<String>,
    /// Slack's `X-Slack-Retry-Reason`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_reason: Option<String>,
    /// `app_rate_limited`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alert: Option<Alert>,
    /// From Slack's `app_rate_limited` envelope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minute_rate_limited: Option<i64>,
    /// Time to the answer.
    pub ack_ms: i64,
}

/// `kind: sweep`; also the admin API's sweep report and the stats' `last_sweep`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SweepLine {
    /// The team key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    /// What started it.
    pub trigger: Trigger,
    /// Rows claimed.
    pub claimed: u32,
    /// Rows a dead actor instance had claimed and never sent, given back to the claim when this
    /// instance swept first (sent at once, no read-back; `runtime::sweep::adopt::take_over`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub taken_over: u32,
    /// Rows delivered.
    pub delivered: u32,
    /// Rows scheduled for another attempt.
    pub retried: u32,
    /// Rows parked.
    pub parked: u32,
    /// Completions refused because another claimer owns the row.
    pub fenced: u32,
    /// Attempts Slack answered 429 (they wait for `Retry-After`; no attempt spent).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rate_limited: u32,
    /// Rows kept back for their method's or channel's rate budget (never sent; each waits for a
    /// reserved slot).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub paced: u32,
    /// The latest slot a paced row was given: how far behind the busiest lane is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paced_until: Option<i64>,
    /// Rows still pending after the sweep.
    pub pending: i64,
    /// How long the oldest pending row has waited (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oldest_pending_age_ms: Option<i64>,
    /// When the alarm was re-armed for (absent: nothing left to do, or only housekeeping).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_alarm_at: Option<i64>,
    /// Nothing is pending: when the housekeeping is next due, the directory's wake (absent when
    /// the alarm covers it or none is due; `outbox::alarm::next_wake`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub housekeeping_at: Option<i64>,
    /// Wall time spent.
    pub duration_ms: i64,
    /// A storage error that ended the sweep early.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// `pending_too_old`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alert: Option<Alert>,
    /// When it was stored as the team's last sweep (only in `last_sweep`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<i64>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl SweepLine {
    /// Counts one attempt's outcome.
    pub fn count(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Success => self.delivered += 1,
            Outcome::Retry => self.retried += 1,
            Outcome::Parked => self.parked += 1,
            Outcome::Fenced => self.fenced += 1,
            Outcome::RateLimited => self.rate_limited += 1,
            Outcome::Paced => self.paced += 1,
        }
    }

    /// How many attempts ended each way, as the team's counters add them (once per sweep).
    pub fn outcomes(&self) -> [(Outcome, i64); 6] {
        [
            (Outcome::Success, self.delivered),
            (Outcome::Retry, self.retried),
            (Outcome::Parked, self.parked),
            (Outcome::Fenced, self.fenced),
            (Outcome::RateLimited, self.rate_limited),
            (Outcome::Paced, self.paced),
        ]
        .map(|(outcome, n)| (outcome, i64::from(n)))
    }

    /// Whether the line is worth printing: an idle sweep (housekeeping only) is not.
    pub fn worth_logging(&self) -> bool {
        self.claimed > 0 || self.alert.is_some() || self.error.is_some()
    }
}

/// `kind: delivery`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeliveryLine {
    /// The team key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    /// Row id.
    pub row: i64,
    /// Effect label.
    pub effect: String,
    /// Rate-limit target (the Slack method).
    pub target: String,
    /// The row's idempotency key.
    pub key: String,
    /// Which attempt.
    pub attempt: u32,
    /// How it ended.
    pub outcome: Outcome,
    /// Slack's error or the failure's code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The HTTP status, when there was an answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_status: Option<i64>,
    /// How long the attempt took.
    pub latency_ms: i64,
    /// How long the row had waited since it was queued when this attempt started (its lateness:
    /// retries and rate pacing included); for a scheduled row, since its due time.
    pub waited_ms: i64,
    /// A scheduled row's schedule key (its line is printed on success too, whatever
    /// `LOG_DELIVERIES` says: its `waited_ms` is how late it fired).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
    /// A scheduled row's due time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub due_at: Option<i64>,
    /// A recurring schedule's occurrences that fell due while this one waited (the runtime was
    /// down): skipped, not run (absent: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule_missed: Option<u32>,
    /// A retry's or a wait's due time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_attempt_at: Option<i64>,
    /// A parked row's reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `row_parked`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alert: Option<Alert>,
}

/// `kind: alert` (`alert: target_failing`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlertLine {
    /// Always `target_failing`.
    pub alert: Alert,
    /// The team key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    /// The failing target.
    pub target: String,
    /// Its failures in a row.
    pub target_failures: i64,
    /// The last error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `kind: alarm_missing` (`alert: alarm_missing`): the alarm's safety net found rows due for
/// longer than its grace with no alarm to sweep them, and re-armed it (`crate::outbox::alarm`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlarmMissingLine {
    /// Always `alarm_missing`.
    pub alert: Alert,
    /// The team key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    /// The earliest due time of the overdue rows (epoch ms).
    pub due_at: i64,
    /// How long they had been due.
    pub waited_ms: i64,
    /// The alarm storage held instead (epoch ms), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stored_alarm_at: Option<i64>,
}

/// What a post's read-back found (`crate::kinds::post`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadBackOutcome {
    /// The post was there: the row is done with its `ts`, not sent again.
    Found,
    /// The read saw the whole window without it: sent.
    NotThere,
    /// Reading was not possible (`reason`): sent anyway; a duplicate is possible.
    Fallback,
}

/// `kind: read_back`: a post whose previous attempt's outcome was unknown, read back before it
/// was sent again.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReadBackLine {
    /// The outbox row.
    pub row: i64,
    /// Its idempotency key (the one in the post's metadata).
    pub key: String,
    /// The read: `conversations.history` or `conversations.replies`.
    pub method: String,
    /// What it found.
    pub outcome: ReadBackOutcome,
    /// Since when the row's outcome was unknown (epoch ms).
    pub uncertain_since: i64,
    /// The found post's `ts`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ts: Option<String>,
    /// Why reading was not possible: `refused:{code}` (e.g. `refused:missing_scope`),
    /// `budget_spent`, `too_many_pages`, `no_channel`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// How an install attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InstallOutcome {
    /// Stored.
    Installed,
    /// The person declined on Slack's page.
    Denied,
    /// A bad, expired, foreign or reused state.
    Refused,
    /// `oauth.v2.access` failed.
    ExchangeFailed,
}

/// `kind: install`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InstallLine {
    /// How it ended.
    pub outcome: InstallOutcome,
    /// The installed team key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    /// Whether the install uses token rotation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotating: Option<bool>,
    /// Slack's `error` parameter (denied).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Why the state was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What the exchange answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl InstallLine {
    /// A line with only its outcome.
    pub fn of(outcome: InstallOutcome) -> InstallLine {
        InstallLine { outcome, team: None, rotating: None, error: None, reason: None, detail: None }
    }
}

/// `kind: uninstall`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UninstallLine {
    /// The team key.
    pub team: String,
    /// Pending rows parked as `uninstalled`.
    pub parked: u32,
    /// Always `team_uninstalled`.
    pub alert: Alert,
}

/// `kind: token_refreshed`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TokenRefreshedLine {
    /// The new token's expiry.
    pub expires_at: i64,
}

/// `kind: token_refresh_failed`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TokenRefreshFailedLine {
    /// How the failure was judged.
    pub verdict: String,
}

/// `kind: admin`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AdminLine {
    /// The action (`bulk_redrive`).
    pub action: String,
    /// The team key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    /// Rows redriven.
    pub redriven: i64,
}

/// `kind: reconcile`: one per pass of a List, when it ends (`docs/lists.md`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReconcileLine {
    /// The team key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    /// The List.
    pub list_id: String,
    /// The pass's id (`GET /api/teams/{team}/lists/{list_id}/reconcile`).
    pub run: i64,
    /// `schedule` or `api`.
    pub trigger: String,
    /// From its first page to its end (ms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<i64>,
    /// Counts per outcome.
    #[serde(flatten)]
    pub counts: ReconcileCounts,
    /// Why it ended early.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A List reconciliation pass's counts per outcome (`crate::kinds::lists::reconcile`: the
/// pass's report row and its log line).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReconcileCounts {
    /// Pages read, both passes.
    pub pages: u32,
    /// Rows read, both passes.
    pub rows: u32,
    /// Linked rows found.
    pub seen: u32,
    /// Rows last changed by someone else.
    pub human_edited: u32,
    /// Linked rows archived in Slack.
    pub archived: u32,
    /// Rows linked by their key.
    pub relinked: u32,
    /// Extra rows with a linked record's key.
    pub duplicates: u32,
    /// Rows naming no record.
    pub orphans: u32,
    /// Linked rows not listed.
    pub missing: u32,
}

/// What an actor's wake found its database to be, when it is worth a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SchemaOutcome {
    /// Every migration ran: the actor serves.
    Migrated,
    /// A migration failed: the database is left at the version before it; the actor answers 500.
    Failed,
    /// The database is newer than the code (a rollback): the actor answers 500, writes nothing.
    Newer,
    /// The database is newer than the code (a rollback), and its floor lets the code run on it:
    /// the actor serves it as it is (info).
    Ahead,
    /// The stamp is not a version, or could not be read: the actor answers 500, writes nothing.
    Unreadable,
}

/// `schema`: an actor's database migrated (info) or refused (error), once per wake.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SchemaLine {
    /// `team` or `directory`.
    pub actor: String,
    /// What happened.
    pub outcome: SchemaOutcome,
    /// The team key, when the database knows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    /// What the database was: `unversioned`, `stamped`, `unreadable` (`empty` when a new actor's
    /// migration failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found: Option<String>,
    /// The migration that failed (`2_outbox_priority`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub migration: Option<String>,
    /// The database's version: before migrating, or as left by a failure (0: empty or
    /// unversioned).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub db_version: Option<u32>,
    /// The code's version.
    pub code_version: u32,
    /// The engine's error, or the unreadable stamp.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl SchemaLine {
    /// The line for `outcome` under `schema`, if any: an up-to-date database prints nothing, nor
    /// does a new actor's (empty) one — a line per new team would be noise.
    pub fn of(schema: &Schema, team: Option<String>, outcome: &migrate::Outcome) -> Option<SchemaLine> {
        let line = |outcome| SchemaLine {
            actor: schema.actor.into(),
            outcome,
            team,
            found: None,
            migration: None,
            db_version: None,
            code_version: schema.version(),
            error: None,
        };
        Some(match outcome {
            migrate::Outcome::Ready(Ready::UpToDate | Ready::Migrated { from: Stored::Empty, .. }) => return None,
            migrate::Outcome::Ready(Ready::Ahead { db, .. }) => {
                SchemaLine { found: Some("stamped".into()), db_version: Some(*db), ..line(SchemaOutcome::Ahead) }
            }
            migrate::Outcome::Ready(Ready::Migrated { from, .. }) => {
                SchemaLine { found: Some(from.found().into()), db_version: from.version(), ..line(SchemaOutcome::Migrated) }
            }
            migrate::Outcome::Refused(Refused::Failed { from, migration, at, error }) => SchemaLine {
                found: Some(from.found().into()),
                migration: Some(migration.clone()),
                db_version: Some(*at),
                error: Some(error.clone()),
                ..line(SchemaOutcome::Failed)
            },
            migrate::Outcome::Refused(Refused::Newer { db, .. }) => {
                SchemaLine { found: Some("stamped".into()), db_version: Some(*db), ..line(SchemaOutcome::Newer) }
            }
            migrate::Outcome::Refused(Refused::Unreadable(stamp)) => {
                SchemaLine { found: Some("unreadable".into()), error: Some(stamp.clone()), ..line(SchemaOutcome::Unreadable) }
            }
            migrate::Outcome::Refused(Refused::Unread(e)) => SchemaLine { error: Some(e.clone()), ..line(SchemaOutcome::Unreadable) },
        })
    }
}

/// The `*_error` kinds.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ErrorLine {
    /// What failed.
    pub error: String,
    /// Which actor (`directory`), when not the team actor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    /// The directory route that could not be reached.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

impl ErrorLine {
    /// A line with only its error.
    pub fn new(error: impl ToString) -> ErrorLine {
        ErrorLine { error: error.to_string(), ..ErrorLine::default() }
    }
}

#[cfg(test)]
mod tests;
