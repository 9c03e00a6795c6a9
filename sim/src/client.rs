//! The simulator's Slack side: signed requests to a running slackline, shaped like Slack's own
//! (an `app_mention`, a DM, a `reaction_added`, an `app_home_opened`, a slash command, a button
//! click, a global or message shortcut, a `view_submission`, a `block_suggestion`, the agent's
//! DM opened, written in and its context changed, its Stop pressed, links shared, a Work Object
//! clicked), and the fake Slack's record of what slackline sent back, read over HTTP
//! (`GET /_sim/calls?after=N`).

use serde::Deserialize;
use serde_json::{json, Map, Value};
use slackline::internal::slack::signature::SigningSecret;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Why a request to slackline or the fake did not get through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendError {
    /// Nothing listens at the URL.
    NotRunning(String),
    /// slackline refused the signature (401): the secret is not its `SLACK_SIGNING_SECRET`.
    BadSecret,
    /// Any other failure.
    Other(String),
}

impl std::fmt::Display for SendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SendError::NotRunning(url) => {
                write!(f, "nothing answers at {url}: is it running? (`make dev` for slackline, `slackline-sim serve` for the fake Slack)")
            }
            SendError::BadSecret => {
                f.write_str("slackline answered 401: the signing secret is not its SLACK_SIGNING_SECRET (pass --secret, or check .dev.vars)")
            }
            SendError::Other(why) => f.write_str(why),
        }
    }
}

/// A call slackline made to the fake Slack.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SimCall {
    /// Its position in the fake's record.
    pub index: usize,
    /// The Slack method, `response_url` or `llm`.
    pub method: String,
    /// The request path.
    pub path: String,
    /// The JSON body, if it was JSON.
    pub json: Option<Value>,
    /// The arguments (the JSON body's fields, or a form's, over the query string's).
    #[serde(default)]
    pub args: Map<String, Value>,
    /// When it arrived, in ms since the fake started.
    pub at_ms: u64,
    /// Answered 429 (over the enforced rate tiers of `serve --enforce-tiers`, or a fault).
    #[serde(default)]
    pub rate_limited: bool,
    /// The fake's JSON answer, once it answered (a post's `ts`).
    #[serde(default)]
    pub answer: Option<Value>,
}

impl SimCall {
    /// A top-level string argument (of the JSON body, the form body or the query string).
    pub fn field(&self, name: &str) -> Option<&str> {
        self.args.get(name).or_else(|| self.json.as_ref()?.get(name))?.as_str()
    }
}

/// A running slackline and a running fake Slack.
pub struct Target {
    /// slackline's base URL.
    pub url: String,
    /// The fake Slack's base URL.
    pub sim: String,
    /// The signing secret slackline checks.
    pub secret: SigningSecret,
    agent: ureq::Agent,
}

/// An answer from slackline.
#[derive(Debug, Clone)]
pub struct Ack {
    /// HTTP status.
    pub status: u16,
    /// Body.
    pub body: String,
    /// How long slackline took to answer.
    pub took: Duration,
    /// When it answered.
    pub at: Instant,
}

fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// A fresh message `ts`, shaped like Slack's (`1796126229.604390`: seconds, then six digits):
/// the ms it was minted at, then the last three digits of the process id, so two runs of the
/// simulator (two processes) mint the same `ts` only in the same ms with the same three digits;
/// within a process each is later than the one before (a second one in the same ms takes the next
/// ms). A script tells its run's calls by the `ts`s it minted (`cli::script::owner`), so two runs
/// must not share one.
pub fn fresh_ts() -> String {
    static LAST_MS: AtomicU64 = AtomicU64::new(0);
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_millis() as u64;
    let previous = LAST_MS.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |last| Some(now.max(last + 1))).unwrap_or(0);
    let ts = ts_at(now.max(previous + 1), std::process::id());
    minted(&ts);
    ts
}

/// The `ts` minted at `unix_ms` by process `pid`.
pub fn ts_at(unix_ms: u64, pid: u32) -> String {
    format!("{}.{:03}{:03}", unix_ms / 1000, unix_ms % 1000, pid % 1000)
}

