//! The fake Slack's Web API methods, over HTTP, answered as Slack answers them: `unknown_method`
//! for a method it does not implement (unless scripted), `not_authed` without a token, the
//! message's own `ts` from `chat.update`, reactions and views with their state and refusals,
//! expired trigger ids, unfurls and Work Object flexpanes, form bodies as well as JSON ones.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::{json, Value};
use slackline_sim::client::{fresh_trigger_id, trigger_id_minted_at};
use slackline_sim::fake::{FakeSlack, Reply, UnfurlAt};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const TOKEN: &str = "xoxb-fake-web";

fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new().timeout(Duration::from_secs(5)).build()
}

/// The status and JSON body of an answer.
fn answer(result: Result<ureq::Response, ureq::Error>) -> (u16, Value) {
    let response = match result {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("{e}"),
    };
    (response.status(), response.into_json().expect("a JSON body"))
}

/// A JSON call with the bearer token.
fn call(fake: &FakeSlack, method: &str, body: Value) -> Value {
    let (status, body) = answer(agent().post(&format!("{}/{method}", fake.api_url())).set("Authorization", &format!("Bearer {TOKEN}")).send_json(body));
    assert_eq!(status, 200, "{method}: {body}");
    body
}

/// A form call (`application/x-www-form-urlencoded`), as Slack's SDKs send some methods.
fn form(fake: &FakeSlack, method: &str, fields: &[(&str, &str)]) -> Value {
    answer(agent().post(&format!("{}/{method}", fake.api_url())).send_form(fields)).1
}

fn error_of(body: &Value) -> &str {
    assert_eq!(body["ok"], false, "{body}");
    body["error"].as_str().unwrap()
}

fn ok(body: Value) -> Value {
    assert_eq!(body["ok"], true, "{body}");
    body
}

#[test]
fn an_unknown_method_is_unknown_unless_scripted() {
    let fake = FakeSlack::start();
    assert_eq!(error_of(&call(&fake, "chat.postMesage", json!({"channel": "C1", "text": "typo"}))), "unknown_method");
    assert_eq!(error_of(&form(&fake, "no.such.method", &[])), "unknown_method", "with no token either");
    fake.script("users.lookupByEmail", "", vec![Reply::Json(json!({"ok": true, "user": {"id": "U7"}}))]);
    assert_eq!(call(&fake, "users.lookupByEmail", json!({"email": "a@b.c"}))["user"]["id"], "U7");
    assert_eq!(error_of(&call(&fake, "users.lookupByEmail", json!({}))), "unknown_method", "the script ran out");
    for method in slackline_sim::web::METHODS.iter().chain(&slackline_sim::lists::METHODS) {
        assert!(slackline_sim::fake::knows(method), "{method}");
    }
}

#[test]
fn a_call_without_a_token_is_not_authed_and_a_form_token_counts() {
    let fake = FakeSlack::start();
    let url = format!("{}/chat.postMessage", fake.api_url());
    for request in [agent().post(&url), agent().post(&url).set("Authorization", "Bearer "), agent().post(&url).set("Authorization", "Basic eDp5")] {
        assert_eq!(error_of(&answer(request.send_json(json!({"channel": "C1", "text": "hi"}))).1), "not_authed");
    }
    assert_eq!(error_of(&form(&fake, "chat.postMessage", &[("channel", "C1"), ("text", "hi")])), "not_authed");
    assert_eq!(error_of(&form(&fake, "auth.test", &[])), "not_authed");
    assert_eq!(error_of(&form(&fake, "slackLists.items.list", &[("list_id", "F1")])), "not_authed");
    let posted = ok(form(&fake, "chat.postMessage", &[("token", TOKEN), ("channel", "C1"), ("text", "hi")]));
    assert_eq!(posted["channel"], "C1");
    assert_eq!(ok(form(&fake, "auth.test", &[("token", TOKEN)]))["user_id"], "UFAKEBOT");
    let query = answer(agent().post(&format!("{}/auth.test?token={TOKEN}", fake.api_url())).send_string("")).1;
    assert_eq!(ok(query)["team_id"], "TSIM");
    // oauth.v2.access is authenticated by the app's client id and secret, not a bearer token.
    let exchanged = ok(form(&fake, "oauth.v2.access", &[("client_id", "1.2"), ("client_secret", "s"), ("code", "c")]));
    assert_eq!(exchanged["access_token"], "xoxb-sim-token");
    // A List's rows from a form body: the cells JSON-encoded, as Slack's SDKs send them.
    let cell = json!([{"column_id": "Col1", "rich_text": [{"type": "rich_text", "elements": []}]}]).to_string();
    let created = ok(form(&fake, "slackLists.items.create", &[("token", TOKEN), ("list_id", "F1"), ("initial_fields", &cell)]));
    let listed = ok(form(&fake, "slackLists.items.list", &[("token", TOKEN), ("list_id", "F1"), ("limit", "10"), ("archived", "false")]));
    assert_eq!(listed["items"][0]["id"], created["item"]["id"]);
    // The recorded call has the form's arguments.
    let recorded = fake.calls("chat.postMessage", "text=hi");
    assert_eq!(recorded.last().unwrap().field("channel"), Some("C1"));
}

