//! The reliability suite (see docs/reliability.md): duplicate storms, crashes mid-flow, a faulty
//! Slack, and a corpus of hostile requests — all end to end in workerd, on 127.0.0.1 only, bounded
//! in count and time. Its invariants: every event that got a 200 is delivered at least once;
//! nothing the system can recognise as a duplicate is delivered twice; every row ends `done` or
//! `parked` with the right reason within the attempt policy; bad input stores nothing and the
//! runtime keeps serving.

use crate::support;

use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::slack::{envelope, mention, message_copy, now_secs, sign};
use support::{eventually, shared, unique, FakeSlack, Reply, Runtime, Settings, ADMIN_TOKEN};

/// `make soak` sets `SLACKLINE_SOAK=1`: the same tests, ten times the events and twice the kills.
fn soak() -> bool {
    std::env::var("SLACKLINE_SOAK").is_ok_and(|v| v == "1")
}

#[test]
fn a_duplicate_storm_makes_exactly_one_reply() {
    let s = shared();
    let (team, channel) = (unique("T"), unique("C"));
    let event = envelope(&team, &unique("Ev"), mention(&channel, "11.1", "storm"));
    let body = event.to_string().into_bytes();
    let ts = now_secs().to_string();
    let sig = sign(&ts, &body);
    let headers = [("content-type", "application/json"), ("x-slack-request-timestamp", ts.as_str()), ("x-slack-signature", sig.as_str())];
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..100).map(|_| scope.spawn(|| s.client().post_raw("/slack/events", &headers, &body).status)).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    let c = s.client();
    for _ in 0..10 {
        assert_eq!(c.event(&envelope(&team, &unique("Ev"), mention(&channel, "11.1", "storm"))).status, 200);
    }
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), message_copy(&channel, "11.1", "storm"))).status, 200);
    s.fake.wait_calls("chat.postMessage", &channel, 1, Duration::from_secs(20));
    eventually("the reply is done", Duration::from_secs(20), || (c.rows(&team, "done").len() == 1).then_some(()));
    assert_eq!(c.receipts(&team), 12);
    assert_eq!(s.fake.calls("chat.postMessage", &channel).len(), 1, "exactly one reply");
}

/// Sends one event the way Slack does: retried until it gets a 200 (connection errors and 5xx
/// included), within a deadline.
fn deliver_like_slack(base: &str, event: &Value) -> bool {
    let body = event.to_string().into_bytes();
    let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(5)).build();
    let deadline = Instant::now() + Duration::from_secs(120);
    while Instant::now() < deadline {
        let ts = now_secs().to_string();
        let result = agent
            .post(&format!("{base}/slack/events"))
            .set("content-type", "application/json")
            .set("x-slack-request-timestamp", &ts)
            .set("x-slack-signature", &sign(&ts, &body))
            .send_bytes(&body);
        match result {
            Ok(r) if r.status() == 200 => return true,
            _ => std::thread::sleep(Duration::from_millis(100)),
        }
    }
    false
}

/// Sends `events` (team index, message ts, envelope) from 8 threads the way Slack does
/// ([`deliver_like_slack`]): what got its 200 (team index and ts), and the threads to join.
#[allow(clippy::type_complexity)]
fn send_like_slack(base: &str, events: &[(usize, String, Value)]) -> (Arc<Mutex<Vec<(usize, String)>>>, Vec<std::thread::JoinHandle<()>>) {
    let (events, acked, next) = (Arc::new(events.to_vec()), Arc::new(Mutex::new(Vec::new())), Arc::new(AtomicUsize::new(0)));
    let senders = (0..8)
        .map(|_| {
            let (events, acked, next, base) = (events.clone(), acked.clone(), next.clone(), base.to_string());
            std::thread::spawn(move || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some((t, ts, event)) = events.get(i) else { break };
                if deliver_like_slack(&base, event) {
                    acked.lock().unwrap().push((*t, ts.clone()));
                }
            })
        })
        .collect();
    (acked, senders)
}

