//! What an actor instance knows its database already holds (the actor keeps it, `runtime::store`
//! reads and extends it), so that the hot path does not run, on every event, a statement that
//! could only write nothing: the housekeeping notes
//! (`meta.receipts_since` at an ingest, `meta.done_oldest` at a completion as done,
//! `meta.keys_oldest` with a notify POST's key: `INSERT … ON
//! CONFLICT DO NOTHING`, a no-op once noted) and a target's failure streak (`DELETE FROM
//! target_streaks` after each success, a no-op while the target has no streak).
//!
//! Invariants: a fact is known only after a unit that established it returned; any unit that
//! fails forgets everything ([`Known::forget`]: its writes were rolled back, and the next unit
//! runs the statements again); the housekeeping, the only code that deletes the notes, forgets them
//! before it runs ([`Known::forget_notes`]). An actor instance is the only writer of its database,
//! and a new instance starts knowing nothing, so a fact is never believed after its row changed.
//! The skipped statements write no row either way: this saves statements (CPU), not rows.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;

/// See the module docs.
#[derive(Debug, Default)]
pub struct Known {
    receipts_noted: Cell<bool>,
    done_noted: Cell<bool>,
    keys_noted: Cell<bool>,
    /// Targets whose streak row is known to be absent.
    clean_targets: RefCell<HashSet<String>>,
}

impl Known {
    /// Whether `meta.receipts_since` is known to be set.
    pub fn receipts_noted(&self) -> bool {
        self.receipts_noted.get()
    }

    /// `meta.receipts_since` is set (a unit that noted it, or found it noted, returned).
    pub fn note_receipts(&self) {
        self.receipts_noted.set(true);
    }

    /// Whether `meta.done_oldest` is known to be set.
    pub fn done_noted(&self) -> bool {
        self.done_noted.get()
    }

    /// `meta.done_oldest` is set.
    pub fn note_done(&self) {
        self.done_noted.set(true);
    }

    /// Whether `meta.keys_oldest` is known to be set (`kinds::notify::sql::NOTE_KEYS`).
    pub fn keys_noted(&self) -> bool {
        self.keys_noted.get()
    }

    /// `meta.keys_oldest` is set.
    pub fn note_keys(&self) {
        self.keys_noted.set(true);
    }

    /// Whether `target` is known to have no failure streak.
    pub fn is_clean(&self, target: &str) -> bool {
        self.clean_targets.borrow().contains(target)
    }

    /// `target` has no failure streak (its streak was just reset).
    pub fn clean(&self, target: &str) {
        self.clean_targets.borrow_mut().insert(target.to_string());
    }

    /// `target` may have a failure streak (an attempt just failed).
    pub fn dirty(&self, target: &str) {
        self.clean_targets.borrow_mut().remove(target);
    }

    /// The housekeeping is about to run: it may delete either note.
    pub fn forget_notes(&self) {
        self.receipts_noted.set(false);
        self.done_noted.set(false);
        self.keys_noted.set(false);
    }

    /// A unit failed: nothing it would have established can be believed.
    pub fn forget(&self) {
        self.forget_notes();
        self.clean_targets.borrow_mut().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::Known;

    #[test]
    fn a_new_instance_knows_nothing_and_forgetting_clears_what_it_learned() {
        let known = Known::default();
        assert!(!known.receipts_noted() && !known.done_noted() && !known.is_clean("chat.postMessage"));
        known.note_receipts();
        known.note_done();
        known.clean("chat.postMessage");
        assert!(known.receipts_noted() && known.done_noted() && known.is_clean("chat.postMessage"));
        known.forget_notes();
        assert!(!known.receipts_noted() && !known.done_noted(), "the housekeeping may delete the notes");
        assert!(known.is_clean("chat.postMessage"), "the housekeeping never writes a streak");
        known.dirty("chat.postMessage");
        assert!(!known.is_clean("chat.postMessage"), "a failure may have started a streak");
        known.clean("views.open");
        known.note_done();
        known.forget();
        assert!(!known.done_noted() && !known.is_clean("views.open"), "a failed unit forgets everything");
    }
}
