//! `slackline-sim`: a Slack simulator (see `docs/simulator.md` and the `slackline_sim` crate).

fn main() {
    std::process::exit(slackline_sim::main(std::env::args().skip(1).collect()));
}
