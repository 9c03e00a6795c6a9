//! Slack's Block Kit limits, checked on the JSON itself: the typed builders' output and raw
//! `json!` alike, since both end as JSON (and so does what a handler queues, which is what the
//! test kit checks: `slackline::testing`).
//!
//! Each broken limit is a [`Violation`] with the path to what broke it
//! (`blocks[2].text: 3,012 characters, Slack takes 3,000`); a check returns all of them, not the
//! first. A Slack API call with any of them fails with `invalid_blocks` (or `invalid_arguments`),
//! and the row parks: better found by a test.
//!
//! The numbers are Slack's Block Kit reference's (docs.slack.dev/reference/block-kit: "Blocks",
//! each block's and element's page, the option and confirmation objects; and
//! docs.slack.dev/reference/views/modal-views): lengths in characters, counts in items.
//! Uniqueness is Slack's too: a `block_id` once per message or view, an `action_id` once per
//! block ("unique among all other action_ids in the containing block": two inputs of one modal
//! may share an `action_id`, since their state is keyed by block first).

use serde_json::Value;
use std::collections::HashSet;
use std::fmt;

/// Blocks in a message.
pub const MESSAGE_BLOCKS: usize = 50;
/// Blocks in a modal or a Home tab.
pub const VIEW_BLOCKS: usize = 100;
/// A `block_id`, an `action_id`, a view's `callback_id` or `external_id`.
pub const ID: usize = super::ids::MAX_ID_CHARS;
/// A section's text.
pub const SECTION_TEXT: usize = 3000;
/// A section's fields, and each one's text.
pub const SECTION_FIELDS: (usize, usize) = (10, 2000);
/// A header's text.
pub const HEADER_TEXT: usize = 150;
/// An actions block's elements.
pub const ACTIONS_ELEMENTS: usize = 25;
/// A context block's elements.
pub const CONTEXT_ELEMENTS: usize = 10;
/// An input block's label and hint.
pub const INPUT_LABEL: usize = 2000;
/// A button's text, its value, and a URL (a button's, an option's, an image's).
pub const BUTTON: (usize, usize, usize) = (75, 2000, 3000);
/// A menu's, a picker's or a text input's placeholder.
pub const PLACEHOLDER: usize = 150;
/// A select menu's options (or option groups); checkboxes' and radio buttons'; an overflow's.
pub const OPTIONS: (usize, usize, usize) = (100, 10, 5);
/// An option's text (and description), and its value.
pub const OPTION: (usize, usize) = (75, 150);
/// A modal's title, and its submit and close buttons' text.
pub const MODAL_TITLE: usize = 24;
/// A view's `private_metadata`.
pub const PRIVATE_METADATA: usize = 3000;
/// A confirmation dialog's title, text, and its buttons' text.
pub const CONFIRM: (usize, usize, usize) = (100, 300, 30);
/// An image's alt text and title.
pub const IMAGE_TEXT: usize = 2000;
/// A `plain_text_input`'s `min_length` / `max_length`.
pub const TEXT_INPUT_LENGTH: u64 = 3000;

/// One broken limit: where, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Violation {
    /// The path to it: `blocks[2].text`, `title`, `blocks[0].elements[3].options[1].value`.
    pub path: String,
    /// What is wrong: `3,012 characters, Slack takes 3,000`.
    pub problem: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.problem)
    }
}

/// Where blocks are shown: Slack takes 50 in a message, 100 in a view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Surface {
    /// A message (a post, an update, an ephemeral, a `response_url` answer).
    Message,
    /// A modal or a Home tab.
    View,
}

/// Every broken limit of `blocks` (a JSON array) on `surface`, paths from `blocks`.
pub fn check_blocks(blocks: &Value, surface: Surface) -> Vec<Violation> {
    let mut checker = Checker::default();
    checker.blocks("blocks", blocks, surface);
    checker.found
}

/// Every broken limit of `view` (a modal's or a Home tab's JSON), paths from the view.
pub fn check_view(view: &Value) -> Vec<Violation> {
    let mut checker = Checker::default();
    checker.view(view);
    checker.found
}

/// Every broken limit of `options` (a `block_suggestion` answer's, or a menu's), paths from
/// `options`.
pub fn check_options(options: &Value) -> Vec<Violation> {
    let mut checker = Checker::default();
    checker.options("options", Some(options), OPTIONS.0);
    checker.found
}

/// `Ok` when nothing is broken.
pub(super) fn result(found: Vec<Violation>) -> Result<(), Vec<Violation>> {
    if found.is_empty() {
        Ok(())
    } else {
        Err(found)
    }
}

