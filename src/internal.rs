//! Not slackline's API: the backend beneath the [prelude](crate::prelude), the
//! [test kit](crate::testing) and [`worker!`](crate::worker), reachable only so that slackline's
//! own tests, benchmarks and simulator (and the macro's expansion) can name it.
//!
//! **Unstable.** Anything here may change or go in any release, without a note in
//! `CHANGELOG.md`. A bot that names `slackline::internal` is on its own; what a bot needs belongs
//! in the prelude or the test kit (`tests/layout.rs` keeps the examples and the template to them).
//!
//! Each module here re-exports the crate's private module of the same name, whole.

macro_rules! expose {
    ($($(#[$attr:meta])* $name:ident),* $(,)?) => {
        $(
            $(#[$attr])*
            #[allow(missing_docs)]
            pub mod $name {
                pub use crate::$name::*;
            }
        )*
    };
}

expose!(
    admin,
    admission,
    app,
    config,
    crypto,
    ingest,
    kinds,
    lockout,
    logs,
    meter,
    oauth,
    outbox,
    routes,
    slack,
    sql,
    state,
    url_parts,
    wire,
    #[cfg(target_arch = "wasm32")]
    runtime,
    #[cfg(target_arch = "wasm32")]
    platform,
);
