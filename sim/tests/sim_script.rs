//! `slackline-sim script` run as a user runs it (the binary), against the fake Slack in-process
//! and a stand-in for slackline (a listener that acknowledges what it gets and keeps it), with
//! no workerd: an `expect` passes only on what was sent for its own run — never on an earlier
//! run's late post against the same fake (issue 52), in a fresh channel or in one both runs name;
//! `expect ack` checks the answer to the step before it; a run's commands share its own channel.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::{json, Value};
use slackline_sim::fake::FakeSlack;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const SECRET: &str = "sim-script-secret";

/// A stand-in for slackline on 127.0.0.1: answers every request 200 with one body, and keeps
/// each request's body.
struct Bot {
    url: String,
    got: Arc<Mutex<Vec<String>>>,
}

impl Bot {
    fn start(answer: &str) -> Bot {
        let server = tiny_http::Server::http("127.0.0.1:0").expect("listen");
        let url = format!("http://{}", server.server_addr().to_ip().expect("an ip address"));
        let (got, answer) = (Arc::new(Mutex::new(Vec::new())), answer.to_string());
        let record = got.clone();
        std::thread::spawn(move || {
            for mut request in server.incoming_requests() {
                let mut body = String::new();
                std::io::Read::read_to_string(request.as_reader(), &mut body).expect("read the body");
                record.lock().unwrap().push(body);
                let _ = request.respond(tiny_http::Response::from_string(answer.clone()));
            }
        });
        Bot { url, got }
    }

    fn received(&self) -> usize {
        self.got.lock().unwrap().len()
    }

    /// The event of the `n`th request (an Events API envelope).
    fn event(&self, n: usize) -> Value {
        let body = self.got.lock().unwrap()[n].clone();
        serde_json::from_str::<Value>(&body).expect("an event envelope")["event"].clone()
    }

    /// A field of the `n`th request's form (a slash command's).
    fn form_field(&self, n: usize, name: &str) -> Option<String> {
        let body = self.got.lock().unwrap()[n].clone();
        form_urlencoded::parse(body.as_bytes()).find(|(k, _)| k == name).map(|(_, v)| v.into_owned())
    }
}

