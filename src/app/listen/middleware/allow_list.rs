//! The ready-made middleware: the installations and channels an app answers (Bolt's custom
//! `authorize`, as an allow-list), from the deployment's vars or from code ([`AllowList`] says
//! what it checks and how its vars are read).
//!
//! Invariant: it fails closed. A request it cannot place is ignored, never answered, and a var it
//! cannot read fails every request (kept for a redrive), never lets one through.

use super::{MiddlewareResult, Next};
use crate::app::listen::cx::Cx;
use crate::app::listen::HandlerError;
use crate::config::{ConfigError, Vars};
use crate::slack::envelope::Dispatch;
use std::collections::BTreeSet;

/// The var listing the installations the app answers (team or enterprise ids).
pub const ALLOWED_TEAMS: &str = "ALLOWED_TEAMS";
/// The var listing the channels the app answers (channel ids).
pub const ALLOWED_CHANNELS: &str = "ALLOWED_CHANNELS";
/// The reason a request from an installation not listed is ignored.
pub const NOT_ALLOWED_TEAM: &str = "not_allowed:team";
/// The reason a request about a channel not listed is ignored.
pub const NOT_ALLOWED_CHANNEL: &str = "not_allowed:channel";

/// The installations and channels an app answers. A request from another installation, or about
/// another channel, is recorded and ignored with the reason [`NOT_ALLOWED_TEAM`] or
/// [`NOT_ALLOWED_CHANNEL`].
///
/// ```
/// use slackline::prelude::*;
///
/// fn app(vars: &Vars) -> Listeners {
///     Listeners::new()
///         // ALLOWED_TEAMS="T0123ABCD, E0456EFGH", ALLOWED_CHANNELS="C0789IJKL"
///         .middleware(allow_list_from(vars))
///         .mention(|_, cx| { cx.reply("Hi!"); Ok(()) })
/// }
/// # let _ = app(&Vars::of(&[]));
/// // Or in code: only these two channels, of any installation.
/// let app = Listeners::new().middleware(allow_list(&[], &["C0789IJKL", "C0999MNOP"]));
/// # let _ = app;
/// ```
///
/// What it checks, and against what:
/// - **the team** is the installation's key: the team id (`T…`), or the enterprise id (`E…`) of
///   an org-wide install — the name of the team actor the request reaches;
/// - **the channel** is the one the request is about
///   ([`Origin::channel`](crate::app::listen::Origin::channel)): a message's, a command's, the
///   message an action was on, a reaction's item. A DM is a channel too (`D…`): list it, or the
///   DM is not answered. A request about no channel (a modal's submission, `app_home_opened`,
///   `team_join`) passes the channel check; the team check still applies to it;
/// - an empty list (in code) or an unset or blank var: that side is not checked.
///
/// The vars ([`ALLOWED_TEAMS`], [`ALLOWED_CHANNELS`]) are lists of ids separated by commas;
/// spaces around an id and empty items (a trailing comma) are left out. A value that names no id
/// (`" , "`), or an item that is not an id of its kind (a channel's name, `#general`, instead of
/// its id; a lower-case id), is an error naming the var and the item: **an allow-list that
/// cannot be read lets nothing through** — with [`allow_list_from`], every request fails
/// (`handler_failed`, kept for a redrive once the var is fixed) with the error as the reason.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowList {
    teams: Only,
    channels: Only,
}

/// Which ids one side of the list lets through.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
enum Only {
    /// Any: this side is not checked.
    #[default]
    Any,
    /// These ids only.
    These(BTreeSet<String>),
}

/// One side of the list, as its var spells it.
struct Side {
    var: &'static str,
    /// What an id of this side looks like, for the error.
    shape: &'static str,
    /// The letters its ids start with.
    prefixes: &'static [char],
}

const TEAMS: Side = Side { var: ALLOWED_TEAMS, shape: "a team id (T…, or E… for an org-wide install)", prefixes: &['T', 'E'] };
const CHANNELS: Side = Side { var: ALLOWED_CHANNELS, shape: "a channel id (C…, G… or D…)", prefixes: &['C', 'G', 'D'] };

impl Side {
    /// Whether `id` looks like an id of this side: its letter, then capitals and digits.
    fn fits(&self, id: &str) -> bool {
        id.len() > 1 && id.starts_with(self.prefixes) && id.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
    }

