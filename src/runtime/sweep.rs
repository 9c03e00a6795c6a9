//! The alarm's delivery loop: claim a bounded batch, perform each effect (a few at a time, each
//! with a timeout), complete each with a fenced write; claim again when the batch is done — or
//! earlier, when rows are waiting (a full claim, or the actor's signal that an ingest queued some)
//! behind an attempt that has run past [`HOLDBACK_MS`](crate::outbox::schedule::HOLDBACK_MS), so a slow call never holds back the team's
//! other deliveries; stop when nothing is due or the time budget is spent. The caller re-arms the
//! alarm from the returned report on every path. Those timing decisions are the pure
//! [`crate::outbox::schedule`]'s; this loop only does what it says.
//!
//! Invariants: the claim is one UPDATE (no SELECT-then-UPDATE); a completion whose claim was taken
//! over is counted as fenced and changes nothing; a row past its deadline is parked without being
//! performed; a crash anywhere leaves claimed rows to be reclaimed when their lease expires.

use super::clock;
use super::credential::{self, Credential};
use super::http::{self, Failure};
use super::lists::{self, Pending};
use super::log;
use super::pacing::Gate;
use super::status;
use super::store::lists::ListsWrite;
use super::store::notify::PostWrite;
use crate::lists::api::RunView;
use super::store::{self, AttemptLog, ClaimedRow, Completed, Completing, Completion, NewRow};
use crate::config::{Config, PRUNE_BATCH};
use crate::logs::{Alert, AlertLine, DeliveryLine, ReconcileLine, SweepLine};
use crate::effect::Action;
use crate::outbox::pace::Pacer;
use crate::outbox::schedule::{Drain, Step};
use crate::outbox::{after_attempt, before_attempt, reasons, streak_alerts, Attempted, Outcome, Transition, Trigger, WaitCause};
use crate::slack::classify::{self, Verdict};
use futures::channel::mpsc::{UnboundedReceiver, UnboundedSender};
use futures::future::{select, Either};
use futures::stream::FuturesUnordered;
use futures::{FutureExt, StreamExt};
use serde_json::{json, Value};
use std::cell::Cell;
use std::collections::VecDeque;
use std::rc::Rc;
use worker::{SqlStorage, Storage};

/// How an ingest tells a running sweep that it queued rows. At most one signal is outstanding
/// until the sweep's next claim, so a burst of ingests wakes the sweep once, not once per event.
#[derive(Clone)]
pub struct Nudge {
    signal: UnboundedSender<()>,
    outstanding: Rc<Cell<bool>>,
}

impl Nudge {
    /// Says "rows were queued" unless a signal is already waiting for the sweep's next claim.
    pub fn send(&self) {
        if !self.outstanding.replace(true) {
            let _ = self.signal.unbounded_send(());
        }
    }

    /// True once the sweep has ended (its receiving side is gone).
    pub fn is_closed(&self) -> bool {
        self.signal.is_closed()
    }
}

/// The sweep's side of a [`Nudge`].
pub struct Nudges {
    signals: Option<UnboundedReceiver<()>>,
    outstanding: Rc<Cell<bool>>,
}

/// A connected pair: the actor keeps the [`Nudge`], the sweep takes the [`Nudges`].
pub fn nudges() -> (Nudge, Nudges) {
    let (signal, signals) = futures::channel::mpsc::unbounded();
    let outstanding = Rc::new(Cell::new(false));
    (Nudge { signal, outstanding: outstanding.clone() }, Nudges { signals: Some(signals), outstanding })
}

/// What the delivery loop waits for.
enum Event {
    /// An attempt finished (`None`: none in flight).
    Finished(Option<Finished>),
    /// An ingest queued rows (`None`: the actor dropped the sender; no more signals).
    Signal(Option<()>),
    /// The oldest attempt in flight ran past [`HOLDBACK_MS`](crate::outbox::schedule::HOLDBACK_MS).
    Stalled,
}