#[test]
fn killing_the_runtime_at_five_moments_loses_no_acknowledged_event() {
    let fake = FakeSlack::start();
    let settings =
        Settings::new("crash", &fake).var("LEASE_MS", "2000").var("ATTEMPT_TIMEOUT_MS", "1000").var("RETRY_SCHEDULE_MS", "200,500").var("MAX_ATTEMPTS", "50");
    let mut rt = Runtime::start(settings);
    let teams: Vec<String> = (0..5).map(|_| unique("T")).collect();
    let channels: Vec<String> = (0..5).map(|_| unique("C")).collect();
    for channel in &channels {
        // Deliveries take a little while, so some are always in flight when the plug is pulled.
        fake.script_with("chat.postMessage", channel, Box::new(|_| Reply::Delay(Duration::from_millis(30), Box::new(Reply::Ok))));
    }
    let (total, kills) = if soak() { (5000, 10) } else { (500, 5) };
    let events: Vec<(usize, String, Value)> = (0..total)
        .map(|i| {
            let (t, ts) = (i % 5, format!("{}.{i:04}", 1000 + i / 5));
            (t, ts.clone(), envelope(&teams[t], &unique("Ev"), mention(&channels[t], &ts, "crash")))
        })
        .collect();
    let (acked, senders) = send_like_slack(&rt.base_url(), &events);
    for moment in 1..=kills {
        let wanted = moment * total / (kills + 1);
        eventually(&format!("{wanted} acks before crash {moment}"), Duration::from_secs(120), || (acked.lock().unwrap().len() >= wanted).then_some(()));
        rt.kill();
        rt.restart();
    }
    for s in senders {
        s.join().unwrap();
    }
    let acked = acked.lock().unwrap().clone();
    assert_eq!(acked.len(), total, "Slack's retries got every event acknowledged");
    let delivered = |t: usize, ts: &str| fake.calls("chat.postMessage", &channels[t]).iter().filter(|c| c.field("thread_ts") == Some(ts)).count();
    eventually("every acknowledged event delivered", Duration::from_secs(120), || acked.iter().all(|(t, ts)| delivered(*t, ts) >= 1).then_some(()));
    let posts: usize = channels.iter().map(|c| fake.calls("chat.postMessage", c).len()).sum();
    let duplicates = posts - total;
    let read_back = |outcome: &str| rt.log_lines().iter().filter(|l| l["kind"] == "read_back" && l["outcome"] == outcome).count();
    eprintln!(
        "crash test: {total} events acknowledged and delivered across {kills} kills; {posts} posts, {duplicates} duplicates (at-least-once); read back: {} found, {} not there, {} fell back",
        read_back("found"),
        read_back("not_there"),
        read_back("fallback")
    );
    let c = rt.client();
    for team in &teams {
        assert_eq!(c.receipts(team), total as i64 / 5, "one receipt per event for {team}");
    }
}

