//! The decoder against transcripts of the providers' streams (`transcripts/`, written from their
//! documentation), each read whole and split every way: the events must not depend on how the
//! bytes arrive.

use super::*;

const OPENAI_TEXT: &str = include_str!("transcripts/openai_text.sse");
const OPENAI_TOOL_CALLS: &str = include_str!("transcripts/openai_tool_calls.sse");
const NAMED_EVENTS: &str = include_str!("transcripts/compatible_named_events.sse");
const CRLF: &str = include_str!("transcripts/crlf_line_ends.sse");
const LONE_CR: &str = include_str!("transcripts/cr_line_ends.sse");
const MULTI_LINE: &str = include_str!("transcripts/multi_line_data.sse");
const EVENT_ERROR: &str = include_str!("transcripts/event_error.sse");
/// A line over [`MAX_LINE_BYTES`] once its `{{FILL}}` is filled.
const OVER_CAP: &str = include_str!("transcripts/over_cap_line.sse");

/// What reading a body gave: its events, then whether the decoder ended.
type Read = (Vec<SseEvent>, bool);

/// Reads `body` pushed in the pieces that `cuts` (ascending positions) make, then finishes.
fn read_split(body: &[u8], cuts: &[usize]) -> Read {
    let mut d = SseDecoder::default();
    let (mut events, mut from) = (Vec::new(), 0);
    for &at in cuts.iter().chain([body.len()].iter()) {
        events.extend(d.push(&body[from..at]));
        from = at;
    }
    events.extend(d.finish());
    (events, d.ended())
}

/// Pseudo-random cuts from a fixed seed (xorshift64): the same on every run.
struct Cuts(u64);

impl Cuts {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    /// Up to 16 distinct ascending cuts inside a body of `len` bytes.
    fn of(&mut self, len: usize) -> Vec<usize> {
        let count = 1 + self.below(16);
        let mut cuts: Vec<usize> = (0..count).map(|_| 1 + self.below(len - 1)).collect();
        cuts.sort_unstable();
        cuts.dedup();
        cuts
    }
}

/// Reads `body` whole and at `rounds` sets of random cuts: the same every way, returned.
fn read_some_ways(body: &[u8], rounds: usize) -> Read {
    let whole = read_split(body, &[]);
    let mut cuts = Cuts(0x9E37_79B9_7F4A_7C15);
    for _ in 0..rounds {
        let at = cuts.of(body.len());
        assert_eq!(read_split(body, &at), whole, "cut at {at:?}");
    }
    whole
}

/// Reads `body` whole, split in two at every byte, a byte at a time and at random cuts: the same
/// every way, returned.
fn read_every_way(body: &str) -> Read {
    let body = body.as_bytes();
    let whole = read_some_ways(body, 200);
    for at in 1..body.len() {
        assert_eq!(read_split(body, &[at]), whole, "split at {at}");
    }
    assert_eq!(read_split(body, &(1..body.len()).collect::<Vec<_>>()), whole, "a byte at a time");
    whole
}

fn delta(text: &str) -> SseEvent {
    SseEvent::Delta(text.into())
}

fn error(code: &str) -> SseEvent {
    SseEvent::Error(code.into())
}

fn chunk(text: &str) -> String {
    format!("data: {}\n\n", serde_json::json!({"choices": [{"delta": {"content": text}, "finish_reason": null}]}))
}

// The transcripts.

#[test]
fn openai_text_streams_its_deltas_and_ends_at_its_finish_reason() {
    assert_eq!(read_every_way(OPENAI_TEXT), (vec![delta("Hello"), delta("! Ça"), delta(" va ✓"), SseEvent::Done], true));
}

#[test]
fn openai_tool_calls_are_reported_once_each_when_they_start() {
    let weather = SseEvent::ToolCall { id: Some("call_DdmO9pD3xa9XTPNJ32zg2hcA".into()), name: "get_weather".into() };
    let time = SseEvent::ToolCall { id: Some("call_Wk3ls0DkMSKd0k3pDm8Xd9Vc".into()), name: "get_time".into() };
    assert_eq!(read_every_way(OPENAI_TOOL_CALLS), (vec![weather, time, SseEvent::Done], true));
}

