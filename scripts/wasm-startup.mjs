// What a Worker's wasm costs V8 before its first request, outside workerd: for each .wasm given,
// RUNS times, WebAssembly.compile of its bytes and WebAssembly.instantiate of the module (every
// import a stub: the module is instantiated, never run), and the sizes of its sections. The start-up
// benchmark (benches/load/startup.rs, BENCH_ONLY=startup) runs it under the V8 flags it compares:
// V8's default (lazy: functions are validated at compile and compiled by Liftoff on their first
// call), --no-wasm-lazy-compilation (every function compiled by Liftoff up front) and, with
// --no-liftoff too, by TurboFan. Prints one JSON line per file.
// Usage: node [V8 flags] scripts/wasm-startup.mjs [--runs N] FILE.wasm...
import { readFileSync } from "node:fs";

const args = process.argv.slice(2);
const runsAt = args.indexOf("--runs");
const runs = runsAt >= 0 ? Number(args.splice(runsAt, 2)[1]) : 10;

/// A stub for every import: the module instantiates, and nothing in it runs.
function stubs(module) {
  const imports = {};
  for (const { module: from, name, kind } of WebAssembly.Module.imports(module)) {
    imports[from] ??= {};
    imports[from][name] = kind === "tag" ? new WebAssembly.Tag({ parameters: ["externref"] }) : () => {};
  }
  return imports;
}

/// An unsigned LEB128 at `at`: [value, next offset].
function leb(bytes, at) {
  let [value, shift] = [0, 0];
  for (;;) {
    const b = bytes[at++];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (b < 0x80) return [value, at];
  }
}

/// Bytes per section (code, data, the rest) and the number of functions the module defines.
function sections(bytes) {
  const sizes = { code: 0, data: 0, other: 0 };
  let functions = 0;
  for (let at = 8; at < bytes.length; ) {
    const id = bytes[at];
    const [size, body] = leb(bytes, at + 1);
    if (id === 10) [functions] = leb(bytes, body);
    sizes[id === 10 ? "code" : id === 11 ? "data" : "other"] += size;
    at = body + size;
  }
  return { ...sizes, functions };
}

/// The module's bytes with a custom section naming run `i` at the end: V8 keeps compiled modules by
/// their bytes, and a second compile of the same bytes would be a cache hit, not a compile.
function unique(bytes, i) {
  const name = new TextEncoder().encode(`run-${i}`);
  return Buffer.concat([bytes, Buffer.from([0, name.length + 1, name.length]), name]);
}

const median = (xs) => xs.sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

for (const file of args) {
  const bytes = readFileSync(file);
  const [compile, instantiate] = [[], []];
  for (let i = 0; i < runs; i++) {
    const wire = unique(bytes, i);
    const t0 = performance.now();
    const module = await WebAssembly.compile(wire);
    const t1 = performance.now();
    await WebAssembly.instantiate(module, stubs(module));
    compile.push(t1 - t0);
    instantiate.push(performance.now() - t1);
  }
  const ms = (xs) => ({ p50: median([...xs]), min: Math.min(...xs), max: Math.max(...xs) });
  console.log(JSON.stringify({ file, bytes: bytes.length, ...sections(bytes), compile_ms: ms(compile), instantiate_ms: ms(instantiate) }));
}
