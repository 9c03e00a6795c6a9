//! The alarm path: claims, fenced completions, holds, attempt history, counters, failure streaks, the sweep's end and housekeeping; the actor's team key.

/// The serial effects' labels (`crate::kinds::registry::SERIAL`, which a test holds equal to this)
/// as SQL text, `('lists', 'status')`, for statements built with `concat!`: frozen with the
/// `outbox_serial` index of migration 3, whose `WHERE` the claim's must match.
macro_rules! serial_effects {
    () => {
        "('lists', 'status')"
    };
}
#[cfg(test)]
pub(crate) use serial_effects;

/// Rewrites a row's action in its completion (a result listener that failed keeps its effect's
/// answer for a redrive): ?1 id, ?2 payload, ?3 effect label, ?4 target.
pub const REWRITE: &str = "UPDATE outbox SET payload = ?2, effect = ?3, target = ?4 WHERE id = ?1";

/// Remembers the actor's own team key: ?1 the key.
pub const REMEMBER_TEAM_KEY: &str = "INSERT INTO meta(key, value) VALUES ('team_key', ?1) ON CONFLICT(key) DO NOTHING";

/// The actor's team key, if recorded.
pub const TEAM_KEY: &str = "SELECT value FROM meta WHERE key = 'team_key'";

/// Claims a bounded batch in one statement: ?1 claim token, ?2 lease expiry, ?3 now, ?4 limit.
/// Eligible: pending, due, not held, and unclaimed or claimed by another sweep whose lease has
/// expired. A sweep never takes back its own rows: they are in flight in that very sweep.
/// Counts the attempt at claim time. A row still claimed (by a sweep whose lease expired: its
/// attempt never completed) has an outcome nobody knows: `uncertain_since` keeps the start of the
/// oldest such attempt (`last_attempt_at` before this claim; SET reads the row's old values), for
/// a post's read-back (`crate::kinds::post`); the same row write, no other. *Serial* rows — a List's (effect `lists`, target
/// `slackLists:{list}`) and a status message's (effect `status`, target `status:{name}`) — go one
/// at a time per target: only the oldest due or claimed one is eligible, so one List never has two
/// Slack calls in flight (no two creates racing for one record) and one status message is never
/// posted twice or updated out of order.
///
/// The subquery's parameters are wrapped (`?3 + 0`, `?1 || ''`, `?4 + 0`) so that the query
/// planner cannot read their values: the runtime's SQLite otherwise marks the statement as
/// depending on them and compiles it again on every call, which cost about 5 % of the runtime's
/// CPU under load (measured with `perf`; `docs/benchmarks.md`). The plan and results are the same.
pub const CLAIM: &str = concat!(
    "UPDATE outbox
 SET claim_token = ?1, claim_expires_at = ?2, attempts = attempts + 1,
     first_attempt_at = COALESCE(first_attempt_at, ?3), last_attempt_at = ?3,
     uncertain_since = CASE WHEN claim_token IS NOT NULL THEN COALESCE(uncertain_since, last_attempt_at) ELSE uncertain_since END
 WHERE id IN (
   SELECT id FROM outbox
   WHERE status = 'pending' AND next_attempt_at <= ?3 + 0
     AND (claim_token IS NULL OR (claim_expires_at <= ?3 + 0 AND claim_token <> ?1 || ''))
     AND target NOT IN (SELECT target FROM holds WHERE until_ms > ?3 + 0)
     AND (effect NOT IN ",
    serial_effects!(),
    " OR id = (SELECT MIN(l.id) FROM outbox l
       WHERE l.status = 'pending' AND l.effect IN ",
    serial_effects!(),
    " AND l.target = outbox.target
         AND (l.next_attempt_at <= ?3 + 0 OR l.claim_token IS NOT NULL)))
   ORDER BY next_attempt_at, id
   LIMIT ?4 + 0)
 RETURNING id, idem_key, op_key, effect, target, payload, attempts, max_attempts, deadline_at, created_at,
   uncertain_since, last_attempt_at AS claimed_at"
);

