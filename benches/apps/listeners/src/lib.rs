//! The dispatch benchmark's bot (`BENCH_ONLY=dispatch make bench`): the shipped app's answer to a
//! mention — a threaded reply quoting it, under the same key — written with the listener API
//! instead of `DefaultApp`'s hand-written match, so the interleaved run prices the listener
//! dispatch and nothing else.

use slackline::prelude::Listeners;

/// One listener: a mention gets a threaded reply.
pub fn app() -> Listeners {
    Listeners::new().mention(|m, cx| {
        cx.reply(&format!("Got it, <@{}>: “{}”", m.message.user.as_deref().unwrap_or("there"), m.words()));
        Ok(())
    })
}

slackline::worker!(app);
