// Harbor trials and jobs in the main process (contract §11): their words and their part of the
// batch record.
import { harborExperiments, HarborNaming } from "./batch.js";
import { harborOwn } from "./own.js";
import { harborPack } from "./pack.js";
import type { Kind } from "../kind.js";
import { JobBook } from "./book.js";
import { harborRecogniser } from "./recognise.js";
import { harborWords } from "./words.js";

export const harborKind: Kind = {
  name: "harbor",
  trialTasks: true,
  recogniser: harborRecogniser,
  words: { harbor: harborWords },
  book: () => new JobBook(),
  pack: harborPack,
  recordsIn: "jobs",
  // What `harbor view` shows of a trial: the agent's trajectory (ATIF), in the trial's folder.
  evidence: () => ({ file: "agent/trajectory.json", open: null }),
  // Named over the whole run: two jobs of one name are told apart.
  batch(records, run) {
    const naming = new HarborNaming(records, run.jobs);
    return { nameOf: (e) => naming.nameOf(e), experiments: () => harborExperiments(naming, run.options) };
  },
  // The digest tells byte-identical copies apart; nothing else in the batch rules reads it.
  recordPart: (e, share) => ({
    digest: e.digest,
    task_checksum: share.string(e.task_checksum),
    rewards: e.rewards,
    reward_source: share.string(e.reward_source),
    flags: share.codes(e.flags, false),
    harbor_id: e.harbor_id,
    job_id: share.string(e.job_id),
    job: share.string(e.job),
    claimed: share.one(e.claimed),
    exception: share.one(e.exception === null ? null : { type: e.exception.type, step: e.exception.step }),
    usage: e.usage,
    // What the job rules read of its warnings, and where its task lay (own.ts).
    own: share.one(harborOwn(e)),
  }),
};
