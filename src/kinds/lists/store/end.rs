//! A List job's end, applied inside the completion's unit (only when the row's claim still
//! holds): a record's new sync state, or a reconciliation page's findings and the pass's next
//! step.

use super::*;

/// Applies a list job's end. Returns the pass it finished, if it finished one (for its log line).
pub fn apply(sql: &SqlStorage, write: &ListsWrite, q: Queueing) -> worker::Result<Option<RunView>> {
    match write {
        ListsWrite::Record { list_id, record_id, write } => apply_record(sql, list_id, record_id, write, q.now).map(|()| None),
        ListsWrite::Put { list_id, record_id, fields } => store_record(sql, list_id, record_id, fields, q).map(|_| None),
        ListsWrite::Page { list_id, run: run_id, pass, page, started, bot_user, recreate_missing } => {
            apply_page(sql, list_id, *run_id, *pass, page, *started, bot_user.as_deref(), *recreate_missing, q)
        }
        ListsWrite::RunFailed { list_id, run: run_id, error } => {
            run(sql, crate::kinds::lists::sql::RUN_FINISHED, vec![int(*run_id), int(q.now), text(error)])?;
            queue_run(sql, list_id, "schedule", q.now + q.reconcile_ms, q)?;
            Ok(rows::<RunRow>(sql, crate::kinds::lists::sql::RUN, vec![int(*run_id)])?.into_iter().next().map(RunRow::view).transpose()?)
        }
    }
}

fn apply_record(sql: &SqlStorage, list_id: &str, record_id: &str, write: &RecordWrite, now: i64) -> worker::Result<()> {
    let (l, r) = (text(list_id), text(record_id));
    match write {
        RecordWrite::Linked { row_id, version } => run(sql, crate::kinds::lists::sql::RECORD_LINKED, vec![l, r, text(row_id), int(*version), int(now)]),
        RecordWrite::Synced { version } => run(sql, crate::kinds::lists::sql::RECORD_SYNCED, vec![l, r, int(*version)]),
        RecordWrite::Gone => run(sql, crate::kinds::lists::sql::RECORD_GONE, vec![l, r]),
        RecordWrite::Uncertain => run(sql, crate::kinds::lists::sql::RECORD_UNCERTAIN, vec![l, r, int(now), text("create_uncertain")]),
        RecordWrite::NotActed => run(sql, crate::kinds::lists::sql::RECORD_NOT_ACTED, vec![l, r]),
        RecordWrite::Failed { error } => run(sql, crate::kinds::lists::sql::RECORD_FAILED, vec![l, r, text(error)]),
        RecordWrite::Unchanged => Ok(()),
    }
}

#[derive(Deserialize)]
struct RefRow {
    record_id: String,
    row_id: Option<String>,
}

impl From<RefRow> for RecordRef {
    fn from(r: RefRow) -> RecordRef {
        RecordRef { record_id: r.record_id, row_id: r.row_id }
    }
}

fn lookup(sql: &SqlStorage, query: &str, list_id: &str, id: &str) -> worker::Result<Option<RecordRef>> {
    Ok(rows::<RefRow>(sql, query, vec![text(list_id), text(id)])?.into_iter().next().map(RecordRef::from))
}

/// Classifies and applies one row's findings.
fn apply_row(sql: &SqlStorage, list_id: &str, run_id: i64, row: &ListedRow, pass: Pass, bot_user: Option<&str>, q: Queueing) -> worker::Result<Vec<Finding>> {
    let by_row = lookup(sql, crate::kinds::lists::sql::RECORD_BY_ROW, list_id, &row.id)?;
    let by_key = match (&by_row, &row.key) {
        (None, Some(key)) => lookup(sql, crate::kinds::lists::sql::RECORD_REF, list_id, key)?,
        _ => None,
    };
    let findings = classify(row, pass, by_row.as_ref(), by_key.as_ref(), bot_user);
    for finding in &findings {
        match finding {
            Finding::Seen { record_id } => run(sql, crate::kinds::lists::sql::RECORD_SEEN, vec![text(list_id), text(record_id), int(run_id), int(0)])?,
            Finding::Archived { record_id, .. } => run(sql, crate::kinds::lists::sql::RECORD_SEEN, vec![text(list_id), text(record_id), int(run_id), int(1)])?,
            Finding::HumanEdited { record_id, by } => run(sql, crate::kinds::lists::sql::RECORD_HUMAN_EDITED, vec![text(list_id), text(record_id), text(by)])?,
            Finding::Relinked { record_id, row_id } => relink(sql, list_id, record_id, row_id, run_id, q)?,
            Finding::Duplicate { .. } | Finding::Orphan { .. } | Finding::Missing { .. } => {}
        }
    }
    Ok(findings)
}

