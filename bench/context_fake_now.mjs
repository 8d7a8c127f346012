// Preloaded (node --import) into the reference's memharness-context hook by
// bench/context_fixtures.py: Date.now() answers MEMHARNESS_FAKE_NOW (an ISO instant), so the
// hook's clock issues that instant (then one more millisecond per stamp, as its monotonic
// clock does) and its ranking's ages are the ones the fixture records.
const fixed = Date.parse(process.env.MEMHARNESS_FAKE_NOW ?? "");
if (Number.isNaN(fixed)) throw new Error("MEMHARNESS_FAKE_NOW must be an ISO instant");
Date.now = () => fixed;