#[test]
fn chat_methods_answer_as_slack_does() {
    let fake = FakeSlack::start();
    let first = ok(call(&fake, "chat.postMessage", json!({"channel": "C1", "text": "one", "thread_ts": "1.2"})));
    let second = ok(call(&fake, "chat.postMessage", json!({"channel": "C1", "text": "two"})));
    let (ts1, ts2) = (first["ts"].as_str().unwrap(), second["ts"].as_str().unwrap());
    let as_number = |ts: &str| ts.parse::<f64>().unwrap();
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs_f64();
    assert!(as_number(ts1) < as_number(ts2) && (now - as_number(ts2)).abs() < 60.0, "fresh, increasing: {ts1} {ts2}");
    assert_eq!((first["channel"].as_str(), first["message"]["text"].as_str(), first["message"]["thread_ts"].as_str()), (Some("C1"), Some("one"), Some("1.2")));
    assert_eq!(error_of(&call(&fake, "chat.postMessage", json!({"channel": "C1"}))), "no_text");
    assert_eq!(error_of(&call(&fake, "chat.postMessage", json!({"text": "where"}))), "channel_not_found");

    let updated = ok(call(&fake, "chat.update", json!({"channel": "C1", "ts": ts1, "text": "edited"})));
    assert_eq!(
        (updated["channel"].as_str(), updated["ts"].as_str(), updated["text"].as_str()),
        (Some("C1"), Some(ts1), Some("edited")),
        "the message's own ts"
    );
    assert_eq!(error_of(&call(&fake, "chat.update", json!({"channel": "C1", "text": "which"}))), "message_not_found");
    assert_eq!(error_of(&call(&fake, "chat.update", json!({"channel": "C1", "ts": ts1}))), "no_text");
    let blocks = ok(call(&fake, "chat.update", json!({"channel": "C1", "ts": ts1, "blocks": [{"type": "divider"}]})));
    assert_eq!(blocks["ts"], ts1);
    let deleted = ok(call(&fake, "chat.delete", json!({"channel": "C1", "ts": ts2})));
    assert_eq!((deleted["channel"].as_str(), deleted["ts"].as_str()), (Some("C1"), Some(ts2)));

    let ephemeral = ok(call(&fake, "chat.postEphemeral", json!({"channel": "C1", "user": "U1", "text": "psst"})));
    assert!(ephemeral["message_ts"].as_str().is_some_and(|ts| ts.contains('.')) && ephemeral.get("ts").is_none(), "{ephemeral}");
    let link = ok(call(&fake, "chat.getPermalink", json!({"channel": "C1", "message_ts": "1700000000.000100"})));
    assert!(link["permalink"].as_str().unwrap().ends_with("/archives/C1/p1700000000000100"), "{link}");
    assert_eq!(ok(call(&fake, "conversations.info", json!({"channel": "C1"})))["channel"]["id"], "C1");
    assert_eq!(ok(call(&fake, "users.info", json!({"user": "U1"})))["user"]["id"], "U1");
}

#[test]
fn streams_start_append_and_stop_once() {
    let fake = FakeSlack::start();
    let to_u1 = json!({"channel": "C1", "thread_ts": "1.2", "recipient_user_id": "U1", "recipient_team_id": "T1"});
    let started = ok(call(&fake, "chat.startStream", to_u1));
    let ts = started["ts"].as_str().unwrap();
    let appended = ok(call(&fake, "chat.appendStream", json!({"channel": "C1", "ts": ts, "markdown_text": "Hello, "})));
    assert_eq!(appended["ts"], ts);
    let stopped = ok(call(&fake, "chat.stopStream", json!({"channel": "C1", "ts": ts, "markdown_text": "world"})));
    assert_eq!((stopped["ts"].as_str(), stopped["message"]["text"].as_str()), (Some(ts), Some("Hello, world")));
    assert_eq!(error_of(&call(&fake, "chat.appendStream", json!({"channel": "C1", "ts": ts, "markdown_text": "more"}))), "message_not_in_streaming_state");
    assert_eq!(error_of(&call(&fake, "chat.startStream", json!({"channel": "C1"}))), "message_not_found", "a stream is a thread's reply");
    assert_eq!(error_of(&call(&fake, "chat.appendStream", json!({"channel": "C1", "ts": "9.9", "markdown_text": "x"}))), "message_not_found");
    let streams = fake.streams_in("C1");
    assert_eq!((streams.len(), streams[0].text.as_str(), streams[0].streaming), (1, "Hello, world", false));
}

