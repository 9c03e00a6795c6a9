//! Slack's official Python SDK (`slack_sdk`, pinned) against the fake Slack: users point their own
//! SDK code at the fake, so what the SDK makes of each answer must be what it makes of Slack's.
//! The checks are `tests/sdk/slack_sdk_check.py`; this test starts the fake, scripts a 429,
//! installs the SDK into a virtualenv under `target/` (once: pip, from PyPI) and runs the script.
//! It fails, never skips, when python3 or pip cannot give it the SDK.
#![cfg(not(target_arch = "wasm32"))]

use slackline_sim::client::trigger_id_minted_at;
use slackline_sim::fake::{FakeSlack, Reply};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The SDK version the checks are written against.
const SLACK_SDK_VERSION: &str = "3.48.0";

fn run(what: &str, command: &mut Command) -> Output {
    command.output().unwrap_or_else(|e| panic!("{what}: cannot run {command:?}: {e} (the SDK check needs python3 3.8+ with venv)"))
}

/// A virtualenv's python with `slack_sdk` at [`SLACK_SDK_VERSION`], made on first use.
fn sdk_python() -> PathBuf {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("slack-sdk-{SLACK_SDK_VERSION}"));
    let python = venv.join("bin/python");
    let installed = |python: &Path| {
        python.exists()
            && Command::new(python)
                .args(["-c", "import slack_sdk.version as v; print(v.__version__)"])
                .output()
                .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == SLACK_SDK_VERSION)
    };
    if installed(&python) {
        return python;
    }
    let made = run("python3 -m venv", Command::new("python3").arg("-m").arg("venv").arg(&venv));
    assert!(made.status.success(), "python3 -m venv {}: {}", venv.display(), String::from_utf8_lossy(&made.stderr));
    let pip = run(
        "pip install",
        Command::new(&python).args(["-m", "pip", "install", "--disable-pip-version-check", "--quiet", &format!("slack_sdk=={SLACK_SDK_VERSION}")]),
    );
    assert!(
        pip.status.success() && installed(&python),
        "could not install slack_sdk=={SLACK_SDK_VERSION} from PyPI into {} (pip exit {:?}); the SDK check needs it:\n{}{}",
        venv.display(),
        pip.status.code(),
        String::from_utf8_lossy(&pip.stdout),
        String::from_utf8_lossy(&pip.stderr)
    );
    python
}

#[test]
fn slacks_python_sdk_gets_slacks_answers_from_the_fake() {
    let python = sdk_python();
    let fake = FakeSlack::start();
    let limited = "CSDKRATELIMIT";
    fake.script("chat.postMessage", limited, vec![Reply::RateLimited(1), Reply::Ok]);
    let now_ms = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as u64;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sdk/slack_sdk_check.py");
    let mut child = Command::new(&python)
        .arg(&script)
        .env("FAKE_SLACK_API_URL", format!("{}/", fake.api_url()))
        .env("EXPIRED_TRIGGER_ID", trigger_id_minted_at(now_ms - 10_000))
        .env("RATELIMIT_CHANNEL", limited)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", python.display()));
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    println!("$ {} {}\n{stdout}{stderr}", python.display(), script.display());
    assert!(output.status.success(), "the SDK check failed ({}):\n{stdout}{stderr}", output.status);
    let posts = fake.calls("chat.postMessage", limited);
    assert_eq!(posts.iter().map(|c| c.rate_limited).collect::<Vec<_>>(), vec![true, false], "one 429, then the SDK's retry");
    assert!(posts[1].at.duration_since(posts[0].at) >= Duration::from_secs(1), "the retry waited Retry-After");
}
