//! The admin API's and the service API's routes, parsed by one function each, pure: the Worker
//! turns a request's method and path into a route (or a [`RouteError`]), checks every id it
//! carries, and forwards the route to the team actor in [`ROUTE_HEADER`] as its method and
//! canonical path (`GET outbox/7`: [`AdminRoute::to_header`]), which the actor decodes with the
//! same parse ([`AdminRoute::from_header`]) and matches as the enum. No path is string-matched
//! anywhere else, and an id the actor sees is always valid. (The header was the route as JSON
//! before: a derived `Deserialize` of these two enums was 45 KB of the Worker's wasm.)
//!
//! | method and path (after `/admin/teams/{team}` or `/api/teams/{team}`) | route |
//! | --- | --- |
//! | `GET /stats`, `GET /audit`, `GET /outbox`, `GET /outbox/{id}` | [`AdminRoute::Stats`], `Audit`, `Outbox`, `Row` |
//! | `POST /outbox/{id}/redrive`, `DELETE /outbox/{id}` | `Redrive`, `Discard` |
//! | `GET /scheduled`, `POST /outbox/{id}/cancel` | `Scheduled`, `Cancel` |
//! | `POST /sweep`, `POST /redrive`, `POST /seed` | `Sweep`, `BulkRedrive`, `Seed` |
//! | `GET /meter` (test runtimes only) | `Meter` |
//! | `PUT`, `GET /lists/{list_id}` | [`ApiRoute::PutColumnMap`], `GetColumnMap` |
//! | `PUT`, `GET`, `DELETE /lists/{list_id}/records/{record_id}`, `GET /lists/{list_id}/records` | `PutRecord`, `GetRecord`, `DeleteRecord`, `Records` |
//! | `POST`, `GET /lists/{list_id}/reconcile` | `Reconcile`, `Reconciles` |
//! | `POST /messages`, `GET /messages/{id}` | `PostMessage`, `GetMessage` |
//! | `PUT`, `GET /status/{name}` | `PutStatus`, `GetStatus` |

use crate::kinds::lists::api::{valid_list_id, valid_record_id};
use crate::kinds::notify::valid_status_name;
use crate::outbox::RowId;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The one JSON error body every route answers with (the front door's and the team actor's):
/// `{"ok": false, "error": <a snake_case code>, "message": <a sentence>, "field"?: <the field>}`.
pub fn error_body(code: &str, message: &str, field: Option<&str>) -> Value {
    let mut body = json!({ "ok": false, "error": code, "message": message });
    if let Some(field) = field {
        body["field"] = json!(field);
    }
    body
}

/// The header that carries the typed route from the Worker to the team actor.
pub const ROUTE_HEADER: &str = "x-slackline-route";

/// The HTTP methods the routes take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    /// GET (and HEAD).
    Get,
    /// POST.
    Post,
    /// PUT.
    Put,
    /// DELETE.
    Delete,
    /// Anything else: no route takes it.
    Other,
}

impl Verb {
    /// From the method's name.
    pub fn parse(method: &str) -> Verb {
        match method {
            "GET" | "HEAD" => Verb::Get,
            "POST" => Verb::Post,
            "PUT" => Verb::Put,
            "DELETE" => Verb::Delete,
            _ => Verb::Other,
        }
    }

    /// The method's name ([`Verb::Other`], which no route takes, as `OTHER`).
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Get => "GET",
            Verb::Post => "POST",
            Verb::Put => "PUT",
            Verb::Delete => "DELETE",
            Verb::Other => "OTHER",
        }
    }
}

/// The header value of a route: `{METHOD} {canonical path}`.
fn header_of(verb: Verb, path: &str) -> String {
    format!("{} {path}", verb.as_str())
}

/// A route back from its header value, through its own `parse`.
fn from_header<T>(raw: &str, parse: impl Fn(Verb, &[&str]) -> Result<T, RouteError>) -> Result<T, RouteError> {
    let (method, path) = raw.split_once(' ').ok_or(RouteError::NotFound)?;
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    parse(Verb::parse(method), &segments)
}

/// Why a path is not a route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RouteError {
    /// No such route (404).
    NotFound,
    /// The route exists but an id in it is not valid (400; says which).
    BadId(&'static str),
}