#[test]
fn sessions_are_created_by_their_first_status_or_a_stream_and_moved_by_stop_stream() {
    let fake = FakeSlack::start();
    let first = json!({"channel_id": "D1", "thread_ts": "1.1", "status": "processing", "title": "Triage", "initiator_user_id": "U1"});
    ok(call(&fake, "agents.sessions.setStatus", first));
    ok(call(&fake, "agents.sessions.setStatus", json!({"channel_id": "D1", "thread_ts": "1.1", "status": "suspended", "title": "ignored"})));
    let session = fake.session("D1", "1.1").expect("created by its first status");
    assert_eq!((session.title.as_deref(), session.initiator_user_id.as_deref(), session.status()), (Some("Triage"), Some("U1"), "suspended"));
    let bad = json!({"channel_id": "D1", "thread_ts": "1.1", "status": "paused"});
    assert_eq!(error_of(&call(&fake, "agents.sessions.setStatus", bad)), "invalid_arguments");
    ok(call(&fake, "agents.sessions.rename", json!({"channel_id": "D1", "thread_ts": "1.1", "title": "Triage: done"})));
    assert_eq!(fake.session("D1", "1.1").unwrap().title.as_deref(), Some("Triage: done"));
    assert_eq!(error_of(&call(&fake, "agents.sessions.rename", json!({"channel_id": "D1", "thread_ts": "9.9", "title": "x"}))), "session_not_found");
    // A stream enrolls its thread (processing) and its stop sets `session_status` (default active).
    let ts = ok(call(&fake, "chat.startStream", json!({"channel": "D2", "thread_ts": "2.2"})))["ts"].as_str().unwrap().to_string();
    assert_eq!(fake.session("D2", "2.2").unwrap().status(), "processing");
    ok(call(&fake, "chat.stopStream", json!({"channel": "D2", "ts": ts, "session_status": "suspended"})));
    assert_eq!(fake.session("D2", "2.2").unwrap().statuses, ["processing", "suspended"]);
    let ts = ok(call(&fake, "chat.startStream", json!({"channel": "D2", "thread_ts": "2.2"})))["ts"].as_str().unwrap().to_string();
    assert_eq!(error_of(&call(&fake, "chat.stopStream", json!({"channel": "D2", "ts": ts, "session_status": "paused"}))), "invalid_arguments");
    ok(call(&fake, "chat.stopStream", json!({"channel": "D2", "ts": ts})));
    assert_eq!(fake.session("D2", "2.2").unwrap().status(), "active");
}

#[test]
fn a_stream_in_a_channel_needs_its_recipient_and_one_in_a_dm_does_not() {
    let fake = FakeSlack::start();
    assert_eq!(error_of(&call(&fake, "chat.startStream", json!({"channel": "C1", "thread_ts": "1.2"}))), "invalid_arguments");
    ok(call(&fake, "chat.startStream", json!({"channel": "D1", "thread_ts": "1.2"})));
}

#[test]
fn a_streaming_message_refuses_updates_and_closes_after_its_lifetime() {
    let fake = FakeSlack::start();
    let ts = ok(call(&fake, "chat.startStream", json!({"channel": "D2", "thread_ts": "1.2", "markdown_text": "Hi"})))["ts"].as_str().unwrap().to_string();
    assert_eq!(error_of(&call(&fake, "chat.update", json!({"channel": "D2", "ts": ts, "text": "Hi!"}))), "streaming_state_conflict");
    fake.set_stream_lifetime(Duration::from_millis(50));
    std::thread::sleep(Duration::from_millis(120));
    assert_eq!(error_of(&call(&fake, "chat.appendStream", json!({"channel": "D2", "ts": ts, "markdown_text": " more"}))), "message_not_in_streaming_state");
    ok(call(&fake, "chat.update", json!({"channel": "D2", "ts": ts, "text": "Hi, finished"})));
    assert_eq!(fake.streams_in("D2")[0].text, "Hi, finished");
}

#[test]
fn a_stream_the_user_stopped_answers_stopped_by_user() {
    let fake = FakeSlack::start();
    let ts = ok(call(&fake, "chat.startStream", json!({"channel": "D3", "thread_ts": "1.2", "markdown_text": "Hi"})))["ts"].as_str().unwrap().to_string();
    assert!(fake.stop_stream_as_user("D3", &ts));
    assert_eq!(error_of(&call(&fake, "chat.appendStream", json!({"channel": "D3", "ts": ts, "markdown_text": " more"}))), "stopped_by_user");
    assert_eq!(error_of(&call(&fake, "chat.stopStream", json!({"channel": "D3", "ts": ts}))), "stopped_by_user");
}

