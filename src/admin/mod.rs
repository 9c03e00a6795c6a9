//! The admin surface's pure half (the adapters are `runtime::admin`, which authenticates and
//! forwards, and `runtime::team`, which answers from the team's SQLite):
//! - [`page`]: the admin page's session cookie and HTML.

pub mod page;
