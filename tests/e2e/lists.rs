//! Slack Lists sync, end to end in workerd against the fake Slack's stateful Lists: one create per
//! record and updates by row id with `column_id` cells; a create whose answer is lost (a 5xx after
//! Slack acted, a reset connection, a timeout, the runtime killed) is never sent again and is
//! relinked by reconciliation; reconciliation's findings (orphans, duplicates, archived, human
//! edits, missing) over thousands of rows and both passes; a 200-record burst with pacing and a 429
//! storm; and every bad input refused with nothing stored.

use crate::support;

use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;
use support::fake_slack::{text_cell, FAKE_BOT_USER};
use support::{eventually, shared, unique, Client, FakeSlack, Reply, Runtime, Settings, API_TOKEN};

const WAIT: Duration = Duration::from_secs(40);
const KEY: &str = "ColKEY";

fn column_map() -> Value {
    json!({
        "key_column": KEY,
        "columns": {
            "title": {"column_id": "ColT", "type": "text"},
            "points": {"column_id": "ColN", "type": "number"},
            "done": {"column_id": "ColC", "type": "checkbox"}
        }
    })
}

/// A fresh team and List with the test column map.
fn new_list(c: &Client) -> (String, String) {
    let (team, list) = (unique("T"), unique("F"));
    let a = c.api("PUT", &format!("/api/teams/{team}/lists/{list}"), Some(&column_map()));
    assert_eq!(a.status, 200, "{}", a.body);
    (team, list)
}

fn path(team: &str, list: &str, rest: &str) -> String {
    format!("/api/teams/{team}/lists/{list}{rest}")
}

fn put(c: &Client, team: &str, list: &str, record: &str, fields: Value) -> Value {
    let a = c.api("PUT", &path(team, list, &format!("/records/{record}")), Some(&fields));
    assert_eq!(a.status, 200, "{}", a.body);
    a.json()
}

fn record(c: &Client, team: &str, list: &str, id: &str) -> Value {
    let a = c.api("GET", &path(team, list, &format!("/records/{id}")), None);
    assert_eq!(a.status, 200, "{}", a.body);
    a.json()
}

fn wait_state(c: &Client, team: &str, list: &str, id: &str, state: &str) -> Value {
    eventually(&format!("record {id} {state}"), WAIT, || Some(record(c, team, list, id)).filter(|r| r["state"] == state))
}

/// Runs a pass now and waits for its end; returns it.
fn reconcile(c: &Client, team: &str, list: &str) -> Value {
    let a = c.api("POST", &path(team, list, "/reconcile"), None);
    assert_eq!(a.status, 202, "{}", a.body);
    let run = a.json()["id"].as_i64().unwrap();
    eventually(&format!("pass {run} finished"), WAIT, || {
        let runs = c.api("GET", &path(team, list, "/reconcile"), None).json();
        runs["runs"].as_array()?.iter().find(|r| r["id"] == run && !r["finished_at"].is_null()).cloned()
    })
}

fn creates(fake: &FakeSlack, list: &str) -> Vec<support::Call> {
    fake.calls("slackLists.items.create", list)
}

