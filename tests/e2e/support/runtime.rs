//! One workerd process group per [`Runtime`] (Miniflare through `scripts/workerd.mjs`; the
//! benchmarks' `bare` ones through wrangler's `scripts/serve.mjs`), on a free port, with its own
//! persistence folder and settings.
//!
//! No process may outlive the test run: the runtime is started by a small `bash` watchdog in its
//! own process group that reads its standard input (a pipe held by the test process) and kills the
//! whole group when that pipe closes — when the test process exits, panics or is killed. `Drop`
//! and [`Runtime::kill`] kill the group at once with SIGKILL (an abrupt crash, on purpose).

use super::{FakeSlack, ADMIN_TOKEN, BOT_TOKEN, SECRET};
use std::fs;
use std::io::Write;
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// Settings for one runtime: the vars it gets through its own env file.
#[derive(Clone)]
pub struct Settings {
    pub name: String,
    pub vars: Vec<(String, String)>,
    /// Another wrangler config than the project's (an example bot's; the benchmarks' floor
    /// Worker, set by `benches/load/harness.rs`).
    pub config: Option<PathBuf>,
    /// Serve through wrangler (`scripts/serve.mjs`, dev tooling off: the benchmarks, which serve
    /// configs of other kinds too) instead of Miniflare alone (`scripts/workerd.mjs`: the tests).
    pub bare: bool,
    /// The bundle to serve instead of the config's `main`: a bot's `build-testkit/index.js` (`make
    /// worker TESTKIT=1`: the test hooks, the tally, the meter), never the production `build/`
    /// that `make dev` serves. `None` for a Worker of another kind (the benchmarks' floors).
    pub script: Option<PathBuf>,
    /// Two Workers instead of one: a front door and the actors of (maybe) other builds.
    pub pair: Option<Pair>,
}

/// Two releases side by side, as during a deploy: the front door (the Worker's `fetch`) of one
/// bundle with the actor classes (`TeamActor`, `Directory`) of another, the second Worker's, bound
/// by `script_name` — what Cloudflare runs while a deploy's Durable Object code update is deferred,
/// or a gradual deployment serves two versions. Both get the settings' vars, each its own on top.
#[derive(Clone)]
pub struct Pair {
    pub front: Side,
    pub actors: Side,
}

/// One Worker of a [`Pair`]: its bundle and the vars it gets on top of the settings'.
#[derive(Clone)]
pub struct Side {
    pub script: PathBuf,
    pub vars: Vec<(String, String)>,
}

impl Side {
    /// A side serving `script` with the settings' vars only.
    pub fn of(script: PathBuf) -> Side {
        Side { script, vars: Vec::new() }
    }

    /// The same side with one more var.
    pub fn var(mut self, key: &str, value: &str) -> Side {
        self.vars.push((key.into(), value.into()));
        self
    }
}

/// The bundle of this tree's bot, as the e2e runtimes serve it, built first (`make worker
/// TESTKIT=1`, once per test run; quick when it is up to date).
pub fn this_release() -> PathBuf {
    static BUILT: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    BUILT.get_or_init(|| {
        let built = Command::new("make").args(["--no-print-directory", "worker", "TESTKIT=1"]).current_dir(project_root()).status();
        assert!(built.is_ok_and(|s| s.success()), "make worker TESTKIT=1");
    });
    project_root().join("examples/echo/build-testkit/index.js")
}

/// The bundle of an earlier release of the same bot (`tests/fixtures/releases/{commit}`, written
/// by `scripts/release-fixture.sh`), unpacked once into `target/e2e/releases/{commit}`.
pub fn earlier_release(commit: &str) -> PathBuf {
    let from = project_root().join("tests/fixtures/releases").join(commit);
    let to = project_root().join("target/e2e/releases").join(commit);
    if !to.join("index_bg.wasm").exists() {
        let staging = to.with_extension(format!("part{}", std::process::id()));
        fs::create_dir_all(&staging).unwrap();
        fs::copy(from.join("index.js"), staging.join("index.js")).unwrap();
        let wasm = Command::new("gzip").arg("-dc").arg(from.join("index_bg.wasm.gz")).output().expect("gzip must be on PATH");
        assert!(wasm.status.success(), "unpack {commit}'s wasm");
        fs::write(staging.join("index_bg.wasm"), wasm.stdout).unwrap();
        // Another test may have unpacked it meanwhile: either copy is the same.
        if fs::rename(&staging, &to).is_err() {
            let _ = fs::remove_dir_all(&staging);
        }
    }
    to.join("index.js")
}

