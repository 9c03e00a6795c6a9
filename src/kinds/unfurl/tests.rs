use super::*;
use crate::slack::classify::{classify_slack_error, Verdict};

fn posted() -> Value {
    json!({
        "type": "link_shared", "channel": "C1", "is_bot_user_member": true, "user": "U1", "message_ts": "1700000000.000100",
        "thread_ts": "1699999999.000100", "unfurl_id": "C1.1700000000.000100.abc", "source": "conversations_history",
        "links": [
            {"domain": "tickets.example.com", "url": "https://tickets.example.com/T-1"},
            {"domain": "example.com", "url": "https://wiki.example.com/page"},
            {"domain": "other.test", "url": "https://other.test/x"}
        ],
        "event_ts": "1700000000.000200"
    })
}

fn in_composer() -> Value {
    json!({
        "type": "link_shared", "channel": "COMPOSER", "user": "U1", "message_ts": "U1-909b5454-75f8", "unfurl_id": "U1-909b5454-75f8",
        "source": "composer", "links": [{"domain": "tickets.example.com", "url": "https://tickets.example.com/T-2"}], "event_ts": "1.2"
    })
}

#[test]
fn a_link_shared_event_reads_as_its_links_and_where_they_are() {
    let links = LinkShared::from_event(&posted()).unwrap();
    assert_eq!((links.channel.as_str(), links.message_ts.as_str(), links.thread_ts.as_deref()), ("C1", "1700000000.000100", Some("1699999999.000100")));
    assert_eq!(
        (links.source, links.unfurl_id.as_deref(), links.is_bot_user_member),
        (Some(LinkSource::ConversationsHistory), Some("C1.1700000000.000100.abc"), true)
    );
    assert_eq!(links.links.len(), 3);
    let composer = LinkShared::from_event(&in_composer()).unwrap();
    assert!(composer.in_composer());
    let mut other = in_composer();
    other["source"] = json!("somewhere_new");
    assert_eq!(LinkShared::from_event(&other).unwrap().source, Some(LinkSource::Other("somewhere_new".into())), "an unknown source is kept, not refused");
}

#[test]
fn a_link_shared_event_slack_could_not_be_answered_for_is_refused_naming_why() {
    let mut no_links = posted();
    no_links.as_object_mut().unwrap().remove("links");
    assert!(LinkShared::from_event(&no_links).unwrap_err().contains("links"));
    let mut lost_id = in_composer();
    lost_id.as_object_mut().unwrap().remove("unfurl_id");
    assert_eq!(LinkShared::from_event(&lost_id).unwrap_err(), "link_shared from the composer without an unfurl_id");
}

#[test]
fn a_domain_takes_its_links_and_its_subdomains_and_no_others() {
    let links = LinkShared::from_event(&posted()).unwrap();
    let tickets = links.only_in("tickets.example.com").unwrap();
    assert_eq!(tickets.links.iter().map(|l| l.url.as_str()).collect::<Vec<_>>(), ["https://tickets.example.com/T-1"]);
    assert_eq!(links.only_in("EXAMPLE.com").unwrap().links.len(), 2, "the domain and its subdomains, in any case");
    assert_eq!(links.only_in("nowhere.test"), None);
    let link = SharedLink { url: "https://user@a.tickets.example.com:8443/T-1?x#y".into(), domain: "elsewhere".into() };
    assert!(link.in_domain("tickets.example.com") && !link.in_domain("ample.com"), "the host, not its text");
}

