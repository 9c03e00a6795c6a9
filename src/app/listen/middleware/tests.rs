//! Middleware as a bot writes it: what each outcome records, the order, what it hands the handler.

use crate::app::{decide, Context, Decision};
use crate::prelude::*;
use crate::testing::{command, event, handle, mention, Team, BOT_USER};
use serde_json::json;
use std::cell::RefCell;
use std::rc::Rc;

/// Which middleware and handlers ran, in order.
type Trace = Rc<RefCell<Vec<&'static str>>>;

/// A middleware that notes `name` in `trace`, then decides `next`.
fn noting(trace: &Trace, name: &'static str, next: MiddlewareResult) -> impl Fn(&Dispatch, &mut Cx) -> MiddlewareResult {
    let trace = trace.clone();
    move |_, _| {
        trace.borrow_mut().push(name);
        next.clone()
    }
}

/// An app whose one mention listener replies, behind the global middleware `first`.
fn replying_behind(first: impl Fn(&Dispatch, &mut Cx) -> MiddlewareResult + 'static) -> Listeners {
    Listeners::new().middleware(first).mention(|_, cx| {
        cx.reply("hi");
        Ok(())
    })
}

/// One row of the outcomes' table: what the middleware returns, what the request ends as.
struct Outcome {
    case: &'static str,
    returns: MiddlewareResult,
    queued: usize,
    ignored: Option<&'static str>,
    failed: Option<&'static str>,
}

#[test]
fn each_outcome_of_a_middleware_decides_the_request() {
    let cases = [
        Outcome { case: "continue: the handler runs", returns: Ok(Next::Continue), queued: 1, ignored: None, failed: None },
        Outcome {
            case: "ignore: recorded with its reason, nothing queued",
            returns: Ok(Next::Ignore("maintenance")),
            queued: 0,
            ignored: Some("maintenance"),
            failed: None,
        },
        Outcome {
            case: "fail: like a handler's Err",
            returns: Err("tenant lookup failed".into()),
            queued: 0,
            ignored: None,
            failed: Some("tenant lookup failed"),
        },
    ];
    for Outcome { case, returns, queued, ignored, failed } in cases {
        let done = handle(&replying_behind(move |_, _| returns.clone()), &mention("C1", "U1", "<@UBOT> hello"));
        assert_eq!((done.effects.len(), done.ignored, done.failed.as_deref()), (queued, ignored, failed), "{case}");
    }
}

#[test]
fn global_middleware_runs_in_order_then_the_groups_outer_first_then_the_handler() {
    let trace = Trace::default();
    let (t, h) = (trace.clone(), trace.clone());
    let app = Listeners::new()
        .middleware(noting(&trace, "global 1", Ok(Next::Continue)))
        .middleware(noting(&trace, "global 2", Ok(Next::Continue)))
        .group(noting(&trace, "outer group", Ok(Next::Continue)), |l| {
            l.middleware(noting(&trace, "outer group's own", Ok(Next::Continue))).group(noting(&trace, "inner group", Ok(Next::Continue)), |l| {
                l.command("/deploy", move |_, _| {
                    t.borrow_mut().push("/deploy");
                    Ok(())
                })
            })
        })
        .command("/status", move |_, _| {
            h.borrow_mut().push("/status");
            Ok(())
        });
    handle(&app, &command("/deploy", ""));
    assert_eq!(trace.take(), ["global 1", "global 2", "outer group", "outer group's own", "inner group", "/deploy"]);
    handle(&app, &command("/status", ""));
    assert_eq!(trace.take(), ["global 1", "global 2", "/status"], "a listener outside the group runs behind the global middleware only");
}

#[test]
fn the_first_middleware_that_stops_ends_the_run_and_the_later_ones_never_see_the_request() {
    let trace = Trace::default();
    let h = trace.clone();
    let app = Listeners::new()
        .middleware(noting(&trace, "kill switch", Ok(Next::Ignore("paused"))))
        .middleware(noting(&trace, "lookup", Ok(Next::Continue)))
        .mention(move |_, _| {
            h.borrow_mut().push("handler");
            Ok(())
        });
    assert_eq!(handle(&app, &mention("C1", "U1", "<@UBOT> hi")).ignored, Some("paused"));
    assert_eq!(trace.take(), ["kill switch"]);
}

/// What a middleware looked up, for the handler.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
struct Profile {
    name: String,
}

