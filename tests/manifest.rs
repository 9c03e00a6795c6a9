//! The committed Slack app manifests ask for exactly what the code uses: the shipped bot's
//! `manifest.json` the default bot scopes, the stable routes, the events slackline handles and the
//! agent messaging experience (`agent_view`) it serves, within Slack's limits; `template/`'s (which
//! `make new` copies) and the ticket desk's their own scopes, written once (their `worker!`
//! compiles the manifest in).
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

fn strings(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect()
}

#[test]
fn the_shipped_manifest_asks_for_the_default_bot_scopes() {
    assert_eq!(strings(&manifest()["oauth_config"]["scopes"]["bot"]).join(","), DEFAULT_BOT_SCOPES);
}

/// The scopes a bot's manifest asks for, which are those its installs ask for: its `worker!`
/// compiles the manifest in, and its `wrangler.toml` does not override them with
/// `SLACK_BOT_SCOPES` (the scopes are written once).
fn own_scopes(dir: &str) -> Vec<String> {
    let scopes = strings(&read(&format!("{dir}/manifest.json"))["oauth_config"]["scopes"]["bot"]);
    let file = |name: &str| std::fs::read_to_string(format!("{}/{dir}/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    assert!(!file("wrangler.toml").lines().any(|l| l.starts_with("SLACK_BOT_SCOPES")), "{dir}: the scopes are the manifest's, not kept again in wrangler.toml");
    assert!(file("src/lib.rs").contains("worker!(app, manifest = \"manifest.json\")"), "{dir}: its worker! compiles the manifest in");
    scopes
}

/// The ticket desk unfurls its links: `links:read` for `link_shared`, `links:write` for
/// `chat.unfurl` and the flexpane.
#[test]
fn the_ticket_desk_asks_for_the_link_scopes_in_its_manifest() {
    let scopes = own_scopes("examples/tickets");
    for used in ["links:read", "links:write", "commands", "chat:write"] {
        assert!(scopes.iter().any(|s| s == used), "the ticket desk needs {used}");
    }
}

/// The template is a starting point: its manifest asks for what its two listeners use (a
/// mention and a command) and nothing else; README.md's snippets say what each addition asks for.
#[test]
fn the_template_asks_only_for_what_its_mention_and_command_use() {
    assert_eq!(own_scopes("template"), ["app_mentions:read", "chat:write", "commands"]);
    let m = read("template/manifest.json");
    assert_eq!(strings(&m["settings"]["event_subscriptions"]["bot_events"]), ["app_mention", "app_uninstalled", "tokens_revoked"]);
    let features: Vec<&String> = m["features"].as_object().unwrap().keys().collect();
    assert_eq!(features, ["bot_user", "slash_commands"], "no agent view, app home or unfurls it does not serve");
    assert!(m.get("functions").is_none() && m["settings"].get("interactivity").is_none(), "no step, no buttons");
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
fn the_shipped_manifest_subscribes_to_the_events_slackline_handles() {
    let handled = ["app_mention", "message.im", "app_uninstalled", "tokens_revoked", "app_home_opened", "app_context_changed", "agent_session_stopped"];
    for (path, m) in [("manifest.json", manifest())] {
        let events = strings(&m["settings"]["event_subscriptions"]["bot_events"]);
        for event in handled {
            assert!(events.iter().any(|e| e == event), "{path}: {event}");
        }
    }
}

#[test]
fn the_shipped_manifest_declares_the_agent_view_within_slacks_limits() {
    for (path, m) in [("manifest.json", manifest())] {
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