/// Issue 35, goal 3: a post whose Slack call went out but whose completion was never stored (the
/// runtime was killed while Slack took its time to answer) is read back before it is sent again,
/// and found: 300 events, the runtime killed twice with posts in flight, one reply each.
#[test]
fn killing_the_runtime_while_slack_answers_slowly_posts_each_reply_once() {
    let fake = FakeSlack::start();
    // A lease above the attempt timeout times the batch's waves (10 rows, 5 at once), as `/healthz`
    // asks: a call still on its way to Slack when the lease runs out is the one case a read can miss.
    let settings = Settings::new("readback", &fake)
        .var("LEASE_MS", "3000")
        .var("ATTEMPT_TIMEOUT_MS", "1000")
        .var("RETRY_SCHEDULE_MS", "200,500")
        .var("MAX_ATTEMPTS", "50");
    let mut rt = Runtime::start(settings);
    let teams: Vec<String> = (0..3).map(|_| unique("T")).collect();
    let channels: Vec<String> = (0..3).map(|_| unique("C")).collect();
    for channel in &channels {
        // Slack answers slowly: posts are in flight (sent, not yet answered) when the plug is pulled.
        fake.script_with("chat.postMessage", channel, Box::new(|_| Reply::Delay(Duration::from_millis(400), Box::new(Reply::Ok))));
    }
    let total = 300;
    let events: Vec<(usize, String, Value)> = (0..total)
        .map(|i| {
            let (t, ts) = (i % 3, format!("{}.{i:04}", 2000 + i / 3));
            (t, ts.clone(), envelope(&teams[t], &unique("Ev"), mention(&channels[t], &ts, "slow")))
        })
        .collect();
    let (acked, senders) = send_like_slack(&rt.base_url(), &events);
    let in_flight = || channels.iter().map(|c| fake.calls("chat.postMessage", c).iter().filter(|call| call.answer.is_none()).count()).sum::<usize>();
    let mut killed_in_flight = Vec::new();
    for moment in 1..=2 {
        let wanted = moment * total / 3;
        eventually(&format!("{wanted} acks before crash {moment}"), Duration::from_secs(120), || (acked.lock().unwrap().len() >= wanted).then_some(()));
        killed_in_flight.push(eventually("posts in flight", Duration::from_secs(60), || Some(in_flight()).filter(|n| *n > 0)));
        rt.kill();
        rt.restart();
    }
    for s in senders {
        s.join().unwrap();
    }
    let acked = acked.lock().unwrap().clone();
    assert_eq!(acked.len(), total, "Slack's retries got every event acknowledged");
    let c = rt.client();
    eventually("every row done, every call answered", Duration::from_secs(180), || {
        (teams.iter().all(|t| c.rows(t, "pending").is_empty()) && in_flight() == 0).then_some(())
    });
    let mut per_thread: HashMap<(usize, String), usize> = HashMap::new();
    for (t, channel) in channels.iter().enumerate() {
        for post in fake.posts_in(channel) {
            *per_thread.entry((t, post.thread_ts.clone().unwrap_or_default())).or_default() += 1;
        }
    }
    let missing: Vec<_> = acked.iter().filter(|(t, ts)| !per_thread.contains_key(&(*t, ts.clone()))).collect();
    let duplicates: usize = per_thread.values().map(|n| n - 1).sum();
    let read_back = |outcome: &str| rt.log_lines().iter().filter(|l| l["kind"] == "read_back" && l["outcome"] == outcome).count();
    let (found, not_there, fallback) = (read_back("found"), read_back("not_there"), read_back("fallback"));
    eprintln!(
        "read-back crash test: {total} events, 2 kills with {killed_in_flight:?} posts in flight; {} replies, {duplicates} duplicates; read back: {found} found, {not_there} not there, {fallback} fell back",
        per_thread.len()
    );
    assert!(missing.is_empty(), "every acknowledged event has its reply: {missing:?}");
    assert_eq!(per_thread.len(), total);
    assert_eq!(duplicates, 0, "no reply posted twice");
    assert!(found > 0, "posts in flight at a kill were found by reading back, not sent again");
    assert_eq!(fallback, 0, "every read was possible");
}

/// Killed right after acking a burst, with Slack slow to answer: only the few posts whose
/// attempt may have begun are read back (after their claim runs out: at most one wave); every row
/// the dead instance had only claimed — inserted claimed and never adopted, or claimed by a sweep
/// and never started — is sent at once after the restart, with no read. Before, each of them waited for its claim and was
/// read back one by one at Slack's read pace (issue 52.6: 300 replies took minutes).
#[test]
fn after_a_kill_the_rows_no_attempt_touched_are_sent_at_once_and_only_the_others_are_read_back() {
    let fake = FakeSlack::start();
    // Slack answers each post after a second: a handful are at Slack when the plug is pulled.
    fake.script_default(Box::new(|call| match call.method.as_str() {
        "chat.postMessage" => Reply::Delay(Duration::from_secs(1), Box::new(Reply::Ok)),
        _ => Reply::Ok,
    }));
    let settings = Settings::new("takeover", &fake).var("LEASE_MS", "20000").var("ATTEMPT_TIMEOUT_MS", "5000");
    let mut rt = Runtime::start(settings);
    let team = unique("T");
    let channels: Vec<String> = (0..120).map(|_| unique("C")).collect();
    let c = rt.client();
    for channel in &channels {
        assert_eq!(c.event(&envelope(&team, &unique("Ev"), mention(channel, "11.1", "burst"))).status, 200);
    }
    rt.kill();
    let sent_before_kill: HashSet<&String> = channels.iter().filter(|ch| !fake.calls("chat.postMessage", ch).is_empty()).collect();
    assert!(sent_before_kill.len() < channels.len() / 2, "most posts had not been sent when it died: {}", sent_before_kill.len());
    rt.restart();
    let restarted = Instant::now();
    let c = rt.client();
    eventually("every acked mention answered", Duration::from_secs(60), || channels.iter().all(|ch| !fake.posts_in(ch).is_empty()).then_some(()));
    eprintln!(
        "takeover: {} replies {:?} after the restart; {} posts had reached Slack before the kill",
        channels.len(),
        restarted.elapsed(),
        sent_before_kill.len()
    );
    eventually("every row done", Duration::from_secs(30), || c.rows(&team, "pending").is_empty().then_some(()));
    let duplicates: Vec<&String> = channels.iter().filter(|ch| fake.posts_in(ch).len() > 1).collect();
    assert!(duplicates.is_empty(), "no reply posted twice: {duplicates:?}");
    // A row is read back only if its attempt may have begun: of each dead claim token, the first
    // rows as many as the instance ran at once (DELIVERY_CONCURRENCY, 5 here). One whose attempt
    // had begun but whose call had not left yet is read back too (nothing durable tells the two
    // apart without a write per attempt); a row no attempt touched never is. The dead instance
    // held two tokens at most here: its own (rows claimed as inserted) and its running sweep's
    // (rows it could not adopt in time, claimed): one wave each.
    let reads: Vec<Value> = rt.log_lines().into_iter().filter(|l| l["kind"] == "read_back").collect();
    let never_sent: Vec<&Value> =
        reads.iter().filter(|l| !sent_before_kill.iter().any(|ch| l["key"].as_str().is_some_and(|k| k.contains(ch.as_str())))).collect();
    eprintln!("takeover: {} reads, {} of a row whose call had not reached Slack", reads.len(), never_sent.len());
    assert!(never_sent.len() <= 10, "reads only for rows that may have been in flight (a wave per token): {never_sent:?}");
    assert!(reads.len() <= sent_before_kill.len() + 10, "{} reads for {} posts that reached Slack", reads.len(), sent_before_kill.len());
    let taken_over: u64 = rt.log_lines().iter().filter(|l| l["kind"] == "sweep").filter_map(|l| l["taken_over"].as_u64()).sum();
    assert!(taken_over as usize >= channels.len() - sent_before_kill.len() - 12, "the never-sent rows were given back at once: {taken_over}");
}