#[test]
fn what_a_middleware_inserts_is_what_the_handler_reads_by_its_type() {
    let app = Listeners::new()
        .middleware(|_, cx| {
            let user = cx.origin().user.clone().unwrap_or_default();
            let profile = cx.state().get::<Profile>(&format!("profile:{user}"))?.ok_or("no profile")?;
            cx.insert(profile);
            Ok(Next::Continue)
        })
        .mention(|_, cx| {
            let name = cx.extension::<Profile>().map(|p| p.name.clone()).ok_or("the middleware kept no profile")?;
            cx.reply(&format!("Hi {name}"));
            Ok(())
        });
    let team = Team::new();
    team.put("profile:U1", &Profile { name: "Ada".into() });
    let done = team.handle(&app, &mention("C1", "U1", "<@UBOT> hi"));
    assert_eq!(done.calls()[0].1["text"], "Hi Ada");
    let stranger = team.handle(&app, &mention("C1", "U2", "<@UBOT> hi"));
    assert_eq!(stranger.failed.as_deref(), Some("no profile"), "a lookup that fails fails the request");
}

#[test]
fn an_ignored_request_queues_nothing_and_writes_nothing_even_what_was_queued_before_the_stop() {
    let app = Listeners::new()
        .middleware(|_, cx| {
            cx.say("CAUDIT", "seen");
            cx.state().put("seen", &1)?;
            Ok(Next::Continue)
        })
        .group(
            |_, cx| {
                cx.react("no_entry");
                cx.ack_ephemeral("Admins only.");
                Ok(Next::Ignore("not_admin"))
            },
            |admin| admin.command("/purge", |_, _| Ok(())).mention(|_, _| Ok(())),
        );
    let team = Team::new();
    let refused = team.handle(&app, &command("/purge", ""));
    assert_eq!((refused.ignored, refused.effects.len(), refused.state.len()), (Some("not_admin"), 0, 0));
    assert_eq!(team.state.value("seen"), None, "the state the global middleware wrote is not kept");
    assert_eq!(refused.ack.expect("a command keeps the ack the middleware set")["text"], "Admins only.");
    let mentioned = team.handle(&app, &mention("C1", "U1", "<@UBOT> purge"));
    assert_eq!((mentioned.ignored, mentioned.ack), (Some("not_admin"), None), "an event's ack is always empty");
}

#[test]
fn a_failing_middleware_fails_the_request_as_a_failing_handler_does() {
    let request = mention("C1", "U1", "<@UBOT> hi");
    let by_middleware = Listeners::new().middleware(|_, _| Err("directory unreachable".into())).mention(|_, _| Ok(()));
    let by_handler = Listeners::new().mention(|_, cx| {
        cx.reply("half done");
        Err("directory unreachable".into())
    });
    for app in [by_middleware, by_handler] {
        let output = decide(&app, &request, &Context::default());
        assert_eq!((output.decision, output.ack, output.state), (Decision::Failed("directory unreachable".into()), None, None));
    }
    let panicking = Listeners::new().middleware(|_, _| panic!("bad middleware")).mention(|_, _| Ok(()));
    let Decision::Failed(why) = decide(&panicking, &request, &Context::default()).decision else { panic!("a panic fails the request") };
    assert!(why.starts_with("panicked: bad middleware at "), "{why}");
}

#[test]
fn global_middleware_sees_requests_no_listener_takes_and_bots_messages() {
    let trace = Trace::default();
    let continuing = Listeners::new().middleware(noting(&trace, "seen", Ok(Next::Continue))).command("/only", |_, _| Ok(()));
    let from_us = event(json!({"type": "message", "channel": "C1", "user": BOT_USER, "text": "done", "ts": "3.1"}));
    assert_eq!(handle(&continuing, &mention("C1", "U1", "<@UBOT> hi")).ignored, Some("no_listener"));
    assert_eq!(handle(&continuing, &from_us).ignored, Some("bot_message"));
    assert_eq!(trace.take(), ["seen", "seen"]);
    let stopping = Listeners::new().middleware(|_, _| Ok(Next::Ignore("paused"))).command("/only", |_, _| Ok(()));
    assert_eq!(handle(&stopping, &mention("C1", "U1", "<@UBOT> hi")).ignored, Some("paused"), "its reason, not no_listener");
}

#[test]
fn a_group_that_ignores_the_request_does_not_let_it_fall_through_to_a_later_listener() {
    let app = Listeners::new().group(|_, _| Ok(Next::Ignore("not_admin")), |admin| admin.command("/deploy", |_, _| Ok(()))).command("/deploy", |_, cx| {
        cx.ack_ephemeral("the later listener ran");
        Ok(())
    });
    let done = handle(&app, &command("/deploy", ""));
    assert_eq!((done.ignored, done.ack), (Some("not_admin"), None));
}