/// The top-level `name` and `compatibility_date` and the `[vars]` of a wrangler config: all the
/// tests' configs hold besides the actor bindings every bot declares alike. Anything else under
/// `[vars]` than `KEY = "string"` is refused rather than misread.
struct ConfigFacts {
    name: String,
    compatibility_date: String,
    vars: Vec<(String, String)>,
}

fn config_facts(path: &Path) -> ConfigFacts {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let mut facts = ConfigFacts { name: "slackline".into(), compatibility_date: "2026-11-01".into(), vars: Vec::new() };
    let mut section = String::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        if line.starts_with('[') {
            section = line.to_string();
            continue;
        }
        let Some((key, value)) = line.split_once('=') else { continue };
        let (key, value) = (key.trim(), value.trim());
        let string = || serde_json::from_str::<String>(value).unwrap_or_else(|_| panic!("{}: {key} is not a plain string: {value}", path.display()));
        match (section.as_str(), key) {
            ("", "name") => facts.name = string(),
            ("", "compatibility_date") => facts.compatibility_date = string(),
            ("[vars]", _) => facts.vars.push((key.to_string(), string())),
            _ => {}
        }
    }
    facts
}

/// `vars` with `over` on top (a later value replaces an earlier one), as a JSON object.
fn merged(vars: &[(String, String)], over: &[(String, String)]) -> serde_json::Value {
    let mut all = serde_json::Map::new();
    for (k, v) in vars.iter().chain(over) {
        all.insert(k.clone(), serde_json::Value::String(v.clone()));
    }
    serde_json::Value::Object(all)
}

/// One Worker of a `scripts/workerd.mjs` spec: the bundle, its vars and the two actor classes,
/// declared by this Worker or (`actors_of`) bound from another.
fn worker_spec(name: &str, script: &Path, date: &str, vars: serde_json::Value, actors_of: Option<&str>) -> serde_json::Value {
    let actors: Vec<serde_json::Value> = [("TEAM", "TeamActor"), ("DIRECTORY", "Directory")]
        .iter()
        .map(|(binding, class)| serde_json::json!({ "binding": binding, "class": class, "script_name": actors_of }))
        .collect();
    serde_json::json!({ "name": name, "script": script, "compatibility_date": date, "vars": vars, "durable_objects": actors })
}

impl Settings {
    /// The defaults every test runtime uses, pointing Slack, the LLM and response URLs at `fake`.
    pub fn new(name: &str, fake: &FakeSlack) -> Settings {
        let vars = [
            ("SLACK_SIGNING_SECRET", SECRET.to_string()),
            ("SLACK_API_URL", fake.api_url()),
            ("SLACK_BOT_TOKEN", BOT_TOKEN.to_string()),
            ("ADMIN_TOKEN", ADMIN_TOKEN.to_string()),
            ("API_TOKEN", super::API_TOKEN.to_string()),
            ("LISTS_PACE_MS", "20".to_string()),
            // The shared runtimes measure the engine, not Slack's rates: nothing is paced (429s
            // still hold). tests/e2e/pacing.rs runs Slack's tiers against a fake that enforces them.
            ("SLACK_RATE_LIMITS", "off".to_string()),
            // The log tests read success lines too (the default prints failures only).
            ("LOG_DELIVERIES", "all".to_string()),
            ("ALLOW_TEST_CLOCK", "1".to_string()),
            ("SLACK_CLIENT_ID", super::CLIENT_ID.to_string()),
            ("SLACK_CLIENT_SECRET", super::CLIENT_SECRET.to_string()),
            ("TOKEN_ENCRYPTION_KEY", super::ENCRYPTION_KEY.to_string()),
            ("ALERT_PENDING_AGE_MS", "1000".to_string()),
        ];
        let vars = vars.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        let script = this_release();
        Settings { name: name.into(), vars, config: None, bare: false, script: Some(script), pair: None }
    }

    /// The settings of the example bot `examples/{app}`, served from its own `wrangler.toml`; its
    /// Worker bundle is built first (`make worker APP={app}`, quick when it is up to date).
    pub fn example(app: &str, fake: &FakeSlack) -> Settings {
        Settings::bot(&format!("examples/{app}"), fake)
    }

