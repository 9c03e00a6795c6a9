//! A fake OpenAI-compatible model server on 127.0.0.1 that streams: `POST /v1/chat/completions`
//! with `stream: true` answers `text/event-stream`, one `data:` chunk per token at a set rate,
//! then `data: [DONE]`, each chunk flushed as it is produced (HTTP/1.1 chunked encoding, written
//! by hand on a plain socket: a buffering server would deliver the tokens in bursts). Without
//! `stream: true` it answers one `chat.completion`.
//!
//! Like a real model server under trouble, it can be told to break the stream after N tokens
//! (the connection closes mid-answer, without `[DONE]`) or to hang after N tokens (it keeps the
//! connection open and sends nothing more). Every request is recorded (its JSON body), so a test
//! can see that a continuation was asked to continue from the delivered text.
//!
//! A prompt may carry its own settings, for tests that share one fake: `[llm tokens=200 rate=20
//! break=50 hang=10 chunk=20]` (any of them) overrides [`LlmSettings`] for that request; `break` and
//! `hang` apply to a first ask only, so the continuation of a broken answer completes. A hung
//! stream stays open until [`FakeLlm::release_hung`] closes it.
//!
//! The answer to a prompt is deterministic: [`FakeLlm::answer_to`] (`tokens` words). A request
//! whose last message is the assistant's (a continuation) is answered with the rest of that
//! answer after the text the assistant message holds, so a resumed answer reads as one.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// How the fake model behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LlmSettings {
    /// Words in each answer.
    pub tokens: usize,
    /// Tokens a second when streaming.
    pub tokens_per_second: u32,
    /// Close the connection after this many tokens of a stream (no `[DONE]`).
    pub break_after: Option<usize>,
    /// Send nothing more after this many tokens, keeping the connection open.
    pub hang_after: Option<usize>,
    /// Tokens per `data:` event (at least 1): the same text at the same rate in fewer, larger
    /// events (the answer-cost bench separates the per-event cost of reading the stream).
    pub tokens_per_event: usize,
}

impl Default for LlmSettings {
    fn default() -> Self {
        LlmSettings { tokens: 50, tokens_per_second: 50, break_after: None, hang_after: None, tokens_per_event: 1 }
    }
}

/// The fake model server.
#[derive(Clone)]
pub struct FakeLlm {
    port: u16,
    settings: Arc<Mutex<LlmSettings>>,
    requests: Arc<Mutex<Vec<Value>>>,
    /// Set by [`FakeLlm::release_hung`]: hung streams close.
    released: Arc<(Mutex<bool>, Condvar)>,
}