/// A team key as a path carries it: a Slack team or enterprise id (1 to 64 letters, digits, `_`
/// or `-`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamKey(String);

impl TeamKey {
    /// The key, if `raw` is one.
    pub fn parse(raw: &str) -> Result<TeamKey, RouteError> {
        let valid = (1..=64).contains(&raw.len()) && raw.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        valid.then(|| TeamKey(raw.to_string())).ok_or(RouteError::BadId("team must be a Slack team or enterprise id"))
    }

    /// The key.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A route of the admin API, for one team.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdminRoute {
    /// `GET …/stats`.
    Stats,
    /// `GET …/audit`.
    Audit,
    /// `GET …/outbox?status=&limit=&before=`.
    Outbox,
    /// `GET …/outbox/{id}`.
    Row {
        /// The row.
        id: RowId,
    },
    /// `POST …/outbox/{id}/redrive`.
    Redrive {
        /// The row.
        id: RowId,
    },
    /// `DELETE …/outbox/{id}`.
    Discard {
        /// The row.
        id: RowId,
    },
    /// `GET …/scheduled?limit=`: pending scheduled rows, soonest due first.
    Scheduled,
    /// `POST …/outbox/{id}/cancel`: cancel a pending scheduled row.
    Cancel {
        /// The row.
        id: RowId,
    },
    /// `POST …/sweep`.
    Sweep,
    /// `POST …/redrive?reason=&since=&until=&dry_run=&expect=`.
    BulkRedrive,
    /// `GET …/state?prefix=&after=&limit=`: the team's app state, read-only.
    State,
    /// `POST …/seed` (benchmarks only: the actor refuses it unless `ALLOW_BENCH_SEED=1`).
    Seed,
    /// `GET …/meter` (test runtimes only: 404 unless `ALLOW_TEST_CLOCK=1`): the isolate's cost
    /// meter (`crate::meter`).
    Meter,
}

fn row_id(id: &str) -> Result<RowId, RouteError> {
    id.parse::<i64>().ok().filter(|n| *n > 0).map(RowId).ok_or(RouteError::BadId("row id must be a positive whole number"))
}

impl AdminRoute {
    /// The route of `verb` and the path's segments after `/admin/teams/{team}`.
    pub fn parse(verb: Verb, rest: &[&str]) -> Result<AdminRoute, RouteError> {
        Ok(match (verb, rest) {
            (Verb::Get, ["stats"]) => AdminRoute::Stats,
            (Verb::Get, ["audit"]) => AdminRoute::Audit,
            (Verb::Get, ["outbox"]) => AdminRoute::Outbox,
            (Verb::Get, ["outbox", id]) => AdminRoute::Row { id: row_id(id)? },
            (Verb::Delete, ["outbox", id]) => AdminRoute::Discard { id: row_id(id)? },
            (Verb::Post, ["outbox", id, "redrive"]) => AdminRoute::Redrive { id: row_id(id)? },
            (Verb::Get, ["scheduled"]) => AdminRoute::Scheduled,
            (Verb::Post, ["outbox", id, "cancel"]) => AdminRoute::Cancel { id: row_id(id)? },
            (Verb::Post, ["sweep"]) => AdminRoute::Sweep,
            (Verb::Post, ["redrive"]) => AdminRoute::BulkRedrive,
            (Verb::Post, ["seed"]) => AdminRoute::Seed,
            (Verb::Get, ["state"]) => AdminRoute::State,
            (Verb::Get, ["meter"]) => AdminRoute::Meter,
            _ => return Err(RouteError::NotFound),
        })
    }

