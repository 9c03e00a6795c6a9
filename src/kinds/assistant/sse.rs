//! An OpenAI-compatible streamed chat completion (`stream: true`), read as server-sent events the
//! way the HTML Living Standard's "event stream interpretation" reads them, each event's data then
//! read as a chunk: `{json}` whose `choices[0].delta.content` is the next piece of the answer, up
//! to `[DONE]`.
//!
//! **The stream.** Lines end in CRLF, a lone LF or a lone CR. Bytes arrive in pieces split
//! anywhere — inside a UTF-8 character, between the CR and the LF of one line end — so the decoder
//! holds the unfinished line, and whether the last piece ended in a CR (an LF first in the next
//! one is then that same line end, not an empty line). Lines are cut on bytes and decoded whole,
//! so a split character is never seen. A UTF-8 BOM at the start is dropped; a line starting with
//! `:` is a comment (a keep-alive: `: keep-alive`, `: OPENROUTER PROCESSING`). Any other line is
//! `field:value` (one space after the colon dropped; a line without a colon is a field with an
//! empty value): `data` adds its value and a `\n` to the event's data, `event` names the event,
//! `id` and `retry` (for reconnecting, which one request's answer never does) and unknown fields
//! are ignored. A blank line dispatches the event, its data without the last `\n` — nothing if no
//! `data` came.
//!
//! **An event.** Data `[DONE]`: the model is done. An event named `error` (`event: error`, as some
//! OpenAI-compatible servers send): the answer fails with the provider's error. Any other (no
//! name, `message`, another name): a JSON chunk — its text, the tool calls it starts, then its end
//! (a `finish_reason` with nothing else); an `error` object in it fails the answer too. Data that
//! is not JSON is `bad_chunk`, not skipped: a model server that breaks the format mid-answer must
//! not end it quietly. A JSON chunk split over several `data` lines is joined with `\n`, which is
//! JSON whitespace. Blank data (`data:` alone) carries nothing: it cannot hide any of the answer,
//! and a stream that then ends without `[DONE]` is still cut.
//!
//! **Errors** are reported by the provider's code (its `code`, else its `type`; `llm_error` if it
//! has neither), not its message: the code is what the row's retry records and logs, and a message
//! is free text that can quote the prompt. A line longer than [`MAX_LINE_BYTES`] or an event's data
//! longer than [`MAX_DATA_BYTES`] fails the answer ([`LINE_TOO_LONG`], [`EVENT_TOO_LONG`]) as soon
//! as the cap is passed, so what a server sends never grows the decoder without bound; the events
//! before it are delivered. (A whole completion on one line over the cap fails so too: it is over
//! `MAX_WHOLE_BYTES` as well, and could not be read whole.)
//!
//! **The end of the body** ([`SseDecoder::finish`]). The standard discards an event the stream
//! ends in (no blank line after it), and so does the decoder: the stream was cut mid-event (a JSON
//! chunk's later `data` lines may not have come), and the caller retries it (`llm_stream_cut`).
//! One exception: an unfinished event whose data is `[DONE]` is read as done. A server that ends
//! with `data: [DONE]` and no blank line (or no line end) finished the answer — readers that take
//! each `data:` line as an event, as this one once did, end there too — and reading it as cut
//! would ask the model again for an answer already whole. OpenAI ends every event with a blank
//! line (`data: {...}\n\n`, `data: [DONE]\n\n`), so it never needs the exception. A body with no
//! `data` field at all is a server that ignored `stream: true` and answered one JSON completion:
//! it is read whole.
//!
//! **Tool calls.** A model that calls tools streams them in `choices[0].delta.tool_calls`:
//! `[{index, id, function: {name, arguments}}]`, the first delta of a call with its `id` and
//! `name`, the next ones (same `index`) with pieces of its `arguments`. The decoder reports each
//! call once, when it starts ([`SseEvent::ToolCall`]); slackline shows it as a task and runs
//! nothing, so the arguments are not kept.
//!
//! **Invariants.** Every byte pushed is read into a line, held for the next push (the unfinished
//! line, at most [`MAX_LINE_BYTES`]; a trailing CR) or comes after the end; the events do not
//! depend on how the bytes were split into pushes. An event is dispatched only by a blank line
//! (and an unfinished `[DONE]` at the end). Nothing after [`SseEvent::Done`] or an
//! [`SseEvent::Error`] is decoded, and [`SseDecoder::ended`] says one was returned. What is held
//! is bounded: the line by [`MAX_LINE_BYTES`], the event's data by [`MAX_DATA_BYTES`], the body
//! kept for a whole completion by `MAX_WHOLE_BYTES`.

use serde_json::Value;

/// What one server-sent event says about the answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseEvent {
    /// The next piece of text (never empty).
    Delta(String),
    /// The model started a tool call.
    ToolCall {
        /// The call's id (`None` if the server gave none).
        id: Option<String>,
        /// The tool's name.
        name: String,
    },
    /// The model finished (`[DONE]`, or a `finish_reason` without more text).
    Done,
    /// The stream broke: the provider's error (its code), data that is not a chunk, or a cap passed.
    Error(String),
}

