//! `slackline-sim triage`: `examples/triage`'s whole flow against a running slackline that serves
//! it (`make try APP=triage`), as Slack would drive it — `/incident`, the modal's submission, a
//! click on "Acknowledge", then on "Resolve" — printing, at each step, the ack and what slackline
//! sent the fake Slack (`views.open`, the announcement, its thread's answer, its `chat.update`s).
//!
//! Each step waits for its calls (at most the timeout) before the next is sent, so the report is
//! the flow's order; a step whose call never comes ends the run with what was missing (exit 1).
//! The bot's ids (`incident`, `incident_acknowledge`, …) are the example's, restated here: the
//! simulator does not depend on the example crate, and `make try APP=triage` (run by `make test`)
//! fails if they drift apart.

use super::{acked, describe, Failure};
use crate::client::{button_click, fresh_id, fresh_trigger_id, view_submission, SimCall, Target};
use serde_json::{json, Value};
use slackline::internal::slack::method;
use std::time::Duration;

/// The modal's `callback_id`.
pub const MODAL: &str = "incident";
/// The announcement's buttons.
pub const ACKNOWLEDGE: &str = "incident_acknowledge";
/// See [`ACKNOWLEDGE`].
pub const RESOLVE: &str = "incident_resolve";

/// The submission of the incident modal by `user` of `team`: `title` typed, `severity`
/// (`sev1`…`sev3`) picked.
pub fn incident_submission(team: &str, user: &str, title: &str, severity: &str) -> Value {
    let mut payload = view_submission(team, MODAL, &[("title".into(), "title_input".into(), title.into())]);
    payload["view"]["state"]["values"]["severity"] = json!({"severity_select": {"type": "static_select", "selected_option": {"value": severity}}});
    payload["user"] = json!({"id": user, "team_id": team});
    payload
}

/// One step's calls: the first after position `after` that `matches`, within `timeout`.
struct Step<'a> {
    target: &'a Target,
    timeout: Duration,
}

impl Step<'_> {
    fn wait(&self, after: usize, what: &str, matches: impl Fn(&SimCall) -> bool) -> Result<SimCall, Failure> {
        // Answered too: a post's `ts` is in the answer.
        let call = self.target.wait_for(after, self.timeout, |c| c.answer.is_some() && matches(c))?;
        call.ok_or_else(|| Failure::Unexpected(format!("no {what} reached the fake Slack within {} s", self.timeout.as_secs())))
    }
}

/// Runs the flow for `team`; the report, step by step.
pub fn run(target: &Target, team: &str, timeout: Duration) -> Result<String, Failure> {
    let step = Step { target, timeout };
    let mut out = Vec::new();
    let (reporter, title) = ("U1", format!("Checkout fails ({})", fresh_id("")));

    out.push("1. /incident".to_string());
    let (before, trigger, hook) = (target.call_count()?, fresh_trigger_id(), target.response_url(&fresh_id("hook")));
    let fields = [
        ("command", "/incident"),
        ("text", ""),
        ("team_id", team),
        ("channel_id", "C0SIM"),
        ("user_id", reporter),
        ("response_url", &hook),
        ("trigger_id", &trigger),
    ];
    out.push(acked(&target.command(&fields)?)?);
    let opened = step.wait(before, method::VIEWS_OPEN, |c| c.method == method::VIEWS_OPEN && c.field("trigger_id") == Some(&trigger))?;
    let view = &opened.json.clone().unwrap_or_default()["view"];
    let blocks: Vec<&str> = view["blocks"].as_array().into_iter().flatten().filter_map(|b| b["block_id"].as_str()).collect();
    out.push(format!(
        "← {} callback_id={} title=\"{}\" blocks={blocks:?}",
        method::VIEWS_OPEN,
        view["callback_id"],
        view["title"]["text"].as_str().unwrap_or("")
    ));

    out.push(format!("\n2. the modal submitted: \"{title}\", SEV2"));
    let before = target.call_count()?;
    let ack = target.interaction(&incident_submission(team, reporter, &title, "sev2"))?;
    out.push(format!("{} (body: {})", acked(&ack)?, if ack.body.trim().is_empty() { "empty: the modal closes" } else { ack.body.trim() }));
    let announced = step.wait(before, "announcement", |c| c.method == method::POST_MESSAGE && c.field("text").is_some_and(|t| t.contains(&title)))?;
    let answer = announced.answer.clone().unwrap_or_default();
    let (channel, ts) = (answer["channel"].as_str().unwrap_or("").to_string(), answer["ts"].as_str().unwrap_or("").to_string());
    let id = announced.json.as_ref().and_then(|j| j["blocks"][2]["elements"][0]["value"].as_str()).unwrap_or("").to_string();
    out.push(format!("← {}\n  {}\n  Slack answered ts={ts}", describe(&announced), shows(&announced)));

    out.push("\n3. U2 clicks Acknowledge".to_string());
    let before = target.call_count()?;
    out.push(acked(&target.interaction(&button_click(team, "U2", (&channel, &ts), ACKNOWLEDGE, &id))?)?);
    let answered = step.wait(before, "answer in the thread", |c| c.method == method::POST_MESSAGE && c.field("thread_ts") == Some(&ts))?;
    let updated = step.wait(before, method::UPDATE, |c| c.method == method::UPDATE && c.field("ts") == Some(&ts))?;
    out.push(format!("← {}\n← {}\n  {}", describe(&answered), describe(&updated), shows(&updated)));

    out.push("\n4. U2 clicks Resolve".to_string());
    let before = target.call_count()?;
    out.push(acked(&target.interaction(&button_click(team, "U2", (&channel, &ts), RESOLVE, &id))?)?);
    let resolved = step.wait(before, method::UPDATE, |c| c.method == method::UPDATE && c.field("ts") == Some(&ts))?;
    out.push(format!("← {}\n  {}", describe(&resolved), shows(&resolved)));
    out.push(format!("\nincident {id}: announced, acknowledged, resolved"));
    Ok(out.join("\n"))
}

/// What a posted or updated announcement shows: its status line and its buttons (`none` once
/// resolved).
fn shows(call: &SimCall) -> String {
    let blocks = call.json.as_ref().and_then(|j| j["blocks"].as_array().cloned()).unwrap_or_default();
    let of_type = |kind: &'static str| blocks.iter().filter(move |b| b["type"] == kind).flat_map(|b| b["elements"].as_array().cloned().unwrap_or_default());
    let status: Vec<String> = of_type("context").filter_map(|e| e["text"].as_str().map(str::to_string)).collect();
    let buttons: Vec<String> = of_type("actions").filter_map(|e| e["text"]["text"].as_str().map(str::to_string)).collect();
    let buttons = if buttons.is_empty() { "none".to_string() } else { buttons.join(", ") };
    format!("status: {}\n  buttons: {buttons}", status.join(" "))
}
