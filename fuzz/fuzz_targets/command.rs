//! Slash command form parsing never panics; a dispatched command always has its keys.
#![no_main]
use libfuzzer_sys::fuzz_target;
use slackline::internal::slack::envelope::{parse_command_form, Inbound};

fuzz_target!(|data: &[u8]| {
    if let Ok(Inbound::Dispatch(d)) = parse_command_form(data) {
        assert!(!d.team_key().is_empty() && !d.op_key().is_empty());
    }
});