/// A fresh id with a prefix (`Ev…`, `C…`): the prefix, the process id and a number that grows
/// with the clock (in hex), then a four-digit check ([`is_minted_id`] tells the simulator's ids
/// from others').
pub fn fresh_id(prefix: &str) -> String {
    static LAST: AtomicU64 = AtomicU64::new(0);
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_nanos() as u64 & 0xFFFF_FFFF_FFFF;
    let previous = LAST.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |last| Some(now.max(last + 1))).unwrap_or(0);
    let id = id_of(prefix, std::process::id(), now.max(previous + 1));
    minted(&id);
    id
}

/// The id [`fresh_id`] mints with `prefix` in process `pid` for the number `n`.
pub fn id_of(prefix: &str, pid: u32, n: u64) -> String {
    let body = format!("{prefix}{pid:X}{n:X}");
    let check = id_check(&body);
    format!("{body}{check:04X}")
}

/// FNV-1a of an id's body, cut to 16 bits: an id's last four hex digits.
fn id_check(body: &str) -> u64 {
    let bytes = b"slackline-sim id ".iter().chain(body.as_bytes());
    bytes.fold(0xcbf2_9ce4_8422_2325_u64, |hash, b| (hash ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)) & 0xFFFF
}

/// The shortest and longest id [`fresh_id`] mints (no prefix, one pid digit; a 4-letter prefix,
/// an 8-digit pid).
const MINTED_ID_LEN: std::ops::RangeInclusive<usize> = 13..=30;

/// Whether `id` is one [`fresh_id`] minted (in any process): its last four hex digits check
/// its body. Anything else (Slack's ids, a test's `C0DESK`) is not, but by a 1-in-65,536 chance.
pub fn is_minted_id(id: &str) -> bool {
    let Some(body) = id.len().checked_sub(4).and_then(|at| id.get(..at)) else { return false };
    MINTED_ID_LEN.contains(&id.len())
        && id.bytes().all(|b| b.is_ascii_alphanumeric())
        && id[body.len()..].bytes().all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(&b))
        && format!("{:04X}", id_check(body)) == id[body.len()..]
}

/// Every id in `text` that the simulator minted in some process: [`fresh_id`]s (also inside a
/// longer word: `hook…` in a path, `xwfp-Fx…`) and [`fresh_trigger_id`]s.
pub fn minted_ids_in(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for word in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '.')) {
        let word = word.trim_matches('.');
        if trigger_minted_at(word).is_some() {
            found.push(word.to_string());
            continue;
        }
        for part in word.split('.').filter(|p| p.len() >= *MINTED_ID_LEN.start()) {
            // An id ends its word here; it may follow other letters (`hook` is a prefix, `n` an
            // escaped newline's).
            let starts = part.len().saturating_sub(*MINTED_ID_LEN.end())..=part.len() - MINTED_ID_LEN.start();
            if let Some(at) = starts.into_iter().find(|&at| is_minted_id(&part[at..])) {
                found.push(part[at..].to_string());
            }
        }
    }
    found
}

thread_local! {
    /// The ids minted on this thread while [`collecting`] runs.
    static COLLECTED: std::cell::RefCell<Option<Vec<String>>> = const { std::cell::RefCell::new(None) };
}

/// Notes `id` as minted (or used) by what [`collecting`] runs, if anything does.
fn minted(id: &str) {
    COLLECTED.with(|c| {
        if let Some(ids) = c.borrow_mut().as_mut() {
            ids.push(id.to_string());
        }
    });
}

/// Notes an id that a step used without minting it (the message a click landed on): what it
/// causes is the step's too.
pub fn note_used(id: &str) {
    minted(id);
}

/// Runs `f`, and returns with its result every id minted on this thread meanwhile
/// ([`fresh_id`], [`fresh_ts`], [`fresh_trigger_id`]) and noted ([`note_used`]): what a script's
/// step sent is known by the ids in it.
pub fn collecting<T>(f: impl FnOnce() -> T) -> (T, Vec<String>) {
    let outer = COLLECTED.with(|c| c.borrow_mut().replace(Vec::new()));
    let result = f();
    let ids = COLLECTED.with(|c| std::mem::replace(&mut *c.borrow_mut(), outer)).unwrap_or_default();
    // A collection around this one sees them too.
    ids.iter().for_each(|id| minted(id));
    (result, ids)
}

/// A fresh `trigger_id`, shaped like Slack's (`12345.98765.abcd2358fdea`): the ms since the epoch
/// it was minted at, a sequence number, and a check. The fake Slack dates it by
/// [`trigger_minted_at`] and refuses it after 3 s, as Slack does (`expired_trigger_id`).
pub fn fresh_trigger_id() -> String {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let id = trigger_id_minted_at(now.as_millis() as u64);
    minted(&id);
    id
}