/// The rows an actor instance inserted already claimed (`INSERT_OUTBOX_CLAIMED`) that its sweep
/// takes as they are, no row written: ?1 the instance's token, ?2 the ids (a JSON array), ?3 now.
/// Taken: still pending under that token, due, and not held (what the claim asks too; these rows
/// are never serial). The sweep completes them fenced by the same token.
pub const ADOPT: &str = "SELECT id, idem_key, op_key, effect, target, payload, attempts, max_attempts, deadline_at, created_at,
   uncertain_since, last_attempt_at AS claimed_at
 FROM outbox
 WHERE id IN (SELECT value FROM json_each(?2)) AND status = 'pending' AND claim_token = ?1
   AND next_attempt_at <= ?3 AND target NOT IN (SELECT target FROM holds WHERE until_ms > ?3)
 ORDER BY next_attempt_at, id";

/// Gives rows an actor instance inserted already claimed back to the claim, as if never claimed:
/// ?1 the instance's token, ?2 the ids (a JSON array). For the ones its sweep could not take in
/// time (a held lane; a lease too short for the attempts ahead): the claim then takes them as any
/// row, and their post is not read back (no attempt began). Rows no longer pending under that
/// token (completed, parked) are left alone.
pub const RELEASE: &str = "UPDATE outbox
 SET claim_token = NULL, claim_expires_at = NULL, attempts = MAX(attempts - 1, 0),
     first_attempt_at = CASE WHEN attempts <= 1 THEN NULL ELSE first_attempt_at END, last_attempt_at = NULL
 WHERE id IN (SELECT value FROM json_each(?2)) AND status = 'pending' AND claim_token = ?1";

/// The rows a dead actor instance claimed whose attempt cannot have begun, for a new instance to
/// give back to the claim at once (`RELEASE_UNTOUCHED`): ?1 the new instance's pre-claim token
/// (its own rows are not a dead instance's), ?2 how many attempts an instance runs at once, at
/// most (`config::MAX_DELIVERY_CONCURRENCY`), for a token that does not say
/// (`clock::claim_token`: `{concurrency}:{random}`; an older release's is random only), ?3 now.
/// A claimed row is always due (the claim takes only due rows, an ingest claims only rows due
/// now): the read walks the due rows (`outbox_due`), not a team's schedules for later.
///
/// Why it is sound: an instance starts the rows of one claim token in id order — its pre-claimed
/// rows are adopted oldest first, only as many as have a free slot; a sweep's claimed rows start
/// in id order as slots free — so the rows of a token whose attempt began and has not ended are
/// the first of its pending rows, at most as many as it runs at once. Every pending row of the
/// token after those (by id) was never sent: its post needs no read-back, and it need not wait for the
/// claim to run out. Read on a snapshot (a SELECT, not inside the UPDATE, which would see the
/// rows it already changed), once, when an instance starts.
pub const UNTOUCHED_DEAD_CLAIMS: &str = "SELECT o.id FROM outbox o
 WHERE o.status = 'pending' AND o.next_attempt_at <= ?3 AND o.claim_token IS NOT NULL AND o.claim_token <> ?1
   AND (SELECT COUNT(*) FROM outbox e WHERE e.status = 'pending' AND e.next_attempt_at <= ?3 AND e.claim_token = o.claim_token AND e.id < o.id)
       >= COALESCE(NULLIF(CAST(substr(o.claim_token, 1, instr(o.claim_token, ':') - 1) AS INTEGER), 0), ?2)
 ORDER BY o.id";

/// Gives rows a dead instance claimed and never attempted (`UNTOUCHED_DEAD_CLAIMS`) back to the
/// claim, as if never claimed: ?1 the ids (a JSON array), ?2 the new instance's pre-claim token.
/// The attempt their claim counted is given back; an uncertainty from an earlier attempt
/// (`uncertain_since`) is kept, so that post is still read back.
pub const RELEASE_UNTOUCHED: &str = "UPDATE outbox
 SET claim_token = NULL, claim_expires_at = NULL, attempts = MAX(attempts - 1, 0),
     first_attempt_at = CASE WHEN attempts <= 1 THEN NULL ELSE first_attempt_at END,
     last_attempt_at = CASE WHEN attempts <= 1 THEN NULL ELSE last_attempt_at END
 WHERE id IN (SELECT value FROM json_each(?1)) AND status = 'pending' AND claim_token IS NOT NULL AND claim_token <> ?2";

