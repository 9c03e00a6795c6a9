//! `examples/tickets`, the ticket desk, end to end: its Workflow step, its Work Objects and a crash
//! in the middle of a step's ending, in workerd against the fake Slack (which keeps each
//! execution's first ending and refuses any later one, revokes the execution's token once the
//! step has ended, keeps what each sharing shows and each click's flexpane, as Slack does).
//!
//! What each test checks is what the workflow and the user see: one ticket and one ending per
//! execution, however Slack delivered it and whatever happened to the runtime; a ticket's link
//! shown as its Work Object, and its flexpane, from the ticket as stored.

use crate::support::slack::envelope;
use crate::support::{eventually, unique, FakeSlack, Reply, Runtime, Settings};
use serde_json::{json, Value};
use slackline_sim::client::{entity_details_requested, fresh_trigger_id, fresh_ts, function_executed, link_shared};
use slackline_sim::fake::UnfurlAt;
use std::sync::OnceLock;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(30);
/// The desk's step (the manifest's `functions.create_ticket`).
const STEP: &str = "create_ticket";
/// Where ticket links live (the manifest's unfurl domain).
const DOMAIN: &str = "tickets.slackline.example";

/// The desk in a runtime of its own, and the channel its `TICKETS_CHANNEL` names. A step's
/// deadline of 3 s: the guard fires within the tests, and must find the step ended.
struct Desk {
    fake: FakeSlack,
    runtime: Runtime,
    channel: String,
}

fn desk() -> &'static Desk {
    static DESK: OnceLock<Desk> = OnceLock::new();
    DESK.get_or_init(|| {
        let (fake, channel) = (FakeSlack::start(), unique("C"));
        let runtime = Runtime::start(Settings::example("tickets", &fake).var("TICKETS_CHANNEL", &channel).var("STEP_DEADLINE_MS", "3000"));
        Desk { fake, runtime, channel }
    })
}

/// A workflow reaching the desk's step for `team`: execution `execution`, a ticket titled `title`.
fn step_event(team: &str, execution: &str, title: &str) -> Value {
    envelope(team, &unique("Ev"), function_executed(STEP, execution, &json!({ "title": title, "priority": "high" })))
}

/// The calls that ended (or tried to end) `execution` at `fake`.
fn endings(fake: &FakeSlack, execution: &str) -> (usize, usize) {
    (fake.calls("functions.completeSuccess", execution).len(), fake.calls("functions.completeError", execution).len())
}

/// The desk's posts at `fake` whose text holds `title`.
fn posts_of(fake: &FakeSlack, channel: &str, title: &str) -> usize {
    fake.posts_in(channel).iter().filter(|m| m.text.contains(title)).count()
}

#[test]
fn a_create_ticket_step_delivered_three_ways_makes_one_ticket_and_completes_once_with_its_outputs() {
    let Desk { fake, runtime, channel } = desk();
    let c = runtime.client();
    let (team, execution, title) = (unique("T"), unique("Fx"), unique("Badge reader "));
    let first = step_event(&team, &execution, &title);
    assert_eq!(c.event(&first).status, 200);
    assert_eq!(c.event_delivery(&first.to_string(), Some("1"), &[]).status, 200, "Slack's retry");
    let mut fresh = first.clone();
    fresh["event_id"] = json!(unique("Ev"));
    assert_eq!(c.event(&fresh).status, 200, "the same execution under a new event id");

    let (method, args) = eventually("the step ended", WAIT, || fake.step_end(&execution));
    assert_eq!(method, "functions.completeSuccess");
    assert_eq!(args["outputs"], json!({ "ticket_id": "TCK-1", "ticket_url": format!("https://{DOMAIN}/TCK-1") }));
    let ending = &fake.calls("functions.completeSuccess", &execution)[0];
    assert_eq!(ending.token(), Some(format!("xwfp-{execution}").as_str()), "sent with the execution's own token");
    let rows = eventually("the rows ended, the guard dropped", WAIT, || {
        let rows = c.all_rows(&team);
        (rows.len() >= 2 && rows.iter().all(|r| r["status"] != "pending")).then_some(rows)
    });
    // The guard, queued once with the execution, was dropped while it waited once the ending had
    // ended the step; the fresh event id queued no second one.
    assert_eq!(rows.len(), 2, "the post and the ending, once each for three deliveries: {rows:?}");
    assert!(rows.iter().all(|r| r["status"] == "done"), "{rows:?}");
    assert_eq!(endings(fake, &execution), (1, 0), "one ending; the guard found the step ended and sent nothing");
    assert_eq!(posts_of(fake, channel, &title), 1, "one ticket posted for three deliveries");
    assert_eq!(c.state_value(&team, "tickets:last"), Some(json!(1)), "one number given out");
    assert_eq!(c.state_value(&team, &format!("step:{execution}")), Some(json!("TCK-1")));
    assert_eq!(c.receipts(&team), 2, "the retry was a duplicate; the fresh event id a receipt of its own");
}