    /// The route as [`ROUTE_HEADER`] carries it: its method and canonical path.
    pub fn to_header(&self) -> String {
        let (verb, path) = match self {
            AdminRoute::Stats => (Verb::Get, "stats".to_string()),
            AdminRoute::Audit => (Verb::Get, "audit".to_string()),
            AdminRoute::Outbox => (Verb::Get, "outbox".to_string()),
            AdminRoute::Row { id } => (Verb::Get, format!("outbox/{}", id.0)),
            AdminRoute::Discard { id } => (Verb::Delete, format!("outbox/{}", id.0)),
            AdminRoute::Redrive { id } => (Verb::Post, format!("outbox/{}/redrive", id.0)),
            AdminRoute::Scheduled => (Verb::Get, "scheduled".to_string()),
            AdminRoute::Cancel { id } => (Verb::Post, format!("outbox/{}/cancel", id.0)),
            AdminRoute::Sweep => (Verb::Post, "sweep".to_string()),
            AdminRoute::BulkRedrive => (Verb::Post, "redrive".to_string()),
            AdminRoute::Seed => (Verb::Post, "seed".to_string()),
            AdminRoute::State => (Verb::Get, "state".to_string()),
            AdminRoute::Meter => (Verb::Get, "meter".to_string()),
        };
        header_of(verb, &path)
    }

    /// The route a [`ROUTE_HEADER`] value names (what [`AdminRoute::to_header`] wrote).
    pub fn from_header(raw: &str) -> Result<AdminRoute, RouteError> {
        from_header(raw, AdminRoute::parse)
    }
}

/// A route of the service API (`API_TOKEN`), for one team.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApiRoute {
    /// `PUT …/lists/{list_id}`: the column map.
    PutColumnMap {
        /// The List.
        list_id: String,
    },
    /// `GET …/lists/{list_id}`.
    GetColumnMap {
        /// The List.
        list_id: String,
    },
    /// `PUT …/lists/{list_id}/records/{record_id}`.
    PutRecord {
        /// The List.
        list_id: String,
        /// Our record id.
        record_id: String,
    },
    /// `GET …/lists/{list_id}/records/{record_id}`.
    GetRecord {
        /// The List.
        list_id: String,
        /// Our record id.
        record_id: String,
    },
    /// `DELETE …/lists/{list_id}/records/{record_id}`.
    DeleteRecord {
        /// The List.
        list_id: String,
        /// Our record id.
        record_id: String,
    },
    /// `GET …/lists/{list_id}/records?state=&after=&limit=`.
    Records {
        /// The List.
        list_id: String,
    },
    /// `POST …/lists/{list_id}/reconcile`.
    Reconcile {
        /// The List.
        list_id: String,
    },
    /// `GET …/lists/{list_id}/reconcile`.
    Reconciles {
        /// The List.
        list_id: String,
    },
    /// `POST …/messages` (with an `Idempotency-Key`).
    PostMessage,
    /// `GET …/messages/{id}`.
    GetMessage {
        /// The message's id.
        id: i64,
    },
    /// `PUT …/status/{name}`.
    PutStatus {
        /// The status message's name.
        name: String,
    },
    /// `GET …/status/{name}`.
    GetStatus {
        /// The status message's name.
        name: String,
    },
}

impl ApiRoute {
    /// The route of `verb` and the path's segments after `/api/teams/{team}`.
    pub fn parse(verb: Verb, rest: &[&str]) -> Result<ApiRoute, RouteError> {
        match rest {
            ["lists", list_id, tail @ ..] => lists(verb, list_id, tail),
            ["messages"] if verb == Verb::Post => Ok(ApiRoute::PostMessage),
            ["messages", id] if verb == Verb::Get => Ok(ApiRoute::GetMessage { id: id.parse().map_err(|_| RouteError::NotFound)? }),
            ["status", name] if matches!(verb, Verb::Put | Verb::Get) => {
                if !valid_status_name(name) {
                    return Err(RouteError::BadId("a status name is 1 to 64 letters, digits, _, - or ."));
                }
                let name = name.to_string();
                Ok(if verb == Verb::Put { ApiRoute::PutStatus { name } } else { ApiRoute::GetStatus { name } })
            }
            _ => Err(RouteError::NotFound),
        }
    }

