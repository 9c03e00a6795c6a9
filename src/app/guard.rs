//! A handler that panics fails its own request, not the Worker.
//!
//! A handler is the app's code, run inside the team actor's atomic unit. Without a guard a panic
//! there aborts the whole Wasm instance: the request gets the runtime's 500 with nothing
//! recorded (after Slack's last retry the event is gone), and every other request and alarm in
//! flight in that isolate dies with it (a delivery's completion never commits, an alarm never
//! settles). [`guarded`] runs a handler under `catch_unwind` and turns its panic into the
//! handler's error, so the caller records the event as `handler_failed` like any other failure.
//!
//! Catching needs unwinding: the Worker is built with `-Cpanic=unwind` and a standard library
//! rebuilt for it (the Makefile's `worker` target, `docs/app.md`). A build without it still
//! compiles this code, but a panic then aborts the instance as before.
//!
//! Invariant: the panic hook stays quiet only for panics inside [`guarded`] on the same thread;
//! every other panic reaches the hook that was installed before (the runtime's, which logs it and
//! marks the instance for a restart).

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe, PanicHookInfo};
use std::sync::Once;

thread_local! {
    static GUARDING: Cell<bool> = const { Cell::new(false) };
    static CAUGHT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `f`; a panic inside it comes back as `Err` with its message and location.
pub fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install_hook();
    let outer = GUARDING.with(|g| g.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    GUARDING.with(|g| g.set(outer));
    result.map_err(|payload| CAUGHT.with(|c| c.borrow_mut().take()).unwrap_or_else(|| format!("panicked: {}", message(&*payload))))
}

/// Installs, once, the hook that records a guarded panic instead of reporting it.
fn install_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if GUARDING.with(|g| g.get()) {
                CAUGHT.with(|c| *c.borrow_mut() = Some(describe(info)));
            } else {
                previous(info);
            }
        }));
    });
}

/// `panicked: <message> at <file>:<line>:<column>`.
fn describe(info: &PanicHookInfo<'_>) -> String {
    let text = message(info.payload());
    match info.location() {
        Some(at) => format!("panicked: {text} at {}:{}:{}", at.file(), at.line(), at.column()),
        None => format!("panicked: {text}"),
    }
}

/// A panic's message: `panic!("…")` carries a `&str` or a `String`.
fn message(payload: &dyn Any) -> &str {
    payload.downcast_ref::<&str>().copied().or_else(|| payload.downcast_ref::<String>().map(String::as_str)).unwrap_or("a panic without a message")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_comes_back_as_it_was() {
        assert_eq!(guarded(|| 42), Ok(42));
    }

    #[test]
    fn a_panic_comes_back_with_its_message_and_where_it_happened() {
        let why = guarded(|| -> u8 { panic!("marker {}", 7) }).unwrap_err();
        assert!(why.starts_with("panicked: marker 7 at src/app/guard.rs:"), "{why}");
    }

    #[test]
    fn a_static_message_and_an_unwrap_are_caught_alike() {
        assert!(guarded(|| -> u8 { panic!("plain") }).unwrap_err().starts_with("panicked: plain at "));
        let empty: Vec<u8> = Vec::new();
        assert!(guarded(|| empty.first().copied().unwrap()).unwrap_err().contains("called `Option::unwrap()` on a `None` value"));
    }

    #[test]
    fn a_nested_guard_leaves_the_outer_one_guarding() {
        let outer = guarded(|| {
            let inner = guarded(|| -> u8 { panic!("inner") });
            assert!(inner.is_err());
            panic!("outer")
        });
        assert!(outer.unwrap_err().starts_with("panicked: outer at "));
    }
}
