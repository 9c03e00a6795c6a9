//! A post made once, wasm32 half (the decisions are this room's `mod.rs`): every
//! `chat.postMessage` of a row carries the row's key in its message metadata, and a row whose
//! previous attempt's outcome is unknown reads its channel or thread back first — found: the row is
//! done with that `ts`, not sent again; not there: sent; not readable: sent, and logged.
//!
//! One [`ReadBacks`] lives for one sweep: each channel or thread is read once for all the uncertain
//! rows of the sweep that post there (a later row waits for the read in progress, then takes its
//! answer if the read covers it), over a window reaching back to the oldest uncertainty of the
//! sweep's claims. Each page of a read goes through the row's pacer gate like any call.
//!
//! A post that timed out retries (and reads back) only once its attempt's lease has run out: the
//! aborted call may still land (`kinds::post::timed_out_wait`).
//!
//! Invariant: a row is answered only by a read that began after its claim and reaches back to its
//! uncertainty (`Read::answers`); otherwise it reads again.

use super::{Decision, PageSeen, Place, Read, ReadEnd, Uncertain, Window};
use crate::config::Config;
use crate::kinds::post;
use crate::logs::{ReadBackLine, ReadBackOutcome};
use crate::platform::clock;
use crate::platform::http::{self, SlackCall};
use crate::platform::log;
use crate::platform::pacing::Gate;
use crate::platform::rows::ClaimedRow;
use crate::slack::classify::Verdict;
use crate::slack::method;
use futures::lock::Mutex;
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

/// What a post's read-back needs to know of its row, when the row's outcome is unknown.
fn uncertain(row: &ClaimedRow) -> Option<Uncertain> {
    row.uncertain_since.map(|since| Uncertain { since, claimed_at: row.claimed_at })
}

/// One sweep's reads of channels and threads, one per place at a time.
#[derive(Default)]
pub struct ReadBacks {
    /// The last read of each place (behind a lock: one read of a place at a time).
    places: RefCell<HashMap<Place, Rc<Mutex<Option<Read>>>>>,
    /// The oldest uncertainty among the rows the sweep claimed: how far back a read reaches.
    earliest: Cell<Option<i64>>,
}

impl ReadBacks {
    /// Notes the rows a claim took: a read reaches back to the oldest of their uncertainties.
    pub fn claimed(&self, rows: &[ClaimedRow]) {
        let oldest = rows.iter().filter_map(|r| r.uncertain_since).min();
        self.earliest.set(match (self.earliest.get(), oldest) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        });
    }

    /// The lock of `place`'s last read.
    fn slot(&self, place: &Place) -> Rc<Mutex<Option<Read>>> {
        self.places.borrow_mut().entry(place.clone()).or_default().clone()
    }
}

/// What one post attempt needs: its row, its pacer gate, the settings, the sweep's reads.
pub struct Poster<'a> {
    /// The sweep's reads.
    pub reads: &'a ReadBacks,
    /// Settings.
    pub config: &'a Config,
    /// The row's gate.
    pub gate: &'a Gate<'a>,
    /// The row.
    pub row: &'a ClaimedRow,
    /// When the attempt started.
    pub started: i64,
}

/// Posts `args` for the row (its key stamped in the metadata), reading its place back first if
/// its previous attempt's outcome is unknown. A found post answers as Slack answers a post.
pub async fn post_message(p: &Poster<'_>, token: &str, args: &Value) -> SlackCall {
    let args = post::stamp(args, &p.row.idem_key);
    let unresolved = match uncertain(p.row) {
        None => None,
        Some(row) => match check(p, token, &args, row).await {
            Checked::Found(call) => return call,
            Checked::NotYet(verdict) => return SlackCall { verdict, http_status: None, json: Value::Null, uncertain_since: Some(row.since) },
            Checked::NotThere => None,
            Checked::Unresolved => Some(row.since),
        },
    };
    let mut call = http::call_slack(p.config, p.gate, token, method::POST_MESSAGE, &args).await;
    if post::is_uncertain(&call.verdict) {
        if let Verdict::Transient { retry_after_ms, .. } = &mut call.verdict {
            *retry_after_ms = Some(post::timed_out_wait(p.started, p.config.lease_ms, p.row.deadline_at, clock::now_ms()));
        }
    }
    let sent = !matches!(call.verdict, Verdict::Paced { .. });
    call.uncertain_since = post::uncertain_after(sent.then_some(&call.verdict), p.started, unresolved);
    call
}

