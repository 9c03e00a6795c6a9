//! The errors a bot meets are standard errors: they go into `Box<dyn std::error::Error>` with `?`,
//! and each says in words what went wrong (issue 53: public errors implement `std::error::Error`).

use slackline::internal::config::ConfigError;
use slackline::internal::kinds::lists::FieldError;
use slackline::internal::slack::envelope::ParseError;
use slackline::internal::slack::signature::SignatureError;
use slackline::prelude::HandlerError;
use std::error::Error;

fn said(e: impl Error + 'static) -> String {
    let boxed: Box<dyn Error> = Box::new(e);
    boxed.to_string()
}

#[test]
fn the_errors_a_bot_meets_are_std_errors_that_say_what_went_wrong() {
    assert_eq!(said(HandlerError("no ticket system".into())), "no ticket system");
    assert_eq!(said(ConfigError { var: "MAX_ATTEMPTS", problem: "must be a number".into() }), "MAX_ATTEMPTS: must be a number");
    assert_eq!(said(FieldError::UnknownField("prio".into())), "unknown field `prio`: the list's column map does not name it");
    assert_eq!(said(ParseError::MissingField("type")), "missing or invalid field: type");
    assert_eq!(said(SignatureError::Mismatch), "bad_signature", "a label that tells a forger nothing");
}

#[test]
fn a_handler_error_goes_into_a_boxed_error_with_a_question_mark() {
    fn handler() -> Result<(), Box<dyn Error>> {
        Err(HandlerError("stopped".into()))?
    }
    assert_eq!(handler().unwrap_err().to_string(), "stopped");
}
