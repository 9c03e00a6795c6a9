//! A streamed answer's structure: the tasks a tool-calling model reports (Slack's `task_update`
//! chunks), how they are shown (`task_display_mode`), and [`Pending`], the model's output not yet
//! given to Slack — text and task updates in the order the model produced them.
//!
//! **Why tasks are updates, not messages.** Slack keeps one task per `id` in a message: a
//! `task_update` with an id the message already shows changes that task (its status) instead of
//! adding one. So a task update sent twice to the same message shows once, and the state machine
//! may re-send one whose call it cannot know landed (a crash) without repeating it — unlike text,
//! which `appendStream` adds to whatever is there. That is why the checkpoint keeps the text it
//! gave Slack exactly (`delivered`, `in_flight`) but, for tasks, only each task's last status per
//! message (`Open::tasks`) and the updates of the call being made (`in_flight_tasks`).
//!
//! Invariants of [`Pending`]: it keeps the order the model produced; two texts are never side by
//! side (they are one); [`Pending::take`] never cuts a character, never returns more text than
//! asked, and what it returns, put back with [`Pending::put_back`], restores the buffer as it was.

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// A task's status, as Slack's `task_update` takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Not started.
    Pending,
    /// The model called the tool and has not moved on.
    InProgress,
    /// The model moved on (to text, another tool call, or its end).
    Complete,
    /// The model failed (or the user stopped it) while the task was open.
    Error,
}

impl TaskStatus {
    /// Slack's name for it.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Pending => "pending",
            TaskStatus::InProgress => "in_progress",
            TaskStatus::Complete => "complete",
            TaskStatus::Error => "error",
        }
    }

    /// Whether nothing more will change it.
    pub fn is_final(self) -> bool {
        matches!(self, TaskStatus::Complete | TaskStatus::Error)
    }
}

/// One task, as a message shows it (and as a `task_update` chunk sets it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    /// Its id: the model's tool call id.
    pub id: String,
    /// What it shows: the tool's name.
    pub title: String,
    /// Where it stands.
    pub status: TaskStatus,
}

impl Task {
    /// The same task, ended with `status` unless it has ended already.
    pub fn ended(&self, status: TaskStatus) -> Task {
        let status = if self.status.is_final() { self.status } else { status };
        Task { status, ..self.clone() }
    }
}

/// How Slack shows a streamed message's tasks (`chat.startStream`'s `task_display_mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskDisplayMode {
    /// One after another, between the text (Slack's default).
    Timeline,
    /// All together, as a plan under a title (`plan_update`).
    Plan,
}

impl TaskDisplayMode {
    /// Slack's name for it.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskDisplayMode::Timeline => "timeline",
            TaskDisplayMode::Plan => "plan",
        }
    }
}

/// A piece of the answer, in the order the model produced it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Chunk {
    /// Text (Slack markdown): a `markdown_text` chunk.
    Text(String),
    /// A task's new status: a `task_update` chunk.
    Task(Task),
}

/// The text of `chunks`, joined.
pub fn text_of(chunks: &[Chunk]) -> String {
    chunks.iter().filter_map(|c| if let Chunk::Text(t) = c { Some(t.as_str()) } else { None }).collect()
}

/// The task updates of `chunks`, in order.
pub fn tasks_of(chunks: &[Chunk]) -> Vec<Task> {
    chunks.iter().filter_map(|c| if let Chunk::Task(t) = c { Some(t.clone()) } else { None }).collect()
}

/// Applies `updates` to the tasks a message shows, as Slack does: a known id is changed in place,
/// a new one is added at the end.
pub fn apply(shown: &mut Vec<Task>, updates: &[Task]) {
    for update in updates {
        match shown.iter_mut().find(|t| t.id == update.id) {
            Some(task) => *task = update.clone(),
            None => shown.push(update.clone()),
        }
    }
}

/// The chunks of one call, with every task updated more than once in them sent once: its last
/// update, where its first was (Slack shows a task where it first appeared; the status it ends
/// the call with is what the message would show anyway).
pub fn compact(chunks: Vec<Chunk>) -> Vec<Chunk> {
    let mut out: Vec<Chunk> = Vec::with_capacity(chunks.len());
    for chunk in chunks {
        let earlier = match &chunk {
            Chunk::Task(task) => out.iter_mut().find_map(|c| match c {
                Chunk::Task(t) if t.id == task.id => Some(t),
                _ => None,
            }),
            Chunk::Text(_) => None,
        };
        match (earlier, chunk) {
            (Some(first), Chunk::Task(task)) => *first = task,
            (_, chunk) => out.push(chunk),
        }
    }
    out
}

/// The model's output not yet given to Slack.
#[derive(Debug, Clone, Default)]
pub struct Pending {
    chunks: VecDeque<Chunk>,
    text_len: usize,
}

