//! Upgrades, end to end in workerd: the state a release wrote (a schema fixture,
//! `support::fixture`) served by this code. Every fixture version is upgraded and must keep its
//! work: each pending row delivered once (mid-retry, leased), the parked row listed and
//! redrivable, receipts still deduplicating, the installation's token still decrypting, List
//! records and idempotency keys still there. A database newer than the code, and one whose
//! migration fails, are refused (500, one `schema` log line) and left as they were.
//!
//! `seed_a_fixture` writes a fixture; `scripts/schema-fixture.sh` runs it against a release.

use crate::install::{access, install};
use crate::support;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;
use support::slack::{envelope, mention, message_copy, now_ms};
use support::{eventually, fixture, Client, FakeSlack, Reply, Runtime, Settings};

const WAIT: Duration = Duration::from_secs(40);
/// The one team of a fixture (a fixed name: the database file is named by it).
const TEAM: &str = "TUPGRADE";
/// Its installation's bot token (stored sealed).
const TOKEN: &str = "xoxb-upgrade-installed";
/// A reply mid-retry (Slack answered 503 until the release was stopped).
const RETRY: &str = "CRETRY";
/// A reply leased: its attempt was in flight when the release was stopped.
const LEASE: &str = "CLEASE";
/// A reply parked as `channel_not_found`.
const PARK: &str = "CPARK";
/// A notify API message mid-retry, posted with [`KEY`].
const NOTIFY: &str = "CNOTIFY";
const KEY: &str = "upgrade-key";
const LIST: &str = "FUPGRADE";

fn event(channel: &str) -> Value {
    envelope(TEAM, &format!("Ev{channel}"), mention(channel, "1.1", "upgrade"))
}

fn notify_body() -> String {
    json!({"channel": NOTIFY, "text": "kept"}).to_string()
}

fn post_notify(c: &Client) -> support::slack::Answer {
    c.api_with("POST", &format!("/api/teams/{TEAM}/messages"), &[("idempotency-key", KEY)], Some(&notify_body()))
}

/// Writes a fixture: drives the release whose `wrangler.toml` is `SCHEMA_FIXTURE_CONFIG` (and whose
/// bundle is the release fixture `SCHEMA_FIXTURE_RELEASE`, when set) into the
/// state the upgrade tests expect, kills it, and copies its Durable Objects' files into
/// `SCHEMA_FIXTURE_STATE` (with `written_at`). Run by `scripts/schema-fixture.sh`.
#[test]
#[ignore = "run by scripts/schema-fixture.sh against a release"]
fn seed_a_fixture() {
    let config = std::env::var("SCHEMA_FIXTURE_CONFIG").expect("SCHEMA_FIXTURE_CONFIG: the release's wrangler.toml");
    let out = PathBuf::from(std::env::var("SCHEMA_FIXTURE_STATE").expect("SCHEMA_FIXTURE_STATE: where the state goes"));
    let fake = FakeSlack::start();
    for channel in [RETRY, NOTIFY] {
        fake.script_with("chat.postMessage", channel, Box::new(|_| Reply::Status(503)));
    }
    fake.script("chat.postMessage", PARK, vec![Reply::Error("channel_not_found")]);
    fake.script_with("chat.postMessage", LEASE, Box::new(|_| Reply::Delay(Duration::from_secs(60), Box::new(Reply::Ok))));
    let mut settings =
        Settings::new("seed", &fake).var("LEASE_MS", "5000").var("ATTEMPT_TIMEOUT_MS", "4000").var("RETRY_SCHEDULE_MS", "1000").var("MAX_ATTEMPTS", "50");
    settings.config = Some(PathBuf::from(config));
    // The release's own bundle: its release fixture (`SCHEMA_FIXTURE_RELEASE`, served with the
    // given config), else the config's `main` (a release built from its tree).
    settings.script = std::env::var("SCHEMA_FIXTURE_RELEASE").ok().map(|commit| crate::support::runtime::earlier_release(&commit));
    let mut rt = Runtime::start(settings);
    let c = rt.client();
    install(&c, &fake, access(TEAM, TOKEN, json!({})));
    for channel in [RETRY, PARK] {
        assert_eq!(c.event(&event(channel)).status, 200);
    }
    assert_eq!(post_notify(&c).status, 202);
    let map = json!({"key_column": "ColKEY", "columns": {"title": {"column_id": "ColT", "type": "text"}}});
    assert_eq!(c.api("PUT", &format!("/api/teams/{TEAM}/lists/{LIST}"), Some(&map)).status, 200);
    assert_eq!(c.api("PUT", &format!("/api/teams/{TEAM}/lists/{LIST}/records/rec-1"), Some(&json!({"title": "kept"}))).status, 200);
    eventually("the record synced, a row parked, two replies mid-retry", WAIT, || {
        let record = c.api("GET", &format!("/api/teams/{TEAM}/lists/{LIST}/records/rec-1"), None).json();
        let retried = fake.calls("chat.postMessage", RETRY).len() >= 2 && !fake.calls("chat.postMessage", NOTIFY).is_empty();
        (record["state"] == "synced" && c.rows(TEAM, "parked").len() == 1 && retried).then_some(())
    });
    assert_eq!(c.event(&event(LEASE)).status, 200);
    fake.wait_calls("chat.postMessage", LEASE, 1, WAIT);
    rt.kill();
    std::fs::create_dir_all(out.join("v3")).unwrap();
    std::fs::write(out.join("written_at"), now_ms().to_string()).unwrap();
    let copied = std::process::Command::new("cp").arg("-r").arg(rt.state_dir().join("state/v3/do")).arg(out.join("v3")).status().unwrap();
    assert!(copied.success());
}