/// Fenced completion as delivered: ?1 id, ?2 claim token, ?3 now, ?4 HTTP status or NULL, ?5
/// the attempt's latency (ms), ?6 and ?7 a notify message's post (Slack's `channel` and `ts`;
/// NULL for every other row: migration 5, the row carries them, no `slack_results` row). The row
/// carries its successful attempt: no `attempts` row is written for it. Zero returned rows =
/// fenced.
pub const COMPLETE_DONE: &str = "UPDATE outbox
 SET status = 'done', claim_token = NULL, claim_expires_at = NULL, finished_at = ?3, last_status = ?4,
     last_latency_ms = ?5, posted_channel = ?6, posted_ts = ?7
 WHERE id = ?1 AND claim_token = ?2 AND status = 'pending' RETURNING id";

/// Fenced completion as "try again": ?1 id, ?2 claim token, ?3 next attempt at, ?4 last error,
/// ?5 HTTP status (NULLs keep the previous values), ?6 since when the row's post may already be in
/// Slack (`uncertain_since`: a post that timed out, a read-back not done; NULL: nothing unknown).
/// Zero returned rows = fenced.
pub const COMPLETE_RETRY: &str = "UPDATE outbox
 SET claim_token = NULL, claim_expires_at = NULL, next_attempt_at = ?3, last_error = COALESCE(?4, last_error),
     last_status = COALESCE(?5, last_status), uncertain_since = ?6
 WHERE id = ?1 AND claim_token = ?2 AND status = 'pending' RETURNING id";

/// Fenced completion as "wait, this was not a failed attempt" (a 429, or a call kept back for its
/// rate budget): gives back the attempt the claim counted. ?1 id, ?2 claim token, ?3 next attempt
/// at, ?4 last error, ?5 HTTP status (NULLs keep the previous values), ?6 1 if the call was sent
/// (a 429) else 0 (paced: a row never sent keeps no first-attempt time). Zero returned rows = fenced.
pub const COMPLETE_WAIT: &str = "UPDATE outbox
 SET claim_token = NULL, claim_expires_at = NULL, next_attempt_at = ?3, attempts = MAX(attempts - 1, 0),
     last_error = COALESCE(?4, last_error), last_status = COALESCE(?5, last_status),
     first_attempt_at = CASE WHEN ?6 = 0 AND attempts <= 1 THEN NULL ELSE first_attempt_at END
 WHERE id = ?1 AND claim_token = ?2 AND status = 'pending' RETURNING id";

/// Fenced completion as parked: ?1 id, ?2 claim token, ?3 reason, ?4 last error, ?5 HTTP status
/// (NULLs keep the previous values), ?6 now. Zero returned rows = fenced.
pub const COMPLETE_PARK: &str = "UPDATE outbox
 SET status = 'parked', claim_token = NULL, claim_expires_at = NULL, reason = ?3,
     last_error = COALESCE(?4, last_error), last_status = COALESCE(?5, last_status), finished_at = ?6
 WHERE id = ?1 AND claim_token = ?2 AND status = 'pending' RETURNING id";

/// Holds a lane for the whole team (a 429's `Retry-After`, a List's pacing): ?1 the lane (a
/// Slack method, `chat.postMessage:{channel}`, or a row target), ?2 until. The claim skips rows
/// whose target is held; the pacer reads every hold back when an actor instance starts.
pub const HOLD_TARGET: &str = "INSERT INTO holds(target, until_ms) VALUES (?1, ?2)
 ON CONFLICT(target) DO UPDATE SET until_ms = MAX(until_ms, excluded.until_ms)";

/// Appends to a row's attempt history: ?1 row id, ?2 attempt, ?3 at, ?4 outcome, ?5 detail,
/// ?6 HTTP status, ?7 latency ms.
pub const LOG_ATTEMPT: &str = "INSERT INTO attempts(row_id, attempt, at, outcome, detail, http_status, latency_ms)
 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";

/// When a pending row `o` (joined with its target's hold `h`) is next due, ?1 now: a live
/// lease's expiry, else its next attempt, not before the hold ends. One text for [`SWEEP_END`]
/// (the alarm the sweep re-arms) and [`OVERDUE`] (the safety net that checks it), which must
/// reckon alike (`concat!` takes only literals, hence a macro).
macro_rules! due_of_pending {
    () => {
        "CASE
      WHEN o.claim_token IS NOT NULL AND o.claim_expires_at > ?1 THEN o.claim_expires_at
      ELSE MAX(o.next_attempt_at, COALESCE(h.until_ms, 0)) END"
    };
}

