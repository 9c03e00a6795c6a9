//! The fake Slack's Lists, over HTTP: stateful `slackLists.items.*` (cell validation, the `text`
//! fallback, paging, archived rows) and its faults (refusals write nothing, `Applied` writes and
//! loses the answer, `Reset` closes the connection without an HTTP answer).
#![cfg(not(target_arch = "wasm32"))]

use serde_json::{json, Value};
use slackline_sim::client::fresh_id;
use slackline_sim::fake::{text_cell, FakeSlack, Reply, FAKE_BOT_USER};
use std::collections::HashSet;
use std::time::{Duration, Instant};

const CLIENT_TIMEOUT: Duration = Duration::from_secs(5);

/// What the client saw.
#[derive(Debug)]
enum Outcome {
    Http {
        status: u16,
        retry_after: Option<String>,
        body: Value,
    },
    /// The error, read only through `Debug` (in the failure messages).
    Transport(#[allow(dead_code)] String),
}

impl Outcome {
    /// The body of a 200 answer.
    fn ok_body(self) -> Value {
        match self {
            Outcome::Http { status: 200, body, .. } => body,
            other => panic!("expected a 200 answer, got {other:?}"),
        }
    }
}

fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new().timeout(CLIENT_TIMEOUT).build()
}

fn call_with(agent: &ureq::Agent, fake: &FakeSlack, method: &str, body: Value) -> Outcome {
    let request = agent.post(&format!("{}/{method}", fake.api_url())).set("Authorization", "Bearer xoxb-test");
    let (status, response) = match request.send_json(body) {
        Ok(response) => (response.status(), response),
        Err(ureq::Error::Status(status, response)) => (status, response),
        Err(ureq::Error::Transport(t)) => return Outcome::Transport(t.to_string()),
    };
    let retry_after = response.header("retry-after").map(str::to_string);
    Outcome::Http { status, retry_after, body: response.into_json().expect("a JSON body") }
}

fn call(fake: &FakeSlack, method: &str, body: Value) -> Outcome {
    call_with(&agent(), fake, method, body)
}

fn create(fake: &FakeSlack, list: &str, fields: Value) -> Value {
    call(fake, "slackLists.items.create", json!({"list_id": list, "initial_fields": fields})).ok_body()
}

fn error_of(body: &Value) -> &str {
    assert_eq!(body["ok"], false, "{body}");
    body["error"].as_str().unwrap()
}

/// Every page of `items.list`, following the cursors; asserts each page's size is at most `page`.
fn all_pages(fake: &FakeSlack, list: &str, archived: bool, limit: u64, page: usize) -> (Vec<Value>, usize) {
    let (mut items, mut pages, mut cursor) = (Vec::new(), 0, String::new());
    loop {
        let body = call(fake, "slackLists.items.list", json!({"list_id": list, "limit": limit, "cursor": cursor, "archived": archived})).ok_body();
        assert_eq!(body["ok"], true, "{body}");
        let got = body["items"].as_array().unwrap();
        assert!(got.len() <= page, "a page of {} rows (max {page})", got.len());
        items.extend(got.iter().cloned());
        pages += 1;
        cursor = body["response_metadata"]["next_cursor"].as_str().unwrap().to_string();
        if cursor.is_empty() {
            return (items, pages);
        }
        assert_eq!(got.len(), page, "only the last page may be short");
    }
}