/// A post whose call timed out after Slack took it is read back before it is sent again: found,
/// the row is done with Slack's `ts` and nothing is posted twice. Where the token cannot read the
/// thread back (`missing_scope`), the post is sent again, and the fallback logged: the one
/// duplicate this case can still make.
#[test]
fn a_post_that_timed_out_is_read_back_and_without_the_scope_to_read_it_is_sent_again_and_logged() {
    let fake = FakeSlack::start();
    let settings = Settings::new("timedout", &fake).var("ATTEMPT_TIMEOUT_MS", "500").var("LEASE_MS", "5000").var("RETRY_SCHEDULE_MS", "200");
    let rt = Runtime::start(settings);
    let (team, found, refused) = (unique("T"), unique("C"), unique("C"));
    for channel in [&found, &refused] {
        // Slack posts the message at once, then answers too late: the attempt times out.
        fake.script("chat.postMessage", channel, vec![Reply::Applied(Box::new(Reply::Delay(Duration::from_millis(1_500), Box::new(Reply::Ok))))]);
    }
    fake.script_with("conversations.replies", &refused, Box::new(|_| Reply::Error("missing_scope")));
    let c = rt.client();
    for channel in [&found, &refused] {
        assert_eq!(c.event(&envelope(&team, &unique("Ev"), mention(channel, "30.1", "slow"))).status, 200);
    }
    eventually("both replies done", Duration::from_secs(30), || (c.rows(&team, "done").len() == 2).then_some(()));
    let read_back = |outcome: &str| rt.log_lines().into_iter().filter(|l| l["kind"] == "read_back" && l["outcome"] == outcome).collect::<Vec<_>>();
    // Found: one post, the row done with its ts, the read asked for the metadata.
    assert_eq!(fake.posts_in(&found).len(), 1, "posted once");
    assert_eq!(fake.calls("chat.postMessage", &found).len(), 1, "not sent again");
    let reads = fake.calls("conversations.replies", &found);
    assert!(reads.iter().all(|r| r.args.get("include_all_metadata") == Some(&json!(true)) && r.field("ts") == Some("30.1")), "{reads:?}");
    let posted = &fake.posts_in(&found)[0];
    let key = posted.metadata.as_ref().and_then(|m| m["event_payload"]["slackline_key"].as_str()).expect("the post names its key").to_string();
    let found_line = read_back("found").into_iter().find(|l| l["key"] == key.as_str()).expect("a read_back found line");
    assert_eq!(found_line["ts"].as_str(), Some(posted.ts.as_str()));
    // Refused: sent again (a duplicate, logged as a fallback naming Slack's refusal).
    assert_eq!(fake.posts_in(&refused).len(), 2, "without the scope to read, the post is sent again");
    let fallback = read_back("fallback");
    assert!(fallback.iter().any(|l| l["reason"] == "refused:missing_scope"), "{fallback:?}");
}

