use super::*;
use serde_json::json;

#[test]
fn an_answer_reads_as_the_answer_and_its_data_as_the_handlers_type() {
    #[derive(Deserialize, PartialEq, Debug)]
    struct Asked {
        channel: String,
    }
    let answered =
        Answered::new("tz", "Ev1:api", 1_000, Ended::Answered { answer: json!({"ok": true, "user": {"tz": "Asia/Kathmandu"}}) }, json!({"channel": "C1"}));
    assert_eq!(answered.answer().unwrap()["user"]["tz"], "Asia/Kathmandu");
    assert!(answered.failure().is_none());
    assert_eq!(answered.data::<Asked>().unwrap(), Asked { channel: "C1".into() });
    assert_eq!(answered.fact(), "answer:Ev1:api@1000");
}

#[test]
fn a_failure_reads_as_the_failure_and_data_of_another_shape_as_an_error_in_words() {
    let failure = Failure { error: Some("user_not_found".into()), reason: "permanent".into(), attempts: 1 };
    let answered = Answered::new("tz", "Ev1:api", 1_000, Ended::Failed(failure.clone()), json!(7));
    assert_eq!((answered.answer(), answered.failure()), (None, Some(&failure)));
    let refused = answered.data::<String>().unwrap_err().to_string();
    assert!(refused.contains("result listener \"tz\"") && refused.contains("does not read"), "{refused}");
}

#[test]
fn an_answered_effect_keeps_its_answer_and_data_through_its_json() {
    let answered = Answered::new("tz", "Ev1:api", 1_000, Ended::Answered { answer: json!({"ok": true}) }, json!({"n": 1}));
    let text = serde_json::to_string(&answered).unwrap();
    assert_eq!(serde_json::from_str::<Answered>(&text).unwrap(), answered);
    assert!(text.contains(r#""ended":"answered""#), "{text}");
}