    /// The route as [`ROUTE_HEADER`] carries it: its method and canonical path.
    pub fn to_header(&self) -> String {
        let (verb, path) = match self {
            ApiRoute::PutColumnMap { list_id } => (Verb::Put, format!("lists/{list_id}")),
            ApiRoute::GetColumnMap { list_id } => (Verb::Get, format!("lists/{list_id}")),
            ApiRoute::PutRecord { list_id, record_id } => (Verb::Put, format!("lists/{list_id}/records/{record_id}")),
            ApiRoute::GetRecord { list_id, record_id } => (Verb::Get, format!("lists/{list_id}/records/{record_id}")),
            ApiRoute::DeleteRecord { list_id, record_id } => (Verb::Delete, format!("lists/{list_id}/records/{record_id}")),
            ApiRoute::Records { list_id } => (Verb::Get, format!("lists/{list_id}/records")),
            ApiRoute::Reconcile { list_id } => (Verb::Post, format!("lists/{list_id}/reconcile")),
            ApiRoute::Reconciles { list_id } => (Verb::Get, format!("lists/{list_id}/reconcile")),
            ApiRoute::PostMessage => (Verb::Post, "messages".to_string()),
            ApiRoute::GetMessage { id } => (Verb::Get, format!("messages/{id}")),
            ApiRoute::PutStatus { name } => (Verb::Put, format!("status/{name}")),
            ApiRoute::GetStatus { name } => (Verb::Get, format!("status/{name}")),
        };
        header_of(verb, &path)
    }

    /// The route a [`ROUTE_HEADER`] value names (what [`ApiRoute::to_header`] wrote).
    pub fn from_header(raw: &str) -> Result<ApiRoute, RouteError> {
        from_header(raw, ApiRoute::parse)
    }

    /// Whether the route takes a body (the Worker reads it, within its size limit).
    pub fn has_body(&self) -> bool {
        matches!(self, ApiRoute::PutColumnMap { .. } | ApiRoute::PutRecord { .. } | ApiRoute::PostMessage | ApiRoute::PutStatus { .. })
    }

    /// The kind of work that serves this route (no wildcard: a new route names its own).
    pub fn service(&self) -> ApiService {
        match self {
            ApiRoute::PostMessage | ApiRoute::GetMessage { .. } | ApiRoute::PutStatus { .. } | ApiRoute::GetStatus { .. } => ApiService::Notify,
            ApiRoute::PutColumnMap { .. }
            | ApiRoute::GetColumnMap { .. }
            | ApiRoute::PutRecord { .. }
            | ApiRoute::GetRecord { .. }
            | ApiRoute::DeleteRecord { .. }
            | ApiRoute::Records { .. }
            | ApiRoute::Reconcile { .. }
            | ApiRoute::Reconciles { .. } => ApiService::Lists,
        }
    }
}

/// The kinds of work behind the service API: each serves its own routes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiService {
    /// Messages with an idempotency key, status messages (`crate::kinds::notify`).
    Notify,
    /// Records mirrored into Slack Lists (`crate::kinds::lists`).
    Lists,
}

fn lists(verb: Verb, list_id: &str, tail: &[&str]) -> Result<ApiRoute, RouteError> {
    let known = matches!(
        (verb, tail),
        (Verb::Put | Verb::Get, [])
            | (Verb::Put | Verb::Get | Verb::Delete, ["records", _])
            | (Verb::Get, ["records"])
            | (Verb::Post | Verb::Get, ["reconcile"])
    );
    if !known {
        return Err(RouteError::NotFound);
    }
    if !valid_list_id(list_id) {
        return Err(RouteError::BadId("list_id must be a List id (F…)"));
    }
    let list_id = list_id.to_string();
    let record = |record_id: &str| {
        valid_record_id(record_id).then(|| record_id.to_string()).ok_or(RouteError::BadId("record_id must be 1 to 128 letters, digits, _, -, . or :"))
    };
    Ok(match (verb, tail) {
        (Verb::Put, []) => ApiRoute::PutColumnMap { list_id },
        (Verb::Get, []) => ApiRoute::GetColumnMap { list_id },
        (Verb::Put, ["records", id]) => ApiRoute::PutRecord { list_id, record_id: record(id)? },
        (Verb::Get, ["records", id]) => ApiRoute::GetRecord { list_id, record_id: record(id)? },
        (Verb::Delete, ["records", id]) => ApiRoute::DeleteRecord { list_id, record_id: record(id)? },
        (Verb::Get, ["records"]) => ApiRoute::Records { list_id },
        (Verb::Post, ["reconcile"]) => ApiRoute::Reconcile { list_id },
        _ => ApiRoute::Reconciles { list_id },
    })
}

