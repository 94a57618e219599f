// Batch mode (issue 7, item 2) against the fake Messages API's Message Batches endpoints with the
// real SDK: misses go in one batch whose id is kept in the cache database; a run killed while it
// polls is resumed by the next without a second create; every result is validated like a direct
// reply (errored, expired and malformed entries are errors, never cached).

import Database from "better-sqlite3";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { run, startCli } from "./helpers/cli.js";
import { batchMessage, errorReply, FakeMessagesApi, type BatchResult } from "./helpers/fake-anthropic.js";
import { SCRATCH, scratch } from "./helpers/shared.js";

const TOOL = "record_assessment";
const CRITERIA = [
  "behaviour_specified",
  "behaviour_tested",
  "anti_cheating",
  "pinned_dependencies",
  "no_hardcoded_solution",
  "deterministic_tests",
];
const good = {
  summary: "ok",
  criteria: Object.fromEntries(CRITERIA.map((c) => [c, { outcome: "pass", explanation: "checked" }])),
};
const fake = FakeMessagesApi.forTests();
const { dir: tmp } = scratch("assay-batch-", SCRATCH);
let n = 0;
const env = (cache: string) => ({
  ANTHROPIC_API_KEY: "sk-ant-batch-test-00000000000",
  ANTHROPIC_BASE_URL: fake.url,
  ASSAY_CACHE: cache,
  ASSAY_BATCH_ADOPT_SECONDS: "0",
});
const tasks = (count: number) =>
  Array.from({ length: count }, (_, i) => {
    const d = join(tmp, `set-${++n}`, `task-${i}`);
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, "instruction.md"), `Task ${i} of set ${n}.\n`);
    return d;
  });
const check = (dirs: string[], cache: string, ...flags: string[]) =>
  run(
    ["check-task", ...dirs, "--json", "--batch", "--poll-interval", "0.01", "--max-retries", "0", ...flags],
    env(cache),
  );
type Out = {
  advisory: {
    status: string;
    cached: boolean;
    reason: string | null;
    outcomes: Record<string, { outcome: string }>;
    provenance: { endpoint: string } | null;
  };
}[];
const creates = () => fake.requests.filter((r) => r.method === "POST" && r.path.startsWith("/v1/messages/batches"));

/** A spawned check-task --batch, SIGKILLed once its batch exists and it is polling (a batch that never ends). */
async function killWhilePolling(dirs: string[], cache: string): Promise<void> {
  fake.pollsBeforeEnd = 1_000_000;
  const { child, exited } = startCli(["check-task", ...dirs, "--batch", "--poll-interval", "0.05"], {
    env: env(cache),
  });
  // Killed once the cache records the batch under its real id (it is polling by then), not after a guess of time.
  const recorded = () => {
    try {
      const db = new Database(cache, { readonly: true });
      try {
        return (
          (db.prepare("SELECT count(*) AS n FROM batches WHERE id NOT LIKE 'pending:%'").get() as { n: number }).n > 0
        );
      } finally {
        db.close();
      }
    } catch {
      return false;
    }
  };
  for (let t = 0; t < 400 && !recorded(); t++) await new Promise((r) => setTimeout(r, 25));
  expect(recorded()).toBe(true);
  child.kill("SIGKILL");
  await exited;
}

beforeEach(() => {
  fake.requests.length = 0;
  fake.batches.clear();
  fake.pollsBeforeEnd = 2;
  fake.batchAnswer = () => batchMessage(TOOL, good);
});

