//! Rows claimed as they were inserted: the ingest unit (and a notify POST's) inserts each row due
//! now already claimed with a token of its actor instance (`sql::ingest::INSERT_OUTBOX_CLAIMED`),
//! and so does a sweep's completion with the follow-ups it queues (an LLM reply's post); the
//! instance's next claim takes them as they are — a SELECT, no row written — instead of claiming
//! them with an UPDATE (issue 39: one row written fewer per row queued).
//!
//! Invariants:
//! - **Only the instance that inserted a row adopts it, one sweep at a time.** It remembers the
//!   ids (in memory only); one sweep at a time adopts ([`PreClaims::adopter`]: an alarm's and an
//!   admin's sweep may overlap), oldest first and only as many as it has free slots, so the rows
//!   of the instance's token whose attempt is under way are always the first of its pending rows
//!   (by id), never more than one sweep's slots.
//! - **A new instance takes over at once what a dead one never sent.** A new instance (after a
//!   crash, an eviction, a deploy) knows neither the dead one's token nor its ids. Before its
//!   first claim it gives back to the claim ([`take_over`], `sql::outbox::UNTOUCHED_DEAD_CLAIMS`)
//!   every row of another token past that token's first pending rows, as many as the dead
//!   instance ran attempts at once (its tokens name it, `clock::claim_token`; for a token of a
//!   release before that, `MAX_DELIVERY_CONCURRENCY`):
//!   by the invariant above (and a sweep starting its claimed rows in id order), no attempt of
//!   those began, so they are sent at once, with no read-back. The first few of each token, whose
//!   attempt may be at Slack, wait for their claim to expire and are read back first
//!   (`kinds::post`), as any expired claim is.
//! - **That wait is short.** A row is inserted claimed for [`pre_claim_ms`]: one attempt's time
//!   (`ATTEMPT_TIMEOUT_MS`) plus [`ADOPT_WINDOW_MS`], not `LEASE_MS` — so rows an instance
//!   inserted and never adopted (it was replaced between the ack and its alarm) are delivered by
//!   the next instance about 20 s later by default, not 60.
//! - **An adopted row's attempt ends inside its claim.** It is adopted only while at least one
//!   attempt's time is left ([`ATTEMPT_MARGIN_MS`] more), and only as many as the sweep has free
//!   slots for (`DELIVERY_CONCURRENCY`), ahead of every claimed row: each adopted row starts at
//!   once and its attempt is bounded by `ATTEMPT_TIMEOUT_MS`. A streamed answer keeps its
//!   claim as a claimed one does (`kinds::assistant::store::save`: extended once less than three
//!   quarters of a lease is left). Its completion is fenced by the
//!   instance's token: if the claim ran out and another sweep took the row over, the completion
//!   changes nothing.
//! - **A row that cannot be adopted goes back to the claim.** Held lanes and leases too short are
//!   released (`sql::outbox::RELEASE`: unclaimed, the attempt given back) in the same step, and
//!   the ordinary claim takes them as it takes any row, in order and not before their hold ends.

use crate::config::{Config, MAX_DELIVERY_CONCURRENCY};
use crate::outbox::ClaimToken;
use crate::platform::clock;
use crate::platform::exec::{int, rows, run, text};
use crate::platform::rows::ClaimedRow;
use crate::sql;
use std::cell::{Cell, OnceCell, RefCell};
use worker::SqlStorage;

/// An actor instance's claim of the rows its ingests insert, and the ids it has not adopted yet.
#[derive(Debug)]
pub struct PreClaims {
    /// Made at first use, naming the instance's `DELIVERY_CONCURRENCY` (`clock::claim_token`).
    token: OnceCell<ClaimToken>,
    /// (row id, inserted at, lease until), oldest first.
    waiting: RefCell<Vec<(i64, i64, i64)>>,
    /// Whether a sweep holds the adopter's role ([`PreClaims::adopter`]).
    adopting: Cell<bool>,
    /// Whether the rows dead instances never sent were given back ([`take_over`]).
    took_over: Cell<bool>,
}

impl Default for PreClaims {
    fn default() -> Self {
        PreClaims { token: OnceCell::new(), waiting: RefCell::new(Vec::new()), adopting: Cell::new(false), took_over: Cell::new(false) }
    }
}

/// The role of the one sweep of an instance that adopts its rows; given up when dropped.
#[derive(Debug)]
pub struct Adopter<'a>(&'a PreClaims);

impl Drop for Adopter<'_> {
    fn drop(&mut self) {
        self.0.adopting.set(false);
    }
}

