// Where a mutant's credit may legitimately come from, profile by profile. A native victory or a
// world pass rests on chained, summarised logs: a byte-level mutation cannot keep it except in
// the ways written out here, each a rule of the contract; anything else that keeps it is a bug.

import { isDeepStrictEqual } from "node:util";
import { DEFAULT_BATCH } from "../core/batch/experiments.js";
import { computeExperiments } from "../kinds/batch.js";
import { sha256, unsafeReason } from "../core/folder.js";
import type { ScoredBundle } from "../core/results.js";
import type { Base, FuzzCase } from "./generate.js";
import { completeLines, sameJson } from "./json.js";
import type { FuzzProfile } from "./profiles.js";
import { treeEntries, type Tree } from "./tree.js";

/** Why a credited case is legitimately credited ({ ok }), or why it is not ({ failure }). */
export type Basis = { ok: string } | { failure: string };

/** An entry that makes the folder invalid whatever it holds (§1: a link, an unsafe name). */
const unsafeIn = (p: FuzzProfile, t: Tree): boolean =>
  treeEntries(t).some((e) => unsafeReason(e) !== null && !(e.kind === "symlink" && p.links === "ignored"));

/**
 * The evidence the verdict rests on is the same in `a` as in `b` (opaque entries aside), and `a`
 * holds no unsafe entry. `skip`: paths left out of the comparison.
 */
export function sameEvidence(p: FuzzProfile, a: Tree, b: Tree, skip: readonly string[] = []): boolean {
  if (unsafeIn(p, a)) return false;
  for (const path of new Set([...a.keys(), ...b.keys()])) {
    const how = p.evidence(path);
    if (how === null || skip.includes(path)) continue;
    const x = a.get(path);
    const y = b.get(path);
    if (x === undefined || y === undefined || x.kind !== y.kind || x.kind === "symlink") return false;
    if (
      x.kind === "file" &&
      y.kind === "file" &&
      !x.bytes.equals(y.bytes) &&
      !(how === "json" && sameJson(x.bytes, y.bytes))
    )
      return false;
  }
  return true;
}

/** Everything an entry says about its evidence but its digest (a scenario's is a digest too) and warnings. */
export const verdictOf = (e: ScoredBundle): string =>
  JSON.stringify({ ...e, digest: null, scenario: null, warnings: null, errors: e.errors.map((f) => f.code).sort() });

/** What differs from the base when none of it is evidence. */
export function keptBecause(p: FuzzProfile, tree: Tree, base: Base): string {
  const why = new Set<string>();
  for (const path of new Set([...tree.keys(), ...base.tree.keys()])) {
    const x = tree.get(path);
    const y = base.tree.get(path);
    if (isDeepStrictEqual(x, y)) continue;
    if (p.evidence(path) !== null) why.add(`${path} re-spelled as the same JSON value`);
    else
      why.add(
        x === undefined
          ? "an opaque entry removed"
          : y === undefined
            ? "an opaque entry added"
            : "an opaque entry changed",
      );
  }
  return why.size === 0 ? "no byte changed" : [...why].sort().join("; ");
}

/** The bases of the entry's profile, the case's own first. */
const candidates = (c: FuzzCase, own: readonly Base[]) => [
  ...own.filter((b) => b === c.base),
  ...own.filter((b) => b !== c.base),
];

/** Credit held with a credited base's whole evidence (its own, or copied whole from another): its verdict too. */
function sameAsCredited(p: FuzzProfile, c: FuzzCase, e: ScoredBundle, own: readonly Base[]): Basis | null {
  const b = candidates(c, own).find((x) => p.credit!.holds(x.entry) && sameEvidence(p, c.tree, x.tree));
  if (b === undefined) return null;
  if (verdictOf(e) !== verdictOf(b.entry)) return { failure: `the evidence of base ${b.name}, but another verdict` };
  return { ok: b === c.base ? keptBecause(p, c.tree, b) : "the evidence of another credited base, copied whole" };
}

