//! The tally: a small app of the listener API that keeps votes in the team's state. It is the
//! state example of `docs/app.md`, and the end-to-end tests serve it beside the echo bot through
//! a test-only path (`runtime::test_hooks::HookedApp`, only with `ALLOW_TEST_CLOCK=1`): a request
//! whose text (or action) names [`MARKER`] goes to the tally instead of the app.
//!
//! A message or a mention containing `slackline-tally` and a word:
//! - `vote`: adds one to `votes:{channel}:{ts}` (the post's count) and to `votes:total`, and
//!   sets `votes:last`;
//! - `bench` (the benchmark's state mode): reads 3 keys (`votes:total`, `votes:last`, the
//!   post's), writes 1 (the post's count) and replies; `plain` (its stateless twin) only replies;
//! - `fail`: writes, then returns an `Err`; `panic`: writes, then panics; `big`: writes, then
//!   stores a value over 64 KiB (the handler fails with the limit's error): none of them leaves a
//!   state change;
//! - `post`: posts "tally" in the channel and remembers Slack's answer under `post:{channel}:{ts}`;
//! - `secret`: stores `secret:{ts}` (a key under a prefix the tally marks secret: redacted in the
//!   admin API);
//! - `session`: states the thread's agent session `processing` and streams an answer; `waits`:
//!   streams an answer, then states the session `suspended` (the agent-session tests).
//! - `plan`: streams an answer whose tasks show as a plan titled [`PLAN_TITLE`] (the structured
//!   streams' tests); `closing`: streams an answer that closes with [`closing_blocks`].
//!
//! - `whois`: looks the user up (`users.info`) with a result listener ([`WHOIS`]) that tells the
//!   channel their time zone, or why the lookup failed; `whois-bug`: the listener fails.
//!
//! The button `slackline_tally_update` (its value: a remembered key) edits the remembered message
//! (`chat.update` of its `ts`).
//!
//! Its global middleware (the middleware tests') drops a message with the word `drop` after
//! queueing a reply and writing `votes:dropped`: it is ignored as [`DROPPED`], and neither is
//! kept.
//!
//! Links of [`TICKETS_DOMAIN`] (whose name holds the marker, so their `link_shared` reaches the
//! tally) unfurl as Work Objects: each a task, its id the URL's last path segment, titled
//! `Ticket {id}`; a click on one (`entity_details_requested`) shows the same task in its flexpane
//! (the unfurls' tests).

use super::listen::{Cx, HandlerResult, Listeners, MessageIn, MiddlewareResult, Next, Pattern, StepIn};
use crate::kinds::answer::Answered;
use crate::kinds::unfurl::{Entity, EntityDetailsRequest, LinkShared, Unfurls};
use crate::slack::envelope::{Dispatch, Event};
use crate::state::{Posted, MAX_VALUE_BYTES};

/// The word that sends a request to the tally (in the test runtimes).
pub const MARKER: &str = "slackline-tally";
/// The tally's button.
pub const UPDATE_ACTION: &str = "slackline_tally_update";
/// The title of the plan a `plan` answer shows.
pub const PLAN_TITLE: &str = "tally plan";
/// Keys under this prefix are secret.
pub const SECRET_PREFIX: &str = "secret:";
/// The reason the tally's middleware drops a message with the word `drop`.
pub const DROPPED: &str = "tally_dropped";

/// The tally's middleware: a message with the word `drop` is dropped, after it queued a reply and
/// wrote a vote (neither of which is kept); any other request goes on.
fn drop_on_request(request: &Dispatch, cx: &mut Cx) -> MiddlewareResult {
    let Dispatch::Event(envelope) = request else { return Ok(Next::Continue) };
    let (Event::AppMention(m) | Event::Message(m)) = &envelope.event else { return Ok(Next::Continue) };
    if !m.text.split_whitespace().any(|w| w == "drop") {
        return Ok(Next::Continue);
    }
    cx.reply("dropped (never sent)");
    cx.state().put("votes:dropped", &1)?;
    Ok(Next::Ignore(DROPPED))
}

/// The blocks a `closing` answer shows under its text.
pub fn closing_blocks() -> Vec<serde_json::Value> {
    vec![serde_json::json!({"type": "divider"}), serde_json::json!({"type": "context", "elements": [{"type": "mrkdwn", "text": "tally sources"}]})]
}
/// The tally's result listener (`whois`): tells the channel the user's time zone from
/// `users.info`'s answer, or why the lookup failed; `whois-bug` makes the listener fail.
pub const WHOIS: &str = "tally_whois";

/// What a `whois` lookup carries to its result listener.
#[derive(serde::Serialize, serde::Deserialize)]
struct Asked {
    channel: String,
    user: String,
    bug: bool,
}

