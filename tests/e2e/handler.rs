//! A handler that fails never loses its event: the request is recorded (receipt, 200) and kept as a
//! parked `handler_failed` row with the handler's error; Slack's retry adds nothing; a redrive runs
//! the (fixed) handler again and its effects are delivered. The failure is made by the test hook
//! `x-slackline-test-handler-fails` (`ALLOW_TEST_CLOCK` only), on the shipped app.

use crate::support::slack::{envelope, mention, now_secs, sign};
use crate::support::{eventually, shared, unique};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(30);

#[test]
fn a_failed_handler_is_recorded_parked_with_its_error_and_redriven_once_fixed() {
    let s = shared();
    let c = s.client();
    let (team, channel) = (unique("T"), unique("C"));
    let body = envelope(&team, &unique("Ev"), mention(&channel, "7.1", "please fail")).to_string();
    let send = |retry: Option<&str>| {
        let ts = now_secs().to_string();
        let sig = sign(&ts, body.as_bytes());
        let mut headers = vec![
            ("content-type", "application/json"),
            ("x-slack-request-timestamp", ts.as_str()),
            ("x-slack-signature", sig.as_str()),
            ("x-slackline-test-handler-fails", "boom: index out of bounds"),
        ];
        if let Some(n) = retry {
            headers.push(("x-slack-retry-num", n));
        }
        c.post_raw("/slack/events", &headers, body.as_bytes())
    };
    let first = send(None);
    assert_eq!(first.status, 200, "{}", first.body);
    // Slack's retries of the same event add nothing.
    assert_eq!(send(Some("1")).status, 200);
    assert_eq!(c.receipts(&team), 1);
    let parked = c.rows(&team, "parked");
    assert_eq!(parked.len(), 1, "{parked:?}");
    let row = &parked[0];
    assert_eq!((row["reason"].as_str(), row["last_error"].as_str()), (Some("handler_failed"), Some("boom: index out of bounds")));
    assert_eq!(row["effect"], "handler");
    assert!(row["payload"].as_str().unwrap().contains("please fail"), "the request is kept: {row}");
    assert!(c.rows(&team, "pending").is_empty() && s.fake.calls("chat.postMessage", &channel).is_empty(), "nothing was performed");
    let line = eventually("the request line's alert", WAIT, || {
        s.runtime.log_lines().into_iter().find(|l| l["kind"] == "request" && l["team"] == team.as_str() && l["alert"] == "handler_failed")
    });
    assert_eq!(line["reason"], "handler_failed");
    let page = c.get_with(&format!("/admin/teams/{team}"), &[("authorization", &format!("Bearer {}", crate::support::ADMIN_TOKEN))]);
    assert!(page.body.contains("handler_failed") && page.body.contains("runs again when redriven"), "the dead-letter page shows it: {}", page.body);

    // "Fixed" (the hook is only on the original request): the redrive runs the handler again.
    let redrive = c.admin_post(&format!("/admin/teams/{team}/outbox/{}/redrive", row["id"]));
    assert_eq!(redrive.status, 200, "{}", redrive.body);
    let posts = s.fake.wait_calls("chat.postMessage", &channel, 1, WAIT);
    assert_eq!(posts[0].field("thread_ts"), Some("7.1"));
    assert!(posts[0].field("text").unwrap().contains("please fail"));
    let done = eventually("the handler row and its reply done", WAIT, || {
        let done = c.rows(&team, "done");
        (done.len() == 2).then_some(done)
    });
    assert!(done.iter().any(|r| r["idem_key"] == format!("msg:{channel}:7.1:reply").as_str()), "the reply has the key the handler gives it: {done:?}");
    // The row is done: a second redrive is refused, so nothing is queued or posted again.
    assert_eq!(c.admin_post(&format!("/admin/teams/{team}/outbox/{}/redrive", row["id"])).status, 409);
    assert!(c.rows(&team, "pending").is_empty());
    assert_eq!(s.fake.calls("chat.postMessage", &channel).len(), 1, "posted once");
}