fn task(id: &str, status: &str) -> Value {
    json!({"type": "task_update", "id": id, "title": format!("{id} tool"), "status": status})
}

#[test]
fn streams_take_chunks_a_task_update_changes_its_task_in_place_and_a_plan_has_its_title() {
    let fake = FakeSlack::start();
    let start = json!({"channel": "D5", "thread_ts": "1.2", "task_display_mode": "plan", "chunks": [{"type": "plan_update", "title": "Looking"}, task("a", "in_progress")]});
    let ts = ok(call(&fake, "chat.startStream", start))["ts"].as_str().unwrap().to_string();
    let more = json!({"channel": "D5", "ts": ts, "chunks": [task("a", "complete"), {"type": "markdown_text", "text": "Found "}, task("b", "in_progress")]});
    ok(call(&fake, "chat.appendStream", more));
    // A form body carries the chunks as JSON text.
    let encoded = json!([{"type": "markdown_text", "text": "it."}]).to_string();
    ok(form(&fake, "chat.appendStream", &[("token", TOKEN), ("channel", "D5"), ("ts", &ts), ("chunks", &encoded)]));
    ok(call(&fake, "chat.stopStream", json!({"channel": "D5", "ts": ts, "chunks": [task("b", "error")]})));
    let stream = &fake.streams_in("D5")[0];
    let tasks: Vec<(&str, &str)> = stream.tasks.iter().map(|t| (t.id.as_str(), t.status.as_str())).collect();
    assert_eq!(tasks, [("a", "complete"), ("b", "error")], "one task per id, in the order first shown");
    assert_eq!(
        (stream.text.as_str(), stream.plan_title.as_deref(), stream.task_display_mode.as_str(), stream.chunks),
        ("Found it.", Some("Looking"), "plan", 5)
    );
    let timeline = ok(call(&fake, "chat.startStream", json!({"channel": "D5", "thread_ts": "1.2", "markdown_text": "x"})));
    assert_eq!(fake.streams_in("D5").iter().find(|s| s.ts == timeline["ts"]).unwrap().task_display_mode, "timeline", "the default");
}

#[test]
fn a_chunk_slack_does_not_take_is_refused() {
    let fake = FakeSlack::start();
    let ts = ok(call(&fake, "chat.startStream", json!({"channel": "D6", "thread_ts": "1.2", "markdown_text": "Hi"})))["ts"].as_str().unwrap().to_string();
    let append = |chunks: Value| error_of(&call(&fake, "chat.appendStream", json!({"channel": "D6", "ts": ts, "chunks": chunks}))).to_string();
    assert_eq!(append(json!([task("a", "done")])), "invalid_arguments", "an unknown status");
    assert_eq!(append(json!([{"type": "task_update", "title": "no id", "status": "pending"}])), "invalid_arguments");
    assert_eq!(append(json!([{"type": "poem", "text": "x"}])), "invalid_arguments");
    assert_eq!(append(json!([{"type": "blocks", "blocks": vec![json!({"type": "divider"}); 51]}])), "invalid_arguments", "at most 50 blocks");
    let both = json!({"channel": "D6", "ts": ts, "markdown_text": "x", "chunks": [task("a", "pending")]});
    assert_eq!(error_of(&call(&fake, "chat.appendStream", both)), "cannot_provide_both_markdown_text_and_chunks");
    let mode = json!({"channel": "D6", "thread_ts": "1.2", "markdown_text": "x", "task_display_mode": "kanban"});
    assert_eq!(error_of(&call(&fake, "chat.startStream", mode)), "invalid_arguments");
    assert!(fake.streams_in("D6")[0].streaming, "a refused call changes nothing");
}

#[test]
fn a_stream_past_its_chunk_limit_is_msg_too_long_and_closed_and_text_is_not_counted() {
    let fake = FakeSlack::start();
    assert_eq!(slackline_sim::web::DEFAULT_STREAM_MAX_CHUNKS, 50);
    fake.set_stream_max_chunks(3);
    let ts = ok(call(&fake, "chat.startStream", json!({"channel": "D7", "thread_ts": "1.2", "chunks": [task("a", "in_progress")]})))["ts"]
        .as_str()
        .unwrap()
        .to_string();
    for _ in 0..20 {
        ok(call(&fake, "chat.appendStream", json!({"channel": "D7", "ts": ts, "markdown_text": "text is not counted "})));
    }
    ok(call(&fake, "chat.appendStream", json!({"channel": "D7", "ts": ts, "chunks": [task("a", "complete")]})));
    let over = json!({"channel": "D7", "ts": ts, "chunks": [task("b", "in_progress"), task("c", "in_progress")]});
    assert_eq!(error_of(&call(&fake, "chat.appendStream", over)), "msg_too_long");
    assert_eq!(error_of(&call(&fake, "chat.stopStream", json!({"channel": "D7", "ts": ts}))), "message_not_in_streaming_state", "as reported in the wild");
    let stream = &fake.streams_in("D7")[0];
    assert_eq!((stream.chunks, stream.tasks.len(), stream.streaming), (2, 1, false), "the refused call added nothing");
    let crowded =
        json!({"channel": "D7", "thread_ts": "1.2", "chunks": [task("x", "pending"), task("y", "pending"), task("z", "pending"), task("w", "pending")]});
    assert_eq!(error_of(&call(&fake, "chat.startStream", crowded)), "msg_too_long", "a start past the limit opens nothing");
    assert_eq!(fake.streams_in("D7").len(), 1);
}

