//! `BENCH_ONLY=startup make bench` (issue 39, goal 3): what a Worker costs from a fresh isolate to
//! its first answer, and what in the bundle that cost comes from.
//!
//! Cloudflare starts an isolate when a request finds none warm (after a deploy, after eviction):
//! that request waits for the module's compile, its instantiation and the first run of every path
//! it takes. A Rust Worker carries all of that in its wasm, so its size is a cost paid again at each
//! cold start, not once at deploy. The bench prices it against the two floors a bot cannot go
//! under: the JavaScript floor (`benches/apps/floor`) and a workers-rs hello world
//! (`benches/apps/hello-rs`, built like the bots), beside `examples/echo` and a bot made from
//! `template/` (what `make new` gives a user).
//!
//! Every contender's bundle is built once (the production build, as deployed: no test scaffolding).
//! Then `BENCH_RUNS` rounds (10), the contenders in a rotating order so the machine's drift weighs
//! on all alike; each start is a fresh runtime — `scripts/serve.mjs` on a free port, a fresh
//! persistence folder, a generated config with no `[build]` hook — timed from the process's start to
//! its ready line, from there to the first answer of `GET /healthz`, and a second, warm, answer.
//! Locally, workerd loads the Worker on its first request, not before the ready line (a module
//! whose top level spins for seconds is ready as soon as any other, and its first answer is that
//! much later), so the first answer holds the module's compile, its instantiation, the shim's top
//! level and the request's first run — with V8's lazy wasm compilation, each function it calls is
//! compiled (by Liftoff) on that first call. "first − warm" is that start-up cost; the JS floor's
//! is what a fresh isolate costs behind wrangler's proxy whatever the bundle. For the slackline
//! bots the first signed event (a fresh team: its actor created, its schema made) is timed against
//! a second one.
//!
//! The breakdown runs `scripts/wasm-startup.mjs` on each Rust wasm in Node (V8 12, workerd's is
//! newer): `WebAssembly.compile` and `instantiate` under V8's lazy default, eager Liftoff and eager
//! TurboFan, beside the sizes of the code and data sections. Then the budget lines, PASS or FAIL.

use super::harness::ticks_per_second;
use super::support::slack::now_secs;
use super::support::{unique, SECRET};
use super::{gzip_size, load_average, ms, pct, send, Kind};
use std::fs;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where `make new` makes the template bot the bench builds (inside the git-ignored target folder).
const TEMPLATE_DIR: &str = "target/startup-template";

/// One Worker the bench starts again and again.
struct Contender {
    name: &'static str,
    /// The bundle's entry (`index.js`, or the floor's `worker.js`).
    main: PathBuf,
    /// A slackline bot: its config binds the actor classes and its events are timed too.
    actors: bool,
    starts: Vec<Start>,
}

/// One fresh runtime's timings.
struct Start {
    /// The process's start to its ready line (Node, wrangler, workerd listening; the Worker is
    /// loaded later, on its first request).
    ready: Duration,
    /// Ready to the first answer of `GET /healthz`.
    first: Duration,
    /// The second answer of `GET /healthz`.
    warm: Duration,
    /// CPU seconds the runtime's workerd processes used for the first answer and for the warm one
    /// (the load on the shared cores stretches the wall times; it stretches CPU time much less).
    cpu: (f64, f64),
    /// A slackline bot's first signed event and a second one into the same team.
    events: Option<(Duration, Duration)>,
}

