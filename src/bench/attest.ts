// The attest row of `npm run bench` (`npm run bench -- --attest` runs it alone): a synthesised
// corpus of BENCH_ATTEST_TRIALS native trials (default 100,000; retries and faults add ~17 %),
// scored to one JSON document, then `assay attest`, `attest verify` (signature only; with
// --results; with --results and ROOT: a recount), each a spawned CLI process, wall time and peak
// RSS. Beside them, in the same run, `assay score` of the same corpus: a recount costs a score, and
// attest and verify --results cost a reading of the document, so their ratios to it are what to
// watch (this machine's speed drifts by a third within minutes). And the Merkle audit path of one
// entry among all of them: its length (⌈log₂ n⌉ hashes) and the time to check it.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { auditPath, merkleRoot, verifyAuditPath } from "../core/attest/merkle.js";
import { writeCorpus } from "../io/corpus.js";
import { secondsSince } from "./measure.js";

const CLI = fileURLToPath(new URL("../cli.js", import.meta.url));

/** One spawned `assay …`: wall seconds and the child's peak RSS (GNU time's %M, KB). */
function timed(cwd: string, argv: string[], okExits = [0]): { secs: number; rssMb: number } {
  const t = process.hrtime.bigint();
  const r = spawnSync("/usr/bin/time", ["-f", "%M", process.execPath, CLI, ...argv], { cwd, encoding: "utf8" });
  const secs = secondsSince(t);
  if (!okExits.includes(r.status ?? -1)) throw new Error(`assay ${argv.join(" ")}: exit ${r.status}\n${r.stderr}`);
  const kb = Number(r.stderr.trim().split("\n").at(-1));
  return { secs, rssMb: kb / 1024 };
}

export function attestBench(dir: string): void {
  const n = Number(process.env["BENCH_ATTEST_TRIALS"] ?? 100_000);
  mkdirSync(dir, { recursive: true });
  const corpus = join(dir, "corpus");
  const bundles = writeCorpus(corpus, { n, seed: "attest-bench", faults: true, events: 2 });
  const score = timed(dir, ["score", "corpus", "-f", "json", "-o", "r.json", "-q"]);
  const mb = statSync(join(dir, "r.json")).size / 2 ** 20;
  spawnSync(process.execPath, [CLI, "attest", "keygen", "--out", "k"], { cwd: dir });
  const rows: [string, { secs: number; rssMb: number }][] = [
    ["assay score (the same corpus)", score],
    ["assay attest", timed(dir, ["attest", "r.json", "--key", "k.key"])],
    ["attest verify: the signature", timed(dir, ["attest", "verify", "r.json.intoto.jsonl", "--key", "k.pub"])],
    [
      "attest verify --results",
      timed(dir, ["attest", "verify", "r.json.intoto.jsonl", "--key", "k.pub", "--results", "r.json"]),
    ],
    [
      "attest verify --results ROOT (recount)",
      timed(dir, ["attest", "verify", "r.json.intoto.jsonl", "--key", "k.pub", "--results", "r.json", "corpus"]),
    ],
  ];
  console.log(`\nattest, ${bundles} entries (a ${mb.toFixed(0)} MB document), each a whole process:`);
  for (const [what, r] of rows)
    console.log(
      `  ${what.padEnd(40)} ${r.secs.toFixed(2).padStart(7)} s  peak RSS ${r.rssMb.toFixed(0).padStart(4)} MB   / score ${(r.secs / score.secs).toFixed(2)}`,
    );
  const leaves = Array.from({ length: bundles }, (_, i) => createHash("sha256").update(String(i)).digest());
  const root = merkleRoot(leaves);
  const index = Math.floor(bundles / 3);
  const path = auditPath(leaves, index);
  const t = process.hrtime.bigint();
  const ok = verifyAuditPath(leaves[index]!, index, bundles, path, root);
  console.log(
    `  one entry's Merkle audit path: ${path.length} hashes (⌈log₂ ${bundles}⌉ = ${Math.ceil(Math.log2(bundles))}), checked in ${(secondsSince(t) * 1000).toFixed(3)} ms: ${ok ? "valid" : "INVALID"}`,
  );
}
