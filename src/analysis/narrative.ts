// Job narratives (`assay narrate`): the counts and metrics are copied from the results document,
// never generated; the model writes prose around them under a schema (an overview, themes citing
// trial ids). Every cited trial must exist in the results: a reply citing an unknown one is asked
// again once, with the unknown ids named, then the narrative is an error. Inputs are ordered
// deterministically, so the same results give the same request and hit the cache.

import { z } from "zod";
import type { BundleEntry, Results } from "../core/results.js";
import { coverageCount } from "../core/results.js";
import { Methods, type WithInterval } from "../report/intervals.js";
import { TRIALS } from "../kinds/words.js";
import { wordsOf } from "../report/vocabulary.js";
import { byteCompare, forTerminal, printable, shorten, terminalText } from "../core/text.js";
import type { Backend, ModelRequest } from "./backend.js";
import { requestDigest } from "./backend.js";
import { AnalysisCache, cacheKey, provenanceOf, type Provenance } from "./cache.js";
import { buildPack } from "../kinds/pack.js";
import { costOf, type Price } from "./prices.js";
import type { Template } from "./prompt.js";

export const NARRATIVE_FORMAT = "assay.narrative/1";
const MAX_TRIALS = 400;
export const MAX_TOKENS = 8192;

export const proseSchema = z.strictObject({
  overview: z.string().min(1).max(4000),
  themes: z
    .array(
      z.strictObject({
        title: z.string().min(1).max(200),
        text: z.string().min(1).max(3000),
        trials: z.array(z.string()).min(1).max(50),
      }),
    )
    .max(8),
});
export type Prose = z.infer<typeof proseSchema>;

/** A trial as the narrative names it. */
export const trialId = (b: BundleEntry): string => `${b.experiment ?? "-"}/${b.trial ?? b.path}`;

export interface Narrative {
  format: typeof NARRATIVE_FORMAT;
  /** SHA-256 of the results document narrated. */
  source: string;
  status: "written" | "error" | "not-written";
  reason: string | null;
  model: string;
  cached: boolean;
  /** Copied from the results document, never generated. */
  facts: {
    bundles: { total: number; valid: number; invalid: number; error: number };
    experiments: Results["experiments"];
    /** Trials with no advisory analysis, and why. */
    unanalysed: { trial: string; reason: string }[];
  };
  prose: Prose | null;
  provenance: Provenance | null;
}

/** A trial with no analysis, and why. */
type Unanalysed = Narrative["facts"]["unanalysed"][number];
const byTrial = (x: Unanalysed, y: Unanalysed) => byteCompare(x.trial, y.trial) || byteCompare(x.reason, y.reason);

/** What a narrative is made of, gathered from a results document read an entry at a time. */
export interface NarrativeInput {
  /** SHA-256 of the document's bytes. */
  source: string;
  facts: Narrative["facts"];
  /** One line per bundle entry, the first MAX_TRIALS by trial id and path, and how many more there were. */
  notes: string;
  /** Every trial id in the document: what a citation must name. */
  ids: ReadonlySet<string>;
}

/**
 * Gathers a NarrativeInput entry by entry, so a document of a million entries is never held: it
 * keeps the counts, each trial id once, a short record per trial without an analysis (reasons
 * shared), and only the first MAX_TRIALS notes by (id, path). Everything is ordered by value, never
 * by where it stood in the document, so the same entries in any order give the same request.
 */
export class NarrativeGatherer {
  private readonly counts = { total: 0, valid: 0, invalid: 0, error: 0 };
  private readonly experiments: Results["experiments"] = [];
  private readonly unanalysed: Unanalysed[] = [];
  private readonly reasons = new Map<string, string>();
  private readonly ids = new Set<string>();
  /** [trial id, path, line]: attempts of one trial in path order, as score writes them (so cached requests still match). */
  private readonly notes = new FirstBy<[string, string, string]>(
    MAX_TRIALS,
    (x, y) => byteCompare(x[0], y[0]) || byteCompare(x[1], y[1]),
  );

  entry(b: BundleEntry): void {
    const id = trialId(b);
    this.ids.add(id);
    this.counts.total++;
    this.counts[b.validity]++;
    const a = b.advisory;
    if (a === null || a.status !== "analysed" || Object.values(a.outcomes).every((o) => o.outcome === "error")) {
      const why = a === null ? "no analysis was run (assay analyze adds one)" : (a.reason ?? "not analysed");
      let reason = this.reasons.get(why);
      if (reason === undefined) this.reasons.set(why, (reason = why));
      this.unanalysed.push({ trial: id, reason });
    }
    this.notes.offer([id, b.path, noteOf(id, b)]);
  }

  experiment(x: Results["experiments"][number]): void {
    this.experiments.push(x);
  }

