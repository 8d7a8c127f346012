// The reference core's side of bench/reference_bench.py: a child that runs recalls on request.
//
//   node bench/reference_recall.mjs JOB.json
//
// JOB: {"core": a built @memharness/core package folder (its dist/ and node_modules/),
//       "db": the store file, "queries": [{"query", "subject", "asOf", ...}, ...],
//       "clock": {"start": ISO, "step": ms}}
// Prints `READY {"sqlite": version}`, then reads one query index per stdin line and answers
// each with one JSON line: the call's wall ms and CPU ms, the ids, scores and usedFallback.
// Calls only the core's public API (Memharness.open, recall, close); builds nothing.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const job = JSON.parse(readFileSync(process.argv[2], "utf8"));
const core = await import(pathToFileURL(join(job.core, "dist", "index.js")).href);
const mem = core.Memharness.open({
  dbPath: job.db,
  clock: new core.FakeClock(job.clock.start, job.clock.step),
});
let sqlite = null;
try {
  sqlite = mem.db.prepare("SELECT sqlite_version() AS v").get().v;
} catch {
  sqlite = null;
}
process.stdout.write(`READY ${JSON.stringify({ sqlite })}\n`);

for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === "") break;
  const q = job.queries[Number(line)];
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const r = mem.recall(q);
  const t1 = process.hrtime.bigint();
  const c1 = process.cpuUsage(c0);
  process.stdout.write(
    `${JSON.stringify({
      wall: Number(t1 - t0) / 1e6,
      cpu: (c1.user + c1.system) / 1e3,
      ids: r.facts.map((f) => f.id),
      scores: r.facts.map((f) => f.score),
      fallback: r.usedFallback,
    })}\n`,
  );
}
mem.close();
