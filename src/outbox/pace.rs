//! Pacing: whether a Slack call may leave now, by the budgets of [`crate::slack::tiers`], pure
//! (the clock is passed in).
//!
//! Each lane (a method for the team, or `chat.postMessage` in one channel) is a GCRA bucket: a
//! *theoretical arrival time* `tat` that advances by the budget's interval per call; a call is
//! allowed while `now >= tat - (burst - 1) × interval`. A call that is not allowed is not sent:
//! [`Pacer::admit`] answers [`Pace::Wait`] with the earliest time it may go and **reserves** that
//! slot for its row, so a burst of 300 posts in one channel gets 300 distinct slots one second
//! apart (each row is put off once, not once per sweep), and a row that comes back at its slot
//! goes without asking again.
//!
//! A reservation is a plan: the sweep may come back late (a busy runtime, a late alarm), and rows
//! that come back late together must not leave together. So each lane also keeps the GCRA of the
//! calls that really left (`sent_tat`): a call goes only when both its slot has come and the
//! calls really sent allow it; otherwise it waits a little longer, keeping its place.
//!
//! A 429 is a *hold*: [`Pacer::hold`] closes the lane until `Retry-After` has passed and drops the
//! lane's reservations (their rows ask again, behind the hold); after it the lane restarts with one
//! call, then its rate. Holds are also stored (the `holds` table) so a new actor instance
//! [`Pacer::hold`]s them again; the rest of this state lives in the actor's memory: a new
//! instance starts with full buckets, which at worst costs a few 429s, each of which holds.
//!
//! Invariants: a lane never admits more than `burst` calls at once nor more than one per
//! interval on average; no reservation is handed out before a hold's end; memory is bounded by
//! [`Pacer::forget_idle`] (idle lanes and reservations nobody came back for are dropped).

use crate::slack::tiers::Bucket;
use std::collections::HashMap;

/// A reservation nobody came back for is forgotten this long after its slot.
pub const RESERVATION_TTL_MS: i64 = 10 * 60_000;

/// May the call leave?
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// Yes, now (its slot is taken).
    Go,
    /// Not before `until` (epoch ms); the slot at `until` is reserved for this row.
    Wait {
        /// The reserved slot.
        until: i64,
    },
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Lane {
    /// GCRA's theoretical arrival time of the planned calls (sent and reserved), epoch ms; 0 for
    /// a full bucket.
    tat: i64,
    /// The same for the calls really sent.
    sent_tat: i64,
    /// No call before this (a 429's `Retry-After`); 0 when not held.
    held_until: i64,
    /// The tolerance `(burst - 1) × interval` last seen for this lane.
    tolerance: i64,
    /// A hold was set since the last call: the next call starts the lane empty.
    restart: bool,
}

impl Lane {
    /// The earliest time a new call may be planned on this lane.
    fn ready_at(&self) -> i64 {
        self.sent_ready_at().max(self.tat - self.tolerance)
    }

    /// The earliest time a call may really leave, by the calls sent so far.
    fn sent_ready_at(&self) -> i64 {
        self.held_until.max(self.sent_tat - self.tolerance)
    }