/// `n` with a comma every three digits (`3,012`), as people read it.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// A string's characters, or a text object's (`{"text": …}`).
fn chars(value: &Value) -> Option<usize> {
    let text = value.as_str().or_else(|| value.get("text").and_then(Value::as_str))?;
    Some(text.chars().count())
}

fn is_null(value: Option<&Value>) -> bool {
    value.is_none_or(Value::is_null)
}

/// What has been found, and the `block_id`s seen so far in the message or view.
#[derive(Default)]
struct Checker {
    found: Vec<Violation>,
    block_ids: HashSet<String>,
}

impl Checker {
    fn flag(&mut self, path: &str, problem: String) {
        self.found.push(Violation { path: path.to_string(), problem });
    }

    /// A string or a text object of at most `max` characters, if there.
    fn text(&mut self, path: &str, value: Option<&Value>, max: usize) {
        if let Some(n) = value.and_then(chars).filter(|n| *n > max) {
            self.flag(path, format!("{} characters, Slack takes {}", thousands(n), thousands(max)));
        }
    }

    /// The same, and it must be there.
    fn required_text(&mut self, path: &str, value: Option<&Value>, max: usize) {
        if is_null(value) {
            return self.flag(path, "missing: Slack requires it".into());
        }
        self.text(path, value, max);
    }

