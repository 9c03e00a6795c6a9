// Serves Workers in workerd through Miniflare alone, for the end-to-end tests: the runtime
// `wrangler dev` uses, with the SQLite-backed Durable Objects and alarms, started without wrangler
// (no config parsing, no esbuild pass over a bundle worker-build already made, no proxy or
// inspector workers, no console relay). A start costs about half of a `wrangler dev`'s CPU, and the
// suite starts about 80 runtimes (tests/e2e/support/runtime.rs).
//
// Usage: node scripts/workerd.mjs SPEC.json, where SPEC is
//   { "port": 8787, "persist": "DIR",
//     "workers": [{ "name": "slackline", "script": "…/build-testkit/index.js",
//                   "compatibility_date": "2026-11-01", "vars": { "K": "V" },
//                   "durable_objects": [{ "binding": "TEAM", "class": "TeamActor",
//                                         "script_name": "actors" }] }] }
// The first worker serves the port. Durable Objects persist where `wrangler dev --persist-to DIR`
// keeps them (DIR/v3/do/{worker}-{class}/), so the schema fixtures and restarts read the same files.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

// Loaded with require(), not import: Node's import of a CommonJS module first scans its source for
// named exports (cjs-module-lexer), about 0.3 s of CPU over Miniflare's 3 MB bundle on every start.
const { Miniflare, convertV4MiniflareOptions } = createRequire(import.meta.url)("miniflare");

const spec = JSON.parse(readFileSync(process.argv[2], "utf8"));

const worker = (w) => ({
  name: w.name,
  // worker-build's bundle: its JS and the wasm it imports as `./index_bg.wasm`.
  modulesRoot: dirname(w.script),
  modules: [
    { type: "ESModule", path: w.script },
    { type: "CompiledWasm", path: join(dirname(w.script), "index_bg.wasm") },
  ],
  compatibilityDate: w.compatibility_date,
  bindings: w.vars,
  durableObjects: Object.fromEntries(
    w.durable_objects.map((d) => [d.binding, { className: d.class, scriptName: d.script_name ?? undefined, useSQLite: true }]),
  ),
});

const mf = new Miniflare(convertV4MiniflareOptions({
  host: "127.0.0.1",
  port: spec.port,
  // No request for Cloudflare's `cf` object: these machines cannot reach it.
  cf: false,
  // Durable Objects under v3/do/ as wrangler keeps them (Miniflare adds the do/).
  resourcePersistencePath: join(spec.persist, "v3"),
  workers: spec.workers.map(worker),
}));
await mf.ready;
console.log(`Ready on http://127.0.0.1:${spec.port}`);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => mf.dispose().finally(() => process.exit(0)));
