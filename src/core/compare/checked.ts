// issue 35: before compare uses an experiment's figures, those its document's own entries determine
// are recomputed from them: a document whose `mean` was edited (its entries untouched) was ranked
// on the edited figure. Pure. The headline metrics come from the units compare pairs (trials.ts:
// the same entries, counted as the metric counts them); what the experiment spent from its
// entries' usage. A figure that differs is refused by the caller, naming the document and the
// experiment. Only what the entries decide is checked: which trials an experiment lists as
// invalid, excluded or unscored is its own record (a keyed document's MAC vouches for it).

import type { BundleEntry, Experiment } from "../results.js";
import { addToTotal, emptyTotal, USAGE_FIELDS, type Usage, type UsageTotal } from "../usage.js";
import { headlines, type Units } from "./trials.js";

/** Equal but for the last bits a sum in another order may change. */
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
const sameValue = (a: number | null, b: number | null) => (a === null || b === null ? a === b : close(a, b));

/** The figure a headline metric shows, as the document gives it: its value and, for a proportion, its k of n. */
function given(x: Experiment, metric: string): { value: number | null; k?: number; n?: number } | null {
  if (metric === "accuracy") return x.accuracy && { value: x.accuracy.value, k: x.accuracy.victories, n: x.accuracy.scored };
  if (metric === "pass") return x.pass && { value: x.pass.total === 0 ? null : x.pass.passed / x.pass.total, k: x.pass.passed, n: x.pass.total };
  const reward = /^reward\/(.*)\/mean$/.exec(metric)?.[1];
  if (reward !== undefined) return x.rewards?.[reward] === undefined ? null : { value: x.rewards[reward].mean };
  const inspect = /^inspect\/(.*)\/value$/.exec(metric)?.[1];
  return inspect === undefined || x.inspect?.[inspect] === undefined ? null : { value: x.inspect[inspect].value };
}

/** Why a headline figure is not the one the experiment's units give, or null (units that cannot say, an older document's Inspect log, are not checked). */
export function headlineProblem(x: Experiment, units: ReadonlyMap<string, Units>): string | null {
  for (const { metric } of headlines(x)) {
    const u = units.get(metric);
    const g = given(x, metric);
    if (u === undefined || u.reason !== null || g === null) continue;
    let n = 0;
    let sum = 0;
    u.values.forEach((v, i) => {
      const w = u.trials?.[i] ?? 1;
      n += w;
      sum += v * w;
    });
    const value = n === 0 ? null : sum / n;
    const counts = g.k === undefined ? "" : ` (${g.k} of ${g.n})`;
    if (!sameValue(g.value, value) || (g.k !== undefined && (g.k !== Math.round(sum) || g.n !== n)))
      return `its ${metric} ${g.value}${counts} is not what its entries give: ${value}${g.k === undefined ? "" : ` (${Math.round(sum)} of ${n})`}`;
  }
  return null;
}

/** One trial name's entries (Harbor): byte-identical copies spend once, as batch/harbor.ts counts them. */
interface Named {
  digest: string;
  usages: (Usage | null)[];
  same: boolean;
}

/**
 * What every experiment's entries spent (§13.5 `usage.spent`), kept as the entries are read: per
 * Harbor trial name its usages (copies spend once), per other experiment the running total.
 * Terminal-Bench spends every trial; an Inspect run written twice spends once, so its totals are
 * at most its entries' (a bound, not a sum).
 */
export class EntrySpend {
  private readonly harbor = new Map<string, Map<string, Named>>();
  private readonly totals = new Map<string, UsageTotal>();

  add(e: BundleEntry): void {
    if (e.experiment === null) return;
    const key = `${e.profile}\u0000${e.experiment}`;
    if (e.profile === "harbor" && e.trial !== null && e.validity !== "error") {
      let names = this.harbor.get(key);
      if (names === undefined) this.harbor.set(key, (names = new Map()));
      const name = e.trial ?? e.path;
      const seen = names.get(name);
      if (seen === undefined) names.set(name, { digest: e.digest, usages: [e.usage], same: true });
      else {
        seen.usages.push(e.usage);
        seen.same &&= seen.digest === e.digest;
      }
      return;
    }
    let t = this.totals.get(key);
    if (t === undefined) this.totals.set(key, (t = emptyTotal()));
    addToTotal(t, e.usage);
  }

  /** Why `x`'s spent totals contradict its entries' usage, or null. */
  problem(x: Experiment): string | null {
    if (x.usage === null || x.experiment === null) return null;
    const key = `${x.profile}\u0000${x.experiment}`;
    const spent = x.usage.spent;
    const want = { ...(this.totals.get(key) ?? emptyTotal()) };
    for (const n of this.harbor.get(key)?.values() ?? []) for (const u of n.same ? n.usages.slice(0, 1) : n.usages) addToTotal(want, u);
    const bound = x.profile === "inspect";
    const fits = (have: number | null, sum: number | null) => (have === null ? bound || sum === null : sum !== null && (bound ? have <= sum + 1e-9 * Math.max(1, sum) : close(have, sum)));
    const counts = bound ? spent.entries <= want.entries && spent.costed <= want.costed : spent.entries === want.entries && spent.costed === want.costed;
    const field = USAGE_FIELDS.find((f) => !fits(spent[f], want[f]));
    if (!counts || field !== undefined)
      return `its usage spent (${spent.entries} entries${field === undefined ? "" : `, ${field} ${spent[field]}`}) is ${bound ? "more than" : "not"} what its entries spent (${want.entries} entries${field === undefined ? "" : `, ${field} ${want[field]}`})`;
    return null;
  }
}