pub(super) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `make` with `args` in `dir` (the workspace's target folder for every build), or panics.
pub(super) fn make(dir: &Path, args: &[&str]) {
    let status = Command::new("make").arg("--no-print-directory").args(args).current_dir(dir).env("CARGO_TARGET_DIR", root().join("target")).status();
    assert!(status.is_ok_and(|s| s.success()), "make {} in {}", args.join(" "), dir.display());
}

/// Builds the production bundles: `examples/echo`, the hello world and a bot made from the
/// template afresh (as `make test-template` does); returns the contenders, the floor first.
fn build() -> Vec<Contender> {
    let root = root();
    make(&root, &["worker"]);
    make(&root, &["worker", "BOT=benches/apps/hello-rs"]);
    let _ = fs::remove_dir_all(root.join(TEMPLATE_DIR));
    make(&root, &["new", &format!("DIR={TEMPLATE_DIR}")]);
    make(&root.join(TEMPLATE_DIR), &["worker"]);
    let contender = |name, main: PathBuf, actors| Contender { name, main: root.join(main), actors, starts: Vec::new() };
    vec![
        contender("JS floor", "benches/apps/floor/worker.js".into(), false),
        contender("workers-rs hello", "benches/apps/hello-rs/build/index.js".into(), false),
        contender("examples/echo", "examples/echo/build/index.js".into(), true),
        contender("template bot", PathBuf::from(TEMPLATE_DIR).join("build/index.js"), true),
    ]
}

/// The config a start serves: the bundle, and for a bot its two actor classes. No `[build]` hook:
/// a start times the runtime, not `make`.
fn config(c: &Contender) -> String {
    let mut toml = format!("name = \"startup\"\nmain = \"{}\"\ncompatibility_date = \"2026-11-01\"\n", c.main.display());
    if c.actors {
        for (binding, class) in [("TEAM", "TeamActor"), ("DIRECTORY", "Directory")] {
            toml += &format!("[[durable_objects.bindings]]\nname = \"{binding}\"\nclass_name = \"{class}\"\n");
        }
        toml += "[[migrations]]\ntag = \"v1\"\nnew_sqlite_classes = [\"TeamActor\", \"Directory\"]\n";
    }
    toml
}

/// A port free when picked.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A runtime started by [`Fresh::start`]: its process group, killed on drop, and its folder.
struct Fresh {
    child: Child,
    dir: PathBuf,
    base: String,
}

impl Fresh {
    /// Starts `c` in a fresh folder (under a watchdog that kills the group when the bench exits)
    /// and returns it with the time from the spawn to its ready line.
    fn start(c: &Contender) -> (Fresh, Duration) {
        let root = root();
        let dir = root.join("target/e2e").join(unique("startup-"));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("wrangler.toml"), config(c)).unwrap();
        fs::write(dir.join("vars.env"), format!("SLACK_SIGNING_SECRET={SECRET}\nSLACK_BOT_TOKEN=xoxb-startup\nSLACK_API_URL=http://127.0.0.1:9/api\n"))
            .unwrap();
        let port = free_port();
        let path = format!("{}:{}", root.join("node_modules/.bin").display(), std::env::var("PATH").unwrap_or_default());
        let started = Instant::now();
        let mut child = Command::new("bash")
            .args(["-c", "\"$@\" & cat >/dev/null; kill -KILL 0", "slackline-startup", "node"])
            .arg(root.join("scripts/serve.mjs"))
            .args(["--port", &port.to_string(), "--config"])
            .arg(dir.join("wrangler.toml"))
            .arg("--env-file")
            .arg(dir.join("vars.env"))
            .arg("--persist-to")
            .arg(dir.join("state"))
            .current_dir(&root)
            .env("PATH", path)
            .env("WRANGLER_SEND_METRICS", "false")
            .env("CI", "true")
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(fs::File::create(dir.join("stderr.log")).unwrap())
            .process_group(0)
            .spawn()
            .expect("bash must be on PATH");
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        while !line.contains("Ready on") {
            line.clear();
            let read = out.read_line(&mut line).unwrap_or(0);
            assert!(read > 0, "{} exited before it was ready: {}", c.name, fs::read_to_string(dir.join("stderr.log")).unwrap_or_default());
        }
        let ready = started.elapsed();
        // Whatever it prints later is drained, so that a full pipe never stalls it.
        std::thread::spawn(move || std::io::copy(&mut out.into_inner(), &mut std::io::sink()));
        (Fresh { child, dir, base: format!("http://127.0.0.1:{port}") }, ready)
    }

    /// CPU seconds (user + system) used so far by the workerd processes of this runtime's group.
    fn workerd_cpu(&self) -> f64 {
        let ticks = ticks_per_second();
        let group = self.child.id().to_string();
        let stats = fs::read_dir("/proc").into_iter().flatten().filter_map(|e| fs::read_to_string(e.ok()?.path().join("stat")).ok());
        let ticks_of = |stat: String| -> Option<f64> {
            let (name, rest) = stat.split_once('(')?.1.rsplit_once(')')?;
            let f: Vec<&str> = rest.split_whitespace().collect();
            (name == "workerd" && f.get(2) == Some(&group.as_str())).then_some(())?;
            Some(f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?)
        };
        stats.filter_map(ticks_of).sum::<f64>() / ticks
    }
}

