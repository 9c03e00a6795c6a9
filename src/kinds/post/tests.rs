use super::*;
use serde_json::json;

fn uncertain(since: i64, claimed_at: i64) -> Uncertain {
    Uncertain { since, claimed_at }
}

fn complete(keys: &[(&str, &str)]) -> ReadEnd {
    ReadEnd::Complete(keys.iter().map(|(k, ts)| (k.to_string(), ts.to_string())).collect())
}

#[test]
fn a_post_without_metadata_gets_slacklines_with_its_key() {
    let stamped = stamp(&json!({"channel": "C1", "text": "hi"}), "k1");
    assert_eq!(stamped["metadata"], json!({"event_type": "slackline_post", "event_payload": {"slackline_key": "k1"}}));
    assert_eq!(stamped["text"], "hi");
}

#[test]
fn a_handlers_metadata_keeps_its_event_type_and_payload_and_gains_the_key() {
    let args = json!({"channel": "C1", "metadata": {"event_type": "ticket_opened", "event_payload": {"ticket": 7}}});
    assert_eq!(stamp(&args, "k1")["metadata"], json!({"event_type": "ticket_opened", "event_payload": {"ticket": 7, "slackline_key": "k1"}}));
    let encoded = json!({"channel": "C1", "metadata": "{\"event_type\":\"ticket_opened\"}"});
    assert_eq!(stamp(&encoded, "k2")["metadata"], json!({"event_type": "ticket_opened", "event_payload": {"slackline_key": "k2"}}), "JSON text is read");
}

#[test]
fn metadata_that_is_not_slacks_shape_is_left_alone() {
    for bad in [json!("not json"), json!({"event_payload": {}}), json!(42)] {
        let args = json!({"channel": "C1", "metadata": bad.clone()});
        assert_eq!(stamp(&args, "k")["metadata"], bad);
    }
}

#[test]
fn a_thread_post_is_read_back_with_replies_and_a_channel_post_with_history() {
    let thread = Place::of(&json!({"channel": "C1", "thread_ts": "10.5"})).unwrap();
    assert_eq!(thread.method(), "conversations.replies");
    let window = Window { oldest_ms: 1_000, latest_ms: 62_500 };
    assert_eq!(
        thread.page_args(&window, 15, Some("cur")),
        json!({"channel": "C1", "ts": "10.5", "oldest": "1.000000", "latest": "62.500000", "inclusive": true, "limit": 15, "include_all_metadata": true, "cursor": "cur"})
    );
    let channel = Place::of(&json!({"channel": "C1", "thread_ts": ""})).unwrap();
    assert_eq!(channel, Place::Channel { channel: "C1".into() });
    assert_eq!(channel.method(), "conversations.history");
    assert!(channel.page_args(&window, 100, None).get("ts").is_none());
    assert_eq!(Place::of(&json!({"text": "no channel"})), None);
}

#[test]
fn the_window_reaches_a_margin_past_the_uncertain_attempts_on_each_side() {
    assert_eq!(Window::of(100_000, 130_000), Window { oldest_ms: 100_000 - CLOCK_MARGIN_MS, latest_ms: 130_000 + CLOCK_MARGIN_MS });
}

#[test]
fn a_page_yields_the_keys_of_its_posts_and_its_cursor() {
    let answer = json!({"ok": true, "messages": [
        {"ts": "1.1", "metadata": {"event_type": "slackline_post", "event_payload": {"slackline_key": "k1"}}},
        {"ts": "1.2", "text": "a person's message"},
        {"ts": "1.3", "metadata": {"event_type": "other", "event_payload": {"ticket": 1}}},
        {"ts": "1.4", "metadata": {"event_type": "ticket_opened", "event_payload": {"slackline_key": "k4"}}},
    ], "has_more": true, "response_metadata": {"next_cursor": "abc"}});
    let page = PageSeen::of(&answer);
    assert_eq!(page.posts, vec![("k1".to_string(), "1.1".to_string()), ("k4".to_string(), "1.4".to_string())]);
    assert_eq!(page.next_cursor.as_deref(), Some("abc"));
    let last = PageSeen::of(&json!({"ok": true, "messages": [], "has_more": false, "response_metadata": {"next_cursor": ""}}));
    assert_eq!(last.next_cursor, None);
}

