//! Signed Slack requests and admin calls against a runtime.

use super::{ADMIN_TOKEN, API_TOKEN, SECRET};
use serde_json::{json, Value};
use slackline::internal::slack::signature::SigningSecret;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// An HTTP answer.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|_| panic!("not JSON ({}): {}", self.status, self.body))
    }
}

/// A client for one runtime.
#[derive(Clone)]
pub struct Client {
    base: String,
    agent: ureq::Agent,
    /// A failed request (no answer) is status 0 instead of a panic: for a client that retries
    /// through a runtime's restart ([`Client::lenient`]).
    lenient: bool,
}

pub fn now_secs() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs() as i64
}

/// The wall clock in epoch milliseconds (what the test clock header and due times are in).
pub fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as i64
}

/// Slack's signature of `body` at `ts`, with the test secret.
pub fn sign(ts: &str, body: &[u8]) -> String {
    SigningSecret::parse(Some(SECRET.into())).unwrap().sign(ts, body)
}

/// POSTs a Slack form `body` to `path`, signed at `at` (epoch ms), with the test clock set to it:
/// a request Slack sent then, as slackline sees it.
pub fn post_signed_at(c: &Client, path: &str, body: &str, at: i64) -> u16 {
    let ts = (at / 1000).to_string();
    let sig = sign(&ts, body.as_bytes());
    let clock = (at / 1000 * 1000).to_string();
    let headers = [
        ("content-type", "application/x-www-form-urlencoded"),
        ("x-slack-request-timestamp", ts.as_str()),
        ("x-slack-signature", sig.as_str()),
        ("x-slackline-test-now", clock.as_str()),
    ];
    c.post_raw(path, &headers, body.as_bytes()).status
}

fn read(r: ureq::Response) -> Answer {
    let headers = r.headers_names().into_iter().filter_map(|n| Some((n.clone(), r.header(&n)?.to_string()))).collect();
    Answer { status: r.status(), headers, body: r.into_string().unwrap_or_default() }
}

fn answer_or(result: Result<ureq::Response, ureq::Error>, lenient: bool) -> Answer {
    match result {
        Ok(r) | Err(ureq::Error::Status(_, r)) => read(r),
        Err(e) if lenient => Answer { status: 0, headers: Vec::new(), body: e.to_string() },
        Err(e) => panic!("request failed: {e}"),
    }
}

/// A body this large is sent by [`status_before_the_body_is_sent`].
pub const LARGE_BODY: usize = 64 * 1024;

