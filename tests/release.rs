//! A release is one version, written in four places that must agree: the library's and the
//! simulator's `Cargo.toml`, the newest release heading of `CHANGELOG.md` (`## 0.2.0 — date`),
//! and the version the template pins (a bot made with `make new` asks for the release it was made
//! from). `docs/releasing.md` says how a release is cut; this test fails when one place was missed.
#![cfg(not(target_arch = "wasm32"))]

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{ROOT}/{path}")).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The `version = "…"` of a manifest's `[package]`.
fn package_version(manifest: &str) -> String {
    let package = manifest.split("[package]").nth(1).expect("a [package] table");
    let line = package.lines().find(|l| l.starts_with("version")).expect("a version");
    line.split('"').nth(1).expect("a quoted version").to_string()
}

/// The versions of the changelog's release headings, newest first (`## Unreleased` is none).
fn released(changelog: &str) -> Vec<String> {
    changelog
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .filter(|heading| *heading != "Unreleased")
        .map(|heading| heading.split(" — ").next().unwrap_or(heading).to_string())
        .collect()
}

/// The version the template's `slackline` dependency pins.
fn template_pin(manifest: &str) -> Option<String> {
    let line = manifest.lines().find(|l| l.starts_with("slackline = "))?;
    let at = line.find("version = \"")? + "version = \"".len();
    Some(line[at..].split('"').next()?.to_string())
}

#[test]
fn the_crates_the_changelog_and_the_template_name_one_release() {
    let version = package_version(&read("Cargo.toml"));
    assert_eq!(package_version(&read("sim/Cargo.toml")), version, "slackline-sim is released with slackline");
    let releases = released(&read("CHANGELOG.md"));
    assert_eq!(releases.first(), Some(&version), "CHANGELOG.md's newest release is the crate's version");
    assert_eq!(template_pin(&read("template/Cargo.toml")).as_ref(), Some(&version), "the template pins the release");
}

#[test]
fn each_release_heading_is_a_semantic_version_with_its_date_and_newer_above_older() {
    let changelog = read("CHANGELOG.md");
    let parse = |v: &str| -> Vec<u64> { v.split('.').map(|n| n.parse().unwrap_or_else(|_| panic!("{v:?} is not a semantic version"))).collect() };
    for heading in changelog.lines().filter_map(|l| l.strip_prefix("## ")).filter(|h| *h != "Unreleased") {
        let (version, date) = heading.split_once(" — ").unwrap_or_else(|| panic!("{heading:?}: `## X.Y.Z — YYYY-MM-DD`"));
        assert_eq!(parse(version).len(), 3, "{heading:?}");
        assert!(date.len() == 10 && date.as_bytes()[4] == b'-' && date.as_bytes()[7] == b'-', "{heading:?}: a date YYYY-MM-DD");
    }
    let versions: Vec<Vec<u64>> = released(&changelog).iter().map(|v| parse(v)).collect();
    assert!(versions.windows(2).all(|w| w[0] > w[1]), "newest first: {versions:?}");
}

#[test]
fn the_readers_find_the_pin_and_the_headings_they_check() {
    assert_eq!(template_pin("slackline = { path = \"/x\", version = \"1.2.3\" }\n"), Some("1.2.3".into()));
    assert_eq!(template_pin("slackline = { path = \"/x\" }\n"), None);
    assert_eq!(released("# C\n## Unreleased\n## 0.3.0 — 2027-01-01\n### Fixed\n## 0.2.1 — 2026-12-24\n"), ["0.3.0", "0.2.1"]);
    assert_eq!(package_version("[package]\nname = \"x\"\nversion = \"0.4.0\"\n[dependencies]\nversion = \"9\"\n"), "0.4.0");
}
