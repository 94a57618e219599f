// The table of bases: each evidence profile assay scores, with its valid bases (from src/synth),
// its scorer, what of a folder is evidence, the credit only its exact evidence earns, and the
// checks of its own rules. Fuzzing another profile (Inspect logs, once assay reads them) is one
// more entry here.

import { scoreBundle } from "../kinds/bundle/score.js";
import { scoreTrial } from "../kinds/harbor/trial.js";
import type { BundleSource } from "../core/folder.js";
import type { Profile, ScoredBundle } from "../core/results.js";
import { synthHarborTrial, type HarborCase } from "../synth/harbor.js";
import { NATIVE_OUTCOMES, synthNative, type NativeOutcome } from "../synth/native.js";
import { synthWorld, WORLD_EXPECT, WORLD_SCENARIOS } from "../synth/world.js";
import { nativeBasis, worldBasis, type Basis } from "./credit.js";
import type { Base, FuzzCase } from "./generate.js";
import { harborCheck } from "./harbor.js";
import { jsonlProblem, readJson } from "./json.js";
import { file, treeOf, type Tree } from "./tree.js";

export interface BaseSpec {
  name: string;
  tree: Tree;
  /** How often cases start from this base, relative to the profile's other bases. */
  weight: number;
}

/** How a folder of this profile is found: an assay bundle, or a trial inside a Harbor job folder. */
export type Layout = "bundle" | "harbor-trial";

export interface FuzzProfile {
  name: Profile;
  /** Cases drawn from this profile, relative to the others. */
  weight: number;
  bases(): BaseSpec[];
  score(src: BundleSource): ScoredBundle;
  /** How a path's content decides the verdict: byte for byte, as a §2 JSON value, or not at all (null: opaque). */
  evidence(path: string): "bytes" | "json" | null;
  /** Symbolic links: "unsafe" — any makes the folder invalid (assay bundles, §1); "ignored" (Harbor, §11). */
  links: "unsafe" | "ignored";
  /**
   * Credit that rests on the evidence as a whole (a native victory, a world pass): when an entry
   * of this profile holds it, `basis` says why the case's folder legitimately earns it, or why not
   * (credit.ts); `own` are this profile's bases. Absent when the credit follows the profile's
   * files wherever they say (Harbor: `check` judges it).
   */
  credit?: {
    holds(e: ScoredBundle): boolean;
    basis(p: FuzzProfile, c: FuzzCase, e: ScoredBundle, own: readonly Base[]): Basis;
  };
  /** The profile's own rules for one scored case: why it fails, or null. */
  check(tree: Tree, e: ScoredBundle): string | null;
  layout: Layout;
  /** Names an added entry may take: none makes discovery find a second bundle inside the case. */
  extraNames: readonly string[];
}

const SEED = "00112233445566778899aabbccddeeff";
const COMMON_EXTRAS = [
  "notes.txt",
  "agent/log.txt",
  ".DS_Store",
  "deep/a/b/c.bin",
  "name\twith tab",
  "name\nwith newline",
  "ümlaut.txt",
  "seal.json",
  "x.json",
];

/** A §2 problem in a file the scorer must have read for a valid entry, or null. */
function lint(tree: Tree, path: string, as: "jsonl" | "json"): string | null {
  const n = tree.get(path);
  if (n?.kind !== "file") return `valid, but ${path} is not a regular file`;
  const problem =
    as === "jsonl" ? jsonlProblem(n.bytes) : ((r) => ("problem" in r ? r.problem : null))(readJson(n.bytes, " \n"));
  return problem === null ? null : `valid, but ${path} breaks §2: ${problem}`;
}

/**
 * What a valid assay bundle's scorer read obeys §2, by the profile its header names (a mutant may
 * carry another profile's journal): the journal; a native summary of an ended journal and the
 * snapshot of a final score; a world log, scenario, and the summary of an ended journal.
 */
function bundleCheck(tree: Tree, e: ScoredBundle): string | null {
  if (e.validity !== "valid") return null;
  const ended = e.status !== "unterminated";
  const read: [string, "jsonl" | "json", boolean][] =
    e.profile === "world"
      ? [
          ["journal.jsonl", "jsonl", true],
          ["world.jsonl", "jsonl", true],
          ["scenario.json", "json", true],
          ["summary.json", "json", ended],
        ]
      : [
          ["journal.jsonl", "jsonl", true],
          ["summary.json", "json", ended],
          ["snapshot.json", "json", e.final_score === true],
        ];
  for (const [path, as, wanted] of read) {
    const why = wanted ? lint(tree, path, as) : null;
    if (why !== null) return why;
  }
  return null;
}

