//! Operations, end to end in workerd: every admin route (and its auth failures), bulk redrive with
//! its dry run, the alert signals in the logs, the log recipes of docs/operations.md, and the
//! dead-letter page driven in a real headless Chromium.

use crate::support;

use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;
use support::slack::{envelope, mention};
use support::{eventually, shared, unique, Client, FakeSlack, Reply, Runtime, Settings, ADMIN_TOKEN};

const WAIT: Duration = Duration::from_secs(30);

/// Sends `n` mentions in `team` whose posts fail with `error`, and waits until they are parked.
fn park(c: &Client, fake: &FakeSlack, team: &str, n: usize, error: &'static str) -> Vec<Value> {
    let channel = unique("C");
    fake.script("chat.postMessage", &channel, vec![Reply::Error(error); n]);
    for i in 0..n {
        assert_eq!(c.event(&envelope(team, &unique("Ev"), mention(&channel, &format!("5.{i}"), "park me"))).status, 200);
    }
    // Counted by this call's reason: rows parked by an earlier call must not end the wait early.
    eventually(&format!("{n} rows parked as {error}"), WAIT, || {
        let rows = c.rows(team, "parked");
        (rows.iter().filter(|r| r["reason"] == error).count() >= n).then_some(rows)
    })
}

#[test]
fn admin_routes_refuse_missing_and_wrong_tokens() {
    let c = shared().client();
    let team = unique("T");
    let routes = [
        ("GET", "/admin/teams".to_string()),
        ("GET", format!("/admin/teams/{team}/stats")),
        ("GET", format!("/admin/teams/{team}/outbox?status=parked")),
        ("GET", format!("/admin/teams/{team}/outbox/1")),
        ("POST", format!("/admin/teams/{team}/outbox/1/redrive")),
        ("DELETE", format!("/admin/teams/{team}/outbox/1")),
        ("POST", format!("/admin/teams/{team}/sweep")),
        ("POST", format!("/admin/teams/{team}/redrive")),
    ];
    for (method, path) in &routes {
        // Each route from its own client address: 24 wrong tokens from one would lock it out.
        let client = unique("ip-");
        for auth in [None, Some("Bearer wrong"), Some("Basic abc"), Some(ADMIN_TOKEN)] {
            let mut headers = vec![("x-slackline-test-client-ip", client.as_str())];
            if let Some(a) = auth {
                headers.push(("authorization", a));
            }
            let a = if *method == "GET" { c.get_with(path, &headers) } else { c.post_raw(path, &headers, b"") };
            if *method == "GET" || *method == "POST" {
                assert_eq!(a.status, 401, "{method} {path} with {auth:?}: {}", a.body);
            }
            assert!(!a.body.contains(ADMIN_TOKEN));
        }
    }
    assert_eq!(c.admin_get(&format!("/admin/teams/{team}/nothing")).status, 404);
    assert_eq!(c.admin_get("/admin/teams/bad%20team/stats").status, 400);
}

#[test]
fn without_their_tokens_the_admin_api_and_the_records_api_are_off() {
    let fake = FakeSlack::start();
    let rt = Runtime::start(Settings::new("noadmin", &fake).without("ADMIN_TOKEN").without("API_TOKEN"));
    let c = rt.client();
    assert_eq!(c.api("PUT", "/api/teams/T1/lists/F1", Some(&json!({"key_column": "ColK", "columns": {}}))).status, 404);
    assert_eq!(c.api("GET", "/api/teams/T1/lists/F1/records/r1", None).status, 404);
    assert_eq!(c.admin_get("/admin/teams").status, 404);
    assert_eq!(c.get("/admin/teams/T1").status, 404);
    assert_eq!(c.admin_post("/admin/teams/T1/sweep").status, 404);
}

