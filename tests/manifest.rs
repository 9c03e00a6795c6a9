//! The committed Slack app manifest asks for exactly what the code uses: the default bot scopes,
//! the stable routes, and the events slackline handles.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::Value;
use slackline::oauth::DEFAULT_BOT_SCOPES;

fn manifest() -> Value {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/manifest.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn the_manifest_asks_for_the_default_bot_scopes() {
    let scopes: Vec<String> = manifest()["oauth_config"]["scopes"]["bot"].as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect();
    assert_eq!(scopes.join(","), DEFAULT_BOT_SCOPES);
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
fn the_manifest_subscribes_to_the_events_slackline_handles() {
    let events = manifest()["settings"]["event_subscriptions"]["bot_events"].clone();
    for event in ["app_mention", "message.im", "app_uninstalled", "tokens_revoked"] {
        assert!(events.as_array().unwrap().iter().any(|e| e == event), "{event}");
    }
}