/// A `trigger_id` as if minted at `unix_ms` (ms since the epoch): an expired one, for a test.
pub fn trigger_id_minted_at(unix_ms: u64) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let seq = (u64::from(std::process::id()) << 20) | (NEXT.fetch_add(1, Ordering::Relaxed) & 0xF_FFFF);
    format!("{unix_ms}.{seq}.{:016x}", trigger_check(unix_ms, seq))
}

/// When a `trigger_id` of [`fresh_trigger_id`] was minted (ms since the epoch); `None` for any
/// other id (Slack's own, a test's), which cannot be dated.
pub fn trigger_minted_at(trigger_id: &str) -> Option<u64> {
    let mut parts = trigger_id.split('.');
    let (ms, seq, check) = (parts.next()?.parse().ok()?, parts.next()?.parse().ok()?, parts.next()?);
    (parts.next().is_none() && check == format!("{:016x}", trigger_check(ms, seq))).then_some(ms)
}

/// FNV-1a of the time and sequence: tells the simulator's trigger ids from others'.
fn trigger_check(ms: u64, seq: u64) -> u64 {
    let bytes = b"slackline-sim trigger".iter().chain(&ms.to_le_bytes()).chain(&seq.to_le_bytes()).copied().collect::<Vec<u8>>();
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, b| (hash ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3))
}

impl Target {
    /// A target; `secret` is slackline's signing secret.
    pub fn new(url: &str, sim: &str, secret: &str) -> Result<Target, SendError> {
        let secret = SigningSecret::parse(Some(secret.to_string())).ok_or_else(|| SendError::Other("the signing secret is empty".into()))?;
        let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(10)).redirects(0).build();
        Ok(Target { url: url.trim_end_matches('/').into(), sim: sim.trim_end_matches('/').into(), secret, agent })
    }

    /// Posts a body signed now to slackline's `path`, with extra headers (a retry's).
    pub fn post_signed(&self, path: &str, content_type: &str, body: &str, extra: &[(&str, &str)]) -> Result<Ack, SendError> {
        let ts = now_secs().to_string();
        let signature = self.secret.sign(&ts, body.as_bytes());
        let url = format!("{}{path}", self.url);
        let mut req = self.agent.post(&url).set("content-type", content_type).set("x-slack-request-timestamp", &ts).set("x-slack-signature", &signature);
        for (k, v) in extra {
            req = req.set(k, v);
        }
        let sent = Instant::now();
        let (status, body) = match req.send_string(body) {
            Ok(r) => (r.status(), r.into_string().unwrap_or_default()),
            Err(ureq::Error::Status(401, _)) => return Err(SendError::BadSecret),
            Err(ureq::Error::Status(code, r)) => (code, r.into_string().unwrap_or_default()),
            Err(ureq::Error::Transport(t)) if t.kind() == ureq::ErrorKind::ConnectionFailed => return Err(SendError::NotRunning(self.url.clone())),
            Err(e) => return Err(SendError::Other(format!("{url}: {e}"))),
        };
        Ok(Ack { status, body, took: sent.elapsed(), at: Instant::now() })
    }

    /// Posts an Events API envelope.
    pub fn event(&self, envelope: &Value, extra: &[(&str, &str)]) -> Result<Ack, SendError> {
        self.post_signed("/slack/events", "application/json", &envelope.to_string(), extra)
    }

    /// Posts a slash command form.
    pub fn command(&self, fields: &[(&str, &str)]) -> Result<Ack, SendError> {
        let body = form_urlencoded::Serializer::new(String::new()).extend_pairs(fields).finish();
        self.post_signed("/slack/commands", "application/x-www-form-urlencoded", &body, &[])
    }

    /// Posts an interactivity payload.
    pub fn interaction(&self, payload: &Value) -> Result<Ack, SendError> {
        let body = form_urlencoded::Serializer::new(String::new()).append_pair("payload", &payload.to_string()).finish();
        self.post_signed("/slack/interactivity", "application/x-www-form-urlencoded", &body, &[])
    }

    /// Calls slackline's admin API: `method` (`GET`, `POST`) on `path` with the admin token as
    /// bearer and `extra` headers (a test clock's); its status and body, whatever the status.
    pub fn admin(&self, method: &str, path: &str, token: &str, extra: &[(&str, &str)]) -> Result<(u16, String), SendError> {
        let url = format!("{}{path}", self.url);
        let mut req = self.agent.request(method, &url).set("authorization", &format!("Bearer {token}"));
        for (k, v) in extra {
            req = req.set(k, v);
        }
        let answer = if method == "POST" { req.send_string("") } else { req.call() };
        match answer {
            Ok(r) => Ok((r.status(), r.into_string().unwrap_or_default())),
            Err(ureq::Error::Status(code, r)) => Ok((code, r.into_string().unwrap_or_default())),
            Err(ureq::Error::Transport(t)) if t.kind() == ureq::ErrorKind::ConnectionFailed => Err(SendError::NotRunning(self.url.clone())),
            Err(e) => Err(SendError::Other(format!("{url}: {e}"))),
        }
    }

    /// The fake's calls from position `after` on.
    pub fn calls_after(&self, after: usize) -> Result<Vec<SimCall>, SendError> {
        let url = format!("{}/_sim/calls?after={after}", self.sim);
        match self.agent.get(&url).call() {
            Ok(r) => r.into_json::<Vec<SimCall>>().map_err(|e| SendError::Other(format!("{url}: {e}"))),
            Err(ureq::Error::Transport(t)) if t.kind() == ureq::ErrorKind::ConnectionFailed => Err(SendError::NotRunning(self.sim.clone())),
            Err(e) => Err(SendError::Other(format!("{url}: {e}"))),
        }
    }

    /// How many calls the fake has recorded.
    pub fn call_count(&self) -> Result<usize, SendError> {
        Ok(self.calls_after(0)?.len())
    }

    /// Polls the fake until a call after `after` matches, or `timeout` passes.
    pub fn wait_for(&self, after: usize, timeout: Duration, matches: impl Fn(&SimCall) -> bool) -> Result<Option<SimCall>, SendError> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(call) = self.calls_after(after)?.into_iter().find(|c| matches(c)) {
                return Ok(Some(call));
            }
            if Instant::now() > deadline {
                return Ok(None);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The `response_url` a command should answer to (on the fake).
    pub fn response_url(&self, id: &str) -> String {
        format!("{}/response/{id}", self.sim)
    }
}

