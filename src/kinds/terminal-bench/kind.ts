// Terminal-Bench runs in the main process (docs/terminal-bench.md): how discovery tells a run, the
// book of each run's own files, its words, its part of the batch record, and its batch rules.
import type { Kind } from "../kind.js";
import { terminalBenchPack } from "./pack.js";
import { terminalBenchBatch, trialFields, type TrialFields } from "./batch.js";
import { RunBook, type RunDocument } from "./book.js";
import { terminalBenchRecogniser } from "./recogniser.js";
import { terminalBenchWords } from "./words.js";

export const terminalBenchKind: Kind = {
  name: "terminal-bench",
  trialTasks: true,
  recogniser: terminalBenchRecogniser,
  words: { "terminal-bench": terminalBenchWords },
  book: () => new RunBook(),
  pack: terminalBenchPack,
  // The tmux capture TB's parser read: where a trial's tests can be seen to have run.
  evidence: () => ({ file: "panes/post-test.txt", open: null }),
  // Named over the whole run: two run folders of one name are told apart.
  batch: (records, run) =>
    terminalBenchBatch(records, (run.containers["terminal-bench"] ?? []) as RunDocument[], run.options),
  recordPart: (e, share) => ({
    digest: e.digest,
    rewards: e.rewards,
    reward_source: share.string(e.reward_source),
    flags: share.codes(e.flags, false),
    job: share.string(e.job),
    claimed: share.one(e.claimed),
    exception: share.one(e.exception === null ? null : { type: e.exception.type, step: e.exception.step }),
    usage: e.usage,
    own: trialFields(e) satisfies TrialFields,
  }),
};