#[test]
fn a_tickets_link_unfurls_as_its_work_object_and_a_click_on_it_opens_its_flexpane() {
    let Desk { fake, runtime, channel } = desk();
    let c = runtime.client();
    let (team, execution, title) = (unique("T"), unique("Fx"), unique("Printer on fire "));
    assert_eq!(c.event(&step_event(&team, &execution, &title)).status, 200, "the ticket is stored with the ack");
    let link = format!("https://{DOMAIN}/TCK-1");

    let (ts, unfurl_id) = (fresh_ts(), unique("Ux"));
    let sharing = link_shared(channel, &ts, std::slice::from_ref(&link), "conversations_history", &unfurl_id);
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), sharing)).status, 200);
    let shown = eventually("the link unfurled", WAIT, || fake.unfurl(&UnfurlAt::Message { channel: channel.clone(), ts: ts.clone() }));
    let task = &shown.entities[0];
    assert_eq!((task["entity_type"].as_str(), task["external_ref"]["id"].as_str()), (Some("slack#/entities/task"), Some("TCK-1")));
    assert_eq!((task["url"].as_str(), task["app_unfurl_url"].as_str()), (Some(link.as_str()), Some(link.as_str())));
    let payload = &task["entity_payload"];
    assert_eq!(payload["attributes"]["title"]["text"].as_str(), Some(format!("TCK-1: {title}").as_str()));
    assert_eq!((payload["fields"]["status"]["value"].as_str(), payload["fields"]["priority"]["value"].as_str()), (Some("Open"), Some("High")));

    let trigger = fresh_trigger_id();
    let click = entity_details_requested("TCK-1", &link, channel, &ts, &trigger);
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), click)).status, 200);
    let flexpane = eventually("the flexpane presented", WAIT, || fake.flexpane(&trigger));
    assert_eq!((flexpane["metadata"]["external_ref"]["id"].as_str(), flexpane["metadata"]["url"].as_str()), (Some("TCK-1"), Some(link.as_str())));
    assert_eq!(flexpane["metadata"]["entity_payload"]["attributes"]["title"]["text"].as_str(), Some(format!("TCK-1: {title}").as_str()));

    let unknown = fresh_trigger_id();
    let click = entity_details_requested("TCK-404", &format!("https://{DOMAIN}/TCK-404"), channel, &ts, &unknown);
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), click)).status, 200);
    let flexpane = eventually("the unknown ticket's flexpane", WAIT, || fake.flexpane(&unknown));
    assert_eq!(flexpane["error"]["status"], "not_found", "{flexpane}");
}

#[test]
fn killed_while_a_steps_completion_is_at_slack_the_restarted_runtime_ends_the_step_exactly_once() {
    let fake = FakeSlack::start();
    let channel = unique("C");
    // A short lease: after the restart the killed attempt's claim runs out in seconds.
    let settings = Settings::example("tickets", &fake).var("TICKETS_CHANNEL", &channel).var("LEASE_MS", "5000").var("ATTEMPT_TIMEOUT_MS", "2000");
    let mut rt = Runtime::start(settings);
    let (team, execution, title) = (unique("T"), unique("Fx"), unique("Payroll export "));
    // Slack ends the step, and its answer never reaches the runtime: it is held, then a 503, long
    // after the kill.
    fake.script("functions.completeSuccess", &execution, vec![Reply::Applied(Box::new(Reply::Delay(Duration::from_secs(20), Box::new(Reply::Status(503)))))]);
    assert_eq!(rt.client().event(&step_event(&team, &execution, &title)).status, 200, "acknowledged: recorded");
    let (method, _) = eventually("Slack ended the step, its answer held", WAIT, || fake.step_end(&execution));
    assert_eq!(method, "functions.completeSuccess");
    rt.kill();
    rt.restart();

    let c = rt.client();
    let ending = eventually("the ending's row done after the restart", WAIT, || {
        c.all_rows(&team).into_iter().find(|r| r["idem_key"].as_str().is_some_and(|k| k.ends_with(":end")) && r["status"] == "done")
    });
    assert_eq!(ending["attempts"].as_i64(), Some(2), "performed again after the restart: {ending}");
    let calls = fake.calls("functions.completeSuccess", &execution);
    assert_eq!(calls.len(), 2, "the lost answer's call, and one after the restart");
    assert_eq!(calls[1].answer.as_ref().map(|a| a["error"].clone()), Some(json!("token_revoked")), "refused: the step had ended, its token with it");
    let (method, args) = fake.step_end(&execution).expect("ended");
    assert_eq!((method.as_str(), &args["outputs"]["ticket_id"]), ("functions.completeSuccess", &json!("TCK-1")), "its first ending stands");
    assert_eq!(endings(&fake, &execution).1, 0, "never failed");
    eventually("the ticket's post delivered", WAIT, || (posts_of(&fake, &channel, &title) > 0).then_some(()));
    assert_eq!(posts_of(&fake, &channel, &title), 1, "one ticket posted");
    assert_eq!(c.state_value(&team, &format!("step:{execution}")), Some(json!("TCK-1")));
    assert!(c.rows(&team, "parked").is_empty(), "{:?}", c.rows(&team, "parked"));
}

/// The desk names its manifest in `worker!` and sets no `SLACK_BOT_SCOPES`: an install asks Slack
/// for exactly the manifest's bot scopes, written once.
#[test]
fn an_install_of_the_desk_asks_for_the_bot_scopes_its_manifest_declares() {
    let Desk { runtime, .. } = desk();
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/tickets/manifest.json")).unwrap()).unwrap();
    let declared: Vec<&str> = manifest["oauth_config"]["scopes"]["bot"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
    let answer = runtime.client().get("/slack/install");
    assert_eq!(answer.status, 302, "{}", answer.body);
    let location = answer.header("location").unwrap().to_string();
    let query = location.split_once('?').unwrap().1;
    let asked = form_urlencoded::parse(query.as_bytes()).find(|(k, _)| k == "scope").map(|(_, v)| v.into_owned());
    assert_eq!(asked.as_deref(), Some(declared.join(",").as_str()), "{location}");
    assert!(declared.contains(&"links:write"), "the desk's own scopes, not slackline's defaults");
}
