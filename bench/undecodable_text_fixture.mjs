// Writes tests/fixtures/undecodable_text.db with the reference core: three facts remembered
// through its public API, the second holding a lone surrogate (U+D800). V8 hands the string to
// better-sqlite3, whose SQLite stores it as the bytes ED A0 80 — text that is not valid UTF-8.
//
//   node bench/undecodable_text_fixture.mjs CORE OUT.db
//
// CORE: a built @memharness/core package folder (its dist/ and node_modules/). Calls only the
// core's public API (Memharness.open, remember, close); builds nothing. Run by hand; the suite
// reads the file it wrote (tests/store/test_undecodable_text.py).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [coreDir, out] = process.argv.slice(2);
if (!coreDir || !out) {
  console.error("usage: node bench/undecodable_text_fixture.mjs CORE OUT.db");
  process.exit(2);
}
if (existsSync(out)) {
  console.error(`${out} exists; remove it first`);
  process.exit(2);
}
const core = await import(pathToFileURL(join(coreDir, "dist", "index.js")).href);
const mem = core.Memharness.open({
  dbPath: out,
  clock: new core.FakeClock("2026-01-05T09:00:00.000Z", 1000),
});
const ids = [
  mem.remember({ subject: "proj", fact: "the cache lives in redis" }).id,
  mem.remember({ subject: "proj", fact: "a lone surrogate \ud800 in the middle of a cache fact" }).id,
  mem.remember({ subject: "proj", fact: "the deploy runs on fridays" }).id,
];
const hex = mem.db.prepare("SELECT hex(fact) AS h FROM facts WHERE id = ?").get(ids[1]).h;
mem.db.pragma("wal_checkpoint(TRUNCATE)");
mem.close();
process.stdout.write(`${JSON.stringify({ ids, hex })}\n`);