impl FakeLlm {
    /// Starts on a free port of 127.0.0.1.
    pub fn start(settings: LlmSettings) -> FakeLlm {
        let listener = TcpListener::bind(("127.0.0.1", 0)).expect("bind the fake LLM");
        let port = listener.local_addr().expect("its address").port();
        let llm = FakeLlm { port, settings: Arc::new(Mutex::new(settings)), requests: Arc::default(), released: Arc::default() };
        let server = llm.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let server = server.clone();
                std::thread::spawn(move || server.serve(stream));
            }
        });
        llm
    }

    /// The URL for `LLM_API_URL`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/v1/chat/completions", self.port)
    }

    /// Changes how it behaves from the next request on.
    pub fn set(&self, settings: LlmSettings) {
        *self.settings.lock().unwrap() = settings;
    }

    /// Ends every hung stream (and every later hang) by closing its connection, as a model
    /// server that gives up would.
    pub fn release_hung(&self) {
        let (flag, woken) = &*self.released;
        *flag.lock().unwrap() = true;
        woken.notify_all();
    }

    /// Blocks a hung stream until [`FakeLlm::release_hung`] (at most 10 minutes).
    fn hang(&self) {
        let (flag, woken) = &*self.released;
        let guard = flag.lock().unwrap();
        let _ = woken.wait_timeout_while(guard, Duration::from_secs(600), |released| !*released);
    }

    /// The JSON bodies of the requests so far.
    pub fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }

    /// The whole answer the model gives to `prompt`: `tokens` words, each followed by a space.
    pub fn answer_to(prompt: &str, tokens: usize) -> String {
        let seed: String = prompt.chars().filter(|c| c.is_alphanumeric()).take(12).collect();
        (0..tokens).map(|i| format!("{seed}{i} ")).collect()
    }

    /// The text this request is to be answered with: the answer to the last user message, or
    /// the rest of it after a partial assistant message (a continuation).
    fn text_for(body: &Value, tokens: usize) -> String {
        let messages = body["messages"].as_array().cloned().unwrap_or_default();
        let prompt = messages.iter().rev().find(|m| m["role"] == "user").and_then(|m| m["content"].as_str()).unwrap_or("");
        let full = FakeLlm::answer_to(prompt, tokens);
        match messages.last().filter(|m| m["role"] == "assistant").and_then(|m| m["content"].as_str()) {
            Some(partial) if full.starts_with(partial) => full[partial.len()..].to_string(),
            _ => full,
        }
    }

    fn serve(&self, stream: TcpStream) {
        let Some(body) = read_request(&stream) else { return };
        self.requests.lock().unwrap().push(body.clone());
        let settings = directives(&body, *self.settings.lock().unwrap());
        let text = FakeLlm::text_for(&body, settings.tokens);
        if body["stream"] == true {
            self.stream_answer(stream, &text, settings);
        } else {
            let answer = json!({"id": "cmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]});
            let body = answer.to_string();
            let head = format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n", body.len());
            let mut stream = stream;
            let _ = stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(body.as_bytes()));
        }
    }
}

/// The settings a request's user message asks for (`[llm tokens=N rate=N break=N hang=N]`).
fn directives(body: &Value, mut settings: LlmSettings) -> LlmSettings {
    let continuation = body["messages"].as_array().and_then(|m| m.last()).is_some_and(|m| m["role"] == "assistant");
    let text = body["messages"].as_array().into_iter().flatten().filter(|m| m["role"] == "user").filter_map(|m| m["content"].as_str()).collect::<String>();
    let Some(inner) = text.split("[llm ").nth(1).and_then(|rest| rest.split(']').next()) else { return settings };
    for pair in inner.split_whitespace() {
        let Some((name, value)) = pair.split_once('=') else { continue };
        let Ok(n) = value.parse::<usize>() else { continue };
        match name {
            "tokens" => settings.tokens = n,
            "rate" => settings.tokens_per_second = n as u32,
            "chunk" => settings.tokens_per_event = n.max(1),
            // The faults hit a first ask only: a continuation is answered in full.
            "break" if !continuation => settings.break_after = Some(n),
            "hang" if !continuation => settings.hang_after = Some(n),
            _ => {}
        }
    }
    settings
}

/// Reads one request's head and body (by `content-length`); its body as JSON.
fn read_request(stream: &TcpStream) -> Option<Value> {
    let mut reader = BufReader::new(stream);
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().ok()?;
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

impl FakeLlm {
    /// Writes `text` as server-sent events, one event (`tokens_per_event` words) a tick, each in an
    /// HTTP chunk of its own.
    fn stream_answer(&self, mut stream: TcpStream, text: &str, settings: LlmSettings) {
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";
        if stream.write_all(head.as_bytes()).is_err() {
            return;
        }
        let per_event = settings.tokens_per_event.max(1);
        let tick = Duration::from_secs_f64(per_event as f64 / f64::from(settings.tokens_per_second.max(1)));
        let words: Vec<&str> = text.split_inclusive(' ').collect();
        for (n, group) in words.chunks(per_event).enumerate() {
            let i = n * per_event;
            if settings.break_after.is_some_and(|b| (i..i + group.len()).contains(&b)) {
                let _ = stream.shutdown(std::net::Shutdown::Both);
                return;
            }
            if settings.hang_after.is_some_and(|h| (i..i + group.len()).contains(&h)) {
                self.hang();
                let _ = stream.shutdown(std::net::Shutdown::Both);
                return;
            }
            std::thread::sleep(tick);
            let content: String = group.concat();
            let chunk =
                json!({"id": "cmpl-1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": null}]});
            if write_chunk(&mut stream, &format!("data: {chunk}\n\n")).is_err() {
                return; // the client went away
            }
        }
        let _ = write_chunk(&mut stream, "data: [DONE]\n\n").and_then(|_| stream.write_all(b"0\r\n\r\n"));
    }
}