impl Drop for Fresh {
    fn drop(&mut self) {
        unsafe { libc::kill(-(self.child.id() as i32), libc::SIGKILL) };
        let _ = self.child.wait();
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// Times one `GET path`; any HTTP answer counts (the floor answers 200 to every path).
fn answer(agent: &ureq::Agent, url: &str) -> Duration {
    let sent = Instant::now();
    match agent.get(url).call() {
        Ok(_) | Err(ureq::Error::Status(_, _)) => sent.elapsed(),
        Err(e) => panic!("GET {url}: {e}"),
    }
}

/// Times a signed event (an emoji reaction the bot ignores: the receipt alone) into `team`.
fn event(agent: &ureq::Agent, base: &str, team: &str) -> Duration {
    let sample = send(agent, &format!("{base}/slack/events"), team, "CSTARTUP", format!("{}.000100", now_secs()), Kind::Ignored);
    assert_eq!(sample.status, 200, "a signed event into a fresh runtime");
    sample.latency
}

/// One fresh start of `c`, timed.
fn start_once(c: &Contender) -> Start {
    let (rt, ready) = Fresh::start(c);
    let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(60)).build();
    let health = format!("{}/healthz", rt.base);
    let before = rt.workerd_cpu();
    let first = answer(&agent, &health);
    let after_first = rt.workerd_cpu();
    let warm = answer(&agent, &health);
    let cpu = (after_first - before, rt.workerd_cpu() - after_first);
    let events = c.actors.then(|| {
        let team = unique("T");
        (event(&agent, &rt.base, &team), event(&agent, &rt.base, &team))
    });
    Start { ready, first, warm, cpu, events }
}

/// `rounds` starts of every contender, each round in another order.
fn rounds(contenders: &mut [Contender], rounds: usize) {
    let count = contenders.len();
    for round in 0..rounds {
        for k in 0..count {
            let c = &mut contenders[(round + k) % count];
            let start = start_once(c);
            c.starts.push(start);
        }
        eprintln!("startup round {} of {rounds} done; load average {}", round + 1, load_average());
    }
}

/// "p50 (min–max)" of `values`, in ms.
fn spread(mut values: Vec<Duration>) -> String {
    values.sort();
    let (min, max) = (values.first().copied().unwrap_or_default(), values.last().copied().unwrap_or_default());
    format!("{} ({}–{})", ms(pct(&values, 0.5)), ms(min), ms(max))
}

/// The median of `f` over `c`'s starts.
fn p50(c: &Contender, f: impl Fn(&Start) -> Duration) -> Duration {
    let mut v: Vec<Duration> = c.starts.iter().map(f).collect();
    v.sort();
    pct(&v, 0.5)
}

/// First minus warm, per start (never below zero).
fn overhead(s: &Start) -> Duration {
    s.first.saturating_sub(s.warm)
}

/// The bundle's files: the wasm beside a Rust bundle's entry, and the entry.
fn bundle_files(c: &Contender) -> Vec<PathBuf> {
    let wasm = c.main.with_file_name("index_bg.wasm");
    if wasm.exists() {
        vec![wasm, c.main.clone()]
    } else {
        vec![c.main.clone()]
    }
}

/// `c`'s first answer minus `floor`'s in the same round, per round, in ms (signed).
fn over(c: &Contender, floor: &Contender) -> Vec<f64> {
    c.starts.iter().zip(&floor.starts).map(|(a, b)| (a.first.as_secs_f64() - b.first.as_secs_f64()) * 1000.0).collect()
}

/// The workerd CPU of the first answer minus the warm one's, per start, in ms.
fn cpu_overhead(c: &Contender) -> Vec<f64> {
    c.starts.iter().map(|s| (s.cpu.0 - s.cpu.1) * 1000.0).collect()
}

/// The median of `values`.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len().saturating_sub(1) / 2).copied().unwrap_or(0.0)
}

