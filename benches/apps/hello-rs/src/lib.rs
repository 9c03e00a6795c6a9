//! The start-up benchmark's Rust floor (`BENCH_ONLY=startup make bench`): the smallest Worker
//! workers-rs makes, answering "hello" to every request. It is built exactly as the bots are
//! (`scripts/worker-build.sh`: the same profile, panic=unwind, stripped names, the same `worker`),
//! so what a slackline bot's start-up costs beyond it is what slackline adds, not what Rust on
//! Workers costs anyway.

use worker::{event, Context, Env, Request, Response, Result};

/// Every request: "hello".
#[event(fetch)]
async fn fetch(_req: Request, _env: Env, _ctx: Context) -> Result<Response> {
    Response::ok("hello")
}
