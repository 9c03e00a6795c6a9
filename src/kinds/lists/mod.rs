//! Records mirrored into a Slack List, pure: the column map that turns a record's fields into
//! Slack cells, what a create's answer means ([`create`]), and what a reconciliation pass finds
//! ([`reconcile`]). The team actor stores records and runs the sync and the passes in its alarm;
//! everything it decides comes from here.
//!
//! Two facts of Slack's Lists API (`docs/lists.md`) shape the design: no event fires when a List
//! changes, so polling `slackLists.items.list` is the only inbound signal; and
//! `slackLists.items.create` has no idempotency key, so a repeated create makes a second row. Our
//! link to a row is its id (`Rec…`), stored with the record, and a **mirrored key column** that
//! holds our record id as text, so a row whose create answer was lost can be found again.
//!
//! Cells are always written as `{"column_id": "Col…", <typed key>: <value>}`, never in the
//! deprecated `key`/`value` form.

pub mod api;
pub mod create;
pub mod end;
#[cfg(target_arch = "wasm32")]
pub(crate) mod job;
pub mod reconcile;
pub mod sql;
#[cfg(target_arch = "wasm32")]
pub(crate) mod store;
pub mod sync;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The most fields one column map may name.
pub const MAX_COLUMNS: usize = 100;

/// A column's type: which typed key its cells use and which JSON values a field may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ColumnType {
    /// A string, written as Block Kit `rich_text`.
    Text,
    /// A number.
    Number,
    /// `YYYY-MM-DD`.
    Date,
    /// An option id (`Opt…`) or a list of them.
    Select,
    /// A user id or a list of them.
    User,
    /// A boolean.
    Checkbox,
    /// An email address.
    Email,
    /// A phone number.
    Phone,
    /// An `http(s)` URL.
    Link,
    /// A channel id or a list of them.
    Channel,
    /// A whole number of stars.
    Rating,
    /// Epoch seconds.
    Timestamp,
}

/// One mapped column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Column {
    /// Slack's column id (`Col…`).
    pub column_id: String,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: ColumnType,
}

/// How a team's records map onto one List: `PUT /api/teams/{team}/lists/{list_id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColumnMap {
    /// The text column that mirrors our record id (never a field's column).
    pub key_column: String,
    /// Field name → column.
    pub columns: BTreeMap<String, Column>,
    /// Whether a row deleted in Slack is created again on the record's next sync (default off).
    #[serde(default)]
    pub recreate_missing: bool,
}

/// Why a column map or a record's fields were refused (the API answers 422 naming the field).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldError {
    /// The column map itself is not usable.
    BadMap(String),
    /// A field the column map does not name.
    UnknownField(String),
    /// A value that does not fit its column's type.
    WrongType {
        /// The field.
        field: String,
        /// What the column takes.
        expected: &'static str,
    },
    /// The record's body is not a JSON object of fields.
    NotAnObject,
}

impl FieldError {
    /// The field it names, if any.
    pub fn field(&self) -> Option<&str> {
        match self {
            FieldError::UnknownField(f) | FieldError::WrongType { field: f, .. } => Some(f),
            FieldError::BadMap(_) | FieldError::NotAnObject => None,
        }
    }

