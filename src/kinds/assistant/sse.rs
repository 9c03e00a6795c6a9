//! An OpenAI-compatible streamed chat completion (`stream: true`), read as server-sent events:
//! `data: {json}` lines, each a chunk whose `choices[0].delta.content` is the next piece of the
//! answer, then `data: [DONE]`. Bytes arrive in pieces that split lines (and UTF-8 characters)
//! anywhere, so the decoder keeps the unfinished line until its newline comes.
//!
//! A model that calls tools streams them in `choices[0].delta.tool_calls`: `[{index, id,
//! function: {name, arguments}}]`, the first delta of a call with its `id` and `name`, the next
//! ones (same `index`) with pieces of its `arguments`. The decoder reports each call once, when it
//! starts ([`SseEvent::ToolCall`]); slackline shows it as a task and runs nothing, so the
//! arguments are not kept.
//!
//! Invariants: every byte pushed is either decoded into an [`SseEvent`] or held for the next
//! push; nothing after `[DONE]` or an error is decoded; a chunk that is not JSON is an error, not
//! silently skipped (a model server that breaks the format mid-answer must not end it quietly).

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
    /// The stream broke: an `error` object, or a line that is not a chunk.
    Error(String),
}

/// Decodes a byte stream into [`SseEvent`]s.
#[derive(Debug, Default)]
pub struct SseDecoder {
    line: Vec<u8>,
    ended: bool,
    /// The body so far while no `data:` line has come: a server that ignored `stream: true`
    /// answers one JSON completion instead ([`SseDecoder::finish`]).
    whole: Vec<u8>,
    saw_data: bool,
}

/// The most of a non-streamed body kept for [`SseDecoder::finish`].
const MAX_WHOLE_BYTES: usize = 1 << 20;

