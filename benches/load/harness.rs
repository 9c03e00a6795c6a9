//! What only the benchmarks ask of the test harness (`tests/e2e/support`): runtimes served bare or
//! from another wrangler config, and readings of their CPU, memory and log volume.

use super::support::{Runtime, Settings};
use std::fs;
use std::path::PathBuf;

/// The benchmarks' settings of a runtime.
pub trait BenchSettings {
    /// Serves through `scripts/serve.mjs`: the same wrangler and workerd with the dev-only tooling
    /// (inspector, local explorer, local observability) off.
    fn bare(self) -> Settings;
    /// Serves another wrangler config (relative to the project root).
    fn config(self, path: &str) -> Settings;
}

impl BenchSettings for Settings {
    fn bare(mut self) -> Settings {
        self.bare = true;
        self
    }

    fn config(mut self, path: &str) -> Settings {
        self.config = Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path));
        // Another Worker (a floor, the peer): its own `main`.
        self.script = None;
        self
    }
}

/// The clock the kernel counts processes' CPU time in (`/proc/<pid>/stat`): ticks a second.
pub fn ticks_per_second() -> f64 {
    unsafe { libc::sysconf(libc::_SC_CLK_TCK) as f64 }
}

/// The benchmarks' readings of a runtime.
pub trait Readings {
    /// How many structured (JSON) lines the Worker has printed so far, and their bytes (with the
    /// newline): what a log service would ingest and bill.
    fn json_log_totals(&self) -> (usize, usize);
    /// Resident memory of the runtime's processes, in bytes.
    fn rss_bytes(&self) -> u64;
    /// CPU seconds (user + system) used so far, per kind of process: `worker` (the workerd that runs the Worker and its
    /// Durable Objects), `proxy` (wrangler's own workerd in front of it, which owns our port),
    /// `node` (wrangler) and `other`.
    fn cpu_by_process(&self) -> Vec<(&'static str, f64)>;
}

impl Readings for Runtime {
    fn json_log_totals(&self) -> (usize, usize) {
        self.log_text().lines().filter(|l| l.contains("{\"kind\":")).fold((0, 0), |(n, bytes), l| (n + 1, bytes + l.len() + 1))
    }

    fn rss_bytes(&self) -> u64 {
        self.pids()
            .iter()
            .filter_map(|pid| fs::read_to_string(format!("/proc/{pid}/status")).ok())
            .filter_map(|s| s.lines().find(|l| l.starts_with("VmRSS:"))?.split_whitespace().nth(1)?.parse::<u64>().ok())
            .sum::<u64>()
            * 1024
    }

    fn cpu_by_process(&self) -> Vec<(&'static str, f64)> {
        let ticks = ticks_per_second();
        let ours = format!("entry=127.0.0.1:{}", self.port);
        let mut totals: Vec<(&'static str, f64)> = vec![("worker", 0.0), ("proxy", 0.0), ("node", 0.0), ("other", 0.0)];
        for pid in self.pids() {
            let (Ok(stat), Ok(cmdline)) = (fs::read_to_string(format!("/proc/{pid}/stat")), fs::read(format!("/proc/{pid}/cmdline"))) else { continue };
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            let Some(fields) = stat.rsplit_once(')').map(|(_, rest)| rest.split_whitespace().collect::<Vec<_>>()) else { continue };
            let secs =
                (fields.get(11).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0) + fields.get(12).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0)) / ticks;
            let kind = match stat.split_once('(').and_then(|(_, rest)| rest.split_once(')')).map(|(name, _)| name) {
                Some("workerd") if cmdline.contains(&ours) => 1,
                Some("workerd") => 0,
                Some("node") => 2,
                _ => 3,
            };
            totals[kind].1 += secs;
        }
        totals
    }
}
