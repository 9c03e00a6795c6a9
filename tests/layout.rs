//! The crate's import graph has no cycle, at two grains: every import between the modules of
//! `src/runtime/` points one way (away from the front door, down to `store`), and, file by file
//! across the whole of `src/`, no file imports another that imports it back, directly or around a
//! circle. So each file can be read knowing only what it imports. The layers hold too:
//! `platform/` (the wasm32 primitives) imports nothing of `runtime/`, and a kind's room
//! (`kinds/<kind>/`) imports neither the actors nor another room. No Slack method name is written
//! outside `slack/method.rs`.
//!
//! (That the pure core has no `worker::` import needs no check here: it is compiled natively,
//! where the `worker` crate does not exist, so such an import fails `cargo test` by itself.)
//!
//! And the bots (`examples/*`, and `template/`, which `make new` copies) name nothing of slackline
//! but its prelude, its test kit and its macro, so a bot is written against that surface alone.
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
    split_top_level(group).iter().filter_map(|h| h.trim().split("::").next().map(str::to_string)).filter(|h| !h.is_empty()).collect()
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

// ---------------------------------------------------------------------------------------------
// File by file, across the whole crate.
//
// A file depends on another when it names a path into it (`crate::a::b::item`, `super::x`,
// `self::y`, in a `use` or inline, groups `{…}` included): the path's longest prefix that is a
// module file is the file it reaches. Two kinds of reference are not counted: a file naming an
// ancestor module (a child using its parent's items is how a folder is built, and the parent's own
// imports are counted on their own), and code under `#[cfg(test)]` (a file's inline `mod tests`,
// and `tests.rs` and `*_tests.rs` files), which no build of the Worker contains. Paths through a `use` alias
// (`use super::store; store::outbox::x`) reach the alias's module, not deeper: the check can miss
// an edge, never invent one.

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");

/// The module path of a file: `src/a/b.rs` and `src/a/b/mod.rs` → `a::b`, `src/lib.rs` → ``.
fn module_of(file: &Path) -> String {
    let rel = file.strip_prefix(SRC).unwrap().with_extension("");
    let mut parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_str().unwrap().to_string()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod") | Some("lib")) {
        parts.pop();
    }
    parts.join("::")
}

/// The code of a file that a production build compiles: its inline `#[cfg(test)]` module cut,
/// and its comment lines (a doc link names a module without importing it).
fn production_text(file: &Path) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    let code = match text.find("#[cfg(test)]\nmod tests {") {
        Some(at) => &text[..at],
        None => &text,
    };
    code.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The identifier path that follows `rest`: `a::b::{c, d::e}` → [[a, b, c], [a, b, d, e]].