  finish(source: string): NarrativeInput {
    const { total, ...rest } = this.counts;
    const lines = this.notes.sorted().map(([, , line]) => line);
    const more = total - lines.length;
    return {
      source,
      facts: { bundles: { total, ...rest }, experiments: this.experiments, unanalysed: this.unanalysed.sort(byTrial) },
      notes: more > 0 ? `${lines.join("\n")}\n[… ${more} more trials not listed …]` : lines.join("\n"),
      ids: this.ids,
    };
  }
}

/** The `size` least items offered, by `cmp`: a bounded selection, kept sorted. */
class FirstBy<T> {
  private readonly items: T[] = [];
  constructor(
    private readonly size: number,
    private readonly cmp: (a: T, b: T) => number,
  ) {}

  offer(item: T): void {
    const { items, cmp } = this;
    if (items.length === this.size && cmp(item, items[items.length - 1]!) >= 0) return;
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cmp(items[mid]!, item) <= 0) lo = mid + 1;
      else hi = mid;
    }
    items.splice(lo, 0, item);
    if (items.length > this.size) items.pop();
  }

  sorted(): readonly T[] {
    return this.items;
  }
}

/** A trial's line: its hard result and, when analysed, what failed and the summary. */
function noteOf(id: string, b: BundleEntry): string {
  const hard = [
    b.validity,
    b.state,
    b.victory === null ? null : b.victory ? "victory" : "no victory",
    b.pass === null ? null : b.pass ? "pass" : "fail",
  ]
    .filter(Boolean)
    .join(", ");
  const flags = b.flags.map((f) => f.code).join(" ");
  const a = b.advisory;
  const judged =
    a?.status === "analysed"
      ? Object.entries(a.outcomes)
          .filter(([, o]) => o.outcome !== "pass")
          .map(([k, o]) => `${k}=${o.outcome}`)
          .join(" ")
      : "";
  return `${id}: ${hard}${flags ? `; flags ${flags}` : ""}${judged ? `; analysis ${judged}` : ""}${a?.summary ? `; "${shorten(a.summary.replace(/\s+/g, " "), 300)}"` : ""}`;
}

export interface NarrateOptions {
  cache: AnalysisCache;
  backend: Backend | null;
  model: string;
  template: Template;
  prices?: ReadonlyMap<string, Price>;
}

export async function narrate(input: NarrativeInput, o: NarrateOptions): Promise<Narrative> {
  const { facts, ids } = input;
  const base = { format: NARRATIVE_FORMAT, source: input.source, model: o.model, facts } as const;
  // The model sees the metrics and the size of each list, not the lists (names are in the notes, delimited).
  const order = (e: Results["experiments"][number]) => `${e.experiment ?? "\uffff"}\u0000${e.profile ?? ""}`;
  const experiments = [...facts.experiments]
    .sort((x, y) => byteCompare(order(x), order(y)))
    .map((e) => ({
      ...e,
      invalid: e.invalid.length,
      missing: e.missing.reduce((n, m) => n + (typeof m === "string" ? 1 : m.count), 0),
      excluded: e.excluded.length,
      unscored: e.unscored.length,
      flags: e.flags.length,
      raw_record: e.raw_record === null ? null : { mean: e.raw_record.mean, trials: e.raw_record.values.length },
      retry: e.retry === null ? null : e.retry.length,
    }));
  const factsText = JSON.stringify(
    { bundles: facts.bundles, experiments, unanalysed: facts.unanalysed.length },
    null,
    1,
  );
  const pack = buildPack([
    {
      name: `per-trial notes (${ids.size} trials; cite them by the id before the colon)`,
      text: input.notes,
      cap: 120_000,
    },
  ]);
  const user = o.template.user.replace(/\{\{(analysis|criteria|evidence)\}\}/g, (_, k: string) =>
    k === "analysis" ? "job narrative" : k === "criteria" ? factsText : pack.text,
  );
  const schema = z.toJSONSchema(proseSchema) as Record<string, unknown>;
  delete schema["$schema"];
  const req: ModelRequest = { model: o.model, system: o.template.system, user, schema, maxTokens: MAX_TOKENS };
  const key = cacheKey({
    request: requestDigest(req),
    evidence: pack.digest,
    rubric: "narrative",
    prompt: o.template.digest,
    model: o.model,
    sampling: { max_tokens: MAX_TOKENS },
    repeat: 0,
  });
  const valid = proseSchema.refine(
    (p) => p.themes.every((t) => t.trials.every((id) => ids.has(id))),
    "cites a trial that is not in the results",
  );
  const hit = o.cache.lookup(key, valid);
  if (hit !== null)
    return { ...base, status: "written", reason: null, cached: true, prose: hit.answer, provenance: hit.provenance };
  if (o.backend === null)
    return {
      ...base,
      status: "not-written",
      reason: "not in cache (offline: no model is asked)",
      cached: false,
      prose: null,
      provenance: null,
    };

  const error = (why: string): Narrative => ({
    ...base,
    status: "error",
    reason: why,
    cached: false,
    prose: null,
    provenance: null,
  });
  let request = req;
  for (let attempt = 0; attempt < 2; attempt++) {
    let reply;
    try {
      reply = await o.backend.ask(request);
    } catch (e) {
      return error(`the model request failed: ${(e as Error).message}`);
    }
    const prose = proseSchema.safeParse(reply.input);
    if (!prose.success)
      return error(
        reply.input === null
          ? "the model answered without the required tool call"
          : `the reply failed validation: ${prose.error.issues[0]?.message}`,
      );
    const unknown = [...new Set(prose.data.themes.flatMap((t) => t.trials).filter((id) => !ids.has(id)))].sort(
      byteCompare,
    );
    if (unknown.length === 0) {
      const provenance = provenanceOf(
        reply,
        o.backend.endpoint,
        costOf(o.model, reply.inputTokens, reply.outputTokens, o.prices),
      );
      try {
        o.cache.store(key, "narrative", o.model, prose.data, provenance); // under the first request's key: a rerun hits it
      } catch {
        // a cache that refuses a write costs a later rerun, not this narrative
      }
      return { ...base, status: "written", reason: null, cached: false, prose: prose.data, provenance };
    }
    if (attempt === 1)
      return error(
        `the reply cited trials that are not in the results, twice: ${unknown
          .slice(0, 10)
          .map((id) => JSON.stringify(shorten(id, 80)))
          .join(", ")}`,
      );
    request = {
      ...req,
      user: `${req.user}\n\nYour previous reply cited trial ids that are not in the results: ${unknown
        .slice(0, 20)
        .map((id) => JSON.stringify(shorten(id, 80)))
        .join(", ")}. Cite only ids from the list.`,
    };
  }
  return error("unreachable");
}

