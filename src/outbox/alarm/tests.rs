//! A model of the team actor's alarm: ingests, alarm sweeps and admin sweeps of one instance, each
//! a sequence of synchronous segments separated by awaits, run in **every** interleaving (an
//! exhaustive search over the reachable states) against a storage that behaves as workerd's does:
//! alarm operations take effect in the order they are issued; an alarm fires only when it is due
//! and no alarm handler runs; while the handler runs the fired alarm is gone (`getAlarm()` is
//! null) and whatever is set meanwhile is kept.
//!
//! The property: once everything has run and no alarm is due, no row is left pending. The view the
//! actor uses ([`AlarmView`]) keeps it in every interleaving; the view the actor had before
//! (the armed time noted when `setAlarm`'s await returned) breaks it, and the search finds how.

use super::*;
use std::collections::{BTreeSet, HashSet};

/// Every row is due at once; the clock does not move (only the order of events matters here).
const NOW: i64 = 0;
/// The housekeeping wake a sweep re-arms when nothing is pending: far ahead.
const HOUSEKEEPING: i64 = 86_400_000;

/// How the instance remembers its alarm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Memory {
    /// The actor's view: written when an operation is issued.
    Exact(Known),
    /// Issue 33's: the armed time, written when the operation's await returns.
    NotedAfterAwait(Option<i64>),
}

/// What a continuation writes into a [`Memory::NotedAfterAwait`] when its await returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Note {
    Armed(i64),
    Disarmed,
}

impl Memory {
    fn view(known: Known) -> AlarmView {
        AlarmView { known: Cell::new(known) }
    }

    /// An ingest's `arm_by(at)`: the operation it issues, and what it notes after the await.
    fn arm_by(&mut self, at: i64) -> (Option<AlarmOp>, Option<Note>) {
        match self {
            Memory::Exact(known) => {
                let view = Memory::view(*known);
                let op = view.arm_by(at);
                *known = view.known.get();
                (op, None)
            }
            Memory::NotedAfterAwait(Some(armed)) if *armed <= at => (None, None),
            Memory::NotedAfterAwait(_) => (Some(AlarmOp::Set(at)), Some(Note::Armed(at))),
        }
    }

    /// A sweep's end: `arm(at)` when something is pending or due later, else `disarm()`.
    fn sweep_end(&mut self, next: Option<i64>) -> (Option<AlarmOp>, Option<Note>) {
        match (self, next) {
            (Memory::Exact(known), next) => {
                let view = Memory::view(*known);
                let op = match next {
                    Some(at) => Some(view.arm(at)),
                    None => view.disarm(),
                };
                *known = view.known.get();
                (op, None)
            }
            (Memory::NotedAfterAwait(_), Some(at)) => (Some(AlarmOp::Set(at)), Some(Note::Armed(at))),
            (Memory::NotedAfterAwait(Some(_)), None) => (Some(AlarmOp::Delete), Some(Note::Disarmed)),
            (Memory::NotedAfterAwait(None), None) => (None, None),
        }
    }

    /// The alarm handler starts.
    fn fired(&mut self) {
        match self {
            Memory::Exact(known) => {
                let view = Memory::view(*known);
                view.fired();
                *known = view.known.get();
            }
            Memory::NotedAfterAwait(armed) => *armed = None,
        }
    }

    /// A continuation after an alarm operation's await.
    fn resume(&mut self, note: Option<Note>) {
        if let (Memory::NotedAfterAwait(armed), Some(note)) = (self, note) {
            *armed = match note {
                Note::Armed(at) => Some(at),
                Note::Disarmed => None,
            };
        }
    }
}

/// Where a running task is suspended.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Task {
    /// An ingest awaiting its `setAlarm`.
    Ingest { note: Option<Note> },
    /// A sweep awaiting the Slack calls of the rows it claimed; `nudged`: an ingest queued rows
    /// since its claim.
    Delivering { alarm: bool, claimed: BTreeSet<u32>, nudged: bool },
    /// A sweep awaiting its closing alarm operation.
    Arming { alarm: bool, note: Option<Note> },
}

/// The whole system: one actor instance, its storage, what is still to arrive, what is suspended.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct World {
    stored: Option<i64>,
    handler_running: bool,
    pending: BTreeSet<u32>,
    next_row: u32,
    memory: Memory,
    ingests_to_come: u32,
    admin_sweeps_to_come: u32,
    /// Whether a sweep that leaves nothing pending still has housekeeping to wake for.
    housekeeping: bool,
    tasks: Vec<Task>,
    set_alarms: u32,
}

/// One scheduling choice.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Move {
    Ingest,
    AdminSweep,
    Fire,
    Resume(usize),
}

impl World {
    fn new(memory: Memory, stored: Option<i64>, ingests: u32, admin_sweeps: u32, housekeeping: bool) -> World {
        World {
            stored,
            handler_running: false,
            pending: BTreeSet::new(),
            next_row: 0,
            memory,
            ingests_to_come: ingests,
            admin_sweeps_to_come: admin_sweeps,
            housekeeping,
            tasks: Vec::new(),
            set_alarms: 0,
        }
    }

