//! The Stop bell: how the ingest that records a user's Stop tells the answers running beside it,
//! at once and in memory, to read the Stops again.
//!
//! Why: an answer reads the durable Stops table between its steps, but a step can be a long
//! wait — for the model's first token (a reasoning model thinks for tens of seconds), a slow
//! chunk, a retry's backoff, a pacing hold. The answer races each such wait against a
//! [`StopBell`], which resolves as soon as this isolate records a Stop ([`ring`]); the answer then
//! reads the table, and a Stop of its own ends its model request within moments instead of after
//! the wait. A Durable Object has one live instance, so the ingest that records a Stop runs in the
//! same isolate (and thread) as the answer it stops.
//!
//! Invariants: the table stays the source of truth — the bell only says "read it again" (a
//! crash loses the bell, never the Stop); a bell resolves once the count of rung Stops differs
//! from the one it was made with, so a ring between making it and awaiting it is not missed;
//! a bell's waker is held only while the bell lives (dropped bells leave nothing behind).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

thread_local! {
    /// How many Stops this isolate has recorded.
    static RUNG: Cell<u64> = const { Cell::new(0) };
    /// The wakers of the bells being awaited, by bell id.
    static WAITING: RefCell<HashMap<u64, Waker>> = RefCell::new(HashMap::new());
    static NEXT_ID: Cell<u64> = const { Cell::new(0) };
}

/// How many Stops this isolate has recorded so far (compare two readings: a change means read
/// the Stops again).
pub fn rung() -> u64 {
    RUNG.with(Cell::get)
}

/// A Stop was recorded: every bell made before it resolves.
pub fn ring() {
    RUNG.with(|n| n.set(n.get().wrapping_add(1)));
    let waiting: Vec<Waker> = WAITING.with(|w| w.borrow_mut().drain().map(|(_, waker)| waker).collect());
    for waker in waiting {
        waker.wake();
    }
}

/// Resolves once a Stop is recorded after the count `seen` ([`rung`]).
#[derive(Debug)]
pub struct StopBell {
    seen: u64,
    id: u64,
}

impl StopBell {
    /// A bell that rings at the first Stop recorded after the count `seen` (at once if one was).
    pub fn after(seen: u64) -> StopBell {
        let id = NEXT_ID.with(|n| {
            let id = n.get();
            n.set(id.wrapping_add(1));
            id
        });
        StopBell { seen, id }
    }
}

impl Future for StopBell {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if rung() != self.seen {
            WAITING.with(|w| w.borrow_mut().remove(&self.id));
            return Poll::Ready(());
        }
        WAITING.with(|w| w.borrow_mut().insert(self.id, cx.waker().clone()));
        Poll::Pending
    }
}

impl Drop for StopBell {
    fn drop(&mut self) {
        WAITING.with(|w| w.borrow_mut().remove(&self.id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::Wake;

    struct Counted(AtomicUsize);

    impl Wake for Counted {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn poll(bell: &mut StopBell, waker: &Waker) -> Poll<()> {
        Pin::new(bell).poll(&mut Context::from_waker(waker))
    }

    #[test]
    fn a_bell_waits_until_a_stop_is_recorded_and_its_waiter_is_woken_then() {
        let woken = Arc::new(Counted(AtomicUsize::new(0)));
        let waker = Waker::from(woken.clone());
        let mut bell = StopBell::after(rung());
        assert_eq!(poll(&mut bell, &waker), Poll::Pending);
        assert_eq!(poll(&mut bell, &waker), Poll::Pending, "polled again, it still waits");
        ring();
        assert_eq!(woken.0.load(Ordering::SeqCst), 1, "woken once by the Stop");
        assert_eq!(poll(&mut bell, &waker), Poll::Ready(()));
    }

    #[test]
    fn a_stop_recorded_before_the_bell_is_awaited_is_not_missed() {
        let mut bell = StopBell::after(rung());
        ring();
        assert_eq!(poll(&mut bell, Waker::noop()), Poll::Ready(()));
    }

    #[test]
    fn a_dropped_bell_leaves_no_waker_behind() {
        let before = WAITING.with(|w| w.borrow().len());
        for _ in 0..100 {
            let mut bell = StopBell::after(rung());
            assert_eq!(poll(&mut bell, Waker::noop()), Poll::Pending);
        }
        assert_eq!(WAITING.with(|w| w.borrow().len()), before, "a hundred waits that ended another way hold nothing");
    }
}
