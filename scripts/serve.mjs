// Serves a Worker in workerd through wrangler's programmatic API with the dev-only tooling off:
// no inspector (whose console relay costs more CPU per log line than a hello world costs per
// request), no local explorer, no local observability collector, no copy of every printed line
// into wrangler's debug log file. The benchmarks use it for the floor and for slackline alike.
// Usage:
//   node scripts/serve.mjs --config wrangler.toml --port 8787 --persist-to DIR [--env-file FILE]
//     [--script BUNDLE] (served instead of the config's main: the tests' build-testkit bundle)
import { unstable_startWorker } from "wrangler";

process.env.X_LOCAL_EXPLORER ??= "false";
process.env.X_LOCAL_OBSERVABILITY ??= "false";
process.env.WRANGLER_WRITE_LOGS ??= "false";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, arg, i, all) => (arg.startsWith("--") ? [...pairs, [arg.slice(2), all[i + 1]]] : pairs), []),
);
const worker = await unstable_startWorker({
  config: args.config ?? "wrangler.toml",
  entrypoint: args.script,
  envFiles: args["env-file"] ? [args["env-file"]] : undefined,
  dev: {
    server: { hostname: "127.0.0.1", port: Number(args.port ?? 8787) },
    inspector: false,
    persist: args["persist-to"],
    watch: false,
  },
});
await worker.ready;
console.log(`Ready on ${await worker.url}`);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => worker.dispose().finally(() => process.exit(0)));