impl PreClaims {
    /// The adopter's role, unless another sweep holds it: one sweep adopts at a time.
    pub fn adopter(&self) -> Option<Adopter<'_>> {
        (!self.adopting.replace(true)).then_some(Adopter(self))
    }

    /// The instance's token, as the ingest unit claims with it.
    pub fn token(&self, config: &Config) -> &ClaimToken {
        self.token.get_or_init(|| clock::claim_token(config.delivery_concurrency))
    }

    /// Rows an ingest unit inserted at `at`, claimed until `until` (after the unit returned).
    pub fn inserted(&self, ids: &[i64], at: i64, until: i64) {
        self.waiting.borrow_mut().extend(ids.iter().map(|id| (*id, at, until)));
    }

    /// Whether rows are still waiting to be adopted.
    pub fn waiting(&self) -> bool {
        !self.waiting.borrow().is_empty()
    }

    /// When the oldest row still waiting to be adopted was inserted (for the alarm's safety net:
    /// such a row is due, whatever its lease says).
    pub fn oldest_waiting(&self) -> Option<i64> {
        self.waiting.borrow().iter().map(|(_, at, _)| *at).min()
    }

    /// Takes, oldest first, at most `limit` ids with at least `min_lease_ms` of lease left at
    /// `now`, and every id with less: (to adopt, to release). The rest keep waiting.
    fn take(&self, now: i64, min_lease_ms: i64, limit: usize) -> (Vec<i64>, Vec<i64>) {
        let mut waiting = self.waiting.borrow_mut();
        let (mut adoptable, mut release) = (Vec::new(), Vec::new());
        waiting.retain(|(id, _, until)| {
            if *until - now < min_lease_ms {
                release.push(*id);
                false
            } else if adoptable.len() < limit {
                adoptable.push(*id);
                false
            } else {
                true
            }
        });
        (adoptable, release)
    }
}

/// How long after its insert a row inserted claimed may still be adopted (the rest of its claim
/// is its attempt's): 5 s. A sweep normally adopts it within milliseconds (the ingest armed the
/// alarm to now); one that comes later releases it to the ordinary claim (one row written more).
pub const ADOPT_WINDOW_MS: i64 = 5_000;

/// What an adopted row's claim must still cover beyond one attempt: its completion's write.
pub const ATTEMPT_MARGIN_MS: i64 = 500;

/// How long an ingest claims a row it inserts: one attempt plus the adoption window, and never
/// more than a claim's lease (`LEASE_MS`).
pub fn pre_claim_ms(config: &Config) -> i64 {
    (config.attempt_timeout_ms + ATTEMPT_MARGIN_MS + ADOPT_WINDOW_MS).min(config.lease_ms)
}

/// The claim an adopted row must have left: one attempt and its completion.
pub fn min_lease_ms(config: &Config) -> i64 {
    config.attempt_timeout_ms + ATTEMPT_MARGIN_MS
}

/// Adopts as many of the rows the instance inserted claimed, due and not held, as can start at
/// once (`free`: the sweep's slots not taken, at most a batch), and releases to the claim the ones
/// it cannot adopt (held, or too little claim left); returns the adopted rows (fenced by
/// [`PreClaims::token`]). Rows past `free` wait for the next adoption ([`PreClaims::waiting`]).
pub fn adopt(sql: &SqlStorage, adopter: &Adopter<'_>, config: &Config, now: i64, free: usize) -> worker::Result<Vec<ClaimedRow>> {
    let claims = adopter.0;
    let (adoptable, mut release) = claims.take(now, min_lease_ms(config), free.min(config.batch_size.max(1) as usize));
    let token = claims.token(config).as_str();
    let adopted: Vec<ClaimedRow> = match adoptable.is_empty() {
        true => Vec::new(),
        false => rows(sql, sql::outbox::ADOPT, vec![text(token), text(&ids(&adoptable)), int(now)])?,
    };
    release.extend(adoptable.iter().filter(|id| !adopted.iter().any(|row| row.id.0 == **id)));
    if !release.is_empty() {
        run(sql, sql::outbox::RELEASE, vec![text(token), text(&ids(&release))])?;
    }
    Ok(adopted)
}

/// Once per instance, before its first claim: gives back to the claim the rows that dead
/// instances claimed and never attempted (see the module's invariants), so they are sent at once
/// and not read back. Returns how many. A failure is tried again at the next sweep; until then
/// the rows wait for their claim to expire, as before.
pub fn take_over(sql: &SqlStorage, claims: &PreClaims, config: &Config, now: i64) -> worker::Result<usize> {
    #[derive(serde::Deserialize)]
    struct Id {
        id: i64,
    }
    if claims.took_over.get() {
        return Ok(0);
    }
    let token = claims.token(config).as_str();
    let untouched: Vec<i64> =
        rows::<Id>(sql, sql::outbox::UNTOUCHED_DEAD_CLAIMS, vec![text(token), int(MAX_DELIVERY_CONCURRENCY), int(now)])?.into_iter().map(|r| r.id).collect();
    if !untouched.is_empty() {
        run(sql, sql::outbox::RELEASE_UNTOUCHED, vec![text(&ids(&untouched)), text(token)])?;
    }
    claims.took_over.set(true);
    Ok(untouched.len())
}

fn ids(ids: &[i64]) -> String {
    serde_json::to_string(ids).unwrap_or_else(|_| "[]".into())
}