fn write_chunk(stream: &mut TcpStream, data: &str) -> std::io::Result<()> {
    stream.write_all(format!("{:x}\r\n{data}\r\n", data.len()).as_bytes())?;
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::assistant::sse::{SseDecoder, SseEvent};
    use std::time::Instant;

    fn ask(llm: &FakeLlm, body: Value) -> (Vec<SseEvent>, Vec<Duration>) {
        let mut stream = TcpStream::connect(("127.0.0.1", llm.port)).unwrap();
        let body = body.to_string();
        write!(stream, "POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}", body.len())
            .unwrap();
        let started = Instant::now();
        let (mut decoder, mut events, mut at) = (SseDecoder::default(), Vec::new(), Vec::new());
        let mut raw = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n) = stream.read(&mut buf) {
            if n == 0 {
                break;
            }
            raw.extend_from_slice(&buf[..n]);
            // Chunk framing lines carry no `data:`; the decoder skips them.
            for e in decoder.push(&buf[..n]) {
                at.push(started.elapsed());
                events.push(e);
            }
        }
        (events, at)
    }

    fn prompt(text: &str) -> Value {
        json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": text}]})
    }

    #[test]
    fn it_streams_the_answer_a_token_at_a_time_at_its_rate() {
        let llm = FakeLlm::start(LlmSettings { tokens: 10, tokens_per_second: 50, ..LlmSettings::default() });
        let (events, at) = ask(&llm, prompt("hello there"));
        let text: String = events.iter().filter_map(|e| if let SseEvent::Delta(t) = e { Some(t.as_str()) } else { None }).collect();
        assert_eq!(text, FakeLlm::answer_to("hello there", 10));
        assert_eq!(events.last(), Some(&SseEvent::Done));
        // Ten tokens at 50 a second arrive over about 200 ms, not at once.
        assert!(at[9] > at[0] + Duration::from_millis(100), "{at:?}");
    }

    #[test]
    fn a_continuation_is_answered_with_the_rest() {
        let llm = FakeLlm::start(LlmSettings { tokens: 6, tokens_per_second: 1000, ..LlmSettings::default() });
        let full = FakeLlm::answer_to("go", 6);
        let partial: String = full.split_inclusive(' ').take(2).collect();
        let body = json!({"stream": true, "messages": [{"role": "user", "content": "go"}, {"role": "assistant", "content": partial}]});
        let (events, _) = ask(&llm, body);
        let text: String = events.iter().filter_map(|e| if let SseEvent::Delta(t) = e { Some(t.as_str()) } else { None }).collect();
        assert_eq!(format!("{partial}{text}"), full);
        assert_eq!(llm.requests().len(), 1);
    }

    #[test]
    fn a_prompt_can_carry_its_own_settings() {
        let llm = FakeLlm::start(LlmSettings::default());
        let (events, _) = ask(&llm, prompt("short [llm tokens=3 rate=1000]"));
        assert_eq!(events.iter().filter(|e| matches!(e, SseEvent::Delta(_))).count(), 3);
    }

    #[test]
    fn a_broken_stream_ends_without_done() {
        let llm = FakeLlm::start(LlmSettings { tokens: 10, tokens_per_second: 1000, break_after: Some(3), ..LlmSettings::default() });
        let (events, _) = ask(&llm, prompt("x"));
        assert_eq!(events.len(), 3, "{events:?}");
        assert!(events.iter().all(|e| matches!(e, SseEvent::Delta(_))));
    }
}