#[test]
fn event_names_ids_retries_unknown_fields_and_keep_alives_leave_the_chunks_as_they_are() {
    // The last chunk carries text and its finish_reason: the text, then `[DONE]` ends it.
    assert_eq!(read_every_way(NAMED_EVENTS), (vec![delta("Bonjour"), delta(" à tous"), delta("."), SseEvent::Done], true));
}

#[test]
fn crlf_line_ends_are_one_line_end_each_even_split_between_the_cr_and_the_lf() {
    assert_eq!(read_every_way(CRLF), (vec![delta("Line ends"), delta(" in CRLF"), SseEvent::Done], true));
}

#[test]
fn lone_cr_line_ends_end_lines_and_events() {
    assert_eq!(read_every_way(LONE_CR), (vec![delta("Lone"), delta(" CRs"), delta(" end lines"), SseEvent::Done], true));
}

#[test]
fn a_json_event_over_several_data_lines_is_joined_with_newlines() {
    assert_eq!(read_every_way(MULTI_LINE), (vec![delta("multi"), delta("-line"), SseEvent::Done], true));
}

#[test]
fn an_event_named_error_ends_the_answer_with_the_providers_code() {
    // Its data has no `error` key and no `choices`: read as a chunk, it would say nothing.
    assert_eq!(read_every_way(EVENT_ERROR), (vec![delta("Partial"), error("overloaded")], true));
}

#[test]
fn a_line_over_the_cap_is_an_error_after_the_events_before_it() {
    let body = OVER_CAP.replace("{{FILL}}", &"x".repeat(MAX_LINE_BYTES));
    let body = body.as_bytes();
    let expected = (vec![delta("Before"), error(LINE_TOO_LONG)], true);
    assert_eq!(read_some_ways(body, 24), expected);
    // Split where the cap is passed, and around it.
    let long_line = OVER_CAP[..OVER_CAP.find("{{FILL}}").unwrap()].rfind('\n').unwrap() + 1;
    for at in [long_line - 1, long_line, long_line + MAX_LINE_BYTES - 1, long_line + MAX_LINE_BYTES, long_line + MAX_LINE_BYTES + 1] {
        assert_eq!(read_split(body, &[at]), expected, "split at {at}");
    }
}

// Caps.

/// A data line of exactly `len` bytes (its line end not counted): a chunk with `text`, padded
/// with JSON whitespace.
fn padded_line(text: &str, len: usize) -> String {
    let line = format!("data: {}", serde_json::json!({"choices": [{"delta": {"content": text}}]}));
    format!("{line}{}", " ".repeat(len - line.len()))
}

#[test]
fn a_line_at_the_cap_is_read_and_one_byte_more_is_not() {
    let at_cap = format!("{}\n\ndata: [DONE]\n\n", padded_line("fits", MAX_LINE_BYTES));
    assert_eq!(read_some_ways(at_cap.as_bytes(), 8), (vec![delta("fits"), SseEvent::Done], true));
    let over = format!("{}\n\ndata: [DONE]\n\n", padded_line("fits", MAX_LINE_BYTES + 1));
    assert_eq!(read_some_ways(over.as_bytes(), 8), (vec![error(LINE_TOO_LONG)], true));
}

#[test]
fn an_event_whose_data_passes_the_cap_is_an_error_after_the_events_before_it() {
    // Three lines under the line cap whose data together pass the data cap.
    let piece = format!("data: {}\n", " ".repeat(MAX_DATA_BYTES / 3));
    let body = format!("{}data: {{\"choices\": [{{\"delta\": {{\"content\": \"a\"}}}}]}}\n{piece}{piece}{piece}\n{}", chunk("first"), chunk("never"));
    assert_eq!(read_some_ways(body.as_bytes(), 24), (vec![delta("first"), error(EVENT_TOO_LONG)], true));
    // At the cap exactly: read (the data is its values, each with its `\n`).
    let fill = MAX_DATA_BYTES - "{\"choices\":[{\"delta\":{\"content\":\"b\"}}]}".len() - 2;
    let body = format!("data: {{\"choices\":[{{\"delta\":{{\"content\":\"b\"}}}}]}}\ndata: {}\n\n", " ".repeat(fill));
    assert_eq!(read_some_ways(body.as_bytes(), 8), (vec![delta("b")], false));
}

