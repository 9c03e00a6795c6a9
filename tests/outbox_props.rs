//! Property tests of the outbox, running the very SQL the team actor runs ([`slackline::internal::sql`])
//! against real SQLite (bundled, through rusqlite): random interleavings of claimers, lease
//! expiries, crashes between perform and complete, and late completions.
//!
//! Invariants checked after every step:
//! - no row is ever lost (nothing deletes pending or parked rows);
//! - a completion is stored exactly when its token still owns a pending row — a stale claimer is
//!   always fenced;
//! - a claim never takes a row whose current lease is still live;
//! - a finished row (done or parked) never changes again;
//! - at the end, once leases have expired, one honest claimer drains every row: nothing stays
//!   claimed forever.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use rusqlite::types::Null;
use rusqlite::{params, Connection};
use slackline::internal::sql;
use std::collections::HashMap;

const LEASE_MS: i64 = 1_000;

#[derive(Debug, Clone)]
enum Op {
    /// A new sweep (fresh token) claims up to `limit` rows.
    Claim { limit: i64 },
    /// The in-flight claim at this index (modulo) completes with an outcome.
    Complete { pick: usize, outcome: Outcome },
    /// The claimer of the in-flight claim at this index dies: it never completes.
    Crash { pick: usize },
    /// Time passes.
    Advance { ms: i64 },
}

#[derive(Debug, Clone, Copy)]
enum Outcome {
    Done,
    Retry { after_ms: i64 },
    Park,
}

fn op() -> impl Strategy<Value = Op> {
    let outcome = prop_oneof![Just(Outcome::Done), (0i64..2_000).prop_map(|after_ms| Outcome::Retry { after_ms }), Just(Outcome::Park),];
    prop_oneof![
        (1i64..4).prop_map(|limit| Op::Claim { limit }),
        (any::<usize>(), outcome).prop_map(|(pick, outcome)| Op::Complete { pick, outcome }),
        any::<usize>().prop_map(|pick| Op::Crash { pick }),
        (0i64..1_500).prop_map(|ms| Op::Advance { ms }),
    ]
}

#[derive(Debug, Clone)]
struct InFlight {
    row: i64,
    token: String,
}

#[derive(Debug, Clone, PartialEq)]
struct RowState {
    status: String,
    token: Option<String>,
    lease_until: Option<i64>,
}

struct World {
    db: Connection,
    now: i64,
    tokens: u64,
    in_flight: Vec<InFlight>,
    rows: usize,
}

impl World {
    fn new(rows: usize) -> World {
        let db = Connection::open_in_memory().unwrap();
        // The schema the code writes: every migration, in order.
        for step in slackline::internal::kinds::schema::TEAM.migrations {
            db.execute_batch(step.sql).unwrap();
        }
        let now = 1_000_000;
        for i in 0..rows {
            let inserted: Vec<i64> = query_ids(
                &db,
                sql::ingest::INSERT_OUTBOX,
                params![format!("key:{i}"), format!("op:{i}"), "slack_api", "chat.postMessage", "{}", 100, now, Option::<i64>::None, now],
            );
            assert_eq!(inserted.len(), 1);
        }
        World { db, now, tokens: 0, in_flight: Vec::new(), rows }
    }

    fn state(&self, id: i64) -> RowState {
        self.db
            .query_row("SELECT status, claim_token, claim_expires_at FROM outbox WHERE id = ?1", [id], |r| {
                Ok(RowState { status: r.get(0)?, token: r.get(1)?, lease_until: r.get(2)? })
            })
            .unwrap()
    }

    fn all_states(&self) -> HashMap<i64, RowState> {
        let ids: Vec<i64> = self.db.prepare("SELECT id FROM outbox").unwrap().query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
        ids.into_iter().map(|id| (id, self.state(id))).collect()
    }

    fn claim(&mut self, limit: i64) {
        self.tokens += 1;
        let token = format!("token-{}", self.tokens);
        let before = self.all_states();
        let claimed: Vec<i64> = query_ids(&self.db, sql::outbox::CLAIM, params![token, self.now + LEASE_MS, self.now, limit]);
        assert!(claimed.len() as i64 <= limit);
        for id in claimed {
            let was = &before[&id];
            assert_eq!(was.status, "pending", "only pending rows are claimed");
            if let (Some(_), Some(until)) = (&was.token, was.lease_until) {
                assert!(until <= self.now, "row {id} claimed while its lease (until {until}) was live at {}", self.now);
            }
            self.in_flight.push(InFlight { row: id, token: token.clone() });
        }
    }