    /// The settings of the bot crate in `dir` (relative to the project root, e.g.
    /// `benches/apps/listeners`), served from its own `wrangler.toml`, built first (`make worker
    /// BOT={dir}`).
    pub fn bot(dir: &str, fake: &FakeSlack) -> Settings {
        let built = Command::new("make").args(["--no-print-directory", "worker", "TESTKIT=1", &format!("BOT={dir}")]).current_dir(project_root()).status();
        assert!(built.is_ok_and(|s| s.success()), "make worker TESTKIT=1 BOT={dir}");
        let name = dir.rsplit('/').next().unwrap_or(dir);
        let mut settings = Settings::new(name, fake);
        settings.config = Some(project_root().join(dir).join("wrangler.toml"));
        settings.script = Some(project_root().join(dir).join("build-testkit/index.js"));
        settings
    }

    /// Sets (or replaces) one var.
    pub fn var(mut self, key: &str, value: &str) -> Settings {
        self.vars.retain(|(k, _)| k != key);
        self.vars.push((key.into(), value.into()));
        self
    }

    /// Serves `pair` instead of one Worker.
    pub fn pair(mut self, pair: Pair) -> Settings {
        self.pair = Some(pair);
        self
    }

    /// Removes one var.
    pub fn without(mut self, key: &str) -> Settings {
        self.vars.retain(|(k, _)| k != key);
        self
    }
}

/// Another process holds the port this runtime was meant to use.
#[derive(Debug)]
struct PortTaken;

/// Who listens on a runtime's port.
enum Holder {
    Us,
    Someone,
    Nobody,
}

/// A running (or killed) runtime.
pub struct Runtime {
    pub port: u16,
    pub dir: PathBuf,
    settings: Settings,
    child: Option<Child>,
    starts: u32,
    /// Relaunches because another process held the port (bounded).
    port_retries: u32,
}

