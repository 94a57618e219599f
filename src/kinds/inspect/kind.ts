// Inspect logs in the main process (contract §12): their words, their part of the batch record, their
// batch rules, and how a large .eval is spread over the workers.
import { inspectExperiments, InspectNaming } from "./batch.js";
import { posix } from "node:path";
import { splitLog } from "./split.js";
import { triageInspect } from "./triage.js";
import type { BundleEntry } from "../../core/results.js";
import { inspectPack } from "./pack.js";
import type { Kind } from "../kind.js";
import { inspectRecogniser } from "./recognise.js";
import { inspectWords } from "./words.js";

/** A path as a POSIX shell reads it: as it is when plain, else single-quoted. */
const shellWord = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);

/**
 * Where `inspect view` (its default host and port, inspect_ai/_util/constants.py DEFAULT_SERVER_HOST,
 * DEFAULT_VIEW_PORT) shows one sample of a log in the folder it serves: its viewer routes
 * `#/logs/<log, relative to --log-dir>/samples/sample/<id>/<epoch>` (inspect_ai's
 * _view/www/src/app/routing/url.ts kSampleRouteUrlPattern and sampleUrl, each path part
 * percent-encoded; analysis/_prepare/log_viewer.py forms the same for a published viewer).
 */
const sampleUrl = (log: string, id: string, epoch: number): string =>
  `http://127.0.0.1:7575/#/logs/${encodeURIComponent(log)}/samples/sample/${encodeURIComponent(id)}/${epoch}`;

/** An Inspect log without its per-sample lists (§13.4's `sample_ids` and `values`, §13.7's `sample_clusters`: the entry's alone, never the batch rules'). */
function perLog(l: BundleEntry["inspect"]): BundleEntry["inspect"] {
  if (l === null) return null;
  const metrics = Object.fromEntries(
    Object.entries(l.metrics).map(([k, m]) => [k, m.values === null ? m : { ...m, values: null }]),
  );
  return { ...l, sample_ids: null, sample_clusters: null, metrics };
}

export const inspectKind: Kind = {
  name: "inspect",
  trialTasks: false,
  recogniser: inspectRecogniser,
  words: { inspect: inspectWords },
  pack: inspectPack,
  // Named over the whole run: two task runs of one task and model are told apart.
  batch(records, run) {
    const naming = new InspectNaming(records);
    return { nameOf: (e) => naming.nameOf(e), experiments: () => inspectExperiments(naming, run.options) };
  },
  // One part per log: a run holds far fewer logs than samples.
  recordPart: (e, share) => ({
    digest: e.digest,
    samples: e.samples,
    inspect: perLog(e.inspect),
    flags: share.codes(e.flags, false),
    usage: e.usage,
  }),
  split: splitLog,
  triage: triageInspect,
  // Inspect's viewer lists a folder's logs; the log and the sample id say which to open there.
  evidence: (path, unit) => ({
    file: null,
    open: `inspect view --log-dir ${shellWord(posix.dirname(path))}`,
    // An id no URL can carry (a lone surrogate: encodeURIComponent throws) gets no address, never a wrong one.
    ...(unit === undefined || !unit.id.isWellFormed() || !path.isWellFormed()
      ? {}
      : { at: sampleUrl(posix.basename(path), unit.id, unit.epoch) }),
  }),
  // Loaded when an export first asks: the sample reader is the workers' code, not the main process's.
  async *units(entry, file) {
    yield* (await import("./units.js")).inspectUnits(entry, file);
  },
};