    fn complete(&mut self, pick: usize, outcome: Outcome) {
        if self.in_flight.is_empty() {
            return;
        }
        let flight = self.in_flight.remove(pick % self.in_flight.len());
        let before = self.state(flight.row);
        let owns = before.status == "pending" && before.token.as_deref() == Some(flight.token.as_str());
        let stored = match outcome {
            Outcome::Done => query_ids(&self.db, sql::outbox::COMPLETE_DONE, params![flight.row, flight.token, self.now, 200, 12, Null, Null]),
            Outcome::Retry { after_ms } => {
                query_ids(&self.db, sql::outbox::COMPLETE_RETRY, params![flight.row, flight.token, self.now + after_ms, "http_500", 500, Null])
            }
            Outcome::Park => {
                query_ids(&self.db, sql::outbox::COMPLETE_PARK, params![flight.row, flight.token, "channel_not_found", "channel_not_found", 200, self.now])
            }
        };
        assert_eq!(!stored.is_empty(), owns, "completion stored iff the token still owns the row: {flight:?} {before:?}");
        if !owns {
            assert_eq!(self.state(flight.row), before, "a fenced completion changes nothing");
        }
    }

    fn check_no_row_lost(&self, finished_before: &HashMap<i64, RowState>) {
        let states = self.all_states();
        assert_eq!(states.len(), self.rows, "no row is ever lost");
        for (id, was) in finished_before {
            assert_eq!(&states[id].status, &was.status, "finished row {id} changed");
        }
    }

    fn finished(&self) -> HashMap<i64, RowState> {
        self.all_states().into_iter().filter(|(_, s)| s.status != "pending").collect()
    }

    /// After every lease expires, one honest claimer completes everything it claims as done.
    fn drain(&mut self) {
        self.in_flight.clear();
        for _ in 0..(self.rows * 4 + 10) {
            self.now += LEASE_MS + 2_000;
            self.claim(10);
            while !self.in_flight.is_empty() {
                self.complete(0, Outcome::Done);
            }
        }
        let pending: i64 = self.db.query_row("SELECT COUNT(*) FROM outbox WHERE status = 'pending'", [], |r| r.get(0)).unwrap();
        assert_eq!(pending, 0, "rows stayed pending or claimed forever");
    }
}

fn query_ids(db: &Connection, statement: &str, params: impl rusqlite::Params) -> Vec<i64> {
    let mut stmt = db.prepare(statement).unwrap();
    let ids = stmt.query_map(params, |r| r.get::<_, i64>(0)).unwrap().map(Result::unwrap).collect();
    ids
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn interleaved_claimers_crashes_and_late_completions_keep_every_invariant(
        rows in 1usize..8,
        ops in proptest::collection::vec(op(), 1..80),
    ) {
        let mut world = World::new(rows);
        for op in ops {
            let finished = world.finished();
            match op {
                Op::Claim { limit } => world.claim(limit),
                Op::Complete { pick, outcome } => world.complete(pick, outcome),
                Op::Crash { pick } => {
                    if !world.in_flight.is_empty() {
                        let i = pick % world.in_flight.len();
                        world.in_flight.remove(i);
                    }
                }
                Op::Advance { ms } => world.now += ms,
            }
            world.check_no_row_lost(&finished);
        }
        world.drain();
    }
}

#[test]
fn stale_lease_completion_is_fenced() {
    let mut world = World::new(1);
    world.claim(1);
    let stale = world.in_flight[0].clone();
    world.now += LEASE_MS; // the lease runs out
    world.claim(1);
    assert_eq!(world.in_flight.len(), 2, "the expired lease was claimed again");
    let stored = query_ids(&world.db, sql::outbox::COMPLETE_DONE, params![stale.row, stale.token, world.now, 200, 12, Null, Null]);
    assert!(stored.is_empty(), "the stale claimer is fenced");
    assert_eq!(world.state(stale.row).status, "pending");
}

#[test]
fn a_live_lease_is_not_claimed_twice() {
    let mut world = World::new(1);
    world.claim(1);
    world.now += LEASE_MS - 1;
    world.claim(1);
    assert_eq!(world.in_flight.len(), 1);
}