fn project_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A port for a runtime (or its inspector), free when picked. Taken from the 10,000 ports just
/// below the kernel's ephemeral range, in turn from a per-process counter: the kernel never hands
/// these to port-0 binds or outgoing connections, so a port a killed runtime gives up stays free
/// for its restart instead of going to the next port-0 bind (another runtime's, a fake server's).
fn free_port() -> u16 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let low =
        fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range").ok().and_then(|r| r.split_whitespace().next()?.parse::<u32>().ok()).unwrap_or(32_768);
    let span = 10_000.min(low.saturating_sub(1_024));
    let offset = std::process::id().wrapping_mul(7_919) % span;
    for _ in 0..span {
        let port = (low - span + (offset + NEXT.fetch_add(1, Ordering::Relaxed)) % span) as u16;
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Runtime {
    /// Starts a runtime with a fresh persistence folder and waits until `/healthz` answers.
    pub fn start(settings: Settings) -> Runtime {
        Runtime::start_on(settings, |_| {})
    }

    /// Starts a runtime on a persistence folder that `prepare` fills first (with a schema
    /// fixture's state, `support::fixture`), and waits until `/healthz` answers.
    pub fn start_on(settings: Settings, prepare: impl FnOnce(&Path)) -> Runtime {
        let dir = project_root().join("target/e2e").join(super::unique(&format!("{}-", settings.name)));
        fs::create_dir_all(dir.join("state")).unwrap();
        prepare(&dir.join("state"));
        let mut runtime = Runtime { port: free_port(), dir, settings, child: None, starts: 0, port_retries: 0 };
        runtime.launch();
        runtime
    }

    /// What `scripts/workerd.mjs` serves: this runtime's one Worker (its config's name, date and
    /// vars, the settings' vars on top) or a [`Pair`]'s two, the front door first.
    fn spec(&self) -> serde_json::Value {
        let s = &self.settings;
        let workers = match &s.pair {
            Some(pair) => vec![
                worker_spec("front", &pair.front.script, "2026-11-01", merged(&s.vars, &pair.front.vars), Some("actors")),
                worker_spec("actors", &pair.actors.script, "2026-11-01", merged(&s.vars, &pair.actors.vars), None),
            ],
            None => {
                let config = s.config.clone().unwrap_or_else(|| project_root().join("wrangler.toml"));
                let facts = config_facts(&config);
                let script = s.script.clone().unwrap_or_else(|| panic!("runtime {}: no bundle to serve", s.name));
                vec![worker_spec(&facts.name, &script, &facts.compatibility_date, merged(&facts.vars, &s.vars), None)]
            }
        };
        serde_json::json!({ "port": self.port, "persist": self.dir.join("state"), "workers": workers })
    }

    fn env_file(&self) -> PathBuf {
        let path = self.dir.join("vars.env");
        let mut file = fs::File::create(&path).unwrap();
        for (k, v) in &self.settings.vars {
            writeln!(file, "{k}={v}").unwrap();
        }
        path
    }

    fn launch(&mut self) {
        self.starts += 1;
        let root = project_root();
        let log = fs::File::create(self.log_path_of(self.starts)).unwrap();
        let path = format!(
            "{}:{}:{}",
            root.join("node_modules/.bin").display(),
            std::env::var("HOME").map(|h| format!("{h}/.cargo/bin")).unwrap_or_default(),
            std::env::var("PATH").unwrap_or_default()
        );
        // The watchdog: run the server in the background, wait for stdin to close, kill the group.
        let watchdog = "\"$@\" & cat >/dev/null; kill -KILL 0";
        let mut command = Command::new("bash");
        command.arg("-c").arg(watchdog).arg("slackline-runtime");
        if self.settings.bare {
            // The benchmarks: wrangler's programmatic API, the config's own `main` and vars.
            command.arg("node").arg(root.join("scripts/serve.mjs")).args(["--port", &self.port.to_string()]);
            command.args(self.settings.script.iter().flat_map(|s| [std::ffi::OsStr::new("--script"), s.as_os_str()]));
            command.arg("--env-file").arg(self.env_file());
            command.args(self.settings.config.iter().flat_map(|c| [std::ffi::OsStr::new("--config"), c.as_os_str()]));
            command.arg("--persist-to").arg(self.dir.join("state"));
        } else {
            // The tests: Miniflare alone on the bundle (scripts/workerd.mjs).
            let spec = self.dir.join(format!("spec-{}.json", self.starts));
            fs::write(&spec, self.spec().to_string()).unwrap();
            command.arg("node").arg(root.join("scripts/workerd.mjs")).arg(spec);
        }
        let child = command
            .current_dir(&root)
            .env("PATH", path)
            .env("WRANGLER_SEND_METRICS", "false")
            // Node keeps the code it compiled for Miniflare (about 90,000 lines of JavaScript) in
            // this folder, for the next of the suite's ~80 starts.
            .env("NODE_COMPILE_CACHE", root.join("target/node-compile-cache"))
            // wrangler otherwise appends every line it prints to a debug file under
            // ~/.config/.wrangler/logs (one append per line: CPU, and disk that tests would fill).
            .env("WRANGLER_WRITE_LOGS", "false")
            .env("CI", "true")
            .env("NO_COLOR", "1")
            .env("FORCE_COLOR", "0")
            .stdin(Stdio::piped())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .process_group(0)
            .spawn()
            .expect("bash must be on PATH");
        self.child = Some(child);
        if self.wait_ready().is_err() {
            eprintln!("runtime {}: port {} held by {}", self.settings.name, self.port, self.port_users());
            // Another process took the port between our probe and wrangler's bind (ports are
            // picked by binding port 0 and releasing it). A first start moves to a fresh port;
            // a restart must keep its port, so it waits for it instead.
            self.kill();
            self.starts -= 1;
            self.port_retries += 1;
            assert!(self.port_retries <= 5, "runtime {}: port {} stays taken by another process: {}", self.settings.name, self.port, self.port_users());
            if self.starts == 0 {
                self.port = free_port();
            } else {
                std::thread::sleep(Duration::from_secs(1));
            }
            self.launch();
        }
    }

    /// Waits until this runtime's own processes listen on its port and `/healthz` answers (any
    /// status: a runtime without a signing secret answers 503). `Err` when another process holds
    /// the port: it was picked by binding port 0 and releasing it, and someone else took it.
    /// Who holds the port is looked up (a walk of `/proc`) when something answers, and once a
    /// second while nothing does: a lookup costs milliseconds of CPU while a suite keeps
    /// thousands of sockets, and a start polls for about a second.
    fn wait_ready(&self) -> Result<(), PortTaken> {
        let url = format!("{}/healthz", self.base_url());
        let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(2)).build();
        let ready = std::time::Instant::now() + Duration::from_secs(180);
        let mut foreign_since = None;
        for poll in 0u64.. {
            let answered = matches!(agent.get(&url).call(), Ok(_) | Err(ureq::Error::Status(_, _)));
            if !answered && poll % 10 == 9 && !self.server_alive() {
                panic!("runtime {}: its server exited before answering; log: {}", self.settings.name, self.log_text());
            }
            if answered || poll % 10 == 9 {
                match self.port_holder() {
                    Holder::Us if answered => return Ok(()),
                    Holder::Us => {}
                    // Only a holder that stays is a taken port (not one caught mid-exit).
                    Holder::Someone if foreign_since.get_or_insert_with(std::time::Instant::now).elapsed() > Duration::from_secs(3) => return Err(PortTaken),
                    Holder::Someone => {}
                    Holder::Nobody => foreign_since = None,
                }
            }
            if std::time::Instant::now() > ready {
                panic!("runtime {} not ready after 180 s; log: {}", self.settings.name, self.log_text());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        unreachable!("the polls are counted by an unbounded range")
    }

    /// Whether the server (Node, and the workerd it starts) still runs: the watchdog's `bash`
    /// and `cat` stay in the group after it exits (e.g. Node could not load Miniflare).
    fn server_alive(&self) -> bool {
        let comm = |pid: &i32| fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        self.pids().iter().any(|pid| !matches!(comm(pid).trim(), "bash" | "cat" | ""))
    }

    /// The processes with a socket on this runtime's port (`ss`), for a failure message.
    fn port_users(&self) -> String {
        let out = Command::new("ss").args(["-Htanp", &format!("sport = :{}", self.port)]).output();
        out.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).unwrap_or_default()
    }

    /// Who listens on this runtime's port, from `/proc/net/tcp` and the processes' open sockets.
    /// A listening socket no live process holds (one of a killed runtime, still closing) counts
    /// as nobody's.
    fn port_holder(&self) -> Holder {
        let listening = format!(":{:04X}", self.port);
        let table = fs::read_to_string("/proc/net/tcp").unwrap_or_default();
        let sockets: Vec<String> = table
            .lines()
            .skip(1)
            .filter_map(|line| {
                let f: Vec<&str> = line.split_whitespace().collect();
                let inode = f.get(9)?;
                (f.get(1)?.ends_with(&listening) && f.get(3) == Some(&"0A")).then(|| format!("socket:[{inode}]"))
            })
            .collect();
        if sockets.is_empty() {
            return Holder::Nobody;
        }
        let holds = |pid: &i32| {
            fs::read_dir(format!("/proc/{pid}/fd"))
                .map(|fds| fds.filter_map(|fd| fs::read_link(fd.ok()?.path()).ok()).any(|link| sockets.iter().any(|s| link.to_string_lossy() == *s)))
                .unwrap_or(false)
        };
        if self.pids().iter().any(holds) {
            return Holder::Us;
        }
        let everyone: Vec<i32> =
            fs::read_dir("/proc").map(|entries| entries.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok()).collect()).unwrap_or_default();
        if everyone.iter().any(holds) {
            Holder::Someone
        } else {
            Holder::Nobody
        }
    }

    /// `http://127.0.0.1:{port}`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// A client for this runtime.
    pub fn client(&self) -> super::Client {
        super::Client::new(&self.base_url())
    }

    fn log_path_of(&self, start: u32) -> PathBuf {
        self.dir.join(format!("runtime-{start}.log"))
    }

    /// Everything the runtime printed (all starts), e.g. to find structured log lines.
    pub fn log_text(&self) -> String {
        (1..=self.starts).filter_map(|n| fs::read_to_string(self.log_path_of(n)).ok()).collect::<Vec<_>>().join("\n")
    }

    /// The structured (JSON) log lines the Worker printed (wrangler prefixes error-level lines
    /// with a marker, so the JSON object is taken from the first `{` to the last `}`).
    pub fn log_lines(&self) -> Vec<serde_json::Value> {
        self.log_text().lines().filter_map(|l| Some(&l[l.find('{')?..=l.rfind('}')?])).filter_map(|l| serde_json::from_str(l).ok()).collect()
    }

    /// Kills the whole process group at once (SIGKILL): an abrupt crash.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
        }
    }

    /// Starts again on the same persistence folder and port.
    pub fn restart(&mut self) {
        self.kill();
        self.launch();
    }

    /// A redeploy: the same persistence folder and port, with changed settings.
    pub fn redeploy(&mut self, change: impl FnOnce(Settings) -> Settings) {
        let settings =
            std::mem::replace(&mut self.settings, Settings { name: String::new(), vars: Vec::new(), config: None, bare: false, script: None, pair: None });
        self.settings = change(settings);
        self.restart();
    }

    /// The process group id, while running.
    pub fn process_group(&self) -> Option<i32> {
        self.child.as_ref().map(|c| c.id() as i32)
    }

    pub fn state_dir(&self) -> &Path {
        &self.dir
    }

    /// The pids of every process of the runtime (wrangler, workerd, ...).
    pub fn pids(&self) -> Vec<i32> {
        let Some(group) = self.process_group() else { return vec![] };
        let Ok(entries) = fs::read_dir("/proc") else { return vec![] };
        entries.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok()).filter(|pid| unsafe { libc::getpgid(*pid) } == group).collect()
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.kill();
    }
}
