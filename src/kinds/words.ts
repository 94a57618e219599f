// What a kind's words are (each kind's record is in its folder: src/kinds/<kind>/words.ts), and
// those of an assay bundle profile. A leaf: the kinds' records are built from it at load time.
import type { IntervalField } from "../core/results.js";

export interface Words {
  /** The kind as a kind column shows it: the profile, or "unknown". */
  kind: string;
  /** The harness or kind in prose ("Harbor", "Inspect", "native-game"). */
  label: string;
  /** One experiment of the kind ("Harbor job", "Inspect task run", "experiment"). */
  experiment: string;
  /** The word a table's --details section opens with ("job", "task run", "experiment"). */
  heading: string;
  /** One piece of evidence, and several ("Harbor trial", "Harbor trials"). */
  evidence: string;
  evidencePlural: string;
  /** What its intervals are over, and their clusters (intervals.ts). */
  units: Nouns;
  /** The name shown for an experiment the document names null. */
  unnamed: string;
  /** The header over the harness's own figures; null where the kind claims none. */
  claims: string | null;
  /** Where the harness's own figures come from, for the legend ("Harbor's result.json"); absent where it claims none. */
  claimFrom?: string;
  /**
   * What one entry's `claimed` is (assay verify): who says it ("job says"), what stands when it
   * names no reward, and where it comes from and what holds it to the evidence. Absent: the kind's
   * entries claim nothing.
   */
  claim?: { says: string; none: string; from: string };
  /** What the overview's column of `scheduled` counts, in a word ("trials", "records"). */
  column: string;
  /** What `scheduled` counts, one and several. */
  scheduled: string;
  scheduledPlural: string;
  /** The `unscored` list (tool errors, outside every figure): its label and what it holds. */
  unscored: string;
  unscoredMeans: string;
  /** A cost total's unit (usage.ts): "trial", "log". */
  usageUnit: string;
  /** What the kind's headline figure is, said once in the overview's legend; null: the fallback says none. */
  headline: string | null;
  /** How figures count units without a score, under --errors (null: --errors changes nothing here). */
  errorsRule: ((errors: "exclude" | "zero") => string) | null;
  /** The evidence lists its trials by path (an Inspect log is its own trial): reports show them relative to the roots. */
  trialsArePaths: boolean;
  /** Its experiments are decided by one log whose status says whether it ran clean. */
  logged: boolean;
  /** Flags whose evidence the table leaves to --format json or verify. */
  flagsElsewhere: boolean;
  /** What invalid evidence of the kind loses, after "invalid evidence earns no credit: " (assay verify). */
  invalidMeans: string;
  /** Its evidence is attributed by where it lies (a job's folder, a log), not by names it writes itself. */
  byFolder: boolean;
  /**
   * The report sections its experiments and entries are shown in (each format keys its section
   * renderers by this): "victories" (native-game), "dimensions" (world), "rewards" (trials with
   * rewards and a harness's claims: Harbor), "samples" (a log of scored samples: Inspect).
   */
  sections: Sections;
  /** Its evidence may lie outside any container (a lone Harbor trial): such experiments are shown with their folder. */
  lone: boolean;
  /** The dimensions a pass needs, marked "(hard)" where the dimensions are shown (a kind whose sections are "dimensions"). */
  hardDimensions?: ReadonlySet<string>;
}

/** The shapes of report section there are: a kind picks one (`Words.sections`). */
export type Sections = "victories" | "dimensions" | "rewards" | "samples";

/** How a kind whose unit is a trial counts its trials (Harbor's, Terminal-Bench's; assay bundles' are scheduled). */
export const TRIAL_COUNTS = {
  column: "trials",
  scheduled: "trial",
  scheduledPlural: "trials",
  unscored: "unscored",
  unscoredMeans: "trials with a tool error: outside every metric",
  usageUnit: "trial",
} as const satisfies Partial<Words>;

/** The words of an assay bundle profile (and of a profile this version does not know). */
export const assayWords = (
  kind: string,
  sections: "victories" | "dimensions",
  headline: string | null,
  invalidMeans = "victory and late are not reported",
): Words => ({
  kind,
  label: kind,
  experiment: "experiment",
  heading: "experiment",
  evidence: "bundle",
  evidencePlural: "bundles",
  units: TRIALS,
  unnamed: "(none)",
  claims: null,
  ...TRIAL_COUNTS,
  scheduled: "scheduled trial",
  scheduledPlural: "scheduled trials",
  headline,
  errorsRule: null,
  trialsArePaths: false,
  logged: false,
  flagsElsewhere: false,
  invalidMeans,
  byFolder: false,
  sections,
  lone: false,
});

/** What the units and clusters of a profile are called (§13.1), and how each method reads for them. */
export interface Nouns {
  unit: string;
  cluster: string;
  legend: Record<IntervalField["method"], string>;
  /** The question every interval answers (§13.7 "words"): the population its units' clusters stand for. */
  question: string;
}

/** Native, world and Harbor: trials, clustered by task. */
export const TRIALS: Nouns = {
  unit: "trial",
  cluster: "task",
  legend: {
    wilson: "Wilson where each task ran once",
    "korn-graubard":
      "Korn–Graubard (Clopper–Pearson at the effective number of trials) where pass/fail trials repeat tasks",
    "cluster-t": "cluster-robust t over tasks where tasks repeat (Inspect's clustered stderr)",
    t: "t for non-binary means",
  },
  question: "the mean over the population of tasks these were drawn from",
};

/** Inspect: reduced samples; clustered only when a clustered stderr groups them by a metadata key (or unreduced epochs repeat a sample). */
export const SAMPLES: Nouns = {
  unit: "sample",
  cluster: "group",
  legend: {
    wilson: "Wilson where each sample stands alone",
    "korn-graubard":
      "Korn–Graubard (Clopper–Pearson at the effective number of samples) where 0/1 samples are grouped by a clustered stderr, or 0/1 unreduced epochs repeat one",
    "cluster-t":
      "cluster-robust t over groups where a clustered stderr groups samples, or unreduced epochs repeat one (Inspect's clustered stderr)",
    t: "t for non-binary means (a mean over epochs is one)",
  },
  question: "the mean over the population of samples these were drawn from",
};
