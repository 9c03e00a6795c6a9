use super::*;
use crate::outbox::RowId;

fn every_route() -> Vec<Routed> {
    let (admin, api) = crate::routes::examples();
    admin.into_iter().map(Routed::Admin).chain(api.into_iter().map(Routed::Api)).collect()
}

#[test]
fn every_route_is_understood_by_this_actor_in_both_forms() {
    for routed in every_route() {
        for form in [RouteForm::Header, RouteForm::Path] {
            let out = routed.outgoing(form);
            assert_eq!(classify(out.verb, &out.path, Some(&out.route)), ActorRequest::Routed(routed.clone()), "{routed:?} in {form:?}");
        }
        // The path form alone, as the releases before the route header sent it.
        let out = routed.outgoing(RouteForm::Path);
        assert_eq!(classify(out.verb, &out.path, None), ActorRequest::Routed(routed.clone()), "{routed:?} without a route header");
    }
}

#[test]
fn the_path_form_is_what_the_releases_before_the_route_header_sent() {
    let path = |r: Routed| {
        let o = r.outgoing(RouteForm::Path);
        (o.verb, o.path)
    };
    assert_eq!(path(Routed::Admin(AdminRoute::Redrive { id: RowId(9) })), (Verb::Post, "/admin/outbox/9/redrive".to_string()));
    assert_eq!(path(Routed::Admin(AdminRoute::Discard { id: RowId(9) })), (Verb::Delete, "/admin/outbox/9".to_string()));
    assert_eq!(path(Routed::Api(ApiRoute::PostMessage)), (Verb::Post, "/messages".to_string()));
    assert_eq!(path(Routed::Api(ApiRoute::PutStatus { name: "s".into() })), (Verb::Put, "/status/s".to_string()));
    let record = Routed::Api(ApiRoute::DeleteRecord { list_id: "F1".into(), record_id: "r".into() });
    assert_eq!(path(record), (Verb::Delete, "/lists/F1/records/r".to_string()));
}

#[test]
fn the_header_form_is_what_the_previous_release_reads() {
    let admin = Routed::Admin(AdminRoute::Discard { id: RowId(4) }).outgoing(RouteForm::Header);
    assert_eq!((admin.verb, admin.path.as_str(), admin.route.as_str()), (Verb::Post, "/admin", "DELETE outbox/4"));
    let api = Routed::Api(ApiRoute::GetMessage { id: 5 }).outgoing(RouteForm::Header);
    assert_eq!((api.verb, api.path.as_str(), api.route.as_str()), (Verb::Get, "/api", "GET messages/5"));
}

#[test]
fn what_this_release_cannot_read_is_a_mismatch_not_a_404() {
    // A newer release's route, in either form.
    assert_eq!(classify(Verb::Post, "/api", Some("POST sessions/S1/stop")), ActorRequest::NotUnderstood);
    assert_eq!(classify(Verb::Post, "/admin", Some("POST outbox/7/replay")), ActorRequest::NotUnderstood);
    assert_eq!(classify(Verb::Post, "/admin/outbox/7/replay", None), ActorRequest::NotUnderstood);
    assert_eq!(classify(Verb::Post, "/api", None), ActorRequest::NotUnderstood);
    assert_eq!(classify(Verb::Post, "/sessions", None), ActorRequest::NotUnderstood);
    assert_eq!(classify(Verb::Get, "/ingest", None), ActorRequest::NotUnderstood);
}

#[test]
fn the_request_paths_are_the_same_in_every_release() {
    assert_eq!(classify(Verb::Post, "/ingest", None), ActorRequest::Ingest);
    assert_eq!(classify(Verb::Post, "/installation", None), ActorRequest::Install);
    assert_eq!(classify(Verb::Post, RATE_LIMITED_PATH, None), ActorRequest::RateLimited);
    assert_eq!(classify(Verb::Post, HOUSEKEEP_PATH, None), ActorRequest::Housekeep);
}

#[test]
fn only_a_404_from_an_actor_that_names_no_version_is_sent_again() {
    assert!(retry_in_path_form(404, None));
    assert!(!retry_in_path_form(404, Some("1")), "this release's 404 is an answer");
    assert!(!retry_in_path_form(200, None));
    assert!(!retry_in_path_form(503, None));
    assert_eq!(kept_answer(404), Kept::First);
    assert_eq!(kept_answer(200), Kept::Second);
    assert_eq!(kept_answer(409), Kept::Second);
}

#[test]
fn a_missing_or_unreadable_version_is_zero() {
    assert_eq!(version_of(None), 0);
    assert_eq!(version_of(Some("x")), 0);
    assert_eq!(version_of(Some("1")), 1);
    assert_eq!(version_of(Some(" 2 ")), 2);
}

#[test]
fn the_version_travels_as_its_text() {
    assert_eq!(VERSION.to_string(), VERSION_TEXT);
    assert_eq!(version_of(Some(VERSION_TEXT)), VERSION);
}
