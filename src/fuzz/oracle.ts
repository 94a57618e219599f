// The oracle: what must hold for every case, whatever the mutation did.
//  - scoring never throws and never reports a tool error ("error") for evidence read in memory;
//  - the base's evidence (opaque entries aside) always gets the base's verdict;
//  - credit that rests on the evidence as a whole (a native victory, a world pass) is held only
//    in the ways the contract allows (credit.ts): anything else that keeps it is a bug;
//  - each profile's own rules (profiles.ts: §2 for what a valid entry read; harbor.ts: rewards
//    only from result.json and the reward file it names);
//  - the results document built from the entry renders, parses and validates; the table renders.

import { resultsSchema, type Results, type ScoredBundle } from "../core/results.js";
import type { Found } from "../io/discover.js";
import { assemble, placed } from "../pipeline/score.js";
import { renderText } from "../report/index.js";
import type { Base, FuzzCase } from "./generate.js";
import type { FuzzProfile } from "./profiles.js";
import { sameEvidence, verdictOf } from "./credit.js";
import { treeSource } from "./tree.js";

export interface Judgement {
  entry: ScoredBundle | null;
  /** What broke, or null. */
  failure: string | null;
  /** A mutant that holds credit (a victory, a pass), and why that is legitimate. */
  kept: string | null;
}

/** Where a case lies when placed under `root` (a trial inside a job folder of its own). */
export function foundAt(c: FuzzCase, root: string): Found {
  if (c.base.profile.layout === "bundle")
    return { dir: `${root}/case-${c.index}`, path: `${root}/case-${c.index}`, kind: "bundle" };
  const job = `job-${c.index}`;
  return {
    dir: `${root}/${job}/trial-${c.index}`,
    path: `${root}/${job}/trial-${c.index}`,
    kind: "harbor",
    member: { container: job, folder: `trial-${c.index}` },
  };
}

/**
 * The document renders as JSON that parses and validates, and as a table and Markdown: why not,
 * or null. (Not JUnit: its writer costs half a millisecond a document, which doubled the fuzz
 * tests; report-junit.test.ts gives it the hostile names and texts instead.)
 */
export function renderProblem(doc: Results): string | null {
  try {
    const parsed = resultsSchema.safeParse(JSON.parse(renderText("json", doc)));
    if (!parsed.success)
      return `the results document does not validate: ${parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join(".")}: ${i.message}`)
        .join("; ")}`;
    for (const format of ["table", "md"] as const) renderText(format, doc);
    return null;
  } catch (e) {
    return `rendering the results document threw: ${(e as Error).stack ?? String(e)}`;
  }
}

export function judge(
  c: FuzzCase,
  bases: readonly Base[],
  score: FuzzProfile["score"] = c.base.profile.score,
): Judgement {
  const p = c.base.profile;
  let entry: ScoredBundle;
  try {
    entry = score(treeSource(c.tree, c.chunk));
  } catch (e) {
    return { entry: null, failure: `scoring threw: ${(e as Error).stack ?? String(e)}`, kept: null };
  }
  const fail = (failure: string): Judgement => ({ entry, failure, kept: null });
  if (entry.validity === "error")
    return fail(`a tool error for evidence read in memory: ${JSON.stringify(entry.errors)}`);

  if (sameEvidence(p, c.tree, c.base.tree) && verdictOf(entry) !== verdictOf(c.base.entry))
    return fail(
      `the base's evidence, but another verdict:\n  base: ${verdictOf(c.base.entry)}\n  case: ${verdictOf(entry)}`,
    );
  // Credit and rules go by the profile the entry names: a mutant may carry another profile's files.
  const q = bases.find((b) => b.profile.name === entry.profile)?.profile ?? p;
  let kept: string | null = null;
  if (q.credit?.holds(entry)) {
    const basis = q.credit.basis(
      q,
      c,
      entry,
      bases.filter((b) => b.profile === q),
    );
    if ("failure" in basis) return fail(`credited (${verdictOf(entry)}): ${basis.failure}`);
    kept = basis.ok;
  }
  const broken = q.check(c.tree, entry);
  if (broken !== null) return fail(broken);

  const root = "fuzz";
  const here = foundAt(c, root);
  const entries = [placed(here, entry)];
  if (c.withBase)
    entries.push(
      placed(
        {
          ...here,
          dir: `${here.dir}-base`,
          path: `${here.path}-base`,
          ...(here.member ? { member: { ...here.member, folder: `${here.member.folder}-base` } } : {}),
        },
        c.base.entry,
      ),
    );
  let doc: string | null;
  try {
    doc = renderProblem(
      assemble(entries, { ...c.batch, schedules: [] }, "1970-01-01T00:00:00.000Z", { complete: true, roots: [root] }),
    );
  } catch (e) {
    doc = `building the results document threw: ${(e as Error).stack ?? String(e)}`;
  }
  if (doc !== null) return fail(doc);

  return { entry, failure: null, kept };
}