fn told_whois(answered: &Answered, cx: &mut Cx) -> HandlerResult {
    let asked: Asked = answered.data()?;
    if asked.bug {
        return Err(format!("the tally's result listener was told to fail on {}", asked.user).into());
    }
    let text = match (answered.answer(), answered.failure()) {
        (Some(answer), _) => format!("{} is on {}", asked.user, answer.pointer("/user/tz").and_then(serde_json::Value::as_str).unwrap_or("no time zone")),
        (_, Some(failure)) => {
            format!("no lookup of {}: {} after {} attempt(s)", asked.user, failure.error.as_deref().unwrap_or(&failure.reason), failure.attempts)
        }
        _ => return Err("an effect ends answered or failed".into()),
    };
    cx.say(&asked.channel, &text);
    Ok(())
}

/// The domain whose links the tally unfurls as Work Objects.
pub const TICKETS_DOMAIN: &str = "tickets.slackline-tally.test";

fn on_message(m: &MessageIn<'_>, cx: &mut Cx) -> HandlerResult {
    let post = format!("{}:{}", m.message.channel, m.message.ts);
    let word = |w: &str| m.message.text.split_whitespace().any(|t| t == w);
    if word("plain") {
        cx.reply("counted");
        return Ok(());
    }
    if word("bench") {
        let state = cx.state();
        let _total: Option<u64> = state.get("votes:total")?;
        let _last: Option<String> = state.get("votes:last")?;
        state.update::<u64>(&format!("votes:{post}"), |n| Some(n.unwrap_or(0) + 1))?;
        cx.reply("counted");
        return Ok(());
    }
    if word("post") {
        cx.say(&m.message.channel, "tally").remember(&format!("post:{post}"));
        return Ok(());
    }
    if word("secret") {
        cx.state().put(&format!("{SECRET_PREFIX}{}", m.message.ts), "hunter2")?;
        return Ok(());
    }
    if word("whois") || word("whois-bug") {
        // The result listener's tests: the user's time zone, looked up and told in the channel.
        let user = m.message.user.clone().unwrap_or_default();
        let asked = Asked { channel: m.message.channel.clone(), user: user.clone(), bug: word("whois-bug") };
        cx.api(crate::slack::method::USERS_INFO, serde_json::json!({ "user": user })).then(WHOIS, &asked);
        return Ok(());
    }
    if word("session") || word("waits") {
        return agent_session(m, cx, word("waits"));
    }
    if word("plan") {
        cx.stream_answer(m, &m.message.text).plan(PLAN_TITLE);
        return Ok(());
    }
    if word("closing") {
        cx.stream_answer(m, &m.message.text).closing_blocks(closing_blocks());
        return Ok(());
    }
    vote(cx, &post)?;
    if word("fail") {
        return Err("the tally was told to fail".into());
    }
    if word("panic") {
        panic!("the tally was told to panic");
    }
    if word("big") {
        cx.state().put("votes:big", &"x".repeat(MAX_VALUE_BYTES))?;
    }
    Ok(())
}

/// An agent's turn in the message's thread, with its session: `session` states `processing`
/// (titled) and streams the answer; `waits` streams the answer, then states `suspended` (the
/// agent waits on a person once it has answered).
fn agent_session(m: &MessageIn<'_>, cx: &mut Cx, waits: bool) -> HandlerResult {
    let (channel, thread) = (m.message.channel.clone(), m.message.thread_ts.clone().unwrap_or_else(|| m.message.ts.clone()));
    if !waits {
        cx.session(&channel, &thread).title("tally session").processing();
    }
    cx.stream_answer(m, &m.message.text);
    if waits {
        cx.session(&channel, &thread).suspended();
    }
    Ok(())
}

/// One vote: 3 keys read, 3 written.
fn vote(cx: &mut Cx, post: &str) -> HandlerResult {
    let state = cx.state();
    let total = state.get::<u64>("votes:total")?.unwrap_or(0);
    let _last: Option<String> = state.get("votes:last")?;
    state.update::<u64>(&format!("votes:{post}"), |n| Some(n.unwrap_or(0) + 1))?;
    state.put("votes:total", &(total + 1))?;
    state.put("votes:last", post)?;
    Ok(())
}

/// The tally's Workflow step (`tally_step`), by its `mode` input: `fail` returns an error, `panic`
/// panics, `silent` queues no ending (the guard fails the step at its deadline); any other
/// completes with the inputs as outputs.
fn step(step: &StepIn, cx: &mut Cx) -> HandlerResult {
    match step.input("mode") {
        Some("fail") => Err("the tally step was told to fail".into()),
        Some("panic") => panic!("the tally step was told to panic"),
        Some("silent") => Ok(()),
        _ => {
            cx.complete(step.inputs.clone());
            Ok(())
        }
    }
}

