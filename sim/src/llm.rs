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
//! break=50 hang=10 chunk=20 think=20000 think_head=20000]` (any of them) overrides [`LlmSettings`]
//! for that request; `break` and `hang` apply to a first ask only, so the continuation of a broken
//! answer completes. A hung stream stays open until [`FakeLlm::release_hung`] closes it.
//!
//! **A model that thinks first.** `think=MS` sends the answer's head at once and its first token
//! only after MS (a reasoning model streams nothing while it reasons); `think_head=MS` holds the
//! head itself back as long. Meanwhile the fake watches the connection: a client that closes it
//! (aborts the request) is recorded with the time it did ([`FakeLlm::closed`]), and the fake
//! stops thinking.
//!
//! The answer to a prompt is deterministic: [`FakeLlm::answer_to`] (`tokens` words). A request
//! whose last message is the assistant's (a continuation) is answered with the rest of that
//! answer after the text the assistant message holds, so a resumed answer reads as one.
//!
//! **Tool calls.** `[llm tools=search,lookup]` makes the model call those tools as it answers, as
//! an OpenAI-compatible server streams them (`choices[0].delta.tool_calls`: the call's `index`,
//! `id` and `function.name` first, then its `arguments` in a second delta): call `i` of `k` comes
//! before word `i × tokens / k` (the first before any text), with the id `call_{i}_{name}`
//! ([`FakeLlm::tool_calls`]). A continuation calls again the tools from where the partial answer
//! ends on (the one at that very place included, with the same id: a real model may report a
//! call again after a resume).

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

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
    /// Send the head at once, then nothing for this many ms before the first token.
    pub think_ms: Option<u64>,
    /// Send nothing at all, not even the head, for this many ms.
    pub think_head_ms: Option<u64>,
}

impl Default for LlmSettings {
    fn default() -> Self {
        LlmSettings { tokens: 50, tokens_per_second: 50, break_after: None, hang_after: None, tokens_per_event: 1, think_ms: None, think_head_ms: None }
    }
}

/// The fake model server.
#[derive(Clone)]
pub struct FakeLlm {
    port: u16,
    settings: Arc<Mutex<LlmSettings>>,
    requests: Arc<Mutex<Vec<Value>>>,
    /// The requests whose client closed the connection while the model thought: (the request's
    /// last user message, when).
    closed: Arc<Mutex<Vec<(String, Instant)>>>,
    /// Set by [`FakeLlm::release_hung`]: hung streams close.
    released: Arc<(Mutex<bool>, Condvar)>,
}