#[test]
fn a_read_answers_the_rows_claimed_before_it_began_whose_uncertainty_it_reaches() {
    let read = Read { started_at: 50_000, window: Window::of(10_000, 50_000), end: complete(&[]) };
    assert!(read.answers(&uncertain(10_000, 50_000)), "claimed in the same claim");
    assert!(read.answers(&uncertain(20_000, 40_000)), "a later uncertainty, an earlier claim");
    assert!(!read.answers(&uncertain(20_000, 50_001)), "claimed after the read began: its post may have landed since");
    assert!(!read.answers(&uncertain(9_999, 40_000)), "uncertain before the window");
}

#[test]
fn a_complete_read_finds_the_post_by_its_key_or_says_send() {
    let read = complete(&[("k1", "1.1")]);
    assert_eq!(decide(&read, "k1", 0, 0), Decision::Found { ts: "1.1".into() });
    assert_eq!(decide(&read, "k2", 0, 0), Decision::Send);
}

#[test]
fn a_paced_read_waits_until_the_rows_read_deadline_then_falls_back_to_sending() {
    assert_eq!(decide(&ReadEnd::Paced { until: 5_000 }, "k", 0, 5_000), Decision::NotYet(Verdict::Paced { until: 5_000 }));
    assert_eq!(decide(&ReadEnd::Paced { until: 5_001 }, "k", 0, 5_000), Decision::Fallback(Fallback::BudgetSpent));
    let limited = ReadEnd::Failed(Verdict::RateLimited { retry_after_ms: Some(60_000) });
    assert_eq!(decide(&limited, "k", 1_000, 100_000), Decision::NotYet(Verdict::RateLimited { retry_after_ms: Some(60_000) }));
    assert_eq!(decide(&limited, "k", 50_000, 100_000), Decision::Fallback(Fallback::BudgetSpent));
}

#[test]
fn a_refused_read_falls_back_to_sending_and_a_failed_one_tries_again() {
    assert_eq!(decide(&ReadEnd::Refused("missing_scope".into()), "k", 0, 0), Decision::Fallback(Fallback::Refused("missing_scope".into())));
    assert_eq!(Fallback::Refused("missing_scope".into()).reason(), "refused:missing_scope");
    assert_eq!(decide(&ReadEnd::TooManyPages, "k", 0, 0), Decision::Fallback(Fallback::TooManyPages));
    assert_eq!(decide(&ReadEnd::Failed(Verdict::transient("http_503")), "k", 0, 0), Decision::NotYet(Verdict::transient("http_503")));
}

#[test]
fn the_read_deadline_is_the_rows_deadline_capped_by_the_longest_wait() {
    let row = uncertain(1_000, 2_000);
    assert_eq!(read_deadline(&row, None, 600_000), 601_000);
    assert_eq!(read_deadline(&row, Some(30_000), 600_000), 30_000);
    assert_eq!(read_deadline(&row, Some(900_000), 600_000), 601_000);
}

#[test]
fn only_a_timeout_leaves_a_posts_outcome_unknown() {
    assert_eq!(uncertain_after(Some(&Verdict::transient("timeout")), 5_000, None), Some(5_000));
    assert_eq!(uncertain_after(Some(&Verdict::transient("timeout")), 5_000, Some(3_000)), Some(3_000), "an unresolved one stays");
    assert_eq!(uncertain_after(Some(&Verdict::transient("http_503")), 5_000, None), None, "Slack's word on the new post");
    assert_eq!(uncertain_after(Some(&Verdict::transient("http_503")), 5_000, Some(3_000)), Some(3_000), "a fallback's stays until a read rules it out");
    assert_eq!(uncertain_after(Some(&Verdict::Success), 5_000, None), None);
    assert_eq!(uncertain_after(None, 5_000, Some(3_000)), Some(3_000), "not sent: still unknown");
}

#[test]
fn a_found_post_answers_as_slack_answers_a_post() {
    let answer = found_answer(&Place::Thread { channel: "C1".into(), thread_ts: "1.0".into() }, "1.5");
    assert_eq!((answer["ok"].as_bool(), answer["channel"].as_str(), answer["ts"].as_str()), (Some(true), Some("C1"), Some("1.5")));
}

#[test]
fn a_post_that_timed_out_retries_once_its_lease_has_run_out_and_before_its_deadline() {
    assert_eq!(timed_out_wait(10_000, 5_000, None, 11_000), 4_000, "the aborted call may still land until then");
    assert_eq!(timed_out_wait(10_000, 5_000, Some(13_000), 11_000), 1_000, "a second before the deadline");
    assert_eq!(timed_out_wait(10_000, 5_000, None, 16_000), 0);
}
