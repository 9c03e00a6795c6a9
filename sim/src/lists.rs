//! The stateful part of the fake Slack: Lists (`slackLists.items.create`, `.update`, `.delete`,
//! `.list`), kept in memory and answering like Slack's Lists Web API.
//!
//! Any list id starting with `F` exists; rows keep their insertion order and get `Rec…` ids unique
//! across the process. Cells must be `{"column_id": "Col…", <exactly one typed key>}` (no `key`
//! or `value`); answers carry the stored cells plus, for `rich_text`, a plain `text` fallback.
//! Writes through the API are made by [`FAKE_BOT_USER`]; tests play the people editing the List
//! in Slack with the helpers on `FakeSlack` (`add_row`, `edit_row`, `archive_row`, ...).

use serde_json::{json, Map, Value};
use slackline::internal::slack::method;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The user recorded as `created_by` / `updated_by` for writes made through the API.
pub const FAKE_BOT_USER: &str = "UFAKEBOT";

/// The typed keys a cell may carry (exactly one of them).
const TYPED_KEYS: [&str; 15] = [
    "rich_text",
    "user",
    "date",
    "select",
    "checkbox",
    "number",
    "email",
    "phone",
    "attachment",
    "link",
    "message",
    "channel",
    "rating",
    "timestamp",
    "reference",
];

/// The page size of `items.list` when neither the caller nor the test asks for less.
const DEFAULT_PAGE: usize = 100;

/// The methods this module answers.
pub const METHODS: [&str; 4] =
    [method::SLACK_LISTS_ITEMS_CREATE, method::SLACK_LISTS_ITEMS_UPDATE, method::SLACK_LISTS_ITEMS_DELETE, method::SLACK_LISTS_ITEMS_LIST];

/// Whether this module answers `method`.
pub fn handles(method: &str) -> bool {
    METHODS.contains(&method)
}

/// A row as the fake holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct FakeRow {
    /// `Rec…`.
    pub id: String,
    /// The stored cells, as written (no `text` fallback).
    pub fields: Vec<Value>,
    /// Who made it.
    pub created_by: String,
    /// Who changed it last.
    pub updated_by: String,
    /// Archived in Slack.
    pub archived: bool,
}

impl FakeRow {
    /// The cell of `column_id`, if any.
    pub fn cell(&self, column_id: &str) -> Option<&Value> {
        self.fields.iter().find(|c| c["column_id"] == column_id)
    }

    /// The plain text of the `rich_text` cell of `column_id`.
    pub fn text(&self, column_id: &str) -> Option<String> {
        Some(plain_text(self.cell(column_id)?.get("rich_text")?))
    }
}

struct Stored {
    row: FakeRow,
    /// Global insertion number: increasing within a list, so it orders the rows and anchors cursors.
    seq: u64,
    created: u64,
    updated: u64,
}

impl Stored {
    fn item(&self, list_id: &str) -> Value {
        let fields: Vec<Value> = self.row.fields.iter().map(with_fallback).collect();
        json!({
            "id": self.row.id, "list_id": list_id, "date_created": self.created,
            "created_by": self.row.created_by, "updated_by": self.row.updated_by,
            "updated_timestamp": self.updated.to_string(), "fields": fields,
        })
    }

    /// Replaces the cell of the same column (or adds it), as `by`.
    fn set_cell(&mut self, cell: Value, by: &str) {
        let fields = &mut self.row.fields;
        match fields.iter_mut().find(|c| c["column_id"] == cell["column_id"]) {
            Some(old) => *old = cell,
            None => fields.push(cell),
        }
        self.row.updated_by = by.into();
        self.updated = now();
    }
}

/// Every List of the fake, by id.
#[derive(Default)]
pub struct Lists {
    lists: HashMap<String, Vec<Stored>>,
    page_size: Option<usize>,
}

type Answer = Result<Value, &'static str>;

