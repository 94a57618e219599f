// The words the reports use for each kind of evidence: one record per profile, in its kind's
// folder (src/kinds/<kind>/words.ts), read by every format, so a Harbor trial is never called a
// bundle, an Inspect log's samples not scored are never confused with the logs the tool could not
// read, and a line that counts several kinds says which.

import type { Experiment, Profile } from "../core/results.js";
import { byteCompare, forTerminal } from "../core/text.js";
import { KINDS } from "../kinds/registry.js";
import { assayWords, type Sections, type Words } from "../kinds/words.js";

export type { Words };

/** A document from another version, or an entry that names no profile. */
const UNKNOWN: Words = assayWords("unknown", "victories", null);

/** Every kind's words, by profile (each kind's are in its folder). */
export const WORDS: Readonly<Record<Profile, Words>> = Object.assign({}, ...KINDS.map((k) => k.words));

/** The order a line that counts several kinds names them: the kinds' order (assay's bundles, then Harbor's trials, then Inspect's logs…). */
const ORDER: readonly Words[] = [...Object.values(WORDS), UNKNOWN];

/** Where the given kinds' claimed figures come from, in the kinds' order, as the overview's legend names them ("Harbor's result.json, Inspect's log"); "" where none claims one. */
export const claimSources = (kinds: readonly Words[]): string =>
  ORDER.filter((w) => kinds.includes(w))
    .flatMap((w) => (w.claimFrom === undefined ? [] : [w.claimFrom]))
    .join(", ");

/** The words for a profile (a document's; null or one this version does not know: UNKNOWN). */
export const wordsOf = (profile: string | null): Words =>
  profile !== null && Object.hasOwn(WORDS, profile) ? WORDS[profile as Profile] : UNKNOWN;

/**
 * A kind's part of a report (its --details lines, its Markdown table), else, for a profile this
 * version cannot name (core leaves it null yet still computes accuracy or dimensions), the part
 * whose fields the experiment holds.
 */
export const byFields = <T>(
  parts: Readonly<Record<Sections, T>>,
  profile: string | null,
  e: Pick<Experiment, "accuracy" | "dimensions">,
): T | undefined =>
  profile !== null && Object.hasOwn(WORDS, profile)
    ? parts[wordsOf(profile).sections]
    : e.accuracy !== null
      ? parts.victories
      : e.dimensions !== null
        ? parts.dimensions
        : undefined;

/** The words of the kind an experiment is shown as in a section (byFields): its profile's, else the first kind's shown in it. */
export const shownAs = (section: Sections, profile: string | null): Words | undefined =>
  profile !== null && Object.hasOwn(WORDS, profile)
    ? WORDS[profile as Profile]
    : ORDER.find((w) => w.sections === section);

/** An experiment's name as reports show it: its own, else what its kind calls an unnamed one. */
export const nameOf = (e: { experiment: string | null; profile: string | null }): string =>
  e.experiment ?? wordsOf(e.profile).unnamed;

/** "3 Harbor trials", "1 Inspect log". */
export const evidenceCount = (w: Words, n: number): string => `${n} ${n === 1 ? w.evidence : w.evidencePlural}`;

/** "3 trials", "10 planned records": what `scheduled` counts. */
export const scheduledCount = (w: Words, n: number): string => `${n} ${n === 1 ? w.scheduled : w.scheduledPlural}`;

/** Counts of evidence by kind, as one phrase: "8 bundles, 8 Harbor trials and 6 Inspect logs"; kinds counted 0 left out ("0 bundles" when all are). */
export function evidencePhrase(counts: Iterable<readonly [Words, number]>): string {
  const byNoun = new Map<string, [Words, number]>();
  for (const [w, n] of counts) {
    const had = byNoun.get(w.evidence);
    byNoun.set(w.evidence, [w, (had?.[1] ?? 0) + n]);
  }
  const parts = [...byNoun.values()].filter(([, n]) => n > 0).map(([w, n]) => evidenceCount(w, n));
  if (parts.length === 0) return evidenceCount(UNKNOWN, 0);
  return parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
}

/** A document's tally by kind of evidence: assay's bundles, Harbor trials, Inspect logs… */
export function tallied(t: { byProfile: Readonly<Record<string, number>> }): EvidenceCounts {
  const c = new EvidenceCounts();
  for (const [profile, n] of Object.entries(t.byProfile)) c.add(profile === "" ? null : profile, n);
  return c;
}

/** Counts by kind of evidence, gathered one entry at a time (bounded: one count per kind). */
export class EvidenceCounts {
  private readonly counts = new Map<Words, number>();

  add(profile: string | null, n = 1): void {
    const w = wordsOf(profile);
    this.counts.set(w, (this.counts.get(w) ?? 0) + n);
  }

  get total(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c;
    return n;
  }

  /** "4 Harbor trials", "2 bundles and 1 Inspect log", in a fixed order of kinds. */
  phrase(): string {
    return evidencePhrase(ORDER.map((w) => [w, this.counts.get(w) ?? 0] as const));
  }

  /** The kinds of evidence counted (assay's profiles are one: bundles). */
  private present(): string[] {
    return [...new Set(ORDER.filter((w) => (this.counts.get(w) ?? 0) > 0).map((w) => w.evidencePlural))];
  }

  /** More than one kind of evidence counted: a line says which. */
  get mixed(): boolean {
    return this.present().length > 1;
  }

  /** The kinds counted, as a heading says them: "Harbor trials", "bundles and Inspect logs"; one kind counted `n` = 1: "Harbor trial". */
  nouns(n?: number): string {
    const nouns = this.present();
    if (nouns.length === 0) return UNKNOWN.evidencePlural;
    if (n === 1 && nouns.length === 1) return ORDER.find((w) => w.evidencePlural === nouns[0])!.evidence;
    return nouns.length === 1 ? nouns[0]! : `${nouns.slice(0, -1).join(", ")} and ${nouns[nouns.length - 1]}`;
  }
}

/** Codes with their counts, most frequent first, the first 8 and how many more. */
export function byFrequency(counts: ReadonlyMap<string, number>): string {
  const codes = [...counts].sort((a, b) => b[1] - a[1] || byteCompare(a[0], b[0]));
  const more = codes.length > 8 ? ` · … ${codes.length - 8} more codes` : "";
  return `${codes
    .slice(0, 8)
    .map(([c, k]) => `${forTerminal(c)} ${k}`)
    .join(" · ")}${more}`;
}