    /// The side as `vars` set it: `Any` when its var is unset or blank.
    fn read(&self, vars: &Vars) -> Result<Only, ConfigError> {
        let Some(raw) = vars.get(self.var) else { return Ok(Only::Any) };
        let ids: Vec<&str> = raw.split(',').map(str::trim).filter(|id| !id.is_empty()).collect();
        if ids.is_empty() {
            return Err(ConfigError { var: self.var, problem: "names no id (a list of ids separated by commas)".into() });
        }
        match ids.iter().find(|id| !self.fits(id)) {
            Some(bad) => Err(ConfigError { var: self.var, problem: format!("{bad:?} is not {}", self.shape) }),
            None => Ok(Only::of(&ids)),
        }
    }
}

impl Only {
    /// `Any` for no ids, else these.
    fn of(ids: &[&str]) -> Only {
        match ids {
            [] => Only::Any,
            ids => Only::These(ids.iter().map(|id| id.to_string()).collect()),
        }
    }

    fn lets_through(&self, id: &str) -> bool {
        match self {
            Only::Any => true,
            Only::These(ids) => ids.contains(id),
        }
    }
}

impl AllowList {
    /// Only these installations and channels (an empty list: that side is not checked).
    pub fn of(teams: &[&str], channels: &[&str]) -> AllowList {
        AllowList { teams: Only::of(teams), channels: Only::of(channels) }
    }

    /// The list [`ALLOWED_TEAMS`] and [`ALLOWED_CHANNELS`] set (the format: [`AllowList`]), or
    /// the first var that is malformed.
    pub fn from_vars(vars: &Vars) -> Result<AllowList, ConfigError> {
        Ok(AllowList { teams: TEAMS.read(vars)?, channels: CHANNELS.read(vars)? })
    }

    /// A request from `team` about `channel` (none: a request about no channel): `Continue` when
    /// both are let through, else ignored with the reason of the first that is not.
    pub fn check(&self, team: &str, channel: Option<&str>) -> Next {
        if !self.teams.lets_through(team) {
            return Next::Ignore(NOT_ALLOWED_TEAM);
        }
        match channel {
            Some(channel) if !self.channels.lets_through(channel) => Next::Ignore(NOT_ALLOWED_CHANNEL),
            _ => Next::Continue,
        }
    }

    /// The check of a request, as a middleware runs it.
    fn run(&self, request: &Dispatch, cx: &Cx) -> Next {
        self.check(request.team_key(), cx.origin().channel.as_deref())
    }
}

/// A middleware letting through only these installations and channels (an empty list: that side
/// is not checked): `.middleware(allow_list(&["T0123ABCD"], &[]))`.
pub fn allow_list(teams: &[&str], channels: &[&str]) -> impl Fn(&Dispatch, &mut Cx) -> MiddlewareResult + 'static {
    let list = AllowList::of(teams, channels);
    move |request: &Dispatch, cx: &mut Cx| Ok(list.run(request, cx))
}