#[test]
fn conversations_replies_lists_the_bots_messages_in_a_thread() {
    let fake = FakeSlack::start();
    let posted = ok(call(&fake, "chat.postMessage", json!({"channel": "D4", "thread_ts": "5.5", "text": "first"})));
    let streamed = ok(call(&fake, "chat.startStream", json!({"channel": "D4", "thread_ts": "5.5", "markdown_text": "second"})));
    ok(call(&fake, "chat.postMessage", json!({"channel": "D4", "thread_ts": "6.6", "text": "elsewhere"})));
    let replies = ok(call(&fake, "conversations.replies", json!({"channel": "D4", "ts": "5.5"})));
    let listed: Vec<(&str, &str)> = replies["messages"].as_array().unwrap().iter().map(|m| (m["ts"].as_str().unwrap(), m["text"].as_str().unwrap())).collect();
    assert_eq!(listed, [(posted["ts"].as_str().unwrap(), "first"), (streamed["ts"].as_str().unwrap(), "second")]);
}

#[test]
fn a_reaction_is_added_once_and_removed_once() {
    let fake = FakeSlack::start();
    let add = [("token", TOKEN), ("channel", "C1"), ("timestamp", "1.2"), ("name", "eyes")];
    ok(form(&fake, "reactions.add", &add));
    assert_eq!(error_of(&form(&fake, "reactions.add", &add)), "already_reacted");
    assert_eq!(error_of(&call(&fake, "reactions.add", json!({"channel": "C1", "timestamp": "1.2", "name": ":eyes:"}))), "already_reacted", "colons or not");
    ok(call(&fake, "reactions.add", json!({"channel": "C1", "timestamp": "1.2", "name": "tada"})));
    ok(call(&fake, "reactions.add", json!({"channel": "C2", "timestamp": "1.2", "name": "eyes"})));
    ok(form(&fake, "reactions.remove", &add));
    assert_eq!(error_of(&form(&fake, "reactions.remove", &add)), "no_reaction");
    ok(form(&fake, "reactions.add", &add));
    assert_eq!(error_of(&call(&fake, "reactions.add", json!({"channel": "C1", "name": "eyes"}))), "no_item_specified");
    assert_eq!(error_of(&call(&fake, "reactions.add", json!({"channel": "C1", "timestamp": "1.2"}))), "invalid_name");
    // Slack acted, the answer was lost: the retry finds the reaction there.
    fake.script("reactions.add", "lost", vec![Reply::Applied(Box::new(Reply::Status(503)))]);
    let lost = json!({"channel": "Clost", "timestamp": "1.2", "name": "eyes"});
    let (status, _) =
        answer(agent().post(&format!("{}/reactions.add", fake.api_url())).set("Authorization", &format!("Bearer {TOKEN}")).send_json(lost.clone()));
    assert_eq!(status, 503);
    assert_eq!(error_of(&call(&fake, "reactions.add", lost)), "already_reacted");
    // A scripted refusal adds nothing.
    fake.script("reactions.add", "refused", vec![Reply::Error("ratelimited")]);
    let refused = json!({"channel": "Crefused", "timestamp": "1.2", "name": "eyes"});
    assert_eq!(error_of(&call(&fake, "reactions.add", refused.clone())), "ratelimited");
    ok(call(&fake, "reactions.add", refused));
}

fn modal(callback_id: &str) -> Value {
    json!({"type": "modal", "callback_id": callback_id, "title": {"type": "plain_text", "text": "Hi"}, "blocks": [], "private_metadata": "m"})
}