/// "p50 (min–max)" of signed ms.
fn spread_ms(mut values: Vec<f64>) -> String {
    values.sort_by(f64::total_cmp);
    let at = |i: usize| values.get(i).copied().unwrap_or(0.0);
    format!("{:+.2} ({:+.2}–{:+.2})", at((values.len().max(1) - 1) / 2), at(0), at(values.len().max(1) - 1))
}

/// "raw KiB / gzip -9 KiB" of the bundle.
fn bundle_size(c: &Contender) -> String {
    let files = bundle_files(c);
    let raw: u64 = files.iter().map(|f| fs::metadata(f).map(|m| m.len()).unwrap_or(0)).sum();
    let gz: u64 = files.iter().map(|f| gzip_size(&f.display().to_string())).sum();
    format!("{:.1} / {:.1}", raw as f64 / 1024.0, gz as f64 / 1024.0)
}

/// The figures table: one row per contender.
fn table(contenders: &[Contender]) -> String {
    let mut out = String::from(
        "| contender | bundle (wasm + js) KiB raw / gzip -9 | start → ready | ready → first answer | warm answer | first − warm | first answer over the JS floor's (same round) | workerd CPU: first − warm | first event ack / second (fresh team) |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for c in contenders {
        let all = |f: fn(&Start) -> Duration| spread(c.starts.iter().map(f).collect());
        let events = match c.starts.iter().map(|s| s.events).collect::<Option<Vec<_>>>() {
            Some(e) if !e.is_empty() => format!("{} / {}", spread(e.iter().map(|x| x.0).collect()), spread(e.iter().map(|x| x.1).collect())),
            _ => "—".into(),
        };
        out += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {events} |\n",
            c.name,
            bundle_size(c),
            all(|s| s.ready),
            all(|s| s.first),
            all(|s| s.warm),
            all(overhead),
            spread_ms(over(c, &contenders[0])),
            spread_ms(cpu_overhead(c))
        );
    }
    out
}

/// What `scripts/wasm-startup.mjs` measured of one wasm under one set of V8 flags.
struct Compiled {
    bytes: f64,
    code: f64,
    data: f64,
    functions: u64,
    compile_ms: f64,
    instantiate_ms: f64,
}

/// Runs the Node script on `wasm` (`runs` times each) under the V8 `flags`.
fn node_compile(flags: &[&str], wasm: &[PathBuf], runs: usize) -> Vec<Compiled> {
    let root = root();
    let out = Command::new(root.join("node_modules/.bin/node"))
        .args(flags)
        .arg(root.join("scripts/wasm-startup.mjs"))
        .args(["--runs", &runs.to_string()])
        .args(wasm)
        .output()
        .expect("node (npm ci) must be in node_modules/.bin");
    assert!(out.status.success(), "wasm-startup.mjs: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let j: serde_json::Value = serde_json::from_str(l).unwrap();
            let f = |k: &str| j[k].as_f64().unwrap_or(0.0);
            Compiled {
                bytes: f("bytes"),
                code: f("code"),
                data: f("data"),
                functions: j["functions"].as_u64().unwrap_or(0),
                compile_ms: j["compile_ms"]["p50"].as_f64().unwrap_or(0.0),
                instantiate_ms: j["instantiate_ms"]["p50"].as_f64().unwrap_or(0.0),
            }
        })
        .collect()
}