#[test]
fn create_then_list_shows_the_row_with_its_text_fallback() {
    let fake = FakeSlack::start();
    let list = fresh_id("F");
    let select = json!({"column_id": "ColSTATE", "select": ["OptOPEN"]});
    let body = create(&fake, &list, json!([text_cell("ColTITLE", "DB down"), select]));
    assert_eq!(body["ok"], true, "{body}");
    let item = &body["item"];
    let id = item["id"].as_str().unwrap();
    assert!(id.starts_with("Rec") && id[3..].chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()), "{id}");
    assert_eq!(item["list_id"], list.as_str());
    assert_eq!((item["created_by"].as_str(), item["updated_by"].as_str()), (Some(FAKE_BOT_USER), Some(FAKE_BOT_USER)));
    assert!(item["date_created"].is_u64() && item["updated_timestamp"].as_str().unwrap().parse::<u64>().is_ok(), "{item}");
    assert_eq!(item["fields"][0]["text"], "DB down");
    assert_eq!(item["fields"][0]["rich_text"], text_cell("ColTITLE", "DB down")["rich_text"]);
    assert_eq!(item["fields"][1], json!({"column_id": "ColSTATE", "select": ["OptOPEN"]}), "no fallback on other types");

    let listed = call(&fake, "slackLists.items.list", json!({"list_id": list})).ok_body();
    assert_eq!(listed["items"].as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed["items"][0], *item, "items.list gives the same item shape");
    assert_eq!(listed["response_metadata"]["next_cursor"], "");

    let rows = fake.list_rows(&list);
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0].id.as_str(), rows[0].created_by.as_str(), rows[0].archived), (id, FAKE_BOT_USER, false));
    assert_eq!(rows[0].text("ColTITLE").as_deref(), Some("DB down"));
    assert_eq!(rows[0].text("ColSTATE"), None);
    assert!(rows[0].fields[0].get("text").is_none(), "the fallback is not stored");
    assert!(fake.list_rows(&fresh_id("F")).is_empty(), "lists do not share rows");

    // Row ids are unique across the fake.
    let second = create(&fake, &list, json!([text_cell("ColTITLE", "again")]));
    assert_ne!(second["item"]["id"], item["id"]);
}

#[test]
fn malformed_cells_and_unknown_lists_are_refused_and_create_nothing() {
    let fake = FakeSlack::start();
    let list = fresh_id("F");
    let bad = [
        json!({"column_id": "ColTITLE", "key": "title", "value": "DB down"}),
        json!({"key": "ColTITLE", "rich_text": text_cell("ColTITLE", "x")["rich_text"]}),
        json!({"column_id": "ColTITLE", "text": "plain text is not accepted"}),
        json!({"column_id": "ColTITLE", "value": "x", "rich_text": text_cell("ColTITLE", "x")["rich_text"]}),
        json!({"column_id": "ColN", "number": [1], "rating": [2]}),
        json!({"column_id": "TITLE", "number": [1]}),
        json!("ColTITLE"),
    ];
    for cell in bad {
        let body = create(&fake, &list, json!([text_cell("ColOK", "fine"), cell.clone()]));
        assert_eq!(error_of(&body), "invalid_arguments", "{cell}");
    }
    assert!(fake.list_rows(&list).is_empty(), "nothing created");

    assert_eq!(error_of(&create(&fake, "L123", json!([text_cell("ColT", "x")]))), "list_not_found");
    let listed = call(&fake, "slackLists.items.list", json!({"list_id": "L123"})).ok_body();
    assert_eq!(error_of(&listed), "list_not_found");

    // Without a token Slack answers not_authed.
    let anonymous = ureq::post(&format!("{}/slackLists.items.create", fake.api_url()));
    let body: Value = anonymous.send_json(json!({"list_id": list, "initial_fields": []})).unwrap().into_json().unwrap();
    assert_eq!(error_of(&body), "not_authed");
    assert!(fake.list_rows(&list).is_empty());
}

