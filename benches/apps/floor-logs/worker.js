// The floor plus the logging slackline does per event: a hello-world Worker that prints three
// JSON lines (like slackline's request, delivery and sweep lines) per request. It separates the
// cost of the local runtime's log pipeline from slackline's own work.
export default {
  async fetch(request) {
    const body = await request.arrayBuffer();
    const now = Date.now();
    console.log(JSON.stringify({ kind: "request", route: "/", bytes: body.byteLength, verdict: "new", ack_ms: 0 }));
    console.log(JSON.stringify({ kind: "delivery", row: 1, effect: "slack_api", target: "chat.postMessage", attempt: 1, outcome: "success", latency_ms: 1, at: now }));
    console.log(JSON.stringify({ kind: "sweep", trigger: "alarm", claimed: 1, delivered: 1, retried: 0, parked: 0, fenced: 0, pending: 0 }));
    return new Response("");
  },
};
