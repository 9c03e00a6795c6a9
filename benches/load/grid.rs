//! `BENCH_ONLY=grid make bench`: the ceiling of an Enterprise Grid organization with an org-wide
//! install. Its events, from every workspace of the org, carry `is_enterprise_install` and are
//! routed by the enterprise id: one team actor for the whole org (docs/installs.md). The same
//! stepped open-loop load as `BENCH_ONLY=overload` (`benches/load/overload.rs`), spread over 50
//! workspaces, twice: as one org (one actor), and as 50 workspaces installed each on its own (50
//! actors). If one actor bounded the org, the second would go higher. Figures, not pass/fail.

use super::harness::BenchSettings;
use super::overload::{fate, offer_bodies, steps, Answers};
use super::support::slack::{envelope, mention};
use super::support::{unique, FakeSlack, Runtime, Settings};
use serde_json::{json, Value};
use std::time::Duration;

/// The workspaces of the organization.
const WORKSPACES: usize = 50;

/// Steps the offered rate up until an answer is not a 200 or the p99 leaves the budget; the rows
/// and the last healthy rate.
fn ceiling(rt: &Runtime, fake: &FakeSlack, label: &str, step_secs: f64, body: &(dyn Fn(usize, &str, &str) -> Value + Sync)) -> (Vec<String>, Option<f64>) {
    let (mut rows, mut last) = (Vec::new(), None);
    for rate in steps() {
        let run = offer_bodies(&rt.base_url(), rate, step_secs, body);
        let answers = Answers::of(&run);
        rows.push(format!("| G1 | {label}: {rate:.0} events/s for {step_secs:.0} s | {} |", answers.cells()));
        if !answers.healthy() {
            break;
        }
        last = Some(rate);
        let _ = fate(fake, &run, Duration::from_secs(60));
    }
    (rows, last)
}

/// The figures, as Markdown table rows.
pub fn figures(scale: &dyn Fn(usize) -> usize) -> String {
    let step_secs = if scale(10) < 10 { 2.0 } else { 5.0 };
    let fake = FakeSlack::start();
    let rt = Runtime::start(Settings::new("bench-grid", &fake).var("LOG_DELIVERIES", "failures").bare());
    let org = unique("E");
    let workspaces: Vec<String> = (0..WORKSPACES).map(|_| unique("T")).collect();
    let separate: Vec<String> = (0..WORKSPACES).map(|_| unique("T")).collect();
    // An org-wide install's event: the workspace it happened in, authorized for the whole org.
    let org_event = |i: usize, channel: &str, ts: &str| {
        let team = &workspaces[i % WORKSPACES];
        let mut e = envelope(team, &unique("Ev"), mention(channel, ts, "grid"));
        e["enterprise_id"] = json!(org);
        e["authorizations"] = json!([{"enterprise_id": org, "team_id": team, "user_id": "UBOT", "is_bot": true, "is_enterprise_install": true}]);
        e
    };
    let own_install = |i: usize, channel: &str, ts: &str| envelope(&separate[i % WORKSPACES], &unique("Ev"), mention(channel, ts, "grid"));
    let _ = offer_bodies(&rt.base_url(), 50.0, 4.0, &own_install); // warm-up, not counted
    let (mut rows, org_ceiling) = ceiling(&rt, &fake, &format!("one org-wide install, {WORKSPACES} workspaces (one actor)"), step_secs, &org_event);
    let (more, own_ceiling) =
        ceiling(&rt, &fake, &format!("{WORKSPACES} workspaces, each installed on its own ({WORKSPACES} actors)"), step_secs, &own_install);
    rows.extend(more);
    let shown = |c: Option<f64>| c.map_or("none healthy".to_string(), |r| format!("{r:.0} events/s"));
    rows.push(format!(
        "| G1 | ceiling (last step inside the budget, all 200): one org actor / {WORKSPACES} actors | {} / {} |",
        shown(org_ceiling),
        shown(own_ceiling)
    ));
    rows.join("\n")
}