/** Markdown: the facts first (copied), then the prose, then what was not analysed; names from evidence escaped for a terminal. */
export function narrativeMarkdown(n: Narrative): string {
  const out: string[] = ["# Job narrative", ""];
  const b = n.facts.bundles;
  out.push(
    `${b.total} bundles and trials: ${b.valid} valid, ${b.invalid} invalid, ${b.error} tool errors (counts from the results document).`,
    "",
  );
  // Every figure with an interval says what it is over, and the methods are named once, below.
  const methods = new Methods(TRIALS);
  const within = (m: WithInterval) => {
    const t = methods.text(m, (x) => x.toFixed(3), { reason: terminalText });
    return t === "" ? "" : ` (${t})`;
  };
  for (const e of n.facts.experiments) {
    const metrics: string[] = [];
    if (e.accuracy) metrics.push(`accuracy ${e.accuracy.victories}/${e.accuracy.scored}${within(e.accuracy)}`);
    if (e.pass) metrics.push(`pass ${e.pass.passed}/${e.pass.total}${within(e.pass)}`);
    if (e.states)
      metrics.push(
        Object.entries(e.states)
          .map(([k, v]) => `${k} ${v}`)
          .join(", "),
      );
    for (const [k, r] of Object.entries(e.rewards ?? {}))
      metrics.push(`${forTerminal(k)}: mean ${r.mean ?? "n/a"}${within(r)}, coverage ${coverageCount(r)}`);
    out.push(
      `- **${e.experiment === null ? wordsOf(e.profile).unnamed : forTerminal(e.experiment)}** (${e.profile ?? "unknown"}): ${metrics.join("; ")}; ${e.invalid.length} invalid`,
    );
  }
  const legend = methods.legend();
  if (legend !== null) out.push("", `_${legend}._`);
  out.push("");
  // The model's text is quoted, so nothing in it can pass for a heading or a fact of this page.
  const quote = (text: string) =>
    printable(text.replace(/\r\n?/g, "\n"))
      .split("\n")
      .map((l) => `> ${l}`)
      .join("\n");
  if (n.prose) {
    out.push("## Overview (the model's prose)", "", quote(n.prose.overview), "");
    for (const t of n.prose.themes)
      out.push(
        `### ${printable(t.title).replace(/[#*_`[\]]/g, "")}`,
        "",
        quote(t.text),
        "",
        `Trials: ${t.trials.map(forTerminal).join(", ")}`,
        "",
      );
  } else out.push(`_No narrative prose: ${printable(shorten(n.reason ?? "", 500))}._`, "");
  if (n.facts.unanalysed.length > 0) {
    out.push("## Trials without an analysis", "");
    for (const u of n.facts.unanalysed.slice(0, 200)) out.push(`- ${forTerminal(u.trial)}: ${terminalText(u.reason)}`);
    if (n.facts.unanalysed.length > 200) out.push(`- … ${n.facts.unanalysed.length - 200} more`);
    out.push("");
  }
  out.push(
    `_The counts and metrics in the first section are copied from the results document; the quoted prose is ${n.model}'s${n.cached ? " (from the cache)" : ""} and may be wrong — where it disagrees with a number, the number is right._`,
  );
  return out.join("\n") + "\n";
}