fn paths_after(rest: &str) -> Vec<Vec<String>> {
    let ident = |s: &str| s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>();
    let mut head = Vec::new();
    let mut s = rest;
    loop {
        if let Some(group) = s.strip_prefix('{') {
            let (mut level, mut end) = (1, group.len());
            for (i, ch) in group.char_indices() {
                match ch {
                    '{' => level += 1,
                    '}' => {
                        level -= 1;
                        if level == 0 {
                            end = i;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let mut out = Vec::new();
            for item in split_top_level(&group[..end]) {
                for tail in paths_after(item.trim()) {
                    let mut p = head.clone();
                    p.extend(tail.into_iter().filter(|t| t != "self"));
                    out.push(p);
                }
            }
            return out;
        }
        let name = ident(s);
        if name.is_empty() {
            return vec![head];
        }
        s = &s[name.len()..];
        head.push(name);
        match s.strip_prefix("::") {
            Some(more) => s = more,
            None => return vec![head],
        }
    }
}

/// A group's items, split at its top-level commas.
fn split_top_level(group: &str) -> Vec<&str> {
    let (mut items, mut level, mut start) = (Vec::new(), 0, 0);
    for (i, ch) in group.char_indices() {
        match ch {
            '{' => level += 1,
            '}' => level -= 1,
            ',' if level == 0 => {
                items.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&group[start..]);
    items.into_iter().filter(|i| !i.trim().is_empty()).collect()
}

/// The absolute module paths a file names (each `crate::…`, `super::…` or `self::…` path).
fn named_paths(file: &Path) -> Vec<Vec<String>> {
    let text = production_text(file);
    let here: Vec<String> = module_of(file).split("::").filter(|s| !s.is_empty()).map(str::to_string).collect();
    // `super` from `a/b.rs` (module a::b) is `a`; from `a/b/mod.rs` (also a::b) it is `a` too.
    let mut found = Vec::new();
    let bytes = text.as_bytes();
    for (at, _) in text.match_indices("crate::").chain(text.match_indices("super::")).chain(text.match_indices("self::")) {
        // Only the start of a path: not `super::super::` seen from its second `super`, not `$crate`.
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_' || bytes[at - 1] == b'$' || text[..at].ends_with("::")) {
            continue;
        }
        let mut base = here.clone();
        let mut rest = &text[at..];
        if let Some(r) = rest.strip_prefix("crate::") {
            base.clear();
            rest = r;
        } else if let Some(r) = rest.strip_prefix("self::") {
            rest = r;
        } else {
            while let Some(r) = rest.strip_prefix("super::") {
                base.pop();
                rest = r;
            }
        }
        for tail in paths_after(rest) {
            let mut p = base.clone();
            p.extend(tail);
            found.push(p);
        }
    }
    found
}

/// The files of `src/` a production build compiles: not the `tests.rs` and `*_tests.rs` files
/// (nor any under a `tests/` folder), which are all `#[cfg(test)]` modules.
fn production_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    rust_files(Path::new(SRC), &mut files);
    let test_file = |f: &Path| f.file_stem().and_then(|s| s.to_str()).is_some_and(|s| s == "tests" || s.ends_with("_tests"));
    files.retain(|f| !test_file(f) && !f.components().any(|c| c.as_os_str() == "tests"));
    files
}

/// The file-level import graph of `src/` (module path → module paths it reaches).
fn file_graph() -> BTreeMap<String, BTreeSet<String>> {
    let files = production_files();
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(f)).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = modules.iter().map(|m| (m.clone(), BTreeSet::new())).collect();
    for file in &files {
        let from = module_of(file);
        for path in named_paths(file) {
            let reached = (0..=path.len()).rev().map(|n| path[..n].join("::")).find(|m| modules.contains(m));
            let Some(to) = reached else { continue };
            let ancestor = to.is_empty() || from == to || from.starts_with(&format!("{to}::"));
            if !ancestor {
                edges.get_mut(&from).unwrap().insert(to);
            }
        }
    }
    edges
}

/// Every strongly connected group of more than one file (Tarjan's algorithm): each holds at
/// least one cycle.
fn cyclic_groups(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        groups: Vec<BTreeSet<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, node: &'a str) {
            let n = self.index.len();
            self.index.insert(node, n);
            self.low.insert(node, n);
            self.stack.push(node);
            self.on_stack.insert(node);
            for next in &self.edges[node] {
                let next = next.as_str();
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next]);
                    self.low.insert(node, low);
                } else if self.on_stack.contains(next) {
                    let low = self.low[node].min(self.index[next]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let mut group = BTreeSet::new();
                while let Some(top) = self.stack.pop() {
                    self.on_stack.remove(top);
                    group.insert(top.to_string());
                    if top == node {
                        break;
                    }
                }
                if group.len() > 1 {
                    self.groups.push(group);
                }
            }
        }
    }
    let mut walk = Walk { edges, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), on_stack: BTreeSet::new(), groups: Vec::new() };
    for node in edges.keys() {
        if !walk.index.contains_key(node.as_str()) {
            walk.visit(node);
        }
    }
    walk.groups
}

#[test]
fn no_file_of_the_crate_imports_another_in_a_cycle() {
    let edges = file_graph();
    let groups = cyclic_groups(&edges);
    let shown: Vec<String> =
        groups.iter().map(|g| g.iter().map(|m| format!("{m} → {:?}", edges[m].intersection(g).collect::<Vec<_>>())).collect::<Vec<_>>().join("\n  ")).collect();
    assert!(groups.is_empty(), "files that import each other in a circle (each group, each file's imports inside it):\n  {}", shown.join("\n\n  "));
}