/// What reading back an uncertain row's place says to do.
enum Checked {
    /// The post is there: Slack's answer, as a post's.
    Found(SlackCall),
    /// Not there: send it.
    NotThere,
    /// Not readable: send it, still uncertain.
    Unresolved,
    /// Not known yet: end the attempt with this verdict.
    NotYet(Verdict),
}

/// Reads the place of `args` back for `row` (or takes the sweep's read of it) and decides.
async fn check(p: &Poster<'_>, token: &str, args: &Value, row: Uncertain) -> Checked {
    let Some(place) = Place::of(args) else {
        log_read(p, row, method::CONVERSATIONS_HISTORY, ReadBackOutcome::Fallback, None, Some("no_channel".into()));
        return Checked::Unresolved;
    };
    let deadline = post::read_deadline(&row, p.row.deadline_at, p.config.readback.max_wait_ms);
    let read = read_for(p, token, &place, row).await;
    match post::decide(&read.end, &p.row.idem_key, clock::now_ms(), deadline) {
        Decision::Found { ts } => {
            log_read(p, row, place.method(), ReadBackOutcome::Found, Some(ts.clone()), None);
            Checked::Found(SlackCall { verdict: Verdict::Success, http_status: None, json: post::found_answer(&place, &ts), uncertain_since: None })
        }
        Decision::Send => {
            log_read(p, row, place.method(), ReadBackOutcome::NotThere, None, None);
            Checked::NotThere
        }
        Decision::Fallback(why) => {
            log_read(p, row, place.method(), ReadBackOutcome::Fallback, None, Some(why.reason()));
            Checked::Unresolved
        }
        Decision::NotYet(verdict) => Checked::NotYet(verdict),
    }
}

/// The sweep's read of `place` if it answers `row`, else a new one (which the place keeps).
async fn read_for(p: &Poster<'_>, token: &str, place: &Place, row: Uncertain) -> Read {
    let slot = p.reads.slot(place);
    let mut last = slot.lock().await;
    if let Some(read) = last.as_ref().filter(|r| r.answers(&row)) {
        return read.clone();
    }
    let now = clock::now_ms();
    let since = p.reads.earliest.get().map_or(row.since, |e| e.min(row.since));
    let read = read_pages(p, token, place, Window::of(since, now), now).await;
    *last = Some(read.clone());
    read
}

/// Reads `place` over `window`, page after page, each through the pacer.
async fn read_pages(p: &Poster<'_>, token: &str, place: &Place, window: Window, started_at: i64) -> Read {
    let ended = |end| Read { started_at, window, end };
    let (mut seen, mut cursor) = (HashMap::new(), None::<String>);
    for _ in 0..p.config.readback.max_pages {
        let args = place.page_args(&window, p.config.readback.page_size, cursor.as_deref());
        let call = http::call_slack(p.config, p.gate, token, place.method(), &args).await;
        let page = match call.verdict {
            Verdict::Success => PageSeen::of(&call.json),
            Verdict::Paced { until } => return ended(ReadEnd::Paced { until }),
            Verdict::Permanent { code } => return ended(ReadEnd::Refused(code)),
            other => return ended(ReadEnd::Failed(other)),
        };
        seen.extend(page.posts);
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return ended(ReadEnd::Complete(seen)),
        }
    }
    ended(ReadEnd::TooManyPages)
}

/// The `read_back` line of one row's decision.
fn log_read(p: &Poster<'_>, row: Uncertain, method: &str, outcome: ReadBackOutcome, ts: Option<String>, reason: Option<String>) {
    let line = ReadBackLine { row: p.row.id.0, key: p.row.idem_key.clone(), method: method.into(), outcome, uncertain_since: row.since, ts, reason };
    log::emit(crate::logs::LogLine::ReadBack(line));
}
