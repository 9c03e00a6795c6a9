//! An incident as the bot sees it: the modal that asks for one, the submission read back into an
//! [`Incident`] (or the field errors Slack shows in the modal), and its announcement.
//!
//! All of it is plain data and pure functions, apart from the listeners in `lib.rs`: an
//! [`Incident`] is what is stored in state (as JSON) and re-rendered into its announcement each
//! time it changes. Its status only moves forward (open → acknowledged → resolved, or open →
//! resolved), so a second click of the same button is [`Change::Unchanged`] and updates nothing.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use slackline::prelude::*;

/// The modal's `callback_id`.
pub const MODAL: &str = "incident";
/// The title input: its block and action ids, the text it submits.
pub const TITLE: Field<kind::Text> = Field::new("title", "title_input");
/// The severity select: its block and action ids, the option it submits.
pub const SEVERITY: Field<kind::Choice> = Field::new("severity", "severity_select");
/// The announcement's "Acknowledge" button.
pub const ACKNOWLEDGE: ActionId = ActionId::new("incident_acknowledge");
/// The announcement's "Resolve" button.
pub const RESOLVE: ActionId = ActionId::new("incident_resolve");
/// Slack's limit on a `plain_text_input` the modal sets (`max_length`).
pub const TITLE_MAX_CHARS: usize = 150;

/// How bad it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Customers are down.
    Sev1,
    /// Degraded.
    Sev2,
    /// A nuisance.
    Sev3,
}

impl Severity {
    /// Every severity, worst first (the select's order).
    pub const ALL: [Severity; 3] = [Severity::Sev1, Severity::Sev2, Severity::Sev3];

    /// The select option's value.
    pub fn value(self) -> &'static str {
        match self {
            Severity::Sev1 => "sev1",
            Severity::Sev2 => "sev2",
            Severity::Sev3 => "sev3",
        }
    }

    /// What people read.
    pub fn label(self) -> &'static str {
        match self {
            Severity::Sev1 => "SEV1 (customers are down)",
            Severity::Sev2 => "SEV2 (degraded)",
            Severity::Sev3 => "SEV3 (a nuisance)",
        }
    }

    /// The severity of a select option's value.
    pub fn parse(value: &str) -> Option<Severity> {
        Severity::ALL.into_iter().find(|s| s.value() == value)
    }

    fn option(self) -> Opt {
        Opt::new(self.value(), self.label())
    }
}

/// Where an incident is: it only moves forward.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Reported, nobody on it yet.
    Open,
    /// Someone is on it.
    Acknowledged,
    /// Over.
    Resolved,
}

/// What a click or a reaction did to an incident.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// It changed: store it and update its announcement.
    Changed,
    /// It already was so (a second click): nothing to store or update.
    Unchanged,
}

/// A reported incident, as stored in state under [`crate::incident_key`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Incident {
    /// What is wrong, as the reporter wrote it (trimmed).
    pub title: String,
    /// How bad it is.
    pub severity: Severity,
    /// Who reported it.
    pub reporter: String,
    /// Where it is.
    #[serde(default = "open")]
    pub status: Status,
    /// Who is on it: who acknowledged it, or reacted `:eyes:` to its announcement.
    #[serde(default)]
    pub assignee: Option<String>,
}

fn open() -> Status {
    Status::Open
}

impl Incident {
    /// The incident a submission describes, or what is wrong with its fields.
    pub fn from_view(v: &ViewIn) -> Result<Incident, FieldErrors> {
        let title = v.get(TITLE).unwrap_or_default();
        let title = title.trim();
        let severity = v.get(SEVERITY).as_deref().and_then(Severity::parse);
        let mut errors = FieldErrors::new();
        if title.is_empty() {
            errors.add(TITLE, "Say what is wrong");
        } else if title.chars().count() > TITLE_MAX_CHARS {
            errors.add(TITLE, "Keep it under 150 characters");
        }
        if severity.is_none() {
            errors.add(SEVERITY, "Pick a severity");
        }
        match severity {
            Some(severity) if errors.is_empty() => {
                let reporter = v.interaction.user_id.clone().unwrap_or_default();
                Ok(Incident { title: title.to_string(), severity, reporter, status: Status::Open, assignee: None })
            }
            _ => Err(errors),
        }
    }

    /// The announcement's fallback text (notifications, screen readers).
    pub fn text(&self) -> String {
        format!("Incident ({}): {}, reported by <@{}>", self.severity.value().to_uppercase(), mrkdwn_escape(&self.title), self.reporter)
    }