/// An `event_callback` envelope for `team` (our bot is `UBOT`).
pub fn envelope(team: &str, event_id: &str, event: Value) -> Value {
    json!({
        "token": "sim", "team_id": team, "api_app_id": "ASIM", "type": "event_callback",
        "event_id": event_id, "event_time": now_secs(),
        "authorizations": [{"enterprise_id": null, "team_id": team, "user_id": "UBOT", "is_bot": true, "is_enterprise_install": false}],
        "event": event,
    })
}

/// Slack's `app_rate_limited` notice: it dropped `team`'s events in the minute starting at
/// `minute` (epoch seconds) because the workspace passed 30,000 Events API deliveries an hour.
pub fn app_rate_limited(team: &str, minute: u64) -> Value {
    json!({"token": "sim", "type": "app_rate_limited", "team_id": team, "minute_rate_limited": minute, "api_app_id": "ASIM"})
}

/// The start of the current minute, epoch seconds (what `minute_rate_limited` holds).
pub fn this_minute() -> u64 {
    now_secs() / 60 * 60
}

/// An `app_mention` of our bot by `U1`.
pub fn mention(channel: &str, ts: &str, text: &str) -> Value {
    json!({"type": "app_mention", "user": "U1", "text": format!("<@UBOT> {text}"), "ts": ts, "channel": channel, "event_ts": ts})
}

/// A direct message to our bot.
pub fn direct_message(channel: &str, ts: &str, text: &str) -> Value {
    json!({"type": "message", "channel_type": "im", "user": "U1", "text": text, "ts": ts, "channel": channel, "event_ts": ts})
}

/// A click on the "Mark resolved" button of a message at `channel`/`ts`.
pub fn resolve_click(team: &str, channel: &str, ts: &str) -> Value {
    json!({
        "type": "block_actions", "trigger_id": fresh_trigger_id(), "team": {"id": team}, "user": {"id": "U1", "team_id": team},
        "container": {"type": "message", "channel_id": channel, "message_ts": ts},
        "actions": [{"action_id": slackline::internal::app::RESOLVE_ACTION_ID, "value": "resolve", "type": "button"}],
    })
}

