//! The cost meter of this isolate (`crate::meter`, pure): the store's primitives record each
//! cursor's `rowsRead` / `rowsWritten`, the team actor its `setAlarm` and `deleteAlarm` calls,
//! requests and alarm invocations. Test scaffolding: only a build with slackline's `testkit`
//! feature counts, and only once a team actor of a deployment with `ALLOW_TEST_CLOCK=1` starts
//! ([`enable`]); in a production build every function here is empty. Counting only adds to
//! memory; nothing of it is ever written to storage.

use crate::meter::Meter;
#[cfg(feature = "testkit")]
use std::cell::{Cell, RefCell};

#[cfg(feature = "testkit")]
thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
    static METER: RefCell<Meter> = RefCell::new(Meter::default());
}

/// Turns counting on for this isolate when the deployment allows test hooks.
pub fn enable(allow_test_clock: bool) {
    #[cfg(feature = "testkit")]
    if allow_test_clock {
        ON.with(|on| on.set(true));
    }
    #[cfg(not(feature = "testkit"))]
    let _ = allow_test_clock;
}

#[cfg(feature = "testkit")]
fn count(f: impl FnOnce(&mut Meter)) {
    if ON.with(Cell::get) {
        METER.with(|m| f(&mut m.borrow_mut()));
    }
}

/// A production build counts nothing (the closure is never called, so none of the meter is in it).
#[cfg(not(feature = "testkit"))]
#[inline(always)]
fn count(_: impl FnOnce(&mut Meter)) {}

/// Counts a drained cursor of `sql`.
pub fn statement(sql: &str, cursor: &worker::SqlCursor) {
    count(|m| m.record(sql, cursor.rows_read() as u64, cursor.rows_written() as u64));
}

/// Counts a `setAlarm`.
pub fn set_alarm() {
    count(|m| m.set_alarms += 1);
}

/// Counts a `deleteAlarm`.
pub fn delete_alarm() {
    count(|m| m.delete_alarms += 1);
}

/// Counts a request an actor served.
pub fn request() {
    count(|m| m.requests += 1);
}

/// Counts an alarm invocation.
pub fn alarm() {
    count(|m| m.alarms += 1);
}

/// What this isolate counted so far.
#[cfg(feature = "testkit")]
pub fn snapshot() -> Meter {
    METER.with(|m| m.borrow().clone())
}
