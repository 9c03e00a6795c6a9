//! Slack's `app_rate_limited` notices, and what a team actor keeps of them.
//!
//! Slack delivers at most 30,000 Events API requests an hour per workspace (per app). Past that it
//! drops the workspace's events and says so, once for each minute it drops them in, with an
//! `app_rate_limited` callback naming the minute (`minute_rate_limited`, epoch seconds of its
//! start). Those dropped events never reach slackline: nothing can recover them, so the notice is
//! what an operator needs to see — logged with `alert: app_rate_limited` by the front door, and
//! counted here for the team's stats.
//!
//! Invariant: [`Notices::count`] counts distinct minutes. A notice for a minute already counted
//! (a repeat of the same callback) changes nothing; minutes that arrive out of order are counted,
//! and `last_minute` stays the latest.

use serde::{Deserialize, Serialize};

/// The `app_rate_limited` notices a team has received.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notices {
    /// The minutes Slack said it dropped events in.
    pub count: i64,
    /// The latest such minute (epoch seconds, as Slack sends it).
    pub last_minute: i64,
    /// When the latest notice arrived (epoch ms).
    pub last_at: i64,
}

/// One notice as the front door forwards it to the team actor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateLimitedNotice {
    /// The minute Slack dropped events in (epoch seconds).
    pub minute_rate_limited: i64,
}

/// What one notice changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Noted {
    /// A minute not counted before: kept.
    NewMinute(Notices),
    /// The latest minute again: nothing to keep.
    Repeat,
}

impl Notices {
    /// The notices after one more for `minute`, received at `now_ms`.
    pub fn note(previous: Option<Notices>, minute: i64, now_ms: i64) -> Noted {
        match previous {
            Some(p) if p.count > 0 && p.last_minute == minute => Noted::Repeat,
            Some(p) => Noted::NewMinute(Notices { count: p.count + 1, last_minute: p.last_minute.max(minute), last_at: now_ms }),
            None => Noted::NewMinute(Notices { count: 1, last_minute: minute, last_at: now_ms }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_notice_counts_one_minute() {
        assert_eq!(Notices::note(None, 1_518_467_820, 5), Noted::NewMinute(Notices { count: 1, last_minute: 1_518_467_820, last_at: 5 }));
    }

    #[test]
    fn each_new_minute_is_counted_and_a_repeat_of_the_latest_is_not() {
        let Noted::NewMinute(one) = Notices::note(None, 60, 1) else { panic!("new") };
        assert_eq!(Notices::note(Some(one), 60, 2), Noted::Repeat);
        let Noted::NewMinute(two) = Notices::note(Some(one), 120, 3) else { panic!("new") };
        assert_eq!(two, Notices { count: 2, last_minute: 120, last_at: 3 });
    }

    #[test]
    fn a_late_notice_for_an_earlier_minute_is_counted_and_keeps_the_latest_minute() {
        let Noted::NewMinute(two) = Notices::note(Some(Notices { count: 1, last_minute: 120, last_at: 1 }), 60, 9) else { panic!("new") };
        assert_eq!(two, Notices { count: 2, last_minute: 120, last_at: 9 });
    }
}
