// Writing a synthesised corpus to disk (the plan and the bytes come from synth/, or from a listed
// kind's synth part).

import type { KindSynth, KindSynthOptions } from "../kinds/synth.js";
import { corpusFiles, plannedBundles, type CorpusOptions, type PlannedBundle } from "../synth/corpus.js";
import { isEmptyOrAbsent, writeTree } from "./output.js";

export const MANIFEST = "synth-manifest.json";

/** A target that is not empty: synthesis never writes over existing files. */
export class TargetNotEmpty extends Error {
  readonly code = "USAGE";
}

/** The manifest's entry for a planned bundle. */
const manifestEntry = (b: PlannedBundle) => ({
  dir: b.dir,
  profile: b.profile,
  experiment: b.experiment,
  trial: b.trial,
  attempt: b.attempt,
  outcome: b.profile === "world" ? b.scenario : b.profile === "harbor" || b.profile === "inspect" ? b.case : b.outcome,
  fault: b.profile === "native-game" ? (b.fault ?? null) : null,
  expect: b.expect,
});

/**
 * The manifest as pieces, entry by entry (the same text as JSON.stringify(manifest, null, 2)):
 * a manifest of a million bundles is never one string.
 */
function* manifestText(head: object, entries: Iterable<object>): Generator<string> {
  const text = JSON.stringify({ format: "assay.synth-manifest/1", ...head, bundles: [] }, null, 2);
  yield text.slice(0, text.lastIndexOf("[]")) + "[";
  let first = true;
  for (const e of entries) {
    yield `${first ? "" : ","}\n${JSON.stringify(e, null, 2).replace(/^/gm, "    ")}`;
    first = false;
  }
  yield "\n  ]\n}\n";
}

function* entriesOf(o: CorpusOptions): Generator<object> {
  for (const b of plannedBundles(o)) yield manifestEntry(b);
}

/** Synthesise a corpus into `out`, bundle by bundle (the plan is made twice: files, then manifest); returns how many bundles were written. */
export function writeCorpus(out: string, o: CorpusOptions): number {
  if (!isEmptyOrAbsent(out)) throw new TargetNotEmpty(`${out} is not empty: synth never writes over existing files`);
  let n = 0;
  const counted = function* () {
    for (const b of plannedBundles(o)) {
      n++;
      yield b;
    }
  };
  writeTree(out, corpusFiles(counted()));
  writeTree(out, [[MANIFEST, manifestText({ seed: o.seed, n: o.n, faults: o.faults }, entriesOf(o))]]);
  return n;
}

/** A listed kind's corpus into `out` (empty or absent), its files then its manifest; returns how many units were planned. */
export function writeKindCorpus(out: string, synth: KindSynth, o: KindSynthOptions): number {
  if (!isEmptyOrAbsent(out)) throw new TargetNotEmpty(`${out} is not empty: synth never writes over existing files`);
  writeTree(out, synth.files(o));
  let n = 0;
  const counted = function* () {
    for (const u of synth.plan(o)) {
      n++;
      yield u;
    }
  };
  writeTree(out, [[MANIFEST, manifestText({ seed: o.seed, n: o.n, profile: synth.profile }, counted())]]);
  return n;
}