/// A deterministic pseudo-random sequence for the chaos script.
fn lcg(seed: &mut u64) -> u64 {
    *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *seed >> 33
}

#[test]
fn a_faulty_slack_ends_every_row_delivered_or_parked_within_the_policy() {
    let fake = FakeSlack::start();
    let max_attempts = 6;
    let settings = Settings::new("faulty", &fake)
        .var("RETRY_SCHEDULE_MS", "100,200,400")
        .var("MAX_ATTEMPTS", &max_attempts.to_string())
        .var("ATTEMPT_TIMEOUT_MS", "1000")
        .var("LEASE_MS", "10000");
    let rt = Runtime::start(settings);
    let c = rt.client();
    let teams: Vec<String> = (0..4).map(|_| unique("T")).collect();
    let mut doomed = HashSet::new();
    let mut seed = 42u64;
    let rows_per_team = if soak() { 200 } else { 20 };
    for (t, team) in teams.iter().enumerate() {
        for i in 0..rows_per_team {
            let channel = format!("CFAULT{t}X{i}X{}", unique(""));
            if i % 7 == 0 {
                fake.script_with("chat.postMessage", &channel, Box::new(|_| Reply::Error("channel_not_found")));
                doomed.insert(channel.clone());
            } else {
                let mut s = seed;
                seed = seed.wrapping_add(7919);
                fake.script_with(
                    "chat.postMessage",
                    &channel,
                    Box::new(move |_| match lcg(&mut s) % 100 {
                        0..=19 => Reply::Status(503),
                        20..=29 => Reply::RateLimited(1),
                        30..=34 => Reply::Delay(Duration::from_millis(2500), Box::new(Reply::Ok)),
                        _ => Reply::Ok,
                    }),
                );
            }
            assert_eq!(c.event(&envelope(team, &unique("Ev"), mention(&channel, "12.1", "chaos"))).status, 200);
        }
    }
    let all = eventually("every row done or parked", Duration::from_secs(if soak() { 900 } else { 180 }), || {
        let rows: Vec<Value> = teams.iter().flat_map(|t| c.all_rows(t)).collect();
        rows.iter().all(|r| r["status"] != "pending").then_some(rows)
    });
    assert_eq!(all.len(), teams.len() * rows_per_team);
    let mut attempts_total = 0;
    for row in &all {
        let payload = row["payload"].as_str().unwrap();
        let channel = payload.split("\"channel\":\"").nth(1).unwrap().split('"').next().unwrap();
        let attempts = row["attempts"].as_i64().unwrap();
        attempts_total += attempts;
        assert!(attempts <= max_attempts, "{row}");
        // A 429 is not an attempt: only the answered calls count against the policy.
        let answered = fake.calls("chat.postMessage", channel).iter().filter(|c| !c.rate_limited).count();
        assert!(answered as i64 <= max_attempts, "never more calls than the policy");
        if doomed.contains(channel) {
            // Parked at the first answer Slack gave (an attempt cut off by our timeout on a loaded
            // machine is the only way to see more than one).
            assert_eq!((row["status"].as_str(), row["reason"].as_str()), (Some("parked"), Some("channel_not_found")), "{row}");
        } else if row["status"] == "parked" {
            assert_eq!(row["reason"], "attempts_exhausted", "{row}");
            assert_eq!(attempts, max_attempts);
        }
    }
    // The answers held 2.5 s were cut off by the 1 s attempt timeout, and counted as timeouts.
    let timeouts: Vec<Value> =
        rt.log_lines().into_iter().filter(|l| l["kind"] == "delivery" && l["error"] == "timeout" && teams.iter().any(|t| l["team"] == t.as_str())).collect();
    assert!(!timeouts.is_empty(), "the seeded draws hold some answers past the timeout");
    assert!(timeouts.iter().all(|l| l["http_status"].is_null() && l["latency_ms"].as_i64().is_some_and(|ms| (1_000..2_400).contains(&ms))), "{timeouts:?}");
    let sweeps = rt.log_lines().into_iter().filter(|l| l["kind"] == "sweep" && teams.iter().any(|t| l["team"] == t.as_str())).count();
    eprintln!("faulty Slack: {} rows, {attempts_total} attempts, {sweeps} sweeps", all.len());
    assert!(sweeps as i64 <= 4 * attempts_total, "no hot loop: {sweeps} sweeps for {attempts_total} attempts");
}

