//! The committed Slack app manifests (the shipped bot's `manifest.json`, and `template/`'s, which
//! `make new` copies) ask for exactly what the code uses: the default bot scopes (the template: its own), the stable
//! routes, the events slackline handles, and the agent messaging experience (`agent_view`) the
//! shipped bot serves, within Slack's limits.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::Value;
use slackline::internal::oauth::DEFAULT_BOT_SCOPES;

/// Slack's limit on `features.agent_view.agent_description`, in characters.
const AGENT_DESCRIPTION_MAX: usize = 300;
/// Slack's limit on `features.agent_view.suggested_prompts`.
const SUGGESTED_PROMPTS_MAX: usize = 4;

fn read(path: &str) -> Value {
    let text = std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn manifest() -> Value {
    read("manifest.json")
}

/// Both manifests, by path.
fn manifests() -> [(&'static str, Value); 2] {
    [("manifest.json", manifest()), ("template/manifest.json", read("template/manifest.json"))]
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect()
}

#[test]
fn the_shipped_manifest_asks_for_the_default_bot_scopes() {
    assert_eq!(strings(&manifest()["oauth_config"]["scopes"]["bot"]).join(","), DEFAULT_BOT_SCOPES);
}

/// The scopes a bot's manifest asks for, and those its installs ask for (`SLACK_BOT_SCOPES` in its
/// `wrangler.toml`): the same list, or an install would grant what the manifest does not declare.
fn own_scopes(dir: &str) -> Vec<String> {
    let scopes = strings(&read(&format!("{dir}/manifest.json"))["oauth_config"]["scopes"]["bot"]);
    let wrangler = std::fs::read_to_string(format!("{}/{dir}/wrangler.toml", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let installs = wrangler.lines().find_map(|l| l.strip_prefix("SLACK_BOT_SCOPES = ")).unwrap_or_else(|| panic!("{dir}/wrangler.toml sets SLACK_BOT_SCOPES"));
    assert_eq!(installs.trim_matches('"'), scopes.join(","), "{dir}: its installs ask for its manifest's scopes");
    scopes
}

/// The ticket desk unfurls its links: `links:read` for `link_shared`, `links:write` for
/// `chat.unfurl` and the flexpane.
#[test]
fn the_ticket_desk_asks_for_the_link_scopes_in_its_manifest_and_its_installs() {
    let scopes = own_scopes("examples/tickets");
    for used in ["links:read", "links:write", "commands", "chat:write"] {
        assert!(scopes.iter().any(|s| s == used), "the ticket desk needs {used}");
    }
}

/// The template asks for what its listeners use, and its installs for the same (the default
/// would ask for the shipped bot's, Lists included).
#[test]
fn the_template_asks_for_its_own_scopes_in_its_manifest_and_its_installs() {
    let scopes = own_scopes("template");
    for unused in ["lists:read", "lists:write"] {
        assert!(!scopes.iter().any(|s| s == unused), "the template does not use {unused}");
    }
    for used in ["reactions:write", "commands", "app_mentions:read", "channels:history"] {
        assert!(scopes.iter().any(|s| s == used), "the template's listeners need {used}");
    }
    let events = strings(&read("template/manifest.json")["settings"]["event_subscriptions"]["bot_events"]);
    assert!(events.iter().any(|e| e == "message.channels"), "its message listener needs channel messages");
}

#[test]
fn the_manifest_points_at_the_stable_routes() {
    let m = manifest();
    let urls = [
        (&m["settings"]["event_subscriptions"]["request_url"], "/slack/events"),
        (&m["settings"]["interactivity"]["request_url"], "/slack/interactivity"),
        (&m["features"]["slash_commands"][0]["url"], "/slack/commands"),
        (&m["oauth_config"]["redirect_urls"][0], "/slack/oauth_redirect"),
    ];
    for (url, route) in urls {
        let url = url.as_str().unwrap();
        assert!(url.starts_with("https://") && url.ends_with(route), "{url} should end with {route}");
    }
}

#[test]
fn the_manifests_subscribe_to_the_events_slackline_handles() {
    let handled = ["app_mention", "message.im", "app_uninstalled", "tokens_revoked", "app_home_opened", "app_context_changed", "agent_session_stopped"];
    for (path, m) in manifests() {
        let events = strings(&m["settings"]["event_subscriptions"]["bot_events"]);
        for event in handled {
            assert!(events.iter().any(|e| e == event), "{path}: {event}");
        }
    }
}

#[test]
fn the_manifests_declare_the_agent_view_within_slacks_limits() {
    for (path, m) in manifests() {
        let agent = &m["features"]["agent_view"];
        let description = agent["agent_description"].as_str().unwrap_or_else(|| panic!("{path}: no agent_view.agent_description"));
        let chars = description.chars().count();
        assert!((1..=AGENT_DESCRIPTION_MAX).contains(&chars), "{path}: a description of {chars} characters");
        let prompts = agent["suggested_prompts"].as_array().unwrap_or_else(|| panic!("{path}: no agent_view.suggested_prompts"));
        assert!((1..=SUGGESTED_PROMPTS_MAX).contains(&prompts.len()), "{path}: {} prompts", prompts.len());
        for p in prompts {
            let filled = |field: &str| p[field].as_str().is_some_and(|s| !s.trim().is_empty());
            assert!(filled("title") && filled("message"), "{path}: a prompt needs a title and a message: {p}");
        }
        assert_eq!(m["features"]["app_home"]["messages_tab_enabled"], true, "{path}: the agent's DM is its Messages tab");
        assert!(m["features"].get("assistant_view").is_none(), "{path}: new apps have only agent_view");
    }
}
