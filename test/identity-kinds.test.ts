// Issue 37 (H1): each kind's run identity, read from its own evidence and never guessed: the
// fixtures of test/fixtures/identity (real formats, cut down; its README says which rule each
// folder's sides test) scored as a user would, and the real archives of ../shared/real-world
// (skipped without them; a failure without them when CI=true). What a file records is read with
// JSON.parse here, apart from src/.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readLock } from "../src/kinds/harbor/job.js";
import { NO_ENTRY_IDENTITY, tasksDigest, valuesOf, type EntryIdentity } from "../src/core/identity.js";
import { resultsSchema, type BundleEntry, type Experiment, type Results } from "../src/core/results.js";
import { writeCorpus } from "../src/io/corpus.js";
import { discover } from "../src/io/discover.js";
import { withRun } from "../src/core/run-identity.js";
import { jobBenchmark } from "../src/kinds/harbor/identity.js";
import { runIdentity } from "../src/kinds/terminal-bench/identity.js";
import { scoreDirectory } from "../src/pool/score-directory.js";
import { bundle, game, header, live, score, T0 } from "./helpers/bundle.js";
import { run } from "./helpers/cli.js";
import { freshFolders, runsWithShared, SHARED_DIR } from "./helpers/shared.js";

const FIX = new URL("./fixtures/identity/", import.meta.url).pathname;
const INSPECT_FIX = new URL("./fixtures/inspect/", import.meta.url).pathname;

async function scored(...roots: string[]): Promise<Results> {
  const r = await run(["score", ...roots, "--format", "json", "--quiet"]);
  expect(r.code, r.stderr).toBe(0);
  return resultsSchema.parse(JSON.parse(r.stdout));
}
const entryOf = (doc: Results, end: string): BundleEntry => {
  const e = doc.bundles.find((b) => b.path.endsWith(end));
  expect(e, end).toBeDefined();
  return e!;
};
const experimentOf = (doc: Results, name: string): Experiment => {
  const x = doc.experiments.find((e) => e.experiment === name);
  expect(x, name).toBeDefined();
  return x!;
};
const idOf = (e: BundleEntry): EntryIdentity => {
  expect(e.identity, e.path).not.toBeNull();
  return e.identity!;
};