struct Hostile {
    name: &'static str,
    method: &'static str,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    status: u16,
}

fn signed(name: &'static str, path: &str, content_type: &str, body: Vec<u8>, status: u16) -> Hostile {
    let ts = now_secs().to_string();
    let sig = sign(&ts, &body);
    let headers = vec![("content-type".into(), content_type.into()), ("x-slack-request-timestamp".into(), ts), ("x-slack-signature".into(), sig)];
    Hostile { name, method: "POST", path: path.into(), headers, body, status }
}

fn with_header(mut h: Hostile, key: &str, value: &str) -> Hostile {
    h.headers.retain(|(k, _)| k != key);
    h.headers.push((key.into(), value.into()));
    h
}

fn corpus(team: &str) -> Vec<Hostile> {
    let good = envelope(team, &unique("Ev"), mention(&unique("C"), "1.1", "x")).to_string().into_bytes();
    let json = "application/json";
    let form = "application/x-www-form-urlencoded";
    let event = |f: &dyn Fn(&mut Value)| {
        let mut v = envelope(team, &unique("Ev"), mention("C1", "1.1", "x"));
        f(&mut v);
        v.to_string().into_bytes()
    };
    let command =
        format!("command=%2Fask&text=x&team_id={team}&user_id=U1&channel_id=C1&response_url=http%3A%2F%2F127.0.0.1%3A1%2Fr&trigger_id={}", unique("t"));
    let now = now_secs();
    let mut c = vec![
        Hostile {
            name: "no signature headers",
            method: "POST",
            path: "/slack/events".into(),
            headers: vec![("content-type".into(), json.into())],
            body: good.clone(),
            status: 401,
        },
        with_header(signed("bad signature", "/slack/events", json, good.clone(), 401), "x-slack-signature", &sign("1", b"other")),
        with_header(signed("signature of another body", "/slack/events", json, good.clone(), 401), "x-slack-signature", &sign(&now.to_string(), b"{}")),
        with_header(signed("v1 prefix", "/slack/events", json, good.clone(), 401), "x-slack-signature", &sign(&now.to_string(), &good).replace("v0=", "v1=")),
        with_header(signed("non-hex signature", "/slack/events", json, good.clone(), 401), "x-slack-signature", &format!("v0={}", "z".repeat(64))),
        with_header(signed("truncated signature", "/slack/events", json, good.clone(), 401), "x-slack-signature", &sign(&now.to_string(), &good)[..40]),
        with_header(signed("empty signature", "/slack/events", json, good.clone(), 401), "x-slack-signature", ""),
        with_header(signed("non-numeric timestamp", "/slack/events", json, good.clone(), 401), "x-slack-request-timestamp", "yesterday"),
        with_header(signed("huge timestamp", "/slack/events", json, good.clone(), 401), "x-slack-request-timestamp", "99999999999999999999999"),
        with_header(signed("negative timestamp", "/slack/events", json, good.clone(), 401), "x-slack-request-timestamp", "-5"),
        signed("empty body", "/slack/events", json, vec![], 400),
        signed("text/plain", "/slack/events", "text/plain", good.clone(), 415),
        signed("JSON to the commands route", "/slack/commands", json, good.clone(), 415),
        signed("form to the events route", "/slack/events", form, command.clone().into_bytes(), 415),
        signed("malformed JSON", "/slack/events", json, b"{\"type\":".to_vec(), 400),
        signed("JSON array", "/slack/events", json, b"[1]".to_vec(), 400),
        signed("JSON string", "/slack/events", json, b"\"event_callback\"".to_vec(), 400),
        signed("invalid UTF-8", "/slack/events", json, b"{\"type\":\"\xc3\x28\"}".to_vec(), 400),
        signed("UTF-16 with a BOM", "/slack/events", json, b"\xff\xfe{\x00}\x00".to_vec(), 400),
        signed("nesting 20000 deep", "/slack/events", json, ("{\"a\":".repeat(20000) + "1" + &"}".repeat(20000)).into_bytes(), 400),
        signed(
            "no event_id",
            "/slack/events",
            json,
            event(&|v| {
                v.as_object_mut().unwrap().remove("event_id");
            }),
            400,
        ),
        signed(
            "no event",
            "/slack/events",
            json,
            event(&|v| {
                v.as_object_mut().unwrap().remove("event");
            }),
            400,
        ),
        signed(
            "event without a type",
            "/slack/events",
            json,
            event(&|v| {
                v["event"].as_object_mut().unwrap().remove("type");
            }),
            400,
        ),
        signed(
            "mention without a channel",
            "/slack/events",
            json,
            event(&|v| {
                v["event"].as_object_mut().unwrap().remove("channel");
            }),
            400,
        ),
        signed("event_id of the wrong type", "/slack/events", json, event(&|v| v["event_id"] = json!(12)), 400),
        signed("command without trigger_id", "/slack/commands", form, command.replace("&trigger_id=", "&x=").into_bytes(), 400),
        signed("command without response_url", "/slack/commands", form, command.replace("response_url=", "x=").into_bytes(), 400),
        signed("command with invalid UTF-8", "/slack/commands", form, [command.as_bytes(), b"&text=\xff"].concat(), 400),
        signed("interaction without payload", "/slack/interactivity", form, b"nothing=here".to_vec(), 400),
        signed("interaction payload not JSON", "/slack/interactivity", form, b"payload=not%20json".to_vec(), 400),
        signed(
            "interaction payload without type",
            "/slack/interactivity",
            form,
            format!("payload=%7B%22team%22%3A%7B%22id%22%3A%22{team}%22%7D%7D").into_bytes(),
            400,
        ),
        signed("over 1 MiB", "/slack/events", json, vec![b' '; 1024 * 1024 + 1], 413),
        Hostile { name: "GET on events", method: "GET", path: "/slack/events".into(), headers: vec![], body: vec![], status: 404 },
        Hostile { name: "PUT on events", method: "PUT", path: "/slack/events".into(), headers: vec![], body: good.clone(), status: 404 },
        Hostile { name: "admin without a token", method: "GET", path: format!("/admin/teams/{team}/stats"), headers: vec![], body: vec![], status: 401 },
        Hostile {
            name: "admin with a wrong token",
            method: "POST",
            path: format!("/admin/teams/{team}/sweep"),
            headers: vec![("authorization".into(), format!("Bearer {ADMIN_TOKEN}x"))],
            body: vec![],
            status: 401,
        },
        Hostile {
            name: "admin token in the query",
            method: "GET",
            path: format!("/admin/teams/{team}/stats?token={ADMIN_TOKEN}"),
            headers: vec![],
            body: vec![],
            status: 401,
        },
        Hostile {
            name: "admin with a forged session",
            method: "GET",
            path: format!("/admin/teams/{team}/stats"),
            headers: vec![("cookie".into(), "slackline_admin=99999999999999.00".into())],
            body: vec![],
            status: 401,
        },
    ];
    // A replay of a valid request, five minutes (and a second) after it was signed.
    let replay = signed("a replay after five minutes", "/slack/events", json, good, 401);
    let signed_at: i64 = replay.headers.iter().find(|(k, _)| k == "x-slack-request-timestamp").unwrap().1.parse().unwrap();
    c.push(with_header(replay, "x-slackline-test-now", &((signed_at + 301) * 1000).to_string()));
    c
}

#[test]
fn a_hostile_corpus_gets_the_right_statuses_stores_nothing_and_the_runtime_keeps_serving() {
    let s = shared();
    let c = s.client();
    let team = unique("T");
    let corpus = corpus(&team);
    assert!(corpus.len() >= 30, "{} requests", corpus.len());
    let mut wrong = vec![];
    for h in &corpus {
        let headers: Vec<(&str, &str)> = h.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let body = (!(h.body.is_empty() && h.method == "GET")).then_some(h.body.as_slice());
        let status = c.send(h.method, &h.path, &headers, body).status;
        if status != h.status {
            wrong.push(format!("{}: expected {}, got {status}", h.name, h.status));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert_eq!(c.get("/healthz").status, 200, "still serving");
    assert_eq!(c.receipts(&team), 0);
    assert!(c.all_rows(&team).is_empty());
    let ok = unique("C");
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), mention(&ok, "1.2", "after"))).status, 200);
    s.fake.wait_calls("chat.postMessage", &ok, 1, Duration::from_secs(20));
}