#[test]
fn views_are_opened_updated_and_published_like_slacks() {
    let fake = FakeSlack::start();
    let opened = ok(call(&fake, "views.open", json!({"trigger_id": fresh_trigger_id(), "view": modal("first")})))["view"].clone();
    let id = opened["id"].as_str().unwrap();
    assert!(id.starts_with('V') && id.len() >= 9 && id.chars().all(|c| c.is_ascii_alphanumeric()), "{id}");
    assert_eq!(
        (opened["team_id"].as_str(), opened["type"].as_str(), opened["callback_id"].as_str(), opened["private_metadata"].as_str()),
        (Some("TSIM"), Some("modal"), Some("first"), Some("m"))
    );
    assert_eq!((opened["state"].clone(), opened["root_view_id"].as_str()), (json!({"values": {}}), Some(id)));
    assert!(opened["hash"].as_str().is_some_and(|h| !h.is_empty()) && opened["bot_id"].is_string() && opened["app_id"].is_string());

    let updated = ok(call(&fake, "views.update", json!({"view_id": id, "hash": opened["hash"], "view": modal("second")})))["view"].clone();
    assert_eq!((updated["id"].as_str(), updated["callback_id"].as_str()), (Some(id), Some("second")));
    assert_ne!(updated["hash"], opened["hash"]);
    assert_eq!(error_of(&call(&fake, "views.update", json!({"view_id": id, "hash": opened["hash"], "view": modal("stale")}))), "hash_conflict");
    assert_eq!(error_of(&call(&fake, "views.update", json!({"view_id": "VNOSUCH", "view": modal("x")}))), "not_found");
    assert_eq!(error_of(&call(&fake, "views.update", json!({"external_id": "nope", "view": modal("x")}))), "not_found");

    // A form body carries the view JSON-encoded; an external_id finds it again, and is unique.
    let mut external = modal("ext");
    external["external_id"] = json!("ext-1");
    let encoded = external.to_string();
    let pushed = ok(form(&fake, "views.push", &[("token", TOKEN), ("trigger_id", "12345.98765.abcd2358fdea"), ("view", &encoded)]));
    let by_external = ok(call(&fake, "views.update", json!({"external_id": "ext-1", "view": external})));
    assert_eq!(by_external["view"]["id"], pushed["view"]["id"]);
    assert_eq!(error_of(&form(&fake, "views.open", &[("token", TOKEN), ("trigger_id", "1.2.3"), ("view", &encoded)])), "duplicate_external_id");
    assert_eq!(error_of(&call(&fake, "views.open", json!({"trigger_id": "1.2.3", "view": {"type": "home"}}))), "invalid_arguments");
    assert_eq!(error_of(&call(&fake, "views.open", json!({"view": modal("no trigger")}))), "invalid_arguments");
    assert_eq!(error_of(&call(&fake, "views.open", json!({"trigger_id": "1.2.3"}))), "invalid_arguments");

    let home = json!({"type": "home", "blocks": []});
    let first = ok(call(&fake, "views.publish", json!({"user_id": "U1", "view": home})))["view"].clone();
    let again = ok(call(&fake, "views.publish", json!({"user_id": "U1", "view": home})))["view"].clone();
    assert_eq!((first["type"].as_str(), again["id"].clone()), (Some("home"), first["id"].clone()), "one Home tab per user");
    assert_ne!(ok(call(&fake, "views.publish", json!({"user_id": "U2", "view": home})))["view"]["id"], first["id"]);
    assert_eq!(error_of(&call(&fake, "views.publish", json!({"view": home}))), "invalid_arguments");
}

#[test]
fn a_trigger_id_older_than_three_seconds_has_expired() {
    let fake = FakeSlack::start();
    let now_ms = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as u64;
    for method in ["views.open", "views.push"] {
        let old = trigger_id_minted_at(now_ms - 3_500);
        assert_eq!(error_of(&call(&fake, method, json!({"trigger_id": old, "view": modal("late")}))), "expired_trigger_id", "{method}");
        let recent = trigger_id_minted_at(now_ms - 1_000);
        ok(call(&fake, method, json!({"trigger_id": recent, "view": modal("in time")})));
        // An id the simulator did not mint cannot be dated: fresh.
        ok(call(&fake, method, json!({"trigger_id": "398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c", "view": modal("theirs")})));
    }
}

#[test]
fn assistant_threads_methods_need_their_thread() {
    let fake = FakeSlack::start();
    ok(call(&fake, "assistant.threads.setStatus", json!({"channel_id": "D1", "thread_ts": "1.2", "status": "is thinking..."})));
    ok(call(&fake, "assistant.threads.setTitle", json!({"channel_id": "D1", "thread_ts": "1.2", "title": "Plans"})));
    ok(call(&fake, "assistant.threads.setSuggestedPrompts", json!({"channel_id": "D1", "thread_ts": "1.2", "prompts": [{"title": "a", "message": "b"}]})));
    assert_eq!(error_of(&call(&fake, "assistant.threads.setTitle", json!({"channel_id": "D1", "thread_ts": "1.2"}))), "invalid_arguments");
    assert_eq!(error_of(&call(&fake, "assistant.threads.setStatus", json!({"thread_ts": "1.2", "status": "x"}))), "channel_not_found");
    assert_eq!(error_of(&call(&fake, "assistant.threads.setStatus", json!({"channel_id": "D1", "status": "x"}))), "message_not_found");
}

