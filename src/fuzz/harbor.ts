// The oracle's reading of a Harbor trial (contract §11, as the code implements it today): a valid
// trial's rewards are exactly what its result.json says — at the top level, else the last step
// that has some — and what the reward file Harbor read there says; its state follows them and
// its exceptions. Written with JSON.parse and plain code, apart from src/core/harbor.

import { readJson } from "./json.js";
import type { Tree } from "./tree.js";
import type { ScoredBundle } from "../core/results.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (b: Buffer) => b.toString("utf8");

/** A rewards map as result.json holds it, when it holds a non-empty one. */
function rewardsIn(verifier: unknown): Obj | null {
  const r = isObj(verifier) ? verifier["rewards"] : null;
  return isObj(r) && Object.keys(r).length > 0 ? r : null;
}

/** What the reward file Harbor reads in `dir` says (reward.json first, else reward.txt), or why not. */
function rewardFile(tree: Tree, dir: string): Obj | string {
  const json = tree.get(`${dir}reward.json`);
  const txt = tree.get(`${dir}reward.txt`);
  const n = json ?? txt;
  if (n === undefined) return `no reward file in ${dir || "the trial"}`;
  if (n.kind !== "file") return `${dir}reward.${json ? "json" : "txt"} is not a regular file`;
  if (json !== undefined) {
    try {
      const v: unknown = JSON.parse(text(n.bytes));
      return isObj(v) ? v : `${dir}reward.json is not an object`;
    } catch {
      return `${dir}reward.json does not parse`;
    }
  }
  const t = text(n.bytes).trim();
  const v = Number(t);
  return t !== "" && Number.isFinite(v) ? { reward: v } : `${dir}reward.txt holds no finite number`;
}

/** Same keys, and numerically equal values (Harbor compares floats: -0 is 0). */
function sameRewards(a: Obj, b: Obj): boolean {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && typeof a[k] === "number" && a[k] === b[k]);
}

export function harborCheck(tree: Tree, e: ScoredBundle): string | null {
  if (e.validity !== "valid") return null;
  const result = tree.get("result.json");
  const truncated = e.warnings.some((w) => w.code === "RESULT_TRUNCATED");
  if (result?.kind === "file" && !truncated) {
    const r = readJson(result.bytes, " \n");
    if ("problem" in r) return `valid, but result.json breaks §2: ${r.problem}`;
  }
  const scored = e.state === "scored" || e.state === "scored-with-exception";
  if (!scored) return e.rewards === null ? null : `rewards ${JSON.stringify(e.rewards)} in state ${e.state}`;
  if (result?.kind !== "file" || truncated) return `state ${e.state} without a readable result.json`;
  const doc: unknown = JSON.parse(text(result.bytes));
  if (!isObj(doc)) return `state ${e.state}, but result.json is not an object`;
  const steps = Array.isArray(doc["step_results"]) ? doc["step_results"].filter(isObj) : [];
  // Where the rewards come from: the top level, else the last step that has some (the code's rule).
  const top = rewardsIn(doc["verifier_result"]);
  const step = top === null ? [...steps].reverse().find((s) => rewardsIn(s["verifier_result"]) !== null) : undefined;
  const claimed = top ?? (step === undefined ? null : rewardsIn(step["verifier_result"]));
  if (claimed === null) return `state ${e.state}, but result.json holds no rewards`;
  if (e.rewards === null || !sameRewards(e.rewards, claimed)) return `rewards ${JSON.stringify(e.rewards)}, but result.json says ${JSON.stringify(claimed)}`;
  const exception = doc["exception_info"] != null || steps.some((s) => s["exception_info"] != null);
  if (exception !== (e.state === "scored-with-exception")) return `state ${e.state}, but result.json ${exception ? "holds" : "holds no"} exception`;
  const dir = top !== null ? "verifier/" : `steps/${String(step!["step_name"])}/verifier/`;
  const file = rewardFile(tree, dir);
  if (typeof file === "string") return `valid with rewards ${JSON.stringify(e.rewards)}, but ${file}`;
  return sameRewards(claimed, file) ? null : `valid with rewards ${JSON.stringify(claimed)}, but the reward file in ${dir} says ${JSON.stringify(file)}`;
}
