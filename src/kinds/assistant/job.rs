//! A streamed answer's job (`Action::StreamAnswer`): asks the model with `stream: true` and
//! writes its text — and the tools it reports calling, as tasks — into the thread as it comes, driving the pure state machine
//! (`super::stream::Answer`): this file only performs the calls it asks for.
//!
//! Before every Slack call the checkpoint is written in a unit that also checks the row's claim
//! and, once less than three quarters of a lease is left, extends it (`store::save`; between
//! calls `store::keep`): a sweep that lost the row makes no further call, and a stream longer
//! than the lease keeps its row. The attempt's first step resumes from the checkpoint a dead
//! attempt left (closing what it left open, then continuing). The model is asked at the first
//! read, once that is settled: to continue after the delivered text when there is one (the
//! partial answer is sent as the assistant's message).
//!
//! A Stop the user pressed (`agent_session_stopped`, recorded by the ingest unit before its ack,
//! `store::record_stop`) is read from the table at the attempt's first step, before every Slack
//! call, and as soon as this instance records any Stop (not at every event of the model's stream,
//! which cost a `SELECT` per event): every wait of the answer — for the model's answer to begin,
//! its next bytes, a backoff or a pacing hold — is raced against [`StopPoll`], which looks at the
//! isolate's count of Stops every [`STOP_POLL_MS`], so a Stop ends the model's request within
//! moments whatever the answer waits on. From then on no call starts but those that close the
//! answer (`Answer::stop`), the model's request is aborted, and the row ends done. So a stop is honoured whatever state the row was in: not started (it never
//! starts), waiting for the model, streaming, between attempts, or after a crash (the next
//! attempt reads it first).

use super::calls::{self, Target};
use super::sse::{SseDecoder, SseEvent};
use super::store::{self as answers, Claim};
use super::stream::{Answer, Call, End, Policy, Reply, Step};
use crate::config::LlmConfig;
use crate::kinds::completion::{lease_wants_extending, AfterWrite, JobOutcome};
use crate::kinds::job::Job;
use crate::outbox::reasons;
use crate::platform::clock;
use crate::platform::http::{self, BodyStream, Failure, Piece};
use crate::slack::classify::Verdict;
use futures::future::{select, Either};
use serde_json::json;

/// How often a waiting answer looks whether this isolate recorded a Stop.
const STOP_POLL_MS: u64 = 250;

/// A model that sends nothing for this long is taken as hung: the answer so far is closed and
/// the row retried.
const MODEL_IDLE_MS: i64 = 30_000;

/// The model's stream, as the job reads it.
struct Model {
    body: BodyStream,
    decoder: SseDecoder,
    pending: std::collections::VecDeque<SseEvent>,
    last_seen: i64,
}

/// Streams the answer.
pub async fn answer(job: &Job<'_>, to: &Target<'_>) -> JobOutcome {
    let token = match job.bearer() {
        Ok(token) => token,
        Err(refused) => return refused,
    };
    let Some(llm) = job.config.llm.as_ref() else {
        return JobOutcome::verdict(Verdict::Permanent { code: reasons::NOT_CONFIGURED.into() });
    };
    let row_id = job.row.id.0;
    let policy = Policy { rollover_ms: job.config.stream_rollover_ms, ..Policy::default() };
    let mut answer = match answers::load(job.sql, row_id, &job.row.idem_key) {
        Ok(Some(checkpoint)) => Answer::resume(checkpoint, policy),
        Ok(None) => Answer::new(policy),
        Err(e) => return JobOutcome::storage(e),
    };
    let mut model: Option<Model> = None;
    let mut stops = StopWatch::default();
    // Until when this attempt holds its row, as it last wrote or read it (0: not yet known).
    let mut held_until = 0;
    let lease = answers::Lease { ms: job.config.lease_ms, call_ms: job.config.attempt_timeout_ms };
    loop {
        let now = clock::now_ms();
        if stops.stopped(job, to, &answer, Before::Step) {
            answer.stop();
            // Dropping the model's stream aborts its request: nothing more is read.
            model = None;
        }
        let step = answer.next(now);
        // A wait or a read of the model keeps the lease too (a call's fence does it for calls):
        // not to fit the step, which sends nothing to Slack (a claim that ran out under it is
        // caught by the next call's fence), but so that a long gap between calls does not give
        // the row away needlessly.
        if matches!(step, Step::Wait(_) | Step::Read(_)) && lease_wants_extending(held_until, now, lease.ms, 0) {
            match answers::keep(job.sql, row_id, job.claim_token, lease.ms, now) {
                Ok(Claim::Held { until }) => held_until = until,
                Ok(Claim::Lost) => return lease_lost(),
                Err(e) => return JobOutcome::storage(e),
            }
        }
        match step {
            Step::Finished(end) => return ended(end),
            // A Stop recorded meanwhile ends the wait: the next step reads the Stops.
            Step::Wait(until) => {
                let wait = worker::Delay::from(std::time::Duration::from_millis((until - now).max(1) as u64));
                select(wait, stops.poll()).await;
            }
            Step::Call(call) => {
                if stops.stopped(job, to, &answer, Before::Call) {
                    answer.stop();
                    model = None;
                    continue;
                }
                match answers::save(job.storage, job.sql, (row_id, &job.row.idem_key), job.claim_token, answer.checkpoint(), lease, now) {
                    Ok(Claim::Held { until }) => held_until = until,
                    // Another sweep has the row: this attempt makes no call more.
                    Ok(Claim::Lost) => return lease_lost(),
                    Err(e) => return JobOutcome::storage(e),
                }
                let reply = perform(job, token, to, &call).await;
                answer.replied(reply, clock::now_ms());
            }
            Step::Read(until) => {
                if model.is_none() {
                    match ask_unless_stopped(job, llm, to, &answer, &mut stops).await {
                        Asked::Opened(m) => model = Some(m),
                        Asked::Failed(why) => {
                            answer.model_failed(&why);
                            continue;
                        }
                        Asked::Stopped => {
                            answer.stop();
                            continue;
                        }
                    }
                }
                let m = model.as_mut().expect("opened above");
                read(m, &mut answer, until, clock::now_ms(), stops.poll()).await;
            }
        }
    }
}