describe("Harbor trials", () => {
  let doc: Results;
  beforeAll(async () => void (doc = await scored(join(FIX, "harbor"))));
  const trial = (name: string) => idOf(entryOf(doc, name));

  it("agent_info names the agent; the config names the model as configured (one spelling per job), before agent_info's", () => {
    const id = trial("codex-job/event-summary__AAAAAAA");
    expect(id.agent).toBe("codex");
    expect(id.model).toBe("openai/gpt-5.6-terra"); // its agent_info says gpt-5.6-terra
  });

  it("without agent_info, the trial config names the agent; without a model anywhere, the model is null", () => {
    const id = trial("old-job/word-count__EEEEEEE");
    expect(id.agent).toBe("nop");
    expect(id.model).toBeNull();
  });

  it("a trial killed before result.json is named by its config.json, spelt as configured", () => {
    const id = trial("codex-job/event-summary__BBBBBBB");
    expect([id.agent, id.model]).toEqual(["codex", "openai/gpt-5.6-terra"]);
    expect(id.benchmark).toEqual({ name: "terminal-bench", version: null, dataset: null });
    expect([id.started_at, id.finished_at, id.clock]).toEqual([null, null, null]);
  });

  it("a trial that records nothing takes the agent and model its job's lock.json configured for every trial", () => {
    const id = trial("codex-job/event-summary__CCCCCCC");
    expect([id.agent, id.model, id.benchmark]).toEqual(["codex", "gpt-5.6-terra", null]);
  });

  it("the dataset is the config's task.source; an ad-hoc task (source null) names no benchmark", () => {
    expect(trial("codex-job/event-summary__AAAAAAA").benchmark).toEqual({
      name: "terminal-bench",
      version: null,
      dataset: null,
    });
    expect(trial("old-job/word-count__DDDDDDD").benchmark).toBeNull();
  });

  it("the Harbor version is the job's lock.json's; a job without one leaves it null", () => {
    for (const t of ["event-summary__AAAAAAA", "event-summary__BBBBBBB", "event-summary__CCCCCCC"])
      expect(trial(`codex-job/${t}`).harness).toEqual({ name: "harbor", version: "0.21.0" });
    expect(trial("old-job/word-count__DDDDDDD").harness).toEqual({ name: "harbor", version: null });
  });

  it("zoned times become UTC instants; naive times stay local, never shifted (to the millisecond)", () => {
    const zoned = trial("codex-job/event-summary__AAAAAAA");
    expect([zoned.started_at, zoned.finished_at, zoned.clock]).toEqual([
      "2026-08-15T06:59:19.024Z",
      "2026-08-15T07:00:57.930Z",
      "utc",
    ]);
    const naive = trial("old-job/word-count__DDDDDDD");
    expect([naive.started_at, naive.finished_at, naive.clock]).toEqual([
      "2026-03-04T11:23:38.745",
      "2026-03-04T11:24:02.888",
      "local",
    ]);
  });

  it("a job of several agents lists them; one agent is one value; a trial's unit is its task (tasks null on the entry)", () => {
    const old = experimentOf(doc, "old-job").identity!;
    expect(old.agent).toEqual(["nop", "oracle"]);
    expect(old.model).toBeNull();
    expect(old.tasks).toEqual({ ...tasksDigest(["word-count"]), unit: "task" });
    const codex = experimentOf(doc, "codex-job").identity!;
    expect(codex.agent).toBe("codex");
    expect(codex.model).toEqual(["gpt-5.6-terra", "openai/gpt-5.6-terra"]); // the job's lock.json spells it one way, its trials' configs another: both shown, neither guessed into the other
    expect(doc.bundles.every((b) => b.identity?.tasks === null)).toBe(true);
  });

  it("a worker's entry (before its place) has no Harbor version: the trial records none", () => {
    const dir = join(FIX, "harbor/codex-job/event-summary__AAAAAAA");
    expect(scoreDirectory(dir, dir, undefined, "harbor").identity!.harness).toEqual({ name: "harbor", version: null });
  });

  it("lock.json names an agent and model only when every trial it lists has the same", () => {
    const lock = (agents: { name: string; model_name: string | null }[]) =>
      readLock(
        new TextEncoder().encode(
          JSON.stringify({
            harbor: { version: "0.21.0" },
            trials: agents.map((agent) => ({ task: { name: "t" }, agent })),
          }),
        ),
      );
    expect(
      lock([
        { name: "codex", model_name: "m" },
        { name: "codex", model_name: "m" },
      ]),
    ).toMatchObject({ agent: "codex", model: "m" });
    expect(
      lock([
        { name: "codex", model_name: "m" },
        { name: "nop", model_name: null },
      ]),
    ).toMatchObject({ agent: null, model: null });
    expect(lock([])).toMatchObject({ agent: null, model: null, version: "0.21.0" });
  });
});

describe("Terminal-Bench trials", () => {
  let doc: Results;
  beforeAll(async () => void (doc = await scored(join(FIX, "terminal-bench"))));

  it("run_metadata.json names agent, model and dataset; tb.lock the version; the trial its own span", () => {
    const id = idOf(entryOf(doc, "registry-run/fifo-medium/fifo-medium.1-of-1.2025-08-25__17-06-06"));
    expect(id).toEqual({
      agent: "terminus-1",
      model: "dashscope/qwen3-235b-a22b-instruct-2507",
      benchmark: { name: "terminal-bench-core", version: "0.1.1", dataset: null },
      harness: { name: "terminal-bench", version: "0.2.17" },
      tasks: null,
      started_at: "2025-08-25T11:36:06.747Z",
      finished_at: "2025-08-25T11:45:51.194Z",
      clock: "utc",
    });
  });

  it("without run_metadata.json, tb.lock names the agent; a local folder of tasks names no dataset; a trial without timestamps has no times", () => {
    const id = idOf(entryOf(doc, "local-run/fifo-medium/fifo-medium.1-of-1.2025-08-25__16-36-35"));
    expect([id.agent, id.model, id.benchmark]).toEqual(["oracle", "Oracle", null]);
    expect(id.harness).toEqual({ name: "terminal-bench", version: "0.2.7" });
    expect([id.started_at, id.finished_at, id.clock]).toEqual([null, null, null]);
  });

  it("a run with neither file records nothing of its trials' run", () => {
    expect(runIdentity(null, null)).toBeNull();
    expect(runIdentity({ agent_name: "terminus-1" }, null)).toMatchObject({
      agent: "terminus-1",
      model: null,
      harness: { name: "terminal-bench", version: null },
    });
  });
});