#[test]
fn suggested_prompts_without_a_thread_pin_to_the_agent_s_messages_tab() {
    let fake = FakeSlack::start();
    ok(call(&fake, "assistant.threads.setSuggestedPrompts", json!({"channel_id": "D1", "title": "Try", "prompts": [{"title": "a", "message": "b"}]})));
    assert_eq!(error_of(&call(&fake, "assistant.threads.setSuggestedPrompts", json!({"channel_id": "D1"}))), "invalid_arguments");
}

#[test]
fn the_call_log_lists_form_arguments() {
    let fake = FakeSlack::start();
    form(&fake, "reactions.add", &[("token", TOKEN), ("channel", "Clog"), ("timestamp", "1.2"), ("name", "eyes")]);
    let listed: Value = agent().get(&format!("{}/_sim/calls", fake.base_url())).call().unwrap().into_json().unwrap();
    let call = listed.as_array().unwrap().iter().find(|c| c["method"] == "reactions.add").expect("recorded");
    assert_eq!((call["args"]["channel"].as_str(), call["json"].clone()), (Some("Clog"), Value::Null));
}

#[test]
fn a_workflow_step_ends_once_and_a_second_ending_is_not_in_running_state() {
    let fake = FakeSlack::start();
    let done = json!({"function_execution_id": "Fx1", "outputs": {"ticket_id": "TCK-1"}});
    ok(call(&fake, "functions.completeSuccess", done));
    let again = json!({"function_execution_id": "Fx1", "error": "too late"});
    assert_eq!(error_of(&call(&fake, "functions.completeError", again)), "execution_not_in_running_state");
    let (method, args) = fake.step_end("Fx1").expect("ended");
    assert_eq!((method.as_str(), &args["outputs"]["ticket_id"]), ("functions.completeSuccess", &json!("TCK-1")));
    assert_eq!(error_of(&call(&fake, "functions.completeSuccess", json!({"function_execution_id": "Fx2"}))), "invalid_arguments", "outputs are required");
    assert_eq!(error_of(&call(&fake, "functions.completeError", json!({"function_execution_id": "Fx2", "error": ""}))), "invalid_arguments");
    assert!(fake.step_end("Fx2").is_none());
}

#[test]
fn a_steps_own_token_is_revoked_once_the_step_has_ended() {
    let fake = FakeSlack::start();
    let with = |token: &str, method: &str, body: Value| {
        answer(agent().post(&format!("{}/{method}", fake.api_url())).set("Authorization", &format!("Bearer {token}")).send_json(body)).1
    };
    ok(with("xwfp-Fx7", "chat.postMessage", json!({"channel": "C1", "text": "working on it"})));
    ok(with("xwfp-Fx7", "functions.completeSuccess", json!({"function_execution_id": "Fx7", "outputs": {}})));
    assert_eq!(error_of(&with("xwfp-Fx7", "chat.postMessage", json!({"channel": "C1", "text": "late"}))), "token_revoked");
    assert_eq!(error_of(&with("xwfp-Fx7", "functions.completeError", json!({"function_execution_id": "Fx7", "error": "x"}))), "token_revoked");
    ok(with(TOKEN, "chat.postMessage", json!({"channel": "C1", "text": "the bot token lives on"})));
}

/// A Work Object of the link `url`, whole.
fn work_object(url: &str) -> Value {
    json!({
        "app_unfurl_url": url, "url": "https://tickets.example.test/T-1", "external_ref": {"id": "T-1"},
        "entity_type": "slack#/entities/task", "entity_payload": {"attributes": {"title": {"text": "Printer on fire"}}}
    })
}