/// A ticket of [`TICKETS_DOMAIN`] at `url`, as a Work Object: its id the URL's last path segment.
fn ticket(url: &str) -> Entity {
    let id = url.split(['?', '#']).next().unwrap_or_default().rsplit('/').next().unwrap_or_default();
    Entity::task(id, url, &format!("Ticket {id}")).field("status", serde_json::json!({ "value": "open" }))
}

/// Every ticket link shared, unfurled as its Work Object.
fn unfurl_tickets(links: &LinkShared, cx: &mut Cx) -> HandlerResult {
    let unfurls = links.links.iter().fold(Unfurls::new(), |unfurls, link| unfurls.entity(&link.url, ticket(&link.url)));
    cx.unfurl(unfurls);
    Ok(())
}

/// A click on a ticket: its flexpane.
fn present_ticket(click: &EntityDetailsRequest, cx: &mut Cx) -> HandlerResult {
    let url = click.entity_url.as_deref().ok_or("the click names no entity_url")?;
    cx.present_details(ticket(url));
    Ok(())
}

/// The tally's listeners.
pub fn tally() -> Listeners {
    Listeners::new()
        .middleware(drop_on_request)
        .function("tally_step", step)
        .unfurl(TICKETS_DOMAIN, unfurl_tickets)
        .entity_details(present_ticket)
        .mention(on_message)
        .on_result(WHOIS, told_whois)
        .message(Pattern::contains(MARKER), on_message)
        .action(UPDATE_ACTION, |a, cx| {
            let key = a.action.value.clone().unwrap_or_default();
            let Some(posted) = cx.state().get::<Posted>(&key)? else { return Err(format!("nothing remembered under {key:?}").into()) };
            cx.update(&posted.channel, &posted.ts, serde_json::json!({ "text": "tally (updated)" }));
            Ok(())
        })
        .secret_state(SECRET_PREFIX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{action, mention, message, Team};
    use serde_json::json;

    #[test]
    fn a_vote_counts_the_post_and_the_total() {
        let team = Team::new();
        team.handle(&tally(), &mention("C1", "U1", "<@UBOT> slackline-tally vote"));
        team.handle(&tally(), &message("C1", "U2", "slackline-tally vote"));
        assert_eq!(team.state.value("votes:total"), Some(json!(2)));
        assert_eq!(team.state.entries().iter().filter(|(k, _)| k.starts_with("votes:C1:")).count(), 2);
    }

    #[test]
    fn failing_panicking_and_oversized_votes_leave_no_state() {
        let team = Team::new();
        for word in ["fail", "panic", "big"] {
            let done = team.handle(&tally(), &message("C1", "U1", &format!("slackline-tally {word}")));
            assert!(done.failed.is_some(), "{word}");
        }
        assert!(team.state.entries().is_empty());
    }

    #[test]
    fn the_button_updates_the_remembered_message() {
        let team = Team::new();
        team.state.apply(&[crate::state::StateWrite::Put { key: "post:C1:1.1".into(), value: json!({"channel": "C1", "ts": "9.9"}).to_string() }]);
        let done = team.handle(&tally(), &action(UPDATE_ACTION, "post:C1:1.1"));
        let (method, args) = &done.calls()[0];
        assert_eq!((method.as_str(), args["channel"].as_str(), args["ts"].as_str()), ("chat.update", Some("C1"), Some("9.9")));
    }

    #[test]
    fn a_message_with_the_word_drop_is_ignored_and_keeps_nothing() {
        let team = Team::new();
        let done = team.handle(&tally(), &mention("C1", "U1", "<@UBOT> slackline-tally drop"));
        assert_eq!((done.ignored, done.effects.len()), (Some(DROPPED), 0));
        assert!(team.state.entries().is_empty());
    }

    #[test]
    fn a_ticket_link_unfurls_as_its_task_and_a_click_shows_it() {
        let url = format!("https://{TICKETS_DOMAIN}/T-7");
        let done = crate::testing::handle(&tally(), &crate::testing::link_shared("C1", &[&url, "https://elsewhere.test/x"]));
        let entities = done.queued()[0].args["metadata"]["entities"].clone();
        assert_eq!(entities.as_array().map(Vec::len), Some(1), "the domain's links only: {entities}");
        assert_eq!((entities[0]["external_ref"]["id"].as_str(), entities[0]["app_unfurl_url"].as_str()), (Some("T-7"), Some(url.as_str())));
        let clicked = crate::testing::handle(&tally(), &crate::testing::entity_details_requested("T-7", &url));
        assert_eq!(clicked.queued()[0].args["metadata"], ticket(&url).to_json());
    }

    #[test]
    fn the_secret_prefix_is_secret() {
        use crate::app::App;
        assert!(tally().is_secret_state("secret:1"));
        assert!(!tally().is_secret_state("votes:total"));
    }
}
