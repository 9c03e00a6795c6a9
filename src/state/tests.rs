use super::*;
use serde_json::json;
use std::rc::Rc;

fn store(entries: &[(&str, serde_json::Value)]) -> Rc<MemState> {
    let mem = MemState::new();
    mem.apply(&entries.iter().map(|(k, v)| StateWrite::Put { key: k.to_string(), value: v.to_string() }).collect::<Vec<_>>());
    Rc::new(mem)
}

#[test]
fn a_handler_reads_its_own_writes_and_the_store_is_untouched_until_applied() {
    let mem = store(&[("votes", json!(3))]);
    let mut state = State::new(mem.clone());
    state.update::<u32>("votes", |n| Some(n.unwrap_or(0) + 1)).unwrap();
    assert_eq!(state.get::<u32>("votes").unwrap(), Some(4));
    assert_eq!(mem.value("votes"), Some(json!(3)), "writes are buffered, not applied");
    mem.apply(&state.take_writes());
    assert_eq!(mem.value("votes"), Some(json!(4)));
}

#[test]
fn a_scan_merges_buffered_puts_and_deletes_in_key_order_with_its_limit() {
    let mem = store(&[("i:1", json!("a")), ("i:2", json!("b")), ("i:3", json!("c")), ("j:1", json!("x"))]);
    let mut state = State::new(mem);
    state.delete("i:1").unwrap();
    state.put("i:0", "z").unwrap();
    let page: Vec<(String, String)> = state.scan("i:", 3).unwrap();
    assert_eq!(page, vec![("i:0".into(), "z".into()), ("i:2".into(), "b".into()), ("i:3".into(), "c".into())]);
    let after: Vec<(String, String)> = state.scan_after("i:", Some("i:2"), 10).unwrap();
    assert_eq!(after, vec![("i:3".into(), "c".into())]);
}

#[test]
fn a_value_over_64_kib_is_refused_and_nothing_is_buffered() {
    let mut state = State::new(Rc::new(MemState::new()));
    let big = "x".repeat(MAX_VALUE_BYTES);
    let err = state.put("big", &big).unwrap_err();
    assert!(matches!(err, StateError::ValueTooLarge { bytes, .. } if bytes == MAX_VALUE_BYTES + 2));
    assert!(!state.changed(), "a refused put leaves nothing to write");
}

#[test]
fn a_new_key_past_the_team_limit_is_refused_but_an_existing_one_may_change() {
    let full: Vec<StateWrite> = (0..MAX_KEYS).map(|i| StateWrite::Put { key: format!("k{i:05}"), value: "1".into() }).collect();
    let mem = MemState::new();
    mem.apply(&full);
    let mut state = State::new(Rc::new(mem));
    assert_eq!(state.put("new", &1).unwrap_err(), StateError::TooManyKeys { key: "new".into() });
    state.put("k00001", &2).expect("replacing a value adds no key");
    state.delete("k00002").unwrap();
    state.put("new", &1).expect("a deleted key makes room");
    assert_eq!(state.put("newer", &1).unwrap_err(), StateError::TooManyKeys { key: "newer".into() });
}

#[test]
fn keys_must_be_non_empty_and_at_most_512_bytes() {
    let mut state = State::new(Rc::new(MemState::new()));
    assert!(matches!(state.put("", &1), Err(StateError::BadKey(_))));
    assert!(matches!(state.put(&"k".repeat(MAX_KEY_BYTES + 1), &1), Err(StateError::BadKey(_))));
    state.put(&"k".repeat(MAX_KEY_BYTES), &1).unwrap();
}

#[test]
fn a_value_of_another_type_is_a_serde_error_naming_the_key() {
    let state = State::new(store(&[("n", json!("text"))]));
    assert!(matches!(state.get::<u32>("n"), Err(StateError::Serde { key, .. }) if key == "n"));
}

#[test]
fn the_end_of_a_prefix_range_steps_up_its_last_character() {
    assert_eq!(prefix_end("incident:").as_deref(), Some("incident;"));
    assert_eq!(prefix_end("a\u{D7FF}").as_deref(), Some("a\u{E000}"), "surrogates are skipped");
    assert_eq!(prefix_end(""), None);
    assert_eq!(prefix_end(&format!("a{}", char::MAX)).as_deref(), Some("b"));
}

#[test]
fn secret_keys_are_those_under_a_secret_prefix() {
    let prefixes = vec!["token:".to_string()];
    assert!(is_secret(&prefixes, "token:U1"));
    assert!(!is_secret(&prefixes, "votes"));
}