impl Lists {
    /// Applies one Lists call and returns Slack's answer body (`{"ok": false, ...}` on failure).
    pub fn apply(&mut self, method: &str, body: Option<&Value>) -> Value {
        let Some(body) = body.and_then(Value::as_object) else { return refusal("invalid_arguments") };
        let Some(list_id) = body.get("list_id").and_then(Value::as_str) else { return refusal("invalid_arguments") };
        if !list_id.starts_with('F') {
            return refusal("list_not_found");
        }
        let answer = match method {
            method::SLACK_LISTS_ITEMS_CREATE => self.create(list_id, body),
            method::SLACK_LISTS_ITEMS_UPDATE => self.update(list_id, body),
            method::SLACK_LISTS_ITEMS_DELETE => self.delete(list_id, body),
            method::SLACK_LISTS_ITEMS_LIST => self.list(list_id, body),
            _ => Err("unknown_method"),
        };
        answer.unwrap_or_else(refusal)
    }

    fn create(&mut self, list_id: &str, body: &Map<String, Value>) -> Answer {
        let cells = match body.get("initial_fields") {
            None => Vec::new(),
            Some(Value::Array(cells)) => cells.clone(),
            Some(_) => return Err("invalid_arguments"),
        };
        if !cells.iter().all(|c| valid_cell(c, false)) {
            return Err("invalid_arguments");
        }
        let id = self.insert(list_id, cells, FAKE_BOT_USER);
        let row = self.rows_of(list_id).iter().find(|s| s.row.id == id).expect("the row just made");
        Ok(json!({"ok": true, "item": row.item(list_id)}))
    }

    fn update(&mut self, list_id: &str, body: &Map<String, Value>) -> Answer {
        let Some(Value::Array(cells)) = body.get("cells") else { return Err("invalid_arguments") };
        if cells.is_empty() || !cells.iter().all(|c| valid_cell(c, true)) {
            return Err("invalid_arguments");
        }
        let rows = self.lists.entry(list_id.into()).or_default();
        // All or nothing: every row must exist before any cell is written.
        if !cells.iter().all(|c| rows.iter().any(|s| s.row.id == c["row_id"])) {
            return Err("row_not_found");
        }
        for cell in cells {
            let mut cell = cell.clone();
            let row_id = cell.as_object_mut().and_then(|c| c.remove("row_id")).unwrap_or_default();
            rows.iter_mut().find(|s| s.row.id == row_id).expect("checked above").set_cell(cell, FAKE_BOT_USER);
        }
        Ok(json!({"ok": true}))
    }

    fn delete(&mut self, list_id: &str, body: &Map<String, Value>) -> Answer {
        let Some(id) = body.get("id").and_then(Value::as_str) else { return Err("invalid_arguments") };
        let rows = self.lists.entry(list_id.into()).or_default();
        let at = rows.iter().position(|s| s.row.id == id).ok_or("record_not_found")?;
        rows.remove(at);
        Ok(json!({"ok": true}))
    }

    fn list(&mut self, list_id: &str, body: &Map<String, Value>) -> Answer {
        let archived = body.get("archived").and_then(Value::as_bool).unwrap_or(false);
        let limit = body.get("limit").and_then(Value::as_u64).filter(|&n| n > 0).map_or(DEFAULT_PAGE, |n| n as usize);
        let page = limit.min(self.page_size.unwrap_or(DEFAULT_PAGE));
        let after = match body.get("cursor").and_then(Value::as_str).filter(|c| !c.is_empty()) {
            None => None,
            Some(cursor) => Some(decode_cursor(cursor).ok_or("invalid_cursor")?),
        };
        let rows = self.rows_of(list_id);
        let start = after.map_or(0, |seq| rows.partition_point(|s| s.seq <= seq));
        let mut matching = rows[start..].iter().filter(|s| s.row.archived == archived);
        let taken: Vec<&Stored> = matching.by_ref().take(page).collect();
        let next = match (matching.next(), taken.last()) {
            (Some(_), Some(last)) => encode_cursor(last.seq),
            _ => String::new(),
        };
        let items: Vec<Value> = taken.iter().map(|s| s.item(list_id)).collect();
        Ok(json!({"ok": true, "items": items, "response_metadata": {"next_cursor": next}}))
    }

    fn rows_of(&self, list_id: &str) -> &[Stored] {
        self.lists.get(list_id).map_or(&[], Vec::as_slice)
    }

