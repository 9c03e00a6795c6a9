//! `BENCH_ONLY=releases make bench` (issue 57, goals 1 and 3): this build against the previous
//! release, in one run, so that a regression of the ack path shows as a number in the release that
//! causes it, not as a drift noticed releases later when nobody knows which change it was.
//!
//! Four runtimes under the same wrangler and workerd, all served bare and as deployed (no test
//! clock, delivery lines for failures only): the design floor (the limit of the architecture),
//! this build (`examples/echo`'s testkit bundle, as the speed runs serve it), this build again (a
//! second runtime of the same bundle: what two runs of one build differ by on this machine, the
//! noise) and the previous release's bundle (`scripts/bench-release-bundle.sh`: the tag's tree
//! built as this tree builds its own, kept under `target/releases/`). `BENCH_PREVIOUS` names the
//! release; by default the last tag before HEAD (`git describe` of HEAD's parent: the last release
//! when HEAD is past it, the one before when HEAD is that tag).
//!
//! `BENCH_PREVIOUS` takes any commit as well as a tag (e.g. `10fd0e0`, the release issue 57
//! measured against, from before the tags).
//!
//! Each contender is warmed, then `BENCH_ROUNDS` rounds (3; 1 with `BENCH_QUICK=1`, and a tenth of
//! the load) send each the same load in turn, the order rotating so the machine's drift weighs on
//! all alike: 2,000 signed `app_mention`s from 16 clients into 16 fresh teams, each in a channel of
//! its own, every acked one's reply awaited at the fake Slack before the next turn. Per contender
//! the median over the rounds of its ack p50, its ack p99 and its worker's CPU per event
//! (`/proc/<pid>/stat` of the workerd that runs the Worker); then the verdicts: a move against the
//! previous release larger than this build's distance from itself is a regression (or an
//! improvement), anything else is within noise.