// Lines and fields.

#[test]
fn a_cr_ending_one_push_and_an_lf_starting_the_next_are_one_line_end() {
    let mut d = SseDecoder::default();
    assert!(d.push(b"data: {\"choices\":[{\"delta\":{\"content\":\"one\"}}]\r").is_empty());
    assert!(d.push(b"\n").is_empty(), "the LF is the CR's: no blank line, no event yet");
    assert_eq!(d.push(b"data: }\r\n\r\n"), vec![delta("one")]);
    // A CR then anything but an LF: the next line starts there.
    let mut d = SseDecoder::default();
    assert!(d.push(b"data: {\"choices\":[{\"delta\":{\"content\":\"two\"}}]}\r").is_empty());
    assert_eq!(d.push(b"\r"), vec![delta("two")]);
}

#[test]
fn a_bom_at_the_start_is_dropped_and_nowhere_else() {
    let body = format!("\u{FEFF}{}\u{FEFF}{}{}", chunk("bom"), chunk("not data"), chunk("after"));
    // The second BOM starts a line: its field is `\u{FEFF}data`, not `data`.
    assert_eq!(read_every_way(&body), (vec![delta("bom"), delta("after")], false));
}

#[test]
fn blank_data_carries_nothing_and_other_event_names_are_chunks() {
    let body = format!("data:\n\ndata: \n\nevent: completion\n{}event: ping\ndata: {{\"type\": \"ping\"}}\n\ndata: [DONE]\n\n", chunk("named"));
    assert_eq!(read_every_way(&body), (vec![delta("named"), SseEvent::Done], true));
}

#[test]
fn the_line_parts_are_read_as_the_standard_says() {
    assert_eq!(line(""), Line::Blank);
    assert_eq!(line(": keep-alive"), Line::Comment);
    assert_eq!(line(":"), Line::Comment);
    assert_eq!(line("data: x"), Line::Field { name: "data", value: "x" });
    assert_eq!(line("data:x"), Line::Field { name: "data", value: "x" });
    assert_eq!(line("data:  x"), Line::Field { name: "data", value: " x" });
    assert_eq!(line("data: a: b"), Line::Field { name: "data", value: "a: b" });
    assert_eq!(line("data"), Line::Field { name: "data", value: "" });
    assert_eq!(line(" data: x"), Line::Field { name: " data", value: "x" });
}

// Errors.

#[test]
fn an_event_named_error_is_read_in_the_shapes_providers_send() {
    let wrapped = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
    assert_eq!(read_every_way(wrapped), (vec![error("overloaded_error")], true));
    let numbered = "event: error\ndata: {\"error\":{\"code\":400,\"message\":\"too long\",\"type\":\"exceed_context_size_error\"}}\n\n";
    assert_eq!(read_every_way(numbered), (vec![error("exceed_context_size_error")], true));
    let text = format!("{}event: error\ndata: upstream connect error\n\n", chunk("so far"));
    assert_eq!(read_every_way(&text), (vec![delta("so far"), error("llm_error")], true));
}

#[test]
fn an_error_object_or_a_broken_chunk_is_an_error() {
    let object = "data: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}\n\n";
    assert_eq!(read_every_way(object), (vec![error("server_error")], true));
    // OpenAI's errors carry `"code": null`: the type names it.
    let null_code = "data: {\"error\":{\"message\":\"m\",\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n";
    assert_eq!(read_every_way(null_code), (vec![error("server_error")], true));
    let broken = format!("{}data: {{not json\n\n{}", chunk("a"), chunk("b"));
    assert_eq!(read_every_way(&broken), (vec![delta("a"), error("bad_chunk")], true));
}

// The end of the body.

#[test]
fn a_last_done_without_its_blank_line_still_ends_the_answer() {
    for end in ["data: [DONE]\n", "data: [DONE]\r\n", "data: [DONE]", "data:[DONE]\r"] {
        let body = format!("{}{end}", chunk("hi"));
        assert_eq!(read_every_way(&body), (vec![delta("hi"), SseEvent::Done], true), "{end:?}");
    }
}