/// The breakdown table of the Rust bundles' wasm in Node, and what each bot's wasm adds over the
/// hello world's (code, functions, compile ms).
fn breakdown(rust: &[&Contender]) -> String {
    let wasm: Vec<PathBuf> = rust.iter().map(|c| c.main.with_file_name("index_bg.wasm")).collect();
    let runs = 10;
    let lazy = node_compile(&[], &wasm, runs);
    let liftoff = node_compile(&["--no-wasm-lazy-compilation"], &wasm, runs);
    let turbofan = node_compile(&["--no-wasm-lazy-compilation", "--no-liftoff"], &wasm, runs.min(3));
    let kib = |b: f64| format!("{:.0}", b / 1024.0);
    let mut out = format!(
        "| wasm (Node {runs} runs, p50) | KiB: all / code / data | functions | compile, lazy (V8's default) | instantiate | compile, eager Liftoff | compile, eager TurboFan |\n| --- | --- | --- | --- | --- | --- | --- |\n"
    );
    for (i, c) in rust.iter().enumerate() {
        let l = &lazy[i];
        out += &format!(
            "| {} | {} / {} / {} | {} | {:.1} ms | {:.1} ms | {:.1} ms | {:.0} ms |\n",
            c.name,
            kib(l.bytes),
            kib(l.code),
            kib(l.data),
            l.functions,
            l.compile_ms,
            l.instantiate_ms,
            liftoff[i].compile_ms,
            turbofan[i].compile_ms
        );
    }
    let per_mib = |k: usize| (lazy[k].compile_ms - lazy[0].compile_ms) / ((lazy[k].code - lazy[0].code) / 1048576.0);
    for k in 1..rust.len() {
        out += &format!(
            "\n{} over {}: +{} KiB of code, +{} functions; lazy compile +{:.1} ms ({:.1} ms per MiB of code), eager Liftoff +{:.1} ms",
            rust[k].name,
            rust[0].name,
            kib(lazy[k].code - lazy[0].code),
            lazy[k].functions as i64 - lazy[0].functions as i64,
            lazy[k].compile_ms - lazy[0].compile_ms,
            per_mib(k),
            liftoff[k].compile_ms - liftoff[0].compile_ms
        );
    }
    out
}

/// The budgets, against the workers-rs hello world started in the same rounds (p50 over the
/// rounds): what a slackline bot's first answer from a fresh isolate costs over its warm one may
/// exceed the hello world's by at most `BUDGET_OVER_MS` of wall time and `BUDGET_CPU_MS` of
/// workerd's CPU time (the load on the shared cores stretches the first much more than the
/// second). Why these bounds, and not a ratio of the first answers: docs/benchmarks.md.
const BUDGET_OVER_MS: f64 = 150.0;
const BUDGET_CPU_MS: f64 = 100.0;

/// One budget line: what was measured against its bound, PASS or FAIL.
fn verdict(what: &str, value: f64, bound: f64, unit: &str) -> String {
    format!("| {what} | {value:.2}{unit} | ≤ {bound:.2}{unit} | {} |\n", if value <= bound { "PASS" } else { "FAIL" })
}

/// The start-up budgets of `examples/echo` and the template bot, each a PASS or FAIL line.
fn budgets(contenders: &[Contender]) -> String {
    let by = |name: &str| contenders.iter().find(|c| c.name == name).expect("a contender");
    let hello = by("workers-rs hello");
    let ms_of = |d: Duration| d.as_secs_f64() * 1000.0;
    let (hello_over, hello_cpu) = (ms_of(p50(hello, overhead)), median(cpu_overhead(hello)));
    let mut out = String::from("| budget (p50 over the rounds) | measured | bound | verdict |\n| --- | --- | --- | --- |\n");
    for c in [by("examples/echo"), by("template bot")] {
        out += &verdict(&format!("{}: first − warm, over the hello world's", c.name), ms_of(p50(c, overhead)) - hello_over, BUDGET_OVER_MS, " ms");
        out += &verdict(&format!("{}: workerd CPU, first − warm, over the hello world's", c.name), median(cpu_overhead(c)) - hello_cpu, BUDGET_CPU_MS, " ms");
    }
    out
}

/// The start-up figures: the table, the breakdown, the budgets.
pub fn figures() -> String {
    let runs = std::env::var("BENCH_RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(10);
    let mut contenders = build();
    let before = load_average();
    rounds(&mut contenders, runs);
    let rust: Vec<&Contender> = contenders.iter().filter(|c| c.main.with_file_name("index_bg.wasm").exists()).collect();
    let breakdown = breakdown(&rust);
    format!(
        "{runs} fresh starts of each, interleaved; p50 (min–max) in ms; load average (1, 5, 15 min) before {before}, after {}\n\n{}\n{breakdown}\n\n{}",
        load_average(),
        table(&contenders),
        budgets(&contenders)
    )
}
