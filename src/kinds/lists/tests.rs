use super::*;
use serde_json::json;

fn map() -> ColumnMap {
    serde_json::from_value(json!({
        "key_column": "ColKEY",
        "columns": {
            "title": {"column_id": "ColT", "type": "text"},
            "points": {"column_id": "ColN", "type": "number"},
            "due": {"column_id": "ColD", "type": "date"},
            "owner": {"column_id": "ColU", "type": "user"},
            "done": {"column_id": "ColC", "type": "checkbox"},
            "status": {"column_id": "ColS", "type": "select"},
            "url": {"column_id": "ColL", "type": "link"}
        }
    }))
    .unwrap()
}

#[test]
fn a_record_becomes_column_id_cells_with_typed_keys_and_the_mirrored_key_last() {
    let cells = map().cells("inc-42", &json!({"title": "DB down", "points": 3, "due": "2026-12-24", "owner": "U1", "done": false})).unwrap();
    let by_column = |id: &str| cells.iter().find(|c| c["column_id"] == id).unwrap().clone();
    assert_eq!(by_column("ColT")["rich_text"][0]["elements"][0]["elements"][0]["text"], "DB down");
    assert_eq!(by_column("ColN")["number"], json!([3]));
    assert_eq!(by_column("ColD")["date"], json!(["2026-12-24"]));
    assert_eq!(by_column("ColU")["user"], json!(["U1"]));
    assert_eq!(by_column("ColC")["checkbox"], json!(false));
    assert_eq!(cells.last().unwrap()["column_id"], "ColKEY");
    for cell in &cells {
        assert!(cell.get("key").is_none() && cell.get("value").is_none(), "never the deprecated key/value form: {cell}");
        assert!(cell.get("text").is_none(), "plain text is not accepted on input: {cell}");
    }
}

#[test]
fn an_unknown_field_or_a_wrong_type_is_refused_naming_the_field() {
    let m = map();
    assert_eq!(m.cells("r", &json!({"titel": "x"})), Err(FieldError::UnknownField("titel".into())));
    for (field, value) in [
        ("points", json!("3")),
        ("due", json!("24/12/2026")),
        ("due", json!("2026-13-01")),
        ("owner", json!("bob")),
        ("done", json!("yes")),
        ("status", json!("in_progress")),
        ("url", json!("ftp://x")),
        ("title", json!(5)),
    ] {
        let err = m.cells("r", &json!({ field: value })).unwrap_err();
        assert_eq!(err.field(), Some(field), "{field} = {value}: {err:?}");
        assert!(err.message().contains(field));
    }
    assert_eq!(m.cells("r", &json!(["title"])), Err(FieldError::NotAnObject));
}

#[test]
fn lists_of_ids_are_accepted_where_slack_takes_several() {
    let cells = map().cells("r", &json!({"owner": ["U1", "W2"], "status": ["Opt1"]})).unwrap();
    assert_eq!(cells[0]["user"], json!(["U1", "W2"]));
    assert_eq!(cells[1]["select"], json!(["Opt1"]));
    assert!(map().cells("r", &json!({"owner": []})).is_err(), "an empty list is not a user");
}

#[test]
fn a_column_map_is_checked_before_it_is_stored() {
    assert_eq!(map().validate(), Ok(()));
    let mut m = map();
    m.key_column = "ColT".into();
    assert!(matches!(m.validate(), Err(FieldError::BadMap(why)) if why.contains("used twice")), "the key column is not a field's");
    let mut m = map();
    m.key_column = "title".into();
    assert!(m.validate().is_err());
    let mut m = map();
    m.columns.insert("bad name!".into(), Column { column_id: "ColZ".into(), kind: ColumnType::Text });
    assert!(m.validate().is_err());
    let mut m = map();
    m.columns.clear();
    assert!(m.validate().is_err());
    assert!(!map().recreate_missing, "recreating rows deleted in Slack is off by default");
}

#[test]
fn the_mirrored_key_is_read_from_the_text_fallback_or_the_rich_text() {
    let with_fallback = json!({"id": "Rec1", "fields": [{"column_id": "ColKEY", "key": "k", "value": "x", "text": "inc-42"}]});
    assert_eq!(mirrored_key(&with_fallback, "ColKEY").as_deref(), Some("inc-42"));
    let rich_only = json!({"id": "Rec2", "fields": [text_cell("ColKEY", "inc-43")]});
    assert_eq!(mirrored_key(&rich_only, "ColKEY").as_deref(), Some("inc-43"));
    assert_eq!(mirrored_key(&rich_only, "ColOTHER"), None);
    assert_eq!(mirrored_key(&json!({"id": "Rec3"}), "ColKEY"), None);
}

#[test]
fn a_handlers_record_is_stored_with_its_completion_unless_parked() {
    use super::end::{ListsEnd, ListsWrite};
    use crate::slack::classify::Verdict;
    let put = ListsWrite::Put { list_id: "F1".into(), record_id: "r".into(), fields: "{}".into() };
    assert_eq!(ListsEnd::Put(put.clone()).write(&Verdict::Success, false), Some(put.clone()));
    assert_eq!(ListsEnd::Put(put).write(&Verdict::Success, true), None, "a parked row stores nothing");
}
