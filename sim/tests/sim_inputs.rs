//! `slackline-sim`'s newer inputs (`shortcut`, `submit`, `options`, `react`, `home`, `stop`,
//! `step`, `link`, `entity-details`, `agent-open`, `agent-dm`, `context`) against a real listener: a tiny HTTP server that records what it receives and answers 200 with a JSON
//! body. Each request must be signed with the secret, go to Slack's path, and parse with
//! slackline's own parsers into the payload Slack would send; the report shows the ack's body.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::{json, Value};
use slackline::internal::slack::envelope::{parse_events_body, parse_interaction_form, Dispatch, EventEnvelope, Inbound, Interaction};
use slackline::internal::slack::signature::{verify, SigningSecret};
use slackline::prelude::{AgentContext, Listeners, Prompt, Viewed};
use slackline_sim::cli::{parse, run_client};
use slackline_sim::fake::FakeSlack;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

const SECRET: &str = "sim-inputs-secret";

/// A request the listener received.
#[derive(Debug, Clone)]
struct Received {
    path: String,
    content_type: Option<String>,
    timestamp: Option<String>,
    signature: Option<String>,
    body: Vec<u8>,
}

/// A listener on 127.0.0.1 answering every request 200 with `answer`; `then` runs on each request
/// (after recording it, before answering), e.g. to call the fake Slack as an app would.
struct Listener {
    url: String,
    received: Arc<Mutex<Vec<Received>>>,
}

impl Listener {
    fn start(answer: Value, then: impl Fn() + Send + 'static) -> Listener {
        let server = tiny_http::Server::http("127.0.0.1:0").expect("listen");
        let url = format!("http://{}", server.server_addr().to_ip().expect("an ip address"));
        let received = Arc::new(Mutex::new(Vec::new()));
        let record = received.clone();
        std::thread::spawn(move || {
            for mut request in server.incoming_requests() {
                let header = |name: &'static str| request.headers().iter().find(|h| h.field.equiv(name)).map(|h| h.value.as_str().to_string());
                let (content_type, timestamp, signature) = (header("content-type"), header("x-slack-request-timestamp"), header("x-slack-signature"));
                let mut body = Vec::new();
                std::io::Read::read_to_end(request.as_reader(), &mut body).expect("read the body");
                record.lock().unwrap().push(Received { path: request.url().to_string(), content_type, timestamp, signature, body });
                then();
                let json = tiny_http::Header::from_bytes("content-type", "application/json").unwrap();
                let _ = request.respond(tiny_http::Response::from_string(answer.to_string()).with_header(json));
            }
        });
        Listener { url, received }
    }

    /// The one request received, checked to be signed with [`SECRET`].
    fn only(&self) -> Received {
        let received = self.received.lock().unwrap().clone();
        assert_eq!(received.len(), 1, "{received:?}");
        let r = received.into_iter().next().unwrap();
        let secret = SigningSecret::parse(Some(SECRET.into())).unwrap();
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs() as i64;
        assert!(verify(&secret, r.timestamp.as_deref(), r.signature.as_deref(), &r.body, now).is_ok(), "signed with the secret: {r:?}");
        let wrong = SigningSecret::parse(Some("another-secret".into())).unwrap();
        assert!(verify(&wrong, r.timestamp.as_deref(), r.signature.as_deref(), &r.body, now).is_err());
        r
    }

    fn interaction(&self) -> Interaction {
        let r = self.only();
        assert_eq!((r.path.as_str(), r.content_type.as_deref()), ("/slack/interactivity", Some("application/x-www-form-urlencoded")));
        match parse_interaction_form(&r.body) {
            Ok(Inbound::Dispatch(Dispatch::Interaction(i))) => i,
            other => panic!("{other:?}"),
        }
    }

    fn event(&self) -> EventEnvelope {
        let r = self.only();
        assert_eq!((r.path.as_str(), r.content_type.as_deref()), ("/slack/events", Some("application/json")));
        match parse_events_body(&r.body) {
            Ok(Inbound::Dispatch(Dispatch::Event(e))) => e,
            other => panic!("{other:?}"),
        }
    }
}

