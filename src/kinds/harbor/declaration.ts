// Harbor trials and jobs (contract §11). What both threads and the results schema need to know of
// the kind: data only (its entry's and its jobs' schemas are entry.ts, itself data).
import { harborAnalysisSchema, harborJobSchema, rewardDetailsSchema } from "./entry.js";

export const harborDeclaration = {
  name: "harbor",
  form: "folder",
  profiles: ["harbor"],
  /** §11: one state per trial, never collapsed into a silent 0. */
  states: ["scored", "scored-with-exception", "infrastructure-error", "cancelled", "incomplete", "unverified"],
  /** Its entries' rewards are per-task units (`assay compare` pairs them by task): the states whose rewards are scored. */
  scored: ["scored", "scored-with-exception"],
  /** Its own codes beyond the contract's (core/codes.ts holds §11's): those of its harness as it is written now (issue 25). */
  codes: {
    JOB_IN_PROGRESS:
      "§11 warning: a job's result.json has no finished_at (running, or stopped): its figures are live ones, not compared as final",
    REWARD_DETAILS_UNREADABLE:
      "§11 warning: a Rewardkit reward-details.json that is malformed: not read (the reward stands)",
    REWARD_FILES_DISAGREE:
      "§11 review flag: reward.json and reward.txt both present with different rewards (Harbor read one by its version)",
    REWARD_DETAILS_MISMATCH:
      "§11 review flag: a Rewardkit reward-details.json score differs from the reward of that name",
    GRADER_ERROR: "§11 review flag: a Rewardkit criterion recorded an error (a grader's failure, not the agent's)",
    ANALYZE_REWARD_HACKING:
      "§11 review flag: harbor analyze judged reward_hacking: fail (its analysis.json, beside assay's own flags)",
  },
  /** The file an assay seal is kept in, out of the digest (§11: Harbor trials carry no seal: a seal.json there is an ordinary file). */
  seal: null,
  /** Why `assay seal` passes it over. */
  unsealed: "Harbor trials carry no seal",
  /** Its entries' own fields (`reward_details`, `harbor_analysis`) and its job records (`run.jobs`, over the results schema's `finding`), where they were before kinds declared entries. */
  schemas: { rewardDetails: rewardDetailsSchema, analysis: harborAnalysisSchema, job: harborJobSchema },
} as const;