    /// At most `max` items of a list, if there: the items.
    fn count<'v>(&mut self, path: &str, items: Option<&'v Value>, max: usize, what: &str) -> &'v [Value] {
        let items = items.and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        if items.len() > max {
            self.flag(path, format!("{} {what}, Slack takes {}", thousands(items.len()), thousands(max)));
        }
        items
    }

    fn view(&mut self, view: &Value) {
        match view.get("type").and_then(Value::as_str) {
            Some("modal") => self.modal(view),
            Some("home") => {}
            other => self.flag("type", format!("{other:?} is not a view Slack opens (modal, home)")),
        }
        self.text("private_metadata", view.get("private_metadata"), PRIVATE_METADATA);
        self.text("callback_id", view.get("callback_id"), ID);
        self.text("external_id", view.get("external_id"), ID);
        self.blocks("blocks", view.get("blocks").unwrap_or(&Value::Null), Surface::View);
    }

    fn modal(&mut self, view: &Value) {
        self.required_text("title", view.get("title"), MODAL_TITLE);
        self.text("submit", view.get("submit"), MODAL_TITLE);
        self.text("close", view.get("close"), MODAL_TITLE);
        let blocks = view.get("blocks").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        if is_null(view.get("submit")) && blocks.iter().any(|b| b.get("type").and_then(Value::as_str) == Some("input")) {
            self.flag("submit", "missing: Slack requires it in a modal with input blocks".into());
        }
    }

    fn blocks(&mut self, path: &str, blocks: &Value, surface: Surface) {
        let max = if surface == Surface::Message { MESSAGE_BLOCKS } else { VIEW_BLOCKS };
        for (i, block) in self.count(path, Some(blocks), max, "blocks").iter().enumerate() {
            self.block(&format!("{path}[{i}]"), block);
        }
    }

    fn block(&mut self, path: &str, block: &Value) {
        if let Some(id) = block.get("block_id").and_then(Value::as_str) {
            self.text(&format!("{path}.block_id"), block.get("block_id"), ID);
            if !self.block_ids.insert(id.to_string()) {
                self.flag(&format!("{path}.block_id"), format!("{id:?} is used twice: Slack takes each block_id once in a message or view"));
            }
        }
        let at = |field: &str| format!("{path}.{field}");
        match block.get("type").and_then(Value::as_str).unwrap_or_default() {
            "section" => self.section(path, block),
            "header" => self.required_text(&at("text"), block.get("text"), HEADER_TEXT),
            "actions" => self.elements(&at("elements"), block.get("elements"), ACTIONS_ELEMENTS),
            "context" => {
                self.count(&at("elements"), block.get("elements"), CONTEXT_ELEMENTS, "elements");
            }
            "input" => self.input(path, block),
            "image" => {
                self.text(&at("image_url"), block.get("image_url"), BUTTON.2);
                self.text(&at("alt_text"), block.get("alt_text"), IMAGE_TEXT);
                self.text(&at("title"), block.get("title"), IMAGE_TEXT);
            }
            _ => {}
        }
    }

    fn section(&mut self, path: &str, block: &Value) {
        let (text, fields) = (block.get("text"), block.get("fields"));
        if is_null(text) && is_null(fields) {
            self.flag(path, "a section without text or fields: Slack requires one".into());
        }
        self.text(&format!("{path}.text"), text, SECTION_TEXT);
        let fields = self.count(&format!("{path}.fields"), fields, SECTION_FIELDS.0, "fields");
        for (i, field) in fields.iter().enumerate() {
            self.text(&format!("{path}.fields[{i}]"), Some(field), SECTION_FIELDS.1);
        }
        if let Some(accessory) = block.get("accessory") {
            self.element(&format!("{path}.accessory"), accessory, &mut HashSet::new());
        }
    }

    fn input(&mut self, path: &str, block: &Value) {
        self.required_text(&format!("{path}.label"), block.get("label"), INPUT_LABEL);
        self.text(&format!("{path}.hint"), block.get("hint"), INPUT_LABEL);
        match block.get("element") {
            Some(element) => self.element(&format!("{path}.element"), element, &mut HashSet::new()),
            None => self.flag(&format!("{path}.element"), "missing: Slack requires it".into()),
        }
    }

    /// An actions block's elements: at most `max`, each `action_id` once.
    fn elements(&mut self, path: &str, elements: Option<&Value>, max: usize) {
        let mut action_ids = HashSet::new();
        for (i, element) in self.count(path, elements, max, "elements").iter().enumerate() {
            self.element(&format!("{path}[{i}]"), element, &mut action_ids);
        }
    }

    fn element(&mut self, path: &str, element: &Value, action_ids: &mut HashSet<String>) {
        let at = |field: &str| format!("{path}.{field}");
        if let Some(id) = element.get("action_id").and_then(Value::as_str) {
            self.text(&at("action_id"), element.get("action_id"), ID);
            if !action_ids.insert(id.to_string()) {
                self.flag(&at("action_id"), format!("{id:?} is used twice: Slack takes each action_id once in a block"));
            }
        }
        self.text(&at("placeholder"), element.get("placeholder"), PLACEHOLDER);
        self.confirm(&at("confirm"), element.get("confirm"));
        match element.get("type").and_then(Value::as_str).unwrap_or_default() {
            "button" => {
                self.required_text(&at("text"), element.get("text"), BUTTON.0);
                self.text(&at("value"), element.get("value"), BUTTON.1);
                self.text(&at("url"), element.get("url"), BUTTON.2);
            }
            "overflow" => self.options(&at("options"), element.get("options"), OPTIONS.2),
            "checkboxes" | "radio_buttons" => self.options(&at("options"), element.get("options"), OPTIONS.1),
            "plain_text_input" => self.lengths(path, element),
            menu if menu.ends_with("_select") => self.menu(path, element),
            _ => {}
        }
    }

    fn menu(&mut self, path: &str, element: &Value) {
        self.options(&format!("{path}.options"), element.get("options"), OPTIONS.0);
        let groups = self.count(&format!("{path}.option_groups"), element.get("option_groups"), OPTIONS.0, "option groups");
        for (i, group) in groups.iter().enumerate() {
            self.text(&format!("{path}.option_groups[{i}].label"), group.get("label"), OPTION.0);
            self.options(&format!("{path}.option_groups[{i}].options"), group.get("options"), OPTIONS.0);
        }
    }

    fn lengths(&mut self, path: &str, element: &Value) {
        for field in ["min_length", "max_length"] {
            if let Some(n) = element.get(field).and_then(Value::as_u64).filter(|n| *n > TEXT_INPUT_LENGTH) {
                self.flag(&format!("{path}.{field}"), format!("{}, Slack takes up to {}", thousands(n as usize), thousands(TEXT_INPUT_LENGTH as usize)));
            }
        }
    }

    fn options(&mut self, path: &str, options: Option<&Value>, max: usize) {
        for (i, option) in self.count(path, options, max, "options").iter().enumerate() {
            let at = |field: &str| format!("{path}[{i}].{field}");
            self.required_text(&at("text"), option.get("text"), OPTION.0);
            self.text(&at("value"), option.get("value"), OPTION.1);
            self.text(&at("description"), option.get("description"), OPTION.0);
            self.text(&at("url"), option.get("url"), BUTTON.2);
        }
    }

    fn confirm(&mut self, path: &str, confirm: Option<&Value>) {
        let Some(confirm) = confirm else { return };
        self.text(&format!("{path}.title"), confirm.get("title"), CONFIRM.0);
        self.text(&format!("{path}.text"), confirm.get("text"), CONFIRM.1);
        self.text(&format!("{path}.confirm"), confirm.get("confirm"), CONFIRM.2);
        self.text(&format!("{path}.deny"), confirm.get("deny"), CONFIRM.2);
    }
}
