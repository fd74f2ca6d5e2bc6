// Every transcript of protocol/examples and protocol/conformance, replayed through the client.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { allTranscripts, replay } from "../testing/transcripts.js";
import { ROOT } from "../testing/daemon.js";

const files = allTranscripts();
const totals = { api: 0, call: 0, raw: 0, lines: 0, passed: 0 };

test("there are transcripts to replay", () => {
  assert.ok(files.length > 0);
});

for (const file of files) {
  test("transcript " + path.relative(ROOT, file), async () => {
    const { problems, stats } = await replay(file);
    for (const key of ["api", "call", "raw", "lines"]) totals[key] += stats[key];
    assert.deepEqual(problems, []);
    totals.passed++;
  });
}

test("replay totals", (t) => {
  t.diagnostic(`${totals.passed}/${files.length} transcripts; requests through the API ${totals.api}, through call() ${totals.call}, raw ${totals.raw}; lines compared ${totals.lines}`);
});
