// A metric's 95% interval (contract §13.2) in words, for every report that prints one: its bounds,
// what it is over ("41 trials in 12 tasks" where tasks repeat), or why there is none; and the
// legend naming each method once per section. The reports show `interval`, never `wilson95` (which
// treats every unit as independent: too narrow where repeats of a task are correlated).

import type { IntervalField } from "../core/results.js";
import { plural } from "../core/text.js";
import type { Nouns } from "../kinds/words.js";

export type Method = IntervalField["method"];

/** What a metric object says of its interval (absent fields: a document from before scoring version 7). */
export interface WithInterval {
  interval?: IntervalField | null;
  interval_reason?: string | null;
}

const ORDER: readonly Method[] = ["wilson", "korn-graubard", "cluster-t", "t"];

/** What an interval is over: "11 trials", or "11 trials in 3 tasks" where a cluster holds more than one. */
const overUnits = (i: IntervalField, nouns: Nouns): string =>
  i.clusters < i.units
    ? `${plural(i.units, nouns.unit)} in ${clustersText(i.clusters, i.unplaced ?? 0, nouns)}`
    : plural(i.units, nouns.unit);

/** "3 tasks", or "3 tasks + 1 trial of unknown task": units whose cluster nothing names are not counted as clusters of that name (issue 35). */
const clustersText = (clusters: number, unplaced: number, nouns: Nouns): string =>
  `${plural(clusters - unplaced, nouns.cluster)}${unplaced === 0 ? "" : ` + ${plural(unplaced, nouns.unit)} of unknown ${nouns.cluster}`}`;

/** A null interval's reason, said once as "no interval" (core's reasons mostly say it already). */
const noInterval = (reason: string): string => (/\bno interval\b/.test(reason) ? reason : `no interval: ${reason}`);

/**
 * A metric's interval as plain text: "95% [0.0%, 86.8%] over 11 trials in 3 tasks", or "no
 * interval: …"; "" when the document records neither. `open`/`close` bracket the bounds (Markdown
 * escapes them), `reason` shows the reason as the format needs (it may name a metadata key).
 */
function intervalText(m: WithInterval, show: (x: number) => string, nouns: Nouns, f: Format = {}): string {
  const i = m.interval ?? null;
  if (i !== null)
    return `95% ${f.open ?? "["}${show(i.lo)}, ${show(i.hi)}${f.close ?? "]"} over ${overUnits(i, nouns)}`;
  const r = m.interval_reason ?? null;
  return r === null ? "" : (f.reason ?? ((s) => s))(noInterval(r));
}

export interface Format {
  open?: string;
  close?: string;
  reason?: (s: string) => string;
}

/** The methods of the intervals a section shows, gathered as it shows them, for its one legend line. */
export class Methods {
  private readonly seen = new Set<Method>();

  constructor(readonly nouns: Nouns) {}

  see(m: WithInterval): void {
    if (m.interval) this.seen.add(m.interval.method);
  }

  /** The metric's interval as text (intervalText), its method noted for the legend. */
  text(m: WithInterval, show: (x: number) => string, f: Format = {}): string {
    this.see(m);
    return intervalText(m, show, this.nouns, f);
  }

  /** How each method seen reads ("Wilson where each task ran once", …), in a fixed order. */
  used(): string[] {
    return ORDER.filter((x) => this.seen.has(x)).map((x) => this.nouns.legend[x]);
  }

  /** "95% intervals: Wilson where each task ran once; …; each for the mean over the population of tasks …", naming only the methods seen; null when none. */
  legend(): string | null {
    const used = this.used();
    return used.length === 0 ? null : `95% intervals: ${used.join("; ")}; each for ${this.nouns.question}`;
  }
}