#[test]
fn an_unfurl_names_its_message_or_its_sharing_and_previews_something_or_is_refused_as_slack_does() {
    let fake = FakeSlack::start();
    let link = "https://tickets.example.test/T-1";
    let refused = [
        (json!({"ts": "1.2", "unfurls": {}}), "missing_channel"),
        (json!({"channel": "C1", "unfurls": {}}), "missing_ts"),
        (json!({"unfurl_id": "U1-1", "unfurls": {}}), "missing_source"),
        (json!({"source": "composer", "unfurls": {}}), "missing_unfurl_id"),
        (json!({"unfurl_id": "U1-1", "source": "elsewhere", "unfurls": {}}), "invalid_source"),
        (json!({"channel": "C1", "ts": "1.2"}), "missing_unfurls"),
        (json!({"channel": "C1", "ts": "1.2", "unfurls": [1]}), "invalid_unfurls_format"),
        (json!({"channel": "C1", "ts": "1.2", "unfurls": {link: "text"}}), "invalid_unfurls_format"),
        (json!({"channel": "C1", "ts": "1.2", "metadata": {"entity_type": "slack#/entities/task"}}), "invalid_metadata_format"),
        (json!({"channel": "C1", "ts": "1.2", "metadata": {"entities": [{"entity_type": "slack#/entities/task", "url": link}]}}), "error_processing_metadata"),
    ];
    for (body, error) in refused {
        assert_eq!(error_of(&call(&fake, "chat.unfurl", body.clone())), error, "{body}");
    }
    let mut no_link = work_object(link);
    no_link.as_object_mut().unwrap().remove("app_unfurl_url");
    let body = json!({"channel": "C1", "ts": "1.2", "metadata": {"entities": [no_link]}});
    assert_eq!(error_of(&call(&fake, "chat.unfurl", body)), "error_processing_metadata", "an unfurl's Work Object names its link");
    assert!(fake.unfurl(&UnfurlAt::Message { channel: "C1".into(), ts: "1.2".into() }).is_none(), "a refusal shows nothing");

    ok(call(&fake, "chat.unfurl", json!({"unfurl_id": "U1-1", "source": "composer", "unfurls": {link: {"blocks": []}}})));
    let composer = fake.unfurl(&UnfurlAt::Link { unfurl_id: "U1-1".into(), source: "composer".into() }).expect("unfurled");
    assert_eq!((composer.unfurls[link].clone(), composer.entities.len(), composer.times), (json!({"blocks": []}), 0, 1));
}

#[test]
fn unfurling_a_message_again_replaces_its_previews_rather_than_adding_more() {
    let fake = FakeSlack::start();
    let link = "https://tickets.example.test/T-1";
    ok(call(&fake, "chat.unfurl", json!({"channel": "C1", "ts": "1.2", "unfurls": {link: {"text": "first"}}, "metadata": {"entities": [work_object(link)]}})));
    let encoded = json!({"entities": [work_object(link)]}).to_string();
    let unfurls = json!({link: {"text": "second"}}).to_string();
    ok(form(&fake, "chat.unfurl", &[("token", TOKEN), ("channel", "C1"), ("ts", "1.2"), ("unfurls", &unfurls), ("metadata", &encoded)]));
    let shown = fake.unfurl(&UnfurlAt::Message { channel: "C1".into(), ts: "1.2".into() }).expect("unfurled");
    assert_eq!((shown.unfurls[link].clone(), shown.entities.len(), shown.times), (json!({"text": "second"}), 1, 2), "one preview per link, two calls");
    assert_eq!(shown.entities[0], work_object(link));
}

#[test]
fn a_flexpane_needs_a_fresh_trigger_of_the_simulators_and_one_answer() {
    let fake = FakeSlack::start();
    let entity =
        json!({"entity_type": "slack#/entities/task", "url": "u", "external_ref": {"id": "T-1"}, "entity_payload": {"attributes": {"title": {"text": "T"}}}});
    let trigger = fresh_trigger_id();
    ok(call(&fake, "entity.presentDetails", json!({"trigger_id": trigger, "metadata": entity})));
    assert_eq!(fake.flexpane(&trigger).expect("presented")["metadata"], entity);
    let now_ms = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as u64;
    for (trigger, why) in [(trigger_id_minted_at(now_ms - 3_500), "expired"), ("1234.5678.abcdef".to_string(), "not the simulator's")] {
        assert_eq!(error_of(&call(&fake, "entity.presentDetails", json!({"trigger_id": trigger, "metadata": entity}))), "invalid_trigger_id", "{why}");
        assert!(fake.flexpane(&trigger).is_none());
    }
    let refused = [
        (json!({"metadata": entity}), "invalid_arguments"),
        (json!({"trigger_id": fresh_trigger_id()}), "invalid_arguments"),
        (json!({"trigger_id": fresh_trigger_id(), "metadata": {"entity_type": "slack#/entities/task"}}), "invalid_metadata"),
        (json!({"trigger_id": fresh_trigger_id(), "error": {"status": "broken"}}), "invalid_arguments"),
        (json!({"trigger_id": fresh_trigger_id(), "user_auth_required": true}), "user_auth_url_missing"),
        (json!({"trigger_id": fresh_trigger_id(), "metadata": entity, "error": {"status": "not_found"}}), "invalid_arguments"),
    ];
    for (body, error) in refused {
        assert_eq!(error_of(&call(&fake, "entity.presentDetails", body.clone())), error, "{body}");
    }
    ok(call(&fake, "entity.presentDetails", json!({"trigger_id": fresh_trigger_id(), "error": {"status": "not_found"}})));
    ok(call(&fake, "entity.presentDetails", json!({"trigger_id": fresh_trigger_id(), "user_auth_required": true, "user_auth_url": "https://a.test/login"})));
}
