// SWE-bench harness runs in the main process (contract §14): how discovery tells a model folder, the
// book of each model folder's run files, its words, its part of the batch record, and its batch rules.
import type { Kind } from "../kind.js";
import { sweBenchBatch, instanceFacts, type InstanceFacts } from "./batch.js";
import { ModelBook, type RunDocument } from "./book.js";
import { readDataset } from "./dataset.js";
import { sweBenchPack } from "./pack.js";
import { sweBenchRecogniser } from "./recogniser.js";
import { sweBenchWords } from "./words.js";

export const sweBenchKind: Kind = {
  name: "swe-bench",
  trialTasks: true,
  recogniser: sweBenchRecogniser,
  words: { "swe-bench": sweBenchWords },
  book: () => new ModelBook(),
  pack: sweBenchPack,
  // The harness's test log, from which the instance's report is re-derived.
  evidence: () => ({ file: "test_output.txt", open: null }),
  dataset: {
    describe:
      "SWE-bench's instances (the dataset's JSONL, or a JSON list of records with instance_id, FAIL_TO_PASS, PASS_TO_PASS)",
    check(file) {
      const r = readDataset(file, new Set()); // every record checked, none kept
      return r.read === "ok" ? { ok: true, units: r.records } : { ok: false, why: r.why };
    },
  },
  // Named over the whole run: two model folders of one run and model (a copied archive) are told apart.
  batch: (records, run) => sweBenchBatch(records, (run.containers["swe-bench"] ?? []) as RunDocument[], run.options),
  recordPart: (e, share) => ({
    digest: e.digest,
    rewards: e.rewards,
    reward_source: share.string(e.reward_source),
    flags: share.codes(e.flags, false),
    job: share.string(e.job),
    claimed: share.one(e.claimed),
    exception: share.one(e.exception === null ? null : { type: e.exception.type, step: e.exception.step }),
    own: instanceFacts(e) satisfies InstanceFacts,
  }),
};
