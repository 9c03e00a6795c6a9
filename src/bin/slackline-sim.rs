//! `slackline-sim`: a Slack simulator (see `docs/simulator.md` and `slackline::sim`). Native
//! only: on wasm32 there is nothing to run.

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(slackline::sim::main(std::env::args().skip(1).collect()));
}

#[cfg(target_arch = "wasm32")]
fn main() {}
