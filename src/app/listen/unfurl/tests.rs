use crate::app::listen::cx::TRIGGER_DEADLINE_MS;
use crate::app::listen::Listeners;
use crate::kinds::unfurl::{DetailsError, Entity, Unfurls, UNFURL_DEADLINE_MS};
use crate::testing::{entity_details_requested, event, handle, link_shared, link_shared_in_composer, mention, Team};
use serde_json::json;

const TICKET: &str = "https://tickets.example.com/T-1";

/// Tickets unfurled as Work Objects, any other link as a line of text; a click shows the ticket.
fn app() -> Listeners {
    Listeners::new()
        .unfurl("tickets.example.com", |links, cx| {
            let mut unfurls = Unfurls::new();
            for link in &links.links {
                let id = link.url.rsplit('/').next().unwrap_or_default();
                unfurls = unfurls.entity(&link.url, Entity::task(id, &link.url, &format!("Ticket {id}")));
            }
            cx.unfurl(unfurls);
            Ok(())
        })
        .link_shared(|links, cx| {
            let unfurls = links.links.iter().fold(Unfurls::new(), |u, l| u.attachment(&l.url, json!({"text": "a link"})));
            cx.unfurl(unfurls);
            Ok(())
        })
        .entity_details(|click, cx| {
            match click.external_ref.id.as_str() {
                "gone" => cx.present_details(DetailsError::NotFound),
                id => cx.present_details(Entity::task(id, click.entity_url.as_deref().unwrap_or_default(), &format!("Ticket {id}"))),
            };
            Ok(())
        })
}

#[test]
fn a_posted_link_of_the_domain_unfurls_as_a_work_object_in_its_message_once_per_sharing() {
    let shared = link_shared("C1", &[TICKET, "https://elsewhere.test/a"]);
    let done = handle(&app(), &shared);
    let queued = done.queued();
    assert_eq!(queued.len(), 1, "{queued:?}");
    let u = &queued[0];
    assert_eq!((u.method.as_str(), u.args["channel"].as_str(), u.args["source"].as_str()), ("chat.unfurl", Some("C1"), None));
    assert!(u.args["ts"].is_string() && u.args.get("unfurl_id").is_none(), "a posted message is named by channel + ts");
    let entities = u.args["metadata"]["entities"].as_array().unwrap();
    assert_eq!(entities.len(), 1, "only the domain's links: {entities:?}");
    assert_eq!((entities[0]["app_unfurl_url"].as_str(), entities[0]["external_ref"]["id"].as_str()), (Some(TICKET), Some("T-1")));
    assert!(u.key.starts_with("link:C1.") && u.key.ends_with(":unfurl"), "keyed by the sharing's unfurl_id: {}", u.key);
    assert_eq!(u.deadline_ms, Some(UNFURL_DEADLINE_MS));
    assert_eq!(handle(&app(), &shared).keys(), done.keys(), "the same sharing again: the same key");
}

#[test]
fn a_composers_link_unfurls_by_its_unfurl_id_and_source() {
    let done = handle(&app(), &link_shared_in_composer(&[TICKET]));
    let args = &done.queued()[0].args;
    assert_eq!(args["source"], "composer");
    assert!(args["unfurl_id"].as_str().is_some_and(|id| id.starts_with("U1-")));
    assert!(args.get("channel").is_none() && args.get("ts").is_none(), "no message to name: {args}");
}

#[test]
fn a_sharing_of_no_listed_domain_goes_to_the_next_listener() {
    let done = handle(&app(), &link_shared("C2", &["https://elsewhere.test/a"]));
    let args = &done.queued()[0].args;
    assert_eq!(args["unfurls"], json!({"https://elsewhere.test/a": {"text": "a link"}}));
    assert!(args.get("metadata").is_none());
    let only_tickets = Listeners::new().unfurl("tickets.example.com", |_, _| Ok(()));
    assert_eq!(handle(&only_tickets, &link_shared("C2", &["https://elsewhere.test/a"])).ignored, Some("no_listener"));
}

#[test]
fn a_click_on_a_work_object_presents_its_flexpane_with_the_trigger_within_its_life() {
    let done = handle(&app(), &entity_details_requested("T-1", TICKET));
    let queued = done.queued();
    assert_eq!(queued.len(), 1);
    let p = &queued[0];
    assert_eq!(p.method, "entity.presentDetails");
    assert!(p.args["trigger_id"].as_str().is_some_and(|t| t.starts_with("trig.")));
    assert_eq!(p.args["metadata"]["entity_payload"]["attributes"]["title"]["text"], "Ticket T-1");
    assert_eq!(p.deadline_ms, Some(TRIGGER_DEADLINE_MS), "a trigger lives 3 s");
    assert_eq!(p.key, format!("entity:{}:present_details", p.args["trigger_id"].as_str().unwrap()));
    let gone = handle(&app(), &entity_details_requested("gone", TICKET));
    assert_eq!(gone.queued()[0].args["error"], json!({"status": "not_found"}));
}

#[test]
fn unfurling_elsewhere_or_nothing_and_a_flexpane_without_a_trigger_are_misuses() {
    let elsewhere = Listeners::new().mention(|_, cx| {
        cx.unfurl(Unfurls::new().attachment(TICKET, json!({})));
        Ok(())
    });
    let failed = Team::new().handle(&elsewhere, &mention("C1", "U1", "<@UBOT> hi")).failed;
    assert!(failed.as_deref().is_some_and(|e| e.contains("not a link_shared")), "{failed:?}");
    let nothing = Listeners::new().link_shared(|_, cx| {
        cx.unfurl(Unfurls::new());
        Ok(())
    });
    let failed = handle(&nothing, &link_shared("C1", &[TICKET])).failed;
    assert!(failed.as_deref().is_some_and(|e| e.contains("nothing to preview")), "{failed:?}");
    let no_trigger = Listeners::new().mention(|_, cx| {
        cx.present_details(DetailsError::NotFound);
        Ok(())
    });
    let failed = handle(&no_trigger, &mention("C1", "U1", "<@UBOT> hi")).failed;
    assert!(failed.as_deref().is_some_and(|e| e.contains("no trigger_id")), "{failed:?}");
}

#[test]
fn a_malformed_sharing_or_click_fails_the_handler_naming_why() {
    let lost = event(json!({"type": "link_shared", "channel": "COMPOSER", "user": "U1", "message_ts": "x", "source": "composer", "links": []}));
    assert_eq!(handle(&app(), &lost).failed.as_deref(), Some("link_shared from the composer without an unfurl_id"));
    let no_ref = event(json!({"type": "entity_details_requested", "trigger_id": "t.1", "user": "U1"}));
    assert!(handle(&app(), &no_ref).failed.as_deref().is_some_and(|e| e.contains("external_ref")));
}

#[test]
fn an_event_listener_still_gets_link_shared_raw() {
    let raw = Listeners::new().event("link_shared", |e, cx| {
        let links: crate::app::listen::LinkShared = e.parse()?;
        cx.say("C9", &links.links[0].url);
        Ok(())
    });
    assert_eq!(handle(&raw, &link_shared("C1", &[TICKET])).calls()[0].1["text"], TICKET);
}
