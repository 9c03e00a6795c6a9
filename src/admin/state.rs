//! `GET /admin/teams/{team}/state?prefix=&after=&limit=`: a team's app state, read-only, paged in
//! key order; the values of keys the app marks secret (`Listeners::secret_state`) are never
//! shown: the key is listed, its value replaced by [`REDACTED`](crate::state::REDACTED).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StateEntry {
    /// The key.
    pub key: String,
    /// Its value (JSON), or `"[redacted]"` for a secret key.
    pub value: Value,
    /// Whether the value was redacted.
    pub redacted: bool,
    /// The stored JSON's size in bytes.
    pub bytes: i64,
    /// When it was last written (epoch ms).
    pub updated_at: i64,
}

/// A page of keys.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StatePage {
    /// The keys, in order.
    pub entries: Vec<StateEntry>,
    /// Pass as `after` for the next page (None: this was the last).
    pub next_after: Option<String>,
}

/// A stored row, as the store reads it: key, JSON, updated at, bytes.
pub type StoredRow = (String, String, i64, i64);

impl StatePage {
    /// The page of `rows` asked with `limit`, secret values redacted by `secret`.
    pub fn of(rows: Vec<StoredRow>, limit: u32, secret: impl Fn(&str) -> bool) -> StatePage {
        let next_after = (rows.len() as u32 == limit).then(|| rows.last().map(|r| r.0.clone())).flatten();
        let entries = rows
            .into_iter()
            .map(|(key, json, updated_at, bytes)| {
                let redacted = secret(&key);
                let value = match redacted {
                    true => Value::from(crate::state::REDACTED),
                    false => serde_json::from_str(&json).unwrap_or(Value::String(json)),
                };
                StateEntry { key, value, redacted, bytes, updated_at }
            })
            .collect();
        StatePage { entries, next_after }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_secret_value_is_redacted_and_a_full_page_points_at_the_next() {
        let rows = vec![("secret:1".into(), "\"hunter2\"".into(), 5, 9), ("votes".into(), "3".into(), 6, 1)];
        let page = StatePage::of(rows, 2, |k| k.starts_with("secret:"));
        assert_eq!(page.entries[0].value, json!("[redacted]"));
        assert!(page.entries[0].redacted);
        assert!(!serde_json::to_string(&page).unwrap().contains("hunter2"));
        assert_eq!(page.entries[1].value, json!(3));
        assert_eq!(page.next_after.as_deref(), Some("votes"));
        assert_eq!(StatePage::of(vec![], 2, |_| false).next_after, None);
    }
}
