//! The example bots, each a crate of `examples/` served from its own `wrangler.toml` in a runtime
//! of its own: they run on the library exactly as a user's bot does.

use crate::support::slack::{envelope, message_copy};
use crate::support::{unique, FakeSlack, Runtime, Settings};
use serde_json::json;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(30);

/// `examples/hello`: Bolt's getting-started app.
fn hello() -> &'static (FakeSlack, Runtime) {
    static HELLO: OnceLock<(FakeSlack, Runtime)> = OnceLock::new();
    HELLO.get_or_init(|| {
        let root = env!("CARGO_MANIFEST_DIR");
        let built = std::process::Command::new("make").args(["--no-print-directory", "worker", "APP=hello"]).current_dir(root).status();
        assert!(built.is_ok_and(|s| s.success()), "make worker APP=hello");
        let fake = FakeSlack::start();
        let mut settings = Settings::new("hello", &fake);
        settings.config = Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/hello/wrangler.toml"));
        (fake, Runtime::start(settings))
    })
}

#[test]
fn bolts_getting_started_app_greets_hello_with_a_button_and_answers_its_click_in_the_thread() {
    let (fake, rt) = hello();
    let c = rt.client();
    let (team, channel) = (unique("T"), unique("C"));
    assert_eq!(c.event(&envelope(&team, &unique("Ev"), message_copy(&channel, "8.1", "hello there"))).status, 200);
    let greeting = fake.wait_calls("chat.postMessage", &channel, 1, WAIT)[0].clone();
    assert_eq!(greeting.field("text"), Some("Hey there <@U1>!"));
    let args = greeting.json.clone().unwrap();
    assert_eq!(args["blocks"][0]["accessory"]["action_id"], "button_click");
    assert!(greeting.field("thread_ts").is_none(), "the greeting is a message in the channel");

    let click = json!({
        "type": "block_actions", "trigger_id": format!("{}.1.x", unique("")), "team": {"id": team}, "user": {"id": "U1", "team_id": team},
        "container": {"type": "message", "channel_id": channel, "message_ts": "8.2"}, "message": {"ts": "8.2"},
        "actions": [{"action_id": "button_click", "block_id": "b", "type": "button"}],
    });
    assert_eq!(c.interaction(&click).status, 200);
    let answers = fake.wait_calls("chat.postMessage", &channel, 2, WAIT);
    let answer = answers.iter().find(|p| p.field("text") == Some("<@U1> clicked the button")).expect("the click's answer");
    assert_eq!(answer.field("thread_ts"), Some("8.2"), "answered in the clicked message's thread");
    crate::support::eventually("both rows delivered", WAIT, || (c.rows(&team, "done").len() == 2).then_some(()));
}