impl Pending {
    /// Adds text at the end.
    pub fn push_text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        self.text_len += text.len();
        if let Some(Chunk::Text(last)) = self.chunks.back_mut() {
            last.push_str(text);
        } else {
            self.chunks.push_back(Chunk::Text(text.to_string()));
        }
    }

    /// Adds a task update at the end.
    pub fn push_task(&mut self, task: Task) {
        self.chunks.push_back(Chunk::Task(task));
    }

    /// Whether nothing is waiting.
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// The bytes of text waiting.
    pub fn text_len(&self) -> usize {
        self.text_len
    }

    /// The last update of task `id` waiting, if any.
    pub fn last_update(&self, id: &str) -> Option<&Task> {
        self.chunks.iter().rev().find_map(|c| match c {
            Chunk::Task(t) if t.id == id => Some(t),
            _ => None,
        })
    }

    /// Drops everything waiting.
    pub fn clear(&mut self) {
        self.chunks.clear();
        self.text_len = 0;
    }

    /// Takes the head of the buffer for one call: at most `room` bytes of text (cut on a
    /// character boundary) and at most `max_chunks` chunks, in order. Text cut short ends the take
    /// (what follows it must wait for the rest of it).
    pub fn take(&mut self, room: usize, max_chunks: usize) -> Vec<Chunk> {
        let (mut taken, mut room) = (Vec::new(), room);
        while taken.len() < max_chunks {
            match self.chunks.pop_front() {
                None => break,
                Some(Chunk::Task(task)) => taken.push(Chunk::Task(task)),
                Some(Chunk::Text(mut text)) => {
                    let mut cut = text.len().min(room);
                    while !text.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    let rest = text.split_off(cut);
                    room -= text.len();
                    self.text_len -= text.len();
                    if !text.is_empty() {
                        taken.push(Chunk::Text(text));
                    }
                    if !rest.is_empty() {
                        self.chunks.push_front(Chunk::Text(rest));
                        break;
                    }
                }
            }
        }
        taken
    }

    /// Puts `chunks` (what [`Pending::take`] gave, or a message's open tasks) back at the head.
    pub fn put_back(&mut self, chunks: Vec<Chunk>) {
        for chunk in chunks.into_iter().rev() {
            match chunk {
                Chunk::Text(text) if text.is_empty() => {}
                Chunk::Text(text) => {
                    self.text_len += text.len();
                    match self.chunks.front_mut() {
                        Some(Chunk::Text(first)) => first.insert_str(0, &text),
                        _ => self.chunks.push_front(Chunk::Text(text)),
                    }
                }
                task => self.chunks.push_front(task),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str, status: TaskStatus) -> Task {
        Task { id: id.into(), title: format!("tool {id}"), status }
    }

    #[test]
    fn take_keeps_the_models_order_and_cuts_text_on_a_character_boundary() {
        let mut p = Pending::default();
        p.push_text("ab");
        p.push_task(task("1", TaskStatus::InProgress));
        p.push_text("cé");
        p.push_text("d");
        assert_eq!(p.text_len(), 6);
        // 3 bytes of room: "ab", the task, then "c" (the "é" does not fit whole).
        let taken = p.take(3, 50);
        assert_eq!(taken, vec![Chunk::Text("ab".into()), Chunk::Task(task("1", TaskStatus::InProgress)), Chunk::Text("c".into())]);
        assert_eq!((p.text_len(), text_of(&p.take(100, 50))), (3, "éd".to_string()));
        assert!(p.is_empty());
    }

    #[test]
    fn what_is_taken_and_put_back_is_the_buffer_as_it_was() {
        let mut p = Pending::default();
        p.push_task(task("1", TaskStatus::InProgress));
        p.push_text("hello ");
        p.push_task(task("1", TaskStatus::Complete));
        p.push_text("world");
        let whole = p.clone().take(usize::MAX, usize::MAX);
        for room in 0..12 {
            for max in 1..5 {
                let mut q = p.clone();
                let taken = q.take(room, max);
                assert!(taken.len() <= max && text_of(&taken).len() <= room, "room {room}, max {max}: {taken:?}");
                q.put_back(taken);
                assert_eq!((q.text_len(), q.take(usize::MAX, usize::MAX)), (11, whole.clone()), "room {room}, max {max}");
            }
        }
    }

    #[test]
    fn an_update_changes_a_shown_task_in_place_and_a_new_one_is_added_at_the_end() {
        let mut shown = vec![task("1", TaskStatus::InProgress), task("2", TaskStatus::InProgress)];
        apply(&mut shown, &[task("1", TaskStatus::Complete), task("3", TaskStatus::InProgress)]);
        let statuses: Vec<_> = shown.iter().map(|t| (t.id.as_str(), t.status)).collect();
        assert_eq!(statuses, [("1", TaskStatus::Complete), ("2", TaskStatus::InProgress), ("3", TaskStatus::InProgress)]);
        assert_eq!(shown[1].ended(TaskStatus::Error).status, TaskStatus::Error);
        assert_eq!(shown[0].ended(TaskStatus::Error).status, TaskStatus::Complete, "an ended task keeps its end");
    }

    #[test]
    fn a_task_updated_twice_in_one_call_is_sent_once_where_it_first_was() {
        let chunks = vec![
            Chunk::Task(task("1", TaskStatus::InProgress)),
            Chunk::Text("looked it up".into()),
            Chunk::Task(task("1", TaskStatus::Complete)),
            Chunk::Task(task("2", TaskStatus::InProgress)),
        ];
        let sent = compact(chunks);
        assert_eq!(
            sent,
            vec![Chunk::Task(task("1", TaskStatus::Complete)), Chunk::Text("looked it up".into()), Chunk::Task(task("2", TaskStatus::InProgress))]
        );
    }
}
