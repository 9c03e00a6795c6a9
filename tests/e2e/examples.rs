//! The example bots, each a crate of `examples/` served from its own `wrangler.toml` in a runtime
//! of its own: they run on the library exactly as a user's bot does.

use crate::support::slack::{command_form, envelope, message_copy, now_ms};
use crate::support::{eventually, unique, FakeSlack, Reply, Runtime, Settings};
use serde_json::{json, Value};
use slackline_sim::cli::triage;
use slackline_sim::client::{button_click, fresh_trigger_id};
use std::sync::OnceLock;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(30);
/// The triage bot's default reminder delay.
const REMIND_MS: i64 = 30 * 60 * 1000;

/// `examples/hello`: Bolt's getting-started app.
fn hello() -> &'static (FakeSlack, Runtime) {
    static HELLO: OnceLock<(FakeSlack, Runtime)> = OnceLock::new();
    HELLO.get_or_init(|| {
        let fake = FakeSlack::start();
        let settings = Settings::example("hello", &fake);
        (fake, Runtime::start(settings))
    })
}

/// `examples/triage`, and the channel its `TRIAGE_CHANNEL` names (unique to this run).
struct Triage {
    fake: FakeSlack,
    runtime: Runtime,
    channel: String,
}

fn triage() -> &'static Triage {
    static TRIAGE: OnceLock<Triage> = OnceLock::new();
    TRIAGE.get_or_init(|| {
        let fake = FakeSlack::start();
        let channel = unique("C");
        let runtime = Runtime::start(Settings::example("triage", &fake).var("TRIAGE_CHANNEL", &channel));
        Triage { fake, runtime, channel }
    })
}

/// A submission of the incident modal by `user` of `team`: `title` typed, SEV1 picked.
fn incident_submission(team: &str, user: &str, title: &str) -> Value {
    triage::incident_submission(team, user, title, "sev1")
}

#[test]
fn bolts_getting_started_app_greets_hello_with_a_button_and_answers_its_click_in_the_thread() {
    let (fake, rt) = hello();
    let c = rt.client();
    let (team, channel) = (unique("T"), unique("C"));
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), message_copy(&channel, "8.1", "hello there"))).status, 200);
    let greeting = fake.wait_calls("chat.postMessage", &channel, 1, WAIT)[0].clone();
    assert_eq!(greeting.field("text"), Some("Hey there <@U1>!"));
    let args = greeting.json.clone().unwrap();
    assert_eq!(args["blocks"][0]["accessory"]["action_id"], "button_click");
    assert!(greeting.field("thread_ts").is_none(), "the greeting is a message in the channel");

    let click = json!({
        "type": "block_actions", "trigger_id": format!("{}.1.x", unique("")), "team": {"id": team}, "user": {"id": "U1", "team_id": team},
        "container": {"type": "message", "channel_id": channel, "message_ts": "8.2"}, "message": {"ts": "8.2"},
        "actions": [{"action_id": "button_click", "block_id": "b", "type": "button"}],
    });
    assert_eq!(c.interaction(&click).status, 200);
    let answers = fake.wait_calls("chat.postMessage", &channel, 2, WAIT);
    let answer = answers.iter().find(|p| p.field("text") == Some("<@U1> clicked the button")).expect("the click's answer");
    assert_eq!(answer.field("thread_ts"), Some("8.2"), "answered in the clicked message's thread");
    eventually("both rows delivered", WAIT, || (c.rows(&team, "done").len() == 2).then_some(()));
}

#[test]
fn the_incident_command_is_acked_empty_and_slack_receives_views_open_with_the_modal_in_time() {
    let t = triage();
    let c = t.runtime.client();
    let (team, user, trigger) = (unique("T"), unique("U"), fresh_trigger_id());
    let a = c.post_signed("/slack/commands", "application/x-www-form-urlencoded", command_form(&team, "/incident", &user, &trigger).as_bytes());
    assert_eq!((a.status, a.body.as_str()), (200, ""), "an empty 200");
    let opened = t.fake.wait_calls("views.open", &trigger, 1, WAIT)[0].clone();
    let view = &opened.json.clone().expect("a JSON body")["view"];
    assert_eq!(view["callback_id"], "incident");
    let blocks: Vec<&str> = view["blocks"].as_array().expect("blocks").iter().filter_map(|b| b["block_id"].as_str()).collect();
    assert_eq!(blocks, ["title", "severity"]);
    // The fake refuses a trigger_id older than 3 s (expired_trigger_id parks the row): done means in time.
    eventually("the views.open row done", WAIT, || (c.rows(&team, "done").len() == 1).then_some(()));
    assert!(c.rows(&team, "parked").is_empty());
}

