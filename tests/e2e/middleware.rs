//! Middleware end to end on the shared runtime: the tally (`slackline::internal::app::tally`, served beside
//! the echo bot for requests that name it) has a global middleware that drops a message with the
//! word `drop` after queueing a reply and writing a vote. The request is acknowledged and recorded,
//! its `request` line says `ignored` with the middleware's reason, and nothing it queued or wrote
//! is kept.

use crate::support;

use serde_json::Value;
use std::time::Duration;
use support::slack::{envelope, mention};
use support::{eventually, shared, unique};

#[test]
fn a_request_a_middleware_drops_is_recorded_and_ignored_with_its_reason_and_keeps_nothing() {
    let s = shared();
    let c = s.client();
    let (team, channel, event_id) = (unique("T"), unique("C"), unique("Ev"));
    let dropped = envelope(&team, &event_id, mention(&channel, "8.1", "slackline-tally drop"));
    assert_eq!(c.event(&dropped).status, 200, "acknowledged");
    assert_eq!(c.event(&dropped).status, 200, "a duplicate too");
    let line: Value = eventually("the request line", Duration::from_secs(10), || {
        s.runtime.log_lines().into_iter().find(|l| l["kind"] == "request" && l["op_key"] == event_id.as_str())
    });
    assert_eq!((line["verdict"].as_str(), line["reason"].as_str()), (Some("ignored"), Some("tally_dropped")), "{line}");
    assert_eq!(c.receipts(&team), 1, "recorded once");
    assert!(c.all_rows(&team).is_empty(), "the reply the middleware queued is not: {:?}", c.all_rows(&team));
    assert_eq!(c.state_value(&team, "votes:dropped"), None, "nor the vote it wrote");
}
