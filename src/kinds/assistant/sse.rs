//! An OpenAI-compatible streamed chat completion (`stream: true`), read as server-sent events:
//! `data: {json}` lines, each a chunk whose `choices[0].delta.content` is the next piece of the
//! answer, then `data: [DONE]`. Bytes arrive in pieces that split lines (and UTF-8 characters)
//! anywhere, so the decoder keeps the unfinished line until its newline comes.
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
            if let Some(event) = self.line_event(&line) {
                self.ended = !matches!(event, SseEvent::Delta(_));
                events.push(event);
            }
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
        match whole.pointer("/choices/0/message/content").and_then(Value::as_str) {
            Some(text) if !text.is_empty() => vec![SseEvent::Delta(text.into()), SseEvent::Done],
            Some(_) => vec![SseEvent::Done],
            None => vec![SseEvent::Error("bad_response".into())],
        }
    }

    /// Whether `[DONE]` or an error was seen.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// The event a complete line carries, if any (blank lines, comments and other fields carry
    /// none).
    fn line_event(&self, line: &[u8]) -> Option<SseEvent> {
        let line = String::from_utf8_lossy(line);
        let line = line.trim_end_matches('\r');
        let data = line.strip_prefix("data:")?.trim_start();
        if data == "[DONE]" {
            return Some(SseEvent::Done);
        }
        let chunk: Value = match serde_json::from_str(data) {
            Ok(v) => v,
            Err(_) => return Some(SseEvent::Error("bad_chunk".into())),
        };
        if let Some(error) = chunk.get("error") {
            let code = error.get("code").or_else(|| error.get("type")).and_then(Value::as_str).unwrap_or("llm_error");
            return Some(SseEvent::Error(code.into()));
        }
        let choice = chunk.pointer("/choices/0")?;
        match choice.pointer("/delta/content").and_then(Value::as_str) {
            Some(text) if !text.is_empty() => Some(SseEvent::Delta(text.into())),
            _ if choice.get("finish_reason").is_some_and(|r| !r.is_null()) => Some(SseEvent::Done),
            _ => None,
        }
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
