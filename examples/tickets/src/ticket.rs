//! A ticket as the desk sees it: what a new one needs ([`Draft`], read from the modal or from the
//! Workflow step's inputs, or refused with what is wrong), the stored [`Ticket`], its post in the
//! desk channel, and its Work Object.
//!
//! All of it is plain data and pure functions, apart from the listeners in `lib.rs`. A ticket's
//! status only moves forward (open → taken → closed, or open → closed), so a second click of the
//! same button is [`Change::Unchanged`] and updates nothing.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use slackline::prelude::*;

/// The modal's `callback_id`.
pub const MODAL: &str = "ticket";
/// The title input: its block and action ids, the text it submits.
pub const TITLE: Field<kind::Text> = Field::new("ticket_title", "title");
/// The priority select: its block and action ids, the option it submits.
pub const PRIORITY: Field<kind::Choice> = Field::new("ticket_priority", "priority");
/// The post's "Take" button: its value is the ticket's id.
pub const TAKE: ActionId = ActionId::new("ticket_take");
/// The post's "Close" button: its value is the ticket's id.
pub const CLOSE: ActionId = ActionId::new("ticket_close");
/// The longest title taken (the modal's `max_length`; the step refuses a longer one).
pub const TITLE_MAX_CHARS: usize = 150;
/// The domain ticket links live on: the manifest's unfurl domain.
pub const DOMAIN: &str = "tickets.slackline.example";

/// The link of the ticket `id`: `https://tickets.slackline.example/TCK-12`.
pub fn url(id: &str) -> String {
    format!("https://{DOMAIN}/{id}")
}

/// The ticket id a link names (its last path segment, `TCK-` and a number), if it names one.
pub fn id_in(link: &str) -> Option<&str> {
    let id = link.split(['?', '#']).next()?.trim_end_matches('/').rsplit('/').next()?;
    let number = id.strip_prefix("TCK-")?;
    (!number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())).then_some(id)
}

/// How urgent it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    /// Someone cannot work.
    High,
    /// The default.
    Normal,
    /// When there is time.
    Low,
}

impl Priority {
    /// Every priority, most urgent first (the select's order).
    pub const ALL: [Priority; 3] = [Priority::High, Priority::Normal, Priority::Low];

    /// The select option's value, and the step's `priority` input.
    pub fn value(self) -> &'static str {
        match self {
            Priority::High => "high",
            Priority::Normal => "normal",
            Priority::Low => "low",
        }
    }

    /// What people read.
    pub fn label(self) -> &'static str {
        match self {
            Priority::High => "High",
            Priority::Normal => "Normal",
            Priority::Low => "Low",
        }
    }

    /// The priority of an option's value (or a step's input), in any case.
    pub fn parse(value: &str) -> Option<Priority> {
        Priority::ALL.into_iter().find(|p| p.value().eq_ignore_ascii_case(value.trim()))
    }

    fn option(self) -> Opt {
        Opt::new(self.value(), self.label())
    }
}

/// Where a ticket is: it only moves forward.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Nobody on it yet.
    Open,
    /// Someone took it.
    Taken,
    /// Done.
    Closed,
}

impl Status {
    fn label(self) -> &'static str {
        match self {
            Status::Open => "Open",
            Status::Taken => "Taken",
            Status::Closed => "Closed",
        }
    }
}

/// What a click did to a ticket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// It changed: store it and update its post.
    Changed,
    /// It already was so (a second click): nothing to store or update.
    Unchanged,
}

/// What is wrong with a new ticket's fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    /// No title, or only spaces.
    NoTitle,
    /// A title over [`TITLE_MAX_CHARS`].
    TitleTooLong,
    /// A priority that is none of [`Priority::ALL`].
    UnknownPriority,
}

impl Problem {
    /// The problem, as the modal shows it under its field and the step's error tells the workflow.
    pub fn message(self) -> &'static str {
        match self {
            Problem::NoTitle => "Say what the ticket is about",
            Problem::TitleTooLong => "Keep the title under 150 characters",
            Problem::UnknownPriority => "Pick a priority: high, normal or low",
        }
    }
}

/// A new ticket's fields, checked: what the modal and the step both hand to the desk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draft {
    /// The title, trimmed.
    pub title: String,
    /// How urgent.
    pub priority: Priority,
    /// Who asked, if known.
    pub reporter: Option<String>,
}

impl Draft {
    /// A draft of `title` and `priority` (none: normal) by `reporter`, or every problem with them.
    pub fn new(title: &str, priority: Option<&str>, reporter: Option<String>) -> Result<Draft, Vec<Problem>> {
        let title = title.trim();
        let priority = match priority.filter(|p| !p.trim().is_empty()) {
            None => Some(Priority::Normal),
            Some(p) => Priority::parse(p),
        };
        let problems: Vec<Problem> = [
            title.is_empty().then_some(Problem::NoTitle),
            (title.chars().count() > TITLE_MAX_CHARS).then_some(Problem::TitleTooLong),
            priority.is_none().then_some(Problem::UnknownPriority),
        ]
        .into_iter()
        .flatten()
        .collect();
        match priority {
            Some(priority) if problems.is_empty() => Ok(Draft { title: title.to_string(), priority, reporter: reporter.filter(|r| !r.is_empty()) }),
            _ => Err(problems),
        }
    }

    /// The draft a modal's submission describes, or the field errors Slack shows in the modal.
    pub fn from_view(v: &ViewIn) -> Result<Draft, FieldErrors> {
        let (title, priority) = (v.get(TITLE).unwrap_or_default(), v.get(PRIORITY));
        Draft::new(&title, priority.as_deref(), v.interaction.user_id.clone()).map_err(|problems| {
            problems.into_iter().fold(FieldErrors::new(), |errors, problem| match problem {
                Problem::UnknownPriority => errors.on(PRIORITY, problem.message()),
                Problem::NoTitle | Problem::TitleTooLong => errors.on(TITLE, problem.message()),
            })
        })
    }

