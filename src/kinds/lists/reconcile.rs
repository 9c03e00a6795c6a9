//! A reconciliation pass, pure: what each row `slackLists.items.list` returns means for our
//! records, and what the end of a pass means for the rows we did not see. The adapter pages
//! `items.list` to the end, then pages it again with `archived: true`, looks each row up by its id
//! and by its mirrored key, and applies the findings; [`Report`] counts them for the report row
//! and the `kind: reconcile` log line.
//!
//! | row in Slack | our records | finding |
//! | --- | --- | --- |
//! | its id is a record's `row_id`, active pass | — | [`Finding::Seen`] (+ [`Finding::HumanEdited`] when `updated_by` is not our bot) |
//! | its id is a record's `row_id`, archived pass | — | [`Finding::Archived`] (flagged, never recreated silently) |
//! | unmapped, its key names a record with no `row_id` | — | [`Finding::Relinked`]: store the row id, clear `create_uncertain` |
//! | unmapped, its key names a record mapped to another row | — | [`Finding::Duplicate`]: the mapped row is kept, this one reported |
//! | unmapped, no key or a key naming no record | — | [`Finding::Orphan`]: reported, never deleted automatically |
//! | — | a record whose `row_id` neither pass saw | [`Finding::Missing`] (deleted in Slack; recreated on the next sync only if the list's `recreate_missing` is on) |

use super::mirrored_key;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Which pass a row was listed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pass {
    /// `items.list` without `archived`.
    Active,
    /// `items.list` with `archived: true` (only archived rows).
    Archived,
}

/// A row as listed, reduced to what reconciliation reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedRow {
    /// `Rec…`.
    pub id: String,
    /// The mirrored key cell's text, if the row has one.
    pub key: Option<String>,
    /// Who last changed it.
    pub updated_by: Option<String>,
}

/// One of our records, as a lookup found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordRef {
    /// Our record id (the mirrored key).
    pub record_id: String,
    /// The row it is linked to, if any.
    pub row_id: Option<String>,
}

/// What reconciliation found about one row or record. Stored and shown as one JSON object tagged
/// by `outcome`; read back through [`FindingFields`] (a derived `Deserialize` of an internally
/// tagged enum buffers every field first, and was 27 KB of the Worker's wasm).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case", try_from = "FindingFields")]
pub enum Finding {
    /// A linked row is there.
    Seen {
        /// The record.
        record_id: String,
    },
    /// Someone other than our bot changed the row last.
    HumanEdited {
        /// The record.
        record_id: String,
        /// Who.
        by: String,
    },
    /// A linked row is archived in Slack.
    Archived {
        /// The record.
        record_id: String,
        /// The row.
        row_id: String,
    },
    /// A row whose create answer we lost was found by its key: link it.
    Relinked {
        /// The record.
        record_id: String,
        /// The row found.
        row_id: String,
    },
    /// A second row with the key of a record linked to another row.
    Duplicate {
        /// The extra row.
        row_id: String,
        /// The record whose key it carries.
        record_id: String,
    },
    /// A row that names no record of ours.
    Orphan {
        /// The row.
        row_id: String,
        /// Its key cell, if any.
        key: Option<String>,
    },
    /// A linked row that neither pass listed.
    Missing {
        /// The record.
        record_id: String,
        /// The row it was linked to.
        row_id: String,
    },
}

/// A [`Finding`] as stored: its `outcome` and whichever fields that outcome has.
#[derive(Deserialize)]
pub struct FindingFields {
    outcome: String,
    record_id: Option<String>,
    row_id: Option<String>,
    by: Option<String>,
    key: Option<String>,
}

impl TryFrom<FindingFields> for Finding {
    type Error = String;

    fn try_from(f: FindingFields) -> Result<Finding, String> {
        let outcome = f.outcome;
        let need = |field: Option<String>, name: &str| field.ok_or_else(|| format!("a finding `{outcome}` without `{name}`"));
        Ok(match outcome.as_str() {
            "seen" => Finding::Seen { record_id: need(f.record_id, "record_id")? },
            "human_edited" => Finding::HumanEdited { record_id: need(f.record_id, "record_id")?, by: need(f.by, "by")? },
            "archived" => Finding::Archived { record_id: need(f.record_id, "record_id")?, row_id: need(f.row_id, "row_id")? },
            "relinked" => Finding::Relinked { record_id: need(f.record_id, "record_id")?, row_id: need(f.row_id, "row_id")? },
            "duplicate" => Finding::Duplicate { row_id: need(f.row_id, "row_id")?, record_id: need(f.record_id, "record_id")? },
            "orphan" => Finding::Orphan { row_id: need(f.row_id, "row_id")?, key: f.key },
            "missing" => Finding::Missing { record_id: need(f.record_id, "record_id")?, row_id: need(f.row_id, "row_id")? },
            _ => return Err(format!("unknown finding `{outcome}`")),
        })
    }
}