#[test]
fn a_submission_with_a_blank_title_gets_exactly_the_errors_body_and_records_nothing_else() {
    let t = triage();
    let c = t.runtime.client();
    let (team, user) = (unique("T"), unique("U"));
    let a = c.interaction(&incident_submission(&team, &user, "   "));
    assert_eq!(a.status, 200);
    assert_eq!(a.json(), json!({"response_action": "errors", "errors": {"title": "Say what is wrong"}}));
    // Rows are committed before the ack: none now is none ever. The receipt is the only record.
    assert_eq!(c.receipts(&team), 1, "the submission itself is recorded");
    assert!(c.all_rows(&team).is_empty(), "no outbox row: {:?}", c.all_rows(&team));
    let swept = c.admin_post(&format!("/admin/teams/{team}/sweep"));
    assert_eq!(swept.status, 200, "{}", swept.body);
    assert!(t.fake.calls("chat.postMessage", &user).is_empty(), "nothing posted");
}

#[test]
fn a_valid_submission_is_announced_in_the_triage_channel_and_its_acknowledge_click_answered_in_the_thread() {
    let t = triage();
    let c = t.runtime.client();
    let (team, user, title) = (unique("T"), unique("U"), unique("Checkout fails "));
    let a = c.interaction(&incident_submission(&team, &user, &title));
    assert_eq!((a.status, a.body.as_str()), (200, ""), "the modal closes");
    let announced = t.fake.wait_calls("chat.postMessage", &title, 1, WAIT)[0].clone();
    assert_eq!(announced.field("channel"), Some(t.channel.as_str()), "posted in TRIAGE_CHANNEL");
    assert_eq!(announced.field("text"), Some(format!("Incident (SEV1): {title}, reported by <@{user}>").as_str()));
    let button = &announced.json.clone().expect("a JSON body")["blocks"][2]["elements"][0];
    assert_eq!((button["action_id"].as_str(), button["text"]["text"].as_str()), (Some("incident_acknowledge"), Some("Acknowledge")));

    let (clicker, ts) = (unique("U"), "9.1");
    let click = json!({
        "type": "block_actions", "trigger_id": fresh_trigger_id(), "team": {"id": team}, "user": {"id": clicker, "team_id": team},
        "container": {"type": "message", "channel_id": t.channel, "message_ts": ts}, "channel": {"id": t.channel}, "message": {"ts": ts},
        "actions": [{"action_id": "incident_acknowledge", "block_id": "b", "type": "button", "value": "sev1"}],
    });
    assert_eq!(c.interaction(&click).status, 200);
    let answer = t.fake.wait_calls("chat.postMessage", &clicker, 1, WAIT)[0].clone();
    assert_eq!(answer.field("text"), Some(format!("<@{clicker}> acknowledged this incident").as_str()));
    assert_eq!((answer.field("channel"), answer.field("thread_ts")), (Some(t.channel.as_str()), Some(ts)), "in the announcement's thread");
    eventually("both rows delivered", WAIT, || (c.rows(&team, "done").len() == 2).then_some(()));
}

/// A click on the announcement's `action_id` button for the incident `id`, by a fresh user.
fn incident_click(team: &str, channel: &str, action_id: &str, id: &str) -> Value {
    button_click(team, &unique("U"), (channel, "9.1"), action_id, id)
}

