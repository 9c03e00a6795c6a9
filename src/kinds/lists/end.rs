//! What a List job's end writes, pure: the job ([`ListsEnd`]) says what it did; with the outbox's
//! transition it becomes the [`ListsWrite`] the completion stores in its unit — only when the
//! row's claim still holds.

use super::create::CreateVerdict;
use super::reconcile::{Page, Pass};
use super::sync::{after_call, after_create, Plan, RecordWrite};
use crate::slack::classify::Verdict;

/// What a list job's end writes, inside the completion's unit (only when the claim still holds).
#[derive(Debug, Clone, PartialEq)]
pub enum ListsWrite {
    /// A record's sync ended.
    Record {
        /// The List.
        list_id: String,
        /// The record.
        record_id: String,
        /// What to write.
        write: RecordWrite,
    },
    /// A handler's record is stored and its sync queued ([`super::api::ListJob::Put`]).
    Put {
        /// The List.
        list_id: String,
        /// The record.
        record_id: String,
        /// Its fields (canonical JSON text).
        fields: String,
    },
    /// A page of a pass was read.
    Page {
        /// The List.
        list_id: String,
        /// The pass.
        run: i64,
        /// The phase the page belongs to.
        pass: Pass,
        /// The page.
        page: Page,
        /// When the page's attempt started (the pass's start, for its first page).
        started: i64,
        /// Our bot's user id, if known.
        bot_user: Option<String>,
        /// The list's setting.
        recreate_missing: bool,
    },
    /// A pass ended early (its page row was parked).
    RunFailed {
        /// The List.
        list_id: String,
        /// The pass.
        run: i64,
        /// Why.
        error: String,
    },
}

/// What a List job's end will write, once the outbox transition is known: the job knows what it
/// did, the transition (parked or not) decides what of it is kept.
#[derive(Debug, Clone, PartialEq)]
pub enum ListsEnd {
    /// Nothing (a stale job).
    Nothing,
    /// A record settled without a call.
    Settled {
        /// The List.
        list_id: String,
        /// The record.
        record_id: String,
        /// What to write.
        write: RecordWrite,
    },
    /// A create was attempted.
    Create {
        /// The List.
        list_id: String,
        /// The record.
        record_id: String,
        /// The version sent.
        version: i64,
        /// What its end means.
        verdict: CreateVerdict,
    },
    /// An update or delete was attempted.
    Call {
        /// The List.
        list_id: String,
        /// The record.
        record_id: String,
        /// The version sent.
        version: i64,
        /// Which call.
        plan: Plan,
    },
    /// No call could be made (the team has no usable token).
    Unsent {
        /// The List.
        list_id: String,
        /// The record.
        record_id: String,
    },
    /// A page was read.
    Page(ListsWrite),
    /// A handler's record fits its column map: stored (a [`ListsWrite::Put`]) unless parked.
    Put(ListsWrite),
    /// A page could not be read.
    PageFailed {
        /// The List.
        list_id: String,
        /// The pass.
        run: i64,
    },
}

impl ListsEnd {
    /// The write, given the attempt's verdict and whether the outbox parked the row.
    pub fn write(self, verdict: &Verdict, parked: bool) -> Option<ListsWrite> {
        let record = |list_id: String, record_id: String, write: RecordWrite| Some(ListsWrite::Record { list_id, record_id, write });
        match self {
            ListsEnd::Nothing => None,
            ListsEnd::Settled { list_id, record_id, write } => record(list_id, record_id, write),
            ListsEnd::Create { list_id, record_id, version, verdict: created } => record(list_id, record_id, after_create(&created, version, parked)),
            ListsEnd::Call { list_id, record_id, version, plan } => record(list_id, record_id, after_call(&plan, version, verdict.code(), parked)),
            ListsEnd::Unsent { list_id, record_id } => match (parked, verdict.code()) {
                (true, Some(code)) => record(list_id, record_id, RecordWrite::Failed { error: code.to_string() }),
                _ => None,
            },
            ListsEnd::Page(write) => Some(write),
            ListsEnd::Put(write) => (!parked).then_some(write),
            ListsEnd::PageFailed { list_id, run } => {
                parked.then(|| ListsWrite::RunFailed { list_id, run, error: verdict.code().unwrap_or("failed").to_string() })
            }
        }
    }
}