/// The most bytes a line may hold (its line end not counted).
pub const MAX_LINE_BYTES: usize = 1 << 20;
/// The most bytes an event's data may hold (its `data` values, each with its `\n`).
pub const MAX_DATA_BYTES: usize = 1 << 20;
/// The error of a line longer than [`MAX_LINE_BYTES`].
pub const LINE_TOO_LONG: &str = "sse_line_too_long";
/// The error of an event whose data is longer than [`MAX_DATA_BYTES`].
pub const EVENT_TOO_LONG: &str = "sse_event_too_long";
/// The most of a non-streamed body kept for [`SseDecoder::finish`].
const MAX_WHOLE_BYTES: usize = 1 << 20;
/// A UTF-8 byte order mark, dropped at the start of the stream.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Decodes a byte stream into [`SseEvent`]s.
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// The line so far, as bytes (a piece may end inside a character).
    line: Vec<u8>,
    /// The last line ended in a CR: an LF next, even first in the next push, ends no other line.
    after_cr: bool,
    /// A line has ended (the BOM, if any, was at the start of the first).
    past_first_line: bool,
    /// The event's name (`event:`), empty if none.
    name: String,
    /// The event's data: each `data` value followed by `\n`.
    data: String,
    ended: bool,
    /// The body so far while no `data` field has come: a server that ignored `stream: true`
    /// answers one JSON completion instead ([`SseDecoder::finish`]).
    whole: Vec<u8>,
    saw_data: bool,
}

/// A complete line of the stream.
#[derive(Debug, PartialEq, Eq)]
enum Line<'a> {
    /// Dispatches the event.
    Blank,
    /// `:` first: a keep-alive.
    Comment,
    /// `name:value`, or `name` alone (an empty value).
    Field { name: &'a str, value: &'a str },
}

impl SseDecoder {
    /// The events completed by `bytes`.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        if !self.saw_data && self.whole.len() + bytes.len() <= MAX_WHOLE_BYTES {
            self.whole.extend_from_slice(bytes);
        }
        let mut events = Vec::new();
        let mut rest = bytes;
        while !rest.is_empty() && !self.ended {
            rest = self.read_line(rest, &mut events);
        }
        events
    }

    /// At the end of the body: an unfinished `[DONE]` as [`SseEvent::Done`]; a body that was one
    /// JSON completion (no `data` field at all) as its text and [`SseEvent::Done`]; else nothing
    /// more (an unfinished event is discarded: the stream was cut).
    pub fn finish(&mut self) -> Vec<SseEvent> {
        let mut events = Vec::new();
        if !self.ended && !self.line.is_empty() {
            self.end_line(&mut events);
        }
        if self.ended {
            return events;
        }
        if !self.saw_data {
            return self.whole_body();
        }
        if self.data.trim() == "[DONE]" {
            self.dispatch(&mut events);
        }
        events
    }

    /// Whether `[DONE]` or an error was returned.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Reads `bytes` up to their first line end (the line ended), or all of them (held): the rest.
    fn read_line<'b>(&mut self, bytes: &'b [u8], events: &mut Vec<SseEvent>) -> &'b [u8] {
        if std::mem::take(&mut self.after_cr) && bytes[0] == b'\n' {
            return &bytes[1..];
        }
        let Some(at) = bytes.iter().position(|&b| b == b'\r' || b == b'\n') else {
            self.hold(bytes, events);
            return &[];
        };
        self.hold(&bytes[..at], events);
        if !self.ended {
            self.after_cr = bytes[at] == b'\r';
            self.end_line(events);
        }
        &bytes[at + 1..]
    }

    /// Adds `piece` to the unfinished line, within [`MAX_LINE_BYTES`].
    fn hold(&mut self, piece: &[u8], events: &mut Vec<SseEvent>) {
        if self.line.len() + piece.len() > MAX_LINE_BYTES {
            return self.fail(LINE_TOO_LONG, events);
        }
        self.line.extend_from_slice(piece);
    }

    /// The line is complete: a blank line dispatches the event, a field adds to it.
    fn end_line(&mut self, events: &mut Vec<SseEvent>) {
        let bytes = std::mem::take(&mut self.line);
        let first = !std::mem::replace(&mut self.past_first_line, true);
        let bytes = if first { bytes.strip_prefix(BOM).unwrap_or(&bytes) } else { &bytes };
        let text = String::from_utf8_lossy(bytes);
        match line(&text) {
            Line::Blank => self.dispatch(events),
            Line::Comment => {}
            Line::Field { name: "data", value } => self.add_data(value, events),
            Line::Field { name: "event", value } => self.name = value.to_string(),
            // `id` and `retry` are for reconnecting, which one request's answer never does.
            Line::Field { .. } => {}
        }
    }

    /// A `data` field: its value and a `\n`, within [`MAX_DATA_BYTES`].
    fn add_data(&mut self, value: &str, events: &mut Vec<SseEvent>) {
        self.saw_data = true;
        if self.data.len() + value.len() + 1 > MAX_DATA_BYTES {
            return self.fail(EVENT_TOO_LONG, events);
        }
        self.data.push_str(value);
        self.data.push('\n');
    }

    /// The event is complete: what it says (nothing if no `data` came), and the event after it
    /// starts empty.
    fn dispatch(&mut self, events: &mut Vec<SseEvent>) {
        let name = std::mem::take(&mut self.name);
        let mut data = std::mem::take(&mut self.data);
        if data.pop().is_none() {
            return;
        }
        let from = events.len();
        match name.as_str() {
            "error" => events.push(provider_error(&data)),
            _ => chunk_events(&data, events),
        }
        self.ended = events[from..].iter().any(|e| matches!(e, SseEvent::Done | SseEvent::Error(_)));
    }

    /// The stream can't be read on: `code`, and nothing more (what was held is let go).
    fn fail(&mut self, code: &str, events: &mut Vec<SseEvent>) {
        events.push(SseEvent::Error(code.into()));
        self.ended = true;
        self.line = Vec::new();
        self.data = String::new();
    }

    /// The body read as one JSON completion: its tool calls and text, then [`SseEvent::Done`].
    fn whole_body(&mut self) -> Vec<SseEvent> {
        self.ended = true;
        let whole: Value = match serde_json::from_slice(&self.whole) {
            Ok(v) => v,
            Err(_) => return vec![SseEvent::Error("bad_response".into())],
        };
        let Some(message) = whole.pointer("/choices/0/message") else { return vec![SseEvent::Error("bad_response".into())] };
        let mut events = Vec::new();
        tool_calls(message.get("tool_calls"), &mut events);
        match message.get("content") {
            Some(Value::String(text)) if !text.is_empty() => events.push(SseEvent::Delta(text.clone())),
            Some(Value::String(_)) => {}
            _ if !events.is_empty() => {}
            _ => return vec![SseEvent::Error("bad_response".into())],
        }
        events.push(SseEvent::Done);
        events
    }
}