/// The next of: an attempt finishing, an ingest's signal, the hold-back time running out.
async fn next_event<F: std::future::Future<Output = Finished>>(
    in_flight: &mut FuturesUnordered<F>,
    woken: &mut Option<UnboundedReceiver<()>>,
    holdback_ms: Option<i64>,
) -> Event {
    let finished = in_flight.next().map(Event::Finished);
    let signal = async {
        match woken {
            Some(signals) => Event::Signal(signals.next().await),
            None => futures::future::pending().await,
        }
    };
    let stall = async {
        match holdback_ms {
            Some(ms) => {
                worker::Delay::from(std::time::Duration::from_millis(ms.max(0) as u64)).await;
                Event::Stalled
            }
            None => futures::future::pending().await,
        }
    };
    futures::pin_mut!(signal, stall);
    match select(finished, select(signal, stall)).await {
        Either::Left((event, _)) | Either::Right((Either::Left((event, _)), _)) | Either::Right((Either::Right((event, _)), _)) => event,
    }
}

/// The adapters a sweep works with.
pub struct Sweeper<'a> {
    /// The actor's storage (for transactionSync).
    pub storage: &'a Storage,
    /// The actor's SQL handle.
    pub sql: &'a SqlStorage,
    /// Settings.
    pub config: &'a Config,
    /// The team key, for log lines.
    pub team: Option<String>,
    /// Whether to prune old receipts and delivered rows in this sweep.
    pub prune: bool,
    /// The actor's cached credential.
    pub credentials: &'a credential::Cache,
    /// The actor's pacer: Slack calls wait for their method's (or channel's) rate budget.
    pub pacer: &'a std::cell::RefCell<Pacer>,
}

/// The result of performing one effect.
struct Performed {
    verdict: Verdict,
    http_status: Option<i64>,
    /// The LLM's answer, for a successful completion call.
    answer: Option<String>,
    /// A List job's write, once the transition is known.
    list: Option<Pending>,
    /// When a List job's Slack call left: the list's pacing counts from it.
    list_sent_at: Option<i64>,
    /// What a successful post answered (notify and status messages).
    post: Option<PostWrite>,
}

impl Performed {
    fn verdict(verdict: Verdict) -> Performed {
        Performed { verdict, http_status: None, answer: None, list: None, list_sent_at: None, post: None }
    }

    fn call(call: http::SlackCall) -> Performed {
        Performed { http_status: call.http_status, ..Performed::verdict(call.verdict) }
    }
}

/// A performed attempt waiting to be stored.
struct Finished {
    row: ClaimedRow,
    attempted: Attempted,
    performed: Performed,
    transition: Transition,
    followups: Vec<NewRow>,
    /// A List job's write, stored with the completion.
    lists: Option<ListsWrite>,
    /// Hold the row's target until then (a List's pacing).
    pace_until: Option<i64>,
    /// A 429's hold: the lane of the refused call, until the row's next attempt.
    hold: Option<(String, i64)>,
    started: i64,
}

impl Finished {
    /// Its `kind: delivery` log line, once stored with `outcome`.
    fn line(&self, team: Option<String>, outcome: Outcome, error: Option<String>, now: i64) -> DeliveryLine {
        let row = &self.row;
        let (next_attempt_at, reason) = match &self.transition {
            Transition::Retry { at } | Transition::Wait { at, .. } => (Some(*at), None),
            Transition::Park { reason } if outcome == Outcome::Parked => (None, Some(reason.clone())),
            _ => (None, None),
        };
        DeliveryLine {
            team,
            row: row.id,
            effect: row.effect.clone(),
            target: row.target.clone(),
            key: row.idem_key.clone(),
            attempt: self.attempted.attempts,
            outcome,
            error,
            http_status: self.performed.http_status,
            latency_ms: now - self.started,
            waited_ms: self.started - row.created_at,
            next_attempt_at,
            alert: reason.is_some().then_some(Alert::RowParked),
            reason,
        }
    }

    /// Whether storing this attempt makes rows due now: its follow-ups, or the next job of its
    /// serial target (which the claim held back while this one was pending).
    fn makes_rows_due(&self) -> bool {
        !self.followups.is_empty() || crate::effect::is_serial(&self.row.effect)
    }