/// What one listed row means. `by_row` is the record linked to the row's id, `by_key` the record
/// its mirrored key names; `bot_user` is our bot's user id (None: unknown, no human-edit check).
pub fn classify(row: &ListedRow, pass: Pass, by_row: Option<&RecordRef>, by_key: Option<&RecordRef>, bot_user: Option<&str>) -> Vec<Finding> {
    if let Some(record) = by_row {
        let record_id = record.record_id.clone();
        if pass == Pass::Archived {
            return vec![Finding::Archived { record_id, row_id: row.id.clone() }];
        }
        let edited_by = match (row.updated_by.as_deref(), bot_user) {
            (Some(by), Some(bot)) if by != bot => Some(by.to_string()),
            _ => None,
        };
        let mut found = vec![Finding::Seen { record_id: record_id.clone() }];
        found.extend(edited_by.map(|by| Finding::HumanEdited { record_id, by }));
        return found;
    }
    match by_key {
        Some(RecordRef { record_id, row_id: None }) => vec![Finding::Relinked { record_id: record_id.clone(), row_id: row.id.clone() }],
        Some(RecordRef { record_id, row_id: Some(_) }) => vec![Finding::Duplicate { row_id: row.id.clone(), record_id: record_id.clone() }],
        None => vec![Finding::Orphan { row_id: row.id.clone(), key: row.key.clone() }],
    }
}

/// After both passes: every linked record whose row neither pass listed is missing.
pub fn missing<'a>(linked: impl IntoIterator<Item = &'a RecordRef>, was_listed: impl Fn(&str) -> bool) -> Vec<Finding> {
    linked
        .into_iter()
        .filter_map(|r| r.row_id.as_ref().filter(|row| !was_listed(row)).map(|row| Finding::Missing { record_id: r.record_id.clone(), row_id: row.clone() }))
        .collect()
}

/// Counts per outcome, for the pass's report row and log line: the log line's own type
/// (`crate::logs`, which names no kind), counted here.
pub use crate::logs::ReconcileCounts as Report;

impl Report {
    /// Counts findings.
    pub fn count<'a>(&mut self, findings: impl IntoIterator<Item = &'a Finding>) {
        for f in findings {
            let n = match f {
                Finding::Seen { .. } => &mut self.seen,
                Finding::HumanEdited { .. } => &mut self.human_edited,
                Finding::Archived { .. } => &mut self.archived,
                Finding::Relinked { .. } => &mut self.relinked,
                Finding::Duplicate { .. } => &mut self.duplicates,
                Finding::Orphan { .. } => &mut self.orphans,
                Finding::Missing { .. } => &mut self.missing,
            };
            *n += 1;
        }
    }
}

impl Pass {
    /// The stored text.
    pub fn as_str(self) -> &'static str {
        match self {
            Pass::Active => "active",
            Pass::Archived => "archived",
        }
    }

    /// Parses the stored text.
    pub fn parse(s: &str) -> Option<Pass> {
        [Pass::Active, Pass::Archived].into_iter().find(|p| p.as_str() == s)
    }
}

/// One `items.list` page, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// Its rows.
    pub rows: Vec<ListedRow>,
    /// The next page's cursor; `None` on the last page.
    pub next_cursor: Option<String>,
}

/// Reads an `items.list` answer: each item's id, mirrored key and `updated_by`, and the next
/// cursor (Slack's docs show it both as `response_metadata.next_cursor` and at the top level; an
/// empty one ends the pass). `None` when the answer has no `items` array.
pub fn read_page(body: &Value, key_column: &str) -> Option<Page> {
    let items = body.get("items")?.as_array()?;
    let rows = items
        .iter()
        .filter_map(|item| {
            let id = item.get("id")?.as_str()?.to_string();
            let updated_by = item.get("updated_by").and_then(Value::as_str).map(str::to_string);
            Some(ListedRow { id, key: mirrored_key(item, key_column), updated_by })
        })
        .collect();
    let cursor = body.pointer("/response_metadata/next_cursor").or_else(|| body.get("next_cursor"));
    let next_cursor = cursor.and_then(Value::as_str).filter(|c| !c.is_empty()).map(str::to_string);
    Some(Page { rows, next_cursor })
}

/// Where a pass goes after a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// Read this page next.
    Page {
        /// Which pass.
        pass: Pass,
        /// Its cursor (`None`: the pass's first page).
        cursor: Option<String>,
    },
    /// Both passes are done: mark what was not seen.
    Finished,
}

