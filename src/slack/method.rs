//! Every Slack Web API method slackline names, written once, here.
//!
//! A method name is a key several parts of the crate must agree on: the outbox paces and holds
//! calls by it ([`super::tiers`]), the thread state knows which methods post into a thread, the
//! fake Slack routes on it, and a mistyped name is no compile error but Slack's `unknown_method`
//! at delivery time. So the code names a method through these constants, never as a string.
//!
//! The names follow Slack's: the family, then the method (`views.open` → [`VIEWS_OPEN`]), except
//! for `chat.*`, the family a bot uses most, named by the method alone (`chat.update` →
//! [`UPDATE`]). They are `pub` so a bot can use them too; `Cx::api` still takes any `&str`, as a
//! bot may call a method slackline does not name.
//!
//! Invariant: outside this file, no code under `src/` (tests aside) holds a Slack method name as a
//! string literal; `tests/layout.rs` checks it.

// chat.*: messages, and streamed replies.

/// `chat.postMessage`: a message in a channel or a thread.
pub const POST_MESSAGE: &str = "chat.postMessage";
/// `chat.postEphemeral`: a message only one user in the channel sees.
pub const POST_EPHEMERAL: &str = "chat.postEphemeral";
/// `chat.update`: edits a message.
pub const UPDATE: &str = "chat.update";
/// `chat.delete`: deletes a message.
pub const DELETE: &str = "chat.delete";
/// `chat.getPermalink`: a message's URL.
pub const GET_PERMALINK: &str = "chat.getPermalink";
/// `chat.scheduleMessage`: a message Slack posts later.
pub const SCHEDULE_MESSAGE: &str = "chat.scheduleMessage";
/// `chat.deleteScheduledMessage`: cancels a scheduled message.
pub const DELETE_SCHEDULED_MESSAGE: &str = "chat.deleteScheduledMessage";
/// `chat.startStream`: starts a reply streamed in pieces.
pub const START_STREAM: &str = "chat.startStream";
/// `chat.appendStream`: adds text to a streamed reply.
pub const APPEND_STREAM: &str = "chat.appendStream";
/// `chat.stopStream`: ends a streamed reply.
pub const STOP_STREAM: &str = "chat.stopStream";
/// `chat.unfurl`: previews of the links in a message or in the composer (`link_shared`), classic
/// attachments or blocks and, since 2025-10, Work Objects (`metadata.entities`).
pub const UNFURL: &str = "chat.unfurl";

// reactions.*: emoji on a message.

/// `reactions.add`: adds an emoji reaction.
pub const REACTIONS_ADD: &str = "reactions.add";
/// `reactions.remove`: removes an emoji reaction.
pub const REACTIONS_REMOVE: &str = "reactions.remove";
/// `reactions.get`: a message's reactions.
pub const REACTIONS_GET: &str = "reactions.get";
/// `reactions.list`: the reactions a user made.
pub const REACTIONS_LIST: &str = "reactions.list";

// views.*: modals and the App Home.

/// `views.open`: opens a modal (needs a fresh `trigger_id`).
pub const VIEWS_OPEN: &str = "views.open";
/// `views.push`: pushes a modal onto an open one.
pub const VIEWS_PUSH: &str = "views.push";
/// `views.update`: replaces a view (a modal, or a Home tab).
pub const VIEWS_UPDATE: &str = "views.update";
/// `views.publish`: a user's App Home tab.
pub const VIEWS_PUBLISH: &str = "views.publish";

// entity.*: Work Objects.

/// `entity.presentDetails`: a Work Object's flexpane, answering `entity_details_requested` (needs
/// its fresh `trigger_id`).
pub const ENTITY_PRESENT_DETAILS: &str = "entity.presentDetails";

// assistant.threads.*: the AI assistant's thread.

/// `assistant.threads.setStatus`: the "is thinking…" line under a thread.
pub const ASSISTANT_THREADS_SET_STATUS: &str = "assistant.threads.setStatus";
/// `assistant.threads.setSuggestedPrompts`: the prompts offered in a new thread.
pub const ASSISTANT_THREADS_SET_SUGGESTED_PROMPTS: &str = "assistant.threads.setSuggestedPrompts";
/// `assistant.threads.setTitle`: a thread's title in the history.
pub const ASSISTANT_THREADS_SET_TITLE: &str = "assistant.threads.setTitle";

// functions.*: Workflow Builder custom steps.

/// `functions.completeSuccess`: ends a step's execution with its outputs.
pub const FUNCTIONS_COMPLETE_SUCCESS: &str = "functions.completeSuccess";
/// `functions.completeError`: ends a step's execution with an error.
pub const FUNCTIONS_COMPLETE_ERROR: &str = "functions.completeError";

// agents.sessions.*: an agent's session in a thread (2026-08).

/// `agents.sessions.setStatus`: a session's status (`processing`, `active`, `suspended`,
/// `closed`); the first call creates the session (its `title` and `initiator_user_id` count then).
pub const AGENTS_SESSIONS_SET_STATUS: &str = "agents.sessions.setStatus";
/// `agents.sessions.rename`: a session's title.
pub const AGENTS_SESSIONS_RENAME: &str = "agents.sessions.rename";

// slackLists.*: Slack Lists and their rows.

/// `slackLists.create`: a new list.
pub const SLACK_LISTS_CREATE: &str = "slackLists.create";
/// `slackLists.update`: a list's details.
pub const SLACK_LISTS_UPDATE: &str = "slackLists.update";
/// `slackLists.items.list`: a page of a list's rows.
pub const SLACK_LISTS_ITEMS_LIST: &str = "slackLists.items.list";
/// `slackLists.items.info`: one row.
pub const SLACK_LISTS_ITEMS_INFO: &str = "slackLists.items.info";
/// `slackLists.items.create`: a new row.
pub const SLACK_LISTS_ITEMS_CREATE: &str = "slackLists.items.create";
/// `slackLists.items.update`: a row's cells.
pub const SLACK_LISTS_ITEMS_UPDATE: &str = "slackLists.items.update";
/// `slackLists.items.delete`: deletes a row.
pub const SLACK_LISTS_ITEMS_DELETE: &str = "slackLists.items.delete";

// conversations.* and users.*: what the app reads about channels and people.

/// `conversations.info`: a channel's details.
pub const CONVERSATIONS_INFO: &str = "conversations.info";
/// `conversations.replies`: a thread's messages.
pub const CONVERSATIONS_REPLIES: &str = "conversations.replies";
/// `conversations.history`: a channel's messages.
pub const CONVERSATIONS_HISTORY: &str = "conversations.history";
/// `users.info`: a user's profile.
pub const USERS_INFO: &str = "users.info";

// auth.* and oauth.*: tokens.

/// `auth.test`: whose token this is (team, bot user).
pub const AUTH_TEST: &str = "auth.test";
/// `oauth.v2.access`: trades an install code, or a refresh token, for tokens.
pub const OAUTH_V2_ACCESS: &str = "oauth.v2.access";