describe("Inspect logs", () => {
  let doc: Results;
  const POPULARITY = "2025-05-12T20-28-13-04-00_popularity.json";
  beforeAll(
    async () => void (doc = await scored(join(INSPECT_FIX, POPULARITY), join(FIX, "inspect-solver-no-plan.json"))),
  );

  it("a task's own plan names no agent; the model, task, version, dataset, Inspect's version and the span are the log's", () => {
    const log = JSON.parse(readFileSync(join(INSPECT_FIX, POPULARITY), "utf8"));
    const id = idOf(entryOf(doc, POPULARITY));
    expect(id.agent).toBeNull();
    expect(id.model).toBe(log.eval.model);
    expect(id.benchmark).toEqual({ name: "popularity", version: "0", dataset: "popularity" });
    expect(id.harness).toEqual({ name: "inspect_ai", version: log.eval.packages.inspect_ai });
    // created -04:00 as an instant; completed_at likewise
    expect([id.started_at, id.finished_at, id.clock]).toEqual([
      new Date(log.eval.created).toISOString(),
      new Date(log.stats.completed_at).toISOString(),
      "utc",
    ]);
  });

  it("the planned sample ids are the log's tasks, by digest", () => {
    const log = JSON.parse(readFileSync(join(INSPECT_FIX, POPULARITY), "utf8"));
    const ids = (log.eval.dataset.sample_ids as unknown[]).map(String);
    expect(idOf(entryOf(doc, POPULARITY)).tasks).toEqual({ ...tasksDigest(ids), unit: "sample" });
  });

  it("a solver given to the run is its agent; a string task_version is kept; no dataset name, no sample_ids, no completed_at: null", () => {
    const id = idOf(entryOf(doc, "inspect-solver-no-plan.json"));
    expect(id.agent).toBe("react");
    expect(id.benchmark).toEqual({ name: "testtaskname", version: "2.1", dataset: null });
    expect(id.tasks).toBeNull();
    expect(id.finished_at).toBeNull();
    expect(id.started_at).toBe("2025-05-13T00:28:13.000Z");
  });
});

describe("assay's own bundles", () => {
  it("the header's harness and revision, meta.model, and the span from the header's at to the end record's", () => {
    const recs = game();
    const id = score(bundle(recs)).identity!;
    const end = recs.find((r) => r["type"] === "end")!["at"] as number;
    expect(id).toEqual({
      agent: null,
      model: "m-1",
      benchmark: null,
      harness: { name: "silq-bench", version: "0.5.0" },
      tasks: null,
      started_at: new Date(T0).toISOString(),
      finished_at: new Date(end).toISOString(),
      clock: "utc",
    });
  });

  it("meta.agent names the agent; a meta without model, or a model that is no string, names none", () => {
    expect(score(bundle(game({ meta: { agent: "a-7", model: "m-1" } }))).identity).toMatchObject({
      agent: "a-7",
      model: "m-1",
    });
    expect(score(bundle(game({ meta: {} }))).identity).toMatchObject({ agent: null, model: null });
    expect(score(bundle(game({ meta: { model: 3 } }))).identity).toMatchObject({ model: null });
  });

  it("an unterminated journal has no finish; a header that fails its schema records nothing", () => {
    expect(score(bundle(game({ states: [live()], end: null, score: "none" }))).identity).toMatchObject({
      started_at: new Date(T0).toISOString(),
      finished_at: null,
      clock: "utc",
    });
    const broken = [{ ...header(), harness: "silq-bench" }, ...game().slice(1)];
    expect(score(bundle(broken)).identity).toBeNull();
  });

  const folder = freshFolders("assay-identity-");
  it("a world bundle's identity is its header's, as the journal's first line records it", () => {
    const dir = folder("world");
    writeCorpus(dir, { n: 2, seed: "identity", faults: false, profile: "world" });
    const found = [...discover([dir])];
    expect(found.length).toBe(2);
    for (const f of found) {
      const line1 = JSON.parse(readFileSync(join(f.dir, "journal.jsonl"), "utf8").split("\n", 1)[0]!);
      const id = scoreDirectory(f.dir, f.path).identity!;
      expect(id.harness).toEqual({ name: line1.harness.name, version: line1.harness.revision });
      expect(id.started_at).toBe(new Date(line1.at).toISOString());
      expect(id.model).toBe(typeof line1.meta.model === "string" ? line1.meta.model : null);
    }
  });
});

