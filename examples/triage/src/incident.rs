//! An incident as the bot sees it: the modal that asks for one, the submission read back into an
//! [`Incident`] (or the field errors Slack shows in the modal), and its announcement.
//!
//! All of it is plain data and pure functions, apart from the listeners in `lib.rs`: when
//! incidents are kept in state and their announcements updated (issue 24), these are the shapes
//! that get stored and re-rendered.

use serde_json::{json, Value};
use slackline::app::listen::ViewIn;

/// The modal's `callback_id`.
pub const MODAL: &str = "incident";
/// The title input: its block and action ids.
pub const TITLE: (&str, &str) = ("title", "title_input");
/// The severity select: its block and action ids.
pub const SEVERITY: (&str, &str) = ("severity", "severity_select");
/// The announcement's "Acknowledge" button.
pub const ACKNOWLEDGE: &str = "incident_acknowledge";
/// Slack's limit on a `plain_text_input` the modal sets (`max_length`).
pub const TITLE_MAX_CHARS: usize = 150;

/// How bad it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

    fn option(self) -> Value {
        json!({ "text": { "type": "plain_text", "text": self.label() }, "value": self.value() })
    }
}

/// A reported incident.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Incident {
    /// What is wrong, as the reporter wrote it (trimmed).
    pub title: String,
    /// How bad it is.
    pub severity: Severity,
    /// Who reported it.
    pub reporter: String,
}

/// Field errors for the modal: `(block_id, message)`.
pub type FieldErrors = Vec<(&'static str, &'static str)>;

impl Incident {
    /// The incident a submission describes, or what is wrong with its fields.
    pub fn from_view(v: &ViewIn) -> Result<Incident, FieldErrors> {
        let title = v.value(TITLE.0, TITLE.1).map(str::trim).unwrap_or_default();
        let severity = v.value(SEVERITY.0, SEVERITY.1).and_then(Severity::parse);
        let mut errors = FieldErrors::new();
        if title.is_empty() {
            errors.push((TITLE.0, "Say what is wrong"));
        } else if title.chars().count() > TITLE_MAX_CHARS {
            errors.push((TITLE.0, "Keep it under 150 characters"));
        }
        if severity.is_none() {
            errors.push((SEVERITY.0, "Pick a severity"));
        }
        match severity {
            Some(severity) if errors.is_empty() => {
                Ok(Incident { title: title.to_string(), severity, reporter: v.interaction.user_id.clone().unwrap_or_default() })
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

    /// The announcement's blocks: the incident and an "Acknowledge" button, whose value is the
    /// incident's id `id` (its click cancels the reminder).
    pub fn blocks(&self, id: &str) -> Value {
        let button = json!({
            "type": "button", "action_id": ACKNOWLEDGE, "style": "primary",
            "text": { "type": "plain_text", "text": "Acknowledge" }, "value": id,
        });
        json!([
            { "type": "section", "text": { "type": "mrkdwn", "text": format!(":rotating_light: *{}*\n{}", mrkdwn_escape(&self.title), self.severity.label()) } },
            { "type": "context", "elements": [{ "type": "mrkdwn", "text": format!("Reported by <@{}>", self.reporter) }] },
            { "type": "actions", "elements": [button] },
        ])
    }
}

/// The modal `/incident` opens: a title and a severity (SEV2 preselected).
pub fn modal() -> Value {
    json!({
        "type": "modal", "callback_id": MODAL,
        "title": { "type": "plain_text", "text": "Report an incident" },
        "submit": { "type": "plain_text", "text": "Report" },
        "close": { "type": "plain_text", "text": "Cancel" },
        "blocks": [
            {
                "type": "input", "block_id": TITLE.0, "label": { "type": "plain_text", "text": "What is wrong?" },
                "element": { "type": "plain_text_input", "action_id": TITLE.1, "max_length": TITLE_MAX_CHARS },
            },
            {
                "type": "input", "block_id": SEVERITY.0, "label": { "type": "plain_text", "text": "Severity" },
                "element": {
                    "type": "static_select", "action_id": SEVERITY.1,
                    "options": Severity::ALL.map(Severity::option), "initial_option": Severity::Sev2.option(),
                },
            },
        ],
    })
}

/// Text people wrote, safe inside mrkdwn: Slack reads `&`, `<` and `>` as markup.
pub fn mrkdwn_escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