/// After a page of `pass` whose answer gave `next_cursor`: the same pass goes on, the active pass
/// is followed by the archived one, and the archived pass ends the run.
pub fn next(pass: Pass, next_cursor: Option<String>) -> Next {
    match (pass, next_cursor) {
        (pass, Some(cursor)) => Next::Page { pass, cursor: Some(cursor) },
        (Pass::Active, None) => Next::Page { pass: Pass::Archived, cursor: None },
        (Pass::Archived, None) => Next::Finished,
    }
}

/// The most findings (other than `seen`) a pass's report keeps for the operator to read; the
/// counts are always complete.
pub const MAX_REPORTED_FINDINGS: usize = 200;

/// The most records a pass keeps in its `seen` list (the linked rows it listed without writing
/// their records, stored with each page's report: a few hundred KB at most); every record it sees
/// after those is marked seen on its own row (`seen_run`), one row written each, as before.
pub const MAX_SEEN_KEPT: usize = 20_000;

/// Whether a finding is listed in the report (every one but a plain `seen`).
pub fn worth_reporting(finding: &Finding) -> bool {
    !matches!(finding, Finding::Seen { .. })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};

    fn row(id: &str, key: Option<&str>, by: &str) -> ListedRow {
        ListedRow { id: id.into(), key: key.map(str::to_string), updated_by: Some(by.into()) }
    }

    fn record(id: &str, row: Option<&str>) -> RecordRef {
        RecordRef { record_id: id.into(), row_id: row.map(str::to_string) }
    }

    #[test]
    fn every_finding_is_stored_tagged_by_its_outcome_and_read_back_unchanged() {
        let (r, w) = (|| "rec".to_string(), || "Rec9".to_string());
        let all = [
            Finding::Seen { record_id: r() },
            Finding::HumanEdited { record_id: r(), by: "U7".into() },
            Finding::Archived { record_id: r(), row_id: w() },
            Finding::Relinked { record_id: r(), row_id: w() },
            Finding::Duplicate { row_id: w(), record_id: r() },
            Finding::Orphan { row_id: w(), key: Some("k".into()) },
            Finding::Orphan { row_id: w(), key: None },
            Finding::Missing { record_id: r(), row_id: w() },
        ];
        let stored = serde_json::to_string(&all).unwrap();
        assert_eq!(serde_json::from_str::<Vec<Finding>>(&stored).unwrap(), all);
        assert_eq!(serde_json::to_value(&all[1]).unwrap(), serde_json::json!({"outcome": "human_edited", "record_id": "rec", "by": "U7"}));
        let refused = serde_json::from_str::<Finding>(r#"{"outcome":"archived","record_id":"rec"}"#).unwrap_err().to_string();
        assert!(refused.contains("a finding `archived` without `row_id`"), "{refused}");
        assert!(serde_json::from_str::<Finding>(r#"{"outcome":"lost","row_id":"R"}"#).is_err());
    }

    #[test]
    fn each_row_is_classified_by_the_table() {
        let linked = record("r1", Some("Rec1"));
        let unlinked = record("r2", None);
        // (what, the row, the pass, the record its id names, the record its key names, findings)
        type Case<'a> = (&'a str, ListedRow, Pass, Option<&'a RecordRef>, Option<&'a RecordRef>, Vec<Finding>);
        let cases: Vec<Case> = vec![
            ("linked, by our bot", row("Rec1", Some("r1"), "UBOT"), Pass::Active, Some(&linked), Some(&linked), vec![Finding::Seen { record_id: "r1".into() }]),
            (
                "linked, edited by a person",
                row("Rec1", Some("r1"), "U9"),
                Pass::Active,
                Some(&linked),
                Some(&linked),
                vec![Finding::Seen { record_id: "r1".into() }, Finding::HumanEdited { record_id: "r1".into(), by: "U9".into() }],
            ),
            (
                "linked, archived",
                row("Rec1", Some("r1"), "UBOT"),
                Pass::Archived,
                Some(&linked),
                Some(&linked),
                vec![Finding::Archived { record_id: "r1".into(), row_id: "Rec1".into() }],
            ),
            (
                "a lost create's row",
                row("Rec2", Some("r2"), "UBOT"),
                Pass::Active,
                None,
                Some(&unlinked),
                vec![Finding::Relinked { record_id: "r2".into(), row_id: "Rec2".into() }],
            ),
            (
                "a second row with a linked key",
                row("Rec9", Some("r1"), "UBOT"),
                Pass::Active,
                None,
                Some(&linked),
                vec![Finding::Duplicate { row_id: "Rec9".into(), record_id: "r1".into() }],
            ),
            (
                "a row with an unknown key",
                row("Rec7", Some("zzz"), "U9"),
                Pass::Active,
                None,
                None,
                vec![Finding::Orphan { row_id: "Rec7".into(), key: Some("zzz".into()) }],
            ),
            ("a row without a key", row("Rec8", None, "U9"), Pass::Archived, None, None, vec![Finding::Orphan { row_id: "Rec8".into(), key: None }]),
        ];
        for (name, listed, pass, by_row, by_key, want) in cases {
            assert_eq!(classify(&listed, pass, by_row, by_key, Some("UBOT")), want, "{name}");
        }
        assert_eq!(
            classify(&row("Rec1", None, "U9"), Pass::Active, Some(&linked), None, None),
            vec![Finding::Seen { record_id: "r1".into() }],
            "bot unknown: no edit check"
        );
    }

    #[test]
    fn linked_rows_neither_pass_listed_are_missing() {
        let records = [record("r1", Some("Rec1")), record("r2", Some("Rec2")), record("r3", None)];
        let listed: BTreeSet<&str> = ["Rec1"].into();
        assert_eq!(missing(&records, |row| listed.contains(row)), vec![Finding::Missing { record_id: "r2".into(), row_id: "Rec2".into() }]);
    }

    #[test]
    fn a_whole_list_reconciles_to_the_expected_counts() {
        // 2,500 rows across pages of 100: 2,000 linked (50 archived, 10 edited by a person),
        // 300 lost creates found by key, 100 duplicates, 100 orphans; 7 linked records gone.
        let mut records: BTreeMap<String, RecordRef> = BTreeMap::new();
        let mut by_row: BTreeMap<String, String> = BTreeMap::new();
        let mut listed = Vec::new();
        for i in 0..2_000 {
            let (id, rec) = (format!("r{i}"), format!("Rec{i}"));
            records.insert(id.clone(), record(&id, Some(&rec)));
            by_row.insert(rec.clone(), id.clone());
            let pass = if i < 50 { Pass::Archived } else { Pass::Active };
            listed.push((row(&rec, Some(&id), if i % 200 == 199 { "U9" } else { "UBOT" }), pass));
        }
        for i in 2_000..2_300 {
            let id = format!("r{i}");
            records.insert(id.clone(), record(&id, None));
            listed.push((row(&format!("Rec{i}"), Some(&id), "UBOT"), Pass::Active));
        }
        for i in 0..100 {
            listed.push((row(&format!("RecDup{i}"), Some(&format!("r{}", 100 + i)), "UBOT"), Pass::Active));
            listed.push((row(&format!("RecOrphan{i}"), Some("nobody"), "U9"), Pass::Active));
        }
        for i in 0..7 {
            let id = format!("gone{i}");
            records.insert(id.clone(), record(&id, Some(&format!("RecGone{i}"))));
        }
        let mut report = Report::default();
        let mut seen_rows = BTreeSet::new();
        for page in listed.chunks(100) {
            report.pages += 1;
            for (r, pass) in page {
                report.rows += 1;
                seen_rows.insert(r.id.clone());
                let linked = by_row.get(&r.id).map(|id| &records[id]);
                let keyed = r.key.as_ref().and_then(|k| records.get(k));
                let findings = classify(r, *pass, linked, keyed, Some("UBOT"));
                report.count(&findings);
            }
        }
        report.count(&missing(records.values(), |row| seen_rows.contains(row)));
        let want = Report { pages: 25, rows: 2_500, seen: 1_950, human_edited: 10, archived: 50, relinked: 300, duplicates: 100, orphans: 100, missing: 7 };
        assert_eq!(report, want);
    }

    #[test]
    fn a_page_is_read_with_its_key_and_cursor_and_passes_follow_each_other() {
        let body = serde_json::json!({"ok": true, "items": [
            {"id": "Rec1", "updated_by": "U1", "fields": [{"column_id": "ColK", "text": "r1"}]},
            {"id": "Rec2", "fields": []}
        ], "response_metadata": {"next_cursor": "abc"}});
        let page = read_page(&body, "ColK").unwrap();
        assert_eq!(page.rows, vec![row("Rec1", Some("r1"), "U1"), ListedRow { id: "Rec2".into(), key: None, updated_by: None }]);
        assert_eq!(page.next_cursor.as_deref(), Some("abc"));
        let top_level = read_page(&serde_json::json!({"items": [], "next_cursor": "xyz"}), "ColK").unwrap();
        assert_eq!(top_level.next_cursor.as_deref(), Some("xyz"));
        let last = read_page(&serde_json::json!({"items": [], "response_metadata": {"next_cursor": ""}}), "ColK").unwrap();
        assert_eq!(last.next_cursor, None);
        assert_eq!(read_page(&serde_json::json!({"ok": true}), "ColK"), None);
        assert_eq!(next(Pass::Active, Some("c".into())), Next::Page { pass: Pass::Active, cursor: Some("c".into()) });
        assert_eq!(next(Pass::Active, None), Next::Page { pass: Pass::Archived, cursor: None });
        assert_eq!(next(Pass::Archived, None), Next::Finished);
    }
}