#[test]
fn update_replaces_cells_and_refuses_unknown_rows() {
    let fake = FakeSlack::start();
    let list = fresh_id("F");
    let id = create(&fake, &list, json!([text_cell("ColTITLE", "old"), {"column_id": "ColN", "number": [1]}]))["item"]["id"].as_str().unwrap().to_string();
    fake.edit_row(&list, &id, json!({"column_id": "ColN", "number": [2]}), "UHUMAN");
    assert_eq!(fake.list_rows(&list)[0].updated_by, "UHUMAN");

    let mut title = text_cell("ColTITLE", "new");
    title["row_id"] = json!(id);
    let added = json!({"row_id": id, "column_id": "ColDUE", "date": ["2025-10-01"]});
    let body = call(&fake, "slackLists.items.update", json!({"list_id": list, "cells": [title, added]})).ok_body();
    assert_eq!(body, json!({"ok": true}));
    let row = &fake.list_rows(&list)[0];
    assert_eq!(row.text("ColTITLE").as_deref(), Some("new"));
    assert_eq!(row.fields.len(), 3, "replaced by column, the new column added: {:?}", row.fields);
    assert_eq!(row.fields[1], json!({"column_id": "ColN", "number": [2]}), "other cells untouched");
    assert_eq!(row.fields[2], json!({"column_id": "ColDUE", "date": ["2025-10-01"]}), "row_id is not stored");
    assert_eq!(row.updated_by, FAKE_BOT_USER);
    assert_eq!(row.created_by, FAKE_BOT_USER);

    // Archived rows stay updatable.
    fake.archive_row(&list, &id);
    let cell = json!({"row_id": id, "column_id": "ColN", "number": [3]});
    assert_eq!(call(&fake, "slackLists.items.update", json!({"list_id": list, "cells": [cell]})).ok_body()["ok"], true);

    // An unknown row anywhere in the call: row_not_found, and nothing written.
    let known = json!({"row_id": id, "column_id": "ColN", "number": [4]});
    let unknown = json!({"row_id": "RecNOPE", "column_id": "ColN", "number": [5]});
    let body = call(&fake, "slackLists.items.update", json!({"list_id": list, "cells": [known, unknown]})).ok_body();
    assert_eq!(error_of(&body), "row_not_found");
    assert_eq!(fake.list_rows(&list)[0].cell("ColN"), Some(&json!({"column_id": "ColN", "number": [3]})));

    // Malformed cells: invalid_arguments.
    for cell in [json!({"column_id": "ColN", "number": [6]}), json!({"row_id": id, "column_id": "ColN", "key": "n", "value": 6})] {
        let body = call(&fake, "slackLists.items.update", json!({"list_id": list, "cells": [cell]})).ok_body();
        assert_eq!(error_of(&body), "invalid_arguments");
    }
}

#[test]
fn delete_removes_the_row_once() {
    let fake = FakeSlack::start();
    let list = fresh_id("F");
    let keep = fake.add_row(&list, vec![text_cell("ColTITLE", "keep")], "UHUMAN");
    let id = create(&fake, &list, json!([text_cell("ColTITLE", "gone")]))["item"]["id"].as_str().unwrap().to_string();
    let body = call(&fake, "slackLists.items.delete", json!({"list_id": list, "id": id})).ok_body();
    assert_eq!(body, json!({"ok": true}));
    let rows = fake.list_rows(&list);
    assert_eq!(rows.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), [keep.as_str()]);
    assert_eq!(rows[0].created_by, "UHUMAN");
    let again = call(&fake, "slackLists.items.delete", json!({"list_id": list, "id": id})).ok_body();
    assert_eq!(error_of(&again), "record_not_found");

    fake.remove_row(&list, &keep);
    assert!(fake.list_rows(&list).is_empty());
}

