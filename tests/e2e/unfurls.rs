//! Unfurls and Work Objects, end to end: the tally's ticket links (`tickets.slackline-tally.test`,
//! in the shared runtime) against the fake Slack, which keeps what each sharing shows and each
//! click's flexpane, and refuses a trigger older than 3 s, as Slack does.
//!
//! What each test checks is what the user sees: a link previewed once as its Work Object, in its
//! message or in the composer; a click answered once, with its own trigger, or not at all once the
//! trigger has died.

use crate::support::slack::{envelope, now_ms};
use crate::support::{eventually, shared, unique};
use serde_json::{json, Value};
use slackline::internal::app::tally::TICKETS_DOMAIN;
use slackline_sim::client::{entity_details_requested, fresh_trigger_id, fresh_ts, link_shared};
use slackline_sim::fake::UnfurlAt;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(30);

/// A ticket's link, unique to the test.
fn ticket_link() -> (String, String) {
    let id = unique("T-");
    (format!("https://{TICKETS_DOMAIN}/{id}"), id)
}

/// Waits until `team`'s rows have all ended, and returns them.
fn settled(team: &str) -> Vec<Value> {
    let c = shared().runtime.client();
    eventually(&format!("{team}'s rows ended"), WAIT, || {
        let rows = c.all_rows(team);
        (!rows.is_empty() && rows.iter().all(|r| r["status"] != "pending")).then_some(rows)
    })
}

#[test]
fn a_link_shared_delivered_three_times_unfurls_once_as_its_work_object_in_its_message() {
    let (team, channel, ts, unfurl_id) = (unique("T"), unique("C"), fresh_ts(), unique("Ux"));
    let (link, id) = ticket_link();
    let sharing = envelope(&team, &unique("Ev"), link_shared(&channel, &ts, std::slice::from_ref(&link), "conversations_history", &unfurl_id));
    let c = shared().runtime.client();
    assert_eq!(c.event(&sharing).status, 200);
    assert_eq!(c.event_delivery(&sharing.to_string(), Some("1"), &[]).status, 200, "Slack's retry");
    let mut fresh = sharing.clone();
    fresh["event_id"] = json!(unique("Ev"));
    assert_eq!(c.event(&fresh).status, 200, "the same sharing under a new event id");

    let at = UnfurlAt::Message { channel: channel.clone(), ts: ts.clone() };
    let shown = eventually("the message unfurled", WAIT, || shared().fake.unfurl(&at));
    let entity = &shown.entities[0];
    assert_eq!((entity["entity_type"].as_str(), entity["external_ref"]["id"].as_str()), (Some("slack#/entities/task"), Some(id.as_str())));
    assert_eq!(
        (entity["app_unfurl_url"].as_str(), entity["entity_payload"]["attributes"]["title"]["text"].as_str()),
        (Some(link.as_str()), Some(format!("Ticket {id}").as_str()))
    );
    let rows = settled(&team);
    assert_eq!(rows.len(), 1, "one row for three deliveries: {rows:?}");
    assert_eq!(rows[0]["status"], "done");
    assert_eq!((shared().fake.calls("chat.unfurl", &channel).len(), shown.times), (1, 1), "one chat.unfurl");
}

#[test]
fn a_link_in_the_composer_unfurls_by_its_unfurl_id_and_source() {
    let (team, unfurl_id) = (unique("T"), unique("Ux"));
    let (link, id) = ticket_link();
    let sharing = envelope(&team, &unique("Ev"), link_shared("", "", std::slice::from_ref(&link), "composer", &unfurl_id));
    assert_eq!(shared().runtime.client().event(&sharing).status, 200);
    let at = UnfurlAt::Link { unfurl_id: unfurl_id.clone(), source: "composer".into() };
    let shown = eventually("the composer's link unfurled", WAIT, || shared().fake.unfurl(&at));
    assert_eq!(shown.entities[0]["external_ref"]["id"].as_str(), Some(id.as_str()));
    let call = &shared().fake.calls("chat.unfurl", &unfurl_id)[0];
    assert!(call.field("channel").is_none() && call.field("ts").is_none(), "no message to name: {:?}", call.args);
}

#[test]
fn a_click_on_a_work_object_gets_one_flexpane_with_its_trigger() {
    // The runtime first: the trigger lives 3 s from the click, so the click is made when it can be sent.
    let c = shared().runtime.client();
    let (team, trigger) = (unique("T"), fresh_trigger_id());
    let (link, id) = ticket_link();
    let click = envelope(&team, &unique("Ev"), entity_details_requested(&id, &link, &unique("C"), &fresh_ts(), &trigger));
    assert_eq!(c.event(&click).status, 200);
    assert_eq!(c.event_delivery(&click.to_string(), Some("1"), &[]).status, 200, "Slack's retry");
    let flexpane = eventually("the flexpane presented", WAIT, || shared().fake.flexpane(&trigger));
    assert_eq!((flexpane["trigger_id"].as_str(), flexpane["metadata"]["external_ref"]["id"].as_str()), (Some(trigger.as_str()), Some(id.as_str())));
    assert_eq!(flexpane["metadata"]["url"].as_str(), Some(link.as_str()));
    let rows = settled(&team);
    assert_eq!((rows.len(), rows[0]["status"].as_str()), (1, Some("done")), "{rows:?}");
    assert_eq!(shared().fake.calls("entity.presentDetails", &trigger).len(), 1);
}

#[test]
fn a_flexpane_whose_trigger_died_before_delivery_is_parked_expired_and_never_sent() {
    let c = shared().runtime.client();
    let (team, trigger) = (unique("T"), fresh_trigger_id());
    let (link, id) = ticket_link();
    let click = envelope(&team, &unique("Ev"), entity_details_requested(&id, &link, &unique("C"), &fresh_ts(), &trigger));
    // Queued with no alarm: nothing delivers the row until the test sweeps.
    assert_eq!(c.event_delivery(&click.to_string(), None, &[("x-slackline-test-skip-arm", "1")]).status, 200);
    let pending = c.rows(&team, "pending");
    let deadline = pending[0]["deadline_at"].as_i64().expect("the flexpane carries its trigger's deadline");
    assert!(deadline - pending[0]["created_at"].as_i64().unwrap() <= 3_000, "{pending:?}");
    eventually("the trigger's life has passed", WAIT, || (now_ms() > deadline).then_some(()));
    assert_eq!(c.admin_post(&format!("/admin/teams/{team}/sweep")).status, 200);
    let rows = settled(&team);
    assert_eq!((rows[0]["status"].as_str(), rows[0]["reason"].as_str()), (Some("parked"), Some("expired")), "{rows:?}");
    assert!(shared().fake.calls("entity.presentDetails", &trigger).is_empty(), "never sent with a dead trigger");
}