/// One of every route (ids that exercise their checks), for the tests of the routes and of
/// the wire that carries them (`crate::wire`).
#[cfg(test)]
pub(crate) fn examples() -> (Vec<AdminRoute>, Vec<ApiRoute>) {
    let (list, record) = ("F1".to_string(), "r:1.a-b_c".to_string());
    let admin = vec![
        AdminRoute::Stats,
        AdminRoute::Audit,
        AdminRoute::Outbox,
        AdminRoute::Row { id: RowId(7) },
        AdminRoute::Redrive { id: RowId(7) },
        AdminRoute::Discard { id: RowId(7) },
        AdminRoute::Scheduled,
        AdminRoute::Cancel { id: RowId(7) },
        AdminRoute::Sweep,
        AdminRoute::BulkRedrive,
        AdminRoute::State,
        AdminRoute::Seed,
        AdminRoute::Meter,
    ];
    let api = vec![
        ApiRoute::PutColumnMap { list_id: list.clone() },
        ApiRoute::GetColumnMap { list_id: list.clone() },
        ApiRoute::PutRecord { list_id: list.clone(), record_id: record.clone() },
        ApiRoute::GetRecord { list_id: list.clone(), record_id: record.clone() },
        ApiRoute::DeleteRecord { list_id: list.clone(), record_id: record },
        ApiRoute::Records { list_id: list.clone() },
        ApiRoute::Reconcile { list_id: list.clone() },
        ApiRoute::Reconciles { list_id: list },
        ApiRoute::PostMessage,
        ApiRoute::GetMessage { id: 12 },
        ApiRoute::PutStatus { name: "deploy".into() },
        ApiRoute::GetStatus { name: "deploy".into() },
    ];
    (admin, api)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn segments(path: &str) -> Vec<&str> {
        path.split('/').filter(|s| !s.is_empty()).collect()
    }

    #[test]
    fn every_admin_route_parses_with_its_method_only() {
        let cases = [
            (Verb::Get, "stats", AdminRoute::Stats),
            (Verb::Get, "audit", AdminRoute::Audit),
            (Verb::Get, "outbox", AdminRoute::Outbox),
            (Verb::Get, "outbox/7", AdminRoute::Row { id: RowId(7) }),
            (Verb::Delete, "outbox/7", AdminRoute::Discard { id: RowId(7) }),
            (Verb::Post, "outbox/7/redrive", AdminRoute::Redrive { id: RowId(7) }),
            (Verb::Post, "sweep", AdminRoute::Sweep),
            (Verb::Post, "redrive", AdminRoute::BulkRedrive),
            (Verb::Post, "seed", AdminRoute::Seed),
            (Verb::Get, "state", AdminRoute::State),
            (Verb::Get, "meter", AdminRoute::Meter),
        ];
        for (verb, path, route) in cases {
            assert_eq!(AdminRoute::parse(verb, &segments(path)), Ok(route), "{path}");
            assert_eq!(AdminRoute::parse(Verb::Put, &segments(path)), Err(RouteError::NotFound), "PUT {path}");
        }
        assert_eq!(AdminRoute::parse(Verb::Get, &segments("outbox/x")), Err(RouteError::BadId("row id must be a positive whole number")));
        assert_eq!(AdminRoute::parse(Verb::Get, &segments("outbox/-1")).unwrap_err(), RouteError::BadId("row id must be a positive whole number"));
        assert_eq!(AdminRoute::parse(Verb::Get, &segments("nothing")), Err(RouteError::NotFound));
        assert_eq!(AdminRoute::parse(Verb::Get, &[]), Err(RouteError::NotFound));
    }

    #[test]
    fn every_api_route_parses_and_checks_its_ids() {
        let list = |id: &str| id.to_string();
        let cases = [
            (Verb::Put, "lists/F1", ApiRoute::PutColumnMap { list_id: list("F1") }),
            (Verb::Get, "lists/F1", ApiRoute::GetColumnMap { list_id: list("F1") }),
            (Verb::Put, "lists/F1/records/r:1", ApiRoute::PutRecord { list_id: list("F1"), record_id: "r:1".into() }),
            (Verb::Get, "lists/F1/records/r:1", ApiRoute::GetRecord { list_id: list("F1"), record_id: "r:1".into() }),
            (Verb::Delete, "lists/F1/records/r:1", ApiRoute::DeleteRecord { list_id: list("F1"), record_id: "r:1".into() }),
            (Verb::Get, "lists/F1/records", ApiRoute::Records { list_id: list("F1") }),
            (Verb::Post, "lists/F1/reconcile", ApiRoute::Reconcile { list_id: list("F1") }),
            (Verb::Get, "lists/F1/reconcile", ApiRoute::Reconciles { list_id: list("F1") }),
            (Verb::Post, "messages", ApiRoute::PostMessage),
            (Verb::Get, "messages/12", ApiRoute::GetMessage { id: 12 }),
            (Verb::Put, "status/deploy", ApiRoute::PutStatus { name: "deploy".into() }),
            (Verb::Get, "status/deploy", ApiRoute::GetStatus { name: "deploy".into() }),
        ];
        for (verb, path, route) in cases {
            let service = if path.starts_with("lists/") { ApiService::Lists } else { ApiService::Notify };
            assert_eq!(route.service(), service, "{path} is served by its own kind");
            assert_eq!(ApiRoute::parse(verb, &segments(path)), Ok(route), "{path}");
        }
        assert_eq!(ApiRoute::parse(Verb::Get, &segments("lists/X1")), Err(RouteError::BadId("list_id must be a List id (F…)")));
        assert!(matches!(ApiRoute::parse(Verb::Put, &segments("lists/F1/records/a b")), Err(RouteError::BadId(_))));
        assert!(matches!(ApiRoute::parse(Verb::Put, &segments("status/a*b")), Err(RouteError::BadId(_))));
        assert_eq!(ApiRoute::parse(Verb::Post, &segments("lists/F1/records")), Err(RouteError::NotFound), "a route first, then its ids");
        assert_eq!(ApiRoute::parse(Verb::Get, &segments("messages/abc")), Err(RouteError::NotFound));
        assert_eq!(ApiRoute::parse(Verb::Delete, &segments("status/x")), Err(RouteError::NotFound));
        assert_eq!(ApiRoute::parse(Verb::Get, &segments("messages")), Err(RouteError::NotFound));
    }

    #[test]
    fn every_route_travels_to_the_actor_in_its_header_unchanged() {
        let (admin, api) = examples();
        for route in admin {
            assert_eq!(AdminRoute::from_header(&route.to_header()), Ok(route.clone()), "{}", route.to_header());
        }
        for route in api {
            assert_eq!(ApiRoute::from_header(&route.to_header()), Ok(route.clone()), "{}", route.to_header());
        }
        assert_eq!(AdminRoute::Redrive { id: RowId(3) }.to_header(), "POST outbox/3/redrive");
        for bad in ["", "GET", "PUT stats", "GET outbox/x"] {
            assert!(AdminRoute::from_header(bad).is_err(), "{bad:?}");
        }
        assert!(ApiRoute::from_header("GET lists/X1").is_err(), "an id is checked again");
    }

    #[test]
    fn a_team_key_is_a_slack_id() {
        assert_eq!(TeamKey::parse("T123").unwrap().as_str(), "T123");
        assert!(TeamKey::parse("E1_a-b").is_ok());
        for bad in ["", "T 1", "T/1", &"T".repeat(65)] {
            assert!(TeamKey::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_error_has_the_one_shape() {
        assert_eq!(error_body("no_such_row", "no such row", None), json!({"ok": false, "error": "no_such_row", "message": "no such row"}));
        assert_eq!(error_body("wrong_type", "points must be a number", Some("points"))["field"], "points");
    }

    #[test]
    fn only_writes_carry_a_body() {
        assert!(ApiRoute::PostMessage.has_body() && ApiRoute::PutStatus { name: "s".into() }.has_body());
        assert!(!ApiRoute::GetMessage { id: 1 }.has_body() && !ApiRoute::Reconcile { list_id: "F1".into() }.has_body());
    }
}