#[test]
fn the_platform_imports_nothing_of_the_actors() {
    // platform/ is what the kinds' jobs and stores stand on: it must not reach into runtime/, or a
    // kind's wasm32 code would import the actors through it.
    let edges = file_graph();
    let up: Vec<String> = edges
        .iter()
        .filter(|(from, _)| from.starts_with("platform"))
        .flat_map(|(from, to)| to.iter().filter(|t| t.starts_with("runtime")).map(move |t| format!("{from} → {t}")))
        .collect();
    assert!(edges.keys().any(|k| k.starts_with("platform::")), "the platform's files are in the graph");
    assert!(up.is_empty(), "platform/ imports runtime/:\n  {}", up.join("\n  "));
}

/// The files of `kinds/` that are no room: the registry, its dispatch, the job's contract between
/// the sweep and every room (`kinds::job`) and its completion (`kinds::completion`), the team
/// database's migrations (`kinds::schema`), and the test that reads every room's judge
/// (`kinds::slack_errors`: each kind's Slack errors through the classifier).
const REGISTRY: [&str; 6] = ["registry", "perform", "job", "completion", "schema", "slack_errors"];

#[test]
fn a_kinds_room_imports_neither_the_actors_nor_another_room() {
    // kinds/<kind>/ is a kind's room: the pure core, platform/ and its own files. The actors import
    // the rooms, never the reverse, and one kind never reaches into another's room. The registry
    // (`kinds::registry`, the `Action` every room's rows carry) and its dispatch (`kinds::perform`,
    // which calls every room's job) are no room: every room may import the first, and the second
    // imports them all.
    let edges = file_graph();
    let room = |module: &str| {
        let rest = module.strip_prefix("kinds::")?;
        let name = rest.split("::").next().unwrap_or(rest);
        (!REGISTRY.contains(&name)).then(|| name.to_string())
    };
    let mut wrong = Vec::new();
    for (from, to) in edges.iter().filter(|(from, _)| room(from).is_some()) {
        for t in to {
            let other_room = room(t).is_some_and(|r| Some(r) != room(from));
            if t.starts_with("runtime") || other_room {
                wrong.push(format!("{from} → {t}"));
            }
        }
    }
    assert!(edges.keys().any(|k| k.starts_with("kinds::notify::")), "the rooms' files are in the graph");
    assert!(wrong.is_empty(), "a room imports the actors or another room:\n  {}", wrong.join("\n  "));
}

#[test]
fn the_file_graph_sees_the_imports_it_checks() {
    // The check above is only as good as its parser: known imports of every form must show.
    let edges = file_graph();
    let has = |from: &str, to: &str| edges[from].contains(to);
    assert!(has("runtime::front_door", "runtime::team"), "super:: in a use group");
    assert!(has("platform::http", "platform::log"), "super:: inline");
    assert!(has("platform::rows", "platform::exec"), "super:: then a group");
    assert!(has("kinds::lists::store::end", "platform::rows"), "crate:: in a use, from a nested file");
    assert!(has("runtime::store::outbox", "runtime::store::ingest"));
    assert!(has("kinds::registry", "kinds::schedule::when"), "crate:: inline, to the deepest module file");
    assert!(has("kinds::schedule", "kinds::completion") && has("kinds::completion", "kinds::registry"), "crate:: in a use");
    assert!(!has("kinds::lists::store::end", "kinds::lists::store"), "a parent is not an import");
    assert!(edges.len() > 100, "every file: {}", edges.len());
}

#[test]
fn the_cycle_finder_finds_a_cycle_through_three_files_and_none_in_a_chain() {
    let graph = |pairs: &[(&str, &str)]| {
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, to) in pairs {
            edges.entry(from.to_string()).or_default().insert(to.to_string());
            edges.entry(to.to_string()).or_default();
        }
        edges
    };
    let cycle = graph(&[("effect", "scheduled"), ("scheduled", "completion"), ("completion", "effect"), ("app", "effect")]);
    assert_eq!(cyclic_groups(&cycle), vec![["completion", "effect", "scheduled"].iter().map(|s| s.to_string()).collect::<BTreeSet<_>>()]);
    assert!(cyclic_groups(&graph(&[("a", "b"), ("b", "c"), ("a", "c")])).is_empty());
}