#[test]
fn an_unfinished_event_at_the_end_is_discarded_and_the_stream_is_cut() {
    let stop = "data: {\"choices\":[{\"delta\":{\"content\":\"lost\"},\"finish_reason\":\"stop\"}]}\n";
    for body in [format!("{}{stop}", chunk("kept")), format!("{}data: {{\"choices\":", chunk("kept")), format!("{}data: [DONE]\ndata: more\n", chunk("kept"))] {
        assert_eq!(read_every_way(&body), (vec![delta("kept")], false), "{body:?}");
    }
}

#[test]
fn a_line_split_anywhere_even_inside_a_character_is_decoded_once_whole() {
    let body = format!("{}{}data: [DONE]\n", chunk("héllo wörld"), chunk("ünïcode ✓"));
    assert_eq!(read_every_way(&body), (vec![delta("héllo wörld"), delta("ünïcode ✓"), SseEvent::Done], true));
}

#[test]
fn a_server_that_does_not_stream_is_read_whole_at_the_end() {
    let body = serde_json::json!({"choices": [{"message": {"role": "assistant", "content": "All at once."}, "finish_reason": "stop"}]}).to_string();
    assert_eq!(read_every_way(&body), (vec![delta("All at once."), SseEvent::Done], true));
    let pretty = serde_json::to_string_pretty(&serde_json::json!({"choices": [{"message": {"content": "Pretty."}}]})).unwrap();
    assert_eq!(read_every_way(&pretty), (vec![delta("Pretty."), SseEvent::Done], true));
    let mut streamed = SseDecoder::default();
    streamed.push(chunk("x").as_bytes());
    assert!(streamed.finish().is_empty(), "a stream cut short is not a whole body");
    assert_eq!(read_every_way("<html>oops</html>"), (vec![error("bad_response")], true));
}

#[test]
fn a_whole_completion_with_tool_calls_reports_them_before_its_text() {
    let message = serde_json::json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c9", "type": "function", "function": {"name": "fetch", "arguments": "{}"}}]});
    let body = serde_json::json!({"choices": [{"message": message, "finish_reason": "tool_calls"}]}).to_string();
    assert_eq!(read_every_way(&body), (vec![SseEvent::ToolCall { id: Some("c9".into()), name: "fetch".into() }, SseEvent::Done], true));
}

// Chunks.

#[test]
fn chunks_become_deltas_and_done_ends_it() {
    let mut d = SseDecoder::default();
    let body = format!("{}{}data: [DONE]\n\n{}", chunk("Hel"), chunk("lo"), chunk("after"));
    assert_eq!(d.push(body.as_bytes()), vec![delta("Hel"), delta("lo"), SseEvent::Done]);
    assert!(d.ended());
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
    let stop = "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n";
    assert_eq!(d.push(stop.as_bytes()), vec![SseEvent::Done]);
}

/// A streamed tool call's deltas, as OpenAI sends them: the first with the id and name, the
/// next with pieces of the arguments.
fn tool_call(index: u32, id: &str, name: &str) -> String {
    let start = serde_json::json!({"choices": [{"delta": {"tool_calls": [{"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}, "finish_reason": null}]});
    let args = serde_json::json!({"choices": [{"delta": {"tool_calls": [{"index": index, "function": {"arguments": "{\"q\": 1}"}}]}, "finish_reason": null}]});
    format!("data: {start}\n\ndata: {args}\n\n")
}

#[test]
fn a_tool_call_is_reported_once_when_it_starts_between_the_text() {
    let finish = "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n";
    let body = format!("{}{}{}{}{finish}", chunk("Let me look. "), tool_call(0, "call_1", "search"), tool_call(1, "call_2", "lookup"), chunk("Found."));
    let search = SseEvent::ToolCall { id: Some("call_1".into()), name: "search".into() };
    let lookup = SseEvent::ToolCall { id: Some("call_2".into()), name: "lookup".into() };
    assert_eq!(read_every_way(&body), (vec![delta("Let me look. "), search, lookup, delta("Found."), SseEvent::Done], true));
}