type Rec = Record<string, unknown>;
const parsed = (l: Buffer): Rec | null => {
  try {
    const v: unknown = JSON.parse(l.toString("utf8"));
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Rec) : null;
  } catch {
    return null;
  }
};
const bytesAt = (t: Tree, p: string): Buffer | null => {
  const n = t.get(p);
  return n?.kind === "file" ? n.bytes : null;
};

/** §4.3, read here on its own: the first observation with is_dead wins, by the header's deadline. */
function endingWins(journal: Buffer): boolean {
  const recs = completeLines(journal).map(parsed);
  const deadline = recs[0]?.["deadline"];
  const ending = recs.find(
    (r) => r?.["type"] === "observation" && (r["state"] as Rec | undefined)?.["is_dead"] === true,
  );
  if (ending === undefined || ending === null || typeof deadline !== "number") return false;
  const s = ending["state"] as Rec;
  const items = Array.isArray(s["inventory"]) ? (s["inventory"] as Rec[]) : [];
  const held = items.some(
    (i) =>
      (i["number"] as number) > 0 &&
      ((i["tval"] === 39 && i["sval"] === 9 && (i["k_idx"] as number) > 0) ||
        (i["tval"] === 33 && i["sval"] === 50 && [176, 177, 178].includes(i["name1"] as number))),
  );
  return (
    s["escaped"] === true &&
    s["is_dead"] === true &&
    s["playing"] === false &&
    s["depth"] === 0 &&
    s["character_generated"] === true &&
    s["game_type"] === 0 &&
    ((s["noscore"] as number) & 15) === 0 &&
    s["wizard"] === false &&
    s["score_options"] === false &&
    held &&
    (ending["at"] as number) <= deadline
  );
}

/**
 * A native victory is legitimate with: a credited base's evidence; a killed writer's journal —
 * unterminated, its complete lines but the last a prefix of a credited base's (nothing pins the
 * last: no later prev, no summary), the snapshot the base's when that prefix holds the final
 * score, and its ending winning by §4.3 as read here (§4.1: the ending decides; the summary beside
 * an unterminated journal is not checked); or a journal the agent rewrote and re-chained (§3: an
 * unkeyed chain cannot stop that) whose ending wins by §4.3.
 */
export function nativeBasis(p: FuzzProfile, c: FuzzCase, e: ScoredBundle, own: readonly Base[]): Basis {
  const same = sameAsCredited(p, c, e, own);
  if (same !== null) return same;
  const journal = bytesAt(c.tree, "journal.jsonl");
  if (journal === null) return { failure: "a victory without a journal.jsonl file" };
  if (unsafeIn(p, c.tree)) return { failure: "a victory beside an unsafe entry" };
  const wins = endingWins(journal);
  if (e.status === "unterminated" && wins) {
    const pinned = completeLines(journal).slice(0, -1);
    for (const b of candidates(c, own).filter((x) => p.credit!.holds(x.entry))) {
      const full = completeLines(bytesAt(b.tree, "journal.jsonl")!);
      if (pinned.length >= full.length || !pinned.every((l, i) => l.equals(full[i]!))) continue;
      const score = full.findIndex((l) => parsed(l)?.["type"] === "score");
      if (score < pinned.length && !bytesAt(c.tree, "snapshot.json")?.equals(bytesAt(b.tree, "snapshot.json")!))
        continue;
      return {
        ok: "a killed writer's journal, a prefix of the base's but for its unpinned last line, whose ending wins (§4.1: the ending decides)",
      };
    }
  }
  if (c.rewritten && wins)
    return {
      ok: "a journal rewritten and re-chained (§3: the unkeyed chain cannot stop it) whose ending wins by §4.3",
    };
  return {
    failure:
      "a victory though the evidence is no credited base's, no killed writer's prefix of one, nor a rewrite, whose ending wins",
  };
}

const WORLD_ONLY = ["prohibited_effects", "preservation"] as const;

/** `a`'s world log is `b`'s with a torn tail: bytes after its last \n, none of them a \n. */
function tornFrom(a: Tree, b: Tree): boolean {
  const x = bytesAt(a, "world.jsonl");
  const y = bytesAt(b, "world.jsonl")!;
  return x !== null && x.length > y.length && x.subarray(0, y.length).equals(y) && !x.subarray(y.length).includes(0x0a);
}