    /// A call left at `now`.
    fn sent(&mut self, now: i64, interval_ms: i64) {
        self.sent_tat = self.sent_tat.max(now) + interval_ms.max(1);
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Reservation {
    keys: Vec<String>,
    at: i64,
}

/// A lane as the admin stats show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaneView {
    /// The lane.
    pub lane: String,
    /// When its next unreserved call may leave.
    pub free_at: i64,
    /// Held by a 429 until then, if it is.
    pub held_until: Option<i64>,
    /// Rows waiting for a reserved slot on it.
    pub waiting: usize,
}

/// The pacing state of one team actor.
#[derive(Debug, Clone, Default)]
pub struct Pacer {
    lanes: HashMap<String, Lane>,
    reservations: HashMap<i64, Reservation>,
}

impl Pacer {
    /// Whether row `row`'s call, spending from `buckets`, may leave at `now`. `Go` takes the
    /// call's place in every bucket; `Wait` reserves the earliest slot all of them allow.
    pub fn admit(&mut self, row: i64, buckets: &[Bucket], now: i64) -> Pace {
        let keys: Vec<String> = buckets.iter().map(|b| b.key.clone()).collect();
        if let Some(reserved) = self.reservations.get(&row).filter(|r| r.keys == keys).map(|r| r.at) {
            return self.redeem(row, buckets, reserved, now);
        }
        self.reservations.remove(&row);
        if buckets.is_empty() {
            return Pace::Go;
        }
        for b in buckets {
            self.lanes.entry(b.key.clone()).or_default().tolerance = (i64::from(b.budget.burst.max(1)) - 1) * b.budget.interval_ms;
        }
        let at = buckets.iter().map(|b| self.lanes[&b.key].ready_at()).max().unwrap_or(now).max(now);
        for b in buckets {
            let lane = self.lanes.get_mut(&b.key).expect("inserted above");
            // After a hold the lane restarts empty: one call at its end, then the rate.
            let floor = if std::mem::take(&mut lane.restart) { lane.held_until + lane.tolerance } else { at };
            lane.tat = lane.tat.max(at).max(floor) + b.budget.interval_ms.max(1);
        }
        if at <= now {
            self.send(buckets, now);
            Pace::Go
        } else {
            self.reservations.insert(row, Reservation { keys, at });
            Pace::Wait { until: at }
        }
    }

    /// A row with a reserved slot at `at` came back: it goes once the slot has come and the calls
    /// really sent allow it (rows that come back late together still leave one interval apart).
    fn redeem(&mut self, row: i64, buckets: &[Bucket], at: i64, now: i64) -> Pace {
        let ready = buckets.iter().filter_map(|b| self.lanes.get(&b.key)).map(Lane::sent_ready_at).max().unwrap_or(now).max(at);
        if ready > now {
            if let Some(r) = self.reservations.get_mut(&row) {
                r.at = ready;
            }
            return Pace::Wait { until: ready };
        }
        self.reservations.remove(&row);
        self.send(buckets, now);
        Pace::Go
    }

    fn send(&mut self, buckets: &[Bucket], now: i64) {
        for b in buckets {
            self.lanes.entry(b.key.clone()).or_default().sent(now, b.budget.interval_ms);
        }
    }

    /// A 429 on `lane`: no call on it before `until`; its reservations are dropped (their rows
    /// ask again when they come, and queue behind the hold).
    pub fn hold(&mut self, lane: &str, until: i64) {
        let entry = self.lanes.entry(lane.to_string()).or_default();
        entry.held_until = entry.held_until.max(until);
        entry.sent_tat = entry.sent_tat.max(entry.held_until + entry.tolerance);
        entry.restart = true;
        self.reservations.retain(|_, r| !r.keys.iter().any(|k| k == lane));
    }

    /// When `lane` is held until, if it is at `now`.
    pub fn held_until(&self, lane: &str, now: i64) -> Option<i64> {
        self.lanes.get(lane).map(|l| l.held_until).filter(|until| *until > now)
    }

    /// Drops what no longer matters at `now`: lanes with a full bucket and no hold, reservations
    /// whose row has not come back within [`RESERVATION_TTL_MS`] of its slot.
    pub fn forget_idle(&mut self, now: i64) {
        self.reservations.retain(|_, r| r.at + RESERVATION_TTL_MS > now);
        let reserved: Vec<&String> = self.reservations.values().flat_map(|r| &r.keys).collect();
        let keep: std::collections::HashSet<String> = reserved.into_iter().cloned().collect();
        self.lanes.retain(|key, lane| lane.tat.max(lane.sent_tat) > now || lane.held_until > now || keep.contains(key));
    }