#[test]
fn a_record_put_twice_is_created_once_and_a_change_is_one_update_with_column_id_cells() {
    let s = shared();
    let c = s.client();
    let (team, list) = new_list(&c);
    let first = put(&c, &team, &list, "inc-1", json!({"title": "DB down", "points": 3}));
    assert_eq!((first["changed"].as_bool(), first["version"].as_i64()), (Some(true), Some(1)));
    let again = put(&c, &team, &list, "inc-1", json!({"points": 3, "title": "DB down"}));
    assert_eq!(again["changed"], false, "the same fields in another order are the same record");
    let synced = wait_state(&c, &team, &list, "inc-1", "synced");
    let row_id = synced["row_id"].as_str().expect("the created row's id is stored").to_string();
    let rows = s.fake.list_rows(&list);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].id, row_id);
    assert_eq!(rows[0].text(KEY).as_deref(), Some("inc-1"), "the mirrored key column holds our record id");
    assert_eq!(creates(&s.fake, &list).len(), 1);

    put(&c, &team, &list, "inc-1", json!({"title": "DB back", "points": 3, "done": true}));
    let updates = s.fake.wait_calls("slackLists.items.update", &list, 1, WAIT);
    wait_state(&c, &team, &list, "inc-1", "synced");
    let cells = updates[0].json.as_ref().unwrap()["cells"].as_array().unwrap().clone();
    for cell in &cells {
        assert_eq!(cell["row_id"], row_id);
        assert!(cell["column_id"].as_str().unwrap().starts_with("Col") && cell.get("key").is_none() && cell.get("value").is_none(), "{cell}");
    }
    assert!(cells.iter().any(|c| c["column_id"] == "ColC" && c["checkbox"] == true));
    assert_eq!(s.fake.list_rows(&list)[0].text("ColT").as_deref(), Some("DB back"));
    assert_eq!(creates(&s.fake, &list).len(), 1, "no second create");
    assert_eq!(s.fake.calls("slackLists.items.update", &list).len(), 1, "one update for one change");

    let deleted = c.api("DELETE", &path(&team, &list, "/records/inc-1"), None);
    assert_eq!(deleted.status, 200, "{}", deleted.body);
    wait_state(&c, &team, &list, "inc-1", "deleted");
    let delete = s.fake.wait_calls("slackLists.items.delete", &list, 1, WAIT);
    assert_eq!(delete[0].field("id"), Some(row_id.as_str()));
    assert!(s.fake.list_rows(&list).is_empty());
}

#[test]
fn a_create_whose_answer_is_lost_is_never_repeated_and_reconciliation_relinks_it() {
    let s = shared();
    let c = s.client();
    let (team, list) = new_list(&c);
    // Slack makes the row, then the answer is a 503, or the connection is reset.
    s.fake.script("slackLists.items.create", &list, vec![Reply::Applied(Box::new(Reply::Status(503))), Reply::Applied(Box::new(Reply::Reset))]);
    put(&c, &team, &list, "lost-503", json!({"title": "one"}));
    wait_state(&c, &team, &list, "lost-503", "create_uncertain");
    put(&c, &team, &list, "lost-reset", json!({"title": "two"}));
    let uncertain = wait_state(&c, &team, &list, "lost-reset", "create_uncertain");
    assert!(uncertain["row_id"].is_null());
    put(&c, &team, &list, "lost-503", json!({"title": "one, edited while uncertain"}));
    assert_eq!(record(&c, &team, &list, "lost-503")["state"], "create_uncertain", "a PUT does not release an uncertain create");
    assert_eq!(creates(&s.fake, &list).len(), 2, "one create per record, never repeated");
    assert_eq!(s.fake.list_rows(&list).len(), 2);

    let pass = reconcile(&c, &team, &list);
    assert_eq!(pass["report"]["relinked"], 2, "{pass}");
    for (id, title) in [("lost-503", "one, edited while uncertain"), ("lost-reset", "two")] {
        let r = wait_state(&c, &team, &list, id, "synced");
        let row = s.fake.list_rows(&list).into_iter().find(|row| row.text(KEY).as_deref() == Some(id)).unwrap();
        assert_eq!(r["row_id"], row.id.as_str(), "relinked to the row Slack made");
        assert_eq!(row.text("ColT").as_deref(), Some(title));
    }
    assert_eq!(creates(&s.fake, &list).len(), 2, "relinking sends no create");
    put(&c, &team, &list, "lost-reset", json!({"title": "three"}));
    s.fake.wait_calls("slackLists.items.update", "three", 1, WAIT);
    wait_state(&c, &team, &list, "lost-reset", "synced");
    assert_eq!(creates(&s.fake, &list).len(), 2, "the next change is an update");
    assert_eq!(s.fake.list_rows(&list).len(), 2);
    let parked = c.rows(&team, "parked");
    assert!(parked.iter().all(|r| r["reason"] != "create_uncertain"), "reconciliation settled the uncertain rows: {parked:?}");
}

