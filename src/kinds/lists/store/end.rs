//! A List job's end, applied inside the completion's unit (only when the row's claim still
//! holds): a record's new sync state, or a reconciliation page's findings and the pass's next
//! step. A page job reads several pages under one claim: those before its last are applied by
//! the job itself, each in its own unit fenced by the claim ([`apply_page_in_job`]).
//!
//! What a page writes (Cloudflare bills rows written): its report, findings and `seen` list in one
//! statement (`RUN_PAGE`), and a record only when the page changes it. A linked row listed as it
//! was is not written: its record joins the pass's `seen` list, which `MARK_MISSING` reads at the
//! pass's end with `seen_run` (still written for the records that change, and for every record
//! past [`reconcile::MAX_SEEN_KEPT`]).

use super::*;

/// Applies a list job's end. Returns the pass it finished, if it finished one (for its log line).
pub fn apply(sql: &SqlStorage, write: &ListsWrite, q: Queueing) -> worker::Result<Option<RunView>> {
    match write {
        ListsWrite::Record { list_id, record_id, write } => apply_record(sql, list_id, record_id, write, q.now).map(|()| None),
        ListsWrite::Put { list_id, record_id, fields } => store_record(sql, list_id, record_id, fields, q).map(|_| None),
        ListsWrite::Page { .. } => apply_page(sql, write, Then::Queue, q),
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

/// Classifies and applies one row's findings; a record seen as it was joins `seen` instead of
/// being written.
fn apply_row(sql: &SqlStorage, at: &PageAt, row: &ListedRow, seen: &mut Vec<String>, q: Queueing) -> worker::Result<Vec<Finding>> {
    let PageAt { list_id, run_id, pass, bot_user } = *at;
    let by_row = lookup(sql, crate::kinds::lists::sql::RECORD_BY_ROW, list_id, &row.id)?;
    let by_key = match (&by_row, &row.key) {
        (None, Some(key)) => lookup(sql, crate::kinds::lists::sql::RECORD_REF, list_id, key)?,
        _ => None,
    };
    let findings = classify(row, pass, by_row.as_ref(), by_key.as_ref(), bot_user);
    for finding in &findings {
        match finding {
            Finding::Seen { record_id } => seen_row(sql, at, record_id, false, seen)?,
            Finding::Archived { record_id, .. } => seen_row(sql, at, record_id, true, seen)?,
            Finding::HumanEdited { record_id, by } => run(sql, crate::kinds::lists::sql::RECORD_HUMAN_EDITED, vec![text(list_id), text(record_id), text(by)])?,
            Finding::Relinked { record_id, row_id } => relink(sql, list_id, record_id, row_id, run_id, q)?,
            Finding::Duplicate { .. } | Finding::Orphan { .. } | Finding::Missing { .. } => {}
        }
    }
    Ok(findings)
}

/// Where a page belongs.
#[derive(Clone, Copy)]
struct PageAt<'a> {
    list_id: &'a str,
    run_id: i64,
    pass: Pass,
    bot_user: Option<&'a str>,
}

/// A linked row was listed: its record is written only if that changes it (or once `seen` is
/// full); otherwise it joins `seen`.
fn seen_row(sql: &SqlStorage, at: &PageAt, record_id: &str, archived: bool, seen: &mut Vec<String>) -> worker::Result<()> {
    let full = seen.len() >= reconcile::MAX_SEEN_KEPT;
    let params = vec![text(at.list_id), text(record_id), int(at.run_id), int(i64::from(archived)), int(i64::from(full))];
    let written: Vec<Value> = rows(sql, crate::kinds::lists::sql::RECORD_SEEN, params)?;
    if written.is_empty() {
        seen.push(record_id.to_string());
    }
    Ok(())
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

/// What follows a page once it is applied.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Then {
    /// The completion applies it: the next page's row is queued (or the pass ends).
    Queue,
    /// The job applies it and reads the next page itself, under the same claim.
    InJob,
}

/// Applies a page ([`ListsWrite::Page`]) and the pass's step after it: the findings, the report
/// and the `seen` list in one `RUN_PAGE` (which also ends the pass after its last page), then the
/// next page's row unless the job reads it itself ([`Then::InJob`]), or the next pass.
fn apply_page(sql: &SqlStorage, write: &ListsWrite, then: Then, q: Queueing) -> worker::Result<Option<RunView>> {
    let ListsWrite::Page { list_id, run: run_id, pass, page, started, bot_user, recreate_missing } = write else { return Ok(None) };
    let (list_id, run_id) = (list_id.as_str(), *run_id);
    let Some(stored) = rows::<RunRow>(sql, crate::kinds::lists::sql::RUN, vec![int(run_id)])?.into_iter().next() else { return Ok(None) };
    let started = stored.began().unwrap_or(*started);
    let mut report: Report = serde_json::from_str(&stored.report).map_err(json_error)?;
    let mut findings: Vec<Finding> = serde_json::from_str(&stored.findings).map_err(json_error)?;
    let mut seen: Vec<String> = stored.seen.as_deref().map(serde_json::from_str).transpose().map_err(json_error)?.unwrap_or_default();
    let mut note = |found: Vec<Finding>, report: &mut Report| {
        report.count(&found);
        let room = reconcile::MAX_REPORTED_FINDINGS.saturating_sub(findings.len());
        findings.extend(found.into_iter().filter(worth_reporting).take(room));
    };
    report.pages += 1;
    report.rows += page.rows.len() as u32;
    let at = PageAt { list_id, run_id, pass: *pass, bot_user: bot_user.as_deref() };
    for row in &page.rows {
        let found = apply_row(sql, &at, row, &mut seen, q)?;
        note(found, &mut report);
    }
    let next_step = next(*pass, page.next_cursor.clone());
    let seen_json = serde_json::to_string(&seen).map_err(json_error)?;
    if let Next::Finished = next_step {
        note(finish(sql, list_id, run_id, started, &seen_json, *recreate_missing, q)?, &mut report);
    }
    let (pass_after, cursor, finished_at) = match &next_step {
        Next::Page { pass, cursor } => (*pass, cursor.clone(), None),
        Next::Finished => (Pass::Archived, None, Some(q.now)),
    };
    let report_json = serde_json::to_string(&report).map_err(json_error)?;
    let findings_json = serde_json::to_string(&findings).map_err(json_error)?;
    let stored_page = vec![
        int(run_id),
        int(started),
        text(pass_after.as_str()),
        cursor.as_deref().map(text).unwrap_or(V::Null),
        V::String(report_json),
        V::String(findings_json),
        V::String(seen_json),
        finished_at.map(int).unwrap_or(V::Null),
    ];
    run(sql, crate::kinds::lists::sql::RUN_PAGE, stored_page)?;
    match (next_step, then) {
        (Next::Page { .. }, Then::InJob) => Ok(None),
        (Next::Page { .. }, Then::Queue) => {
            insert_job(sql, list_id, &page_key(list_id, run_id, report.pages), ListJob::Reconcile { run: run_id }, q.now, q)?;
            Ok(None)
        }
        (Next::Finished, _) => {
            queue_run(sql, list_id, "schedule", q.now + q.reconcile_ms, q)?;
            rows::<RunRow>(sql, crate::kinds::lists::sql::RUN, vec![int(run_id)])?.into_iter().next().map(RunRow::view).transpose()
        }
    }
}

/// Applies a page the job read before its last one, in its own unit, only while the job's claim
/// holds (`CLAIM_HELD`; the completion of a stale claim is fenced too). The page must not be the
/// pass's last (that one is the completion's). Returns whether it was applied.
pub fn apply_page_in_job(storage: &Storage, sql: &SqlStorage, write: ListsWrite, row: RowId, token: &ClaimToken, q: Queueing) -> worker::Result<bool> {
    let (sql, token) = (sql.clone(), token.as_str().to_string());
    tx_sync(storage, move || {
        let held: Vec<Value> = rows(&sql, crate::kinds::lists::sql::CLAIM_HELD, vec![int(row.0), text(&token)])?;
        if held.is_empty() {
            return Ok(false);
        }
        apply_page(&sql, &write, Then::InJob, q)?;
        Ok(true)
    })
}

/// The end of a pass: linked rows neither phase listed are missing (forgotten and recreated when
/// the list says so); creates still uncertain that the pass did not find are released to be
/// created again.
fn finish(sql: &SqlStorage, list_id: &str, run_id: i64, started: i64, seen: &str, recreate_missing: bool, q: Queueing) -> worker::Result<Vec<Finding>> {
    let missing: Vec<RefRow> = rows(sql, crate::kinds::lists::sql::MARK_MISSING, vec![text(list_id), int(run_id), int(started), text(seen)])?;
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
