//! slackline's API is what its documentation shows — the prelude, `handler`, `blocks`, the test
//! kit and `worker!` — and this test holds it to `docs/api.txt`, a committed listing of every
//! documented item with its methods, fields, variants and trait implementations. A change to the
//! API (a new method, a removed variant, a derive gone) fails here until the listing is updated
//! with it, so it shows in review; a breaking one also needs its note in `CHANGELOG.md`.
//!
//! The listing is read from `cargo doc`'s own pages (not a list kept by hand): it builds the
//! crate's docs into `target/api-doc` (its own folder: the test's cargo holds `target/`'s lock)
//! and reads each item page. Update it with `SLACKLINE_BLESS_API=1 cargo test --test api`.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// The documented surface's ceiling, in item pages (issue 53: ≤ 250).
const MAX_ITEMS: usize = 250;

fn doc_dir() -> PathBuf {
    let target = Path::new(ROOT).join("target/api-doc");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .args(["doc", "--locked", "--no-deps", "--package", "slackline", "--quiet", "--target-dir"])
        .arg(&target)
        .current_dir(ROOT)
        .env_remove("RUSTDOCFLAGS")
        .status()
        .expect("cargo doc runs");
    assert!(status.success(), "cargo doc failed");
    target.join("doc/slackline")
}

fn pages(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the docs folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            pages(&path, out);
        } else if path.extension().is_some_and(|e| e == "html") {
            out.push(path);
        }
    }
}

/// The ids of `kind.` anchors in `html` (`method.mention` → `mention`), in order, once each.
fn anchors<'h>(html: &'h str, kind: &str) -> Vec<&'h str> {
    let needle = format!("id=\"{kind}.");
    let mut seen = BTreeSet::new();
    html.match_indices(&needle).filter_map(|(at, _)| html[at + needle.len()..].split('"').next()).filter(|name| seen.insert(*name)).collect()
}

/// The traits implemented, from the `impl-<Trait>-for-<Type>` anchors of the trait
/// implementations (the blanket ones, the same for every type, left out).
fn trait_impls(html: &str) -> Vec<String> {
    let Some(start) = html.find("id=\"trait-implementations\"") else { return Vec::new() };
    let end = html.find("id=\"synthetic-implementations\"").or_else(|| html.find("id=\"blanket-implementations\"")).unwrap_or(html.len());
    let section = &html[start..end.max(start)];
    let mut seen = BTreeSet::new();
    section
        .match_indices("id=\"impl-")
        .filter_map(|(at, _)| section[at + 9..].split('"').next())
        .map(|id| decode(id.split("-for-").next().unwrap_or(id)))
        .filter(|name| seen.insert(name.clone()))
        .collect()
}

/// An anchor's text as Rust writes it (`From%3CActions%3E` → `From<Actions>`).
fn decode(id: &str) -> String {
    [("%3C", "<"), ("%3E", ">"), ("%5B", "["), ("%5D", "]"), ("%2C", ","), ("%26", "&"), ("%27", "'"), ("%20", " "), ("+", " ")]
        .iter()
        .fold(id.to_string(), |text, (code, plain)| text.replace(code, plain))
}

/// One page's lines: the item (`prelude::struct.Listeners`), then, indented, what it has before
/// its trait implementations, then the traits it implements.
fn page_lines(root: &Path, page: &Path) -> Vec<String> {
    let rel = page.strip_prefix(root).expect("under the root").to_string_lossy().replace('/', "::");
    let item = rel.trim_end_matches(".html");
    let html = std::fs::read_to_string(page).expect("a page");
    let own = &html[..html.find("id=\"trait-implementations\"").or_else(|| html.find("id=\"synthetic-implementations\"")).unwrap_or(html.len())];
    let mut lines = vec![item.to_string()];
    for kind in ["variant", "structfield", "associatedconstant", "associatedtype", "tymethod", "method"] {
        lines.extend(anchors(own, kind).into_iter().map(|name| format!("    {kind} {name}")));
    }
    lines.extend(trait_impls(&html).into_iter().map(|t| format!("    impl {t}")));
    lines
}

fn listing() -> (usize, String) {
    let root = doc_dir();
    let mut all = Vec::new();
    pages(&root, &mut all);
    let mut items: Vec<PathBuf> = all
        .into_iter()
        .filter(|p| !matches!(p.file_name().and_then(|n| n.to_str()), Some("index.html" | "all.html")))
        .filter(|p| !std::fs::read_to_string(p).unwrap_or_default().contains("http-equiv=\"refresh\""))
        .collect();
    items.sort();
    let lines: Vec<String> = items.iter().flat_map(|p| page_lines(&root, p)).collect();
    (items.len(), lines.join("\n") + "\n")
}

#[test]
fn the_documented_api_is_the_committed_listing_and_at_most_250_items() {
    let (count, now) = listing();
    let committed_path = Path::new(ROOT).join("docs/api.txt");
    if std::env::var_os("SLACKLINE_BLESS_API").is_some() {
        std::fs::write(&committed_path, &now).expect("docs/api.txt written");
    }
    let committed = std::fs::read_to_string(&committed_path).unwrap_or_default();
    if committed != now {
        let (was, is): (BTreeSet<&str>, BTreeSet<&str>) = (committed.lines().collect(), now.lines().collect());
        let gone: Vec<_> = was.difference(&is).collect();
        let new: Vec<_> = is.difference(&was).collect();
        panic!(
            "the documented API changed (update docs/api.txt with SLACKLINE_BLESS_API=1 cargo test --test api, and CHANGELOG.md for a break)\n  gone: {gone:?}\n  new: {new:?}"
        );
    }
    assert!(count <= MAX_ITEMS, "{count} documented items: the API's ceiling is {MAX_ITEMS}");
}

#[test]
fn the_listing_reads_items_members_and_traits_from_a_page() {
    let html = r#"<h1>Struct Listeners</h1><section id="method.mention"></section><section id="method.mention"></section>
        <section id="structfield.text"></section><h2 id="trait-implementations">Trait Implementations</h2>
        <section id="impl-Debug-for-Listeners"></section><section id="method.fmt"></section><section id="impl-From%3C%5BBlock;+N%5D%3E-for-Listeners"></section>
        <h2 id="blanket-implementations">Blanket</h2><section id="impl-From%3CT%3E-for-T"></section>"#;
    let dir = std::env::temp_dir().join(format!("slackline-api-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("prelude")).unwrap();
    let page = dir.join("prelude/struct.Listeners.html");
    std::fs::write(&page, html).unwrap();
    assert_eq!(
        page_lines(&dir, &page),
        ["prelude::struct.Listeners", "    structfield text", "    method mention", "    impl Debug", "    impl From<[Block; N]>"]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