#[test]
fn items_list_pages_through_every_row_once() {
    let fake = FakeSlack::start();
    let list = fresh_id("F");
    let ids = fake.seed_rows(&list, 250, |i| vec![text_cell("ColTITLE", &format!("row {i}"))]);
    assert_eq!(ids.len(), 250);

    // The fake's page size caps the caller's limit.
    fake.set_list_page_size(100);
    let (items, pages) = all_pages(&fake, &list, false, 1000, 100);
    assert_eq!(pages, 3);
    let listed: Vec<&str> = items.iter().map(|i| i["id"].as_str().unwrap()).collect();
    assert_eq!(listed, ids.iter().map(String::as_str).collect::<Vec<_>>(), "every row once, in insertion order");
    assert_eq!(items.iter().map(|i| i["id"].as_str()).collect::<HashSet<_>>().len(), 250);
    assert_eq!(items[249]["fields"][0]["text"], "row 249");
    assert_eq!(items[0]["created_by"], FAKE_BOT_USER);

    // A smaller limit gives smaller pages.
    let (items, pages) = all_pages(&fake, &list, false, 30, 30);
    assert_eq!((items.len(), pages), (250, 9));

    // A deleted row does not break a cursor.
    let first = call(&fake, "slackLists.items.list", json!({"list_id": list, "limit": 100})).ok_body();
    let cursor = first["response_metadata"]["next_cursor"].as_str().unwrap().to_string();
    fake.remove_row(&list, &ids[99]);
    let second = call(&fake, "slackLists.items.list", json!({"list_id": list, "cursor": cursor})).ok_body();
    assert_eq!(second["items"][0]["id"], ids[100].as_str());

    let bad = call(&fake, "slackLists.items.list", json!({"list_id": list, "cursor": "not a cursor"})).ok_body();
    assert_eq!(error_of(&bad), "invalid_cursor");
}

