//! The end-to-end harness: the compiled Worker running in workerd (through Miniflare), a fake
//! Slack Web API (and LLM endpoint, and `response_url` target) on 127.0.0.1, signed Slack requests,
//! and waiting by polling with a deadline.
//!
//! All the end-to-end tests share one runtime ([`shared`]) and isolate themselves with unique team
//! ids, channels and event ids ([`unique`]). A test that must kill, restart or reconfigure the
//! runtime starts its own with [`Runtime::start`].

/// The fake Slack is the simulator's (`slackline-sim serve` runs the very same server).
pub mod fake_slack {
    pub use slackline_sim::fake::*;
}
pub mod fixture;
pub mod runtime;
pub mod slack;

pub use fake_slack::{Call, FakeSlack, Reply};
pub use runtime::{Runtime, Settings};
pub use slack::Client;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

/// The signing secret every test runtime uses.
pub const SECRET: &str = "e2e-signing-secret";
/// The admin token every test runtime uses.
pub const ADMIN_TOKEN: &str = "e2e-admin-token";
/// The records API token every test runtime uses.
pub const API_TOKEN: &str = "e2e-api-token";
/// The fallback bot token every test runtime uses.
pub const BOT_TOKEN: &str = "xoxb-e2e-fallback";
/// The OAuth client id every test runtime uses.
pub const CLIENT_ID: &str = "1111.2222";
/// The OAuth client secret every test runtime uses.
pub const CLIENT_SECRET: &str = "e2e-client-secret";
/// The token encryption key every test runtime uses.
pub const ENCRYPTION_KEY: &str = "e2e1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

/// The runtime and fake Slack shared by all the end-to-end tests. Never dropped: the runtime's
/// watchdog kills it when the test process exits, however it exits.
pub struct Shared {
    pub fake: FakeSlack,
    pub runtime: Runtime,
}

impl Shared {
    pub fn client(&self) -> Client {
        self.runtime.client()
    }
}

/// The shared runtime, started on first use with default settings.
pub fn shared() -> &'static Shared {
    static SHARED: OnceLock<Shared> = OnceLock::new();
    SHARED.get_or_init(|| {
        let fake = FakeSlack::start();
        // A Workflow step's deadline of 3 s: the step tests see a guard fire (`steps`).
        let runtime = Runtime::start(Settings::new("shared", &fake).var("STEP_DEADLINE_MS", "3000"));
        Shared { fake, runtime }
    })
}

/// A unique id with a prefix, e.g. `unique("T")` → `T18C2F0A31B2`: uppercase alphanumerics, so it
/// is a valid Slack-like id for routes and keys.
pub fn unique(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos() as u64;
    format!("{prefix}{:X}{:X}{n}", std::process::id(), nanos & 0xFF_FFFF_FFFF)
}

pub use slackline_sim::eventually;
