//! `slackline-sim`: a Slack simulator (see `docs/simulator.md` and the `slackline_sim` crate).
//! Native only: on wasm32 there is nothing to run.

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(slackline_sim::main(std::env::args().skip(1).collect()));
}

#[cfg(target_arch = "wasm32")]
fn main() {}