/// A click by `user` of `team` on the button `action_id` (carrying `value`) of the message `ts`
/// in `channel` (`block_actions`).
pub fn button_click(team: &str, user: &str, at: (&str, &str), action_id: &str, value: &str) -> Value {
    button_click_in(team, user, at, action_id, value, "sim_block")
}

/// [`button_click`] on a button of block `block_id`.
pub fn button_click_in(team: &str, user: &str, (channel, ts): (&str, &str), action_id: &str, value: &str, block_id: &str) -> Value {
    json!({
        "type": "block_actions", "trigger_id": fresh_trigger_id(), "team": sim_team(team), "user": {"id": user, "team_id": team},
        "container": {"type": "message", "channel_id": channel, "message_ts": ts}, "channel": {"id": channel}, "message": {"ts": ts},
        "actions": [{"action_id": action_id, "block_id": block_id, "type": "button", "value": value}],
    })
}

/// The acting user `U1` of `team`, as interactivity payloads carry it.
fn sim_user(team: &str) -> Value {
    user_of(team, "U1")
}

/// The acting `user` of `team`, as interactivity payloads carry it.
fn user_of(team: &str, user: &str) -> Value {
    json!({"id": user, "username": "sim", "name": "sim", "team_id": team})
}

/// The `team` of an interactivity payload.
fn sim_team(team: &str) -> Value {
    json!({"id": team, "domain": "sim"})
}

/// A global shortcut (`type: shortcut`) with `callback_id`, by `U1`.
pub fn global_shortcut(team: &str, callback_id: &str) -> Value {
    json!({
        "type": "shortcut", "token": "sim", "action_ts": fresh_ts(), "team": sim_team(team), "user": sim_user(team),
        "is_enterprise_install": false, "enterprise": null, "callback_id": callback_id, "trigger_id": fresh_trigger_id(),
    })
}

/// A message shortcut (`type: message_action`) with `callback_id`, run by `U1` on a message of
/// `U2` at `channel`/`ts`; `response_url` is where the app may answer.
pub fn message_shortcut(team: &str, callback_id: &str, channel: &str, ts: &str, response_url: &str) -> Value {
    json!({
        "type": "message_action", "token": "sim", "action_ts": fresh_ts(), "team": sim_team(team), "user": sim_user(team),
        "is_enterprise_install": false, "enterprise": null, "callback_id": callback_id, "trigger_id": fresh_trigger_id(),
        "channel": {"id": channel, "name": "sim"}, "message_ts": ts, "response_url": response_url,
        "message": {"type": "message", "user": "U2", "ts": ts, "text": "a message to run the shortcut on"},
    })
}

/// A modal's `state.values` from `(block_id, action_id, value)`s: each a `plain_text_input`.
pub fn state_values(values: &[(String, String, String)]) -> Value {
    let mut blocks = Map::new();
    for (block, action, value) in values {
        let actions = blocks.entry(block.clone()).or_insert_with(|| Value::Object(Map::new()));
        actions[action.as_str()] = json!({"type": "plain_text_input", "value": value});
    }
    Value::Object(blocks)
}

/// A submission (`view_submission`) by `U1` of a modal with `callback_id` whose inputs hold
/// `values` (`(block_id, action_id, value)`): the view has one input block per block id.
pub fn view_submission(team: &str, callback_id: &str, values: &[(String, String, String)]) -> Value {
    view_submission_by(team, "U1", callback_id, values)
}

/// [`view_submission`] by `user` (its `user.id`).
pub fn view_submission_by(team: &str, user: &str, callback_id: &str, values: &[(String, String, String)]) -> Value {
    let view_id = fresh_id("V");
    let mut blocks: Vec<Value> = Vec::new();
    for (block, action, _) in values {
        if !blocks.iter().any(|b| b["block_id"] == block.as_str()) {
            blocks.push(json!({
                "type": "input", "block_id": block, "label": {"type": "plain_text", "text": block},
                "element": {"type": "plain_text_input", "action_id": action},
            }));
        }
    }
    json!({
        "type": "view_submission", "token": "sim", "api_app_id": "ASIM", "team": sim_team(team), "user": user_of(team, user),
        "is_enterprise_install": false, "enterprise": null, "trigger_id": fresh_trigger_id(),
        "view": {
            "id": view_id, "team_id": team, "type": "modal", "callback_id": callback_id, "external_id": "",
            "title": {"type": "plain_text", "text": "slackline-sim"}, "submit": {"type": "plain_text", "text": "Submit"},
            "blocks": blocks, "state": {"values": state_values(values)}, "private_metadata": "",
            "hash": format!("{}.{:08x}", now_secs(), std::process::id()), "root_view_id": view_id, "previous_view_id": null,
            "app_id": "ASIM", "app_installed_team_id": team, "bot_id": "BSIM",
        },
        "response_urls": [],
    })
}

