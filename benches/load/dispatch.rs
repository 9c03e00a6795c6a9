//! `BENCH_ONLY=dispatch make bench`: what the listener API costs on the ack. The same answer to a
//! mention (a threaded reply quoting it, under the same key) from the shipped app's hand-written
//! `DefaultApp` (`examples/echo`) and from the listener API (`benches/apps/listeners`), and, when
//! `BENCH_BEFORE` names an older build (`scripts/bench-before.sh COMMIT` makes one and prints its
//! folder), from that release as it was. Each in a runtime of its own, all served bare, loaded in
//! rounds that rotate their order so the machine's drift weighs on all alike. Figures, not
//! pass/fail.

use super::harness::BenchSettings;
use super::support::{FakeSlack, Runtime, Settings};
use super::{interleave, latency_row, pct, Contender, Kind, CLIENTS, ROUNDS};
use std::path::PathBuf;

/// The dispatch comparison's rows.
pub fn figures(scale: &dyn Fn(usize) -> usize) -> String {
    let fake = FakeSlack::start();
    let quiet = |s: Settings| s.var("LOG_DELIVERIES", "failures").bare();
    let echo = Runtime::start(quiet(Settings::new("bench-echo", &fake)));
    let listeners = Runtime::start(quiet(Settings::bot("benches/apps/listeners", &fake)));
    let before = std::env::var("BENCH_BEFORE").ok().map(|dir| {
        let mut settings = quiet(Settings::new("bench-before", &fake));
        settings.config = Some(PathBuf::from(dir).join("wrangler.toml"));
        // That release's own bundle (built with its test scaffolding, which it always had).
        settings.script = None;
        Runtime::start(settings)
    });
    let mut contenders = vec![
        Contender::new("DefaultApp (examples/echo)", &echo, "/slack/events", Kind::Mention, true),
        Contender::new("listener API", &listeners, "/slack/events", Kind::Mention, true),
    ];
    if let Some(rt) = &before {
        contenders.push(Contender::new("the release before (BENCH_BEFORE)", rt, "/slack/events", Kind::Mention, true));
    }
    for c in contenders.iter_mut() {
        c.warm(&fake, 400);
    }
    let n = scale(4000);
    interleave(&mut contenders, &fake, n, ROUNDS);
    let p50 = |c: &Contender| pct(&c.latencies(), 0.5).as_secs_f64();
    let mut rows: Vec<String> = contenders
        .iter()
        .flat_map(|c| {
            [
                latency_row(
                    &format!("{}: ack p50 / p90 / p99, {n} mentions, {CLIENTS} clients ({CLIENTS} teams), {ROUNDS} rounds interleaved", c.name),
                    &c.run(),
                ),
                format!("| 6 | {}: ms of CPU per event by process | {} |", c.name, c.cpu_split()),
            ]
        })
        .collect();
    rows.push(format!("| 1 | ack p50, listener API / DefaultApp | {:.2}x |", p50(&contenders[1]) / p50(&contenders[0])));
    if contenders.len() > 2 {
        rows.push(format!(
            "| 1 | ack p50, listener API / the release before; DefaultApp / the release before | {:.2}x; {:.2}x |",
            p50(&contenders[1]) / p50(&contenders[2]),
            p50(&contenders[0]) / p50(&contenders[2])
        ));
    }
    rows.join("\n")
}