#[test]
fn paths_are_read_through_groups_and_nesting() {
    let p = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(paths_after("rows::{insert_action, Queue};"), vec![p(&["rows", "insert_action"]), p(&["rows", "Queue"])]);
    assert_eq!(paths_after("{self, a::{b, c}, d}"), vec![p(&[]), p(&["a", "b"]), p(&["a", "c"]), p(&["d"])]);
    assert_eq!(paths_after("scheduled::when::When { due"), vec![p(&["scheduled", "when", "When"])]);
}

// ---------------------------------------------------------------------------------------------
// Slack method names: each written once, in `src/slack/method.rs`.
//
// The production code of every other file (the same text the import check reads: inline test
// modules and comment lines cut) holds no string literal that is a Slack Web API method name; it
// names the method through `slack::method`. Prose in comments may mention a method.

/// The table of Slack method names, the one file that writes them.
const METHOD_TABLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/slack/method.rs");

/// The Web API families a method name starts with (`chat.postMessage`, `views.open`, …).
const METHOD_FAMILIES: [&str; 14] =
    ["chat", "reactions", "views", "assistant", "conversations", "users", "auth", "oauth", "slackLists", "apps", "team", "files", "functions", "agents"];

/// Literals shaped like a method name that are none: OpenAI's object names (the fake LLM's
/// answers) and the JSON path of a team id in Slack's envelope.
const NOT_METHODS: [&str; 3] = ["chat.completion", "chat.completion.chunk", "team.id"];

/// The string literals in `code` that are, whole, a Slack method name (`"family.name…"`).
fn method_literals(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in code.match_indices('"') {
        let rest = &code[at + 1..];
        let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '.').collect();
        let whole = rest[name.len()..].starts_with('"');
        let mut parts = name.split('.');
        let family = parts.next().unwrap_or("");
        let named = name.contains('.') && parts.all(|p| !p.is_empty());
        if whole && named && METHOD_FAMILIES.contains(&family) && !NOT_METHODS.contains(&name.as_str()) {
            found.push(name);
        }
    }
    found
}

#[test]
fn no_code_outside_the_method_table_writes_a_slack_method_name() {
    let mut found = Vec::new();
    for file in production_files().iter().filter(|f| f.as_path() != Path::new(METHOD_TABLE)) {
        let shown = file.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap().display().to_string();
        found.extend(method_literals(&production_text(file)).into_iter().map(|name| format!("{shown}: \"{name}\"")));
    }
    assert!(found.is_empty(), "Slack method names written as strings (name them through `slack::method`):\n  {}", found.join("\n  "));
}

#[test]
fn the_method_check_sees_method_names_and_nothing_else() {
    // The check above is only as good as its reader: the table's own names must show.
    assert!(method_literals(&production_text(Path::new(METHOD_TABLE))).len() > 30);
    let code = r#"call("chat.postMessage", a); x == "oauth.v2.access" || x == "slackLists.items.list""#;
    assert_eq!(method_literals(code), ["chat.postMessage", "oauth.v2.access", "slackLists.items.list"]);
    let not_methods = r#"json!({"object": "chat.completion.chunk"}); Missing("team.id"); "chat.postMessage:C1"; "event.ts"; "chat.""#;
    assert!(method_literals(not_methods).is_empty(), "{:?}", method_literals(not_methods));
}

// ---------------------------------------------------------------------------------------------
// What a bot names of slackline.
//
// A bot is written against `slackline::prelude` (with `slackline::handler` and
// `slackline::blocks` for what it reaches through values and builds), tested with
// `slackline::testing`, and made a Worker by `slackline::worker!`: that is slackline's API
// (`tests/api.rs` holds it to `docs/api.txt`), and the whole of slackline a file of
// `examples/*/src` or `template/src` may name, in code and in comments alike (a newcomer copies
// both). `slackline::internal` is not API: the crate's own tests, benchmarks and simulator only.

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The bots' source folders: `examples/*/src` and `template/src`.
fn bot_sources() -> Vec<PathBuf> {
    let examples = std::fs::read_dir(Path::new(ROOT).join("examples")).unwrap();
    let mut dirs: Vec<PathBuf> = examples.map(|e| e.unwrap().path().join("src")).filter(|d| d.is_dir()).collect();
    dirs.push(Path::new(ROOT).join("template/src"));
    dirs.sort();
    dirs
}