/// A `block_suggestion`: `U1` typed `query` into the external select `action_id` of `block_id`
/// in a modal; the ack's body holds the options.
pub fn block_suggestion(team: &str, action_id: &str, block_id: &str, query: &str) -> Value {
    let view_id = fresh_id("V");
    json!({
        "type": "block_suggestion", "token": "sim", "api_app_id": "ASIM", "team": sim_team(team), "user": sim_user(team),
        "is_enterprise_install": false, "enterprise": null, "action_id": action_id, "block_id": block_id, "value": query,
        "action_ts": fresh_ts(), "container": {"type": "view", "view_id": view_id},
        "view": {"id": view_id, "team_id": team, "type": "modal", "callback_id": "", "state": {"values": {}}, "private_metadata": "", "app_installed_team_id": team},
    })
}

/// A `reaction_added`: `U1` reacted with `reaction` (an emoji name, no colons) to `U2`'s message
/// at `channel`/`ts`.
pub fn reaction_added(channel: &str, ts: &str, reaction: &str) -> Value {
    json!({"type": "reaction_added", "user": "U1", "reaction": reaction, "item_user": "U2", "item": {"type": "message", "channel": channel, "ts": ts}, "event_ts": fresh_ts()})
}

/// An `app_home_opened`: `U1` opened the app's Home tab; `channel` is the app's DM with them.
pub fn app_home_opened(channel: &str) -> Value {
    json!({"type": "app_home_opened", "user": "U1", "channel": channel, "tab": "home", "event_ts": fresh_ts()})
}

/// An `app_home_opened` on the Messages tab (`agent_view`): `user` opened the agent's DM `dm`.
pub fn agent_opened(user: &str, dm: &str) -> Value {
    json!({"type": "app_home_opened", "user": user, "channel": dm, "tab": "messages", "event_ts": fresh_ts()})
}

/// `user`'s message `ts` in the agent's DM `dm`: top-level (the root of its own thread), or a
/// reply in the thread `thread_ts`.
pub fn agent_message(user: &str, dm: &str, ts: &str, thread_ts: Option<&str>, text: &str) -> Value {
    let mut event = json!({"type": "message", "channel_type": "im", "channel": dm, "user": user, "text": text, "ts": ts, "event_ts": ts});
    if let Some(thread_ts) = thread_ts {
        event["thread_ts"] = json!(thread_ts);
    }
    event
}

/// What `user` looks at beside the agent's DM `dm` changed (`app_context_changed`): `entities`
/// in Slack's shape (`{type: "slack#/types/channel_id", value, team_id}`, …); none: nothing.
pub fn app_context_changed(user: &str, dm: &str, entities: &[Value]) -> Value {
    json!({"type": "app_context_changed", "user": user, "channel": dm, "context": {"entities": entities}, "event_ts": fresh_ts()})
}

/// How a Workflow step's per-execution token starts (`xwfp-`).
pub const EXECUTION_TOKEN_PREFIX: &str = "xwfp-";

/// A workflow reaching the app's step `callback_id` (`function_executed`): execution
/// `execution_id`, its `inputs`, and its per-execution token (`xwfp-{execution_id}`, which the fake
/// Slack revokes once the step has ended).
pub fn function_executed(callback_id: &str, execution_id: &str, inputs: &Value) -> Value {
    json!({
        "type": "function_executed", "function": {"callback_id": callback_id}, "inputs": inputs,
        "function_execution_id": execution_id, "workflow_execution_id": fresh_id("Wx"),
        "bot_access_token": format!("{EXECUTION_TOKEN_PREFIX}{execution_id}"), "event_ts": fresh_ts(),
    })
}