/// Everything a sweep's end reads, in one statement: `next_at`, the earliest time the sweep has
/// work (due pending rows, not before their target's hold, or the expiry of a live lease; NULL
/// when nothing is pending); when housekeeping next has work (`receipts_at`: the receipts'
/// next rotation, `done_at`: the oldest noted delivered row's expiry plus the bucket (both
/// `sql::lean`), `keys_at`: the oldest idempotency key's expiry as noted, plus the bucket
/// (`kinds::notify::sql::NOTE_KEYS`); each NULL when there is none);
/// and the pending summary
/// (`pending`, `oldest`: when the oldest row due by now entered the queue — a scheduled row
/// enters it at its due time, so one not due yet is not waiting). ?1 now, ?2 receipt retention
/// ms, ?3 done retention ms, ?4 the prune bucket ms.
pub const SWEEP_END: &str = concat!(
    "SELECT
   (SELECT MIN(",
    due_of_pending!(),
    ")
    FROM outbox o LEFT JOIN holds h ON h.target = o.target
    WHERE o.status = 'pending') AS next_at,
   (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'receipts_since') + ?2 AS receipts_at,
   (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'done_oldest') + ?3 + ?4 AS done_at,
   (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'keys_oldest') + ?4 AS keys_at,
   (SELECT COUNT(*) FROM outbox WHERE status = 'pending') AS pending,
   (SELECT MIN(created_at) FROM outbox WHERE status = 'pending' AND created_at <= ?1) AS oldest"
);

/// The alarm's safety net (`crate::outbox::alarm`): the earliest time a pending row is due, by
/// [`SWEEP_END`]'s reckoning (a live lease's expiry, else its next attempt, not before its
/// target's hold), among the rows whose next attempt is at or before ?2 (now less the net's grace;
/// the partial index `outbox_pending` reads only those); ?1 now.
pub const OVERDUE: &str = concat!(
    "SELECT MIN(",
    due_of_pending!(),
    ") AS due
 FROM outbox o LEFT JOIN holds h ON h.target = o.target
 WHERE o.status = 'pending' AND o.next_attempt_at <= ?2"
);

/// The ids of the old delivered rows one housekeeping pass prunes, oldest first: ?1 cutoff, ?2
/// limit. Parked rows are never pruned, nor is the newest row (whatever its state): the table has
/// no `AUTOINCREMENT`, and its highest id is what keeps a new row from taking an old one's id
/// (`sql::lean`). One text for [`PRUNE_DONE`] and every statement that must see the same rows
/// before it (`concat!` takes only literals, hence a macro).
macro_rules! prune_done_ids {
    () => {
        "SELECT id FROM outbox WHERE status = 'done' AND finished_at < ?1 AND id < (SELECT MAX(id) FROM outbox)
   ORDER BY id LIMIT ?2"
    };
}
pub(crate) use prune_done_ids;

/// Deletes the attempt history of old delivered rows: ?1 cutoff, ?2 limit. Run before
/// [`PRUNE_DONE`] with the same parameters (the same rows, by the same order).
pub const PRUNE_DONE_ATTEMPTS: &str = concat!("DELETE FROM attempts WHERE row_id IN (\n   ", prune_done_ids!(), ")");

/// Deletes old delivered rows, oldest ids first: ?1 cutoff, ?2 limit (which rows:
/// `prune_done_ids!`).
pub const PRUNE_DONE: &str = concat!("DELETE FROM outbox WHERE id IN (\n   ", prune_done_ids!(), ")");

/// Deletes expired holds: ?1 now.
pub const PRUNE_HOLDS: &str = "DELETE FROM holds WHERE until_ms <= ?1";

/// Lanes held (by a 429, or a List's pacing): ?1 now.
pub const ACTIVE_HOLDS: &str = "SELECT target, until_ms FROM holds WHERE until_ms > ?1";

/// Counts a failed attempt against its target: ?1 target. Returns the failures in a row.
pub const STREAK_FAIL: &str = "INSERT INTO target_streaks(target, failures) VALUES (?1, 1)
 ON CONFLICT(target) DO UPDATE SET failures = failures + 1 RETURNING failures";

/// A success ends a target's failure streak: ?1 target.
pub const STREAK_RESET: &str = "DELETE FROM target_streaks WHERE target = ?1";

/// Deletes the Slack answers of old delivered rows: ?1 cutoff, ?2 limit (the same rows as
/// [`PRUNE_DONE`], run before it).
pub const PRUNE_DONE_RESULTS: &str = concat!("DELETE FROM slack_results WHERE row_id IN (\n   ", prune_done_ids!(), ")");