fn relink(sql: &SqlStorage, list_id: &str, record_id: &str, row_id: &str, run_id: i64, q: Queueing) -> worker::Result<()> {
    #[derive(Deserialize)]
    struct Needs {
        needs_sync: i64,
    }
    let needs: Vec<Needs> = rows(sql, crate::kinds::lists::sql::RECORD_RELINKED, vec![text(list_id), text(record_id), text(row_id), int(run_id), int(q.now)])?;
    run(sql, crate::kinds::lists::sql::SETTLE_UNCERTAIN_ROWS, vec![text(&target(list_id)), text(record_id), int(q.now)])?;
    crate::platform::rows::note_done(sql, q.now)?;
    if needs.first().is_some_and(|n| n.needs_sync != 0) {
        queue_sync(sql, list_id, record_id, q)?;
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn apply_page(
    sql: &SqlStorage,
    list_id: &str,
    run_id: i64,
    pass: Pass,
    page: &Page,
    started: i64,
    bot_user: Option<&str>,
    recreate_missing: bool,
    q: Queueing,
) -> worker::Result<Option<RunView>> {
    let Some(stored) = rows::<RunRow>(sql, crate::kinds::lists::sql::RUN, vec![int(run_id)])?.into_iter().next() else { return Ok(None) };
    let started = stored.started_at.unwrap_or(started);
    let mut report: Report = serde_json::from_str(&stored.report).map_err(json_error)?;
    let mut findings: Vec<Finding> = serde_json::from_str(&stored.findings).map_err(json_error)?;
    let mut note = |found: Vec<Finding>, report: &mut Report| {
        report.count(&found);
        let room = reconcile::MAX_REPORTED_FINDINGS.saturating_sub(findings.len());
        findings.extend(found.into_iter().filter(worth_reporting).take(room));
    };
    report.pages += 1;
    report.rows += page.rows.len() as u32;
    for row in &page.rows {
        let found = apply_row(sql, list_id, run_id, row, pass, bot_user, q)?;
        note(found, &mut report);
    }
    let next_step = next(pass, page.next_cursor.clone());
    if let Next::Finished = next_step {
        note(finish(sql, list_id, run_id, started, recreate_missing, q)?, &mut report);
    }
    let (pass_after, cursor) = match &next_step {
        Next::Page { pass, cursor } => (*pass, cursor.clone()),
        Next::Finished => (Pass::Archived, None),
    };
    let report_json = serde_json::to_string(&report).map_err(json_error)?;
    let findings_json = serde_json::to_string(&findings).map_err(json_error)?;
    run(
        sql,
        crate::kinds::lists::sql::RUN_PAGE,
        vec![
            int(run_id),
            int(started),
            text(pass_after.as_str()),
            cursor.as_deref().map(text).unwrap_or(V::Null),
            V::String(report_json),
            V::String(findings_json),
        ],
    )?;
    match next_step {
        Next::Page { .. } => {
            insert_job(sql, list_id, &page_key(list_id, run_id, report.pages), ListJob::Reconcile { run: run_id }, q.now, q)?;
            Ok(None)
        }
        Next::Finished => {
            run(sql, crate::kinds::lists::sql::RUN_FINISHED, vec![int(run_id), int(q.now), V::Null])?;
            queue_run(sql, list_id, "schedule", q.now + q.reconcile_ms, q)?;
            rows::<RunRow>(sql, crate::kinds::lists::sql::RUN, vec![int(run_id)])?.into_iter().next().map(RunRow::view).transpose()
        }
    }
}

/// The end of a pass: linked rows neither phase listed are missing (forgotten and recreated when
/// the list says so); creates still uncertain that the pass did not find are released to be
/// created again.
fn finish(sql: &SqlStorage, list_id: &str, run_id: i64, started: i64, recreate_missing: bool, q: Queueing) -> worker::Result<Vec<Finding>> {
    let missing: Vec<RefRow> = rows(sql, crate::kinds::lists::sql::MARK_MISSING, vec![text(list_id), int(run_id), int(started)])?;
    let mut found = Vec::with_capacity(missing.len());
    for gone in missing {
        if recreate_missing {
            run(sql, crate::kinds::lists::sql::FORGET_ROW, vec![text(list_id), text(&gone.record_id)])?;
            queue_sync(sql, list_id, &gone.record_id, q)?;
        }
        found.push(Finding::Missing { record_id: gone.record_id, row_id: gone.row_id.unwrap_or_default() });
    }
    #[derive(Deserialize)]
    struct Released {
        record_id: String,
    }
    for released in rows::<Released>(sql, crate::kinds::lists::sql::RELEASE_UNCERTAIN, vec![text(list_id), int(started)])? {
        run(sql, crate::kinds::lists::sql::SETTLE_UNCERTAIN_ROWS, vec![text(&target(list_id)), text(&released.record_id), int(q.now)])?;
        crate::platform::rows::note_done(sql, q.now)?;
        queue_sync(sql, list_id, &released.record_id, q)?;
    }
    Ok(found)
}