    /// What storing this attempt writes.
    fn completing(&self, token: &str, config: &Config, now: i64) -> Completing {
        let max_attempts = config.retry.max_attempts;
        Completing {
            row_id: self.row.id,
            token: token.to_string(),
            hold: self.hold.clone(),
            log: AttemptLog {
                attempt: self.attempted.attempts as i64,
                outcome: Outcome::of(&self.transition),
                detail: self.performed.verdict.code().map(str::to_string),
                http_status: self.performed.http_status,
                latency_ms: now - self.started,
            },
            followups: self.followups.clone(),
            lists: self.lists.clone(),
            pace_until: self.pace_until,
            post: self.performed.post.clone(),
            reconcile_ms: config.lists_reconcile_ms,
            op_key: self.row.op_key.clone(),
            max_attempts,
            now,
            transition: self.transition.clone(),
            target: self.row.target.clone(),
        }
    }
}

impl Sweeper<'_> {
    /// Runs one sweep. Storage errors end it early (recorded in the report); they never escape.
    /// A signal on `nudges` says an ingest queued rows while the sweep runs: they are claimed in
    /// this sweep (early if the attempts in flight are slow) instead of waiting for the next alarm.
    pub async fn run(&self, trigger: Trigger, nudges: Nudges) -> SweepLine {
        let started = clock::now_ms();
        let mut report = SweepLine { trigger, team: self.team.clone(), ..SweepLine::default() };
        if let Err(e) = self.drain(started, &mut report, nudges).await {
            report.error = Some(e.to_string());
        }
        report.duration_ms = clock::now_ms() - started;
        report
    }

    /// The delivery loop: I/O only. Every decision (claim, start, wait, stop) is
    /// [`Drain::next_step`]'s.
    async fn drain(&self, started: i64, report: &mut SweepLine, nudges: Nudges) -> worker::Result<()> {
        let c = self.config;
        if self.prune {
            store::prune(self.sql, started, c.receipt_retention_ms, c.done_retention_ms, PRUNE_BATCH)?;
        }
        self.pacer.borrow_mut().forget_idle(started);
        let token = clock::claim_token();
        let mut drain = Drain::new(started, c.sweep_budget_ms, c.delivery_concurrency, c.batch_size as usize);
        let mut queued: VecDeque<(ClaimedRow, Rc<Credential>)> = VecDeque::new();
        let mut in_flight = FuturesUnordered::new();
        let Nudges { signals: mut woken, outstanding } = nudges;
        loop {
            let now = clock::now_ms();
            match drain.next_step(now, outstanding.get()) {
                Step::Stop => break,
                Step::Claim => {
                    outstanding.set(false); // this claim takes what was queued until now
                    let batch = store::claim(self.sql, &token, now + c.lease_ms, now, c.batch_size)?;
                    drain.claimed(batch.len());
                    if !batch.is_empty() {
                        report.claimed += batch.len() as u32;
                        let credential = credential::resolve_cached(self.credentials, self.sql, c, now).await?;
                        queued.extend(batch.into_iter().map(|row| (row, credential.clone())));
                    }
                }
                Step::Start => {
                    let (row, credential) = queued.pop_front().expect("the schedule starts only claimed rows");
                    drain.started(row.id, now);
                    in_flight.push(self.attempt(row, credential, &token, now));
                }
                Step::Wait { until } => match next_event(&mut in_flight, &mut woken, until.map(|at| at - now)).await {
                    // `outstanding` already says rows are waiting; the signal only woke the loop.
                    Event::Signal(Some(())) | Event::Stalled => {}
                    Event::Signal(None) => woken = None, // the actor let go of the sender
                    Event::Finished(None) => break,
                    Event::Finished(Some(first)) => {
                        // Attempts that finished together are stored together: one unit, one commit.
                        let mut chunk = vec![first];
                        while let Some(Some(finished)) = in_flight.next().now_or_never() {
                            chunk.push(finished);
                        }
                        for finished in &chunk {
                            drain.finished(finished.row.id, finished.makes_rows_due());
                            if let Transition::Wait { at, cause: WaitCause::Paced } = finished.transition {
                                report.paced_until = report.paced_until.max(Some(at));
                            }
                        }
                        for outcome in self.store(chunk, &token)? {
                            report.count(outcome);
                        }
                    }
                },
            }
        }
        Ok(())
    }

    /// Performs one claimed row (or expires it), started at `started`, and decides its
    /// transition; stores nothing.
    async fn attempt(&self, row: ClaimedRow, credential: Rc<Credential>, token: &str, started: i64) -> Finished {
        let attempted = Attempted {
            attempts: row.attempts.max(0) as u32,
            max_attempts: row.max_attempts.max(1) as u32,
            deadline_at: row.deadline_at,
        };
        let action = serde_json::from_str::<Action>(&row.payload).ok();
        let gate = Gate::new(self.pacer, &self.config.rate_limits, row.id);
        let (performed, transition) = match before_attempt(&attempted, started) {
            // Not performed: the previous attempt's error stays as `last_error`.
            Some(expired) => (Performed::verdict(Verdict::Success), expired),
            None => {
                let performed = match &action {
                    Some(action) => self.perform(action, &credential, &gate, lists::Claim { row_id: row.id, token }, started).await,
                    None => Performed::verdict(Verdict::Permanent { code: reasons::BAD_PAYLOAD.into() }),
                };
                let now = clock::now_ms();
                let transition = after_attempt(&self.config.retry, &attempted, &performed.verdict, now, clock::jitter());
                (performed, transition)
            }
        };
        let hold = self.hold(&gate, &row, &performed.verdict, &transition);
        let followups = followups(&row, action.as_ref(), &performed);
        let mut performed = performed;
        let parked = matches!(transition, Transition::Park { .. });
        let lists = performed.list.take().and_then(|pending| pending.write(&performed.verdict, parked));
        let pace_until = performed.list_sent_at.map(|sent| sent + self.config.lists_pace_ms);
        Finished { row, attempted, performed, transition, followups, lists, pace_until, hold, started }
    }

    /// A 429 holds the refused call's lane (the row's target when no paced call was made: the
    /// LLM, a `response_url`) until the row's next attempt: at once in the pacer, and in storage
    /// with the completion.
    fn hold(&self, gate: &Gate<'_>, row: &ClaimedRow, verdict: &Verdict, transition: &Transition) -> Option<(String, i64)> {
        let Verdict::RateLimited { retry_after_ms } = verdict else { return None };
        let until = match transition {
            Transition::Wait { at, .. } => *at,
            _ => clock::now_ms() + retry_after_ms.unwrap_or(self.config.retry.base_delay_ms(1)),
        };
        let lane = gate.lane().unwrap_or_else(|| row.target.clone());
        self.pacer.borrow_mut().hold(&lane, until);
        Some((lane, until))
    }

    /// Stores finished attempts in one fenced unit, then logs each; returns their outcomes.
    fn store(&self, finished: Vec<Finished>, token: &str) -> worker::Result<Vec<Outcome>> {
        let now = clock::now_ms();
        let completing = finished.iter().map(|f| f.completing(token, self.config, now)).collect();
        let completed = store::complete(self.storage, self.sql, completing)?;
        Ok(finished.iter().zip(completed).map(|(f, done)| self.log_attempt(f, done, now)).collect())
    }

    /// The `reconcile` line of a pass that a completion finished.
    fn log_reconcile(&self, run: RunView, now: i64) {
        log::emit(ReconcileLine::of(self.team.clone(), run, now));
    }

    /// The `delivery` line of one stored attempt, and a `target_failing` alert on a long streak.
    fn log_attempt(&self, f: &Finished, done: Completed, now: i64) -> Outcome {
        if let Some(run) = done.reconciled {
            self.log_reconcile(run, now);
        }
        let outcome = if done.completion == Completion::Fenced { Outcome::Fenced } else { Outcome::of(&f.transition) };
        let error = f.performed.verdict.code().map(str::to_string);
        if self.config.log_deliveries.prints(outcome) {
            log::emit(f.line(self.team.clone(), outcome, error.clone(), now));
        }
        let failures = done.target_failures;
        if streak_alerts(failures, self.config.alert_failure_streak) {
            log::emit(AlertLine { alert: Alert::TargetFailing, team: self.team.clone(), target: f.row.target.clone(), target_failures: failures, error });
        }
        outcome
    }

    async fn perform(&self, action: &Action, credential: &Credential, gate: &Gate<'_>, claim: lists::Claim<'_>, started: i64) -> Performed {
        let c = self.config;
        match action {
            Action::SlackApi { method, args } => {
                let token = match bearer(credential) {
                    Ok(token) => token,
                    Err(refused) => return refused,
                };
                Performed::call(http::call_slack(c, gate, token, method, args).await)
            }
            Action::Notify { args } => {
                let token = match bearer(credential) {
                    Ok(token) => token,
                    Err(refused) => return refused,
                };
                let call = http::call_slack(c, gate, token, "chat.postMessage", args).await;
                let posted = (call.verdict == Verdict::Success)
                    .then(|| Some(PostWrite::Message { channel: call.json["channel"].as_str()?.into(), ts: call.json["ts"].as_str()?.into() }))
                    .flatten();
                Performed { post: posted, ..Performed::call(call) }
            }
            Action::Status { name } => {
                let token = match bearer(credential) {
                    Ok(token) => token,
                    Err(refused) => return refused,
                };
                let done = status::perform(self.sql, c, gate, token, name).await;
                Performed { http_status: done.http_status, post: done.post, ..Performed::verdict(done.verdict) }
            }
            Action::RespondUrl { url, body } => {
                let answer = http::post_json(url, None, body, c.attempt_timeout_ms).await;
                judge(answer, |a| classify::classify_http(a.status, a.retry_after.as_deref()).unwrap_or(Verdict::Success))
            }
            Action::LlmReply { prompt, .. } => self.complete_chat(prompt).await,
            Action::Lists { list_id, job } => {
                let done = lists::perform(self.sql, c, credential, gate, claim, list_id, job, started).await;
                Performed { http_status: done.http_status, list: Some(done.pending), list_sent_at: done.sent_at, ..Performed::verdict(done.verdict) }
            }
        }
    }

    async fn complete_chat(&self, prompt: &str) -> Performed {
        let Some(llm) = self.config.llm.as_ref() else {
            return Performed::verdict(Verdict::Permanent { code: reasons::NOT_CONFIGURED.into() });
        };
        let body = json!({
            "model": llm.model,
            "messages": [
                {"role": "system", "content": "You are a helpful Slack assistant. Answer briefly."},
                {"role": "user", "content": prompt}
            ]
        });
        let answer = http::post_json(&llm.url, llm.api_key.as_ref().map(|k| k.expose()), &body, self.config.attempt_timeout_ms).await;
        let content = |a: &http::Answer| a.json.pointer("/choices/0/message/content").and_then(Value::as_str).map(str::to_string);
        let text = answer.as_ref().ok().and_then(content);
        let mut performed = judge(answer, |a| match classify::classify_http(a.status, a.retry_after.as_deref()) {
            Some(v) => v,
            None if text.is_some() => Verdict::Success,
            None => Verdict::transient("bad_response"),
        });
        if performed.verdict == Verdict::Success {
            performed.answer = text;
        }
        performed
    }
}

/// The rows an attempt's answer produces: an LLM completion's post, in the completion's unit.
fn followups(row: &ClaimedRow, action: Option<&Action>, performed: &Performed) -> Vec<NewRow> {
    let (Some(answer), Some(Action::LlmReply { then, .. })) = (&performed.answer, action) else {
        return Vec::new();
    };
    let effect = then.effect(&row.idem_key, answer, None);
    vec![NewRow { effect, deadline_at: row.deadline_at }]
}

/// The bot token, or the attempt every Slack call makes when the team has none usable.
fn bearer(credential: &Credential) -> Result<&str, Performed> {
    match credential {
        Credential::Token(token) => Ok(token),
        Credential::Unusable(verdict) => Err(Performed::verdict(verdict.clone())),
    }
}

fn judge(answer: Result<http::Answer, Failure>, classify: impl Fn(&http::Answer) -> Verdict) -> Performed {
    match answer {
        Ok(a) => Performed { http_status: Some(a.status as i64), ..Performed::verdict(classify(&a)) },
        Err(Failure::Timeout) => Performed::verdict(classify::timed_out()),
        Err(Failure::Network(detail)) => {
            http::log_network(&detail);
            Performed::verdict(classify::network_error())
        }
    }
}