#[test]
fn stats_rows_paging_history_and_sweep_answer_for_one_team() {
    let s = shared();
    let c = s.client();
    let team = unique("T");
    let parked = park(&c, &s.fake, &team, 5, "channel_not_found");
    let stats = c.stats(&team);
    assert_eq!(stats["team"], team);
    assert_eq!(stats["pending"], 0);
    assert_eq!(stats["parked_by_reason"][0]["reason"], "channel_not_found");
    assert_eq!(stats["parked_by_reason"][0]["n"], 5);
    assert!(stats["last_sweep"]["at"].as_i64().is_some());
    assert_eq!(stats["failing_targets"][0]["target"], "chat.postMessage");

    let mut seen = vec![];
    let mut path = format!("/admin/teams/{team}/outbox?status=parked&limit=2");
    loop {
        let page = c.admin_get(&path).json();
        seen.extend(page["rows"].as_array().unwrap().iter().map(|r| r["id"].as_i64().unwrap()));
        match page["next_before"].as_i64() {
            Some(before) => path = format!("/admin/teams/{team}/outbox?status=parked&limit=2&before={before}"),
            None => break,
        }
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 5, "paging visits every row once: {seen:?}");
    assert_eq!(c.admin_get(&format!("/admin/teams/{team}/outbox?status=leased")).status, 400);

    let one = c.row(&team, parked[0]["id"].as_i64().unwrap());
    assert_eq!(one["attempts_log"][0]["outcome"], "parked");
    assert_eq!(one["attempts_log"][0]["detail"], "channel_not_found");
    assert_eq!(c.admin_get(&format!("/admin/teams/{team}/outbox/999999")).status, 404);

    let report = c.admin_post(&format!("/admin/teams/{team}/sweep")).json();
    assert_eq!(report["trigger"], "admin");
    assert_eq!(report["claimed"], 0);

    let teams = c.admin_get("/admin/teams").json();
    assert!(teams["teams"].as_array().unwrap().iter().any(|t| t["team_key"] == team), "the directory lists the team");
}

#[test]
fn bulk_redrive_counts_first_then_redrives_by_reason_and_window() {
    let s = shared();
    let c = s.client();
    let team = unique("T");
    park(&c, &s.fake, &team, 3, "not_in_channel");
    park(&c, &s.fake, &team, 2, "is_archived");
    let base = format!("/admin/teams/{team}/redrive?reason=not_in_channel&since=0");
    let dry = c.admin_post(&base).json();
    assert_eq!(dry["dry_run"], true);
    assert_eq!(dry["matching"], 3);
    assert_eq!(c.rows(&team, "parked").len(), 5, "a dry run changes nothing");
    let wrong = c.admin_post(&format!("{base}&dry_run=false&expect=2"));
    assert_eq!(wrong.status, 409);
    assert_eq!(wrong.json()["matching"], 3);
    let none = c.admin_post(&format!("/admin/teams/{team}/redrive?reason=not_in_channel&since=0&until=1")).json();
    assert_eq!(none["matching"], 0, "the time window applies");

    let done = c.admin_post(&format!("{base}&dry_run=false&expect=3")).json();
    assert_eq!(done["redriven"], 3);
    assert_eq!(done["remaining"], 0);
    eventually("the redriven rows are delivered", WAIT, || (c.rows(&team, "done").len() == 3).then_some(()));
    let parked = c.rows(&team, "parked");
    assert_eq!(parked.len(), 2);
    assert!(parked.iter().all(|r| r["reason"] == "is_archived"));
}

#[test]
fn alerts_are_logged_for_parked_rows_failing_targets_and_old_pending_rows() {
    let s = shared();
    let c = s.client();
    let team = unique("T");
    park(&c, &s.fake, &team, 5, "msg_too_long");
    let channel = unique("C");
    // Two 429s in a row: the sweep after the first finds the row still pending, over 1 s old
    // (the test runtimes set ALERT_PENDING_AGE_MS=1000).
    s.fake.script("chat.postMessage", &channel, vec![Reply::RateLimited(2), Reply::RateLimited(1)]);
    c.event(&envelope(&team, &unique("Ev"), mention(&channel, "6.1", "wait")));
    s.fake.wait_calls("chat.postMessage", &channel, 3, WAIT);
    let alerts = |kind: &str| -> Vec<Value> { s.runtime.log_lines().into_iter().filter(|l| l["team"] == team && l["alert"] == kind).collect() };
    let parked = eventually("row_parked alerts", WAIT, || (alerts("row_parked").len() >= 5).then(|| alerts("row_parked")));
    assert_eq!(parked[0]["reason"], "msg_too_long");
    let failing = eventually("a target_failing alert", WAIT, || alerts("target_failing").into_iter().next());
    assert_eq!(failing["target"], "chat.postMessage");
    assert_eq!(failing["target_failures"], 5);
    let old = eventually("a pending_too_old alert", WAIT, || alerts("pending_too_old").into_iter().next());
    assert!(old["oldest_pending_age_ms"].as_i64().unwrap() > 1000);
}