/// A runtime on fixture `version`, with `alter` run on the team's database first; that
/// database's file, and what it held before the runtime started.
fn start_on(version: &str, fake: &FakeSlack, alter: &str) -> (Runtime, PathBuf, Contents) {
    let mut team = None;
    let rt = Runtime::start_on(Settings::new("upgrade", fake), |state| {
        let files = fixture::load(version, state);
        assert_eq!(files.len(), 1, "one team per fixture");
        fixture::alter(&files[0], alter);
        team = Some((files[0].clone(), contents(&files[0])));
    });
    let (db, before) = team.unwrap();
    (rt, db, before)
}

/// The `schema` line of `actor`, once printed.
fn schema_line(rt: &Runtime, actor: &str) -> Value {
    eventually(&format!("the {actor}'s schema line"), WAIT, || rt.log_lines().into_iter().find(|l| l["kind"] == "schema" && l["actor"] == actor))
}

#[test]
fn every_fixture_upgrades_and_keeps_its_work() {
    let versions = fixture::versions();
    assert!(versions.contains(&"v0".to_string()), "the unversioned release's fixture is checked in");
    // Each fixture in a runtime of its own, all at once (a failure names its version).
    std::thread::scope(|s| {
        for version in &versions {
            s.spawn(move || upgrades(version));
        }
    });
}

fn upgrades(version: &str) {
    let fake = FakeSlack::start();
    let (rt, _, _) = start_on(version, &fake, "");
    let c = rt.client();
    for channel in [RETRY, LEASE, NOTIFY] {
        let calls = fake.wait_calls("chat.postMessage", channel, 1, WAIT);
        assert_eq!(calls[0].token(), Some(TOKEN), "{version}: the installation's token still decrypts");
    }
    // Only the List's next reconciliation pass (an hour after its first) is still to come.
    eventually("nothing pending but the next pass", WAIT, || c.rows(TEAM, "pending").iter().all(|r| r["effect"] == "lists").then_some(()));
    let line = schema_line(&rt, "team");
    let found = if version == "v0" { "unversioned" } else { "stamped" };
    assert_eq!((line["outcome"].as_str(), line["found"].as_str(), line["team"].as_str()), (Some("migrated"), Some(found), Some(TEAM)), "{line}");

    let receipts = c.receipts(TEAM);
    let rows = c.all_rows(TEAM).len();
    assert_eq!(c.event(&event(RETRY)).status, 200, "Slack's retry of a recorded event");
    assert_eq!(c.event(&envelope(TEAM, "EvCopy", message_copy(RETRY, "1.1", "upgrade"))).status, 200);
    assert_eq!(c.receipts(TEAM), receipts + 1, "{version}: the old receipt deduplicates, the copy is recorded");
    assert_eq!(c.all_rows(TEAM).len(), rows, "{version}: nothing new queued");
    // Migration 2's app state works on the upgraded database.
    assert_eq!(c.event(&envelope(TEAM, &format!("EvVote{version}"), mention(RETRY, "2.1", "slackline-tally vote"))).status, 200);
    let state = c.admin_get(&format!("/admin/teams/{TEAM}/state?prefix=votes:{RETRY}")).json();
    assert_eq!(state["entries"][0]["value"], json!(1), "{version}: a vote is counted in the new state table: {state}");
    let replay = post_notify(&c);
    assert_eq!((replay.status, replay.header("idempotent-replayed")), (202, Some("true")), "{version}: {}", replay.body);

    let parked = c.rows(TEAM, "parked");
    assert_eq!(parked.len(), 1, "{version}: {parked:?}");
    assert_eq!(parked[0]["reason"], "channel_not_found");
    let id = parked[0]["id"].as_i64().unwrap();
    assert_eq!(c.admin_post(&format!("/admin/teams/{TEAM}/outbox/{id}/redrive")).status, 200);
    fake.wait_calls("chat.postMessage", PARK, 1, WAIT);

    let record = c.api("GET", &format!("/api/teams/{TEAM}/lists/{LIST}/records/rec-1"), None);
    assert_eq!((record.status, record.json()["fields"]["title"].as_str()), (200, Some("kept")), "{}", record.body);
    let teams = c.admin_get("/admin/teams").json();
    assert!(teams["teams"].as_array().unwrap().iter().any(|t| t["team_key"] == TEAM), "{teams}");
    // A fixture at the directory's own version (v1: it has had no migration since) has nothing
    // to migrate there, and prints no line.
    let stored: u32 = version.trim_start_matches('v').parse().unwrap_or(0);
    if stored < slackline::internal::sql::migrate::DIRECTORY.version() {
        assert_eq!(schema_line(&rt, "directory")["outcome"], "migrated", "the directory migrated on its first request");
    }
    std::thread::sleep(Duration::from_secs(2));
    for channel in [RETRY, LEASE, NOTIFY, PARK] {
        assert_eq!(fake.calls("chat.postMessage", channel).len(), 1, "{version}: {channel} delivered once");
    }
}