    /// Lanes that are busy at `now` (a call would wait, or rows hold reservations), by lane name.
    pub fn busy(&self, now: i64) -> Vec<LaneView> {
        let mut views: Vec<LaneView> = self
            .lanes
            .iter()
            .map(|(key, lane)| LaneView {
                lane: key.clone(),
                free_at: lane.ready_at().max(now),
                held_until: Some(lane.held_until).filter(|u| *u > now),
                waiting: self.reservations.values().filter(|r| r.keys.contains(key)).count(),
            })
            .filter(|v| v.free_at > now || v.waiting > 0)
            .collect();
        views.sort_by(|a, b| a.lane.cmp(&b.lane));
        views
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slack::tiers::{Budget, POST_PER_CHANNEL};

    fn post(channel: &str) -> Vec<Bucket> {
        vec![Bucket { key: format!("chat.postMessage:{channel}"), budget: POST_PER_CHANNEL }]
    }

    fn tier(key: &str, interval_ms: i64, burst: u32) -> Vec<Bucket> {
        vec![Bucket { key: key.into(), budget: Budget { interval_ms, burst } }]
    }

    #[test]
    fn a_burst_goes_at_once_then_each_row_gets_its_own_slot_one_interval_apart() {
        let mut p = Pacer::default();
        let paces: Vec<Pace> = (1..=6).map(|row| p.admit(row, &post("C1"), 10_000)).collect();
        assert_eq!(
            paces,
            vec![Pace::Go, Pace::Go, Pace::Wait { until: 11_000 }, Pace::Wait { until: 12_000 }, Pace::Wait { until: 13_000 }, Pace::Wait { until: 14_000 }]
        );
    }

    #[test]
    fn a_row_that_comes_back_at_its_slot_goes_and_one_that_comes_early_waits_for_it() {
        let mut p = Pacer::default();
        p.admit(1, &post("C1"), 0);
        p.admit(2, &post("C1"), 0);
        assert_eq!(p.admit(3, &post("C1"), 0), Pace::Wait { until: 1_000 });
        assert_eq!(p.admit(4, &post("C1"), 0), Pace::Wait { until: 2_000 });
        assert_eq!(p.admit(3, &post("C1"), 500), Pace::Wait { until: 1_000 }, "early: the same slot");
        assert_eq!(p.admit(3, &post("C1"), 1_003), Pace::Go);
        assert_eq!(p.admit(4, &post("C1"), 2_000), Pace::Go);
        assert_eq!(p.admit(5, &post("C1"), 2_000), Pace::Wait { until: 3_000 }, "a newcomer queues behind the reservations");
    }

    #[test]
    fn rows_that_come_back_late_together_still_leave_one_interval_apart() {
        let mut p = Pacer::default();
        let slots: Vec<Pace> = (1..=6).map(|row| p.admit(row, &post("C1"), 0)).collect();
        assert_eq!(slots[2..], [Pace::Wait { until: 1_000 }, Pace::Wait { until: 2_000 }, Pace::Wait { until: 3_000 }, Pace::Wait { until: 4_000 }]);
        // The runtime was busy: rows 3, 4 and 5 come back together at 3.5 s.
        assert_eq!(p.admit(3, &post("C1"), 3_500), Pace::Go);
        assert_eq!(p.admit(4, &post("C1"), 3_500), Pace::Go, "the quiet spell refilled one call of burst");
        assert_eq!(p.admit(5, &post("C1"), 3_500), Pace::Wait { until: 4_500 }, "not a third at once");
        assert_eq!(p.admit(5, &post("C1"), 4_500), Pace::Go);
        assert_eq!(p.admit(6, &post("C1"), 4_500), Pace::Wait { until: 5_500 }, "its slot came, the rate did not");
    }

    #[test]
    fn channels_are_paced_apart() {
        let mut p = Pacer::default();
        for row in 0..2 {
            assert_eq!(p.admit(row, &post("C1"), 0), Pace::Go);
        }
        assert_eq!(p.admit(10, &post("C2"), 0), Pace::Go, "another channel has its own budget");
        assert_eq!(p.admit(11, &post("C1"), 0), Pace::Wait { until: 1_000 });
    }

    #[test]
    fn the_rate_holds_over_any_window() {
        // 100 rows at once on a 1.2 s, burst-3 lane: any 10 slots in a row span at least 9 intervals
        // once the burst is spent, and never more than 3 share a moment.
        let mut p = Pacer::default();
        let slots: Vec<i64> = (0..100)
            .map(|row| match p.admit(row, &tier("chat.update", 1_200, 3), 0) {
                Pace::Go => 0,
                Pace::Wait { until } => until,
            })
            .collect();
        assert_eq!(slots.iter().filter(|s| **s == 0).count(), 3);
        for w in slots[2..].windows(10) {
            assert!(w[9] - w[0] >= 9 * 1_200, "{w:?}");
        }
        assert_eq!(*slots.last().unwrap(), 97 * 1_200);
    }

    #[test]
    fn a_quiet_lane_refills_its_burst() {
        let mut p = Pacer::default();
        for row in 0..2 {
            p.admit(row, &post("C1"), 0);
        }
        assert_eq!(p.admit(2, &post("C1"), 10_000), Pace::Go);
        assert_eq!(p.admit(3, &post("C1"), 10_000), Pace::Go);
        assert_eq!(p.admit(4, &post("C1"), 10_000), Pace::Wait { until: 11_000 });
    }

    #[test]
    fn a_hold_closes_the_lane_drops_its_reservations_and_restarts_with_one_call() {
        let mut p = Pacer::default();
        p.admit(1, &post("C1"), 0);
        p.admit(2, &post("C1"), 0);
        assert_eq!(p.admit(3, &post("C1"), 0), Pace::Wait { until: 1_000 });
        p.hold("chat.postMessage:C1", 5_000);
        assert_eq!(p.held_until("chat.postMessage:C1", 0), Some(5_000));
        assert_eq!(p.admit(3, &post("C1"), 1_000), Pace::Wait { until: 5_000 }, "the reservation before the hold is gone");
        assert_eq!(p.admit(4, &post("C1"), 1_000), Pace::Wait { until: 6_000 }, "then one per interval, no burst");
        assert_eq!(p.admit(3, &post("C1"), 5_000), Pace::Go);
        assert_eq!(p.held_until("chat.postMessage:C1", 5_000), None);
    }

    #[test]
    fn a_hold_on_an_unpaced_method_still_stops_it() {
        let mut p = Pacer::default();
        let lane = vec![Bucket { key: "users.info".into(), budget: Budget { interval_ms: 1, burst: 1 } }];
        p.hold("users.info", 3_000);
        assert_eq!(p.admit(1, &lane, 1_000), Pace::Wait { until: 3_000 });
        assert_eq!(p.admit(1, &[], 1_000), Pace::Go, "no buckets: not paced at all");
    }

    #[test]
    fn a_call_in_two_buckets_waits_for_both() {
        let mut p = Pacer::default();
        let both = |channel: &str| {
            let mut b = post(channel);
            b.extend(tier("chat.postMessage", 250, 2));
            b
        };
        assert_eq!(p.admit(1, &both("C1"), 0), Pace::Go);
        assert_eq!(p.admit(2, &both("C2"), 0), Pace::Go);
        assert_eq!(p.admit(3, &both("C3"), 0), Pace::Wait { until: 250 }, "the team-wide bucket is empty");
        assert_eq!(p.admit(4, &both("C1"), 0), Pace::Wait { until: 500 }, "C1 has a burst left: the team bucket binds");
        assert_eq!(p.admit(5, &both("C1"), 0), Pace::Wait { until: 1_000 }, "C1's own bucket binds");
    }

    #[test]
    fn idle_lanes_and_abandoned_reservations_are_forgotten() {
        let mut p = Pacer::default();
        for row in 0..5 {
            p.admit(row, &post("C1"), 0);
        }
        assert_eq!(p.busy(0).len(), 1);
        assert_eq!(p.busy(0)[0].waiting, 3);
        p.forget_idle(2_500);
        assert_eq!(p.busy(2_500)[0].waiting, 3, "reservations stay until their rows come back");
        p.forget_idle(3_000 + RESERVATION_TTL_MS);
        assert!(p.busy(3_000 + RESERVATION_TTL_MS).is_empty());
        assert!(p.lanes.is_empty() && p.reservations.is_empty());
    }

    #[test]
    fn a_reservation_for_other_lanes_is_not_honoured() {
        let mut p = Pacer::default();
        p.admit(1, &post("C1"), 0);
        p.admit(2, &post("C1"), 0);
        assert_eq!(p.admit(3, &post("C1"), 0), Pace::Wait { until: 1_000 });
        // Row 3 now calls another method (a status job that posts, then updates).
        assert_eq!(p.admit(3, &tier("chat.update", 1_200, 3), 1_000), Pace::Go);
    }
}
