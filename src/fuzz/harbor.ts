// The oracle's reading of a Harbor trial (contract §11, revision 2): a valid trial's rewards are
// exactly the top-level rewards of its result.json; its state follows them, its exceptions and its
// verifier; and they are backed — by the reward file Harbor read (reward.json or reward.txt: when
// both exist either may agree) for a single-step trial, by one of Harbor's two aggregations of the
// steps for a multi-step one — unless a custom or disabled verifier made them unverifiable, which
// the entry must say; and a trial whose result.json is unread beside a reward file says so
// (REWARD_WITHOUT_RESULT, issue 35). Written with JSON.parse and plain code, apart from src/kinds/harbor.

import { readJson } from "./json.js";
import type { Tree } from "./tree.js";
import type { ScoredBundle } from "../core/results.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (b: Buffer) => b.toString("utf8");

/** A rewards map as result.json holds it ({} included), or null. */
function rewardsIn(verifier: unknown): Obj | null {
  const r = isObj(verifier) ? verifier["rewards"] : null;
  return isObj(r) ? r : null;
}

/** What one reward file says, read as Harbor reads it, or why it backs nothing. */
function rewardFile(tree: Tree, file: string): Obj | string {
  const n = tree.get(file);
  if (n === undefined) return `no ${file}`;
  if (n.kind !== "file") return `${file} is not a regular file`;
  if (file.endsWith(".json")) {
    try {
      const v: unknown = JSON.parse(text(n.bytes));
      if (!isObj(v)) return `${file} is not an object`;
      // Harbor's model reads "1.0" and true as numbers.
      return Object.fromEntries(
        Object.entries(v).map(([k, x]) => [
          k,
          typeof x === "boolean" ? Number(x) : typeof x === "string" && x.trim() !== "" ? Number(x) : x,
        ]),
      );
    } catch {
      return `${file} does not parse`;
    }
  }
  const t = asFloatText(text(n.bytes)).replace(/(\d)_(?=\d)/g, "$1");
  const v = Number(t);
  // Number() also reads 0x, 0o and 0b literals, which Python's float() refuses.
  return t !== "" && !/^[+-]?0[xob]/i.test(t) && Number.isFinite(v) ? { reward: v } : `${file} holds no finite number`;
}

/**
 * The text CPython's float() parses (Harbor calls it on reward.txt's text as read, no strip()):
 * a non-ASCII character is a space when Python's str.isspace() holds for it, its digit when it is a
 * decimal digit, else nothing a number holds ("?"); then only ASCII white space (" \t\n\v\f\r") is
 * stripped around it. Not JavaScript's trim(): it keeps U+0085 and takes U+FEFF (the fuzzer once put
 * a U+0085 after a reward, which Harbor reads as 1.0), and Number() would take U+FEFF too.
 */
function asFloatText(s: string): string {
  const NON_ASCII_SPACE = [
    0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028,
    0x2029, 0x202f, 0x205f, 0x3000,
  ];
  const isDigit = (c: number) => /\p{Nd}/u.test(String.fromCodePoint(c));
  let out = "";
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c < 0x80) out += ch;
    else if (NON_ASCII_SPACE.includes(c)) out += " ";
    else if (isDigit(c)) {
      // Unicode's decimal digits come in whole blocks of ten, zero first: count back to the block's zero.
      let zero = c;
      while (isDigit(zero - 1)) zero--;
      out += String((c - zero) % 10);
    } else out += "?";
  }
  return out.replace(/^[ \t\n\v\f\r]+/, "").replace(/[ \t\n\v\f\r]+$/, "");
}

/** Same keys, and numerically equal values (Harbor compares floats: -0 is 0). */
function sameRewards(a: Obj | null, b: Obj | null): boolean {
  if (a === null || b === null) return a === b;
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && typeof a[k] === "number" && a[k] === b[k]);
}