describe("a container's record under its member's own", () => {
  const run: EntryIdentity = {
    ...NO_ENTRY_IDENTITY,
    agent: "codex",
    model: "m",
    benchmark: { name: "d", version: "1", dataset: null },
    harness: { name: "harbor", version: "0.21.0" },
    started_at: "2026-01-01T00:00:00.000Z",
    clock: "utc",
  };

  it("the member's own values win; the container fills only what the member leaves null", () => {
    const own: EntryIdentity = { ...NO_ENTRY_IDENTITY, agent: "oracle", harness: { name: "harbor", version: null } };
    expect(withRun(own, run)).toEqual({
      ...NO_ENTRY_IDENTITY,
      agent: "oracle",
      model: "m",
      benchmark: run.benchmark,
      harness: run.harness,
    });
    expect(withRun(null, run)).toMatchObject({ agent: "codex", model: "m" });
  });

  it("a harness version the member records is kept; another harness's version is never borrowed", () => {
    expect(withRun({ ...NO_ENTRY_IDENTITY, harness: { name: "harbor", version: "0.22.0" } }, run).harness).toEqual({
      name: "harbor",
      version: "0.22.0",
    });
    expect(withRun({ ...NO_ENTRY_IDENTITY, harness: { name: "terminal-bench", version: null } }, run).harness).toEqual({
      name: "terminal-bench",
      version: null,
    });
  });

  it("a benchmark version the container configures for the member's very dataset is added; another dataset's never", () => {
    expect(
      withRun({ ...NO_ENTRY_IDENTITY, benchmark: { name: "d", version: null, dataset: null } }, run).benchmark,
    ).toEqual({ name: "d", version: "1", dataset: null });
    expect(
      withRun({ ...NO_ENTRY_IDENTITY, benchmark: { name: "other", version: null, dataset: null } }, run).benchmark,
    ).toEqual({ name: "other", version: null, dataset: null });
    expect(
      withRun({ ...NO_ENTRY_IDENTITY, benchmark: { name: "d", version: "0.9", dataset: null } }, run).benchmark,
    ).toEqual({ name: "d", version: "0.9", dataset: null });
  });

  it("times stay the member's own: a trial's span is not its run's", () => {
    expect(withRun({ ...NO_ENTRY_IDENTITY }, run)).toMatchObject({ started_at: null, finished_at: null, clock: null });
  });
});

// ---------------------------------------------------------------------------------------------
// The real archives.

const REAL = join(SHARED_DIR, "real-world");
type Obj = Record<string, unknown>;
const readJson = (file: string): Obj | null => {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Obj;
  } catch {
    return null;
  }
};