/// The `slackline::` paths `text` names beyond the prelude, the test kit and the macro, as written
/// after `slackline::` (a group's items one by one).
fn paths_past_the_prelude(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    for (at, _) in text.match_indices("slackline::") {
        // `my_slackline::x` is another crate's path.
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        let rest = &text[at + "slackline::".len()..];
        if rest.starts_with("worker!") {
            continue;
        }
        let allowed = |path: &Vec<String>| matches!(path.first().map(String::as_str), Some("prelude" | "testing" | "handler" | "blocks"));
        found.extend(paths_after(rest).into_iter().filter(|p| !allowed(p)).map(|p| p.join("::")));
    }
    found
}

#[test]
fn the_bots_name_only_the_prelude_the_test_kit_and_the_macro() {
    let mut files = Vec::new();
    for dir in bot_sources() {
        rust_files(&dir, &mut files);
    }
    assert!(files.len() >= 6, "every bot's files (4 examples and the template): {files:?}");
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let shown = file.strip_prefix(ROOT).unwrap().display().to_string();
        found.extend(paths_past_the_prelude(&text).into_iter().map(|p| format!("{shown}: slackline::{p}")));
    }
    assert!(
        found.is_empty(),
        "a bot names slackline beyond slackline::prelude, slackline::testing and slackline::worker! (what it needs belongs in the prelude or the test kit):\n  {}",
        found.join("\n  ")
    );
}

#[test]
fn the_bot_check_reads_groups_and_comments_and_lets_the_prelude_the_test_kit_and_the_macro_pass() {
    let text = "use slackline::{prelude::*, app::Vars, handler::Origin};\nuse slackline::testing::{handle, Team};\nslackline::worker!(app);\nlet s = my_slackline::x; // slackline::internal::kinds::registry::Action\n";
    assert_eq!(paths_past_the_prelude(text), ["app::Vars", "internal::kinds::registry::Action"]);
    assert_eq!(paths_past_the_prelude("use slackline::worker;"), ["worker"], "the macro is named as a call, `slackline::worker!(app)`");
}

// ---------------------------------------------------------------------------------------------
// The layers (issue 53, goal 4): the platform knows no kind and no app; a kind's room knows no
// app and no admin; the crate's top-level modules import each other without a cycle.

/// The file graph's edges from files under `from` to files under any of `to`, as "a → b".
fn edges_between(from: &str, to: &[&str]) -> Vec<String> {
    let under = |module: &str, top: &str| module == top || module.starts_with(&format!("{top}::"));
    file_graph()
        .iter()
        .filter(|(f, _)| under(f, from))
        .flat_map(|(f, ts)| ts.iter().filter(|t| to.iter().any(|top| under(t, top))).map(move |t| format!("{f} → {t}")))
        .collect()
}

#[test]
fn the_platform_imports_no_kind_and_no_app() {
    let wrong = edges_between("platform", &["kinds", "app"]);
    assert!(wrong.is_empty(), "platform/ knows no kind and no app (its docs say so):\n  {}", wrong.join("\n  "));
}

#[test]
fn a_kind_imports_no_app_and_no_admin() {
    let wrong = edges_between("kinds", &["app", "admin"]);
    assert!(wrong.is_empty(), "kinds/ imports app/ or admin/:\n  {}", wrong.join("\n  "));
}

#[test]
fn the_top_level_modules_import_each_other_without_a_cycle() {
    // The engine's layers below the kinds (the platform, the SQL, the outbox, the config, the log
    // lines) name no kind: what every kind shares with the engine (a job's contract and its
    // completion, the team database's migrations) is the kinds' own, in their non-room files.
    let top = |module: &str| module.split("::").next().unwrap_or(module).to_string();
    let mut modules: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to) in file_graph() {
        let entry = modules.entry(top(&from)).or_default();
        entry.extend(to.iter().map(|t| top(t)).filter(|t| *t != top(&from)));
    }
    assert!(modules.len() > 15 && modules["kinds"].contains("platform"), "every top-level module, with its imports");
    let groups = cyclic_groups(&modules);
    let shown: Vec<String> = groups
        .iter()
        .map(|g| g.iter().map(|m| format!("{m} → {:?}", modules[m].intersection(g).collect::<Vec<_>>())).collect::<Vec<_>>().join("\n  "))
        .collect();
    assert!(groups.is_empty(), "top-level modules in a cycle:\n  {}", shown.join("\n\n  "));
}
