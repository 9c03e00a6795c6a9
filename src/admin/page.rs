//! The admin page, pure: the session cookie that a login form sets, and the HTML of the login
//! page and of a team's dead-letter page.
//!
//! The session is `{expires_ms}.{mac}` with `mac` = hex(HMAC-SHA256(ADMIN_TOKEN,
//! `slackline-admin-session:{expires_ms}`)): stateless, it dies with its expiry or when the token
//! changes, and it never contains the token. The page acts through the JSON admin API with
//! `fetch` and the header `x-slackline-admin: 1`, which cross-site forms cannot send.

use super::state::StatePage;
use super::{OutboxRow, ScheduledRow, Stats};
use crate::html::escape;
use crate::kinds::registry::Action;
use crate::kinds::schedule::zone::civil_from_days;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "slackline_admin";
/// How long a login lasts: 8 hours.
pub const SESSION_TTL_MS: i64 = 8 * 60 * 60 * 1000;
/// The header the page sends with every action (CSRF guard for cookie sessions).
pub const ACTION_HEADER: &str = "x-slackline-admin";

fn session_mac(token: &str, expires: i64) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(token.as_bytes()).expect("HMAC accepts keys of any length");
    mac.update(format!("slackline-admin-session:{expires}").as_bytes());
    mac
}

/// A session value valid for [`SESSION_TTL_MS`].
pub fn issue_session(token: &str, now_ms: i64) -> String {
    let expires = now_ms + SESSION_TTL_MS;
    format!("{expires}.{}", hex::encode(session_mac(token, expires).finalize().into_bytes()))
}

/// Whether a session value is genuine and unexpired.
pub fn session_valid(token: &str, session: &str, now_ms: i64) -> bool {
    let Some((expires, mac)) = session.split_once('.') else { return false };
    let (Ok(expires), Ok(mac)) = (expires.parse::<i64>(), hex::decode(mac)) else { return false };
    now_ms <= expires && session_mac(token, expires).verify_slice(&mac).is_ok()
}

/// `2026-11-30 21:44:10 UTC` for epoch milliseconds.
pub fn utc(ms: i64) -> String {
    let (days, secs) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000) / 1000);
    let (year, month, day) = civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC", secs / 3600, secs / 60 % 60, secs % 60)
}

/// What a row does, in words (unreadable payloads too).
pub fn describe(payload: &str) -> String {
    serde_json::from_str::<Action>(payload).map(|action| action.describe()).unwrap_or_else(|_| "unreadable payload".into())
}

