// The design's floor for the benchmarks: slackline's fixed shape (docs/architecture.md) with
// nothing else, in plain JavaScript. A stateless Worker verifies the Slack signature and forwards the event to
// one Durable Object per team; the object writes a receipt and an outbox row in one
// transactionSync, sets its alarm to now and answers; the alarm claims the due rows with one
// UPDATE, posts each reply to SLACK_API_URL and completes it with a fenced UPDATE. No retries,
// no backoff, no logs, no config, no admin: what a request costs in this runtime when it takes
// this path at all. `make bench` runs it beside the floor, the peer and slackline.
//
// For the cost benchmark (`BENCH_ONLY=cost`, benches/load/cost.rs) it counts what slackline's
// meter counts (src/meter.rs), in isolate memory: each statement's runs and its cursor's
// rowsRead / rowsWritten, setAlarm calls, actor requests and alarm invocations (GET /__meter);
// and it prunes as slackline does (POST /__prune?now=: receipts and done rows older than 24 h
// by that clock), so both pay for the same life of an event. Like slackline's, the meter counts
// only in a test deployment (ALLOW_TEST_CLOCK=1): the speed runs (BENCH_ONLY=speed) serve both
// without it, as deployed.
const encoder = new TextEncoder();
const RETENTION_MS = 24 * 3600 * 1000;
const meter = { statements: {}, set_alarms: 0, delete_alarms: 0, requests: 0, alarms: 0 };
let metering = false;

function exec(sql, query, ...bindings) {
  const cursor = sql.exec(query, ...bindings);
  const rows = cursor.toArray();
  if (!metering) return rows;
  const key = query.split(/\s+/).filter(Boolean).join(" ");
  const tally = (meter.statements[key] ??= { runs: 0, rows_read: 0, rows_written: 0 });
  tally.runs += 1;
  tally.rows_read += cursor.rowsRead;
  tally.rows_written += cursor.rowsWritten;
  return rows;
}
let signingKey;

async function verified(request, body, secret) {
  const stamp = request.headers.get("x-slack-request-timestamp") || "";
  const signature = request.headers.get("x-slack-signature") || "";
  if (Math.abs(Date.now() / 1000 - Number(stamp)) > 300 || !signature.startsWith("v0=")) return false;
  signingKey ??= await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  const mac = new Uint8Array(signature.slice(3).match(/../g).map((h) => parseInt(h, 16)));
  return crypto.subtle.verify("HMAC", signingKey, mac, encoder.encode(`v0:${stamp}:${body}`));
}

export default {
  async fetch(request, env) {
    const path = new URL(request.url).pathname;
    if (path === "/__meter" || path === "/__prune") {
      const stub = env.TEAM.get(env.TEAM.idFromName(new URL(request.url).searchParams.get("team") ?? ""));
      return stub.fetch(`https://actor${path}${new URL(request.url).search}`, { method: request.method });
    }
    const body = await request.text();
    if (!(await verified(request, body, env.SLACK_SIGNING_SECRET))) return new Response("", { status: 401 });
    const envelope = JSON.parse(body);
    if (envelope.type === "url_verification") return new Response(envelope.challenge);
    const team = envelope.authorizations?.[0]?.team_id ?? envelope.team_id;
    const event = envelope.event;
    const unit = { event_id: envelope.event_id, channel: event.channel, ts: event.ts, text: event.text };
    const stub = env.TEAM.get(env.TEAM.idFromName(team));
    const answer = await stub.fetch("https://actor/ingest", { method: "POST", body: JSON.stringify(unit) });
    return new Response("", { status: answer.ok ? 200 : 500 });
  },
};

export class TeamFloor {
  constructor(ctx, env) {
    this.ctx = ctx;
    this.env = env;
    this.sql = ctx.storage.sql;
    metering = env.ALLOW_TEST_CLOCK === "1";
    this.sql.exec(`CREATE TABLE IF NOT EXISTS receipts (event_id TEXT PRIMARY KEY, at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY, idem_key TEXT NOT NULL UNIQUE, payload TEXT NOT NULL,
        status TEXT NOT NULL, due_at INTEGER NOT NULL, claim_token TEXT, claim_expires_at INTEGER);`);
  }

  setAlarm(at) {
    meter.set_alarms += 1;
    this.ctx.storage.setAlarm(at);
  }

  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/__meter") return Response.json(meter);
    meter.requests += 1;
    if (path === "/__prune") return this.prune(Number(new URL(request.url).searchParams.get("now")));
    const unit = await request.json();
    const now = Date.now();
    this.ctx.storage.transactionSync(() => {
      const fresh = exec(this.sql, "INSERT INTO receipts (event_id, at) VALUES (?, ?) ON CONFLICT DO NOTHING RETURNING event_id", unit.event_id, now);
      if (fresh.length === 0 || unit.channel === undefined) return;
      const payload = JSON.stringify({ channel: unit.channel, thread_ts: unit.ts, text: `seen: ${unit.text}` });
      exec(this.sql, "INSERT INTO outbox (idem_key, payload, status, due_at) VALUES (?, ?, 'pending', ?) ON CONFLICT DO NOTHING", `msg:${unit.channel}:${unit.ts}:reply`, payload, now);
    });
    if (unit.channel !== undefined) this.setAlarm(now);
    return new Response("{}");
  }

  prune(now) {
    exec(this.sql, "DELETE FROM receipts WHERE at < ?", now - RETENTION_MS);
    exec(this.sql, "DELETE FROM outbox WHERE status = 'done' AND due_at < ?", now - RETENTION_MS);
    return new Response("{}");
  }

  async alarm() {
    meter.alarms += 1;
    const token = crypto.randomUUID();
    const now = Date.now();
    const claimed = exec(this.sql, `UPDATE outbox SET claim_token = ?, claim_expires_at = ? WHERE id IN (SELECT id FROM outbox
      WHERE status = 'pending' AND due_at <= ? AND (claim_expires_at IS NULL OR claim_expires_at < ?) ORDER BY due_at LIMIT 25)
      RETURNING id, payload`, token, now + 30000, now, now);
    await Promise.all(claimed.map(async (row) => {
      const answer = await fetch(`${this.env.SLACK_API_URL}/chat.postMessage`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${this.env.SLACK_BOT_TOKEN}` },
        body: row.payload,
      });
      const ok = answer.ok && (await answer.json()).ok;
      exec(this.sql, "UPDATE outbox SET status = ?, claim_token = NULL WHERE id = ? AND claim_token = ?", ok ? "done" : "pending", row.id, token);
    }));
    const next = exec(this.sql, "SELECT min(max(due_at, coalesce(claim_expires_at, 0))) AS at FROM outbox WHERE status = 'pending'")[0].at;
    if (next !== null) this.setAlarm(Math.max(next, Date.now()));
  }
}
