//! [`State`]: a handler's view of its team's state — the stored values as the reader serves them,
//! overlaid with what the handler wrote so far (it reads its own writes). Writes are only
//! buffered: the team actor applies them with the unit ([`State::take_writes`]).
//!
//! Invariant: a refused operation (over a limit, a bad key, a value that is not JSON) changes
//! nothing in the buffer, so a handler that catches the error and goes on never commits half of
//! what it meant.

use super::{check_key, encode, StateError, StateReader, StateWrite, MAX_KEYS, MAX_SCAN};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::BTreeMap;
use std::rc::Rc;

/// A handler's state: `get`, `put`, `delete`, `update`, `scan`: typed values under string keys, read
/// now (a handler reads its own writes), written with the unit; a refused operation changes
/// nothing. `docs/app.md` has its limits.
pub struct State {
    reader: Rc<dyn StateReader>,
    /// Buffered writes, by key: `Some(json)` put, `None` deleted.
    overlay: BTreeMap<String, Option<String>>,
    /// The keys stored when the handler started, read at the first new key.
    base_count: Option<u64>,
    /// Keys added minus keys removed by the buffered writes.
    delta: i64,
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("State").field("overlay", &self.overlay).finish_non_exhaustive()
    }
}

fn decode<T: DeserializeOwned>(key: &str, json: &str) -> Result<T, StateError> {
    serde_json::from_str(json).map_err(|e| StateError::Serde { key: key.into(), error: e.to_string() })
}

impl State {
    /// A view over `reader` with nothing written yet.
    pub(crate) fn new(reader: Rc<dyn StateReader>) -> State {
        State { reader, overlay: BTreeMap::new(), base_count: None, delta: 0 }
    }

    fn raw(&self, key: &str) -> Result<Option<String>, StateError> {
        match self.overlay.get(key) {
            Some(buffered) => Ok(buffered.clone()),
            None => self.reader.get(key),
        }
    }

    /// The value under `key`, if any.
    pub fn get<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, StateError> {
        check_key(key)?;
        self.raw(key)?.map(|json| decode(key, &json)).transpose()
    }

    /// Stores `value` under `key` (at most [`MAX_VALUE_BYTES`](super::MAX_VALUE_BYTES) of JSON; a
    /// new key only while the team holds fewer than [`MAX_KEYS`]).
    pub fn put<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), StateError> {
        check_key(key)?;
        let json = encode(key, value)?;
        let existed = self.raw(key)?.is_some();
        if !existed {
            let base = match self.base_count {
                Some(n) => n,
                None => *self.base_count.insert(self.reader.count()?),
            };
            if base as i64 + self.delta + 1 > MAX_KEYS as i64 {
                return Err(StateError::TooManyKeys { key: key.into() });
            }
            self.delta += 1;
        }
        self.overlay.insert(key.to_string(), Some(json));
        Ok(())
    }

    /// Removes `key`; returns whether it was there.
    pub fn delete(&mut self, key: &str) -> Result<bool, StateError> {
        check_key(key)?;
        let existed = self.raw(key)?.is_some();
        if existed {
            self.delta -= 1;
        }
        self.overlay.insert(key.to_string(), None);
        Ok(existed)
    }

    /// Reads `key`, lets `change` decide its new value (`None` deletes it), stores that, and
    /// returns it. A refused store leaves the key as it was.
    pub fn update<T: Serialize + DeserializeOwned>(&mut self, key: &str, change: impl FnOnce(Option<T>) -> Option<T>) -> Result<Option<T>, StateError> {
        let next = change(self.get(key)?);
        match &next {
            Some(value) => self.put(key, value)?,
            None => {
                self.delete(key)?;
            }
        }
        Ok(next)
    }

    /// Up to `limit` (at most [`MAX_SCAN`]) entries whose keys start with `prefix`, in key order.
    pub fn scan<T: DeserializeOwned>(&self, prefix: &str, limit: u32) -> Result<Vec<(String, T)>, StateError> {
        self.scan_after(prefix, None, limit)
    }

    /// The same, from the first key after `after` (the last key of the previous page).
    pub fn scan_after<T: DeserializeOwned>(&self, prefix: &str, after: Option<&str>, limit: u32) -> Result<Vec<(String, T)>, StateError> {
        let limit = limit.min(MAX_SCAN);
        let in_range = |k: &str| k.starts_with(prefix) && after.is_none_or(|a| k > a);
        let buffered = self.overlay.keys().filter(|k| in_range(k)).count() as u32;
        // Each buffered key can hide at most one stored one: read that many more.
        let mut merged: BTreeMap<String, Option<String>> = self.reader.scan(prefix, after, limit + buffered)?.into_iter().map(|(k, v)| (k, Some(v))).collect();
        for (k, v) in self.overlay.iter().filter(|(k, _)| in_range(k)) {
            merged.insert(k.clone(), v.clone());
        }
        merged.into_iter().filter_map(|(k, v)| v.map(|v| (k, v))).take(limit as usize).map(|(k, v)| decode(&k, &v).map(|t| (k, t))).collect()
    }

    /// Whether the handler wrote anything.
    pub fn changed(&self) -> bool {
        !self.overlay.is_empty()
    }

    /// The buffered writes, taken: the view reads the store as it is again.
    pub(crate) fn take_writes(&mut self) -> Vec<StateWrite> {
        self.delta = 0;
        std::mem::take(&mut self.overlay)
            .into_iter()
            .map(|(key, value)| match value {
                Some(value) => StateWrite::Put { key, value },
                None => StateWrite::Delete { key },
            })
            .collect()
    }
}