/// Runs `line` (a subcommand and its flags) against `url`, with [`SECRET`] and team `TSIM`.
fn sim(line: &str, url: &str) -> String {
    let mut args: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    args.extend(["--url", url, "--secret", SECRET, "--team", "TSIM", "--timeout", "5"].map(str::to_string));
    let (command, options) = parse(&args).unwrap_or_else(|e| panic!("{line}: {}", e.0));
    run_client(&command, &options).unwrap_or_else(|e| panic!("{line}: {e:?}"))
}

#[test]
fn submit_sends_a_view_submission_with_the_values_and_prints_the_response_action() {
    let answer = json!({"response_action": "errors", "errors": {"title": "Too short"}});
    let listener = Listener::start(answer, || {});
    let report = sim("submit --callback-id new_ticket --value title.title_input=Hi --value title.extra=more --value body.text=a=b", &listener.url);
    let i = listener.interaction();
    assert_eq!((i.payload_type.as_str(), i.team_key.as_str(), i.user_id.as_deref()), ("view_submission", "TSIM", Some("U1")));
    let view = &i.raw["view"];
    assert_eq!((view["type"].as_str(), view["callback_id"].as_str()), (Some("modal"), Some("new_ticket")));
    assert!(view["id"].as_str().is_some_and(|id| id.starts_with('V')) && view["hash"].is_string() && view["private_metadata"].is_string());
    let input = |v: &str| json!({"type": "plain_text_input", "value": v});
    assert_eq!(view["state"]["values"], json!({"title": {"title_input": input("Hi"), "extra": input("more")}, "body": {"text": input("a=b")}}));
    assert!(slackline_sim::client::trigger_minted_at(&i.op_key).is_some(), "a simulator trigger id: {}", i.op_key);
    assert!(report.contains("status 200") && report.contains(r#""response_action":"errors""#) && report.contains("Too short"), "{report}");
}

#[test]
fn submit_and_message_act_as_the_user_named_where_slack_puts_the_user() {
    let listener = Listener::start(json!({}), || {});
    sim("submit --callback-id new_ticket --value title.title_input=Hi --user U2", &listener.url);
    let i = listener.interaction();
    assert_eq!((i.user_id.as_deref(), i.raw["user"]["id"].as_str(), i.raw["user"]["team_id"].as_str()), (Some("U2"), Some("U2"), Some("TSIM")));
    let listener = Listener::start(json!({}), || {});
    sim("message --channel C9 --text hi --user U3", &listener.url);
    let e = listener.event();
    assert_eq!((e.event.type_name(), e.raw["user"].as_str(), e.raw["channel"].as_str()), ("message", Some("U3"), Some("C9")));
}

#[test]
fn options_sends_a_block_suggestion_and_prints_the_options() {
    let answer = json!({"options": [{"text": {"type": "plain_text", "text": "Alpha"}, "value": "alpha"}]});
    let listener = Listener::start(answer, || {});
    let report = sim("options --action-id pick_project --query alp", &listener.url);
    let i = listener.interaction();
    assert_eq!((i.payload_type.as_str(), i.team_key.as_str(), i.user_id.as_deref()), ("block_suggestion", "TSIM", Some("U1")));
    assert_eq!((i.raw["action_id"].as_str(), i.raw["block_id"].as_str(), i.raw["value"].as_str()), (Some("pick_project"), Some("sim_block"), Some("alp")));
    assert!(report.contains(r#""options":[{"#) && report.contains("Alpha"), "{report}");
}

#[test]
fn shortcut_sends_a_global_or_a_message_shortcut() {
    let listener = Listener::start(json!({}), || {});
    let report = sim("shortcut --callback-id open_ticket", &listener.url);
    let i = listener.interaction();
    assert_eq!((i.payload_type.as_str(), i.raw["callback_id"].as_str(), i.team_key.as_str()), ("shortcut", Some("open_ticket"), "TSIM"));
    assert!(slackline_sim::client::trigger_minted_at(&i.op_key).is_some(), "{}", i.op_key);
    assert!(report.contains("status 200") && report.contains("body: {}"), "{report}");

    let listener = Listener::start(json!({}), || {});
    sim("shortcut --callback-id file_it --message", &listener.url);
    let i = listener.interaction();
    assert_eq!((i.payload_type.as_str(), i.raw["callback_id"].as_str()), ("message_action", Some("file_it")));
    assert!(i.channel_id.as_deref().is_some_and(|c| c.starts_with('C')), "{:?}", i.raw);
    assert_eq!(i.message_ts.as_deref(), i.raw["message"]["ts"].as_str());
    assert!(i.response_url.as_deref().is_some_and(|u| u.contains("/response/")), "{:?}", i.raw);
    assert!(slackline_sim::client::trigger_minted_at(&i.op_key).is_some());
}

#[test]
fn react_sends_a_reaction_added_on_a_message() {
    let listener = Listener::start(json!({}), || {});
    let report = sim("react --name eyes --channel C9 --ts 1700000000.000100", &listener.url);
    let e = listener.event();
    assert_eq!((e.event.type_name(), e.team_key.as_str(), e.bot_user_id.as_deref()), ("reaction_added", "TSIM", Some("UBOT")));
    assert_eq!((e.raw["type"].as_str(), e.raw["user"].as_str(), e.raw["reaction"].as_str()), (Some("reaction_added"), Some("U1"), Some("eyes")));
    assert_eq!(e.raw["item"], json!({"type": "message", "channel": "C9", "ts": "1700000000.000100"}));
    assert!(e.raw["item_user"].is_string() && e.raw["event_ts"].is_string());
    assert!(report.contains("status 200"), "{report}");
}

#[test]
fn stop_sends_an_agent_session_stopped_that_slackline_reads_as_a_stop_of_that_thread() {
    let listener = Listener::start(json!({}), || {});
    let report = sim("stop --channel D7 --thread 1700000000.000100 --stream-ts 1700000001.000200", &listener.url);
    let e = listener.event();
    assert_eq!(e.event.type_name(), "agent_session_stopped");
    let dispatch = Dispatch::Event(e.clone());
    assert_eq!(dispatch.stops_answer(), Some(("D7", "1700000000.000100")), "the thread whose answer stops");
    assert_eq!((e.raw["user"].as_str(), e.raw["streaming_message_ts"].clone()), (Some("U1"), json!(["1700000001.000200"])));
    assert!(report.contains("status 200"), "{report}");
}

#[test]
fn step_runs_a_workflow_step_that_slackline_reads_with_its_inputs_and_an_execution_token() {
    let listener = Listener::start(json!({}), || {});
    let report = sim("step --callback-id create_ticket --input title=Printer --input priority=high", &listener.url);
    let e = listener.event();
    let step = slackline::internal::kinds::step::StepStarted::from_event(&e.raw).expect("a step");
    assert_eq!((step.callback_id.as_str(), step.inputs["title"].as_str(), step.inputs["priority"].as_str()), ("create_ticket", Some("Printer"), Some("high")));
    assert_eq!(step.token, format!("xwfp-{}", step.execution_id), "a per-execution token");
    assert!(report.contains("status 200") && report.contains(&format!("execution {}", step.execution_id)), "{report}");
}

#[test]
fn link_shares_links_that_slackline_unfurls_in_their_message_or_by_the_composers_unfurl_id() {
    use slackline::internal::kinds::unfurl::{LinkShared, UnfurlTarget};
    let listener = Listener::start(json!({}), || {});
    let report = sim("link --link https://tickets.example.test/T-1 --link https://tickets.example.test:8443/T-2 --channel C7", &listener.url);
    let e = listener.event();
    let links = LinkShared::from_event(&e.raw).expect("a sharing");
    assert_eq!((e.event.type_name(), links.channel.as_str(), links.user.as_str()), ("link_shared", "C7", "U1"));
    assert_eq!(
        links.links.iter().map(|l| (l.url.as_str(), l.domain.as_str())).collect::<Vec<_>>(),
        [("https://tickets.example.test/T-1", "tickets.example.test"), ("https://tickets.example.test:8443/T-2", "tickets.example.test")]
    );
    assert_eq!(UnfurlTarget::of(&links), UnfurlTarget::Message { channel: "C7".into(), ts: links.message_ts.clone() });
    let unfurl_id = links.unfurl_id.clone().expect("an unfurl_id");
    assert!(report.contains("status 200") && report.contains(&format!("unfurl_id {unfurl_id}")) && report.contains("of C7"), "{report}");

    let listener = Listener::start(json!({}), || {});
    let report = sim("link --link https://tickets.example.test/T-3 --source composer", &listener.url);
    let links = LinkShared::from_event(&listener.event().raw).expect("a composer's sharing");
    assert_eq!((links.channel.as_str(), links.in_composer()), ("COMPOSER", true));
    let unfurl_id = links.unfurl_id.clone().unwrap();
    assert_eq!(UnfurlTarget::of(&links), UnfurlTarget::Link { unfurl_id: unfurl_id.clone(), source: "composer".into() });
    assert!(report.contains("in the composer") && report.contains(&unfurl_id), "{report}");
}

#[test]
fn entity_details_clicks_a_work_object_with_a_trigger_the_fake_slack_dates() {
    use slackline::internal::kinds::unfurl::EntityDetailsRequest;
    let listener = Listener::start(json!({}), || {});
    let report = sim("entity-details --entity-url https://tickets.example.test/T-9 --channel C4 --ts 1700000000.000100", &listener.url);
    let e = listener.event();
    let click = EntityDetailsRequest::from_event(&e.raw).expect("a click");
    assert_eq!(
        (e.event.type_name(), click.external_ref.id.as_str(), click.entity_url.as_deref()),
        ("entity_details_requested", "T-9", Some("https://tickets.example.test/T-9"))
    );
    assert_eq!((click.channel.as_deref(), click.message_ts.as_deref(), click.user.as_deref()), (Some("C4"), Some("1700000000.000100"), Some("U1")));
    assert!(slackline_sim::client::trigger_minted_at(&click.trigger_id).is_some(), "a simulator trigger id: {}", click.trigger_id);
    assert!(report.contains("status 200") && report.contains(&format!("trigger_id {}", click.trigger_id)), "{report}");
}

/// An agent on slackline's listener API: what it did with an event the simulator sent — the
/// prompts it pinned (the DM), or the thread and context a message was handed.
fn agent_run(e: &EventEnvelope) -> slackline::testing::Handled {
    let app = Listeners::new()
        .agent_opened(|dm, cx| {
            cx.set_agent_prompts(dm, None, &[Prompt::new("Hi", "Say hi")]);
            Ok(())
        })
        .agent_context_changed(|_, _| Ok(()))
        .agent_message(|_, thread, cx| {
            let viewing = thread.context.channel_id().unwrap_or("nothing");
            cx.reply(&format!("{} {} {viewing}", thread.user_id, thread.thread_ts));
            Ok(())
        });
    slackline::testing::Team::new().handle(&app, &Dispatch::Event(e.clone()))
}

#[test]
fn agent_open_sends_the_messages_tab_s_app_home_opened_that_agent_opened_takes() {
    let listener = Listener::start(json!({}), || {});
    let report = sim("agent-open --user U5", &listener.url);
    let e = listener.event();
    assert_eq!((e.event.type_name(), e.raw["tab"].as_str(), e.raw["channel"].as_str()), ("app_home_opened", Some("messages"), Some("DU5")));
    let calls = agent_run(&e).calls();
    assert_eq!((calls[0].0.as_str(), calls[0].1["channel_id"].as_str()), ("assistant.threads.setSuggestedPrompts", Some("DU5")));
    assert!(report.contains("status 200"), "{report}");
}

#[test]
fn agent_dm_sends_a_top_level_message_that_roots_its_thread_and_with_thread_a_reply_in_it() {
    let listener = Listener::start(json!({}), || {});
    let report = sim("agent-dm --text hello --dm D77", &listener.url);
    let e = listener.event();
    let ts = e.raw["ts"].as_str().unwrap().to_string();
    assert_eq!((e.raw["channel_type"].as_str(), e.raw["channel"].as_str(), e.raw.get("thread_ts")), (Some("im"), Some("D77"), None));
    assert_eq!(agent_run(&e).calls()[0].1["text"], format!("U1 {ts} nothing"), "a top-level message is its own thread's root");
    assert!(report.contains(&format!("message ts={ts} in D77, thread {ts}")), "{report}");

    let listener = Listener::start(json!({}), || {});
    sim(&format!("agent-dm --text more --dm D77 --thread {ts}"), &listener.url);
    let reply = listener.event();
    assert_ne!(reply.raw["ts"].as_str(), Some(ts.as_str()));
    assert_eq!(agent_run(&reply).calls()[0].1["text"], format!("U1 {ts} nothing"), "a reply continues the thread");
}

#[test]
fn context_sends_an_app_context_changed_that_slackline_reads_typed() {
    let listener = Listener::start(json!({}), || {});
    let report = sim("context --user U5 --channel C9 --canvas F1 --list F2 --message C7:1700000000.000100", &listener.url);
    let e = listener.event();
    assert_eq!((e.event.type_name(), e.raw["user"].as_str(), e.raw["channel"].as_str()), ("app_context_changed", Some("U5"), Some("DU5")));
    let context = AgentContext::from_slack(&e.raw["context"]).expect("a context slackline reads");
    let viewed: Vec<Viewed> = context.entities.iter().map(|c| c.viewed.clone()).collect();
    let message = Viewed::Message { channel_id: "C7".into(), message_ts: "1700000000.000100".into() };
    assert_eq!(viewed, [Viewed::Channel("C9".into()), Viewed::Canvas("F1".into()), Viewed::List("F2".into()), message]);
    assert!(context.entities.iter().all(|c| c.team_id.as_deref() == Some("TSIM")));
    let kept = agent_run(&e).state_writes();
    assert_eq!((kept.len(), kept[0].0.as_str()), (1, "agent:context:DU5:U5"), "kept for the user's next message");
    assert!(report.contains("status 200"), "{report}");

    let listener = Listener::start(json!({}), || {});
    sim("context", &listener.url);
    assert_eq!(AgentContext::from_slack(&listener.event().raw["context"]), Ok(AgentContext::default()), "no flag: nothing viewed");
}

#[test]
fn home_sends_an_app_home_opened_and_waits_for_the_method_asked() {
    // The listener answers like an app that publishes a Home tab: it calls views.publish on the
    // fake Slack before acking; `--wait views.publish` finds and prints that call.
    let fake = FakeSlack::start();
    let api = fake.api_url();
    let listener = Listener::start(json!({}), move || {
        let _ = ureq::post(&format!("{api}/views.publish"))
            .set("authorization", "Bearer xoxb-sim")
            .send_json(json!({"user_id": "U1", "view": {"type": "home", "blocks": []}}));
    });
    let report = sim(&format!("home --sim {} --wait views.publish", fake.base_url()), &listener.url);
    let e = listener.event();
    assert_eq!((e.event.type_name(), e.raw["tab"].as_str(), e.raw["user"].as_str()), ("app_home_opened", Some("home"), Some("U1")));
    assert!(e.raw["channel"].as_str().is_some_and(|c| c.starts_with('D')) && e.raw["event_ts"].is_string(), "{:?}", e.raw);
    assert!(report.contains("status 200") && report.contains("← views.publish"), "{report}");

    // Waiting for a method the app never calls is a failure naming it.
    let listener = Listener::start(json!({}), || {});
    let args: Vec<String> = format!("home --url {} --sim {} --secret {SECRET} --timeout 1 --wait chat.postMessage", listener.url, fake.base_url())
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let (command, options) = parse(&args).unwrap();
    match run_client(&command, &options) {
        Err(slackline_sim::cli::Failure::Unexpected(why)) => assert!(why.contains("no chat.postMessage call"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_binary_prints_the_ack_body() {
    let listener = Listener::start(json!({"response_action": "clear"}), || {});
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_slackline-sim"))
        .args(["submit", "--callback-id", "cb", "--value", "b.a=v", "--url", &listener.url, "--secret", SECRET])
        .output()
        .expect("run slackline-sim");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains(r#"body: {"response_action":"clear"}"#), "{stdout}");
    assert_eq!(listener.interaction().payload_type, "view_submission");
}
