//! `BENCH_ONLY=ceiling make bench` (issue 57, goal 4): one team actor's ceiling — how many events a
//! second one team (or one org-wide install, whose workspaces share one actor) can sustain before
//! its queue grows.
//!
//! A team actor is single-threaded: every event's ingest unit and its share of the sweep (the
//! claim, the delivery's call, the fenced completion) run one after another on it, so its ceiling
//! is 1,000 ms over the actor's CPU per event. Deployed, the front door runs in other isolates,
//! near the callers; here one workerd runs both, so the actor's share is read as a difference of
//! three loads on one runtime (as deployed: no test hooks, no meter), interleaved:
//!
//! - `url_verification`: the front door alone (verify, parse, answer; no actor);
//! - an ignored event (`reaction_added`): + the hop to the actor and the receipt's unit, no row;
//! - an `app_mention`: + one outbox row, its sweep and its delivery to the fake Slack.
//!
//! The actor's CPU per event is the mention's less the front door's (the hop's cost on the front
//! door's side is counted to the actor: the ceiling errs low). Then the same runtime takes
//! mentions from 16 clients into **one** team: the events a second one actor acknowledged and
//! delivered here, where it also shares its thread with the front door.
//!
//! `BENCH_BUILD=<tag or commit>` measures that release's bundle instead of this build's
//! (`scripts/bench-release-bundle.sh`): where a regression between two releases went — the front
//! door, the unit, or the sweep and delivery.

use super::releases::release_bundle;
use super::support::{unique, FakeSlack, Runtime, Settings};
use super::{deployed, interleave, load_average, Contender, Kind};

/// Slack's own limit on the Events API: 30,000 events an hour per workspace (and app).
const SLACK_EVENTS_PER_HOUR: f64 = 30_000.0;

/// The figures: each load's CPU per event, the actor's share, its ceiling, and Slack's limit for
/// one workspace and for org-wide installs of 50 and 500 workspaces.
pub fn figures(fake: &FakeSlack, n: usize, rounds: usize) -> String {
    let build = std::env::var("BENCH_BUILD").ok();
    let app = Runtime::start(Settings { script: build.as_deref().map(release_bundle).or(deployed(fake).script), ..deployed(fake) });
    let contenders = || {
        [
            Contender::new("url_verification: the front door alone", &app, "/slack/events", Kind::Challenge, false),
            Contender::new("ignored event: + the hop and the receipt's unit", &app, "/slack/events", Kind::Ignored, false),
            Contender::new("app_mention: + a row, its sweep and its delivery", &app, "/slack/events", Kind::Mention, true),
        ]
        .map(Contender::channel_per_event)
    };
    for c in contenders().iter_mut() {
        c.warm(fake, 400);
    }
    let mut cs = contenders();
    interleave(&mut cs, fake, n, rounds);
    let [door, unit, mention] = cs.each_ref().map(Contender::worker_ms);
    let actor_ms = mention - door;
    let ceiling = 1000.0 / actor_ms;

    let team = unique("T");
    let one_team = || Contender::new("one team", &app, "/slack/events", Kind::Mention, true).channel_per_event().one_team(&team);
    one_team().chunk(fake, 200);
    let mut one = one_team();
    one.chunk(fake, n);
    let one_rate = one.acked() as f64 / one.run().wall.as_secs_f64();

    let of = build.map_or_else(|| "this build".to_string(), |b| format!("the build of {b}"));
    let mut out = format!("{of}: {n} events per load in {rounds} interleaved rounds, 16 clients, as deployed; load average {}\n\n", load_average());
    out += "| load | worker CPU ms per event | what it adds |\n| --- | --- | --- |\n";
    out += &format!("| {} | {door:.3} | the front door |\n", cs[0].name);
    out += &format!("| {} | {unit:.3} | +{:.3}: the hop and the unit |\n", cs[1].name, unit - door);
    out += &format!("| {} | {mention:.3} | +{:.3}: the row, its sweep and delivery |\n\n", cs[2].name, mention - unit);
    out += &format!(
        "**The team actor: {actor_ms:.3} ms of CPU per event** (the mention's less the front door's), so **one actor's ceiling is about {ceiling:.0} events/s** ({:.1} million an hour).\n\n",
        ceiling * 3600.0 / 1e6
    );
    out += &format!(
        "One team here, 16 clients, mentions: {one_rate:.0} events/s acked and delivered (worker CPU {:.3} ms per event), with the front door on the same thread.\n\n",
        one.worker_ms()
    );
    out += "| who | Slack's limit (30,000 events/hour per workspace) | ÷ one actor's ceiling |\n| --- | --- | --- |\n";
    for (who, workspaces) in [("one workspace", 1.0), ("org-wide install, 50 workspaces", 50.0), ("org-wide install, 500 workspaces", 500.0)] {
        let per_second = SLACK_EVENTS_PER_HOUR * workspaces / 3600.0;
        out += &format!("| {who} | {per_second:.0} events/s | {:.2} |\n", per_second / ceiling);
    }
    out
}