#[test]
fn a_create_slack_refused_before_acting_is_retried_and_one_it_never_made_is_created_after_a_pass() {
    let s = shared();
    let c = s.client();
    let (team, list) = new_list(&c);
    // A 429 is a refusal: the create is sent again after Retry-After. A 503 *without* the row
    // made is still uncertain until a pass finds nothing; then it is created.
    s.fake.script("slackLists.items.create", &list, vec![Reply::RateLimited(1), Reply::Status(503)]);
    put(&c, &team, &list, "r1", json!({"title": "a"}));
    wait_state(&c, &team, &list, "r1", "create_uncertain");
    let calls = creates(&s.fake, &list);
    assert_eq!(calls.len(), 2);
    assert!(calls[1].at.duration_since(calls[0].at) >= Duration::from_millis(950), "Retry-After honoured");
    assert!(s.fake.list_rows(&list).is_empty());
    let pass = reconcile(&c, &team, &list);
    assert_eq!(pass["report"]["relinked"], 0);
    let r = wait_state(&c, &team, &list, "r1", "synced");
    assert_eq!(creates(&s.fake, &list).len(), 3, "created once the pass found no row");
    assert_eq!(s.fake.list_rows(&list)[0].id, r["row_id"].as_str().unwrap());
}

#[test]
fn reconciliation_reports_orphans_duplicates_archived_rows_human_edits_and_missing_rows() {
    let s = shared();
    let c = s.client();
    let (team, list) = new_list(&c);
    for id in ["keep", "dup", "archived", "edited", "gone"] {
        put(&c, &team, &list, id, json!({"title": id}));
    }
    for id in ["keep", "dup", "archived", "edited", "gone"] {
        wait_state(&c, &team, &list, id, "synced");
    }
    let row_of = |id: &str| record(&c, &team, &list, id)["row_id"].as_str().unwrap().to_string();
    let orphan = s.fake.add_row(&list, vec![text_cell(KEY, "nobody-knows"), text_cell("ColT", "made by hand")], "UHUMAN");
    let duplicate = s.fake.add_row(&list, vec![text_cell(KEY, "dup")], "UHUMAN");
    s.fake.archive_row(&list, &row_of("archived"));
    s.fake.edit_row(&list, &row_of("edited"), text_cell("ColT", "changed in Slack"), "UHUMAN");
    s.fake.remove_row(&list, &row_of("gone"));

    let pass = reconcile(&c, &team, &list);
    let report = &pass["report"];
    assert_eq!(
        (report["orphans"].as_i64(), report["duplicates"].as_i64(), report["archived"].as_i64(), report["human_edited"].as_i64(), report["missing"].as_i64()),
        (Some(1), Some(1), Some(1), Some(1), Some(1)),
        "{pass}"
    );
    assert_eq!(report["seen"], 3, "keep, dup and edited are seen in the active pass: {pass}");
    let findings = pass["findings"].as_array().unwrap();
    let has = |outcome: &str, key: &str, value: &str| findings.iter().any(|f| f["outcome"] == outcome && f[key] == value);
    assert!(has("orphan", "row_id", &orphan) && has("duplicate", "row_id", &duplicate) && has("missing", "record_id", "gone"), "{pass}");
    assert!(has("human_edited", "record_id", "edited") && has("archived", "record_id", "archived"), "{pass}");
    assert!(s.fake.list_rows(&list).iter().any(|r| r.id == orphan), "an orphan is never deleted");
    assert!(s.fake.list_rows(&list).iter().any(|r| r.id == duplicate), "a duplicate is reported, not deleted");
    let edited = record(&c, &team, &list, "edited");
    assert_eq!((edited["human_edited"].as_bool(), edited["edited_by"].as_str()), (Some(true), Some("UHUMAN")));
    assert_eq!(record(&c, &team, &list, "archived")["archived"], true);
    assert_eq!(record(&c, &team, &list, "gone")["state"], "missing");
    assert_eq!(record(&c, &team, &list, "keep")["human_edited"], false, "rows last written by our bot ({FAKE_BOT_USER}) are not human edits");
    let missing = c.api("GET", &path(&team, &list, "/records?state=missing"), None).json();
    assert_eq!(missing["records"].as_array().unwrap().len(), 1);
    // recreate_missing is off: a change to a missing record creates nothing.
    put(&c, &team, &list, "gone", json!({"title": "gone, changed"}));
    let before = creates(&s.fake, &list).len();
    let line =
        eventually("a reconcile log line", WAIT, || s.runtime.log_lines().into_iter().find(|l| l["kind"] == "reconcile" && l["list_id"] == list.as_str()));
    assert_eq!((line["orphans"].as_i64(), line["missing"].as_i64(), line["team"].as_str()), (Some(1), Some(1), Some(team.as_str())), "{line}");
    assert_eq!(creates(&s.fake, &list).len(), before);
    assert_eq!(record(&c, &team, &list, "gone")["state"], "missing");
    // The next pass is queued LISTS_RECONCILE_MINUTES (60) after this one ended.
    let queued = c.rows(&team, "pending").into_iter().find(|r| r["idem_key"].as_str().unwrap().contains(":reconcile:")).expect("the next pass is queued");
    let after = queued["next_attempt_at"].as_i64().unwrap() - pass["finished_at"].as_i64().unwrap();
    assert!((3_595_000..=3_605_000).contains(&after), "next pass due {after} ms after this one ended");
}