fn shell(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\
<title>{t}</title><style>body{{font-family:system-ui,sans-serif;margin:2rem;color:#1d1c1d}}table{{border-collapse:collapse;width:100%}}\
th,td{{border-bottom:1px solid #ddd;padding:.4rem;text-align:left;vertical-align:top}}code{{font-size:.85em}}\
.why{{color:#b00020;font-weight:600}}button{{margin-right:.3rem}}</style></head><body>{body}</body></html>",
        t = escape(title)
    )
}

/// The login form (the token goes in the POST body, never in a URL).
pub fn login_page(next: &str, error: Option<&str>) -> String {
    let error = error.map(|e| format!("<p class=\"why\" role=\"alert\">{}</p>", escape(e))).unwrap_or_default();
    shell(
        "slackline admin — sign in",
        &format!(
            "<h1>slackline admin</h1>{error}<form method=\"post\" action=\"/admin/login\">\
<input type=\"hidden\" name=\"next\" value=\"{next}\"><label>Admin token <input type=\"password\" name=\"token\" autocomplete=\"current-password\" required></label> \
<button type=\"submit\">Sign in</button></form>",
            next = escape(next)
        ),
    )
}

fn cell(v: Option<&str>) -> String {
    v.map(escape).unwrap_or_else(|| "—".into())
}

fn time_cell(ms: Option<i64>) -> String {
    ms.map(utc).unwrap_or_else(|| "—".into())
}

fn parked_row(team: &str, row: &OutboxRow) -> String {
    let id = row.id;
    format!(
        "<tr data-row=\"{id}\"><td>{id}</td><td>{what}</td><td>queued {queued}<br>last try {last}</td><td class=\"why\">{why}</td>\
<td>{attempts}</td><td><code>{error}</code> {status}</td><td><button data-action=\"redrive\" data-url=\"/admin/teams/{team}/outbox/{id}/redrive\">Redrive</button>\
<button data-action=\"discard\" data-url=\"/admin/teams/{team}/outbox/{id}\">Discard</button></td></tr>",
        what = escape(&describe(&row.payload)),
        queued = utc(row.created_at),
        last = time_cell(row.last_attempt_at),
        why = cell(row.reason.as_deref()),
        attempts = row.attempts,
        error = cell(row.last_error.as_deref()),
        status = row.last_status.map(|s| format!("(HTTP {s})")).unwrap_or_default(),
        team = escape(team),
    )
}

fn scheduled_row(team: &str, row: &ScheduledRow) -> String {
    let id = row.id;
    let every = match (&row.every_ms, &row.calendar) {
        (Some(ms), _) => format!("<br>every {} min", ms / 60_000),
        (None, Some(calendar)) => format!("<br>at <code>{}</code>", escape(calendar)),
        (None, None) => String::new(),
    };
    let state = if row.claimed == 1 { "firing now" } else { "waiting" };
    format!(
        "<tr data-scheduled=\"{id}\"><td>{id}</td><td><code>{key}</code></td><td>{what}</td><td>due {due}{every}</td><td>{state}</td>\
<td><button data-action=\"cancel\" data-url=\"/admin/teams/{team}/outbox/{id}/cancel\">Cancel</button></td></tr>",
        key = escape(&row.key),
        what = escape(&row.what),
        due = utc(row.due_at),
        team = escape(team),
    )
}

fn scheduled_table(team: &str, scheduled: &[ScheduledRow]) -> String {
    if scheduled.is_empty() {
        return "<p id=\"no-scheduled\">Nothing scheduled.</p>".to_string();
    }
    let body: String = scheduled.iter().map(|r| scheduled_row(team, r)).collect();
    format!("<table><thead><tr><th>id</th><th>key</th><th>what</th><th>when</th><th>state</th><th></th></tr></thead><tbody>{body}</tbody></table>")
}

const PAGE_SCRIPT: &str = r#"<script>
for (const b of document.querySelectorAll('button[data-action]')) {
  b.addEventListener('click', async () => {
    if (b.dataset.action === 'discard' && !confirm('Discard this row? An audit record is kept.')) return;
    b.disabled = true;
    const r = await fetch(b.dataset.url, {method: b.dataset.action === 'discard' ? 'DELETE' : 'POST', headers: {'x-slackline-admin': '1'}, credentials: 'same-origin'});
    const done = {redrive: 'Redriven: it will be delivered shortly.', discard: 'Discarded.', cancel: 'Cancelled: it will not run.'}[b.dataset.action];
    document.getElementById('status').textContent = r.ok ? done : 'Failed: HTTP ' + r.status;
    if (r.ok) setTimeout(() => location.reload(), 300);
  });
}
</script>"#;

/// The line about Slack's `app_rate_limited` notices, if the team had any: events Slack dropped,
/// which no redrive can bring back.
fn rate_limited_note(stats: &Stats) -> String {
    match stats.app_rate_limited {
        Some(n) => format!(
            "<p id=\"app-rate-limited\">Slack rate-limited this team's events (over 30,000 an hour) in <strong>{}</strong> minute(s), the latest starting {}: it dropped those events; they never reached slackline.</p>",
            n.count,
            utc(n.last_minute * 1000)
        ),
        None => String::new(),
    }
}

/// The line about the alarm's safety net, if it ever had to step in: rows acked and due with no
/// alarm to sweep them, re-armed by a request (`docs/operations.md`, "The alarm's safety net").
fn alarm_missing_note(stats: &Stats) -> String {
    match stats.alarm_missing {
        Some(m) => format!(
            "<p id=\"alarm-missing\">The alarm's safety net found rows due with no alarm to deliver them <strong>{}</strong> time(s), the latest at {} (due since {}): it re-armed the alarm each time. This should never happen: please report it with the <code>alarm_missing</code> log line.</p>",
            m.count,
            utc(m.last_at),
            utc(m.last_due_at)
        ),
        None => String::new(),
    }
}

/// A team's dead-letter page: pending summary, held methods, every parked row with its
/// reason, attempts and last error, each with Redrive and Discard buttons, the scheduled rows
/// with their due time and a Cancel button, and the app's state (secret values redacted).
pub fn dead_letter_page(team: &str, stats: &Stats, parked: &[OutboxRow], scheduled: &[ScheduledRow], state: &StatePage) -> String {
    let holds: Vec<String> = stats.holds.iter().map(|h| format!("{} until {}", escape(&h.target), utc(h.until_ms))).collect();
    let paced: Vec<String> = stats.pacing.iter().map(|p| format!("{} ({} waiting, free at {})", escape(&p.lane), p.waiting, utc(p.free_at))).collect();
    let summary = format!(
        "<p>Pending: <strong id=\"pending\">{}</strong>; oldest waiting {}; parked: <strong id=\"parked\">{}</strong>; held methods: {}; paced: {}.</p>{}{}",
        stats.pending,
        stats.oldest_pending_age_ms.map(|ms| format!("{} s", ms / 1000)).unwrap_or_else(|| "—".into()),
        parked.len(),
        if holds.is_empty() { "none".into() } else { holds.join(", ") },
        if paced.is_empty() { "none".into() } else { paced.join(", ") },
        rate_limited_note(stats),
        alarm_missing_note(stats),
    );
    let rows = if parked.is_empty() {
        "<p id=\"empty\">No parked rows: nothing needs a decision.</p>".to_string()
    } else {
        let body: String = parked.iter().map(|r| parked_row(team, r)).collect();
        format!("<table><thead><tr><th>id</th><th>what</th><th>when</th><th>why</th><th>attempts</th><th>last error</th><th></th></tr></thead><tbody>{body}</tbody></table>")
    };
    shell(
        &format!("slackline — {team}"),
        &format!(
            "<h1>Team {}</h1>{summary}<p id=\"status\" role=\"status\"></p><h2>Parked rows</h2>{rows}<h2>Scheduled</h2>{}<h2>App state</h2>{}{PAGE_SCRIPT}",
            escape(team),
            scheduled_table(team, scheduled),
            state_section(state)
        ),
    )
}

/// The first page of the team's app state (read-only; secret values redacted).
fn state_section(state: &StatePage) -> String {
    if state.entries.is_empty() {
        return "<p id=\"no-state\">No state.</p>".to_string();
    }
    let body: String = state
        .entries
        .iter()
        .map(|e| {
            let value = crate::kinds::registry::truncate_chars(&e.value.to_string(), 200);
            format!("<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>", escape(&e.key), escape(&value), e.bytes, utc(e.updated_at))
        })
        .collect();
    let more = if state.next_after.is_some() { "<p>More keys: <code>GET …/state?after=…</code> in the admin API.</p>" } else { "" };
    format!("<table id=\"state\"><thead><tr><th>key</th><th>value</th><th>bytes</th><th>updated</th></tr></thead><tbody>{body}</tbody></table>{more}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admin::Hold;
    use serde_json::json;

    #[test]
    fn a_session_is_valid_until_it_expires_and_only_for_its_token() {
        let s = issue_session("tok", 1_000);
        assert!(session_valid("tok", &s, 1_000 + SESSION_TTL_MS));
        assert!(!session_valid("tok", &s, 1_001 + SESSION_TTL_MS));
        assert!(!session_valid("other", &s, 1_000));
        assert!(!s.contains("tok"));
        assert!(!session_valid("tok", "garbage", 0));
        let forged = format!("{}.{}", 1_000 + 10 * SESSION_TTL_MS, s.split_once('.').unwrap().1);
        assert!(!session_valid("tok", &forged, 1_000));
    }

    #[test]
    fn times_render_in_utc() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(1_796_075_959_364), "2026-11-30 21:59:19 UTC");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00:00 UTC");
    }

    #[test]
    fn rows_are_described_in_words() {
        let p = json!({"type": "slack_api", "method": "chat.postMessage", "args": {"channel": "C1", "text": "hi"}}).to_string();
        assert_eq!(describe(&p), "chat.postMessage in C1: “hi”");
        assert_eq!(describe("{"), "unreadable payload");
    }

    #[test]
    fn the_page_lists_parked_rows_with_their_reason_and_buttons() {
        let row = OutboxRow {
            id: 7,
            payload: json!({"type": "slack_api", "method": "chat.postMessage", "args": {"channel": "C9", "text": "<b>x</b>"}}).to_string(),
            reason: Some("channel_not_found".into()),
            attempts: 1,
            last_error: Some("channel_not_found".into()),
            last_status: Some(200),
            last_attempt_at: Some(1000),
            ..OutboxRow::default()
        };
        let stats = Stats { pending: 2, holds: vec![Hold { target: "chat.postMessage".into(), until_ms: 0 }], ..Stats::default() };
        let html = dead_letter_page("T1", &stats, &[row], &[], &StatePage::default());
        assert!(html.contains("channel_not_found"));
        assert!(html.contains("data-url=\"/admin/teams/T1/outbox/7/redrive\""));
        assert!(html.contains("&lt;b&gt;x&lt;/b&gt;"), "payload text is escaped");
        assert!(html.contains("chat.postMessage until 1970-01-01 00:00:00 UTC"), "held methods are listed");
        assert!(dead_letter_page("T1", &Stats::default(), &[], &[], &StatePage::default()).contains("No parked rows"));
        assert!(!html.contains("app-rate-limited"), "no rate-limit line for a team Slack never limited");
    }

    #[test]
    fn the_page_shows_the_state_with_secret_values_redacted_and_escaped() {
        let rows = vec![("secret:1".into(), "\"hunter2\"".into(), 0, 9), ("votes:<x>".into(), "3".into(), 0, 1)];
        let state = StatePage::of(rows, 50, |k| k.starts_with("secret:"));
        let html = dead_letter_page("T1", &Stats::default(), &[], &[], &state);
        assert!(html.contains("secret:1") && html.contains("[redacted]") && !html.contains("hunter2"));
        assert!(html.contains("votes:&lt;x&gt;"), "keys are escaped");
        assert!(dead_letter_page("T1", &Stats::default(), &[], &[], &StatePage::default()).contains("No state."));
    }

    #[test]
    fn the_page_lists_scheduled_rows_with_their_due_time_and_a_cancel_button() {
        let row = ScheduledRow {
            id: 9,
            key: "incident:<7>".into(),
            due_at: 0,
            every_ms: Some(crate::kinds::schedule::DAY_MS),
            calendar: None,
            scheduled_at: None,
            next_attempt_at: 0,
            deadline_at: None,
            attempts: 0,
            claimed: 0,
            what: "chat.postMessage in C1: “still open”".into(),
        };
        let html = dead_letter_page("T1", &Stats::default(), &[], &[row], &StatePage::default());
        assert!(html.contains("data-url=\"/admin/teams/T1/outbox/9/cancel\""));
        assert!(html.contains("due 1970-01-01 00:00:00 UTC<br>every 1440 min"));
        assert!(html.contains("incident:&lt;7&gt;"), "the key is escaped");
        assert!(dead_letter_page("T1", &Stats::default(), &[], &[], &StatePage::default()).contains("Nothing scheduled"));
    }

    #[test]
    fn the_page_says_when_slack_rate_limited_the_team() {
        let notices = crate::slack::rate_limited::Notices { count: 3, last_minute: 1_518_467_820, last_at: 0 };
        let html = dead_letter_page("T1", &Stats { app_rate_limited: Some(notices), ..Stats::default() }, &[], &[], &StatePage::default());
        assert!(html.contains("in <strong>3</strong> minute(s), the latest starting 2018-02-12 20:37:00 UTC"), "{html}");
    }

    #[test]
    fn the_page_says_when_the_alarms_safety_net_stepped_in() {
        assert!(!dead_letter_page("T1", &Stats::default(), &[], &[], &StatePage::default()).contains("alarm-missing"));
        let missed = crate::outbox::alarm::MissedAlarms { count: 2, last_at: 1_518_467_830_000, last_due_at: 1_518_467_820_000 };
        let html = dead_letter_page("T1", &Stats { alarm_missing: Some(missed), ..Stats::default() }, &[], &[], &StatePage::default());
        assert!(html.contains("<strong>2</strong> time(s), the latest at 2018-02-12 20:37:10 UTC (due since 2018-02-12 20:37:00 UTC)"), "{html}");
    }

    #[test]
    fn the_login_page_posts_the_token_in_the_body() {
        let html = login_page("/admin/teams/T1", Some("Wrong token"));
        assert!(html.contains("method=\"post\" action=\"/admin/login\""));
        assert!(html.contains("type=\"password\" name=\"token\""));
        assert!(html.contains("Wrong token"));
    }
}
