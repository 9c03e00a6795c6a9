//! How a bot's app is built: [`MakeApp`], what `slackline::worker!` takes.
//!
//! A handler is pure (no I/O while Slack waits), so an app cannot look a setting up while it
//! handles a request. It reads the settings of its own (`TRIAGE_CHANNEL`, say: a var of
//! `wrangler.toml`, `.dev.vars` or `wrangler secret`) once, when it is built, and its handlers
//! capture the values. The team actor builds the app when it starts, from the deployment's
//! [`Vars`]; an isolate's settings never change while it lives (a deploy or a new secret starts
//! new ones), so nothing is read twice and nothing goes stale.
//!
//! The constructor is either `fn() -> impl App` (the apps that need no setting: every existing
//! `worker!(app)` call) or `fn(&Vars) -> impl App`. The marker type parameter tells the two apart,
//! so one macro takes both; a closure taking the vars names its argument's type
//! (`|vars: &Vars| …`).

use super::App;
use crate::config::Vars;
use std::rc::Rc;

/// Something that builds an app, with or without the deployment's settings. `Marker` is
/// `fn() -> A` or `fn(&Vars) -> A`, inferred: callers never name it.
pub trait MakeApp<Marker> {
    /// The app, under these settings.
    fn make_app(&self, vars: &Vars) -> Rc<dyn App>;
}

impl<F, A> MakeApp<fn() -> A> for F
where
    F: Fn() -> A,
    A: App + 'static,
{
    fn make_app(&self, _: &Vars) -> Rc<dyn App> {
        Rc::new(self())
    }
}

impl<F, A> MakeApp<fn(&Vars) -> A> for F
where
    F: Fn(&Vars) -> A,
    A: App + 'static,
{
    fn make_app(&self, vars: &Vars) -> Rc<dyn App> {
        Rc::new(self(vars))
    }
}

/// Builds the app `maker` makes under `vars` (what `worker!` calls in the team actor).
pub fn make_app<M>(maker: &impl MakeApp<M>, vars: &Vars) -> Rc<dyn App> {
    maker.make_app(vars)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::listen::Listeners;
    use crate::testing::{command, handle};

    fn without_settings() -> Listeners {
        Listeners::new().command("/where", |_, cx| {
            cx.ack_ephemeral("nowhere");
            Ok(())
        })
    }

    fn with_settings(vars: &Vars) -> Listeners {
        let channel = vars.get("TRIAGE_CHANNEL").unwrap_or_else(|| "unset".into());
        Listeners::new().command("/where", move |_, cx| {
            cx.ack_ephemeral(&channel);
            Ok(())
        })
    }

    fn ack_text(app: Rc<dyn App>) -> String {
        let done = handle(app.as_ref(), &command("/where", ""));
        done.ack.and_then(|a| a["text"].as_str().map(str::to_string)).unwrap_or_default()
    }

    #[test]
    fn an_app_that_needs_no_setting_is_built_as_before() {
        assert_eq!(ack_text(make_app(&without_settings, &Vars::of(&[("TRIAGE_CHANNEL", "C9")]))), "nowhere");
        assert_eq!(ack_text(make_app(&|| without_settings(), &Vars::of(&[]))), "nowhere", "a closure without arguments");
    }

    #[test]
    fn an_app_built_from_the_vars_sees_its_setting_in_its_handlers() {
        assert_eq!(ack_text(make_app(&with_settings, &Vars::of(&[("TRIAGE_CHANNEL", "C9")]))), "C9");
        assert_eq!(ack_text(make_app(&|v: &Vars| with_settings(v), &Vars::of(&[("TRIAGE_CHANNEL", "C7")]))), "C7", "a closure naming its argument's type");
    }

    #[test]
    fn a_blank_or_missing_setting_reads_as_none_and_values_are_trimmed() {
        let vars = Vars::of(&[("A", "  C1 "), ("B", "   ")]);
        assert_eq!((vars.get("A").as_deref(), vars.get("B"), vars.get("C")), (Some("C1"), None, None));
        assert_eq!(ack_text(make_app(&with_settings, &Vars::of(&[("TRIAGE_CHANNEL", " ")]))), "unset");
    }
}