    /// The reminder posted if nobody acknowledged in time.
    pub fn reminder(&self) -> String {
        format!("Incident still open, nobody acknowledged it: {}", mrkdwn_escape(&self.title))
    }

    /// Moves it to `to` by `who` (an acknowledgement assigns them if nobody is): a status it
    /// is already at, or past, changes nothing.
    pub fn advance(&mut self, to: Status, who: &str) -> Change {
        if self.status >= to {
            return Change::Unchanged;
        }
        self.status = to;
        if to == Status::Acknowledged && self.assignee.is_none() {
            self.assignee = Some(who.to_string());
        }
        Change::Changed
    }

    /// Assigns it to `who`: nothing changes if they already are, or it is resolved.
    pub fn assign(&mut self, who: &str) -> Change {
        if self.status == Status::Resolved || self.assignee.as_deref() == Some(who) {
            return Change::Unchanged;
        }
        self.assignee = Some(who.to_string());
        Change::Changed
    }

    /// The announcement's blocks: the incident, its status and assignee, and the buttons its
    /// status still allows ("Acknowledge" while open, "Resolve" until resolved), whose value is
    /// the incident's id `id`.
    pub fn blocks(&self, id: &str) -> blocks::Blocks {
        let headline = format!(":rotating_light: *{}*\n{}", mrkdwn_escape(&self.title), self.severity.label());
        let mut shown = vec![Block::section(headline).into(), Block::context([self.context()]).into()];
        let buttons = self.buttons(id);
        if !buttons.is_empty() {
            shown.push(Block::actions(buttons).into());
        }
        shown.into()
    }

    /// The incident as a Slack List record's fields (`TRIAGE_LIST`): `title`, `severity`
    /// (`sev1`…) and `status` (`open`, `acknowledged`, `resolved`) as text, `reporter` and
    /// `assignee` as users, each only when known.
    pub fn record(&self) -> Value {
        let mut fields = json!({ "title": self.title, "severity": self.severity.value(), "status": self.status });
        for (field, user) in [("reporter", Some(&self.reporter)), ("assignee", self.assignee.as_ref())] {
            if let Some(user) = user.filter(|u| !u.is_empty()) {
                fields[field] = json!(user);
            }
        }
        fields
    }

    /// The announcement as a `chat.update` body: its text and blocks.
    pub fn message(&self, id: &str) -> Value {
        json!({ "text": self.text(), "blocks": Value::from(self.blocks(id)) })
    }

    fn context(&self) -> String {
        let status = match self.status {
            Status::Open => "Open",
            Status::Acknowledged => "Acknowledged",
            Status::Resolved => "Resolved",
        };
        let assignee = self.assignee.as_deref().map(|u| format!(" · assigned to <@{u}>")).unwrap_or_default();
        format!("Reported by <@{}> · {status}{assignee}", self.reporter)
    }

    fn buttons(&self, id: &str) -> Vec<blocks::Button> {
        let acknowledge = Element::button(ACKNOWLEDGE, "Acknowledge").primary().value(id);
        let resolve = Element::button(RESOLVE, "Resolve").danger().value(id);
        match self.status {
            Status::Open => vec![acknowledge, resolve],
            Status::Acknowledged => vec![resolve],
            Status::Resolved => Vec::new(),
        }
    }
}

/// The App Home: the open (unresolved) incidents, or a line saying there are none.
pub fn home(open: &[Incident]) -> Home {
    let none = open.is_empty().then(|| Block::section("No open incidents."));
    let listed = open.iter().map(|i| Block::section(format!("*{}* ({})\n{}", mrkdwn_escape(&i.title), i.severity.value().to_uppercase(), i.context())));
    Home::new([Block::header("Open incidents")]).blocks(none.into_iter().chain(listed))
}

/// The modal `/incident` opens: a title and a severity (SEV2 preselected).
pub fn modal() -> Modal {
    let title = Element::plain_text_input().max_length(TITLE_MAX_CHARS as u32);
    let severity = Element::static_select(Severity::ALL.map(Severity::option)).initial(Severity::Sev2.option());
    Modal::new(MODAL, "Report an incident")
        .submit("Report")
        .close("Cancel")
        .block(Block::input(TITLE, "What is wrong?", title))
        .block(Block::input(SEVERITY, "Severity", severity))
}

/// Text people wrote, safe inside mrkdwn: Slack reads `&`, `<` and `>` as markup.
pub fn mrkdwn_escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
