use super::*;
use std::collections::BTreeSet;

const OPERATIONS: &str = include_str!("../../docs/operations.md");

/// One line of each kind with every field set. Struct literals without `..`: a new field
/// fails to compile here until it is added, and then until the docs list it.
fn every_field() -> Vec<LogLine> {
    let s = || Some("x".to_string());
    let error = ErrorLine { error: "e".into(), actor: s(), path: s() };
    vec![
        LogLine::Request(RequestLine {
            route: "/slack/events".into(),
            team: s(),
            op_key: s(),
            type_name: s(),
            verdict: RequestVerdict::New,
            reason: s(),
            queued: Some(1),
            retry_num: s(),
            retry_reason: s(),
            alert: Some(Alert::AppRateLimited),
            minute_rate_limited: Some(1),
            ack_ms: 1,
        }),
        LogLine::Sweep(SweepLine {
            team: s(),
            trigger: Trigger::Alarm,
            claimed: 1,
            taken_over: 1,
            delivered: 1,
            retried: 1,
            parked: 1,
            fenced: 1,
            rate_limited: 1,
            paced: 1,
            paced_until: Some(1),
            pending: 1,
            oldest_pending_age_ms: Some(1),
            next_alarm_at: Some(1),
            housekeeping_at: Some(1),
            duration_ms: 1,
            error: s(),
            alert: Some(Alert::PendingTooOld),
            at: Some(1),
        }),
        LogLine::Delivery(DeliveryLine {
            team: s(),
            row: 1,
            effect: "e".into(),
            target: "t".into(),
            key: "k".into(),
            attempt: 1,
            outcome: Outcome::Parked,
            error: s(),
            http_status: Some(200),
            latency_ms: 1,
            waited_ms: 1,
            schedule: s(),
            due_at: Some(1),
            schedule_missed: Some(1),
            next_attempt_at: Some(1),
            reason: s(),
            alert: Some(Alert::RowParked),
        }),
        LogLine::Alert(AlertLine { alert: Alert::TargetFailing, team: s(), target: "t".into(), target_failures: 5, error: s() }),
        LogLine::AlarmMissing(AlarmMissingLine { alert: Alert::AlarmMissing, team: s(), due_at: 1, waited_ms: 1, stored_alarm_at: Some(1) }),
        LogLine::Install(InstallLine { outcome: InstallOutcome::Installed, team: s(), rotating: Some(true), error: s(), reason: s(), detail: s() }),
        LogLine::Uninstall(UninstallLine { team: "T".into(), parked: 1, alert: Alert::TeamUninstalled }),
        LogLine::TokenRefreshed(TokenRefreshedLine { expires_at: 1 }),
        LogLine::TokenRefreshFailed(TokenRefreshFailedLine { verdict: "v".into() }),
        LogLine::Admin(AdminLine { action: "bulk_redrive".into(), team: s(), redriven: 1 }),
        LogLine::Reconcile(ReconcileLine {
            team: s(),
            list_id: "F1".into(),
            run: 1,
            trigger: "api".into(),
            duration_ms: Some(1),
            counts: ReconcileCounts::default(),
            error: s(),
        }),
        LogLine::ConfigError(error.clone()),
        LogLine::Schema(SchemaLine {
            actor: "team".into(),
            outcome: SchemaOutcome::Failed,
            team: s(),
            found: s(),
            migration: s(),
            db_version: Some(1),
            code_version: 2,
            error: s(),
        }),
        LogLine::DirectoryError(error.clone()),
        LogLine::NetworkError(error.clone()),
        LogLine::AdminError(error),
        LogLine::ReadBack(ReadBackLine {
            row: 1,
            key: "k".into(),
            method: "conversations.replies".into(),
            outcome: ReadBackOutcome::Fallback,
            uncertain_since: 1,
            ts: s(),
            reason: s(),
        }),
    ]
}