/// What a refused database must keep: its receipts, its rows and their attempts.
type Contents = (i64, i64, i64);

fn contents(db: &Path) -> Contents {
    let attempts = "SELECT coalesce(sum(attempts), 0) FROM outbox";
    (fixture::query(db, "SELECT count(*) FROM receipts"), fixture::query(db, "SELECT count(*) FROM outbox"), fixture::query(db, attempts))
}

/// Every request the refused team actor gets is a 500 with `code`.
fn refuses(c: &Client, code: &str) {
    assert_eq!(c.event(&envelope(TEAM, "EvRefused", mention(RETRY, "2.2", "refused"))).status, 500, "Slack retries");
    let stats = c.admin_get(&format!("/admin/teams/{TEAM}/stats"));
    assert_eq!((stats.status, stats.json()["error"].as_str()), (500, Some(code)), "{}", stats.body);
    assert_eq!(post_notify(c).status, 500);
}

#[test]
fn a_database_newer_than_the_code_is_refused_and_not_written() {
    let fake = FakeSlack::start();
    let latest = fixture::versions().pop().unwrap();
    // A release that broke older code raised the floor with its version.
    let (mut rt, db, before) = start_on(&latest, &fake, "INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', '99'), ('schema_floor', '99')");
    let line = schema_line(&rt, "team");
    assert_eq!(
        (line["outcome"].as_str(), line["db_version"].as_i64(), line["code_version"].as_i64()),
        (Some("newer"), Some(99), Some(i64::from(slackline::internal::kinds::schema::TEAM.version()))),
        "{line}"
    );
    refuses(&rt.client(), "schema_newer_than_code");
    std::thread::sleep(Duration::from_secs(2));
    rt.kill();
    assert_eq!(contents(&db), before, "nothing written");
    assert_eq!(fixture::query(&db, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'schema_version'"), 99);
    assert!(fake.calls("chat.postMessage", RETRY).is_empty(), "nothing delivered by a release that does not know the schema");
}

#[test]
fn a_failing_migration_leaves_the_database_as_it_was_and_answers_500() {
    let fake = FakeSlack::start();
    // The baseline creates `holds` (gone here), then fails on the index named like this table.
    let sabotage = "DROP TABLE holds; DROP INDEX outbox_serial; CREATE TABLE outbox_serial (x INTEGER); INSERT INTO outbox_serial VALUES (7);";
    let (mut rt, db, before) = start_on("v0", &fake, sabotage);
    let line = schema_line(&rt, "team");
    assert_eq!((line["outcome"].as_str(), line["migration"].as_str(), line["db_version"].as_i64()), (Some("failed"), Some("1_baseline"), Some(0)), "{line}");
    assert!(line["error"].as_str().unwrap_or_default().contains("outbox_serial"), "{line}");
    refuses(&rt.client(), "migration_failed");
    let failures = rt.log_lines().into_iter().filter(|l| l["kind"] == "schema" && l["actor"] == "team").count();
    rt.kill();
    assert_eq!(contents(&db), before, "nothing written");
    assert_eq!(failures, 1, "one line per wake");
    assert_eq!(fixture::query(&db, "SELECT count(*) FROM sqlite_master WHERE name = 'holds'"), 0, "the failed step is rolled back");
    assert_eq!(fixture::query(&db, "SELECT count(*) FROM meta WHERE key = 'schema_version'"), 0, "no stamp");
    assert_eq!(fixture::query(&db, "SELECT x FROM outbox_serial"), 7, "the data is intact");
    assert!(fixture::query(&db, "SELECT count(*) FROM outbox WHERE status = 'pending'") >= 3, "the pending rows wait for a release that migrates");
    assert!(fake.calls("chat.postMessage", RETRY).is_empty());
}

/// What the next release's additive migration (version code + 1) would do to the database this
/// code wrote: a column with a default, a table, the stamp, and the floor it keeps (this code's
/// version: it may still run on it).
fn next_release_additive_step(fixture: u32) -> String {
    let (code, team) = (slackline::internal::kinds::schema::TEAM.version(), &slackline::internal::kinds::schema::TEAM);
    // The fixture is the release before this code: this code's steps after it first (a release
    // may add more than one), as this code would run them.
    let ours: Vec<&str> = team.migrations.iter().filter(|m| m.to > fixture).map(|m| m.sql).collect();
    format!(
        "{};
         ALTER TABLE outbox ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
         CREATE TABLE future_notes (id INTEGER PRIMARY KEY, note TEXT);
         INSERT INTO future_notes(note) VALUES ('kept');
         INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', '{}'), ('schema_floor', '{code}');",
        ours.join(";\n"),
        code + 1
    )
}

#[test]
fn a_rollback_onto_the_next_releases_additive_schema_keeps_serving_and_loses_nothing() {
    let fake = FakeSlack::start();
    let latest = fixture::versions().pop().unwrap();
    let fixture: u32 = latest.trim_start_matches('v').parse().unwrap();
    assert!(fixture < slackline::internal::kinds::schema::TEAM.version(), "the fixture of the release before this code: {latest}");
    let (mut rt, db, _) = start_on(&latest, &fake, &next_release_additive_step(fixture));
    let c = rt.client();
    let line = schema_line(&rt, "team");
    let code = i64::from(slackline::internal::kinds::schema::TEAM.version());
    assert_eq!((line["outcome"].as_str(), line["db_version"].as_i64(), line["code_version"].as_i64()), (Some("ahead"), Some(code + 1), Some(code)), "{line}");
    // Every pending row the newer release left is delivered once; the parked one is listed and
    // redrivable; the notify key still replays; the List record is there.
    for channel in [RETRY, LEASE, NOTIFY] {
        fake.wait_calls("chat.postMessage", channel, 1, WAIT);
    }
    let parked = c.rows(TEAM, "parked");
    assert_eq!((parked.len(), parked[0]["reason"].as_str()), (1, Some("channel_not_found")), "{parked:?}");
    assert_eq!(c.admin_post(&format!("/admin/teams/{TEAM}/outbox/{}/redrive", parked[0]["id"])).status, 200);
    fake.wait_calls("chat.postMessage", PARK, 1, WAIT);
    let replay = post_notify(&c);
    assert_eq!((replay.status, replay.header("idempotent-replayed")), (202, Some("true")), "{}", replay.body);
    let record = c.api("GET", &format!("/api/teams/{TEAM}/lists/{LIST}/records/rec-1"), None);
    assert_eq!((record.status, record.json()["fields"]["title"].as_str()), (200, Some("kept")), "{}", record.body);
    // New work: acked, recorded and delivered on the newer schema.
    assert_eq!(c.event(&envelope(TEAM, "EvAhead", mention("CAHEAD", "3.1", "after the rollback"))).status, 200);
    fake.wait_calls("chat.postMessage", "CAHEAD", 1, WAIT);
    eventually("nothing pending but the next pass", WAIT, || c.rows(TEAM, "pending").iter().all(|r| r["effect"] == "lists").then_some(()));
    std::thread::sleep(Duration::from_secs(2));
    for channel in [RETRY, LEASE, NOTIFY, PARK, "CAHEAD"] {
        assert_eq!(fake.calls("chat.postMessage", channel).len(), 1, "{channel} delivered once");
    }
    rt.kill();
    // The newer release finds its database as it left it: its stamp, its table, its column
    // (the rows this code wrote took the default).
    assert_eq!(fixture::query(&db, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'schema_version'"), code + 1);
    assert_eq!(fixture::query(&db, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'schema_floor'"), code);
    assert_eq!(fixture::query(&db, "SELECT count(*) FROM future_notes WHERE note = 'kept'"), 1);
    assert_eq!(fixture::query(&db, "SELECT count(*) FROM outbox WHERE priority <> 0"), 0);
    assert!(fixture::query(&db, "SELECT count(*) FROM outbox WHERE idem_key LIKE '%CAHEAD%'") >= 1, "this code's row is in the newer table");
}
