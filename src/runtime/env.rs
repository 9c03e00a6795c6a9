//! The only code that reads the Worker's `Env` for settings: it hands a lookup to the pure
//! [`Config::from_lookup`].

use crate::config::{Config, ConfigError};
use worker::Env;

/// Builds the typed configuration from `Env` (vars and secrets alike).
pub fn config(env: &Env) -> Result<Config, ConfigError> {
    Config::from_lookup(|name| {
        env.var(name)
            .map(|v| v.to_string())
            .or_else(|_| env.secret(name).map(|s| s.to_string()))
            .ok()
    })
}