/// The status of a large request as Slack's side sees it: workerd may answer (a 413) and close
/// the connection before the body is all sent, which Cloudflare's edge, reading the whole request
/// first, never shows a client. So the body is written from another thread (its errors ignored)
/// while the status line is read.
pub fn status_before_the_body_is_sent(base: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> u16 {
    use std::io::{BufRead, BufReader, Write};
    let address = base.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {address}\r\nContent-Length: {}\r\nConnection: close\r\n", body.len());
    for (k, v) in headers {
        head += &format!("{k}: {v}\r\n");
    }
    stream.write_all(format!("{head}\r\n").as_bytes()).unwrap();
    let (mut writer, body) = (stream.try_clone().unwrap(), body.to_vec());
    let sender = std::thread::spawn(move || drop(writer.write_all(&body)));
    let mut line = String::new();
    BufReader::new(&stream).read_line(&mut line).unwrap_or_else(|e| panic!("{method} {path}: {e}"));
    let _ = stream.shutdown(std::net::Shutdown::Both);
    let _ = sender.join();
    line.split_whitespace().nth(1).and_then(|code| code.parse().ok()).unwrap_or_else(|| panic!("{method} {path}: no status line: {line:?}"))
}

impl Client {
    pub fn new(base: &str) -> Client {
        Client { base: base.into(), agent: ureq::AgentBuilder::new().timeout(Duration::from_secs(30)).redirects(0).build(), lenient: false }
    }

    /// Sends one request with `headers` and maybe a body: the one place the client's calls with
    /// a body go through. A body over [`LARGE_BODY`] gets its status only
    /// ([`status_before_the_body_is_sent`]).
    pub fn send(&self, method: &str, path: &str, headers: &[(&str, &str)], body: Option<&[u8]>) -> Answer {
        if let Some(body) = body.filter(|b| b.len() > LARGE_BODY) {
            return Answer { status: status_before_the_body_is_sent(&self.base, method, path, headers, body), headers: Vec::new(), body: String::new() };
        }
        let mut req = self.agent.request(method, &format!("{}{path}", self.base));
        for (k, v) in headers {
            req = req.set(k, v);
        }
        self.answer(match body {
            Some(body) => req.send_bytes(body),
            None => req.call(),
        })
    }

    fn answer(&self, result: Result<ureq::Response, ureq::Error>) -> Answer {
        answer_or(result, self.lenient)
    }

    /// A client whose failed requests (no answer: the runtime is restarting) are status 0.
    pub fn lenient(base: &str) -> Client {
        Client { lenient: true, ..Client::new(base) }
    }

    pub fn get(&self, path: &str) -> Answer {
        self.answer(self.agent.get(&format!("{}{path}", self.base)).call())
    }

    /// GETs with extra headers (e.g. a cookie).
    pub fn get_with(&self, path: &str, headers: &[(&str, &str)]) -> Answer {
        let mut req = self.agent.get(&format!("{}{path}", self.base));
        for (k, v) in headers {
            req = req.set(k, v);
        }
        self.answer(req.call())
    }

    /// POSTs raw bytes with the given headers (nothing added).
    pub fn post_raw(&self, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Answer {
        self.send("POST", path, headers, Some(body))
    }

    /// POSTs `body` signed now, with a content type.
    pub fn post_signed(&self, path: &str, content_type: &str, body: &[u8]) -> Answer {
        let ts = now_secs().to_string();
        let sig = sign(&ts, body);
        self.post_raw(path, &[("content-type", content_type), ("x-slack-request-timestamp", &ts), ("x-slack-signature", &sig)], body)
    }

    /// POSTs a signed Events API body (with `extra` headers), as Slack's `retry`-th retry when
    /// given (`x-slack-retry-num`, reason `http_timeout`).
    pub fn event_delivery(&self, body: &str, retry: Option<&str>, extra: &[(&str, &str)]) -> Answer {
        let ts = now_secs().to_string();
        let sig = sign(&ts, body.as_bytes());
        let mut headers = vec![("content-type", "application/json"), ("x-slack-request-timestamp", ts.as_str()), ("x-slack-signature", sig.as_str())];
        headers.extend_from_slice(extra);
        if let Some(n) = retry {
            headers.push(("x-slack-retry-num", n));
            headers.push(("x-slack-retry-reason", "http_timeout"));
        }
        self.post_raw("/slack/events", &headers, body.as_bytes())
    }

    /// POSTs a signed Events API envelope.
    pub fn event(&self, envelope: &Value) -> Answer {
        self.post_signed("/slack/events", "application/json", envelope.to_string().as_bytes())
    }

    /// POSTs a signed slash command form.
    pub fn command(&self, form: &[(&str, &str)]) -> Answer {
        let body = form_urlencoded::Serializer::new(String::new()).extend_pairs(form).finish();
        self.post_signed("/slack/commands", "application/x-www-form-urlencoded", body.as_bytes())
    }

    /// POSTs a signed interactivity payload.
    pub fn interaction(&self, payload: &Value) -> Answer {
        let body = form_urlencoded::Serializer::new(String::new()).append_pair("payload", &payload.to_string()).finish();
        self.post_signed("/slack/interactivity", "application/x-www-form-urlencoded", body.as_bytes())
    }

    fn admin(&self, method: &str, path: &str) -> Answer {
        let req = self.agent.request(method, &format!("{}{path}", self.base)).set("authorization", &format!("Bearer {ADMIN_TOKEN}"));
        self.answer(req.call())
    }

    pub fn admin_get(&self, path: &str) -> Answer {
        self.admin("GET", path)
    }

    pub fn admin_post(&self, path: &str) -> Answer {
        self.admin("POST", path)
    }

    pub fn admin_delete(&self, path: &str) -> Answer {
        self.admin("DELETE", path)
    }

    /// A records API (`/api/…`) call with the test `API_TOKEN`.
    pub fn api(&self, method: &str, path: &str, body: Option<&Value>) -> Answer {
        self.api_as(method, path, Some(API_TOKEN), body.map(|b| b.to_string()).as_deref())
    }

    /// An `/api/…` call with the test `API_TOKEN`, extra headers and a raw body.
    pub fn api_with(&self, method: &str, path: &str, headers: &[(&str, &str)], body: Option<&str>) -> Answer {
        let bearer = format!("Bearer {API_TOKEN}");
        let mut all = vec![("authorization", bearer.as_str())];
        all.extend(body.map(|_| ("content-type", "application/json")));
        all.extend_from_slice(headers);
        self.send(method, path, &all, body.map(str::as_bytes))
    }

    /// An `/api/…` call with any bearer, as if from client address `ip` (`ALLOW_TEST_CLOCK`).
    pub fn api_as_from(&self, method: &str, path: &str, bearer: Option<&str>, ip: &str) -> Answer {
        let mut req = self.agent.request(method, &format!("{}{path}", self.base)).set("x-slackline-test-client-ip", ip);
        if let Some(token) = bearer {
            req = req.set("authorization", &format!("Bearer {token}"));
        }
        self.answer(req.call())
    }

    /// A records API call with any bearer (or none) and a raw body.
    pub fn api_as(&self, method: &str, path: &str, bearer: Option<&str>, body: Option<&str>) -> Answer {
        let bearer = bearer.map(|t| format!("Bearer {t}"));
        let mut all: Vec<(&str, &str)> = bearer.as_deref().map(|b| ("authorization", b)).into_iter().collect();
        all.extend(body.map(|_| ("content-type", "application/json")));
        self.send(method, path, &all, body.map(str::as_bytes))
    }

    /// The team's stats from the admin API.
    pub fn stats(&self, team: &str) -> Value {
        let a = self.admin_get(&format!("/admin/teams/{team}/stats"));
        assert_eq!(a.status, 200, "{}", a.body);
        a.json()
    }

    /// The team's outbox rows in one status.
    pub fn rows(&self, team: &str, status: &str) -> Vec<Value> {
        let a = self.admin_get(&format!("/admin/teams/{team}/outbox?status={status}&limit=200"));
        assert_eq!(a.status, 200, "{}", a.body);
        a.json()["rows"].as_array().cloned().unwrap_or_default()
    }

    /// Every row of the team, whatever its status, each once: the statuses are read one after
    /// another, so a row delivered (or parked) meanwhile is seen twice, and kept with its later one.
    pub fn all_rows(&self, team: &str) -> Vec<Value> {
        let mut rows: Vec<Value> = Vec::new();
        for row in ["pending", "done", "parked"].iter().flat_map(|s| self.rows(team, s)) {
            rows.retain(|r| r["id"] != row["id"]);
            rows.push(row);
        }
        rows
    }

    /// How many receipts the team has.
    pub fn receipts(&self, team: &str) -> i64 {
        self.stats(team)["receipts"].as_i64().unwrap_or(-1)
    }

    /// The value of the team's state key `key` (admin API), if it holds one.
    pub fn state_value(&self, team: &str, key: &str) -> Option<Value> {
        let a = self.admin_get(&format!("/admin/teams/{team}/state?prefix={key}&limit=1"));
        assert_eq!(a.status, 200, "{}", a.body);
        a.json()["entries"].as_array()?.iter().find(|e| e["key"] == key).map(|e| e["value"].clone())
    }

    /// The team's pending scheduled rows (admin API), soonest due first.
    pub fn scheduled(&self, team: &str) -> Vec<Value> {
        let a = self.admin_get(&format!("/admin/teams/{team}/scheduled"));
        assert_eq!(a.status, 200, "{}", a.body);
        a.json()["scheduled"].as_array().cloned().unwrap_or_default()
    }

    /// One row with its attempt history.
    pub fn row(&self, team: &str, id: i64) -> Value {
        let a = self.admin_get(&format!("/admin/teams/{team}/outbox/{id}"));
        assert_eq!(a.status, 200, "{}", a.body);
        a.json()
    }
}

/// The form body of the slash command `command` as Slack posts it: run by `user` of `team` in
/// `C1`, with `trigger_id` and a `response_url` nobody serves.
pub fn command_form(team: &str, command: &str, user: &str, trigger_id: &str) -> String {
    let response_url = format!("https://hooks.slack.test/commands/{trigger_id}");
    let fields = [
        ("command", command),
        ("text", ""),
        ("team_id", team),
        ("channel_id", "C1"),
        ("user_id", user),
        ("response_url", &response_url),
        ("trigger_id", trigger_id),
    ];
    form_urlencoded::Serializer::new(String::new()).extend_pairs(fields).finish()
}

/// The simulator's Slack shapes: an `event_callback` envelope (our bot is `UBOT`) and an
/// `app_mention` by `U1`.
pub use slackline_sim::client::{envelope, mention};

/// The `message` copy of the same post.
pub fn message_copy(channel: &str, ts: &str, text: &str) -> Value {
    json!({"type": "message", "channel_type": "channel", "user": "U1", "text": format!("<@UBOT> {text}"), "ts": ts, "channel": channel, "event_ts": ts})
}