#[test]
fn a_posted_messages_links_unfurl_by_channel_and_ts_and_a_composers_by_unfurl_id_and_source() {
    let posted = LinkShared::from_event(&posted()).unwrap();
    assert_eq!(UnfurlTarget::of(&posted), UnfurlTarget::Message { channel: "C1".into(), ts: "1700000000.000100".into() });
    let composer = LinkShared::from_event(&in_composer()).unwrap();
    assert_eq!(UnfurlTarget::of(&composer), UnfurlTarget::Link { unfurl_id: "U1-909b5454-75f8".into(), source: "composer".into() });
    let (method, args) = unfurl_call(&UnfurlTarget::of(&composer), &Unfurls::new().blocks("https://tickets.example.com/T-2", json!([])));
    assert_eq!(method, "chat.unfurl");
    assert_eq!(args, json!({"unfurl_id": "U1-909b5454-75f8", "source": "composer", "unfurls": {"https://tickets.example.com/T-2": {"blocks": []}}}));
}

#[test]
fn a_sharing_is_keyed_by_its_unfurl_id_or_its_message_and_a_click_by_its_trigger() {
    let mut links = LinkShared::from_event(&posted()).unwrap();
    assert_eq!(link_fact(&links), "link:C1.1700000000.000100.abc");
    links.unfurl_id = None;
    assert_eq!(link_fact(&links), "link:C1:1700000000.000100");
    let click = EntityDetailsRequest::from_event(&details_event()).unwrap();
    assert_eq!(details_fact(&click), "entity:1234.5678.abcdef");
}

#[test]
fn a_work_object_is_slacks_entity_json_with_its_title_and_the_link_as_posted() {
    let entity = Entity::task("T-1", "https://tickets.example.com/T-1", "Printer on fire")
        .ref_type("ticket")
        .field("status", json!({"value": "open"}))
        .attribute("product_name", json!("Tickets"))
        .payload("display_order", json!(["status"]));
    let unfurls = Unfurls::new().entity("https://tickets.example.com/T-1?from=chat", entity);
    let (_, args) = unfurl_call(&UnfurlTarget::Message { channel: "C1".into(), ts: "1.2".into() }, &unfurls);
    assert_eq!(
        args,
        json!({"channel": "C1", "ts": "1.2", "metadata": {"entities": [{
            "app_unfurl_url": "https://tickets.example.com/T-1?from=chat",
            "url": "https://tickets.example.com/T-1",
            "external_ref": {"id": "T-1", "type": "ticket"},
            "entity_type": "slack#/entities/task",
            "entity_payload": {
                "attributes": {"title": {"text": "Printer on fire"}, "product_name": "Tickets"},
                "fields": {"status": {"value": "open"}},
                "display_order": ["status"]
            }
        }]}}),
        "no `unfurls` when only Work Objects are given"
    );
    let types = [Entity::item("i", "u", "t"), Entity::incident("i", "u", "t"), Entity::file("i", "u", "t"), Entity::content_item("i", "u", "t")];
    let names: Vec<Value> = types.iter().map(|e| e.to_json()["entity_type"].clone()).collect();
    assert_eq!(names, [json!("slack#/entities/item"), json!("slack#/entities/incident"), json!("slack#/entities/file"), json!("slack#/entities/content_item")]);
}

#[test]
fn the_typed_title_wins_and_raw_json_passes_as_given() {
    let entity = Entity::new(EntityType::Named("slack#/entities/thing".into()), "1", "u", "Typed").attribute("title", json!({"text": "raw"}));
    assert_eq!(entity.to_json()["entity_payload"]["attributes"]["title"]["text"], "Typed");
    assert_eq!(entity.to_json()["entity_type"], "slack#/entities/thing");
    let raw = json!({"app_unfurl_url": "u", "entity_type": "slack#/entities/file", "external_ref": {"id": "f"}, "url": "u", "entity_payload": {}});
    let unfurls = Unfurls::new().attachment("https://a.test/1", json!({"text": "classic"})).entity_json(raw.clone());
    assert_eq!(unfurls.args()["unfurls"], json!({"https://a.test/1": {"text": "classic"}}));
    assert_eq!(unfurls.args()["metadata"]["entities"][0], raw);
    assert!(Unfurls::new().is_empty() && Unfurls::new().args().is_empty());
}