/// A middleware letting through only the installations and channels [`ALLOWED_TEAMS`] and
/// [`ALLOWED_CHANNELS`] list: `.middleware(allow_list_from(vars))`. A malformed var fails every
/// request with its error: an allow-list that cannot be read lets nothing through.
pub fn allow_list_from(vars: &Vars) -> impl Fn(&Dispatch, &mut Cx) -> MiddlewareResult + 'static {
    let list = AllowList::from_vars(vars);
    move |request: &Dispatch, cx: &mut Cx| match &list {
        Ok(list) => Ok(list.run(request, cx)),
        Err(e) => Err(HandlerError(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::listen::Listeners;
    use crate::testing::{command, handle, mention, view_submission};
    use serde_json::json;

    fn read(teams: &str, channels: &str) -> Result<AllowList, String> {
        AllowList::from_vars(&Vars::of(&[(ALLOWED_TEAMS, teams), (ALLOWED_CHANNELS, channels)])).map_err(|e| e.to_string())
    }

    #[test]
    fn the_vars_are_lists_of_ids_and_an_unset_or_blank_one_checks_nothing() {
        let cases: [(&str, &str, &str, Result<AllowList, String>); 6] = [
            ("unset", "", "", Ok(AllowList::of(&[], &[]))),
            ("blank", "   ", " ", Ok(AllowList::of(&[], &[]))),
            ("one of each", "T1", "C1", Ok(AllowList::of(&["T1"], &["C1"]))),
            ("spaces and empty items left out", " T1 ,, E2 , ", "C1,G2,D3,", Ok(AllowList::of(&["T1", "E2"], &["C1", "G2", "D3"]))),
            ("only commas", " , ", "", Err("ALLOWED_TEAMS: names no id (a list of ids separated by commas)".into())),
            ("a channel's name", "", "C1, #general", Err("ALLOWED_CHANNELS: \"#general\" is not a channel id (C…, G… or D…)".into())),
        ];
        for (case, teams, channels, expected) in cases {
            assert_eq!(read(teams, channels), expected, "{case}");
        }
    }

    #[test]
    fn an_id_of_the_wrong_kind_or_case_is_refused() {
        for (teams, channels) in [("C1", ""), ("t1", ""), ("T", ""), ("", "T1"), ("", "c1"), ("", "C-1")] {
            assert!(read(teams, channels).is_err(), "{teams:?} / {channels:?}");
        }
    }

    #[test]
    fn a_request_is_checked_by_its_team_then_its_channel_when_it_has_one() {
        let list = AllowList::of(&["T1"], &["C1"]);
        let cases = [
            ("listed team, listed channel", "T1", Some("C1"), Next::Continue),
            ("another team", "T2", Some("C1"), Next::Ignore(NOT_ALLOWED_TEAM)),
            ("another channel", "T1", Some("C2"), Next::Ignore(NOT_ALLOWED_CHANNEL)),
            ("both wrong: the team's reason", "T2", Some("C2"), Next::Ignore(NOT_ALLOWED_TEAM)),
            ("no channel: the team alone", "T1", None, Next::Continue),
        ];
        for (case, team, channel, expected) in cases {
            assert_eq!(list.check(team, channel), expected, "{case}");
        }
        assert_eq!(AllowList::of(&[], &[]).check("T9", Some("C9")), Next::Continue, "nothing listed: nothing checked");
    }

    fn answering(vars: &[(&str, &str)]) -> Listeners {
        Listeners::new()
            .middleware(allow_list_from(&Vars::of(vars)))
            .mention(|_, cx| {
                cx.reply("hi");
                Ok(())
            })
            .command("/hi", |_, cx| {
                cx.ack_ephemeral("hi");
                Ok(())
            })
            .view_submission("form", |_, _| Ok(()))
    }

    #[test]
    fn the_middleware_ignores_what_the_vars_leave_out_with_its_reason() {
        // The test kit's requests come from T1; a mention in the channel it names, a command in C1.
        let only_c2 = answering(&[(ALLOWED_CHANNELS, "C2")]);
        assert_eq!(handle(&only_c2, &mention("C2", "U1", "<@UBOT> hi")).effects.len(), 1);
        let elsewhere = handle(&only_c2, &mention("C1", "U1", "<@UBOT> hi"));
        assert_eq!((elsewhere.ignored, elsewhere.effects.len()), (Some(NOT_ALLOWED_CHANNEL), 0));
        assert_eq!(handle(&only_c2, &view_submission("form", json!({}))).ignored, None, "a request about no channel passes");
        let other_team = handle(&answering(&[(ALLOWED_TEAMS, "T9")]), &command("/hi", ""));
        assert_eq!((other_team.ignored, other_team.ack), (Some(NOT_ALLOWED_TEAM), None));
    }

    #[test]
    fn the_lists_given_in_code_check_the_same_way() {
        let app = Listeners::new().middleware(allow_list(&["T1"], &["C1"])).mention(|_, _| Ok(()));
        assert_eq!(handle(&app, &mention("C1", "U1", "<@UBOT> hi")).ignored, None);
        assert_eq!(handle(&app, &mention("C2", "U1", "<@UBOT> hi")).ignored, Some(NOT_ALLOWED_CHANNEL));
        assert_eq!(handle(&app, &command("/nobody", "")).ignored, Some("no_listener"), "an allowed request no listener takes");
        let other_team = Listeners::new().middleware(allow_list(&["T9"], &[])).mention(|_, _| Ok(()));
        assert_eq!(handle(&other_team, &mention("C1", "U1", "<@UBOT> hi")).ignored, Some(NOT_ALLOWED_TEAM));
    }

    #[test]
    fn a_malformed_var_fails_every_request_with_its_error() {
        let app = answering(&[(ALLOWED_TEAMS, "#acme")]);
        for request in [mention("C1", "U1", "<@UBOT> hi"), command("/hi", "")] {
            let done = handle(&app, &request);
            assert_eq!(done.failed.as_deref(), Some("ALLOWED_TEAMS: \"#acme\" is not a team id (T…, or E… for an org-wide install)"));
            assert!(done.effects.is_empty());
        }
    }
}