    fn moves(&self) -> Vec<Move> {
        let mut moves = Vec::new();
        if self.ingests_to_come > 0 {
            moves.push(Move::Ingest);
        }
        if self.admin_sweeps_to_come > 0 {
            moves.push(Move::AdminSweep);
        }
        if self.stored.is_some_and(|at| at <= NOW) && !self.handler_running {
            moves.push(Move::Fire);
        }
        moves.extend((0..self.tasks.len()).map(Move::Resume));
        moves
    }

    fn apply(&mut self, op: Option<AlarmOp>) {
        match op {
            Some(AlarmOp::Set(at)) => {
                self.stored = Some(at);
                self.set_alarms += 1;
            }
            Some(AlarmOp::Delete) => self.stored = None,
            None => {}
        }
    }

    fn step(&mut self, m: &Move) {
        match *m {
            Move::Ingest => {
                // The unit: the row, the nudge to running sweeps, the alarm issued, no await between.
                self.ingests_to_come -= 1;
                self.pending.insert(self.next_row);
                self.next_row += 1;
                for task in &mut self.tasks {
                    if let Task::Delivering { nudged, .. } = task {
                        *nudged = true;
                    }
                }
                let (op, note) = self.memory.arm_by(NOW);
                self.apply(op);
                if op.is_some() {
                    self.tasks.push(Task::Ingest { note });
                }
            }
            Move::AdminSweep => {
                self.admin_sweeps_to_come -= 1;
                self.claim(false);
            }
            Move::Fire => {
                self.handler_running = true;
                self.stored = None;
                self.memory.fired();
                self.claim(true);
            }
            Move::Resume(i) => match self.tasks.remove(i) {
                Task::Ingest { note } => self.memory.resume(note),
                Task::Delivering { alarm, claimed, nudged } => {
                    self.pending.retain(|row| !claimed.contains(row));
                    match nudged {
                        true => self.claim(alarm),
                        false => self.end(alarm),
                    }
                }
                Task::Arming { alarm, note } => {
                    self.memory.resume(note);
                    self.finish(alarm);
                }
            },
        }
    }

    /// A sweep claims every due row and awaits their calls, or ends at once if there are none.
    fn claim(&mut self, alarm: bool) {
        match self.pending.is_empty() {
            true => self.end(alarm),
            false => self.tasks.push(Task::Delivering { alarm, claimed: self.pending.clone(), nudged: false }),
        }
    }

    /// A sweep's end: the next due time read and the alarm operation issued, no await between.
    fn end(&mut self, alarm: bool) {
        let next = match self.pending.is_empty() {
            false => Some(NOW),
            true => self.housekeeping.then_some(HOUSEKEEPING),
        };
        let (op, note) = self.memory.sweep_end(next);
        self.apply(op);
        match op {
            Some(_) => self.tasks.push(Task::Arming { alarm, note }),
            None => self.finish(alarm),
        }
    }

    fn finish(&mut self, alarm: bool) {
        if alarm {
            self.handler_running = false;
        }
    }

    /// Everything has run and no alarm is due: a pending row now waits for nothing.
    fn stranded(&self) -> bool {
        self.moves().is_empty() && !self.pending.is_empty()
    }
}

/// What the search saw.
#[derive(Debug, Default)]
struct Search {
    states: usize,
    endings: usize,
    /// The first schedule that stranded a row, if any.
    stranded: Option<Vec<Move>>,
}

/// Runs every interleaving from `start` (depth first, each reachable state once).
fn explore(start: World) -> Search {
    let mut search = Search::default();
    let mut seen = HashSet::new();
    let mut stack = vec![(start, Vec::new())];
    while let Some((world, path)) = stack.pop() {
        if !seen.insert(world.clone()) {
            continue;
        }
        search.states += 1;
        let moves = world.moves();
        if moves.is_empty() {
            search.endings += 1;
            if world.stranded() && search.stranded.is_none() {
                search.stranded = Some(path.clone());
            }
            continue;
        }
        for m in moves {
            let mut next = world.clone();
            next.step(&m);
            let mut longer = path.clone();
            longer.push(m);
            stack.push((next, longer));
        }
    }
    search
}

/// The starting points: a new instance (nothing known, an alarm stored or not) and a warm one
/// (its housekeeping wake set by itself), with up to four ingests, an admin sweep or not, and a
/// housekeeping wake or none.
fn starts(memory: impl Fn(Known) -> Memory) -> Vec<World> {
    let mut worlds = Vec::new();
    for (known, stored) in [(Known::Unknown, None), (Known::Unknown, Some(HOUSEKEEPING)), (Known::Set(HOUSEKEEPING), Some(HOUSEKEEPING))] {
        for ingests in 1..=4 {
            for admin_sweeps in 0..=1 {
                for housekeeping in [true, false] {
                    worlds.push(World::new(memory(known), stored, ingests, admin_sweeps, housekeeping));
                }
            }
        }
    }
    worlds
}