#[test]
fn a_row_deleted_in_slack_is_created_again_when_the_list_says_so() {
    let s = shared();
    let c = s.client();
    let (team, list) = (unique("T"), unique("F"));
    let mut map = column_map();
    map["recreate_missing"] = json!(true);
    assert_eq!(c.api("PUT", &path(&team, &list, ""), Some(&map)).status, 200);
    put(&c, &team, &list, "phoenix", json!({"title": "rises"}));
    let first = wait_state(&c, &team, &list, "phoenix", "synced")["row_id"].as_str().unwrap().to_string();
    s.fake.remove_row(&list, &first);
    let pass = reconcile(&c, &team, &list);
    assert_eq!(pass["report"]["missing"], 1, "{pass}");
    let again = eventually("recreated", WAIT, || Some(record(&c, &team, &list, "phoenix")).filter(|r| r["state"] == "synced" && r["row_id"] != first.as_str()));
    let rows = s.fake.list_rows(&list);
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0].id.as_str(), rows[0].text(KEY).as_deref()), (again["row_id"].as_str().unwrap(), Some("phoenix")));
    assert_eq!(creates(&s.fake, &list).len(), 2);
}

#[test]
fn a_list_of_2500_rows_is_reconciled_across_both_passes_in_pages() {
    let s = shared();
    let c = s.client();
    let (team, list) = new_list(&c);
    put(&c, &team, &list, "linked", json!({"title": "ours"}));
    wait_state(&c, &team, &list, "linked", "synced");
    let seeded = s.fake.seed_rows(&list, 2_499, |i| vec![text_cell(KEY, &format!("stranger-{i}"))]);
    for row in seeded.iter().take(120) {
        s.fake.archive_row(&list, row);
    }
    let pass = reconcile(&c, &team, &list);
    let report = &pass["report"];
    assert_eq!(report["rows"], 2_500, "{pass}");
    assert!(report["pages"].as_i64().unwrap() >= 25, "{pass}");
    assert_eq!((report["orphans"].as_i64(), report["seen"].as_i64()), (Some(2_499), Some(1)), "{pass}");
    assert_eq!(pass["pass"], "archived", "both passes ran");
    assert_eq!(pass["findings"].as_array().unwrap().len(), 200, "findings are capped, counts are not");
}

