//! LLM replies (`Action::LlmReply`, `cx.llm_reply`): a prompt sent to an OpenAI-compatible chat
//! completion (`LlmConfig`: its URL, model and key), whose answer becomes a follow-up row — a
//! threaded post or a `response_url` message (`crate::kinds::registry::Followup`) — queued with this row's
//! fenced completion, under this row's key. This file is the room's pure half: the request
//! ([`request`]) and the answer's text ([`content`]); beside it, wasm32 only, its job (`job`: the
//! call, judged, and the follow-up queued). It has no SQL of its own: the follow-up is an ordinary
//! row. A streamed answer is another kind (`crate::kinds::assistant`).

#[cfg(target_arch = "wasm32")]
pub(crate) mod job;

use serde_json::{json, Value};

/// The chat completion request for `prompt`, to `model`.
pub fn request(model: &str, prompt: &str) -> Value {
    json!({
        "model": model,
        "messages": [
            {"role": "system", "content": "You are a helpful Slack assistant. Answer briefly."},
            {"role": "user", "content": prompt}
        ]
    })
}

/// The answer's text in a chat completion's JSON, if it has one.
pub fn content(json: &Value) -> Option<String> {
    json.pointer("/choices/0/message/content").and_then(Value::as_str).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_carries_the_model_and_the_prompt_after_the_system_message() {
        let body = request("m1", "summarise");
        assert_eq!(body["model"], "m1");
        assert_eq!((body["messages"][0]["role"].as_str(), body["messages"][1]["content"].as_str()), (Some("system"), Some("summarise")));
    }

    #[test]
    fn the_answer_is_the_first_choices_message_and_nothing_else_is() {
        assert_eq!(content(&json!({"choices": [{"message": {"content": "hi"}}]})).as_deref(), Some("hi"));
        assert_eq!(content(&json!({"choices": []})), None);
        assert_eq!(content(&json!({"choices": [{"message": {"content": 7}}]})), None, "not text");
    }
}
