//! A Slack Web API call an app's handler asked for (`Action::SlackApi`): `chat.postMessage`,
//! `chat.update`, `reactions.add`, … with the team's bot token, paced by the method's (or the
//! channel's) rate budget. A call the handler marked `remember(key)` keeps Slack's answer's
//! `{channel, ts}` under that state key with its (fenced) completion; a post marked
//! `in_thread_of(key)` reads that key now, at each attempt, and goes in the remembered message's
//! thread, or top level if it holds none (`crate::state::thread`). A post carries the row's key in
//! its metadata and is read back first when its previous attempt's outcome is unknown
//! (`Job::post_message`); other methods are called as they are.
//!
//! The room has no SQL and no store of its own: the call's answer, when remembered, is kept by the
//! completion's after-write (`kinds::completion::remembered`), and a post's read-back is
//! `kinds::post::read_back`'s, beneath every kind that posts.

#[cfg(target_arch = "wasm32")]
pub(crate) mod job;