const native: FuzzProfile = {
  name: "native-game",
  weight: 45,
  bases() {
    const one = (
      outcome: NativeOutcome,
      weight: number,
      o: { events?: number; task?: string; trial?: string } = {},
    ): BaseSpec => ({
      name: `native:${o.trial ?? outcome}`,
      tree: treeOf(
        synthNative({
          experiment: "fuzz",
          trial: o.trial ?? outcome,
          attempt: 1,
          seed: SEED,
          outcome,
          events: o.events ?? 4,
          task: o.task,
        }),
      ),
      weight,
    });
    const withNotes = one("victory", 4, { trial: "victory-notes", events: 3 });
    withNotes.tree.set("agent/transcript.txt", file("turn 1: hjkl\nturn 2: escape\n"));
    return [
      ...NATIVE_OUTCOMES.map((o) => one(o, o === "victory" ? 6 : 1)),
      one("victory", 4, { trial: "victory-short", events: 1, task: "fuzz-task" }),
      one("victory", 3, { trial: "victory-long", events: 12 }),
      withNotes,
    ];
  },
  score: (src) => scoreBundle(src),
  evidence: (p) => (p === "journal.jsonl" || p === "snapshot.json" ? "bytes" : p === "summary.json" ? "json" : null),
  links: "unsafe",
  credit: { holds: (e) => e.victory === true, basis: nativeBasis },
  check: bundleCheck,
  layout: "bundle",
  extraNames: [...COMMON_EXTRAS, "snapshot.json", "summary.json", "world.jsonl", "scenario.json", "journal.jsonl.1"],
};

const world: FuzzProfile = {
  name: "world",
  weight: 30,
  bases() {
    const bases = WORLD_SCENARIOS.map((scenario): BaseSpec => ({
      name: `world:${scenario}`,
      tree: treeOf(
        synthWorld({ experiment: "fuzz-world", trial: scenario, attempt: 1, seed: SEED, scenario, task: scenario }),
      ),
      weight: WORLD_EXPECT[scenario].pass ? 2 : 1,
    }));
    const clean = treeOf(
      synthWorld({ experiment: "fuzz-world", trial: "clean-notes", attempt: 1, seed: SEED, scenario: "clean" }),
    );
    clean.set("transcript.md", file("# run\nfiled the review request\n"));
    return [...bases, { name: "world:clean-notes", tree: clean, weight: 3 }];
  },
  score: (src) => scoreBundle(src),
  evidence: (p) =>
    p === "journal.jsonl" || p === "world.jsonl"
      ? "bytes"
      : p === "summary.json" || p === "scenario.json"
        ? "json"
        : null,
  links: "unsafe",
  credit: { holds: (e) => e.pass === true, basis: worldBasis },
  check: bundleCheck,
  layout: "bundle",
  extraNames: [...COMMON_EXTRAS, "snapshot.json", "summary.json", "world.jsonl.1"],
};

// config.json: its task.path is the task_path of a trial whose result.json names none (issue 35).
const HARBOR_EVIDENCE =
  /^(?:result\.json|config\.json|(?:steps\/[^/]+\/)?verifier\/reward\.(?:json|txt)|(?:steps\/[^/]+\/)?agent\/trajectory\.json)$/;

const harbor: FuzzProfile = {
  name: "harbor",
  weight: 25,
  bases() {
    const one = (c: HarborCase, weight: number, task = "task-0"): BaseSpec => ({
      name: `harbor:${c}`,
      tree: treeOf(synthHarborTrial({ job: "fuzz-job", trial: `${task}__${c}`, task, case: c, offset: 0 })),
      weight,
    });
    const cases: [HarborCase, number][] = [
      ["pass", 4],
      ["fail", 3],
      ["timeout-with-reward", 2],
      ["infrastructure-error", 1],
      ["step-failed", 2],
      ["truncated-result", 1],
      ["no-result", 1],
      ["writes-reward-file", 1],
    ];
    // Rewards in reward.json (Harbor reads it first), with a second key.
    const multi = one("pass", 3, "task-1");
    multi.name = "harbor:reward-json";
    multi.tree.delete("verifier/reward.txt");
    multi.tree.set("verifier/reward.json", file('{"reward": 1.0, "partial": 0.5}\n'));
    const result = multi.tree.get("result.json")!;
    if (result.kind === "file")
      multi.tree.set(
        "result.json",
        file(result.bytes.toString().replace(/"reward": 1\b/, '"reward": 1.0,\n            "partial": 0.5')),
      );
    return [...cases.map(([c, w]) => one(c, w)), multi];
  },
  score: (src) => scoreTrial(src),
  evidence: (p) => (!HARBOR_EVIDENCE.test(p) ? null : /(?:^result|^config|reward)\.json$/.test(p) ? "json" : "bytes"),
  links: "ignored",
  check: harborCheck,
  layout: "harbor-trial",
  extraNames: [
    ...COMMON_EXTRAS,
    "verifier/reward.json",
    "verifier/reward.txt",
    "steps/solve/verifier/reward.txt",
    "exception.txt",
    "agent/trajectory.json",
    "result.json",
  ],
};

/** Every profile the fuzzer knows, with its share of cases. */
export const PROFILES: readonly FuzzProfile[] = [native, world, harbor];