/// Another sweep has the row: this attempt ends, retried like any transient failure (the sweep
/// that has it carries on from the checkpoint).
fn lease_lost() -> JobOutcome {
    JobOutcome::verdict(Verdict::transient("lease_lost"))
}

/// What the answer is about to do when it asks whether it was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Before {
    /// Any step: the table is read only if this instance recorded a Stop since the last read.
    Step,
    /// A Slack call: the table is always read, so no call starts after a Stop is recorded.
    Call,
}

/// When an answer reads the Stops table: at its first step, before every Slack call, and after
/// this instance records a Stop (`store::stops_recorded` moved).
#[derive(Default)]
struct StopWatch {
    /// `store::stops_recorded` at the last read; `None` before the first.
    seen: Option<u64>,
    /// The waits' poll, kept from wait to wait while no Stop is recorded: one timer every
    /// [`STOP_POLL_MS`] however many reads of the model's stream it covers.
    poll: Option<StopPoll>,
}

impl StopWatch {
    /// Resolves once this isolate records a Stop after the last read of the table (at once if it
    /// has): the answer's waits race it, then the next step reads the table.
    fn poll(&mut self) -> &mut StopPoll {
        let seen = self.seen.unwrap_or_else(answers::stops_recorded);
        if self.poll.as_ref().is_none_or(|p| p.seen != seen) {
            self.poll = Some(StopPoll { seen, timer: poll_timer() });
        }
        self.poll.as_mut().expect("set above")
    }

    /// Whether the user pressed Stop on this answer (`agent_session_stopped`, recorded by the
    /// ingest before its ack). A stopped answer is not asked again; one already in flight
    /// finishes. A read that fails is taken as no stop: the next call reads again.
    fn stopped(&mut self, job: &Job<'_>, to: &Target<'_>, answer: &Answer, before: Before) -> bool {
        let recorded = answers::stops_recorded();
        let unread = self.seen != Some(recorded);
        // Seen even when not read (an answer stopped already): its waits' poll then resolves only
        // at the next Stop, never at once again and again.
        self.seen = Some(recorded);
        let read = !answer.stopped_by_user() && (before == Before::Call || unread);
        if !read {
            return false;
        }
        answers::stopped(job.sql, to.channel, to.thread_ts, job.row.id.0).unwrap_or(false)
    }
}

/// The session status the answer's last `stopStream` sets: a status the app stated for the
/// thread after this answer was queued (`session::stop_status`), else Slack's default (`active`).
/// A read that fails leaves the default: the session row that stated it sends it again.
fn session_status_at_stop(job: &Job<'_>, to: &Target<'_>) -> Option<super::session::SessionStatus> {
    let newest = answers::newest(job.sql, to.channel, to.thread_ts).ok().flatten();
    super::session::stop_status(job.row.id.0, newest.as_ref())
}

/// How an answer's end is stored.
fn ended(end: End) -> JobOutcome {
    match end {
        End::Done | End::StoppedByUser => JobOutcome::verdict(Verdict::Success).with(AfterWrite::ForgetAnswer),
        End::Refused(code) => JobOutcome::verdict(Verdict::Permanent { code }),
        End::Retry(why) => JobOutcome::verdict(Verdict::transient(why)),
    }
}

/// How asking the model ended.
enum Asked {
    /// Its answer streams.
    Opened(Model),
    /// It could not be asked (the answer fails as a model failure).
    Failed(String),
    /// The user stopped this answer while the model had not begun answering: the request was
    /// dropped, which aborts it.
    Stopped,
}