    /// The draft a Workflow step's inputs describe (`title`, optional `priority` and
    /// `reporter`), or the readable error the step fails with.
    pub fn from_step(step: &StepIn) -> Result<Draft, String> {
        let reporter = step.input("reporter").map(str::to_string);
        Draft::new(step.input("title").unwrap_or_default(), step.input("priority"), reporter).map_err(|problems| {
            let messages: Vec<&str> = problems.iter().map(|p| p.message()).collect();
            format!("The ticket was not created: {}.", messages.join("; "))
        })
    }
}

/// A ticket, as stored in state under [`crate::ticket_key`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ticket {
    /// `TCK-{n}`, allocated in order per team.
    pub id: String,
    /// What it is about.
    pub title: String,
    /// How urgent.
    pub priority: Priority,
    /// Who asked, if known.
    pub reporter: Option<String>,
    /// Where it is.
    pub status: Status,
    /// Who took it.
    pub taker: Option<String>,
    /// Who closed it.
    pub closer: Option<String>,
}

impl Ticket {
    /// The ticket `id` a draft becomes: open, nobody on it.
    pub fn open(id: String, draft: Draft) -> Ticket {
        Ticket { id, title: draft.title, priority: draft.priority, reporter: draft.reporter, status: Status::Open, taker: None, closer: None }
    }

    /// Its link.
    pub fn url(&self) -> String {
        url(&self.id)
    }

    /// `who` takes it: only an open ticket can be taken.
    pub fn take(&mut self, who: &str) -> Change {
        if self.status != Status::Open {
            return Change::Unchanged;
        }
        (self.status, self.taker) = (Status::Taken, Some(who.to_string()));
        Change::Changed
    }

    /// `who` closes it: a closed ticket stays as it was.
    pub fn close(&mut self, who: &str) -> Change {
        if self.status == Status::Closed {
            return Change::Unchanged;
        }
        (self.status, self.closer) = (Status::Closed, Some(who.to_string()));
        Change::Changed
    }

    /// The post's fallback text (notifications, screen readers).
    pub fn text(&self) -> String {
        format!("{} ({}): {}", self.id, self.priority.label(), mrkdwn_escape(&self.title))
    }

    /// The post's blocks: the ticket, its status line, and the buttons its status still allows
    /// ("Take" while open, "Close" until closed), whose value is its id.
    pub fn blocks(&self) -> blocks::Blocks {
        let headline = format!(":ticket: *<{}|{}>* {}\nPriority: {}", self.url(), self.id, mrkdwn_escape(&self.title), self.priority.label());
        let mut shown = vec![Block::section(headline).into(), Block::context([self.status_line()]).into()];
        let take = (self.status == Status::Open).then(|| Element::button(TAKE, "Take").primary().value(&self.id));
        let close = (self.status != Status::Closed).then(|| Element::button(CLOSE, "Close").danger().value(&self.id));
        let buttons: Vec<blocks::Button> = take.into_iter().chain(close).collect();
        if !buttons.is_empty() {
            shown.push(Block::actions(buttons).into());
        }
        shown.into()
    }

    /// The post as a `chat.update` body: its text and blocks.
    pub fn message(&self) -> Value {
        json!({ "text": self.text(), "blocks": Value::from(self.blocks()) })
    }

    /// The DM its taker gets.
    pub fn taken_note(&self) -> String {
        format!("You took <{}|{}>: {}. Close it from its post when it is done.", self.url(), self.id, mrkdwn_escape(&self.title))
    }

    /// The ticket as a Work Object (a task) at its link: title, status, priority, and who took
    /// it (Slack's task fields, docs.slack.dev/messaging/work-objects).
    pub fn entity(&self) -> Entity {
        let entity = Entity::task(&self.id, &self.url(), &format!("{}: {}", self.id, self.title))
            .field("status", json!({ "value": self.status.label() }))
            .field("priority", json!({ "value": self.priority.label() }));
        match &self.taker {
            Some(taker) => entity.field("assignee", json!({ "type": "slack#/types/user", "user": { "user_id": taker } })),
            None => entity,
        }
    }

    fn status_line(&self) -> String {
        let reporter = self.reporter.as_deref().map(|u| format!("Reported by <@{u}> · ")).unwrap_or_default();
        let by = |who: &Option<String>| who.as_deref().map(|u| format!(" by <@{u}>")).unwrap_or_default();
        let at = match self.status {
            Status::Open => String::new(),
            Status::Taken => by(&self.taker),
            Status::Closed => by(&self.closer),
        };
        format!("{reporter}{}{at}", self.status.label())
    }
}

/// The modal `/ticket` opens: a title (filled with what followed the command) and a priority
/// (normal preselected).
pub fn modal(title: &str) -> Modal {
    let input = Element::plain_text_input().max_length(TITLE_MAX_CHARS as u32);
    let input = if title.trim().is_empty() { input } else { input.initial(title.trim()) };
    let priority = Element::static_select(Priority::ALL.map(Priority::option)).initial(Priority::Normal.option());
    Modal::new(MODAL, "New ticket")
        .submit("Create")
        .close("Cancel")
        .block(Block::input(TITLE, "What is it about?", input))
        .block(Block::input(PRIORITY, "Priority", priority))
}

/// Text people wrote, safe inside mrkdwn: Slack reads `&`, `<` and `>` as markup.
pub fn mrkdwn_escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