impl SseDecoder {
    /// The events completed by `bytes`.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        if !self.saw_data && self.whole.len() + bytes.len() <= MAX_WHOLE_BYTES {
            self.whole.extend_from_slice(bytes);
        }
        let mut events = Vec::new();
        for &b in bytes {
            if self.ended {
                break;
            }
            if b != b'\n' {
                self.line.push(b);
                continue;
            }
            let line = std::mem::take(&mut self.line);
            self.saw_data |= line.starts_with(b"data:");
            let from = events.len();
            line_events(&line, &mut events);
            self.ended = events[from..].iter().any(|e| matches!(e, SseEvent::Done | SseEvent::Error(_)));
        }
        events
    }

    /// At the end of the body: a body that was one JSON completion (no `data:` line at all) as
    /// its text and [`SseEvent::Done`]; else nothing more.
    pub fn finish(&mut self) -> Vec<SseEvent> {
        if self.saw_data || self.ended {
            return Vec::new();
        }
        self.ended = true;
        let whole: serde_json::Value = match serde_json::from_slice(&self.whole) {
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

    /// Whether `[DONE]` or an error was seen.
    pub fn ended(&self) -> bool {
        self.ended
    }
}

/// The events a complete line carries (blank lines, comments and other fields carry none): the
/// chunk's text, the tool calls it starts, then its end (`[DONE]`, a `finish_reason`, an error).
fn line_events(line: &[u8], events: &mut Vec<SseEvent>) {
    let line = String::from_utf8_lossy(line);
    let line = line.trim_end_matches('\r');
    let Some(data) = line.strip_prefix("data:").map(str::trim_start) else { return };
    if data == "[DONE]" {
        return events.push(SseEvent::Done);
    }
    let chunk: Value = match serde_json::from_str(data) {
        Ok(v) => v,
        Err(_) => return events.push(SseEvent::Error("bad_chunk".into())),
    };
    if let Some(error) = chunk.get("error") {
        let code = error.get("code").or_else(|| error.get("type")).and_then(Value::as_str).unwrap_or("llm_error");
        return events.push(SseEvent::Error(code.into()));
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
mod tests {
    use super::*;

    fn chunk(text: &str) -> String {
        format!("data: {}\n\n", serde_json::json!({"choices": [{"delta": {"content": text}, "finish_reason": null}]}))
    }

    #[test]
    fn chunks_become_deltas_and_done_ends_it() {
        let mut d = SseDecoder::default();
        let body = format!("{}{}data: [DONE]\n\n{}", chunk("Hel"), chunk("lo"), chunk("after"));
        assert_eq!(d.push(body.as_bytes()), vec![SseEvent::Delta("Hel".into()), SseEvent::Delta("lo".into()), SseEvent::Done]);
        assert!(d.ended());
    }

    #[test]
    fn a_line_split_anywhere_even_inside_a_character_is_decoded_once_whole() {
        let body = format!("{}{}data: [DONE]\n", chunk("héllo wörld"), chunk("ünïcode ✓"));
        let bytes = body.as_bytes();
        for split in 1..bytes.len() {
            let mut d = SseDecoder::default();
            let mut events = d.push(&bytes[..split]);
            events.extend(d.push(&bytes[split..]));
            assert_eq!(events, vec![SseEvent::Delta("héllo wörld".into()), SseEvent::Delta("ünïcode ✓".into()), SseEvent::Done], "split at {split}");
        }
    }

    #[test]
    fn crlf_comments_roles_and_empty_deltas_carry_nothing() {
        let mut d = SseDecoder::default();
        let role = "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"},\"finish_reason\":null}]}\r\n\r\n";
        let events = d.push(format!(": keep-alive\r\n{role}event: x\r\n{}", chunk("")).as_bytes());
        assert!(events.is_empty(), "{events:?}");
        assert!(!d.ended());
    }

    #[test]
    fn a_finish_reason_without_done_ends_it() {
        let mut d = SseDecoder::default();
        let stop = "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n";
        assert_eq!(d.push(stop.as_bytes()), vec![SseEvent::Done]);
    }

    #[test]
    fn a_server_that_does_not_stream_is_read_whole_at_the_end() {
        let mut d = SseDecoder::default();
        let body = serde_json::json!({"choices": [{"message": {"role": "assistant", "content": "All at once."}, "finish_reason": "stop"}]}).to_string();
        let (a, b) = body.as_bytes().split_at(10);
        assert!(d.push(a).is_empty() && d.push(b).is_empty());
        assert_eq!(d.finish(), vec![SseEvent::Delta("All at once.".into()), SseEvent::Done]);
        let mut streamed = SseDecoder::default();
        streamed.push(chunk("x").as_bytes());
        assert!(streamed.finish().is_empty(), "a stream cut short is not a whole body");
        let mut junk = SseDecoder::default();
        junk.push(b"<html>oops</html>");
        assert_eq!(junk.finish(), vec![SseEvent::Error("bad_response".into())]);
    }

    /// A streamed tool call's deltas, as OpenAI sends them: the first with the id and name, the
    /// next with pieces of the arguments.
    fn tool_call(index: u32, id: &str, name: &str) -> String {
        let start = serde_json::json!({"choices": [{"delta": {"tool_calls": [{"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}, "finish_reason": null}]});
        let args =
            serde_json::json!({"choices": [{"delta": {"tool_calls": [{"index": index, "function": {"arguments": "{\"q\": 1}"}}]}, "finish_reason": null}]});
        format!("data: {start}\n\ndata: {args}\n\n")
    }

    #[test]
    fn a_tool_call_is_reported_once_when_it_starts_between_the_text() {
        let mut d = SseDecoder::default();
        let finish = "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n";
        let body = format!("{}{}{}{}{finish}", chunk("Let me look. "), tool_call(0, "call_1", "search"), tool_call(1, "call_2", "lookup"), chunk("Found."));
        let events = d.push(body.as_bytes());
        let search = SseEvent::ToolCall { id: Some("call_1".into()), name: "search".into() };
        let lookup = SseEvent::ToolCall { id: Some("call_2".into()), name: "lookup".into() };
        assert_eq!(events, vec![SseEvent::Delta("Let me look. ".into()), search, lookup, SseEvent::Delta("Found.".into()), SseEvent::Done]);
    }

    #[test]
    fn a_whole_completion_with_tool_calls_reports_them_before_its_text() {
        let mut d = SseDecoder::default();
        let message = serde_json::json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c9", "type": "function", "function": {"name": "fetch", "arguments": "{}"}}]});
        d.push(serde_json::json!({"choices": [{"message": message, "finish_reason": "tool_calls"}]}).to_string().as_bytes());
        assert_eq!(d.finish(), vec![SseEvent::ToolCall { id: Some("c9".into()), name: "fetch".into() }, SseEvent::Done]);
    }

    #[test]
    fn an_error_object_or_a_broken_chunk_is_an_error() {
        let mut d = SseDecoder::default();
        let events = d.push(b"data: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}\n");
        assert_eq!(events, vec![SseEvent::Error("server_error".into())]);
        let mut d = SseDecoder::default();
        assert_eq!(d.push(format!("{}data: {{not json\n", chunk("a")).as_bytes()), vec![SseEvent::Delta("a".into()), SseEvent::Error("bad_chunk".into())]);
        assert!(d.ended());
    }
}
