"""Slack's official Python SDK (slack_sdk) against slackline's fake Slack.

Run by tests/slack_sdk.rs, which starts the fake and passes its address; each check prints one
line, and the script exits 1 if any answer is not the one the SDK gets from Slack.

Environment:
  FAKE_SLACK_API_URL  the fake's Web API base URL, ending in "/" (FakeSlack::api_url() + "/")
  EXPIRED_TRIGGER_ID  a trigger_id the simulator minted more than 3 s ago
  RATELIMIT_CHANNEL   a channel whose next chat.postMessage the test answers 429, Retry-After: 1
"""

import os
import sys
import time

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

BASE_URL = os.environ["FAKE_SLACK_API_URL"]
TOKEN = "xoxb-sdk-check"
CHANNEL = "CSDKCHECK"
failures = []


def check(what, passed, detail=""):
    print(("ok    " if passed else "FAIL  ") + what + ("" if passed else f": {detail}"))
    if not passed:
        failures.append(what)


def error_of(call):
    """The `error` of the SlackApiError the call raises (None if it succeeds)."""
    try:
        call()
    except SlackApiError as e:
        return e.response["error"]
    return None


client = WebClient(token=TOKEN, base_url=BASE_URL)

posted = client.chat_postMessage(channel=CHANNEL, text="hello from slack_sdk")
ts = posted["ts"]
check("chat.postMessage: ok, channel and ts", posted["ok"] and posted["channel"] == CHANNEL and "." in ts, posted.data)

updated = client.chat_update(channel=CHANNEL, ts=ts, text="edited by slack_sdk")
check("chat.update: the message keeps its ts", updated["ts"] == ts and updated["channel"] == CHANNEL, updated.data)

ephemeral = client.chat_postEphemeral(channel=CHANNEL, user="U1", text="psst")
check("chat.postEphemeral: message_ts", "." in ephemeral.get("message_ts", ""), ephemeral.data)

reacted = client.reactions_add(channel=CHANNEL, timestamp=ts, name="eyes")
check("reactions.add: ok the first time", reacted["ok"], reacted.data)
again = error_of(lambda: client.reactions_add(channel=CHANNEL, timestamp=ts, name="eyes"))
check("reactions.add again: SlackApiError already_reacted", again == "already_reacted", again)
client.reactions_remove(channel=CHANNEL, timestamp=ts, name="eyes")
gone = error_of(lambda: client.reactions_remove(channel=CHANNEL, timestamp=ts, name="eyes"))
check("reactions.remove twice: SlackApiError no_reaction", gone == "no_reaction", gone)

modal = {"type": "modal", "callback_id": "sdk-check", "title": {"type": "plain_text", "text": "SDK check"}, "blocks": []}
opened = client.views_open(trigger_id="12345.98765.abcd2358fdea", view=modal)
view = opened["view"]
check("views.open: a view with an id", view["id"].startswith("V") and view["callback_id"] == "sdk-check" and view["hash"], opened.data)
changed = client.views_update(view_id=view["id"], hash=view["hash"], view=dict(modal, callback_id="sdk-check-2"))
check("views.update: the same view", changed["view"]["id"] == view["id"] and changed["view"]["callback_id"] == "sdk-check-2", changed.data)
missing = error_of(lambda: client.views_update(view_id="VNOSUCHVIEW", view=modal))
check("views.update of an unknown view: not_found", missing == "not_found", missing)
expired = error_of(lambda: client.views_open(trigger_id=os.environ["EXPIRED_TRIGGER_ID"], view=modal))
check("views.open with a trigger_id older than 3 s: expired_trigger_id", expired == "expired_trigger_id", expired)

unknown = error_of(lambda: client.api_call("chat.postMesage", json={"channel": CHANNEL, "text": "typo"}))
check("an unknown method: unknown_method", unknown == "unknown_method", unknown)

anonymous = WebClient(base_url=BASE_URL)
not_authed = error_of(lambda: anonymous.chat_postMessage(channel=CHANNEL, text="who am I"))
check("a call without a token: not_authed", not_authed == "not_authed", not_authed)

me = client.auth_test()
check("auth.test: the bot", me["user_id"] == "UFAKEBOT" and me["team_id"] == "TSIM", me.data)

patient = WebClient(token=TOKEN, base_url=BASE_URL, retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=1)])
started = time.monotonic()
after = patient.chat_postMessage(channel=os.environ["RATELIMIT_CHANNEL"], text="after a 429")
waited = time.monotonic() - started
check("a 429: RateLimitErrorRetryHandler waits Retry-After, then succeeds", after["ok"] and waited >= 1.0, f"waited {waited:.2f} s: {after.data}")

print(f"{len(failures)} failed" if failures else "every answer is Slack's")
sys.exit(1 if failures else 0)