#[test]
fn a_burst_of_200_records_makes_200_creates_paced_and_survives_a_429_storm() {
    let s = shared();
    let c = s.client();
    let (team, list) = new_list(&c);
    let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = calls.clone();
    s.fake.script_with(
        "slackLists.items.create",
        &list,
        Box::new(move |_| {
            let n = counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            if n % 40 == 7 {
                Reply::RateLimited(1)
            } else {
                Reply::Ok
            }
        }),
    );
    std::thread::scope(|scope| {
        for t in 0..8 {
            let (c, team, list) = (c.clone(), team.clone(), list.clone());
            scope.spawn(move || {
                for i in (t..200).step_by(8) {
                    put(&c, &team, &list, &format!("b{i:03}"), json!({"title": format!("burst {i}"), "points": i}));
                }
            });
        }
    });
    eventually("200 records synced", Duration::from_secs(90), || {
        let synced = c.api("GET", &path(&team, &list, "/records?state=synced&limit=200"), None).json();
        (synced["records"].as_array()?.len() == 200).then_some(())
    });
    let rows = s.fake.list_rows(&list);
    let keys: BTreeSet<String> = rows.iter().filter_map(|r| r.text(KEY)).collect();
    assert_eq!((rows.len(), keys.len()), (200, 200), "one row per record, no duplicates");
    let all = creates(&s.fake, &list);
    let limited = all.len() - 200;
    assert!(limited >= 5, "the storm happened ({limited} answers were 429)");
    // Paced from each call's send (LISTS_PACE_MS=20): any 10 calls in a row span at least 9 paces.
    // Measured over windows, not single gaps: an arrival here carries some ms of loopback jitter,
    // which does not add up over a window; unpaced, 10 calls to this fake take a few ms each.
    for window in all.windows(10) {
        let span = window[9].at.duration_since(window[0].at);
        assert!(span >= Duration::from_millis(9 * 20 - 10), "10 calls to one list within {span:?}: not paced");
    }
    let mut by_key: BTreeMap<String, usize> = BTreeMap::new();
    for call in &all {
        let cells = call.json.as_ref().unwrap()["initial_fields"].as_array().unwrap().clone();
        let key = cells.iter().find(|c| c["column_id"] == KEY).unwrap()["rich_text"][0]["elements"][0]["elements"][0]["text"].as_str().unwrap().to_string();
        *by_key.entry(key).or_default() += 1;
    }
    assert!(by_key.values().all(|n| *n <= 2), "a record is created again only after a 429");
}