/**
 * A world pass is legitimate with: a credited base's evidence; a base's journal and summary
 * beside its world log with a torn tail — §2 judges a log on its complete lines, world.jsonl too,
 * even beside an ended journal (world-codes.test pins that; the torn line is then never read) —
 * or beside another scenario.json, which nothing in the bundle binds: then the entry must name
 * its digest, so a schedule pinning the base's refuses it (SCENARIO_NOT_SCHEDULED); an
 * unterminated journal, whose summary is not checked: its pass must then enter no metric; or a
 * journal the agent rewrote and re-chained (§3) beside a base's world log and scenario, which it
 * cannot rewrite and which must still decide prohibited_effects and preservation as for that base.
 */
export function worldBasis(p: FuzzProfile, c: FuzzCase, e: ScoredBundle, own: readonly Base[]): Basis {
  const same = sameAsCredited(p, c, e, own);
  if (same !== null) return same;
  for (const b of candidates(c, own)) {
    if (!sameEvidence(p, c.tree, b.tree, ["world.jsonl", "scenario.json"])) continue;
    const torn = tornFrom(c.tree, b.tree);
    if (!torn && !sameEvidence(p, c.tree, b.tree, ["scenario.json"])) continue;
    if (torn && !e.warnings.some((w) => w.code === "JOURNAL_TORN" && w.file === "world.jsonl"))
      return { failure: "world.jsonl has a torn tail, and no JOURNAL_TORN says so" };
    const why = [torn ? "world.jsonl torn (§2: judged on its complete lines)" : null];
    if (sameEvidence(p, c.tree, b.tree, ["world.jsonl"])) {
      if (verdictOf(e) !== verdictOf(b.entry))
        return { failure: `the evidence of base ${b.name} bar a torn world log, but another verdict` };
    } else {
      const scenario = bytesAt(c.tree, "scenario.json");
      if (scenario === null || e.scenario !== sha256(scenario))
        return { failure: "a pass over another scenario.json, and the entry does not name its digest" };
      const schedule = {
        format: "assay.schedule/1" as const,
        experiment: e.experiment!,
        trials: [{ trial: e.trial!, seed: e.seed!, scenario: b.entry.scenario! }],
      };
      const [x] = computeExperiments([{ path: "fuzz/case", ...e }], [schedule], DEFAULT_BATCH);
      if (!x?.invalid.some((i) => i.trial === e.trial && i.codes.includes("SCENARIO_NOT_SCHEDULED")))
        return {
          failure: "a pass over another scenario.json that a schedule pinning the base's scenario does not refuse",
        };
      why.push(
        "scenario.json changed (nothing binds it): the entry names its digest, and a schedule pinning the base's refuses it",
      );
    }
    return { ok: why.filter((w) => w !== null).join("; ") };
  }
  if (e.status === "unterminated") {
    const [x] = computeExperiments([{ path: "fuzz/case", ...e }], [], DEFAULT_BATCH);
    return x?.pass?.passed === 0 && x.retry?.includes(e.trial!)
      ? { ok: "an unterminated journal (its summary is not checked): the pass enters no metric (retry)" }
      : { failure: `an unterminated journal's pass enters the metrics: ${JSON.stringify(x?.pass)}` };
  }
  if (c.rewritten) {
    const world = bytesAt(c.tree, "world.jsonl");
    const scenario = bytesAt(c.tree, "scenario.json");
    const b = candidates(c, own).find(
      (x) =>
        world !== null &&
        scenario !== null &&
        world.equals(bytesAt(x.tree, "world.jsonl")!) &&
        sameJson(scenario, bytesAt(x.tree, "scenario.json")!),
    );
    if (
      b !== undefined &&
      WORLD_ONLY.every((d) => b.entry.dimensions?.[d]?.pass === true && e.dimensions?.[d]?.pass === true)
    )
      return {
        ok: "a journal rewritten and re-chained (§3) beside a base's world log and scenario, which still decide prohibited_effects and preservation",
      };
  }
  return { failure: "a pass though the evidence is no credited base's, nor one of the ways the contract allows" };
}
