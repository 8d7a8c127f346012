// The reference's side of bench/context_fixtures.py: writes a store through the reference
// core's public API (Memharness.open, remember, revise, forget, setStaleness, close).
//
//   node bench/context_reference.mjs JOB.json
//
// JOB: {"core": a built @memharness/core package folder, "db": the file to write,
//       "clock": {"start": ISO, "step": ms},
//       "ops": [{"op": "remember", ...RememberInput} | {"op": "revise", ...ReviseInput}
//               | {"op": "forget", ...ForgetInput}
//               | {"op": "stale", "id", "freshness", "checkedAt", "checkedHead"}]}
// Prints one JSON line per op (its result). Builds nothing.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const job = JSON.parse(readFileSync(process.argv[2], "utf8"));
const core = await import(pathToFileURL(join(job.core, "dist", "index.js")).href);
const mem = core.Memharness.open({
  dbPath: job.db,
  clock: new core.FakeClock(job.clock.start, job.clock.step),
});
for (const { op, ...input } of job.ops) {
  let out;
  if (op === "remember") out = mem.remember(input);
  else if (op === "revise") out = mem.revise(input);
  else if (op === "forget") out = mem.forget(input);
  else if (op === "stale") {
    mem.setStaleness(input.id, input);
    out = { id: input.id };
  } else throw new Error(`unknown op ${op}`);
  process.stdout.write(`${JSON.stringify(out)}\n`);
}
mem.close();