/// The backticked words of a docs table cell.
fn backticked(cell: &str) -> BTreeSet<String> {
    cell.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

/// The fields `docs/operations.md` lists for `kind` (its row in the log-line table).
fn documented(kind: &str) -> Option<BTreeSet<String>> {
    OPERATIONS.lines().find_map(|line| {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        (cells.len() >= 4 && backticked(cells[1]).contains(kind)).then(|| backticked(cells[3]))
    })
}

#[test]
fn the_docs_list_exactly_the_fields_of_every_kind() {
    for line in every_field() {
        let serde_json::Value::Object(fields) = serde_json::to_value(&line).unwrap() else { panic!("{line:?}") };
        let kind = fields["kind"].as_str().unwrap().to_string();
        let printed: BTreeSet<String> = fields.keys().filter(|k| *k != "kind").cloned().collect();
        let listed = documented(&kind).unwrap_or_else(|| panic!("docs/operations.md has no row for kind `{kind}`"));
        assert_eq!(printed, listed, "fields of `{kind}`: printed (left) vs docs/operations.md (right)");
    }
}

#[test]
fn absent_values_are_left_out_and_names_are_stable() {
    let line = LogLine::from(RequestLine { route: "/slack/events".into(), ack_ms: 3, ..RequestLine::default() });
    assert_eq!(serde_json::to_string(&line).unwrap(), r#"{"kind":"request","route":"/slack/events","verdict":"refused","ack_ms":3}"#);
    let sweep = SweepLine { trigger: Trigger::Admin, ..SweepLine::default() };
    let text = serde_json::to_string(&LogLine::from(sweep.clone())).unwrap();
    assert!(text.starts_with(r#"{"kind":"sweep","trigger":"admin","claimed":0"#), "{text}");
    assert_eq!(serde_json::from_str::<SweepLine>(&text).unwrap(), sweep, "a stored sweep line reads back");
}

#[test]
fn an_idle_sweep_is_not_worth_a_line() {
    let mut sweep = SweepLine::default();
    assert!(!sweep.worth_logging());
    sweep.count(Outcome::Fenced);
    assert_eq!(sweep.fenced, 1);
    sweep.alert = Some(Alert::PendingTooOld);
    assert!(sweep.worth_logging());
}

#[test]
fn a_failed_migration_is_one_line_naming_it() {
    use crate::kinds::schema::TEAM;
    use crate::sql::migrate::{Outcome, Ready, Refused, Stored};
    let failed = Outcome::Refused(Refused::Failed { from: Stored::At(1), migration: "2_x".into(), at: 1, error: "boom".into() });
    let line = serde_json::to_value(LogLine::from(SchemaLine::of(&TEAM, Some("T1".into()), &failed).unwrap())).unwrap();
    assert_eq!(
        line,
        serde_json::json!({"kind": "schema", "actor": "team", "outcome": "failed", "team": "T1", "found": "stamped", "migration": "2_x", "db_version": 1, "code_version": TEAM.version(), "error": "boom"})
    );
    let newer = SchemaLine::of(&TEAM, None, &Outcome::Refused(Refused::Newer { db: 3, code: 1, floor: None })).unwrap();
    assert_eq!((newer.outcome, newer.db_version), (SchemaOutcome::Newer, Some(3)));
    let stamped = SchemaLine::of(&TEAM, None, &Outcome::Ready(Ready::Migrated { from: Stored::Unversioned, to: 1 })).unwrap();
    assert_eq!((stamped.outcome, stamped.found.as_deref(), stamped.db_version), (SchemaOutcome::Migrated, Some("unversioned"), Some(0)));
    let ahead = SchemaLine::of(&TEAM, None, &Outcome::Ready(Ready::Ahead { db: 6, code: 5, floor: 5 })).unwrap();
    assert_eq!((ahead.outcome, ahead.db_version, ahead.code_version), (SchemaOutcome::Ahead, Some(6), TEAM.version()), "a rollback that serves says so");
    assert_eq!(SchemaLine::of(&TEAM, None, &Outcome::Ready(Ready::UpToDate)), None, "an up-to-date wake prints nothing");
    assert_eq!(SchemaLine::of(&TEAM, None, &Outcome::Ready(Ready::Migrated { from: Stored::Empty, to: 1 })), None, "nor a new actor's");
}