/// What a complete line is.
fn line(text: &str) -> Line<'_> {
    if text.is_empty() {
        return Line::Blank;
    }
    if text.starts_with(':') {
        return Line::Comment;
    }
    let (name, value) = text.split_once(':').unwrap_or((text, ""));
    Line::Field { name, value: value.strip_prefix(' ').unwrap_or(value) }
}

/// The events a chunk's data carries: the chunk's text, the tool calls it starts, then its end
/// (`[DONE]`, a `finish_reason`, an error).
fn chunk_events(data: &str, events: &mut Vec<SseEvent>) {
    if data.trim().is_empty() {
        return;
    }
    if data.trim() == "[DONE]" {
        return events.push(SseEvent::Done);
    }
    let chunk: Value = match serde_json::from_str(data) {
        Ok(v) => v,
        Err(_) => return events.push(SseEvent::Error("bad_chunk".into())),
    };
    if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
        return events.push(SseEvent::Error(error_code(error)));
    }
    let Some(choice) = chunk.pointer("/choices/0") else { return };
    let from = events.len();
    if let Some(text) = choice.pointer("/delta/content").and_then(Value::as_str).filter(|t| !t.is_empty()) {
        events.push(SseEvent::Delta(text.into()));
    }
    tool_calls(choice.pointer("/delta/tool_calls"), events);
    if events.len() == from && choice.get("finish_reason").is_some_and(|r| !r.is_null()) {
        events.push(SseEvent::Done);
    }
}

/// The error an `event: error` carries: `{"error": {...}}` as in a chunk, or the error object
/// itself; data that is not JSON still ends the answer, as `llm_error`.
fn provider_error(data: &str) -> SseEvent {
    let code = match serde_json::from_str::<Value>(data) {
        Ok(v) => error_code(v.get("error").filter(|e| e.is_object()).unwrap_or(&v)),
        Err(_) => "llm_error".into(),
    };
    SseEvent::Error(code)
}

/// An error object's code: its `code`, else its `type` (the first that is a non-empty string),
/// else `llm_error`.
fn error_code(error: &Value) -> String {
    let named = |key: &str| error.get(key).and_then(Value::as_str).filter(|s| !s.is_empty());
    named("code").or_else(|| named("type")).unwrap_or("llm_error").to_string()
}

/// The tool calls a `tool_calls` array starts: those that name their function (the deltas that
/// carry only more of a call's arguments start none).
fn tool_calls(calls: Option<&Value>, events: &mut Vec<SseEvent>) {
    for call in calls.and_then(Value::as_array).into_iter().flatten() {
        let Some(name) = call.pointer("/function/name").and_then(Value::as_str).filter(|n| !n.is_empty()) else { continue };
        let id = call.get("id").and_then(Value::as_str).filter(|i| !i.is_empty()).map(str::to_string);
        events.push(SseEvent::ToolCall { id, name: name.to_string() });
    }
}

#[cfg(test)]
mod tests;
