// The reference's answers for the hygiene parity fixtures (tests/fixtures/hygiene_*.json),
// generated once by hand; bench/hygiene_fixtures.py writes the job and keeps the answers.
//
//   node [--import tsx] bench/hygiene_reference.mjs JOB.json > ANSWERS.json
//
// JOB: {"core": a built @memharness/core package folder (dist/ and node_modules/),
//       "server": packages/mcp/src/server.ts or null (needs --import tsx and the MCP SDK),
//       "sdk": the @modelcontextprotocol/sdk package folder server.ts resolves,
//       "clock": {"start": ISO, "step": ms},
//       "stores": [{"name", "db", "calls": [{"op": "nearDuplicates"|"recall"|"why"|"diff", ...}]}],
//       "remember": [{"name", "steps": [{subject, fact, source_commit?}]}]}
// Every call runs on a fresh copy of its store with a fresh FakeClock (recall reinforces).
// Calls only public APIs (Memharness.open, nearDuplicates, recall, why, diff, the server's
// remember tool through the MCP SDK's in-memory client); builds nothing.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const job = JSON.parse(readFileSync(process.argv[2], "utf8"));
const core = await import(pathToFileURL(join(job.core, "dist", "index.js")).href);
const tmp = mkdtempSync(join(tmpdir(), "hygiene-ref-"));

const brief = (f) => ({ id: f.id, subject: f.subject, fact: f.fact, supersededBy: f.supersededBy });

function run(mem, call) {
  switch (call.op) {
    case "nearDuplicates": {
      const input = { subject: call.subject, text: call.text };
      if (call.queryVector) input.queryVector = call.queryVector;
      if (call.limit !== undefined) input.limit = call.limit;
      if (call.minSimilarity !== undefined) input.minSimilarity = call.minSimilarity;
      return mem.nearDuplicates(input).map((s) => ({ id: s.id, similarity: s.similarity }));
    }
    case "recall": {
      const r = mem.recall(call.args);
      return { ids: r.facts.map((f) => f.id), scores: r.facts.map((f) => f.score) };
    }
    case "why": {
      const w = mem.why(call.id);
      return {
        fact: brief(w.fact),
        ancestors: w.ancestors.map(brief),
        descendants: w.descendants.map(brief),
      };
    }
    case "diff": {
      const d = mem.diff(call.args);
      return {
        learned: d.learned.map((f) => f.id),
        revised: d.revised.map((p) => [p.old.id, p.new.id]),
        retracted: d.retracted.map((f) => f.id),
      };
    }
    default:
      throw new Error(`unknown op ${call.op}`);
  }
}

const out = { vecEnabled: null, stores: {}, remember: {} };
for (const store of job.stores) {
  out.stores[store.name] = store.calls.map((call, i) => {
    const copy = join(tmp, `${store.name}-${i}.db`);
    copyFileSync(store.db, copy);
    const mem = core.Memharness.open({
      dbPath: copy,
      clock: new core.FakeClock(job.clock.start, job.clock.step),
    });
    out.vecEnabled = mem.vecEnabled;
    try {
      return run(mem, call);
    } catch (err) {
      return { error: String(err.message) };
    } finally {
      mem.close();
    }
  });
}

if (job.server && job.remember.length > 0) {
  const { createServer } = await import(pathToFileURL(job.server).href);
  const sdk = (p) => pathToFileURL(join(job.sdk, "dist", "esm", p)).href;
  const { Client } = await import(sdk("client/index.js"));
  const { InMemoryTransport } = await import(sdk("inMemory.js"));
  for (const seq of job.remember) {
    const mem = core.Memharness.open({
      dbPath: ":memory:",
      clock: new core.FakeClock(job.clock.start, job.clock.step),
    });
    const server = createServer(mem, () => {});
    const client = new Client({ name: "hygiene-fixtures", version: "0.0.0" });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(b), client.connect(a)]);
    const texts = [];
    for (const step of seq.steps) {
      const r = await client.callTool({ name: "remember", arguments: step });
      texts.push(r.content.map((c) => c.text ?? "").join("\n"));
    }
    out.remember[seq.name] = texts;
    await client.close();
    mem.close();
  }
}
rmSync(tmp, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify(out, null, 1)}\n`);