#[test]
fn resolve_updates_the_remembered_announcement_once_under_a_double_click_and_cancels_the_reminder() {
    let t = triage();
    let c = t.runtime.client();
    let (team, user, title) = (unique("T"), unique("U"), unique("Search is down "));
    assert_eq!(c.interaction(&incident_submission(&team, &user, &title)).status, 200);
    let announced = t.fake.wait_calls("chat.postMessage", &title, 1, WAIT)[0].clone();
    let buttons = announced.json.clone().expect("a JSON body")["blocks"][2]["elements"].clone();
    assert_eq!((buttons[0]["action_id"].as_str(), buttons[1]["action_id"].as_str()), (Some("incident_acknowledge"), Some("incident_resolve")));
    let id = buttons[1]["value"].as_str().expect("the incident id").to_string();
    assert_eq!(c.state_value(&team, &format!("incident:{id}")).expect("the incident stored")["status"], "open");
    let post = eventually("the announcement remembered", WAIT, || c.state_value(&team, &format!("post:{id}")));
    let ts = post["ts"].as_str().expect("Slack's ts").to_string();

    for _ in 0..2 {
        assert_eq!(c.interaction(&incident_click(&team, &t.channel, "incident_resolve", &id)).status, 200);
    }
    let updated = t.fake.wait_calls("chat.update", &title, 1, WAIT)[0].clone();
    assert_eq!((updated.field("channel"), updated.field("ts")), (Some(t.channel.as_str()), Some(ts.as_str())), "the announced message");
    assert_eq!(c.state_value(&team, &format!("incident:{id}")).expect("still stored")["status"], "resolved");
    let reminder = c.all_rows(&team).into_iter().find(|r| r["idem_key"].as_str().is_some_and(|k| k.starts_with(&format!("sched:incident:{id}:remind|"))));
    let reminder = reminder.expect("the reminder row");
    assert_eq!((reminder["status"].as_str(), reminder["reason"].as_str()), (Some("done"), Some("cancelled")));
    // Every row is settled: had the second click queued an update, it would have been delivered by now.
    eventually("the announcement and its update delivered", WAIT, || c.rows(&team, "pending").is_empty().then_some(()));
    assert_eq!(t.fake.calls("chat.update", &title).len(), 1, "a double click updates once");
}

#[test]
fn an_eyes_reaction_on_the_announcement_assigns_the_reactor_and_the_app_home_lists_the_open_incident() {
    let t = triage();
    let c = t.runtime.client();
    let (team, user, title) = (unique("T"), unique("U"), unique("Login is flaky "));
    assert_eq!(c.interaction(&incident_submission(&team, &user, &title)).status, 200);
    let announced = t.fake.wait_calls("chat.postMessage", &title, 1, WAIT)[0].clone();
    let id = announced.json.clone().expect("a JSON body")["blocks"][2]["elements"][0]["value"].as_str().expect("the id").to_string();
    let post = eventually("the announcement remembered", WAIT, || c.state_value(&team, &format!("post:{id}")));
    let ts = post["ts"].as_str().expect("Slack's ts").to_string();

    let reactor = unique("U");
    let reaction =
        json!({"type": "reaction_added", "user": reactor, "reaction": "eyes", "item": {"type": "message", "channel": t.channel, "ts": ts}, "event_ts": "9.9"});
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), reaction)).status, 200);
    let updated = t.fake.wait_calls("chat.update", &title, 1, WAIT)[0].clone();
    assert_eq!(updated.field("ts"), Some(ts.as_str()));
    assert!(updated.body.contains(&format!("assigned to <@{reactor}>")), "{}", updated.body);
    assert_eq!(c.state_value(&team, &format!("incident:{id}")).expect("stored")["assignee"], json!(reactor));

    let viewer = unique("U");
    let opened = json!({"type": "app_home_opened", "user": viewer, "channel": "D1", "tab": "home"});
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), opened)).status, 200);
    let published = t.fake.wait_calls("views.publish", &viewer, 1, WAIT)[0].clone();
    assert!(published.body.contains(&title), "the open incident is listed: {}", published.body);
}

