// The relay floor of a streamed answer (`BENCH_ONLY=answer_cost`, benches/load/answer_cost.rs):
// what relaying a model's stream into Slack costs with nothing else. On a POST {channel,
// thread_ts, prompt} it sets the thread's status, asks the model (OpenAI-compatible, `stream:
// true`, LLM_API_URL), reads its server-sent events, buffers 256 characters (or 1 s, checked as
// events arrive) and writes them with chat.startStream / appendStream / stopStream (with the same
// feedback buttons as slackline) at SLACK_API_URL, each call awaited before reading on, as
// slackline does. No Durable Object, no checkpoint, no retry, no Stop: it answers the POST once
// the stream is stopped (a deployed relay would need `waitUntil`, cut 30 s after the response).
const FLUSH_CHARS = 256;
const FLUSH_MS = 1000;
const FEEDBACK = [{
  type: "context_actions",
  elements: [{
    type: "feedback_buttons",
    action_id: "floor_feedback",
    positive_button: { text: { type: "plain_text", text: "Good answer" }, value: "good" },
    negative_button: { text: { type: "plain_text", text: "Bad answer" }, value: "bad" },
  }],
}];

async function slack(env, method, args) {
  const answer = await fetch(`${env.SLACK_API_URL}/${method}`, {
    method: "POST",
    headers: { authorization: `Bearer ${env.SLACK_BOT_TOKEN}`, "content-type": "application/json; charset=utf-8" },
    body: JSON.stringify(args),
  });
  const body = await answer.json();
  if (!body.ok) throw new Error(`${method}: ${body.error}`);
  return body;
}

export default {
  async fetch(request, env) {
    if (request.method !== "POST") return new Response("");
    const { channel, thread_ts, prompt } = await request.json();
    await slack(env, "assistant.threads.setStatus", { channel_id: channel, thread_ts, status: "is thinking..." });
    const messages = [
      { role: "system", content: "You are a helpful Slack assistant. Answer in Slack markdown." },
      { role: "user", content: prompt },
    ];
    const model = await fetch(env.LLM_API_URL, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8", accept: "text/event-stream" },
      body: JSON.stringify({ model: "floor", stream: true, messages }),
    });
    const reader = model.body.pipeThrough(new TextDecoderStream()).getReader();
    let ts = null, buffered = "", since = 0, pending = "";
    const flush = async () => {
      if (!buffered) return;
      if (ts === null) ts = (await slack(env, "chat.startStream", { channel, thread_ts, markdown_text: buffered })).ts;
      else await slack(env, "chat.appendStream", { channel, ts, markdown_text: buffered });
      buffered = "";
    };
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      pending += value;
      let end;
      while ((end = pending.indexOf("\n\n")) >= 0) {
        const event = pending.slice(0, end);
        pending = pending.slice(end + 2);
        for (const line of event.split("\n")) {
          const data = line.startsWith("data:") ? line.slice(5).trim() : "";
          if (!data || data === "[DONE]") continue;
          const text = JSON.parse(data).choices?.[0]?.delta?.content;
          if (!text) continue;
          if (!buffered) since = Date.now();
          buffered += text;
        }
      }
      if (buffered.length >= FLUSH_CHARS || (buffered && Date.now() - since >= FLUSH_MS)) await flush();
    }
    await flush();
    if (ts !== null) await slack(env, "chat.stopStream", { channel, ts, blocks: FEEDBACK });
    return new Response("");
  },
};
