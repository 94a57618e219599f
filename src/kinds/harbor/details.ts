// Rewardkit's reward-details.json (contract §11; research §D.3): written beside reward.json by
// Rewardkit (harbor-rewardkit, runner.py:333-355), never by Harbor's verifier, which only shows
// it. `{<reward name>: Detail | Detail[]}` (a list when several reward folders share a name), a
// Detail `{score, criteria: [{name, value, error?, …}], kind, warnings?}`. A single Detail's score
// is the very number Rewardkit wrote to reward.json under that name; the aggregation mode is not
// recorded, so a score cannot be re-derived from its criteria. It never replaces a reward: it is
// shown beside it, a score that differs is REWARD_DETAILS_MISMATCH and a criterion that recorded
// an error is GRADER_ERROR (review flags), and a malformed file is a warning. Pure.

import { finding, type Finding } from "../../core/codes.js";
import { decodeDocument, isPlainObject } from "../../core/json/decode.js";
import type { BundleEntry } from "../../core/results.js";
import { redact } from "../../core/redact.js";
import { finiteNumber } from "../../core/schema.js";
import { clip, fieldKey, shorten } from "../../core/text.js";
import type { ReviewFlag } from "./flags.js";
import type { RewardMap } from "./result.js";

export const REWARD_DETAILS = "reward-details.json";
/** Reward entries kept in the entry, and criteria errors quoted in a flag: the rest are counted. */
const MAX_LISTED = 20;
const MAX_QUOTED = 3;

type Details = NonNullable<BundleEntry["reward_details"]>;
type Item = Details["rewards"][number];

/**
 * One reward-details.json against the rewards result.json claims for its folder (`claimed`, null
 * when it claims none): its items for the entry (appended to `into`), flags, and a warning when
 * it cannot be read.
 */
export function readRewardDetails(
  file: string,
  bytes: Uint8Array,
  claimed: RewardMap | null,
  into: Details,
  flags: ReviewFlag[],
  warnings: Finding[],
): void {
  const problems: Finding[] = [];
  const doc = decodeDocument(bytes, file, problems);
  const unreadable = (why: string) =>
    warnings.push(
      finding(
        "REWARD_DETAILS_UNREADABLE",
        file,
        null,
        `${why}: not read (the reward stands as its reward file gives it)`,
      ),
    );
  if (doc === undefined) return void unreadable(`${problems[0]!.code}: ${problems[0]!.message}`);
  if (!isPlainObject(doc)) return void unreadable("expected an object of reward names");
  const errors: string[] = [];
  let errorCount = 0;
  for (const [name, value] of Object.entries(doc)) {
    const details = Array.isArray(value) ? value : [value];
    if (!details.every(isPlainObject)) {
      unreadable(`${fieldKey(name)}: expected a detail object or a list of them`);
      continue;
    }
    for (const d of details) {
      const criteria = Array.isArray(d["criteria"]) ? d["criteria"].filter(isPlainObject) : [];
      const failed = criteria.filter((c) => c["error"] !== undefined && c["error"] !== null && c["error"] !== "");
      errorCount += failed.length;
      for (const c of failed.slice(0, Math.max(0, MAX_QUOTED - errors.length)))
        errors.push(
          `${fieldKey(name)}/${typeof c["name"] === "string" ? shorten(c["name"]) : "?"}: ${clip(redact(firstLine(c["error"])), 200)}`,
        );
      const score = numberOf(d["score"]);
      const item: Item = {
        file,
        name: shorten(name, 200),
        score,
        kind: typeof d["kind"] === "string" ? shorten(d["kind"], 40) : null,
        criteria: criteria.length,
        errors: failed.length,
        warnings: Array.isArray(d["warnings"]) ? d["warnings"].length : 0,
      };
      if (into.rewards.length < MAX_LISTED) into.rewards.push(item);
      else into.more++;
    }
    // Only a single detail's score is the reward itself; a list's entries share one name in reward.json.
    const reward = claimed !== null && Object.hasOwn(claimed, name) ? claimed[name] : undefined;
    const score = details.length === 1 ? numberOf(details[0]!["score"]) : null;
    if (typeof reward === "number" && score !== null && !sameScore(score, reward))
      flags.push({
        code: "REWARD_DETAILS_MISMATCH",
        evidence: `${file}: ${fieldKey(name)} scores ${score}, but the reward Harbor recorded is ${reward}`,
      });
  }
  if (errorCount > 0)
    flags.push({
      code: "GRADER_ERROR",
      evidence: `${file}: ${errorCount} criteri${errorCount === 1 ? "on" : "a"} recorded an error (the grader failed, not the agent): ${errors.join("; ")}${errorCount > errors.length ? "; …" : ""}`,
    });
}

/** A finite number as the strict reader gives it (`1.0` arrives boxed), else null. */
const numberOf = (v: unknown): number | null => {
  const n = finiteNumber.safeParse(v);
  return n.success && Number.isFinite(n.data) ? n.data : null;
};

/** Rewardkit rounds what it writes to reward.json to 4 places (runner.py:346-355); the detail keeps the same rounded number. */
const sameScore = (a: number, b: number) => Math.abs(a - b) <= 5e-5 + 1e-9 * Math.max(1, Math.abs(a));

const firstLine = (v: unknown): string =>
  (typeof v === "string" ? v : (JSON.stringify(v) ?? "")).split(/\r\n|\r|\n/, 1)[0] ?? "";