#[test]
fn killed_while_a_submissions_announcement_is_at_slack_the_restarted_runtime_announces_it_once_and_keeps_its_reminder() {
    let fake = FakeSlack::start();
    let channel = unique("C");
    // A short lease: after the restart the killed attempt's claim runs out in seconds.
    let settings = Settings::example("triage", &fake).var("TRIAGE_CHANNEL", &channel).var("LEASE_MS", "5000").var("ATTEMPT_TIMEOUT_MS", "2000");
    let mut rt = Runtime::start(settings);
    let (team, user, title) = (unique("T"), unique("U"), unique("Payments down "));
    // Slack holds the first announcement and never posts it: it answers 503, long after the kill.
    fake.script("chat.postMessage", &title, vec![Reply::Delay(Duration::from_secs(20), Box::new(Reply::Status(503)))]);
    let before = now_ms();
    assert_eq!(rt.client().interaction(&incident_submission(&team, &user, &title)).status, 200, "acknowledged: recorded");
    let held = fake.wait_calls("chat.postMessage", &title, 1, WAIT)[0].clone();
    rt.kill();
    rt.restart();

    let c = rt.client();
    let id = held.json.expect("a JSON body")["blocks"][2]["elements"][0]["value"].as_str().expect("the incident id").to_string();
    let remembered = eventually("the announcement delivered and remembered after the restart", WAIT, || c.state_value(&team, &format!("post:{id}")));
    assert_eq!(remembered["channel"], json!(channel));
    let posts = fake.calls("chat.postMessage", &title);
    let answers: Vec<Option<&Value>> = posts.iter().map(|p| p.answer.as_ref().map(|a| &a["ok"])).collect();
    assert_eq!(answers, [None, Some(&json!(true))], "the held attempt (never posted: unanswered when killed) and one delivery: announced once");
    assert_eq!(c.receipts(&team), 1);
    let rows = c.all_rows(&team);
    assert_eq!(rows.len(), 2, "one announcement, one reminder: {rows:?}");
    let announcement = rows.iter().find(|r| r["status"] == "done").expect("the announcement's row done");
    assert_eq!(announcement["attempts"].as_i64(), Some(2), "performed again after the restart: {announcement}");
    assert_eq!(c.state_value(&team, &format!("incident:{id}")).expect("the incident stored")["status"], "open");
    let scheduled = c.scheduled(&team);
    assert_eq!(scheduled.len(), 1, "the reminder still scheduled: {scheduled:?}");
    let due = scheduled[0]["due_at"].as_i64().unwrap();
    assert_eq!(scheduled[0]["key"].as_str(), Some(format!("incident:{id}:remind").as_str()));
    assert!((before / 1000 * 1000 + REMIND_MS..=now_ms() + REMIND_MS).contains(&due), "due 30 minutes after the submission: {due}");
}

#[test]
fn slackline_sims_triage_flow_reports_each_step_from_the_modal_to_resolved() {
    let t = triage();
    let args = ["triage", "--url", &t.runtime.base_url(), "--sim", &t.fake.base_url(), "--secret", crate::support::SECRET, "--timeout", "20"];
    let (command, options) = slackline_sim::cli::parse(&args.map(String::from)).expect("a valid command line");
    let report = slackline_sim::cli::run_client(&command, &options).unwrap_or_else(|e| panic!("{e:?}"));
    let ts = report.split("Slack answered ts=").nth(1).and_then(|r| r.lines().next()).expect("the announcement's ts").to_string();
    let steps = [
        "← views.open callback_id=\"incident\"".to_string(),
        format!("← chat.postMessage channel={} text=\"Incident (SEV2): Checkout fails", t.channel),
        "buttons: Acknowledge, Resolve".to_string(),
        format!("thread_ts={ts} text=\"<@U2> acknowledged this incident\""),
        format!("← chat.update channel={} ts={ts}", t.channel),
        "· Acknowledged · assigned to <@U2>\n  buttons: Resolve".to_string(),
        "· Resolved · assigned to <@U2>\n  buttons: none".to_string(),
    ];
    let mut rest = report.as_str();
    for step in &steps {
        let at = rest.find(step.as_str()).unwrap_or_else(|| panic!("{step:?} missing (or out of order) in:\n{report}"));
        rest = &rest[at + step.len()..];
    }
}

/// The text a fake List row's text cell holds, if any.
fn cell_text(row: &crate::support::fake_slack::FakeRow, column_id: &str) -> Option<String> {
    row.cell(column_id)?["rich_text"][0]["elements"][0]["elements"][0]["text"].as_str().map(str::to_string)
}

