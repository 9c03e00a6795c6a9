//! The only code that reads the Worker's `Env` for settings: it hands a lookup to the pure
//! [`Config::from_lookup`]. The result is built once per isolate and shared (the Worker and its
//! Durable Objects run in the same isolate, and an isolate's bindings never change).

use crate::config::{Config, ConfigError};
use std::cell::RefCell;
use std::rc::Rc;
use worker::Env;

thread_local! {
    static CACHED: RefCell<Option<Result<Rc<Config>, ConfigError>>> = const { RefCell::new(None) };
}

/// The typed configuration of this isolate, built from `Env` on first use.
pub fn config(env: &Env) -> Result<Rc<Config>, ConfigError> {
    CACHED.with(|cell| {
        cell.borrow_mut()
            .get_or_insert_with(|| {
                Config::from_lookup(|name| env.var(name).map(|v| v.to_string()).or_else(|_| env.secret(name).map(|s| s.to_string())).ok()).map(Rc::new)
            })
            .clone()
    })
}
