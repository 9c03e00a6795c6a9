//! The adapters' module graph has no cycle: every import between the modules of `src/runtime/`
//! points one way (away from the front door, down to `store`, `http`, `log` and `clock`), so each
//! module can be read knowing only what it imports.
//!
//! (The pure core needs no such check: it is compiled natively, where the `worker` crate does not
//! exist, so a `worker::` import in it fails `cargo test` by itself.)
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const RUNTIME: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/runtime");

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level runtime module a file belongs to (`team/ingest.rs` → `team`), or None for
/// `runtime/mod.rs` itself (the shared helpers every adapter may use).
fn owner(file: &Path) -> Option<String> {
    let rel = file.strip_prefix(RUNTIME).unwrap();
    let first = rel.components().next()?.as_os_str().to_str()?.to_string();
    (first != "mod.rs").then(|| first.trim_end_matches(".rs").to_string())
}

/// How many `super::` lead from this file to `runtime` (1 for `runtime/x.rs` and
/// `runtime/x/mod.rs`, 2 for `runtime/x/y.rs`).
fn depth(file: &Path) -> usize {
    let rel = file.strip_prefix(RUNTIME).unwrap();
    let parts = rel.components().count();
    if file.file_name().is_some_and(|n| n == "mod.rs") {
        parts - 1
    } else {
        parts
    }
}

/// The first path segment of each item of a `{a, b::c, d::{e, f}}` group.
fn group_heads(group: &str) -> Vec<String> {
    let (mut heads, mut level, mut current) = (Vec::new(), 0, String::new());
    for ch in group.chars() {
        match ch {
            '{' => level += 1,
            '}' => level -= 1,
            ',' if level == 0 => heads.push(std::mem::take(&mut current)),
            _ if level == 0 => current.push(ch),
            _ => {}
        }
    }
    heads.push(current);
    heads.iter().filter_map(|h| h.trim().split("::").next().map(str::to_string)).filter(|h| !h.is_empty()).collect()
}

/// The runtime modules a file refers to: through `super::…` (as many as lead to `runtime`) or
/// `crate::runtime::…`, as a path or in a `use` group.
fn references(file: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let prefixes = ["super::".repeat(depth(file)), "crate::runtime::".to_string()];
    let mut found = BTreeSet::new();
    for prefix in &prefixes {
        for (at, _) in text.match_indices(prefix.as_str()) {
            // `super::super::x` seen from a file at depth 1 is not a reference to `runtime`.
            if text[..at].ends_with("super::") {
                continue;
            }
            let rest = &text[at + prefix.len()..];
            if let Some(group) = rest.strip_prefix('{') {
                let end = group.find(';').unwrap_or(group.len());
                found.extend(group_heads(group[..end].trim_end().trim_end_matches('}')));
            } else {
                let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                found.insert(name);
            }
        }
    }
    found
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(Path::new(RUNTIME), &mut files);
    let modules: BTreeSet<String> = files.iter().filter_map(|f| owner(f)).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = modules.iter().map(|m| (m.clone(), BTreeSet::new())).collect();
    for file in &files {
        let Some(from) = owner(file) else { continue };
        for to in references(file) {
            if to != from && modules.contains(&to) {
                edges.get_mut(&from).unwrap().insert(to);
            }
        }
    }
    edges
}

/// A cycle through `node`, if the depth-first search from it finds one.
fn cycle_from(node: &str, edges: &BTreeMap<String, BTreeSet<String>>, path: &mut Vec<String>, done: &mut BTreeSet<String>) -> Option<Vec<String>> {
    if let Some(start) = path.iter().position(|n| n == node) {
        let mut cycle = path[start..].to_vec();
        cycle.push(node.to_string());
        return Some(cycle);
    }
    if done.contains(node) {
        return None;
    }
    path.push(node.to_string());
    for next in &edges[node] {
        if let Some(cycle) = cycle_from(next, edges, path, done) {
            return Some(cycle);
        }
    }
    path.pop();
    done.insert(node.to_string());
    None
}

#[test]
fn the_runtime_modules_import_each_other_without_a_cycle() {
    let edges = graph();
    let mut done = BTreeSet::new();
    for node in edges.keys() {
        if let Some(cycle) = cycle_from(node, &edges, &mut Vec::new(), &mut done) {
            panic!("import cycle in src/runtime: {}\nall imports: {edges:#?}", cycle.join(" → "));
        }
    }
}

#[test]
fn the_graph_sees_the_imports_it_checks() {
    // The check above is only as good as its parser: the front door's known imports must show.
    let edges = graph();
    for to in ["admin", "team", "error", "oauth"] {
        assert!(edges["front_door"].contains(to), "front_door → {to} not seen: {:?}", edges["front_door"]);
    }
    assert!(edges["sweep"].contains("store"), "{:?}", edges["sweep"]);
    assert!(!edges.values().any(|to| to.contains("front_door")), "nothing imports the front door: {edges:#?}");
}