#[test]
fn the_view_leaves_no_row_without_an_alarm_in_any_interleaving() {
    let mut states = 0;
    for start in starts(Memory::Exact) {
        let search = explore(start.clone());
        assert_eq!(search.stranded, None, "from {start:?}");
        assert!(search.endings > 0, "the search reached an end from {start:?}");
        states += search.states;
    }
    assert!(states > 10_000, "{states} distinct states searched");
}

#[test]
fn the_armed_time_noted_after_the_await_strands_rows_and_the_search_finds_how() {
    let from_issue_33 = World::new(Memory::NotedAfterAwait(None), None, 2, 0, true);
    let stranded = explore(from_issue_33).stranded.expect("the old view strands a row");
    // The ingest's `setAlarm(now)` fires, sweeps and re-arms the housekeeping wake before the
    // ingest notes "armed now"; the next ingest believes it and sets nothing.
    assert!(stranded.contains(&Move::Fire), "{stranded:?}");
    let disarmed = World::new(Memory::NotedAfterAwait(None), None, 2, 1, false);
    assert!(explore(disarmed).stranded.is_some(), "a sweep's deleteAlarm noted late strands a row too");
}

#[test]
fn a_burst_before_the_alarm_fires_sets_the_alarm_once() {
    let mut world = World::new(Memory::Exact(Known::Unknown), None, 3, 0, true);
    for _ in 0..3 {
        world.step(&Move::Ingest);
    }
    assert_eq!(world.set_alarms, 1);
    while let Some(m) = world.moves().into_iter().next() {
        world.step(&m);
    }
    assert!(world.pending.is_empty());
    assert_eq!(world.stored, Some(HOUSEKEEPING));
}

#[test]
fn the_view_forgets_on_fire_and_failure_and_sets_again() {
    let view = AlarmView::default();
    assert_eq!(view.arm_by(10), Some(AlarmOp::Set(10)), "a new instance knows nothing: it sets");
    assert_eq!(view.arm_by(20), None, "a sweep due at 10 is due by 20");
    assert_eq!(view.arm_by(5), Some(AlarmOp::Set(5)), "earlier than the one set: set again");
    view.fired();
    assert_eq!(view.arm_by(30), Some(AlarmOp::Set(30)), "the alarm that fired is gone");
    view.failed();
    assert_eq!(view.known.get(), Known::Unknown);
    assert_eq!(view.arm(HOUSEKEEPING), AlarmOp::Set(HOUSEKEEPING));
    assert_eq!(view.arm_by(40), Some(AlarmOp::Set(40)), "a later alarm does not cover now");
    assert_eq!(view.disarm(), Some(AlarmOp::Delete));
    assert_eq!(view.disarm(), None, "already deleted");
    assert_eq!(view.arm_by(50), Some(AlarmOp::Set(50)));
}

#[test]
fn the_net_reads_storage_only_for_rows_due_past_the_grace_and_wants_an_alarm_by_now() {
    assert_eq!(overdue(None, 10_000, 5_000), None);
    assert_eq!(overdue(Some(6_000), 10_000, 5_000), None, "due 4 s ago: its own ingest armed it");
    assert_eq!(overdue(Some(5_000), 10_000, 5_000), Some(5_000));
    assert!(covers(Some(10_000), 10_000, 0) && covers(Some(1), 10_000, 0));
    assert!(!covers(None, 10_000, 5_000), "no alarm at all");
    assert!(covers(Some(15_000), 10_000, 5_000), "a sweep re-armed after a storage error");
    assert!(!covers(Some(15_001), 10_000, 5_000), "an alarm still ahead leaves the overdue row waiting");
    assert!(!covers(Some(10_000 + 86_400_000), 10_000, 5_000), "issue 33: the housekeeping wake, a day ahead");
}

#[test]
fn the_findings_count_up_and_keep_the_latest() {
    let first = MissedAlarms::note(None, 10_000, 2_000);
    assert_eq!(first, MissedAlarms { count: 1, last_at: 10_000, last_due_at: 2_000 });
    assert_eq!(MissedAlarms::note(Some(first), 50_000, 40_000), MissedAlarms { count: 2, last_at: 50_000, last_due_at: 40_000 });
}

#[test]
fn a_sweep_end_wakes_by_the_alarm_only_while_rows_are_pending() {
    let cases = [
        ("rows due, housekeeping later", Some(100), Some(5_000), NextWake::Alarm(100)),
        ("rows due, housekeeping sooner", Some(100), Some(50), NextWake::Alarm(50)),
        ("rows due, no housekeeping", Some(100), None, NextWake::Alarm(100)),
        ("nothing pending, housekeeping due", None, Some(5_000), NextWake::Directory(5_000)),
        ("nothing at all", None, None, NextWake::Nothing),
    ];
    for (what, work, housekeeping, expected) in cases {
        assert_eq!(next_wake(work, housekeeping), expected, "{what}");
    }
}

#[test]
fn the_directory_is_asked_unless_it_holds_a_wake_no_later() {
    assert!(must_ask(None, 5_000), "a new instance knows of no wake");
    assert!(must_ask(Some(6_000), 5_000), "the one it holds comes too late");
    assert!(!must_ask(Some(5_000), 5_000), "the same time");
    assert!(!must_ask(Some(4_000), 5_000), "an earlier one: the team is woken, and asks again then");
}
