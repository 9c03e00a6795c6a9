//! How an ingest wakes a running sweep ([`Nudge`]), and what the delivery loop waits for next
//! ([`next_event`]): an attempt finishing, an ingest's signal, or the hold-back time of the
//! oldest attempt in flight running out.

use super::attempt::Finished;
use futures::channel::mpsc::{UnboundedReceiver, UnboundedSender};
use futures::future::{select, Either};
use futures::stream::FuturesUnordered;
use futures::{FutureExt, StreamExt};
use std::cell::Cell;
use std::rc::Rc;

/// How an ingest tells a running sweep that it queued rows. At most one signal is outstanding
/// until the sweep's next claim, so a burst of ingests wakes the sweep once, not once per event.
#[derive(Clone)]
pub struct Nudge {
    signal: UnboundedSender<()>,
    outstanding: Rc<Cell<bool>>,
}

impl Nudge {
    /// Says "rows were queued" unless a signal is already waiting for the sweep's next claim.
    pub fn send(&self) {
        if !self.outstanding.replace(true) {
            let _ = self.signal.unbounded_send(());
        }
    }

    /// True once the sweep has ended (its receiving side is gone).
    pub fn is_closed(&self) -> bool {
        self.signal.is_closed()
    }
}

/// The sweep's side of a [`Nudge`].
pub struct Nudges {
    pub(super) signals: Option<UnboundedReceiver<()>>,
    pub(super) outstanding: Rc<Cell<bool>>,
}

/// A connected pair: the actor keeps the [`Nudge`], the sweep takes the [`Nudges`].
pub fn nudges() -> (Nudge, Nudges) {
    let (signal, signals) = futures::channel::mpsc::unbounded();
    let outstanding = Rc::new(Cell::new(false));
    (Nudge { signal, outstanding: outstanding.clone() }, Nudges { signals: Some(signals), outstanding })
}

/// What the delivery loop waits for.
pub(super) enum Event {
    /// An attempt finished (`None`: none in flight).
    Finished(Option<Box<Finished>>),
    /// An ingest queued rows (`None`: the actor dropped the sender; no more signals).
    Signal(Option<()>),
    /// The oldest attempt in flight ran past [`HOLDBACK_MS`](crate::outbox::schedule::HOLDBACK_MS).
    Stalled,
}

/// The next of: an attempt finishing, an ingest's signal, the hold-back time running out.
pub(super) async fn next_event<F: std::future::Future<Output = Finished>>(
    in_flight: &mut FuturesUnordered<F>,
    woken: &mut Option<UnboundedReceiver<()>>,
    holdback_ms: Option<i64>,
) -> Event {
    let finished = in_flight.next().map(|done| Event::Finished(done.map(Box::new)));
    let signal = async {
        match woken {
            Some(signals) => Event::Signal(signals.next().await),
            None => futures::future::pending().await,
        }
    };
    let stall = async {
        match holdback_ms {
            Some(ms) => {
                worker::Delay::from(std::time::Duration::from_millis(ms.max(0) as u64)).await;
                Event::Stalled
            }
            None => futures::future::pending().await,
        }
    };
    futures::pin_mut!(signal, stall);
    match select(finished, select(signal, stall)).await {
        Either::Left((event, _)) | Either::Right((Either::Left((event, _)), _)) | Either::Right((Either::Right((event, _)), _)) => event,
    }
}