/// Asks the model, racing its answer's head against the Stops' poll: a Stop of another thread
/// leaves the request alone (the table is read, the wait goes on); this answer's own aborts it.
async fn ask_unless_stopped(job: &Job<'_>, llm: &LlmConfig, to: &Target<'_>, answer: &Answer, stops: &mut StopWatch) -> Asked {
    let mut asking = Box::pin(ask(job, llm, to.prompt, answer.continues_from()));
    loop {
        match select(asking, stops.poll()).await {
            Either::Left((Ok(model), _)) => return Asked::Opened(model),
            Either::Left((Err(why), _)) => return Asked::Failed(why),
            Either::Right(((), still_asking)) => {
                if stops.stopped(job, to, answer, Before::Step) {
                    // Dropping the request aborts it (`http::post_streaming`).
                    return Asked::Stopped;
                }
                asking = still_asking;
            }
        }
    }
}

/// Opens the model's stream: the prompt, and the partial answer to continue after.
async fn ask(job: &Job<'_>, llm: &LlmConfig, prompt: &str, continues: Option<&str>) -> Result<Model, String> {
    let mut messages =
        vec![json!({"role": "system", "content": "You are a helpful Slack assistant. Answer in Slack markdown."}), json!({"role": "user", "content": prompt})];
    if let Some(partial) = continues {
        messages.push(json!({"role": "assistant", "content": partial}));
    }
    let body = json!({ "model": llm.model, "stream": true, "messages": messages });
    match http::post_streaming(&llm.url, llm.api_key.as_ref().map(|k| k.expose()), &body, job.config.attempt_timeout_ms).await {
        Ok(Ok(body)) => Ok(Model { body, decoder: SseDecoder::default(), pending: Default::default(), last_seen: clock::now_ms() }),
        Ok(Err(refused)) => Err(format!("llm http {}", refused.status)),
        Err(Failure::Timeout) => Err("llm_timeout".into()),
        Err(Failure::Network(detail)) => {
            http::log_network(&detail);
            Err("llm_network".into())
        }
    }
}

/// Feeds the model's next event to the answer, waiting at most until `until` (a flush due), or
/// until `stop` resolves (a Stop was recorded: the next step reads the Stops).
async fn read(m: &mut Model, answer: &mut Answer, until: Option<i64>, now: i64, stop: &mut StopPoll) {
    if let Some(event) = m.pending.pop_front() {
        match event {
            SseEvent::Delta(text) => answer.text(&text, now),
            SseEvent::ToolCall { id, name } => answer.tool_call(id.as_deref(), &name),
            SseEvent::Done => answer.model_done(),
            SseEvent::Error(code) => answer.model_failed(&code),
        }
        return;
    }
    let idle_at = m.last_seen + MODEL_IDLE_MS;
    let deadline = until.unwrap_or(idle_at).min(idle_at);
    let next = std::pin::pin!(m.body.next(deadline, now));
    let piece = match select(next, stop).await {
        Either::Left((piece, _)) => piece,
        Either::Right(_) => return,
    };
    match piece {
        Piece::Bytes(bytes) => {
            m.last_seen = clock::now_ms();
            m.pending.extend(m.decoder.push(&bytes));
        }
        Piece::End => {
            let tail = m.decoder.finish();
            match (tail.is_empty(), m.decoder.ended()) {
                (false, _) => m.pending.extend(tail),
                (true, true) => answer.model_done(),
                (true, false) => answer.model_failed("llm_stream_cut"),
            }
        }
        Piece::Broken(_) => answer.model_failed("llm_stream_broke"),
        Piece::Idle if clock::now_ms() >= idle_at => answer.model_failed("llm_hung"),
        Piece::Idle => {}
    }
}

/// Makes one Slack call of the answer and says how it went.
async fn perform(job: &Job<'_>, token: &str, to: &Target<'_>, call: &Call) -> Reply {
    let (method, mut args) = calls::request(to, call);
    if matches!(call, Call::Stop { last: true, .. }) {
        if let Some(status) = session_status_at_stop(job, to) {
            args["session_status"] = json!(status.as_str());
        }
    }
    let answer = job.call_slack(token, method, &args).await;
    calls::reply(to, call, &answer.verdict, &answer.json)
}

/// Resolves once this isolate has recorded a Stop since the count `seen`
/// (`store::stops_recorded`), looked at every [`STOP_POLL_MS`] by a timer of the answer's own —
/// the ingest that records the Stop may be another actor's, whose request cannot wake this one.
struct StopPoll {
    seen: u64,
    timer: worker::Delay,
}

fn poll_timer() -> worker::Delay {
    worker::Delay::from(std::time::Duration::from_millis(STOP_POLL_MS))
}

impl std::future::Future for StopPoll {
    type Output = ();

    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        loop {
            if answers::stops_recorded() != self.seen {
                return std::task::Poll::Ready(());
            }
            match std::pin::Pin::new(&mut self.timer).poll(cx) {
                std::task::Poll::Pending => return std::task::Poll::Pending,
                std::task::Poll::Ready(()) => self.timer = poll_timer(),
            }
        }
    }
}