describe.runIf(runsWithShared(join(REAL, "harbor-jobs/SOURCES.md")))("real archives (../shared/real-world)", () => {
  it("every Harbor job with a trial shows its agents, and a model wherever a trial's result.json or config records one", async () => {
    const doc = await scored(join(REAL, "harbor-jobs"));
    const jobs = doc.experiments.filter((x) => x.profile === "harbor" && x.job !== null && x.experiment !== null);
    expect(jobs.length).toBeGreaterThan(30);
    let checked = 0;
    for (const x of jobs) {
      const trials = readdirSync(x.job!)
        .map((n) => join(x.job!, n))
        .filter((p) => statSync(p).isDirectory());
      if (trials.length === 0) continue; // a flattened job (no trial folder) records no trial's run
      const docs = trials.map((t) => readJson(join(t, "result.json")) ?? readJson(join(t, "config.json")));
      const agents = docs.flatMap((d) => {
        const info = d?.["agent_info"] as Obj | undefined;
        return typeof info?.["name"] === "string" ? [info["name"]] : [];
      });
      expect(valuesOf(x.identity?.agent ?? null), x.experiment!).toEqual(expect.arrayContaining(agents));
      expect(x.identity?.agent, x.experiment!).not.toBeNull();
      const models = docs.some((d) => {
        const info = d?.["agent_info"] as Obj | undefined;
        const cfg = (d?.["config"] ?? d) as Obj | undefined;
        return (
          (info?.["model_info"] as Obj | null | undefined)?.["name"] !== undefined ||
          typeof (cfg?.["agent"] as Obj | undefined)?.["model_name"] === "string"
        );
      });
      if (models) expect(x.identity?.model, x.experiment!).not.toBeNull();
      checked++;
    }
    expect(checked).toBeGreaterThan(30);
    const canary = doc.experiments.find((x) => x.experiment === "canary-event-summary-codex-20260815")!.identity!;
    expect([canary.agent, canary.model, canary.harness]).toEqual([
      "codex",
      "gpt-5.6-terra",
      { name: "harbor", version: "0.21.0" },
    ]);
  }, 60_000);

  it("each _inner log shows its model and its task as the benchmark; popularity logs the task popularity", async () => {
    const logs = join(REAL, "inspect-more/YuehHanChen--ccot_oe_results/logs");
    const doc = await scored(logs, join(REAL, "inspect"));
    const inner = readdirSync(logs).filter((n) => n.includes("-inner_"));
    expect(inner.length).toBe(14);
    for (const n of inner) {
      const ev = readJson(join(logs, n))!["eval"] as Obj;
      const id = idOf(entryOf(doc, `/${n}`));
      expect(id.model).toBe(ev["model"]);
      expect(id.benchmark).toEqual({ name: "_inner", version: "0", dataset: null });
      expect(id.tasks?.count).toBe(2970);
    }
    const popularity = doc.bundles.filter((b) => b.task === "popularity");
    expect(popularity.length).toBeGreaterThan(3);
    for (const b of popularity) expect(b.identity?.benchmark?.name).toBe("popularity");
  }, 60_000);

  it("Terminal-Bench runs show their agent, model and TB version", async () => {
    const doc = await scored(join(REAL, "terminal-bench"));
    const byName = Object.fromEntries(doc.experiments.map((x) => [x.experiment, x.identity]));
    expect(byName["qwen3-235b-a22b-instruct-2507"]).toMatchObject({
      agent: "terminus-1",
      model: "dashscope/qwen3-235b-a22b-instruct-2507",
      benchmark: null,
      harness: { name: "terminal-bench", version: "0.2.17" },
    });
    expect(byName["golden_solution_log"]).toMatchObject({ agent: "oracle", model: "Oracle" });
  }, 60_000);
});

describe("a Harbor job's config.json: the dataset its trials are drawn from", () => {
  const bytes = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));
  const registry = {
    name: "terminal-bench",
    version: "2.0",
    registry: { url: "https://example.invalid/registry.json" },
  };
  it("one registry dataset and no ad-hoc task: its name and version; two datasets, an ad-hoc task, a local dataset or no file: none", () => {
    expect(jobBenchmark(bytes({ datasets: [registry], tasks: [] }))).toEqual({
      name: "terminal-bench",
      version: "2.0",
      dataset: null,
    });
    expect(jobBenchmark(bytes({ datasets: [registry, { ...registry, name: "swe-bench" }], tasks: [] }))).toBeNull();
    expect(jobBenchmark(bytes({ datasets: [registry], tasks: [{ path: "tasks/x" }] }))).toBeNull();
    expect(jobBenchmark(bytes({ datasets: [{ path: "datasets/local" }], tasks: [] }))).toBeNull();
    expect(jobBenchmark(null)).toBeNull();
    expect(jobBenchmark(new TextEncoder().encode("{not json"))).toBeNull();
  });

  it("scored: a job drawn from one dataset version names it; the same trials without the job's config name the dataset, version unknown", async () => {
    const withConfig = await scored(join(FIX, "harbor-dataset"));
    expect(experimentOf(withConfig, "dataset-job").identity!.benchmark).toEqual({
      name: "terminal-bench",
      version: "2.0",
      dataset: null,
    });
    const without = await scored(join(FIX, "harbor", "codex-job"));
    expect(experimentOf(without, "codex-job").identity!.benchmark).toEqual({
      name: "terminal-bench",
      version: null,
      dataset: null,
    });
  });
});
