//! Events API parsing never panics, and whatever it dispatches survives the trip to the actor.
#![no_main]
use libfuzzer_sys::fuzz_target;
use slackline::internal::slack::envelope::{parse_events_body, Dispatch, Inbound};

fuzz_target!(|data: &[u8]| {
    if let Ok(Inbound::Dispatch(d)) = parse_events_body(data) {
        let wire = serde_json::to_string(&d).unwrap();
        let back: Dispatch = serde_json::from_str(&wire).unwrap();
        assert_eq!(back, d);
        assert!(!d.team_key().is_empty() && !d.op_key().is_empty());
    }
});