#[test]
fn a_held_target_is_not_claimed_until_the_hold_passes() {
    let mut world = World::new(2);
    world.db.execute(sql::outbox::HOLD_TARGET, params!["chat.postMessage", world.now + 500]).unwrap();
    world.claim(5);
    assert!(world.in_flight.is_empty());
    let next: Option<i64> = world.db.query_row(sql::outbox::SWEEP_END, [world.now, 0, 0, 0], |r| r.get(0)).unwrap();
    assert_eq!(next, Some(world.now + 500), "the alarm is re-armed to the end of the hold, not in a hot loop");
    world.now += 500;
    world.claim(5);
    assert_eq!(world.in_flight.len(), 2);
}

#[test]
fn a_wait_gives_back_the_attempt_the_claim_counted_and_is_fenced_like_any_completion() {
    let mut world = World::new(2);
    let attempts = |w: &World, id: i64| -> (i64, Option<i64>, i64) {
        w.db.query_row("SELECT attempts, first_attempt_at, next_attempt_at FROM outbox WHERE id = ?1", [id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap()
    };
    world.claim(2);
    let (paced, limited) = (world.in_flight[0].clone(), world.in_flight[1].clone());
    assert_eq!(attempts(&world, paced.row).0, 1, "the claim counts the attempt");
    // Kept back by the pacer (never sent): the attempt is given back and no first attempt recorded.
    let slot = world.now + 3_000;
    assert_eq!(
        query_ids(&world.db, sql::outbox::COMPLETE_WAIT, params![paced.row, paced.token, slot, Option::<String>::None, Option::<i64>::None, 0]).len(),
        1
    );
    assert_eq!(attempts(&world, paced.row), (0, None, slot));
    // Refused with a 429 (sent): the attempt is given back, the first attempt's time kept.
    assert_eq!(query_ids(&world.db, sql::outbox::COMPLETE_WAIT, params![limited.row, limited.token, slot, "ratelimited", 429, 1]).len(), 1);
    assert_eq!(attempts(&world, limited.row), (0, Some(world.now), slot));
    // A stale claimer's wait is fenced: it changes nothing.
    assert!(query_ids(&world.db, sql::outbox::COMPLETE_WAIT, params![limited.row, limited.token, slot + 1, "ratelimited", 429, 1]).is_empty());
    assert_eq!(attempts(&world, limited.row).2, slot);
    // However many waits, the attempts never go below zero nor run out.
    for _ in 0..10 {
        world.now = slot.max(world.now) + 1;
        world.in_flight.clear();
        world.claim(1);
        let flight = world.in_flight[0].clone();
        query_ids(&world.db, sql::outbox::COMPLETE_WAIT, params![flight.row, flight.token, world.now, "ratelimited", 429, 1]);
        assert_eq!(attempts(&world, flight.row).0, 0);
    }
}

#[test]
fn next_due_is_the_lease_expiry_while_a_claim_is_live() {
    let mut world = World::new(1);
    world.claim(1);
    let next: Option<i64> = world.db.query_row(sql::outbox::SWEEP_END, [world.now, 0, 0, 0], |r| r.get(0)).unwrap();
    assert_eq!(next, Some(world.now + LEASE_MS));
}

#[test]
fn a_duplicate_idempotency_key_inserts_nothing() {
    let world = World::new(1);
    let again: Vec<i64> =
        query_ids(&world.db, sql::ingest::INSERT_OUTBOX, params!["key:0", "op:x", "slack_api", "chat.postMessage", "{}", 6, 0, Option::<i64>::None, 0]);
    assert!(again.is_empty());
}

#[test]
fn a_receipt_is_new_once() {
    let world = World::new(0);
    assert_eq!(query_count(&world.db, sql::ingest::INSERT_RECEIPT, params!["Ev1", "event", 5]), 1);
    assert_eq!(query_count(&world.db, sql::ingest::INSERT_RECEIPT, params!["Ev1", "event", 6]), 0);
}

#[test]
fn pruning_removes_old_done_rows_but_never_parked_ones() {
    let mut world = World::new(3);
    for _ in 0..3 {
        world.claim(1);
    }
    world.complete(0, Outcome::Done);
    world.complete(0, Outcome::Park);
    world.now += 10_000;
    let cutoff = world.now - 1;
    world.db.execute(sql::outbox::PRUNE_DONE_ATTEMPTS, params![cutoff, 100]).unwrap();
    world.db.execute(sql::outbox::PRUNE_DONE, params![cutoff, 100]).unwrap();
    let statuses: Vec<String> =
        world.db.prepare("SELECT status FROM outbox ORDER BY id").unwrap().query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
    assert_eq!(statuses, vec!["parked", "pending"], "row 1 (done) pruned; row 2 parked and row 3 pending kept");
}

fn query_count(db: &Connection, statement: &str, params: impl rusqlite::Params) -> usize {
    let mut stmt = db.prepare(statement).unwrap();
    let n = stmt.query_map(params, |_| Ok(())).unwrap().count();
    n
}

/// The query plan of `statement`, one line per step, as SQLite's `EXPLAIN QUERY PLAN` prints it.
fn query_plan(db: &Connection, statement: &str, params: impl rusqlite::Params) -> Vec<String> {
    let mut stmt = db.prepare(&format!("EXPLAIN QUERY PLAN {statement}")).unwrap();
    stmt.query_map(params, |r| r.get::<_, String>(3)).unwrap().map(Result::unwrap).collect()
}

#[test]
fn the_claim_reaches_due_rows_through_the_pending_index_not_a_scan_of_the_outbox() {
    let world = World::new(50);
    let plan = query_plan(&world.db, sql::outbox::CLAIM, params!["token", world.now + LEASE_MS, world.now, 10]);
    assert!(plan.iter().any(|step| step.contains("USING INDEX outbox_pending")), "{plan:#?}");
    assert!(!plan.iter().any(|step| step.starts_with("SCAN outbox")), "{plan:#?}");
}

#[test]
fn a_sweep_never_takes_back_its_own_rows_even_after_their_lease_expired() {
    let mut world = World::new(1);
    let token = "the-same-sweep";
    assert_eq!(query_ids(&world.db, sql::outbox::CLAIM, params![token, world.now + LEASE_MS, world.now, 10]).len(), 1);
    world.now += LEASE_MS; // its own attempt outlived the lease
    assert!(query_ids(&world.db, sql::outbox::CLAIM, params![token, world.now + LEASE_MS, world.now, 10]).is_empty(), "in flight in this sweep");
    assert_eq!(
        query_ids(&world.db, sql::outbox::CLAIM, params!["another-sweep", world.now + LEASE_MS, world.now, 10]).len(),
        1,
        "another sweep takes the expired lease over"
    );
}

#[test]
fn pruning_never_deletes_the_newest_row_so_no_id_is_given_again() {
    let mut world = World::new(2);
    world.claim(2);
    world.complete(0, Outcome::Done);
    world.complete(0, Outcome::Done);
    world.now += 10_000;
    for statement in [sql::outbox::PRUNE_DONE_ATTEMPTS, sql::outbox::PRUNE_DONE] {
        world.db.execute(statement, params![world.now - 1, 100]).unwrap();
    }
    let left: Vec<i64> = world.db.prepare("SELECT id FROM outbox").unwrap().query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
    assert_eq!(left, vec![2], "the newest delivered row stays");
    let next = query_ids(
        &world.db,
        sql::ingest::INSERT_OUTBOX,
        params!["key:new", "op:new", "slack_api", "chat.postMessage", "{}", 6, world.now, Option::<i64>::None, world.now],
    );
    assert_eq!(next, vec![3], "a new row takes a new id");
}

fn count_of(db: &Connection, statement: &str, params: impl rusqlite::Params) -> i64 {
    db.query_row(statement, params, |r| r.get(0)).unwrap()
}

#[test]
fn delivered_rows_count_as_successes_from_the_note_on_and_the_prune_counts_what_it_deletes() {
    let mut world = World::new(5);
    world.claim(5);
    world.complete(0, Outcome::Done); // row 1, before the team counted successes by rows
    world.now += 1_000;
    let since = world.now;
    world.db.execute(sql::admin::NOTE_COUNTING_SINCE, params![since.to_string()]).unwrap();
    world.db.execute(sql::admin::NOTE_COUNTING_SINCE, params![(since + 5).to_string()]).unwrap(); // a later wake: no change
    world.complete(0, Outcome::Done); // row 2
    world.complete(0, Outcome::Park); // row 3
    world.complete(0, Outcome::Done); // row 4
                                      // A cancelled scheduled row ends done without an attempt: not a success.
    world.db.execute("UPDATE outbox SET status = 'done', reason = 'cancelled', finished_at = ?1, claim_token = NULL WHERE id = 5", [world.now]).unwrap();
    assert_eq!(count_of(&world.db, sql::admin::DELIVERED_ROWS, []), 2, "rows 2 and 4: done by the completion since the note");

    world.now += 10_000;
    let cutoff = world.now - 1;
    // Rows 1, 2 and 4 are pruned (5, the newest, stays); of them 2 and 4 counted themselves.
    assert_eq!(count_of(&world.db, sql::admin::PRUNED_DELIVERED_ROWS, params![cutoff, 100]), 2);
    assert_eq!(count_of(&world.db, sql::admin::PRUNED_DELIVERED_ROWS, params![cutoff, 1]), 0, "the limit takes row 1 alone");
    world.db.execute(sql::outbox::PRUNE_DONE, params![cutoff, 100]).unwrap();
    assert_eq!(count_of(&world.db, sql::admin::DELIVERED_ROWS, []), 0, "what the prune counted is no longer counted by rows");
}

#[test]
fn a_posted_message_is_kept_on_its_row_by_the_fenced_completion() {
    let mut world = World::new(1);
    world.claim(1);
    let stale = world.in_flight.remove(0);
    world.now += LEASE_MS + 1;
    world.claim(1); // the lease expired: another sweep owns the row now
    let owner = world.in_flight.remove(0);
    let complete = |token: &str| query_ids(&world.db, sql::outbox::COMPLETE_DONE, params![stale.row, token, world.now, 200, 12, "C1", "1.5"]);
    assert!(complete(&stale.token).is_empty(), "fenced");
    assert_eq!(complete(&owner.token), vec![stale.row]);
    let posted: (String, String, String) = world
        .db
        .query_row("SELECT status, posted_channel, posted_ts FROM outbox WHERE id = ?1", [stale.row], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap();
    assert_eq!(posted, ("done".to_string(), "C1".to_string(), "1.5".to_string()));
}

#[test]
fn a_row_taken_over_after_its_lease_expired_is_uncertain_since_its_lost_attempt_and_a_retry_settles_it() {
    let mut world = World::new(1);
    let uncertain = |db: &Connection| db.query_row("SELECT uncertain_since FROM outbox", [], |r| r.get::<_, Option<i64>>(0)).unwrap();
    let first = world.now;
    query_ids(&world.db, sql::outbox::CLAIM, params!["sweep-1", first + LEASE_MS, first, 10]);
    assert_eq!(uncertain(&world.db), None, "a first claim knows nothing is unknown");
    world.now += LEASE_MS; // the runtime died mid-call: nobody completed it
    let claimed_at: i64 = world.db.query_row(sql::outbox::CLAIM, params!["sweep-2", world.now + LEASE_MS, world.now, 10], |r| r.get("claimed_at")).unwrap();
    assert_eq!((uncertain(&world.db), claimed_at), (Some(first), world.now), "the lost attempt's start, returned with the claim");
    world.now += LEASE_MS;
    query_ids(&world.db, sql::outbox::CLAIM, params!["sweep-3", world.now + LEASE_MS, world.now, 10]);
    assert_eq!(uncertain(&world.db), Some(first), "the oldest unknown attempt stays");
    let id: i64 = world.db.query_row("SELECT id FROM outbox", [], |r| r.get(0)).unwrap();
    world.db.query_row(sql::outbox::COMPLETE_RETRY, params![id, "sweep-3", world.now, "timeout", None::<i64>, world.now - 10], |r| r.get::<_, i64>(0)).unwrap();
    assert_eq!(uncertain(&world.db), Some(world.now - 10), "a post that timed out");
    query_ids(&world.db, sql::outbox::CLAIM, params!["sweep-4", world.now + LEASE_MS, world.now, 10]);
    world.db.query_row(sql::outbox::COMPLETE_RETRY, params![id, "sweep-4", world.now, "http_503", 503, None::<i64>], |r| r.get::<_, i64>(0)).unwrap();
    assert_eq!(uncertain(&world.db), None, "read back and sent again: Slack's answer settles it");
}