#[test]
fn bad_inputs_are_refused_with_a_clear_4xx_and_nothing_is_stored() {
    let s = shared();
    let c = s.client();
    let (team, list) = new_list(&c);
    let record_path = path(&team, &list, "/records/r1");
    let status = |a: support::slack::Answer| (a.status, a.json()["error"].as_str().unwrap_or("").to_string(), a.json()["field"].as_str().map(str::to_string));
    let other = unique("F");
    assert_eq!(status(c.api("PUT", &path(&team, &other, "/records/r1"), Some(&json!({"title": "x"})))).0, 404, "unknown list");
    assert_eq!(status(c.api("PUT", &record_path, Some(&json!({"color": "red"})))), (422, "unknown_field".into(), Some("color".into())));
    assert_eq!(status(c.api("PUT", &record_path, Some(&json!({"points": "three"})))), (422, "wrong_type".into(), Some("points".into())));
    assert_eq!(status(c.api("PUT", &record_path, Some(&json!(["not", "an", "object"])))).0, 422);
    assert_eq!(c.api_as("PUT", &record_path, Some(API_TOKEN), Some("{not json")).status, 400);
    let huge = json!({"title": "x".repeat(70 * 1024)}).to_string();
    assert_eq!(c.api_as("PUT", &record_path, Some(API_TOKEN), Some(&huge)).status, 413);
    assert_eq!(c.api_as("PUT", &record_path, None, Some(r#"{"title":"x"}"#)).status, 401);
    assert_eq!(c.api_as("PUT", &record_path, Some("wrong-token"), Some(r#"{"title":"x"}"#)).status, 401);
    assert_eq!(c.api("PUT", &path(&team, &list, "/records/bad%20id"), Some(&json!({"title": "x"}))).status, 400);
    assert_eq!(c.api("PUT", &path(&team, &list, ""), Some(&json!({"key_column": "nope", "columns": {}}))).status, 422, "a bad column map");
    assert_eq!(c.api("GET", &record_path, None).status, 404, "nothing was stored");
    assert_eq!(c.api("GET", &path(&team, &list, "/records?state=weird"), None).status, 400);
    assert!(creates(&s.fake, &list).is_empty());
    assert!(c.all_rows(&team).iter().all(|r| !r["idem_key"].as_str().unwrap().contains(":r1:")), "no sync was queued");
}

/// The runtime is killed after Slack made the row and before the create's end was stored; and a
/// create times out after Slack made the row. Neither create is sent again; a pass relinks both.
#[test]
fn a_create_lost_to_a_timeout_or_a_killed_runtime_is_relinked_not_repeated() {
    let fake = FakeSlack::start();
    let mut rt = Runtime::start(Settings::new("lists-kill", &fake).var("LEASE_MS", "2000").var("ATTEMPT_TIMEOUT_MS", "1000"));
    let c = rt.client();
    let (team, list) = new_list(&c);
    fake.script("slackLists.items.create", "slow-answer", vec![Reply::Applied(Box::new(Reply::Delay(Duration::from_secs(3), Box::new(Reply::Ok))))]);
    put(&c, &team, &list, "slow-answer", json!({"title": "slow-answer"}));
    wait_state(&c, &team, &list, "slow-answer", "create_uncertain");
    // The attempt ended at its timeout (1 s), not at the answer (3 s).
    let job = c.all_rows(&team).into_iter().find(|r| r["payload"].as_str().is_some_and(|p| p.contains("slow-answer"))).expect("the create job");
    let detail = c.admin_get(&format!("/admin/teams/{team}/outbox/{}", job["id"])).json();
    let first = &detail["attempts_log"][0];
    assert_eq!(first["detail"], "create_uncertain", "{detail}");
    assert!(first["latency_ms"].as_i64().is_some_and(|ms| (1_000..2_900).contains(&ms)), "{detail}");

    fake.script("slackLists.items.create", "killed", vec![Reply::Applied(Box::new(Reply::Delay(Duration::from_secs(20), Box::new(Reply::Ok))))]);
    put(&c, &team, &list, "killed", json!({"title": "killed"}));
    fake.wait_calls("slackLists.items.create", "killed", 1, WAIT);
    rt.kill();
    rt.restart();
    let c = rt.client();
    // After the lease runs out the row is claimed again: the create marker says its end was lost.
    wait_state(&c, &team, &list, "killed", "create_uncertain");
    assert_eq!(fake.calls("slackLists.items.create", "killed").len(), 1, "no second create after the restart");
    assert_eq!(fake.calls("slackLists.items.create", "slow-answer").len(), 1, "no second create after the timeout");
    assert_eq!(fake.list_rows(&list).len(), 2);

    let pass = reconcile(&c, &team, &list);
    assert_eq!(pass["report"]["relinked"], 2, "{pass}");
    put(&c, &team, &list, "killed", json!({"title": "killed, then changed"}));
    fake.wait_calls("slackLists.items.update", "killed, then changed", 1, WAIT);
    assert_eq!(fake.calls("slackLists.items.create", &list).len(), 2, "still one create per record");
    assert_eq!(fake.list_rows(&list).len(), 2);
}

#[test]
fn a_lists_next_reconciliation_pass_is_not_pending_work_until_it_falls_due() {
    let s = shared();
    let c = s.runtime.client();
    let (team, list) = new_list(&c);
    put(&c, &team, &list, "r1", json!({"title": "quiet"}));
    wait_state(&c, &team, &list, "r1", "synced");
    // The shared runtime alerts on work pending for more than 1 s (ALERT_PENDING_AGE_MS): let
    // more than that pass with nothing due but the List's next pass, an hour away.
    std::thread::sleep(Duration::from_millis(1_500));
    let swept = c.admin_post(&format!("/admin/teams/{team}/sweep"));
    assert_eq!(swept.status, 200, "{}", swept.body);
    assert!(swept.json()["alert"].is_null(), "a pass not due yet is no backlog: {}", swept.body);
    let stats = c.stats(&team);
    assert_eq!((stats["pending"].as_i64(), stats["scheduled"].as_i64()), (Some(1), Some(1)), "{stats}");
    assert!(stats["oldest_pending_age_ms"].is_null(), "{stats}");
}
