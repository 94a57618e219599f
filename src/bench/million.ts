// `npm run bench -- --million`: a million small bundles, once, for real (not CI: about 30 GB of
// disk and tens of minutes). Synthesises them, scores them with --store, kills that run half-way
// with SIGKILL, reruns it, and reports wall time, bundles/s, peak RSS, the document's size, and
// that the document holds every bundle exactly once.

import { spawn, spawnSync } from "node:child_process";
import { createReadStream, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { storedRows } from "../store/store.js";
import { secondsSince } from "./measure.js";

const CLI = fileURLToPath(new URL("../cli.js", import.meta.url));
/** Loaded with --import: the child's peak RSS (main thread and workers) to $MAXRSS_FILE at exit. */
export const MAXRSS = `data:text/javascript,${encodeURIComponent(
  'import { writeFileSync } from "node:fs"; process.on("exit", () => process.env.MAXRSS_FILE && writeFileSync(process.env.MAXRSS_FILE, String(process.resourceUsage().maxRSS)));',
)}`;

/** Run `assay score` over the corpus; with `killAt`, SIGKILL it once the store holds that many results. */
async function score(
  root: string,
  store: string,
  out: string,
  rssFile: string,
  killAt?: number,
): Promise<{ code: number | null; signal: string | null; secs: number }> {
  const t = process.hrtime.bigint();
  const child = spawn(
    process.execPath,
    ["--import", MAXRSS, CLI, "score", root, "--store", store, "--format", "json", "--out", out, "--quiet"],
    {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, MAXRSS_FILE: rssFile },
    },
  );
  let poll: NodeJS.Timeout | undefined;
  if (killAt !== undefined)
    poll = setInterval(() => {
      if (storedRows(store) >= killAt) child.kill("SIGKILL");
    }, 1000);
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
    child.on("exit", (c, s) => resolve([c, s])),
  );
  clearInterval(poll);
  return { code, signal, secs: secondsSince(t) };
}

/** Every bundle entry's path in the document, counted, and whether any came twice (read as a stream). */
async function census(doc: string): Promise<{ entries: number; distinct: number }> {
  const seen = new Set<string>();
  let entries = 0;
  for await (const line of createInterface({ input: createReadStream(doc) }))
    if (line.startsWith('      "path": ')) {
      entries++;
      seen.add(line);
    }
  return { entries, distinct: seen.size };
}

export async function million(): Promise<void> {
  const base = process.env["BENCH_DIR"] ?? tmpdir();
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, "assay-million-"));
  let root = join(dir, "corpus");
  // ~1.17 bundles per trial (retries after abnormal, save-quit and killed runs): 854,400 trials ≈ 1,000,000 bundles.
  const trials = Number(process.env["BENCH_MILLION_TRIALS"] ?? 854_400);
  try {
    let bundles: number;
    const kept = process.env["BENCH_MILLION_CORPUS"]; // a corpus an earlier run kept (BENCH_KEEP): synthesis takes minutes
    if (kept !== undefined) {
      root = kept;
      bundles = (JSON.parse(readFileSync(join(kept, "synth-manifest.json"), "utf8")) as { bundles: unknown[] }).bundles
        .length;
      console.log(`corpus ${kept}: ${bundles} bundles`);
    } else {
      const t = process.hrtime.bigint();
      const synth = spawnSync(
        process.execPath,
        [CLI, "synth", "--out", root, "--n", String(trials), "--seed", "million"],
        { encoding: "utf8" },
      );
      if (synth.status !== 0) throw new Error(`synth failed: ${synth.stderr}`);
      bundles = Number(/wrote (\d+) bundles/.exec(synth.stderr)?.[1]);
      console.log(`synthesised ${bundles} bundles (${trials} trials) in ${secondsSince(t).toFixed(0)} s`);
    }
    const store = join(dir, "store.sqlite");
    const out = join(dir, "results.json");
    const first = await score(root, store, out, join(dir, "rss-1"), Math.floor(bundles / 2));
    const stored = storedRows(store);
    console.log(
      `run 1: ${first.signal === "SIGKILL" ? "killed with SIGKILL" : `ended (${first.code})`} after ${first.secs.toFixed(0)} s, the store keeping ${stored} results (${(stored / first.secs).toFixed(0)} bundles/s)`,
    );
    const second = await score(root, store, out, join(dir, "rss-2"));
    const peak = Number(readFileSync(join(dir, "rss-2"), "utf8")) / 1024;
    console.log(
      `run 2 (resumed): exit ${second.code}, ${second.secs.toFixed(0)} s, ${(bundles / second.secs).toFixed(0)} bundles/s over the whole archive, peak RSS ${peak.toFixed(0)} MB`,
    );
    const size = statSync(out).size;
    const c = await census(out);
    console.log(
      `document: ${(size / 1e9).toFixed(2)} GB, ${c.entries} entries, ${c.distinct} distinct paths: ${c.entries === bundles && c.distinct === bundles ? "every bundle exactly once" : "NOT every bundle exactly once"}`,
    );
  } finally {
    if (!process.env["BENCH_KEEP"]) rmSync(dir, { recursive: true, force: true });
  }
}
