// `attest verify … ROOT…` (§15.1): score the roots again under the statement's options, project the
// recount as attest would, and compare (recount: interval bounds within 1e-12). Options that differ
// are refused before counting (OPTIONS_MISMATCH): the figures would answer another question.
import type { AttestFailure } from "../../core/attest/codes.js";
import { compareStatements } from "../../core/attest/compare.js";
import type { Criteria } from "../../core/attest/criteria.js";
import { evidenceRoot } from "../../core/attest/merkle.js";
import { CriteriaUnits, hasPairedRules } from "../../core/attest/paired.js";
import { projectResults, type Statement } from "../../core/attest/statement.js";
import { byteCompare } from "../../core/text.js";
import { packageDirHash } from "../../io/dirhash.js";
import { loadSchedule, scoreRun } from "../../pipeline/score.js";
import type { CliIo } from "../io.js";
import type { AttestedDocument } from "./attest.js";
import { checkDataset } from "../dataset.js";
import { readKeyFile } from "./seal.js";

/** Entries named in a failure at most (the rest counted). */
const NAMED = 20;

export async function recount(
  attested: Statement,
  roots: readonly string[],
  given: { schedule?: string[] | undefined; "hmac-key-file"?: string | undefined; dataset?: string | undefined },
  doc: AttestedDocument | null,
  criteria: Criteria | null,
  io: CliIo,
): Promise<AttestFailure[]> {
  const o = attested.predicate.options;
  const schedules = (given.schedule ?? []).map(loadSchedule);
  const key = given["hmac-key-file"] === undefined ? undefined : readKeyFile(given["hmac-key-file"], roots, io.stderr);
  const mine = {
    schedules: schedules.map((s) => `${s.schedule.experiment}:${s.digest}`).sort(byteCompare),
    hmac_key: key?.fingerprint ?? null,
  };
  const dataset = given.dataset === undefined ? undefined : checkDataset(given.dataset).file;
  const refused: AttestFailure[] = [];
  if ((dataset?.sha256 ?? undefined) !== o.dataset)
    refused.push({
      code: "OPTIONS_MISMATCH",
      where: "options.dataset",
      detail: `the statement was made ${o.dataset === undefined ? "without --dataset" : `with the dataset of SHA-256 ${o.dataset}`}; the recount ${dataset === undefined ? "has none (--dataset)" : `was given ${dataset.sha256}`}`,
    });
  if (JSON.stringify(mine.schedules) !== JSON.stringify(o.schedules))
    refused.push({
      code: "OPTIONS_MISMATCH",
      where: "options.schedules",
      detail: `the statement was made under ${JSON.stringify(o.schedules)}; the --schedule files given hash to ${JSON.stringify(mine.schedules)}`,
    });
  if (mine.hmac_key !== o.hmac_key)
    refused.push({
      code: "OPTIONS_MISMATCH",
      where: "options.hmac_key",
      detail: `the statement was made ${o.hmac_key === null ? "without a key" : `under the key of fingerprint ${o.hmac_key}`}; the recount ${mine.hmac_key === null ? "has none (--hmac-key-file)" : `was given ${mine.hmac_key}`}`,
    });
  if (refused.length > 0) return refused;

  const run = await scoreRun(roots, {
    schedules,
    invalid: o.invalid as "count" | "exclude",
    resourceBound: o.resource_bound as "default" | "exclude" | "loss",
    errors: o.errors as "exclude" | "zero",
    hmacKey: key?.bytes,
    dataset,
  });
  try {
    const found: { path: string; digest: string }[] = [];
    // Unit values only where a paired rule is decided on them (a recount of a large archive keeps none otherwise).
    const units = hasPairedRules(attested) ? new CriteriaUnits() : null;
    const bundles = run.bundles;
    const recounted = projectResults(
      {
        ...run,
        bundles: {
          *[Symbol.iterator]() {
            for (const b of bundles) {
              found.push({ path: b.path, digest: b.digest });
              units?.add(b);
              yield b;
            }
          },
        },
      },
      {
        resultsName: attested.subject[0]?.name ?? "results",
        resultsSha256: "",
        merkle: (digests) => evidenceRoot(digests).root,
        harness: { runtime: `node ${process.version}`, digest: { dirHash: packageDirHash() } },
        attestedAt: attested.predicate.attestedAt,
      },
    );
    return [
      ...compareStatements(attested, recounted, {
        recount: true,
        criteria,
        units: units?.finish(run.experiments, run.run.options),
      }),
      ...(doc === null ? [] : entryDifferences(doc.entries, found)),
    ];
  } finally {
    run.close();
  }
}

/** ENTRY_MISSING / ENTRY_EXTRA (with --results): entries by digest, as multisets, named by path. */
function entryDifferences(
  attested: readonly { path: string; digest: string }[],
  found: readonly { path: string; digest: string }[],
): AttestFailure[] {
  const left = new Map<string, number>();
  for (const e of found) left.set(e.digest, (left.get(e.digest) ?? 0) + 1);
  const missing: { path: string; digest: string }[] = [];
  for (const e of attested) {
    const n = left.get(e.digest) ?? 0;
    if (n > 0) left.set(e.digest, n - 1);
    else missing.push(e);
  }
  const extra: { path: string; digest: string }[] = [];
  for (const e of found)
    if ((left.get(e.digest) ?? 0) > 0) {
      left.set(e.digest, left.get(e.digest)! - 1);
      extra.push(e);
    }
  const named = (code: "ENTRY_MISSING" | "ENTRY_EXTRA", list: typeof missing, why: string): AttestFailure[] => [
    ...list.slice(0, NAMED).map((e) => ({ code, where: e.path, detail: `${why} (digest ${e.digest})` })),
    ...(list.length > NAMED
      ? [{ code, where: `${list.length - NAMED} more`, detail: `${why}: named above are the first ${NAMED}` }]
      : []),
  ];
  return [
    ...named("ENTRY_MISSING", missing, "attested, not in the archive now (changed or removed)"),
    ...named("ENTRY_EXTRA", extra, "in the archive now, not attested"),
  ];
}