    fn stored_mut(&mut self, list_id: &str, row_id: &str) -> &mut Stored {
        let rows = self.lists.get_mut(list_id).unwrap_or_else(|| panic!("no rows in list {list_id}"));
        rows.iter_mut().find(|s| s.row.id == row_id).unwrap_or_else(|| panic!("no row {row_id} in list {list_id}"))
    }

    // ---- The test helpers behind FakeSlack's methods (people acting in Slack). ----

    /// Every row of `list_id` (archived ones too), in insertion order.
    pub fn rows(&self, list_id: &str) -> Vec<FakeRow> {
        self.rows_of(list_id).iter().map(|s| s.row.clone()).collect()
    }

    /// Appends a row made by `by` (cells stored as given) and returns its id.
    pub fn insert(&mut self, list_id: &str, fields: Vec<Value>, by: &str) -> String {
        static NEXT: AtomicU64 = AtomicU64::new(0x0A00_0000);
        let seq = NEXT.fetch_add(1, Ordering::Relaxed);
        let id = format!("Rec{seq:010X}");
        let row = FakeRow { id: id.clone(), fields, created_by: by.into(), updated_by: by.into(), archived: false };
        let at = now();
        self.lists.entry(list_id.into()).or_default().push(Stored { row, seq, created: at, updated: at });
        id
    }

    /// Archives a row.
    pub fn archive(&mut self, list_id: &str, row_id: &str) {
        let stored = self.stored_mut(list_id, row_id);
        stored.row.archived = true;
        stored.updated = now();
    }

    /// A person's edit of one cell.
    pub fn edit(&mut self, list_id: &str, row_id: &str, cell: Value, by: &str) {
        self.stored_mut(list_id, row_id).set_cell(cell, by);
    }

    /// Deletes a row, as in Slack.
    pub fn remove(&mut self, list_id: &str, row_id: &str) {
        self.stored_mut(list_id, row_id);
        self.lists.get_mut(list_id).unwrap().retain(|s| s.row.id != row_id);
    }

    /// The most rows a page holds.
    pub fn set_page_size(&mut self, n: usize) {
        self.page_size = Some(n.max(1));
    }
}

fn refusal(error: &str) -> Value {
    json!({"ok": false, "error": error})
}

/// `{"column_id": "Col…", <exactly one typed key>}`, with a `row_id` when `update` (no `key`/`value`).
fn valid_cell(cell: &Value, update: bool) -> bool {
    let Some(cell) = cell.as_object() else { return false };
    let column = cell.get("column_id").and_then(Value::as_str).is_some_and(|c| c.starts_with("Col"));
    let row = !update || cell.get("row_id").and_then(Value::as_str).is_some_and(|r| !r.is_empty());
    let typed = TYPED_KEYS.iter().filter(|k| cell.contains_key(**k)).count();
    column && row && typed == 1 && !cell.contains_key("key") && !cell.contains_key("value")
}

/// A stored cell as Slack answers it: a `rich_text` cell gains its plain `text`.
fn with_fallback(cell: &Value) -> Value {
    let mut cell = cell.clone();
    if let Some(text) = cell.get("rich_text").map(plain_text) {
        cell["text"] = Value::String(text);
    }
    cell
}

/// Every `text` string inside some `rich_text` blocks, concatenated.
fn plain_text(blocks: &Value) -> String {
    fn walk(value: &Value, out: &mut String) {
        match value {
            Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            Value::Object(map) => {
                for (k, v) in map {
                    match (k.as_str(), v) {
                        ("text", Value::String(text)) => out.push_str(text),
                        _ => walk(v, out),
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = String::new();
    walk(blocks, &mut out);
    out
}

/// An opaque cursor: the hex of `after:<seq>` (the last row given).
fn encode_cursor(seq: u64) -> String {
    format!("after:{seq}").bytes().map(|b| format!("{b:02x}")).collect()
}

fn decode_cursor(cursor: &str) -> Option<u64> {
    if !cursor.len().is_multiple_of(2) || !cursor.is_ascii() {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..cursor.len()).step_by(2).map(|i| u8::from_str_radix(&cursor[i..i + 2], 16).ok()).collect();
    String::from_utf8(bytes?).ok()?.strip_prefix("after:")?.parse().ok()
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}