/// `U1` shared `urls` (`link_shared`, each link's domain its URL's host) from `source`: in a
/// message `ts` of `channel` (`conversations_history`), or in the composer (`composer`: channel
/// `COMPOSER`, no message); the sharing's `unfurl_id` is `unfurl_id`.
pub fn link_shared(channel: &str, ts: &str, urls: &[String], source: &str, unfurl_id: &str) -> Value {
    let composer = source == "composer";
    let links: Vec<Value> = urls.iter().map(|url| json!({"url": url, "domain": host_of(url)})).collect();
    json!({
        "type": "link_shared", "channel": if composer { "COMPOSER" } else { channel }, "is_bot_user_member": !composer, "user": "U1",
        "message_ts": if composer { unfurl_id } else { ts }, "unfurl_id": unfurl_id, "source": source, "links": links, "event_ts": fresh_ts(),
    })
}

/// A URL's host (`https://tickets.example.test:8443/T-1` → `tickets.example.test`).
fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.split(['/', '?', '#', ':']).next().unwrap_or_default()
}

/// `U1` clicked the Work Object `external_id` at `url`, unfurled in message `ts` of `channel`
/// (`entity_details_requested`), with `trigger_id`.
pub fn entity_details_requested(external_id: &str, url: &str, channel: &str, ts: &str, trigger_id: &str) -> Value {
    json!({
        "type": "entity_details_requested", "user": "U1", "external_ref": {"id": external_id}, "entity_url": url,
        "link": {"url": url, "domain": host_of(url)}, "app_unfurl_url": url, "event_ts": fresh_ts(), "trigger_id": trigger_id,
        "user_locale": "en-US", "channel": channel, "message_ts": ts, "thread_ts": ts,
    })
}