/** Harbor's aggregations of the steps' rewards: per-key mean over steps with a verifier result (missing keys 0), and the last step's. */
function aggregations(steps: Obj[]): [Obj | null, Obj | null] {
  const scored = steps.map((s) => rewardsIn(s["verifier_result"])).filter((r): r is Obj => r !== null);
  let mean: Obj | null = null;
  if (scored.length > 0) {
    mean = {};
    for (const k of new Set(scored.flatMap((r) => Object.keys(r))))
      mean[k] =
        scored.reduce((s: number, r) => s + (typeof r[k] === "number" ? (r[k] as number) : 0), 0) / scored.length;
  }
  return [mean, steps.length === 0 ? null : rewardsIn(steps.at(-1)!["verifier_result"])];
}

export function harborCheck(tree: Tree, e: ScoredBundle): string | null {
  if (e.validity !== "valid") return null;
  const result = tree.get("result.json");
  const truncated = e.warnings.some((w) => w.code === "RESULT_TRUNCATED");
  if (result?.kind === "file" && !truncated) {
    const r = readJson(result.bytes, " \n");
    if ("problem" in r) return `valid, but result.json breaks §2: ${r.problem}`;
  }
  // Issue 35: result.json unread (absent, not a file, cut) beside any entry where a verifier leaves
  // its reward file: the entry must say so, for its job counts it 0 rather than leave it out.
  // (A path below verifier/reward.txt/ implies a folder there, which is an entry too.)
  const unread = result?.kind !== "file" || truncated;
  const verified =
    unread && [...tree.keys()].some((p) => /^(?:steps\/[^/]+\/)?verifier\/reward\.(?:txt|json)(?:\/|$)/.test(p));
  if (unread && verified !== e.warnings.some((w) => w.code === "REWARD_WITHOUT_RESULT"))
    return verified
      ? "result.json unread beside a reward file, but no REWARD_WITHOUT_RESULT"
      : "REWARD_WITHOUT_RESULT without a reward file";
  const scored = e.state === "scored" || e.state === "scored-with-exception";
  if (!scored)
    return e.rewards === null || e.state === "unverified"
      ? null
      : `rewards ${JSON.stringify(e.rewards)} in state ${e.state}`;
  if (result?.kind !== "file" || truncated) return `state ${e.state} without a readable result.json`;
  const doc: unknown = JSON.parse(text(result.bytes));
  if (!isObj(doc)) return `state ${e.state}, but result.json is not an object`;
  const steps = Array.isArray(doc["step_results"]) ? doc["step_results"].filter(isObj) : [];
  const claimed = rewardsIn(doc["verifier_result"]);
  if (claimed === null) return `state ${e.state}, but result.json holds no rewards`;
  if (e.rewards === null || !sameRewards(e.rewards, claimed))
    return `rewards ${JSON.stringify(e.rewards)}, but result.json says ${JSON.stringify(claimed)}`;
  const exception = doc["exception_info"] != null || steps.some((s) => s["exception_info"] != null);
  if (exception !== (e.state === "scored-with-exception"))
    return `state ${e.state}, but result.json ${exception ? "holds" : "holds no"} exception`;
  const verifier = isObj(doc["config"]) && isObj(doc["config"]["verifier"]) ? doc["config"]["verifier"] : {};
  if (typeof verifier["import_path"] === "string" && verifier["import_path"] !== "")
    return e.warnings.some((w) => w.code === "REWARD_UNVERIFIED")
      ? null
      : "a custom verifier's rewards, but no REWARD_UNVERIFIED";
  if (steps.length > 0) {
    const [mean, final] = aggregations(steps);
    return sameRewards(claimed, mean) || sameRewards(claimed, final)
      ? null
      : `valid with rewards ${JSON.stringify(claimed)}, but the steps give ${JSON.stringify(mean)} and ${JSON.stringify(final)}`;
  }
  const files = ["verifier/reward.json", "verifier/reward.txt"]
    .filter((f) => tree.has(f))
    .map((f) => rewardFile(tree, f));
  if (files.length === 0) return `valid with rewards ${JSON.stringify(e.rewards)}, but no reward file in verifier/`;
  if (files.some((f) => typeof f !== "string" && sameRewards(claimed, f))) return null;
  const said = files.find((f): f is Obj => typeof f !== "string");
  return said === undefined
    ? `valid with rewards ${JSON.stringify(e.rewards)}, but ${files.join("; ")}`
    : `valid with rewards ${JSON.stringify(claimed)}, but the reward file in verifier/ says ${JSON.stringify(said)}`;
}
