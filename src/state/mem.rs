//! [`MemState`]: a team's state in memory, for native tests (`slackline::testing`): the same
//! contract as the team actor's SQLite ([`StateReader`]), and [`MemState::apply`] for the writes
//! a unit would commit.

use super::{StateError, StateReader, StateWrite};
use std::cell::RefCell;
use std::collections::BTreeMap;

/// A team's state in memory (shared by reference: the views read it while a test holds it).
#[derive(Debug, Default)]
pub struct MemState {
    values: RefCell<BTreeMap<String, String>>,
}

impl MemState {
    /// An empty store.
    pub fn new() -> MemState {
        MemState::default()
    }

    /// Applies a unit's writes, in order.
    pub fn apply(&self, writes: &[StateWrite]) {
        let mut values = self.values.borrow_mut();
        for w in writes {
            match w {
                StateWrite::Put { key, value } => values.insert(key.clone(), value.clone()),
                StateWrite::Delete { key } => values.remove(key),
            };
        }
    }

    /// Every stored entry (key, JSON), in key order.
    pub fn entries(&self) -> Vec<(String, String)> {
        self.values.borrow().iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    /// The stored value of `key`, parsed as JSON.
    pub fn value(&self, key: &str) -> Option<serde_json::Value> {
        self.values.borrow().get(key).and_then(|v| serde_json::from_str(v).ok())
    }
}

impl StateReader for MemState {
    fn get(&self, key: &str) -> Result<Option<String>, StateError> {
        Ok(self.values.borrow().get(key).cloned())
    }

    fn scan(&self, prefix: &str, after: Option<&str>, limit: u32) -> Result<Vec<(String, String)>, StateError> {
        let values = self.values.borrow();
        let from = values.range(prefix.to_string()..).filter(|(k, _)| after.is_none_or(|a| k.as_str() > a));
        Ok(from.take_while(|(k, _)| k.starts_with(prefix)).take(limit as usize).map(|(k, v)| (k.clone(), v.clone())).collect())
    }

    fn count(&self) -> Result<u64, StateError> {
        Ok(self.values.borrow().len() as u64)
    }
}
