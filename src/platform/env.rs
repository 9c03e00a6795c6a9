//! The only code that reads the Worker's `Env` for settings: [`vars`] is the deployment's settings
//! by name (a var of `wrangler.toml` or `.dev.vars`, else a secret), which the pure
//! [`Config::from_vars`] and the bot's app constructor read. The config is built once per isolate
//! and shared (the Worker and its Durable Objects run in the same isolate, and an isolate's
//! bindings never change).

use crate::config::{Config, ConfigError, Vars};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use worker::Env;

thread_local! {
    static CACHED: RefCell<Option<Result<Rc<Config>, ConfigError>>> = const { RefCell::new(None) };
    static MANIFEST: Cell<Option<&'static str>> = const { Cell::new(None) };
}

/// The bot's Slack app manifest, compiled in (`worker!(app, manifest = "manifest.json")`):
/// declared by the macro's entry points before anything reads the settings.
pub fn declare_manifest(manifest: Option<&'static str>) {
    MANIFEST.with(|m| m.set(manifest));
}

/// The deployment's settings: a var, else a secret, by name (and the bot's manifest, if declared).
pub fn vars(env: &Env) -> Vars<'static> {
    let env = env.clone();
    Vars::new(move |name| env.var(name).map(|v| v.to_string()).or_else(|_| env.secret(name).map(|s| s.to_string())).ok())
        .with_manifest(MANIFEST.with(Cell::get))
}

/// The typed configuration of this isolate, built from `Env` on first use.
pub fn config(env: &Env) -> Result<Rc<Config>, ConfigError> {
    CACHED.with(|cell| cell.borrow_mut().get_or_insert_with(|| Config::from_vars(&vars(env)).map(Rc::new)).clone())
}
