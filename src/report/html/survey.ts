// One read of the bundle entries for what the page says beside the experiments' own figures:
// findings by code (per experiment and over all, with the codes the batch rules give a trial and
// none of its bundles holds), which world dimensions are hard, and the
// advisory judgements. Bounded however many entries: counts, names, and the first few of a list.

import type { Advisory, BundleEntry, Experiment } from "../../core/results.js";
import { forTerminal } from "../../core/text.js";
import { shownEntry } from "../shown.js";
import { TrialIndexes, TrialOnlyCodes } from "../trial-index.js";

/** Entries with a failing or errored criterion listed in the advisory section (the rest are counted). */
export const MAX_ADVISORY = 50;

export interface Survey {
  /** Bundles with each code (errors, warnings, flags), and trials with each trial-only code, over every entry and by experiment key. */
  codes: Map<string, number>;
  codesBy: Map<string, Map<string, number>>;
  /** Dimension names the evidence marks hard, by experiment key. */
  hard: Map<string, Set<string>>;
  advised: number;
  analysed: number;
  cached: number;
  first: Advisory | null;
  notAnalysed: Map<string, number>;
  /** Entries with a failing or errored criterion: the first MAX_ADVISORY (shown), and how many in all. */
  notable: BundleEntry[];
  notableCount: number;
}

/** The key an entry and its shown experiment (shown.ts) share; a name may recur under another profile. */
export const experimentKey = (profile: string | null, experiment: string | null): string => `${profile ?? ""}\u0000${experiment ?? ""}`;

const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

export function survey(bundles: Iterable<BundleEntry>, experiments: readonly Experiment[]): Survey {
  const s: Survey = { codes: new Map(), codesBy: new Map(), hard: new Map(), advised: 0, analysed: 0, cached: 0, first: null, notAnalysed: new Map(), notable: [], notableCount: 0 };
  const count = (profile: string | null, experiment: string | null, codes: Iterable<string>) => {
    const key = experimentKey(profile, experiment === null ? null : forTerminal(experiment));
    let by = s.codesBy.get(key);
    for (const c of codes) {
      if (by === undefined) s.codesBy.set(key, (by = new Map()));
      bump(s.codes, c);
      bump(by, c);
    }
  };
  const trialOnly = new TrialOnlyCodes(new TrialIndexes(experiments));
  for (const e of bundles) {
    trialOnly.see(e);
    const key = experimentKey(e.profile, e.experiment === null ? null : forTerminal(e.experiment));
    count(e.profile, e.experiment, new Set([...e.errors, ...e.warnings, ...e.flags].map((f) => f.code)));
    for (const [name, d] of Object.entries(e.dimensions ?? {}))
      if (d.hard) {
        let hard = s.hard.get(key);
        if (hard === undefined) s.hard.set(key, (hard = new Set()));
        hard.add(name);
      }
    const a = e.advisory;
    if (a === null) continue;
    s.advised++;
    s.first ??= a;
    if (a.status !== "analysed") {
      bump(s.notAnalysed, a.reason ?? "");
      continue;
    }
    s.analysed++;
    if (a.cached) s.cached++;
    if (Object.values(a.outcomes).some((o) => o.outcome === "fail" || o.outcome === "error") && s.notableCount++ < MAX_ADVISORY) s.notable.push(shownEntry(e));
  }
  for (const t of trialOnly.codes()) count(t.experiment.profile, t.experiment.experiment, [t.code]);
  return s;
}
