//! The unfurl inputs: `link` (U1 shares links of the app's domains: `link_shared`, in a posted
//! message or, with `--source composer`, still in the composer) and `entity-details` (U1 clicks a
//! Work Object: `entity_details_requested`, with a fresh `trigger_id` the fake Slack dates). Each
//! is one signed event, sent like the other inputs (`super::run_input`): the ack printed, with
//! what a later command or `--wait chat.unfurl` / `--wait entity.presentDetails` needs (the
//! sharing's `unfurl_id`, the click's trigger).

use super::{Input, InputOptions};
use crate::client::{entity_details_requested, fresh_id, fresh_trigger_id, fresh_ts, link_shared, Ack, SendError};
use clap::Args;
use serde_json::Value;

/// `link`'s options.
#[derive(Debug, Clone, PartialEq, Args)]
pub struct LinkOptions {
    #[command(flatten)]
    pub(super) input: InputOptions,
    /// A link shared (repeatable), e.g. `https://tickets.example.test/T-1` (`--url` is slackline's)
    #[arg(long = "link", value_name = "URL", required = true, action = clap::ArgAction::Append)]
    links: Vec<String>,
    /// The message's channel (conversations_history) [default: a fresh one]
    #[arg(long, value_name = "C")]
    channel: Option<String>,
    /// Where the links are: in a posted message, or still in the composer (no message yet)
    #[arg(long, value_name = "S", value_parser = ["conversations_history", "composer"], default_value = "conversations_history")]
    source: String,
}

/// `entity-details`' options.
#[derive(Debug, Clone, PartialEq, Args)]
pub struct DetailsOptions {
    #[command(flatten)]
    pub(super) input: InputOptions,
    /// The Work Object's URL (its entity_url and the link unfurled; `--url` is slackline's)
    #[arg(long = "entity-url", value_name = "URL")]
    entity_url: String,
    /// Its id in the app's system (external_ref.id) [default: the entity URL's last path segment]
    #[arg(long, value_name = "ID")]
    id: Option<String>,
    /// The channel of the message it is in [default: a fresh one]
    #[arg(long, value_name = "C")]
    channel: Option<String>,
    /// That message's ts [default: a fresh one]
    #[arg(long, value_name = "TS")]
    ts: Option<String>,
}

impl LinkOptions {
    /// The input it sends.
    pub fn input(self) -> (InputOptions, Input) {
        (self.input, Input::Link { urls: self.links, channel: self.channel, source: self.source })
    }
}

impl DetailsOptions {
    /// The input it sends.
    pub fn input(self) -> (InputOptions, Input) {
        let id = self.id.unwrap_or_else(|| last_segment(&self.entity_url));
        (self.input, Input::EntityDetails { url: self.entity_url, id, channel: self.channel, ts: self.ts })
    }
}

/// The last non-empty path segment of a URL (`https://a.test/T-1?x` → `T-1`).
fn last_segment(url: &str) -> String {
    let path = url.split(['?', '#']).next().unwrap_or_default();
    path.rsplit('/').find(|s| !s.is_empty()).unwrap_or_default().to_string()
}

/// Sends `link`'s `link_shared` through `event`; the report's note names the sharing.
pub(super) fn share(
    event: &dyn Fn(Value) -> Result<Ack, SendError>,
    urls: &[String],
    channel: Option<&str>,
    source: &str,
) -> Result<(Ack, Option<String>), SendError> {
    let (channel, ts, unfurl_id) = (channel.map_or_else(|| fresh_id("C"), str::to_string), fresh_ts(), fresh_id("Ux"));
    let ack = event(link_shared(&channel, &ts, urls, source, &unfurl_id))?;
    let place = match source {
        "composer" => "in the composer".to_string(),
        _ => format!("in message ts={ts} of {channel}"),
    };
    Ok((ack, Some(format!("shared {} link(s) {place}, unfurl_id {unfurl_id}", urls.len()))))
}

/// Sends `entity-details`' `entity_details_requested` through `event`; the note names its trigger.
pub(super) fn click(
    event: &dyn Fn(Value) -> Result<Ack, SendError>,
    url: &str,
    id: &str,
    channel: Option<&str>,
    ts: Option<&str>,
) -> Result<(Ack, Option<String>), SendError> {
    let (channel, ts, trigger) = (channel.map_or_else(|| fresh_id("C"), str::to_string), ts.map_or_else(fresh_ts, str::to_string), fresh_trigger_id());
    let ack = event(entity_details_requested(id, url, &channel, &ts, &trigger))?;
    Ok((ack, Some(format!("clicked Work Object {id} in message ts={ts} of {channel}, trigger_id {trigger} (it lives 3 s)"))))
}