/// A flow file named `name` holding `text`, in a directory of its own.
fn flow(name: &str, text: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let dir = std::env::temp_dir().join(format!("slackline-sim-script-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    file
}

/// Runs `slackline-sim script FILE` against `bot` and `fake`: exit code, stdout, stderr.
fn script(file: &Path, bot_url: &str, sim: &str, timeout: &str) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_slackline-sim"))
        .args(["script", file.to_str().unwrap(), "--url", bot_url, "--sim", sim, "--secret", SECRET, "--timeout", timeout])
        .output()
        .expect("run slackline-sim");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

/// Posts to the fake Slack what slackline would, answered before it returns.
fn post(fake: &FakeSlack, args: Value) {
    ureq::post(&format!("{}/chat.postMessage", fake.api_url())).set("authorization", "Bearer xoxb-sim").send_json(args).expect("the fake answers");
}

#[test]
fn an_expect_never_passes_on_an_earlier_runs_late_post_in_a_fresh_channel_or_one_both_runs_name() {
    for (case, step) in
        [("a fresh channel", "message --text \"close the poll\""), ("a channel both name", "message --channel C0POLL --text \"close the poll\"")]
    {
        let (fake, bot) = (FakeSlack::start(), Bot::start(""));
        let file = flow("poll.sim", &format!("{step}\nexpect chat.postMessage text~\"1 answered, 1 did not\"\n"));
        // Run 1: slackline's summary does not come in time.
        let (code, _, stderr) = script(&file, &bot.url, &fake.base_url(), "1");
        assert_eq!(code, 1, "{case}: {stderr}");
        assert!(stderr.contains("line 2: expected chat.postMessage"), "{case}: {stderr}");
        // Run 2 against the same fake: while it waits, run 1's summary arrives late, in its
        // message's thread; then run 2's own.
        let second = {
            let (file, url, sim) = (file.clone(), bot.url.clone(), fake.base_url());
            std::thread::spawn(move || script(&file, &url, &sim, "20"))
        };
        slackline_sim::eventually("run 2's message reached slackline", Duration::from_secs(20), || (bot.received() == 2).then_some(()));
        let (first, own) = (bot.event(0), bot.event(1));
        post(&fake, json!({"channel": first["channel"], "thread_ts": first["ts"], "text": "1 answered, 1 did not"}));
        post(&fake, json!({"channel": own["channel"], "thread_ts": own["ts"], "text": "1 answered, 1 did not"}));
        let (code, stdout, stderr) = second.join().unwrap();
        assert_eq!(code, 0, "{case}: {stdout}{stderr}");
        let tick = stdout.lines().find(|l| l.contains("2: ✓ chat.postMessage")).unwrap_or_else(|| panic!("{case}: {stdout}"));
        let own_ts = own["ts"].as_str().unwrap();
        assert!(tick.contains(&format!("thread_ts={own_ts}")), "{case}: run 2 passed on its own post, not run 1's: {tick}");
        assert!(!tick.contains("another run's would look the same"), "{case}: its own, told by its ts: {tick}");
    }
}

#[test]
fn expect_ack_checks_the_answer_to_the_step_before_and_a_runs_commands_share_its_channel() {
    let fake = FakeSlack::start();
    let bot = Bot::start(r#"{"response_action":"errors","errors":{"title":"Too short"}}"#);
    let file = flow(
        "ack.sim",
        "submit --callback-id ticket --value title.title=Hi --user U2\nexpect ack response_action=errors body~\"Too short\"\nexpect ack status=200\n\
         command --name /poll --text open\ncommand --name /poll --text close\n",
    );
    let (code, stdout, stderr) = script(&file, &bot.url, &fake.base_url(), "5");
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(stdout.matches("✓ ack status 200").count(), 2, "{stdout}");
    let (first, second) = (bot.form_field(1, "channel_id").unwrap(), bot.form_field(2, "channel_id").unwrap());
    assert!(first.starts_with('C') && first != "C0SIM" && first == second, "one channel of the run's own: {first} {second}");
    let again = Bot::start("");
    assert_eq!(script(&flow("again.sim", "command --name /poll --text open\n"), &again.url, &fake.base_url(), "5").0, 0);
    assert_ne!(again.form_field(0, "channel_id").unwrap(), first, "another run, another channel");

    let file = flow("wrong.sim", "submit --callback-id ticket --value title.title=Hi\nexpect ack response_action=clear\n");
    let (code, stdout, stderr) = script(&file, &bot.url, &fake.base_url(), "5");
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stderr.contains("line 2: expected the ack to hold") && stderr.contains("Too short"), "{stderr}");
}

/// A stand-in for slackline's admin API: one team's pending schedules (`GET …/scheduled`) and its
/// sweep (`POST …/sweep`), which fires the schedules due by the test clock when `fires` (a test
/// build) and nothing otherwise (a production build ignores the clock). Keeps each sweep's clock.
struct Admin {
    url: String,
    clocks: Arc<Mutex<Vec<i64>>>,
}

impl Admin {
    fn start(team: &'static str, due: Vec<i64>, fires: bool) -> Admin {
        let server = tiny_http::Server::http("127.0.0.1:0").expect("listen");
        let url = format!("http://{}", server.server_addr().to_ip().expect("an ip address"));
        let due: Vec<(usize, i64)> = due.into_iter().enumerate().collect();
        let (clocks, kept) = (Arc::new(Mutex::new(Vec::new())), Arc::new(Mutex::new(due)));
        let seen = clocks.clone();
        std::thread::spawn(move || {
            for request in server.incoming_requests() {
                let header = |name: &'static str| request.headers().iter().find(|h| h.field.equiv(name)).map(|h| h.value.as_str().to_string());
                if header("authorization").as_deref() != Some("Bearer adm") {
                    let _ = request.respond(tiny_http::Response::from_string("").with_status_code(401));
                    continue;
                }
                let rows = |due: &[(usize, i64)]| {
                    let rows: Vec<Value> = due
                        .iter()
                        .map(|(id, at)| json!({"id": id, "key": format!("digest:C{id}"), "due_at": at, "every_ms": null, "calendar": "0 9 * * * Europe/Berlin", "scheduled_at": null, "next_attempt_at": at, "deadline_at": null, "attempts": 0, "claimed": 0, "what": "the listener"}))
                        .collect();
                    json!({ "scheduled": rows }).to_string()
                };
                let answer = match (request.method().as_str(), request.url()) {
                    ("GET", path) if path.starts_with(&format!("/admin/teams/{team}/scheduled")) => rows(&kept.lock().unwrap()),
                    ("POST", path) if path == format!("/admin/teams/{team}/sweep") => {
                        let at: i64 = header("x-slackline-test-now").and_then(|v| v.parse().ok()).expect("a test clock");
                        seen.lock().unwrap().push(at);
                        let mut due = kept.lock().unwrap();
                        let fired = if fires { due.iter().filter(|(_, d)| *d <= at).count() } else { 0 };
                        due.retain(|(_, d)| !fires || *d > at);
                        json!({"trigger": "admin", "claimed": fired, "delivered": fired, "retried": 0, "parked": 0, "fenced": 0, "pending": due.len(), "duration_ms": 1}).to_string()
                    }
                    _ => {
                        let _ = request.respond(tiny_http::Response::from_string("").with_status_code(404));
                        continue;
                    }
                };
                let _ = request.respond(tiny_http::Response::from_string(answer));
            }
        });
        Admin { url, clocks }
    }
}

fn advance(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_slackline-sim")).arg("advance").args(args).output().expect("run slackline-sim");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

#[test]
fn advance_sweeps_the_team_with_the_test_clock_and_names_what_fired_or_did_not() {
    // 2026-12-08T08:00:00Z (09:00 in Berlin) and a day later.
    let (nine, next_day) = (1_796_716_800_000_i64, 1_796_716_800_000_i64 + 86_400_000);
    let admin = Admin::start("T1", vec![nine, next_day], true);
    let (code, stdout, stderr) = advance(&["--url", &admin.url, "--team", "T1", "--admin-token", "adm", "--to", "2026-12-08T09:30:00+01:00"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(*admin.clocks.lock().unwrap(), [nine + 30 * 60_000], "one sweep, with the clock asked for");
    assert!(stdout.contains("clock → 2026-12-08T08:30:00Z") && stdout.contains("1 schedule(s) due by then:"), "{stdout}");
    assert!(stdout.contains("digest:C0 due 2026-12-08T08:00:00Z (at 0 9 * * * Europe/Berlin): fired"), "{stdout}");
    assert!(!stdout.contains("digest:C1"), "not due by then: {stdout}");

    // A build that ignores the clock fires nothing: named, exit 1.
    let ignored = Admin::start("T1", vec![nine], false);
    let (code, _, stderr) = advance(&["--url", &ignored.url, "--team", "T1", "--admin-token", "adm", "--to", "2026-12-08T09:00:00Z"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("NOT fired") && stderr.contains("make dev TESTKIT=1"), "{stderr}");
    // A wrong token, and no team.
    let (code, _, stderr) = advance(&["--url", &ignored.url, "--team", "T1", "--admin-token", "nope", "--by", "1h"]);
    assert!(code == 1 && stderr.contains("refused the admin token"), "{stderr}");
    let (code, _, stderr) = advance(&["--url", &ignored.url, "--admin-token", "adm", "--by", "1h"]);
    assert!(code == 2 && stderr.contains("advance needs --team"), "{stderr}");
}

#[test]
fn a_scripts_advances_add_up_and_run_for_its_team_with_its_admin_token() {
    let (fake, bot) = (FakeSlack::start(), Bot::start(""));
    let admin = Admin::start("T5", vec![], true);
    // The bot's requests and the admin API at one address, as slackline serves both: the script
    // sends its steps to --url; this test splits them by giving advance its own --url.
    let file = flow("clock.sim", &format!("message --text hi\nadvance --by 24h --url {}\nadvance --by 1d --url {}\n", admin.url, admin.url));
    let out = Command::new(env!("CARGO_BIN_EXE_slackline-sim"))
        .args(["script", file.to_str().unwrap(), "--url", &bot.url, "--sim", &fake.base_url(), "--secret", SECRET, "--team", "T5", "--admin-token", "adm"])
        .output()
        .expect("run slackline-sim");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    let clocks = admin.clocks.lock().unwrap().clone();
    assert_eq!(clocks.len(), 2, "{stdout}");
    assert_eq!(clocks[1] - clocks[0], 86_400_000, "the second counts from where the first left the clock: {stdout}");
    assert!(stdout.contains("nothing was scheduled by then"), "{stdout}");
}