fn details_event() -> Value {
    json!({
        "type": "entity_details_requested", "user": "U1", "external_ref": {"id": "T-1", "type": "ticket"},
        "entity_url": "https://tickets.example.com/T-1", "link": {"url": "https://tickets.example.com/T-1?from=chat", "domain": "tickets.example.com"},
        "app_unfurl_url": "https://tickets.example.com/T-1?from=chat", "event_ts": "1.2", "trigger_id": "1234.5678.abcdef",
        "user_locale": "en-US", "channel": "C1", "message_ts": "1700000000.000100", "thread_ts": "1700000000.000100"
    })
}

#[test]
fn an_entity_details_requested_event_reads_as_the_click_and_needs_a_trigger_and_a_ref() {
    let click = EntityDetailsRequest::from_event(&details_event()).unwrap();
    assert_eq!((click.trigger_id.as_str(), click.external_ref.id.as_str(), click.external_ref.kind.as_deref()), ("1234.5678.abcdef", "T-1", Some("ticket")));
    assert_eq!((click.user.as_deref(), click.channel.as_deref(), click.message_ts.as_deref()), (Some("U1"), Some("C1"), Some("1700000000.000100")));
    assert_eq!((click.entity_url.as_deref(), click.user_locale.as_deref()), (Some("https://tickets.example.com/T-1"), Some("en-US")));
    assert_eq!(click.link.unwrap().domain, "tickets.example.com");
    for missing in ["trigger_id", "external_ref"] {
        let mut broken = details_event();
        broken.as_object_mut().unwrap().remove(missing);
        assert!(EntityDetailsRequest::from_event(&broken).unwrap_err().contains(missing), "{missing}");
    }
    let mut empty = details_event();
    empty["trigger_id"] = json!("");
    assert!(EntityDetailsRequest::from_event(&empty).is_err());
}

#[test]
fn a_flexpane_names_its_trigger_with_the_entity_an_error_or_the_arguments_given() {
    let entity = Entity::task("T-1", "https://tickets.example.com/T-1", "Printer on fire");
    let (method, args) = details_call("trig.1", &entity.clone().into());
    assert_eq!(method, "entity.presentDetails");
    assert_eq!(args, json!({"trigger_id": "trig.1", "metadata": entity.to_json()}));
    assert!(args["metadata"].get("app_unfurl_url").is_none(), "a flexpane's entity is the entity alone");
    let (_, args) = details_call("trig.2", &DetailsError::NotFound.into());
    assert_eq!(args, json!({"trigger_id": "trig.2", "error": {"status": "not_found"}}));
    let custom = Details::Error(DetailsError::Custom { title: "Locked".into(), message: "Ask an admin".into() });
    assert_eq!(details_call("t", &custom).1["error"], json!({"status": "custom", "custom_title": "Locked", "custom_message": "Ask an admin"}));
    let raw = Details::Raw(json!({"user_auth_required": true, "user_auth_url": "https://a.test/login", "trigger_id": "ignored"}));
    assert_eq!(details_call("trig.3", &raw).1, json!({"trigger_id": "trig.3", "user_auth_required": true, "user_auth_url": "https://a.test/login"}));
}

#[test]
fn slacks_refusals_of_an_unfurl_or_a_flexpane_park_at_once_and_its_hiccups_retry() {
    for code in [
        "cannot_unfurl_url",
        "cannot_unfurl_message",
        "cannot_find_message",
        "cannot_find_channel",
        "invalid_unfurl_id",
        "invalid_source",
        "invalid_unfurls_format",
        "invalid_metadata_format",
        "error_processing_metadata",
        "missing_unfurls",
        "entity_metadata_does_not_match_trigger",
        "invalid_metadata",
        "invalid_trigger_id",
        "expired_trigger_id",
    ] {
        assert_eq!(classify_slack_error(code), Verdict::Permanent { code: code.into() }, "{code}");
    }
    for code in ["internal_error", "service_unavailable"] {
        assert!(matches!(classify_slack_error(code), Verdict::Transient { .. }), "{code}");
    }
}