describe("check-task --batch", () => {
  it("sends every miss in one batch keyed by the cache key, polls until it ends, caches the answers; a rerun asks nothing", async () => {
    const dirs = tasks(3);
    const cache = join(tmp, `c${++n}.sqlite`);
    const r = await check(dirs, cache);
    expect(r.code, r.stderr).toBe(0);
    expect(creates()).toHaveLength(1);
    const [batch] = [...fake.batches.values()];
    expect(batch!.requests).toHaveLength(3);
    for (const q of batch!.requests) {
      expect(q.custom_id).toMatch(/^[0-9a-f]{64}$/);
      expect(q.params.tool_choice).toEqual({ type: "tool", name: TOOL });
    }
    expect(r.stderr).toMatch(/batch msgbatch_\w+: created with 3 requests/);
    expect(r.stderr).toMatch(/batch msgbatch_\w+: ended: 3 succeeded/);
    const out = JSON.parse(r.stdout) as Out;
    expect(
      out.every((t) => t.advisory.status === "analysed" && t.advisory.provenance!.endpoint.endsWith("(message batch)")),
    ).toBe(true);
    fake.requests.length = 0;
    const again = await check(dirs, cache);
    expect([again.code, creates().length, fake.requests.length]).toEqual([0, 0, 0]);
  });

  it("errored, expired and malformed entries are errors (exit 3), never cached: the next run sends only them", async () => {
    const dirs = tasks(4);
    const cache = join(tmp, `c${++n}.sqlite`);
    const bad: BatchResult[] = [
      { type: "errored", error: { type: "error", error: { type: "overloaded_error", message: "busy" } } },
      { type: "expired" },
      batchMessage(TOOL, { summary: "x", criteria: { anti_cheating: { outcome: "pass", explanation: "only one" } } }),
    ];
    let i = 0;
    fake.batchAnswer = () => (i < 3 ? bad[i++]! : batchMessage(TOOL, good));
    const r = await check(dirs, cache);
    expect(r.code).toBe(3);
    const reasons = (JSON.parse(r.stdout) as Out).map((t) => t.advisory.reason);
    expect(reasons.filter((x) => x !== null)).toEqual([
      expect.stringMatching(/errored/),
      "the batch request was expired",
      expect.stringMatching(/failed validation/),
    ]);
    fake.batchAnswer = () => batchMessage(TOOL, good);
    const again = await check(dirs, cache);
    expect(again.code).toBe(0);
    expect([...fake.batches.values()].at(-1)!.requests).toHaveLength(3);
  });

  it("a budget holds in batch mode: what does not fit is left for a later run", async () => {
    const r = await check(tasks(3), join(tmp, `c${++n}.sqlite`), "--max-calls", "2");
    expect([...fake.batches.values()][0]!.requests).toHaveLength(2);
    expect(
      (JSON.parse(r.stdout) as Out).filter((t) => t.advisory.reason === "budget reached (--max-calls 2)"),
    ).toHaveLength(1);
  });

  it("a run killed while it polls is resumed by the next: the same batch is collected, no second create", async () => {
    const dirs = tasks(3);
    const cache = join(tmp, `c${++n}.sqlite`);
    await killWhilePolling(dirs, cache);
    expect(fake.batches.size).toBe(1);
    const [id] = [...fake.batches.keys()];
    fake.pollsBeforeEnd = 0;
    fake.requests.length = 0;
    const resumed = await check(dirs, cache);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(creates()).toHaveLength(0); // paid once
    expect(fake.batches.size).toBe(1);
    expect(resumed.stderr).toContain(`batch ${id}: ended`);
    expect(
      (JSON.parse(resumed.stdout) as Out).every((t) => t.advisory.status === "analysed" && !t.advisory.cached),
    ).toBe(true);
    fake.requests.length = 0;
    expect((await check(dirs, cache)).code).toBe(0);
    expect(fake.requests).toHaveLength(0); // and now all from the cache
  }, 30_000);
});

describe("batch mode when things go wrong", () => {
  it("a create whose answer is lost is not retried (no second batch); the next run finds the batch it made and collects it", async () => {
    const dirs = tasks(2);
    const cache = join(tmp, `c${++n}.sqlite`);
    fake.createDelayMs = 1500; // the batch exists; its create answer arrives after the client gave up
    try {
      const lost = await check(dirs, cache, "--request-timeout", "0.3", "--max-retries", "3");
      expect(lost.code).toBe(3);
      expect(creates()).toHaveLength(1); // never retried: a retry would pay twice
      expect((JSON.parse(lost.stdout) as Out)[0]!.advisory.reason).toMatch(
        /could not be created .* the next run finds and collects it/,
      );
    } finally {
      fake.createDelayMs = 0;
    }
    fake.requests.length = 0;
    const next = await check(dirs, cache);
    expect([next.code, creates().length, fake.batches.size]).toEqual([0, 0, 1]);
  });

  it("a batch that no longer exists (404) is abandoned and its requests sent again; other targets are not failed by it", async () => {
    const dirs = tasks(3);
    const cache = join(tmp, `c${++n}.sqlite`);
    await killWhilePolling([dirs[0]!, dirs[1]!], cache);
    fake.batches.clear(); // the API no longer knows it
    fake.pollsBeforeEnd = 1;
    const r = await check(dirs, cache);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/not found .* sent again/);
    expect([...fake.batches.values()][0]!.requests).toHaveLength(3);
  }, 30_000);

  it("a run that needs only some answers of an open batch leaves the rest in it for the run that needs them: paid once", async () => {
    const dirs = tasks(3);
    const cache = join(tmp, `c${++n}.sqlite`);
    await killWhilePolling(dirs, cache);
    fake.pollsBeforeEnd = 0;
    fake.requests.length = 0;
    expect((await check([dirs[0]!], cache)).code).toBe(0);
    expect((await check([dirs[1]!, dirs[2]!], cache)).code).toBe(0);
    expect(creates()).toHaveLength(0);
    expect(fake.batches.size).toBe(1);
    fake.requests.length = 0;
    expect((await check(dirs, cache)).code).toBe(0);
    expect(fake.requests).toHaveLength(0); // all three in the cache, the batch closed
  }, 30_000);
});