fn run_recipe(args: &[&str], input: &str) -> Vec<Value> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/logs.sh");
    let mut child = Command::new(script).args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().expect("scripts/logs.sh runs");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "logs.sh {args:?} failed");
    String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn the_log_recipes_follow_one_team_in_the_local_runtime_output() {
    let s = shared();
    let c = s.client();
    let team = unique("T");
    park(&c, &s.fake, &team, 1, "channel_not_found");
    let ok = unique("C");
    c.event(&envelope(&team, &unique("Ev"), mention(&ok, "7.1", "fine")));
    s.fake.wait_calls("chat.postMessage", &ok, 1, WAIT);
    let log = eventually("the sweep lines are printed", WAIT, || {
        let text = s.runtime.log_text();
        (text.matches(&format!("\"team\":\"{team}\"")).count() >= 6).then_some(text)
    });
    let requests = run_recipe(&["requests", &team], &log);
    assert_eq!(requests.len(), 2);
    assert!(requests.iter().all(|r| r["verdict"] == "new"));
    let sweeps = run_recipe(&["sweeps", &team], &log);
    assert!(!sweeps.is_empty() && sweeps.iter().all(|s| s.get("claimed").is_some()));
    let failures = run_recipe(&["failures", &team], &log);
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0]["error"], "channel_not_found");
    let alerts = run_recipe(&["alerts", &team], &log);
    assert!(alerts.iter().any(|a| a["alert"] == "row_parked"));
    // The same recipe over `wrangler tail --format json` events, whose logs carry our lines.
    let tail: String = log
        .lines()
        .filter_map(|l| Some(&l[l.find('{')?..=l.rfind('}')?]))
        .map(|line| serde_json::to_string_pretty(&json!({"outcome": "ok", "logs": [{"message": [line], "level": "log"}]})).unwrap() + "\n")
        .collect();
    assert_eq!(run_recipe(&["--tail", "failures", &team], &tail), failures);
}

#[test]
fn the_dead_letter_page_signs_in_shows_a_parked_row_and_redrives_it_in_chromium() {
    let s = shared();
    let c = s.client();
    let team = unique("T");
    let parked = park(&c, &s.fake, &team, 1, "not_in_channel");
    let channel = parked[0]["payload"].as_str().unwrap().split("\"channel\":\"").nth(1).unwrap().split('"').next().unwrap().to_string();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/dead_letter.mjs");
    let node = concat!(env!("CARGO_MANIFEST_DIR"), "/node_modules/.bin/node");
    let out = Command::new(node).arg(script).args([&s.runtime.base_url(), &team, ADMIN_TOKEN, "not_in_channel"]).output().expect("node runs");
    assert!(out.status.success(), "browser test failed:\n{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    s.fake.wait_calls("chat.postMessage", &channel, 2, WAIT);
    eventually("the redriven row is delivered", WAIT, || (c.rows(&team, "done").len() == 1).then_some(()));
}

#[test]
fn a_cookie_session_cannot_act_without_the_page_header() {
    let c = shared().client();
    let team = unique("T");
    let login = c.post_raw(
        "/admin/login",
        &[("content-type", "application/x-www-form-urlencoded")],
        format!("token={ADMIN_TOKEN}&next=/admin/teams/{team}").as_bytes(),
    );
    assert_eq!(login.status, 303);
    let cookie = login.header("set-cookie").unwrap().split(';').next().unwrap().to_string();
    assert!(login.header("set-cookie").unwrap().contains("HttpOnly"));
    assert_eq!(c.get_with(&format!("/admin/teams/{team}/stats"), &[("cookie", &cookie)]).status, 200);
    assert_eq!(c.post_raw(&format!("/admin/teams/{team}/sweep"), &[("cookie", &cookie)], b"").status, 401);
    assert_eq!(c.post_raw(&format!("/admin/teams/{team}/sweep"), &[("cookie", &cookie), ("x-slackline-admin", "1")], b"").status, 200);
    let bad = c.post_raw("/admin/login", &[("content-type", "application/x-www-form-urlencoded")], b"token=nope&next=/admin/teams/T1");
    assert_eq!(bad.status, 401);
    assert!(bad.header("set-cookie").is_none());
}
