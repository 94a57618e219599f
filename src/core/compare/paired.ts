// Pairing two runs' units of one metric (contract §13.4), pure: the units both sides count, their
// differences HEAD − BASE, and why the others did not pair. The statistics are
// core/stats/paired.ts's (which test decides, §13.7); McNemar's counts and flipped units beside them.

import { byteCompare, plural } from "../text.js";
import { pairedDifference } from "../stats/paired.js";
import type { PairedComparison } from "./schema.js";
import { mcnemarExact } from "../stats/binomial.js";
import { sameTask, UNTOLD_CLUSTER, type Units } from "./trials.js";

/** A cluster a side names (not an Inspect sample's that lacks its key, which gives way to the other side's). */
const told = (k: string | null): k is string => k !== null && !k.startsWith(UNTOLD_CLUSTER);

/** The differences over the units both sides count, and the units that did not pair. */
export interface Pairing {
  /** Each paired unit's BASE and HEAD values, in step (HEAD's order). */
  base: number[];
  head: number[];
  /** Each paired unit's cluster (§13.7 reading 5: BASE's, else HEAD's; an Inspect sample lacking its key takes the other side's); null when neither side clusters its units. */
  clusters: (string | null)[] | null;
  /** Paired units whose cluster differs between the sides (each takes BASE's). */
  cluster_differs: number;
  only_base: number;
  only_head: number;
  /** Harbor tasks on both sides whose task_checksum differs (or is mixed within a side): not one unit. */
  checksum_changed: number;
  /** Harbor tasks paired though only one side records a task_checksum (an older Harbor records none). */
  checksum_one_side: number;
  /** Why a side has no units at all (an Inspect log without per-sample values), else null. */
  reason: string | null;
  /** Each side's notes on its units (BASE's, HEAD's): Inspect clusters it could not tell. */
  notes: [string[], string[]];
}

/** Pair `head` against `base` by unit id; `each` sees every pair (id, base value, head value) in HEAD's order. */
export function pairing(base: Units, head: Units, each?: (id: string, b: number, h: number) => void): Pairing {
  const reason = base.reason ?? head.reason;
  const notes: [string[], string[]] = [base.notes ?? [], head.notes ?? []];
  if (reason !== null)
    return {
      base: [],
      head: [],
      clusters: null,
      cluster_differs: 0,
      only_base: 0,
      only_head: 0,
      checksum_changed: 0,
      checksum_one_side: 0,
      reason,
      notes,
    };
  // An index of BASE's ids only while pairing: nothing beyond the two sides' own arrays outlives this call.
  const index = new Map<string, number>();
  base.ids.forEach((id, i) => index.set(id, i));
  const bs: number[] = [];
  const hs: number[] = [];
  const clustered = (base.clusters ?? null) !== null || (head.clusters ?? null) !== null;
  const cs: (string | null)[] = [];
  let differs = 0;
  let onlyHead = 0;
  let changed = 0;
  let oneSide = 0;
  head.ids.forEach((id, j) => {
    const i = index.get(id);
    if (i === undefined) return void onlyHead++;
    const [cb, ch] = [base.checksums?.[i] ?? null, head.checksums?.[j] ?? null];
    // §13.6: one task "with task_checksum where present": a side that records none pairs by the name.
    if (!sameTask(cb, ch)) changed++;
    else {
      if (cb !== ch) oneSide++;
      bs.push(base.values[i]!);
      hs.push(head.values[j]!);
      if (clustered) {
        const [kb, kh] = [base.clusters?.[i] ?? null, head.clusters?.[j] ?? null];
        if (told(kb) && told(kh) && kb !== kh) differs++;
        cs.push(told(kb) ? kb : told(kh) ? kh : (kb ?? kh));
      }
      each?.(id, base.values[i]!, head.values[j]!);
    }
  });
  return {
    base: bs,
    head: hs,
    clusters: clustered ? cs : null,
    cluster_differs: differs,
    only_base: base.ids.length - bs.length - changed,
    only_head: onlyHead,
    checksum_changed: changed,
    checksum_one_side: oneSide,
    reason: null,
    notes,
  };
}

/** Why units did not pair, as people read it. */
export function unpairedNotes(p: Pairing, unit: string, sides: [string, string] = ["BASE", "HEAD"]): string[] {
  return [
    ...(p.only_base > 0 ? [`only in ${sides[0]}: ${plural(p.only_base, unit)}`] : []),
    ...(p.only_head > 0 ? [`only in ${sides[1]}: ${plural(p.only_head, unit)}`] : []),
    ...(p.checksum_changed > 0
      ? [`task_checksum changed: ${plural(p.checksum_changed, unit)} (a changed task is not one unit on both sides)`]
      : []),
    ...(p.checksum_one_side > 0
      ? [
          `task_checksum on one side only: ${plural(p.checksum_one_side, unit)} paired by task name (an older Harbor records none)`,
        ]
      : []),
    // §13.7 reading 5: a unit's cluster is BASE's where the sides name different ones.
    ...(p.cluster_differs > 0
      ? [`cluster differs between the sides: ${plural(p.cluster_differs, unit)} paired, each in ${sides[0]}'s cluster`]
      : []),
    ...p.notes.flatMap((ns, i) => ns.map((n) => `${sides[i]}: ${n}`)),
  ];
}

/**
 * §13.4's `paired` of one headline metric with §13.7's test, and (not in the JSON's `paired`)
 * whether it is a regression: the test decides. `binary` (native and world trials): McNemar's counts and the flipped trials always;
 * elsewhere they are given where McNemar decides (every unit 0/1 on both sides, none clustered).
 */
export function pairedComparison(
  base: Units,
  head: Units,
  binary: boolean,
): PairedComparison & { regression: boolean } {
  const flipped = { pass_to_fail: [] as string[], fail_to_pass: [] as string[] };
  const both = [0, 0]; // fail on both, pass on both
  const p = pairing(base, head, (id, b, h) => {
    if ((b !== 0 && b !== 1) || (h !== 0 && h !== 1)) return;
    if (b === h) both[b]!++;
    else (b === 1 ? flipped.pass_to_fail : flipped.fail_to_pass).push(id);
  });
  const d = pairedDifference(p, base.unit);
  flipped.pass_to_fail.sort(byteCompare);
  flipped.fail_to_pass.sort(byteCompare);
  const mcnemar =
    d.discordant !== null && (binary || d.test === "mcnemar")
      ? {
          p: mcnemarExact(d.discordant.b, d.discordant.c),
          both_pass: both[1]!,
          both_fail: both[0]!,
          pass_to_fail: d.discordant.b,
          fail_to_pass: d.discordant.c,
          flipped,
        }
      : null;
  return {
    unit: base.unit,
    pairs: d.pairs,
    only_base: p.only_base,
    only_head: p.only_head,
    clusters: d.clusters,
    mean_diff: d.mean_diff,
    interval: d.interval,
    mde80: d.mde80,
    test: d.test,
    p: d.p,
    mcnemar,
    reason: p.reason ?? d.reason,
    unpaired: unpairedNotes(p, base.unit),
    regression: d.regression,
  };
}