describe("batch mode: placeholders, adoption and waiting", () => {
  it("a create refused with an HTTP error made no batch: its placeholder is dropped at once, the next run creates one", async () => {
    const dirs = tasks(2);
    const cache = join(tmp, `c${++n}.sqlite`);
    fake.createError = errorReply(400, "invalid_request_error", "too large");
    const r = await check(dirs, cache);
    expect(r.code).toBe(3);
    expect((JSON.parse(r.stdout) as Out)[0]!.advisory.reason).toMatch(/could not be created .*HTTP 400/);
    expect((JSON.parse(r.stdout) as Out)[0]!.advisory.reason).not.toMatch(/next run finds/);
    fake.requests.length = 0;
    expect((await check(dirs, cache)).code).toBe(0);
    expect(creates()).toHaveLength(1);
  });

  it("a lost create's placeholder is never matched to a batch this cache already knows", async () => {
    const cache = join(tmp, `c${++n}.sqlite`);
    const first = tasks(2);
    fake.createDelayMs = 1500;
    try {
      await check(first, cache, "--request-timeout", "0.3"); // batch A made, its answer lost: a placeholder
    } finally {
      fake.createDelayMs = 0;
    }
    const other = tasks(2);
    expect((await check(other, cache)).code).toBe(0); // batch B, same size, recorded and collected
    fake.requests.length = 0;
    const r = await check(first, cache);
    expect(r.code, r.stderr).toBe(0); // A adopted (the only unknown batch), not B
    expect(creates()).toHaveLength(0);
  });

  it("a placeholder too young to judge is left alone (another run may be creating it)", async () => {
    const dirs = tasks(1);
    const cache = join(tmp, `c${++n}.sqlite`);
    fake.createDelayMs = 1500;
    try {
      await check(dirs, cache, "--request-timeout", "0.3");
    } finally {
      fake.createDelayMs = 0;
    }
    const r = await run(["check-task", ...dirs, "--json", "--batch", "--poll-interval", "0.01"], {
      ...env(cache),
      ASSAY_BATCH_ADOPT_SECONDS: "600",
    });
    expect(r.code).toBe(3);
    expect((JSON.parse(r.stdout) as Out)[0]!.advisory.reason).toMatch(/another run is creating a batch/);
    expect(creates()).toHaveLength(1); // no second create
  });

  it("--batch-wait stops polling and leaves the batch for the next run, which collects it (paid once)", async () => {
    const dirs = tasks(2);
    const cache = join(tmp, `c${++n}.sqlite`);
    fake.pollsBeforeEnd = 1_000_000;
    const r = await check(dirs, cache, "--batch-wait", "0.2");
    expect(r.code).toBe(3);
    expect((JSON.parse(r.stdout) as Out)[0]!.advisory.reason).toMatch(
      /has not ended after --batch-wait; the next run collects it/,
    );
    fake.pollsBeforeEnd = 0;
    fake.requests.length = 0;
    expect((await check(dirs, cache)).code).toBe(0);
    expect(creates()).toHaveLength(0);
  });
});

describe("batch mode over more than one round", () => {
  it("creates every round's batch before it waits on any (rounds do not queue behind each other)", async () => {
    const dirs = tasks(2001); // two rounds of preparation
    const cache = join(tmp, `c${++n}.sqlite`);
    const r = await check(dirs, cache);
    expect(r.code, r.stderr.slice(-500)).toBe(0);
    const calls = fake.requests
      .filter((q) => q.path.startsWith("/v1/messages/batches"))
      .map((q) => `${q.method} ${q.path.split("/").length}`);
    expect(calls.filter((c) => c.startsWith("POST"))).toHaveLength(2);
    expect(calls.indexOf("GET 5")).toBeGreaterThan(calls.lastIndexOf("POST 4")); // the first poll comes after the last create
    expect((JSON.parse(r.stdout) as Out).every((t) => t.advisory.status === "analysed")).toBe(true);
  }, 60_000);
});
