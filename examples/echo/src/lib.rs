//! slackline's shipped bot, as its own crate: a threaded reply to every mention and DM (from an
//! LLM when `LLM_API_URL` is set), every slash command answered through its `response_url`, and a
//! "Mark resolved" button that updates the reply. `make dev`, `make try` and the end-to-end tests
//! serve it. The app itself is slackline's [`DefaultApp`](slackline::prelude::DefaultApp); this
//! crate only makes it a Worker.

slackline::worker!(|| slackline::prelude::DefaultApp);
