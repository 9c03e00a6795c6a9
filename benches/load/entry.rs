//! `BENCH_ONLY=entry make bench` (issue 39, goal 4): what the ack path costs before slackline does
//! anything, against JavaScript doing the same.
//!
//! The speed runs compare a whole delivered mention with the design floor's; this splits out the
//! two parts of the gap that are not the delivery. Two pairs, each at 16 clients, in interleaved
//! rounds so that the machine's drift weighs on both sides alike:
//!
//! - **the binding**: the JS floor (`benches/apps/floor`) against the workers-rs hello world
//!   (`benches/apps/hello-rs`, built as the bots are): the same "answer every request", so the
//!   difference is what one request costs to enter Rust through workers-rs and wasm-bindgen
//!   (the `Request`, `Env` and `Response` conversions, the future handed to JavaScript as a
//!   promise) — paid by the front door, by each actor request and by each alarm;
//! - **the ack path**: slackline against the design floor, on an event the app ignores (the
//!   front door, the hop to the team's actor and the receipt's unit; no outbox row, no delivery),
//!   both as deployed (no test hooks, no cost meter).
//!
//! Per run: each side's ack p50 and its worker's CPU per request (`/proc/<pid>/stat` of the
//! workerd that runs the Worker), and the ratios.

use super::harness::BenchSettings;
use super::support::{FakeSlack, Runtime, Settings};
use super::{design_floor_as_deployed, interleave, load_average, pct, slackline_as_deployed, startup, Contender, Kind, ROUNDS};

/// The table of `runs` runs of `n` requests per side and pair.
pub fn figures(fake: &FakeSlack, n: usize, runs: usize) -> String {
    startup::make(&startup::root(), &["worker", "BOT=benches/apps/hello-rs"]);
    let floor = Runtime::start(Settings::new("bench-floor", fake).config("benches/apps/floor/wrangler.toml").bare());
    let hello = Runtime::start(Settings::new("bench-hello-rs", fake).config("benches/apps/hello-rs/wrangler.toml").bare());
    let (app, design) = (slackline_as_deployed(fake), design_floor_as_deployed(fake));
    // Fresh teams each run (`Contender::new` draws them): no run reuses a warm actor of another.
    let contenders = || {
        [
            Contender::new("JS floor", &floor, "/", Kind::Ignored, false),
            Contender::new("workers-rs hello", &hello, "/", Kind::Ignored, false),
            Contender::new("slackline, ignored event", &app, "/slack/events", Kind::Ignored, false),
            Contender::new("design floor, ignored event", &design, "/", Kind::Ignored, false),
        ]
    };
    for c in contenders().iter_mut() {
        c.warm(fake, 400);
    }
    let p50 = |c: &Contender| pct(&c.latencies(), 0.5).as_secs_f64() * 1000.0;
    let mut out = String::from(
        "| run | JS floor / workers-rs hello: worker CPU ms per request | the binding's cost per request | slackline / design floor, ignored event: ack p50 | ack ratio | worker CPU ms per event | CPU ratio |\n| --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for run in 1..=runs {
        let mut cs = contenders();
        interleave(&mut cs, fake, n, ROUNDS);
        let [js, rs, app, design] = &cs;
        out += &format!(
            "| {run} | {:.3} / {:.3} | +{:.3} ms | {:.2} / {:.2} ms | {:.2}x | {:.3} / {:.3} | {:.2}x |\n",
            js.worker_ms(),
            rs.worker_ms(),
            rs.worker_ms() - js.worker_ms(),
            p50(app),
            p50(design),
            p50(app) / p50(design),
            app.worker_ms(),
            design.worker_ms(),
            app.worker_ms() / design.worker_ms()
        );
        eprintln!("entry run {run} of {runs}; load average {}", load_average());
    }
    out
}