    /// A message for the 422 answer.
    pub fn message(&self) -> String {
        match self {
            FieldError::BadMap(why) => format!("column map: {why}"),
            FieldError::UnknownField(f) => format!("unknown field `{f}`: the list's column map does not name it"),
            FieldError::WrongType { field, expected } => format!("field `{field}` must be {expected}"),
            FieldError::NotAnObject => "the record must be a JSON object of fields".into(),
        }
    }
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for FieldError {}

fn is_slack_id(id: &str, prefix: &str) -> bool {
    id.len() > prefix.len() && id.len() <= 64 && id.starts_with(prefix) && id.bytes().all(|b| b.is_ascii_alphanumeric())
}

fn valid_field_name(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

impl ColumnMap {
    /// Checks the map: Slack column ids, field names, no column used twice, the key column apart.
    pub fn validate(&self) -> Result<(), FieldError> {
        let bad = |why: String| Err(FieldError::BadMap(why));
        if !is_slack_id(&self.key_column, "Col") {
            return bad("key_column must be a column id (Col…)".into());
        }
        if self.columns.is_empty() || self.columns.len() > MAX_COLUMNS {
            return bad(format!("columns must name 1 to {MAX_COLUMNS} fields"));
        }
        let mut used = std::collections::BTreeSet::from([self.key_column.as_str()]);
        for (name, column) in &self.columns {
            if !valid_field_name(name) {
                return bad(format!("field name `{name}` must be 1 to 64 letters, digits, _ or -"));
            }
            if !is_slack_id(&column.column_id, "Col") {
                return bad(format!("field `{name}`: column_id must be a column id (Col…)"));
            }
            if !used.insert(column.column_id.as_str()) {
                return bad(format!("field `{name}`: column {} is used twice (or is the key column)", column.column_id));
            }
        }
        Ok(())
    }

    /// Every cell of a record: its fields by their columns' typed keys, then the mirrored key
    /// column holding `record_id`. Refuses unknown fields and values of the wrong type.
    pub fn cells(&self, record_id: &str, fields: &Value) -> Result<Vec<Value>, FieldError> {
        let fields = fields.as_object().ok_or(FieldError::NotAnObject)?;
        let mut cells = Vec::with_capacity(fields.len() + 1);
        for (name, value) in fields {
            let column = self.columns.get(name).ok_or_else(|| FieldError::UnknownField(name.clone()))?;
            cells.push(cell(&column.column_id, column.kind, name, value)?);
        }
        cells.push(text_cell(&self.key_column, record_id));
        Ok(cells)
    }
}

/// A `rich_text` cell holding plain text (Slack takes no plain `text` on input).
pub fn text_cell(column_id: &str, text: &str) -> Value {
    let block = json!({"type": "rich_text", "elements": [{"type": "rich_text_section", "elements": [{"type": "text", "text": text}]}]});
    json!({"column_id": column_id, "rich_text": [block]})
}

fn typed(column_id: &str, key: &str, value: Value) -> Value {
    let mut cell = Map::new();
    cell.insert("column_id".into(), Value::String(column_id.into()));
    cell.insert(key.into(), value);
    Value::Object(cell)
}

/// One or several ids with a prefix, as an array.
fn ids(value: &Value, prefixes: &[&str]) -> Option<Value> {
    let one = |v: &Value| v.as_str().filter(|s| prefixes.iter().any(|p| is_slack_id(s, p))).map(|s| Value::String(s.into()));
    match value {
        Value::Array(items) if !items.is_empty() && items.len() <= 50 => items.iter().map(one).collect::<Option<Vec<_>>>().map(Value::Array),
        single => one(single).map(|v| Value::Array(vec![v])),
    }
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10 && b[4] == b'-' && b[7] == b'-' && b.iter().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit()) && {
        let (month, day) = (&s[5..7], &s[8..10]);
        ("01"..="12").contains(&month) && ("01"..="31").contains(&day)
    }
}

fn cell(column_id: &str, kind: ColumnType, field: &str, value: &Value) -> Result<Value, FieldError> {
    let wrong = |expected: &'static str| FieldError::WrongType { field: field.to_string(), expected };
    let string = value.as_str();
    let written = match kind {
        ColumnType::Text => return string.map(|s| text_cell(column_id, s)).ok_or_else(|| wrong("a string")),
        ColumnType::Number => value.as_f64().map(|_| ("number", json!([value]))).ok_or_else(|| wrong("a number"))?,
        ColumnType::Date => string.filter(|s| is_date(s)).map(|s| ("date", json!([s]))).ok_or_else(|| wrong("a date YYYY-MM-DD"))?,
        ColumnType::Select => ids(value, &["Opt"]).map(|v| ("select", v)).ok_or_else(|| wrong("an option id (Opt…) or a list of them"))?,
        ColumnType::User => ids(value, &["U", "W"]).map(|v| ("user", v)).ok_or_else(|| wrong("a user id (U…) or a list of them"))?,
        ColumnType::Channel => ids(value, &["C", "G"]).map(|v| ("channel", v)).ok_or_else(|| wrong("a channel id (C…) or a list of them"))?,
        ColumnType::Checkbox => value.as_bool().map(|b| ("checkbox", json!(b))).ok_or_else(|| wrong("true or false"))?,
        ColumnType::Email => string.filter(|s| s.contains('@') && !s.contains(' ')).map(|s| ("email", json!([s]))).ok_or_else(|| wrong("an email address"))?,
        ColumnType::Phone => string.filter(|s| !s.is_empty() && s.len() <= 40).map(|s| ("phone", json!([s]))).ok_or_else(|| wrong("a phone number"))?,
        ColumnType::Link => string
            .filter(|s| s.starts_with("https://") || s.starts_with("http://"))
            .map(|s| ("link", json!([{ "original_url": s }])))
            .ok_or_else(|| wrong("an http(s) URL"))?,
        ColumnType::Rating => {
            value.as_u64().filter(|n| (1..=5).contains(n)).map(|n| ("rating", json!([n]))).ok_or_else(|| wrong("a whole number from 1 to 5"))?
        }
        ColumnType::Timestamp => value.as_i64().filter(|n| *n >= 0).map(|n| ("timestamp", json!([n]))).ok_or_else(|| wrong("epoch seconds"))?,
    };
    Ok(typed(column_id, written.0, written.1))
}

/// The mirrored key of a listed row: the text of its cell in `key_column` (the plain `text`
/// fallback Slack returns, else the rich text's words).
pub fn mirrored_key(item: &Value, key_column: &str) -> Option<String> {
    let cell = item.get("fields")?.as_array()?.iter().find(|c| c.get("column_id").and_then(Value::as_str) == Some(key_column))?;
    if let Some(text) = cell.get("text").and_then(Value::as_str).filter(|t| !t.is_empty()) {
        return Some(text.trim().to_string());
    }
    let mut words = String::new();
    collect_text(cell.get("rich_text")?, &mut words);
    Some(words.trim().to_string()).filter(|w| !w.is_empty())
}

fn collect_text(v: &Value, out: &mut String) {
    match v {
        Value::Array(items) => items.iter().for_each(|i| collect_text(i, out)),
        Value::Object(o) => {
            if let Some(Value::String(t)) = o.get("text") {
                out.push_str(t);
            }
            if let Some(elements) = o.get("elements") {
                collect_text(elements, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests;