/// An `agent_session_stopped`: `U1` pressed Stop on the agent's answer in `thread_ts` of
/// `channel` (on the streaming messages named, if any).
pub fn agent_session_stopped(channel: &str, thread_ts: &str, streaming: &[String]) -> Value {
    json!({"type": "agent_session_stopped", "user": "U1", "channel": channel, "thread_ts": thread_ts, "streaming_message_ts": streaming, "event_ts": fresh_ts()})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_signed_as_slack_documents() {
        // Slack's documented example (api.slack.com/authentication/verifying-requests-from-slack).
        let secret = SigningSecret::parse(Some("8f742231b10e8888abcd99yyyzzz85a5".into())).unwrap();
        let body = "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
        assert_eq!(secret.sign("1531420618", body.as_bytes()), "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503");
    }

    #[test]
    fn shapes_are_slacks() {
        let e = envelope("T1", "Ev1", mention("C1", "1.2", "hi"));
        assert_eq!(
            (e["type"].as_str(), e["event"]["type"].as_str(), e["authorizations"][0]["team_id"].as_str()),
            (Some("event_callback"), Some("app_mention"), Some("T1"))
        );
        assert_eq!(direct_message("D1", "1.2", "hi")["channel_type"], "im");
        assert_eq!(resolve_click("T1", "C1", "1.2")["actions"][0]["action_id"], slackline::internal::app::RESOLVE_ACTION_ID);
        assert!(fresh_ts().contains('.') && fresh_id("C").starts_with('C'));
        let values = [("b1", "a1", "x"), ("b1", "a2", "y"), ("b2", "a1", "z")].map(|(b, a, v)| (b.to_string(), a.to_string(), v.to_string()));
        let submission = view_submission("T1", "cb", &values);
        assert_eq!(
            submission["view"]["state"]["values"],
            json!({"b1": {"a1": {"type": "plain_text_input", "value": "x"}, "a2": {"type": "plain_text_input", "value": "y"}}, "b2": {"a1": {"type": "plain_text_input", "value": "z"}}})
        );
        assert_eq!((submission["view"]["type"].as_str(), submission["view"]["blocks"].as_array().map(Vec::len)), (Some("modal"), Some(2)));
        assert!(trigger_minted_at(submission["trigger_id"].as_str().unwrap()).is_some());
        assert_eq!(global_shortcut("T1", "cb")["type"], "shortcut");
        let shortcut = message_shortcut("T1", "cb", "C1", "1.2", "http://x/response/h");
        assert_eq!(
            (shortcut["type"].as_str(), shortcut["message"]["ts"].as_str(), shortcut["channel"]["id"].as_str()),
            (Some("message_action"), Some("1.2"), Some("C1"))
        );
        assert_eq!(block_suggestion("T1", "pick", "b", "al")["value"], "al");
        assert_eq!(reaction_added("C1", "1.2", "eyes")["item"], json!({"type": "message", "channel": "C1", "ts": "1.2"}));
        assert_eq!(app_home_opened("D1")["tab"], "home");
    }

    #[test]
    fn the_simulators_ids_are_told_from_others_by_their_check_also_inside_a_longer_word() {
        let (channel, hook, execution) = (fresh_id("C"), fresh_id("hook"), fresh_id("Fx"));
        assert!(is_minted_id(&channel) && is_minted_id(&hook) && is_minted_id(&fresh_id("")), "{channel} {hook}");
        assert_ne!(fresh_id("C"), fresh_id("C"), "each id is new");
        let forged = format!("{}{}", &channel[..channel.len() - 1], if channel.ends_with('0') { '1' } else { '0' });
        for other in ["C0DESK", "U1", "C024BE91L", "V1A2B3C0001", "TTRY1796126227", "1796126229.604390", "", forged.as_str()] {
            assert!(!is_minted_id(other), "{other}");
        }
        let trigger = fresh_trigger_id();
        let text = format!(
            r#"/response/{hook} {{"channel":"{channel}","text":"done\n{channel}.","token":"xwfp-{execution}","trigger_id":"{trigger}","ts":"1796126229.604390","c":"C0DESK"}}"#
        );
        let found = minted_ids_in(&text);
        for id in [&hook, &channel, &execution, &trigger] {
            assert!(found.contains(id), "{id} in {found:?}");
        }
        assert_eq!(found.len(), 5, "the channel twice, nothing else: {found:?}");
        assert!(minted_ids_in(r#"{"channel":"C0DESK","text":"TCK-1 (High): Printer on fire","ts":"1796126229.604390"}"#).is_empty());
    }

    #[test]
    fn a_ts_is_new_each_time_and_two_processes_mint_different_ones_in_the_same_ms() {
        let minted: Vec<String> = (0..2_000).map(|_| fresh_ts()).collect();
        for pair in minted.windows(2) {
            let (a, b): (f64, f64) = (pair[0].parse().unwrap(), pair[1].parse().unwrap());
            assert!(a < b, "each later than the one before: {pair:?}");
        }
        let (secs, frac) = minted[0].split_once('.').unwrap();
        assert_eq!((secs.len(), frac.len()), (10, 6), "Slack's shape: {}", minted[0]);
        assert!(minted[0].ends_with(&format!("{:03}", std::process::id() % 1000)));
        assert_eq!(ts_at(1_796_126_229_604, 12_390), "1796126229.604390");
        assert_ne!(ts_at(1_796_126_229_604, 12_390), ts_at(1_796_126_229_604, 12_391), "the same ms, another process");
    }

    #[test]
    fn collecting_gathers_the_ids_minted_and_noted_meanwhile_on_its_thread() {
        let outside = fresh_id("C");
        let ((id, ts, trigger), ids) = collecting(|| {
            let minted = (fresh_id("C"), fresh_ts(), fresh_trigger_id());
            note_used("1700000000.000100");
            // Another thread's ids are not this step's.
            std::thread::spawn(|| fresh_id("C")).join().unwrap();
            minted
        });
        assert_eq!(ids, [id, ts, trigger, "1700000000.000100".to_string()]);
        assert!(!ids.contains(&outside));
        let (inner, outer) = collecting(|| collecting(|| fresh_id("T")).1);
        assert_eq!(inner, outer, "a collection around another sees its ids too");
        assert_eq!(collecting(|| ()).1, Vec::<String>::new());
    }

    #[test]
    fn the_simulators_trigger_ids_carry_their_time_and_no_other_ids_do() {
        let id = trigger_id_minted_at(1_700_000_000_123);
        assert_eq!(id.split('.').count(), 3, "Slack's shape: {id}");
        assert_eq!(trigger_minted_at(&id), Some(1_700_000_000_123));
        assert_ne!(trigger_id_minted_at(1_700_000_000_123), id, "each id is new");
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as u64;
        assert!(trigger_minted_at(&fresh_trigger_id()).is_some_and(|at| at.abs_diff(now) < 60_000));
        let forged = id.replacen("1700000000123", "1700000000124", 1);
        for other in ["12345.98765.abcd2358fdea", "398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c", "trig.1A2B", "", forged.as_str()] {
            assert_eq!(trigger_minted_at(other), None, "{other}");
        }
    }
}