/// `examples/triage` with `TRIAGE_LIST` set, and that List's id (each test's team maps it, or not).
fn mirrored() -> &'static (Triage, String) {
    static MIRRORED: OnceLock<(Triage, String)> = OnceLock::new();
    MIRRORED.get_or_init(|| {
        let (fake, channel, list) = (FakeSlack::start(), unique("C"), unique("F"));
        let runtime = Runtime::start(Settings::example("triage", &fake).var("TRIAGE_CHANNEL", &channel).var("TRIAGE_LIST", &list));
        (Triage { fake, runtime, channel }, list)
    })
}

#[test]
fn with_triage_list_set_an_incident_is_mirrored_as_one_list_row_that_follows_acknowledge_and_resolve() {
    let (Triage { fake, runtime, channel }, list) = mirrored();
    let c = runtime.client();
    let (team, user, title) = (unique("T"), unique("U"), unique("Disk full "));
    let map = json!({"key_column": "ColKEY", "columns": {
        "title": {"column_id": "ColT", "type": "text"}, "severity": {"column_id": "ColV", "type": "text"},
        "status": {"column_id": "ColS", "type": "text"}, "reporter": {"column_id": "ColR", "type": "user"}, "assignee": {"column_id": "ColA", "type": "user"},
    }});
    assert_eq!(c.api("PUT", &format!("/api/teams/{team}/lists/{list}"), Some(&map)).status, 200);
    assert_eq!(c.interaction(&incident_submission(&team, &user, &title)).status, 200);
    let id = fake.wait_calls("chat.postMessage", &title, 1, WAIT)[0].json.clone().expect("a JSON body")["blocks"][2]["elements"][0]["value"]
        .as_str()
        .expect("the incident id")
        .to_string();
    let row = eventually("the incident's List row", WAIT, || fake.list_rows(list).into_iter().next());
    assert_eq!((cell_text(&row, "ColKEY"), cell_text(&row, "ColT"), cell_text(&row, "ColS")), (Some(id.clone()), Some(title.clone()), Some("open".into())));
    assert_eq!(row.cell("ColR").map(|c| c["user"].clone()), Some(json!([user])));

    for (action, status) in [("incident_acknowledge", "acknowledged"), ("incident_resolve", "resolved")] {
        assert_eq!(c.interaction(&incident_click(&team, channel, action, &id)).status, 200);
        eventually(&format!("the row {status}"), WAIT, || fake.list_rows(list).iter().any(|r| cell_text(r, "ColS").as_deref() == Some(status)).then_some(()));
    }
    // Pending at the end: only the List's first reconciliation pass (an hour away).
    let syncing = |k: &str| k.starts_with(&format!("lists:{list}:{id}:")) || k.contains(":list:");
    eventually("the record's puts and syncs done", WAIT, || {
        c.rows(&team, "pending").iter().all(|r| r["idem_key"].as_str().is_some_and(|k| !syncing(k))).then_some(())
    });
    let rows = fake.list_rows(list);
    assert_eq!(rows.len(), 1, "one row, created once and updated: {rows:?}");
    assert!(rows[0].cell("ColA").is_some_and(|c| c["user"].as_array().is_some_and(|u| u.len() == 1)), "the acknowledger assigned");
    assert_eq!(fake.calls("slackLists.items.create", &id).len(), 1);
    assert!(c.rows(&team, "parked").is_empty(), "{:?}", c.rows(&team, "parked"));
}

#[test]
fn with_triage_list_set_but_no_column_map_the_mirror_is_parked_with_the_reason_and_the_announcement_still_goes_out() {
    let (Triage { fake, runtime, .. }, list) = mirrored();
    let c = runtime.client();
    let (team, title) = (unique("T"), unique("No map "));
    assert_eq!(c.interaction(&incident_submission(&team, &unique("U"), &title)).status, 200);
    fake.wait_calls("chat.postMessage", &title, 1, WAIT);
    let parked = eventually("the mirror parked", WAIT, || c.rows(&team, "parked").into_iter().next());
    assert_eq!(parked["reason"], "not_configured", "{parked}");
    assert!(parked["payload"].as_str().is_some_and(|p| p.contains(list.as_str()) && p.contains("\"put\"")), "the List put, kept for a redrive: {parked}");
    assert!(fake.list_rows(list).iter().all(|r| cell_text(r, "ColT").is_none_or(|t| !t.contains(&title))), "nothing mirrored for it");
}