use super::harness::ticks_per_second;
use super::startup::root;
use super::support::{FakeSlack, Runtime, Settings};
use super::{deployed, design_floor_settings, median, pct, rotation, Contender, Kind, CLIENTS};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Mentions per contender and round (issue 57's harness).
const PER_ROUND: usize = 2_000;
/// Uncounted mentions per contender first: the first requests compile and instantiate.
const WARM: usize = 400;

/// What one round measured of one contender.
struct Round {
    p50_ms: f64,
    p99_ms: f64,
    /// Worker CPU ms per event (its reply delivered included).
    worker_ms: f64,
}

/// A contender's medians over its rounds.
struct Figures {
    p50: f64,
    p99: f64,
    cpu: f64,
}

impl Figures {
    fn of(rounds: &[Round]) -> Figures {
        let over = |f: fn(&Round) -> f64| median(rounds.iter().map(f).collect());
        Figures { p50: over(|r| r.p50_ms), p99: over(|r| r.p99_ms), cpu: over(|r| r.worker_ms) }
    }
}

/// The comparison's table and verdicts.
pub fn figures(fake: &FakeSlack, quick: bool) -> String {
    let previous = previous_release();
    let before = Runtime::start(Settings { script: Some(release_bundle(&previous)), ..deployed(fake) });
    let design = Runtime::start(design_floor_settings(fake));
    let (this, again) = (Runtime::start(deployed(fake)), Runtime::start(deployed(fake)));
    // Fresh teams for the measured rounds: none shares an actor with the warm-up.
    let contenders = || {
        [
            Contender::new("design floor", &design, "/", Kind::Mention, true),
            Contender::new("this build", &this, "/slack/events", Kind::Mention, true),
            Contender::new("this build again", &again, "/slack/events", Kind::Mention, true),
            Contender::new("previous release", &before, "/slack/events", Kind::Mention, true),
        ]
        .map(Contender::channel_per_event)
    };
    for c in contenders().iter_mut() {
        c.warm(fake, WARM);
    }
    let rounds = if quick { 1 } else { std::env::var("BENCH_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(3) };
    let n = if quick { PER_ROUND / 10 } else { PER_ROUND };
    let mut cs = contenders();
    let figures = measure(&mut cs, fake, n, rounds);
    let names = ["design floor".to_string(), format!("this build ({})", this_build()), "this build again".into(), format!("{previous} (previous release)")];
    let about = format!("{rounds} round(s) of {n} signed `app_mention`s per contender, {CLIENTS} clients ({CLIENTS} teams), a channel per mention, interleaved, served bare as deployed; medians of the rounds");
    format!("{about}\n\n{}\n{}{}", table(&names, &figures, &cs), verdicts(&figures, n, &previous), undelivered(&cs))
}

/// `rounds` rounds of `n` mentions into each of `cs` in turn; each one's medians over them.
fn measure(cs: &mut [Contender; 4], fake: &FakeSlack, n: usize, rounds: usize) -> [Figures; 4] {
    let mut measured: [Vec<Round>; 4] = Default::default();
    for (r, k) in rotation(cs.len(), rounds) {
        measured[k].push(round(&mut cs[k], fake, n));
        eprintln!("releases round {} of {rounds}: {} ack p50 {:.2} ms", r + 1, cs[k].name, measured[k][r].p50_ms);
    }
    measured.map(|m| Figures::of(&m))
}

/// The Markdown table: a row per contender, the design floor's first.
fn table(names: &[String; 4], figures: &[Figures; 4], cs: &[Contender; 4]) -> String {
    let mut out = String::from(
        "| contender | ack p50 | ack p99 | ÷ design floor, ack p50 / p99 | worker CPU ms per event | ÷ design floor, CPU | delivered / acked | non-2xx |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for ((name, f), c) in names.iter().zip(figures).zip(cs) {
        out += &row(name, f, &figures[0], c);
    }
    out
}

/// The noise, and the previous release's moves judged against it.
fn verdicts(figures: &[Figures; 4], n: usize, previous: &str) -> String {
    let [_, this, again, before] = figures;
    // A round's CPU is read in whole clock ticks, before and after: two readings closer than two
    // ticks are the same.
    let resolution = 2.0 / ticks_per_second() / (this.cpu / 1000.0 * n as f64);
    let (ack_noise, cpu_noise) = (noise(this.p50, again.p50), noise(this.cpu, again.cpu));
    format!(
        "noise (this build against itself, |this − this again| ÷ this): ack p50 {:.1}%, worker CPU {:.1}% (the CPU readings' resolution: {:.1}%)\n{}{}",
        ack_noise * 100.0,
        cpu_noise * 100.0,
        resolution * 100.0,
        verdict("ack p50", this.p50, before.p50, ack_noise, previous),
        verdict("worker CPU per event", this.cpu, before.cpu, cpu_noise.max(resolution), previous)
    )
}

/// One round of `n` mentions into `c` (until each acked one's reply arrived): what it measured.
fn round(c: &mut Contender, fake: &FakeSlack, n: usize) -> Round {
    let (from, cpu, events) = (c.samples.len(), c.cpu[0], c.events);
    c.chunk(fake, n);
    let mut latencies: Vec<Duration> = c.samples[from..].iter().map(|s| s.latency).collect();
    latencies.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    Round { p50_ms: ms(pct(&latencies, 0.5)), p99_ms: ms(pct(&latencies, 0.99)), worker_ms: (c.cpu[0] - cpu) * 1000.0 / (c.events - events).max(1) as f64 }
}

/// One contender's table row, its ratios to the design floor's figures.
fn row(name: &str, f: &Figures, design: &Figures, c: &Contender) -> String {
    format!(
        "| {name} | {:.2} ms | {:.2} ms | {:.2}x / {:.2}x | {:.2} | {:.2}x | {} / {} | {} |\n",
        f.p50,
        f.p99,
        f.p50 / design.p50,
        f.p99 / design.p99,
        f.cpu,
        f.cpu / design.cpu,
        c.deliveries.len(),
        c.acked(),
        c.run().non_2xx()
    )
}

/// How far two runs of the same build are apart, relative to the first.
fn noise(this: f64, again: f64) -> f64 {
    (this - again).abs() / this
}

/// "`what` moved by X% against `tag` (noise Y%): …": a move larger than the noise is a
/// regression (slower, or more CPU) or an improvement.
fn verdict(what: &str, this: f64, before: f64, noise: f64, tag: &str) -> String {
    let moved = (this - before) / before;
    let judged = match moved {
        m if m.abs() <= noise => "within noise",
        m if m > 0.0 => "REGRESSION",
        _ => "improvement",
    };
    format!("{what} moved by {:+.1}% against {tag} (noise {:.1}%): {judged}\n", moved * 100.0, noise * 100.0)
}

/// A line naming each contender with an acked mention whose reply never arrived, or nothing.
fn undelivered(cs: &[Contender]) -> String {
    let missing: Vec<String> =
        cs.iter().filter(|c| c.deliveries.len() < c.acked()).map(|c| format!("{} ({})", c.name, c.acked() - c.deliveries.len())).collect();
    if missing.is_empty() {
        return String::new();
    }
    format!("REPLIES MISSING (acked, never delivered within 120 s): {}\n", missing.join(", "))
}

/// The release to compare with: `BENCH_PREVIOUS`, else the newest `v*` tag reachable from HEAD's
/// parent (the last release when HEAD is past it; the one before it when HEAD is that tag).
fn previous_release() -> String {
    std::env::var("BENCH_PREVIOUS").unwrap_or_else(|_| git(&["describe", "--tags", "--abbrev=0", "--match", "v*", "HEAD^"]))
}

/// This build as `git describe` names it (`-dirty`: the working tree's changes are in its bundle).
fn this_build() -> String {
    git(&["describe", "--tags", "--always", "--dirty"])
}

fn git(args: &[&str]) -> String {
    let out = Command::new("git").args(args).current_dir(root()).output().expect("git must be on PATH");
    assert!(out.status.success(), "git {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The bundle of release `tag` (`scripts/bench-release-bundle.sh`: built once, then kept).
pub(super) fn release_bundle(tag: &str) -> PathBuf {
    let out = Command::new(root().join("scripts/bench-release-bundle.sh")).arg(tag).current_dir(root()).stderr(Stdio::inherit()).output().expect("bash");
    assert!(out.status.success(), "scripts/bench-release-bundle.sh {tag} failed (above)");
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}
