// What discovery asks of a folder (main process, contract §14 "Recognition"): a model folder
// (`logs/run_evaluation/<run_id>/<model>/`) is a container whose members are its instance folders;
// it is told by one subfolder named like an instance id that holds a file the harness writes there.
// Nothing below logs/run_validation/ or logs/build_images/ is a run (the harness's other logs).
import { join, sep } from "node:path";
import type { Lister, Listing, Recogniser } from "../recogniser.js";
import { PATCH, REPORT, RUN_LOG, TEST_OUTPUT } from "./instance-entry.js";
import { INSTANCE_ID_RE } from "./repo.js";

/** The files run_instance writes into an instance folder. */
export const INSTANCE_FILES = [RUN_LOG, REPORT, TEST_OUTPUT, PATCH, "eval.sh"] as const;
const NOT_RUNS = [`${sep}logs${sep}run_validation${sep}`, `${sep}logs${sep}build_images${sep}`];

/** A folder named like an instance id holding one of the files the harness writes there. */
function isInstanceFolder(dir: string, name: string, list: Lister): boolean {
  if (!INSTANCE_ID_RE.test(name)) return false;
  const l = list(join(dir, name));
  return typeof l !== "string" && INSTANCE_FILES.some((f) => l.has(f));
}

const below = (dir: string): boolean => NOT_RUNS.some((p) => `${dir}${sep}`.includes(p));

export const sweBenchRecogniser: Recogniser = {
  description:
    "a SWE-bench run's model folder (logs/run_evaluation/<run_id>/<model>/, instance folders holding report.json, test_output.txt, run_instance.log)",
  markers: INSTANCE_FILES,
  folder(dir: string, l: Listing, list: Lister) {
    if (below(dir)) return null;
    return l.dirs.some((d) => isInstanceFolder(dir, d, list)) ? "container" : null;
  },
  // The harness names every folder it writes in a model folder after its instance: others (notes/, .cache/) are no instance.
  memberNamed: (name) => INSTANCE_ID_RE.test(name),
};