impl FakeLlm {
    /// Starts on a free port of 127.0.0.1.
    pub fn start(settings: LlmSettings) -> FakeLlm {
        let listener = TcpListener::bind(("127.0.0.1", 0)).expect("bind the fake LLM");
        let port = listener.local_addr().expect("its address").port();
        let llm = FakeLlm { port, settings: Arc::new(Mutex::new(settings)), requests: Arc::default(), closed: Arc::default(), released: Arc::default() };
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

    /// When the client closed the request whose prompt contains `needle` while the model was
    /// still thinking (`think`, `think_head`), if it has.
    pub fn closed(&self, needle: &str) -> Option<Instant> {
        self.closed.lock().unwrap().iter().find(|(prompt, _)| prompt.contains(needle)).map(|(_, at)| *at)
    }

    /// Waits `ms` as a thinking model does, watching the connection: `false` (and the close
    /// recorded) when the client closed it meanwhile.
    fn think(&self, stream: &TcpStream, body: &Value, ms: u64) -> bool {
        let until = Instant::now() + Duration::from_millis(ms);
        let _ = stream.set_nonblocking(true);
        let open = loop {
            match stream.peek(&mut [0u8; 1]) {
                Ok(0) => break false,
                Err(e) if e.kind() != std::io::ErrorKind::WouldBlock => break false,
                _ if Instant::now() >= until => break true,
                _ => std::thread::sleep(Duration::from_millis(10)),
            }
        };
        let _ = stream.set_nonblocking(false);
        if !open {
            self.closed.lock().unwrap().push((last_user_message(body), Instant::now()));
        }
        open
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
        let full = FakeLlm::answer_to(&last_user_message(body), tokens);
        match messages.last().filter(|m| m["role"] == "assistant").and_then(|m| m["content"].as_str()) {
            Some(partial) if full.starts_with(partial) => full[partial.len()..].to_string(),
            _ => full,
        }
    }

    /// The tool calls the answer to `prompt` makes (`[llm tools=…]`), in order: (id, tool name,
    /// the byte offset in [`FakeLlm::answer_to`]'s text it comes before).
    pub fn tool_calls(prompt: &str, tokens: usize) -> Vec<(String, String, usize)> {
        let names = tool_names(prompt);
        let full = FakeLlm::answer_to(prompt, tokens);
        let starts: Vec<usize> = std::iter::once(0).chain(full.match_indices(' ').map(|(at, _)| at + 1)).collect();
        names.iter().enumerate().map(|(i, name)| (format!("call_{i}_{name}"), name.clone(), starts[(i * tokens / names.len()).min(starts.len() - 1)])).collect()
    }

    /// What this request is answered with, in order: words, and the tool calls among them.
    fn pieces_for(body: &Value, tokens: usize) -> Vec<Piece> {
        let prompt = last_user_message(body);
        let rest = FakeLlm::text_for(body, tokens);
        let done = FakeLlm::answer_to(&prompt, tokens).len() - rest.len();
        let mut tools = FakeLlm::tool_calls(&prompt, tokens).into_iter().filter(|(.., at)| *at >= done).peekable();
        let mut pieces = Vec::new();
        let mut at = done;
        for word in rest.split_inclusive(' ') {
            while let Some((id, name, _)) = tools.next_if(|(.., tool_at)| *tool_at <= at) {
                pieces.push(Piece::Tool { id, name });
            }
            pieces.push(Piece::Word(word.to_string()));
            at += word.len();
        }
        pieces.extend(tools.map(|(id, name, _)| Piece::Tool { id, name }));
        pieces
    }

    fn serve(&self, stream: TcpStream) {
        let Some(body) = read_request(&stream) else { return };
        self.requests.lock().unwrap().push(body.clone());
        let settings = directives(&body, *self.settings.lock().unwrap());
        let text = FakeLlm::text_for(&body, settings.tokens);
        if settings.think_head_ms.is_some_and(|ms| !self.think(&stream, &body, ms)) {
            return;
        }
        if body["stream"] == true {
            self.stream_answer(stream, &body, settings);
        } else {
            let answer = json!({"id": "cmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]});
            let body = answer.to_string();
            let head = format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n", body.len());
            let mut stream = stream;
            let _ = stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(body.as_bytes()));
        }
    }
}

/// A piece of a streamed answer.
enum Piece {
    Word(String),
    Tool { id: String, name: String },
}

/// The request's last user message.
fn last_user_message(body: &Value) -> String {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    messages.iter().rev().find(|m| m["role"] == "user").and_then(|m| m["content"].as_str()).unwrap_or("").to_string()
}

/// The tools a prompt asks the model to call (`[llm tools=search,lookup]`).
fn tool_names(prompt: &str) -> Vec<String> {
    let Some(inner) = prompt.split("[llm ").nth(1).and_then(|rest| rest.split(']').next()) else { return Vec::new() };
    let list = inner.split_whitespace().find_map(|pair| pair.strip_prefix("tools="));
    list.into_iter().flat_map(|l| l.split(',')).filter(|n| !n.is_empty()).map(str::to_string).collect()
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
            "think" => settings.think_ms = Some(n as u64),
            "think_head" => settings.think_head_ms = Some(n as u64),
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
    /// Writes `pieces` as server-sent events, one event a tick (`tokens_per_event` words, or a
    /// tool call's two deltas), each in an HTTP chunk of its own.
    fn stream_answer(&self, mut stream: TcpStream, body: &Value, settings: LlmSettings) {
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";
        if stream.write_all(head.as_bytes()).and_then(|_| stream.flush()).is_err() {
            return;
        }
        if settings.think_ms.is_some_and(|ms| !self.think(&stream, body, ms)) {
            return;
        }
        let pieces = &FakeLlm::pieces_for(body, settings.tokens);
        let per_event = settings.tokens_per_event.max(1);
        let tick = Duration::from_secs_f64(per_event as f64 / f64::from(settings.tokens_per_second.max(1)));
        let mut i = 0;
        for group in events(pieces, per_event) {
            let covered = i..i + group.len();
            i += group.len();
            if settings.break_after.is_some_and(|b| covered.contains(&b)) {
                let _ = stream.shutdown(std::net::Shutdown::Both);
                return;
            }
            if settings.hang_after.is_some_and(|h| covered.contains(&h)) {
                self.hang();
                let _ = stream.shutdown(std::net::Shutdown::Both);
                return;
            }
            std::thread::sleep(tick);
            if write_chunk(&mut stream, &sse_of_group(group)).is_err() {
                return; // the client went away
            }
        }
        let _ = write_chunk(&mut stream, "data: [DONE]\n\n").and_then(|_| stream.write_all(b"0\r\n\r\n"));
    }
}

/// The pieces in events: consecutive words up to `per_event` in one event, a tool call alone.
fn events(pieces: &[Piece], per_event: usize) -> Vec<&[Piece]> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < pieces.len() {
        let words = pieces[start..].iter().take(per_event).take_while(|p| matches!(p, Piece::Word(_))).count();
        let end = start + words.max(1);
        out.push(&pieces[start..end]);
        start = end;
    }
    out
}

/// The server-sent event of a group of words (their text in one delta), or a tool call's events.
fn sse_of_group(group: &[Piece]) -> String {
    match group {
        [Piece::Word(_), ..] => {
            let text: String = group.iter().map(|p| if let Piece::Word(w) = p { w.as_str() } else { "" }).collect();
            sse_of(&Piece::Word(text))
        }
        _ => group.iter().map(sse_of).collect(),
    }
}

/// The server-sent events of one piece.
fn sse_of(piece: &Piece) -> String {
    let event = |delta: Value| {
        format!("data: {}\n\n", json!({"id": "cmpl-1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]}))
    };
    match piece {
        Piece::Word(word) => event(json!({"content": word})),
        Piece::Tool { id, name } => {
            let index: usize = id.split('_').nth(1).and_then(|i| i.parse().ok()).unwrap_or(0);
            let start = json!({"tool_calls": [{"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]});
            let arguments = json!({"tool_calls": [{"index": index, "function": {"arguments": "{\"query\": \"…\"}"}}]});
            format!("{}{}", event(start), event(arguments))
        }
    }
}

fn write_chunk(stream: &mut TcpStream, data: &str) -> std::io::Result<()> {
    stream.write_all(format!("{:x}\r\n{data}\r\n", data.len()).as_bytes())?;
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use slackline::internal::kinds::assistant::sse::{SseDecoder, SseEvent};

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
    fn a_prompt_can_ask_for_tool_calls_and_a_continuation_calls_those_from_its_place_on() {
        let llm = FakeLlm::start(LlmSettings { tokens: 8, tokens_per_second: 1000, ..LlmSettings::default() });
        let asked = "go [llm tools=search,lookup]";
        let (events, _) = ask(&llm, prompt(asked));
        let calls: Vec<_> =
            events.iter().filter_map(|e| if let SseEvent::ToolCall { id, name } = e { Some((id.clone().unwrap(), name.clone())) } else { None }).collect();
        assert_eq!(calls, [("call_0_search".to_string(), "search".to_string()), ("call_1_lookup".into(), "lookup".into())]);
        assert!(matches!(events[0], SseEvent::ToolCall { .. }), "the first call before any text");
        let text: String = events.iter().filter_map(|e| if let SseEvent::Delta(t) = e { Some(t.as_str()) } else { None }).collect();
        assert_eq!(text, FakeLlm::answer_to(asked, 8));
        assert_eq!(FakeLlm::tool_calls(asked, 8)[1].2, FakeLlm::answer_to(asked, 8).split_inclusive(' ').take(4).map(str::len).sum::<usize>());
        // Continuing after five words: only the tools from there on (none here).
        let partial: String = FakeLlm::answer_to(asked, 8).split_inclusive(' ').take(5).collect();
        let body = json!({"stream": true, "messages": [{"role": "user", "content": asked}, {"role": "assistant", "content": partial}]});
        let (events, _) = ask(&llm, body);
        assert!(!events.iter().any(|e| matches!(e, SseEvent::ToolCall { .. })), "{events:?}");
        // After four: the second call is at that very place, and comes again.
        let partial: String = FakeLlm::answer_to(asked, 8).split_inclusive(' ').take(4).collect();
        let body = json!({"stream": true, "messages": [{"role": "user", "content": asked}, {"role": "assistant", "content": partial}]});
        let (events, _) = ask(&llm, body);
        assert_eq!(events.first(), Some(&SseEvent::ToolCall { id: Some("call_1_lookup".into()), name: "lookup".into() }));
    }

    #[test]
    fn a_client_that_closes_while_the_model_thinks_is_recorded_and_one_that_waits_gets_the_answer() {
        let llm = FakeLlm::start(LlmSettings { tokens: 3, tokens_per_second: 1000, ..LlmSettings::default() });
        for (asked_before, directive) in ["think", "think_head"].into_iter().enumerate() {
            let needle = format!("left-{directive}");
            let mut stream = TcpStream::connect(("127.0.0.1", llm.port)).unwrap();
            let body = prompt(&format!("{needle} [llm {directive}=20000]")).to_string();
            write!(stream, "POST / HTTP/1.1\r\ncontent-length: {}\r\n\r\n{body}", body.len()).unwrap();
            let asked = Instant::now();
            while llm.requests().len() <= asked_before && asked.elapsed() < Duration::from_secs(5) {
                std::thread::sleep(Duration::from_millis(5));
            }
            let left = Instant::now();
            drop(stream);
            let mut closed = llm.closed(&needle);
            while closed.is_none() && left.elapsed() < Duration::from_secs(5) {
                std::thread::sleep(Duration::from_millis(5));
                closed = llm.closed(&needle);
            }
            assert!(closed.is_some_and(|at| at >= left), "{directive}: the close is recorded while the model thinks");
        }
        let (events, _) = ask(&llm, prompt("patient [llm think=100]"));
        assert_eq!(events.len(), 4, "three words and the end: {events:?}");
        assert!(llm.closed("patient").is_none());
    }

    #[test]
    fn a_broken_stream_ends_without_done() {
        let llm = FakeLlm::start(LlmSettings { tokens: 10, tokens_per_second: 1000, break_after: Some(3), ..LlmSettings::default() });
        let (events, _) = ask(&llm, prompt("x"));
        assert_eq!(events.len(), 3, "{events:?}");
        assert!(events.iter().all(|e| matches!(e, SseEvent::Delta(_))));
    }
}