#[test]
fn archived_rows_are_listed_only_with_archived_true() {
    let fake = FakeSlack::start();
    let list = fresh_id("F");
    let ids = fake.seed_rows(&list, 5, |i| vec![text_cell("ColTITLE", &format!("row {i}"))]);
    fake.archive_row(&list, &ids[1]);
    fake.archive_row(&list, &ids[3]);
    fake.set_list_page_size(2);

    let ids_of = |items: Vec<Value>| items.iter().map(|i| i["id"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    let (active, _) = all_pages(&fake, &list, false, 100, 2);
    assert_eq!(ids_of(active), [ids[0].clone(), ids[2].clone(), ids[4].clone()]);
    let (archived, pages) = all_pages(&fake, &list, true, 100, 2);
    assert_eq!((ids_of(archived), pages), (vec![ids[1].clone(), ids[3].clone()], 1));
    assert_eq!(fake.list_rows(&list).iter().filter(|r| r.archived).count(), 2);
}

#[test]
fn scripted_faults_write_or_not_as_slack_would() {
    let fake = FakeSlack::start();
    let agent = agent();

    // Slack acted, the answer was a 503.
    let list = fresh_id("F");
    fake.script("slackLists.items.create", &list, vec![Reply::Applied(Box::new(Reply::Status(503)))]);
    match call_with(&agent, &fake, "slackLists.items.create", json!({"list_id": list, "initial_fields": [text_cell("ColT", "a")]})) {
        Outcome::Http { status: 503, .. } => {}
        other => panic!("expected a 503, got {other:?}"),
    }
    assert_eq!(fake.list_rows(&list).len(), 1, "Applied writes");

    // Refusals write nothing.
    let list = fresh_id("F");
    fake.script("slackLists.items.create", &list, vec![Reply::RateLimited(2), Reply::Status(503), Reply::Error("over_row_maximum")]);
    let body = json!({"list_id": list, "initial_fields": [text_cell("ColT", "a")]});
    match call_with(&agent, &fake, "slackLists.items.create", body.clone()) {
        Outcome::Http { status: 429, retry_after, body } => {
            assert_eq!(retry_after.as_deref(), Some("2"));
            assert_eq!(error_of(&body), "ratelimited");
        }
        other => panic!("expected a 429, got {other:?}"),
    }
    assert!(matches!(call_with(&agent, &fake, "slackLists.items.create", body.clone()), Outcome::Http { status: 503, .. }));
    assert_eq!(error_of(&call_with(&agent, &fake, "slackLists.items.create", body.clone()).ok_body()), "over_row_maximum");
    assert!(fake.list_rows(&list).is_empty(), "refusals write nothing");
    // The script is used up: the next call is applied for real.
    assert_eq!(call_with(&agent, &fake, "slackLists.items.create", body).ok_body()["ok"], true);
    assert_eq!(fake.list_rows(&list).len(), 1);

    // A reset: no HTTP answer at all, at once (not the client's timeout), and nothing written.
    let list = fresh_id("F");
    fake.script("slackLists.items.create", &list, vec![Reply::Reset, Reply::Applied(Box::new(Reply::Reset))]);
    let body = json!({"list_id": list, "initial_fields": [text_cell("ColT", "a")]});
    let started = Instant::now();
    let outcome = call_with(&agent, &fake, "slackLists.items.create", body.clone());
    assert!(matches!(outcome, Outcome::Transport(_)), "expected a transport error, got {outcome:?}");
    assert!(started.elapsed() < Duration::from_secs(2), "the reset took {:?}", started.elapsed());
    assert!(fake.list_rows(&list).is_empty(), "a reset alone writes nothing");
    // Applied, then reset: the row exists though the client saw a network error.
    let outcome = call_with(&agent, &fake, "slackLists.items.create", body);
    assert!(matches!(outcome, Outcome::Transport(_)), "expected a transport error, got {outcome:?}");
    assert_eq!(fake.list_rows(&list).len(), 1, "Applied(Reset) writes");
    // The fake still serves (on a new connection).
    assert_eq!(call_with(&agent, &fake, "slackLists.items.list", json!({"list_id": list})).ok_body()["items"].as_array().unwrap().len(), 1);

    // A delayed success is applied after the delay; a delayed refusal is not.
    let list = fresh_id("F");
    let wait = Duration::from_millis(200);
    fake.script("slackLists.items.create", &list, vec![Reply::Delay(wait, Box::new(Reply::Ok)), Reply::Delay(wait, Box::new(Reply::Status(500)))]);
    let body = json!({"list_id": list, "initial_fields": [text_cell("ColT", "a")]});
    let started = Instant::now();
    assert_eq!(call_with(&agent, &fake, "slackLists.items.create", body.clone()).ok_body()["item"]["fields"][0]["text"], "a");
    assert!(started.elapsed() >= wait);
    assert!(matches!(call_with(&agent, &fake, "slackLists.items.create", body), Outcome::Http { status: 500, .. }));
    assert_eq!(fake.list_rows(&list).len(), 1);

    // Update and delete obey the same script mechanism.
    let list = fresh_id("F");
    let id = fake.add_row(&list, vec![text_cell("ColT", "a")], "UHUMAN");
    fake.script("slackLists.items.update", &list, vec![Reply::Status(503), Reply::Applied(Box::new(Reply::Status(502)))]);
    let mut cell = text_cell("ColT", "b");
    cell["row_id"] = json!(id);
    let body = json!({"list_id": list, "cells": [cell]});
    assert!(matches!(call_with(&agent, &fake, "slackLists.items.update", body.clone()), Outcome::Http { status: 503, .. }));
    assert_eq!(fake.list_rows(&list)[0].text("ColT").as_deref(), Some("a"));
    assert!(matches!(call_with(&agent, &fake, "slackLists.items.update", body), Outcome::Http { status: 502, .. }));
    assert_eq!(fake.list_rows(&list)[0].text("ColT").as_deref(), Some("b"));
    fake.script("slackLists.items.delete", &list, vec![Reply::Applied(Box::new(Reply::Reset))]);
    let outcome = call_with(&agent, &fake, "slackLists.items.delete", json!({"list_id": list, "id": id}));
    assert!(matches!(outcome, Outcome::Transport(_)), "{outcome:?}");
    assert!(fake.list_rows(&list).is_empty(), "the delete was applied");

    // Every call was recorded, as for any method.
    assert_eq!(fake.calls("slackLists.items.delete", &list).len(), 1);
}
