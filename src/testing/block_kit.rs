//! The test kit's Block Kit check: every message and view a handler queued (or acked) is held to
//! Slack's limits ([`crate::blocks::limits`]), typed builders and raw JSON alike, and a test whose
//! handler queues one Slack would refuse (`invalid_blocks`: the row would park) fails at
//! [`handle`](super::handle), naming the effect and the path:
//!
//! ```text
//! effect 0 (chat.postMessage): blocks[2].text: 3,012 characters, Slack takes 3,000
//! ```
//!
//! **Why in `handle`.** A bot's own tests call it for every request they drive: the check costs
//! them nothing to write and catches what grows past a limit with real data (a title pasted
//! into a section, a 51st incident listed in a Home tab) before Slack does.

use super::{Handled, Queued};
use crate::blocks::limits::{check_blocks, check_options, check_view, Surface, Violation};
use serde_json::Value;

/// What `args` (a Web API call's, or a `response_url` answer's `{url, body}`) asks Slack to show
/// that it would refuse.
fn violations(q: &Queued) -> Vec<Violation> {
    let message = if q.method == "respond" { &q.args["body"] } else { &q.args };
    let mut found = Vec::new();
    if let Some(view) = message.get("view") {
        found.extend(check_view(view).into_iter().map(|v| Violation { path: format!("view.{}", v.path), ..v }));
    }
    if let Some(blocks) = message.get("blocks") {
        found.extend(check_blocks(blocks, Surface::Message));
    }
    found
}

/// What the ack's body asks Slack to show that it would refuse: a view (`response_action`
/// `update`, `push`) or a `block_suggestion`'s options.
fn ack_violations(ack: &Value) -> Vec<Violation> {
    let mut found: Vec<Violation> = Vec::new();
    if let Some(view) = ack.get("view") {
        found.extend(check_view(view).into_iter().map(|v| Violation { path: format!("view.{}", v.path), ..v }));
    }
    if let Some(options) = ack.get("options") {
        found.extend(check_options(options));
    }
    found
}

/// Every broken Block Kit limit of what `done` queued and acked, each line naming its effect.
pub(super) fn broken(done: &Handled) -> Vec<String> {
    let queued = done.queued();
    let effects = queued.iter().enumerate().flat_map(|(i, q)| violations(q).into_iter().map(move |v| format!("effect {i} ({}): {v}", q.method)));
    let ack = done.ack.iter().flat_map(ack_violations).map(|v| format!("ack: {v}"));
    effects.chain(ack).collect()
}

/// Fails the test if `done` queued or acked Block Kit Slack would refuse.
pub(super) fn assert_valid(done: &Handled) {
    let broken = broken(done);
    assert!(
        broken.is_empty(),
        "Block Kit that Slack would refuse (slackline::testing holds every queued message and view to Slack's limits):\n  {}",
        broken.join("\n  ")
    );
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;
    use crate::testing::{command, handle};
    use serde_json::json;

    const NOTE: Field<kind::Text> = Field::new("note", "note");

    #[test]
    fn the_test_kit_passes_a_valid_message_and_modal() {
        let app = Listeners::new().command("/ok", |_, cx| {
            cx.reply("ok").blocks(vec![Block::section("fine").into()]);
            cx.open_modal(Modal::new("m", "Fine").submit("Go").block(Block::text_input(NOTE, "Note")));
            Ok(())
        });
        assert_eq!(handle(&app, &command("/ok", "")).calls().len(), 2);
    }

    #[test]
    #[should_panic(expected = "effect 1 (chat.postMessage): blocks[0].text: 3,001 characters, Slack takes 3,000")]
    fn the_test_kit_fails_a_test_whose_handler_queues_blocks_slack_would_refuse() {
        let app = Listeners::new().command("/long", |_, cx| {
            cx.reply("fine");
            cx.reply("too long").blocks(json!([{ "type": "section", "text": { "type": "mrkdwn", "text": "x".repeat(3001) } }]));
            Ok(())
        });
        handle(&app, &command("/long", ""));
    }

    #[test]
    #[should_panic(expected = "effect 0 (views.open): view.title: 25 characters, Slack takes 24")]
    fn the_test_kit_fails_a_test_whose_handler_opens_a_modal_slack_would_refuse() {
        let app = Listeners::new().command("/modal", |_, cx| {
            cx.open_modal(Modal::new("m", "t".repeat(25)));
            Ok(())
        });
        handle(&app, &command("/modal", ""));
    }

    #[test]
    #[should_panic(expected = "ack: view.blocks: 101 blocks, Slack takes 100")]
    fn the_test_kit_checks_a_view_in_the_ack_too() {
        let app = Listeners::new().command("/update", |_, cx| {
            cx.ack_update(Modal::new("m", "t").blocks((0..101).map(|_| Block::divider())));
            Ok(())
        });
        handle(&app, &command("/update", ""));
    }
}
